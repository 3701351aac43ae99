"""The paper-scale subsets of Fig. 2(b), 2(c), 4, 5 and Fig. 2(a)'s second seed (mha-memorization): the training
function lib.chapters.mha_memorization.train.train_points on tiny recipes, and the page's
reader (stored_fig245) on synthetic stored points: partial -> not run with count, cost and command; complete ->
judged, each claim failing on the wrong shape and its control failing on the right one."""
import numpy as np
import pytest
import torch

from lib.book import evidence as store
from lib.chapters.mha_memorization import evidence as EV
from lib.chapters.mha_memorization.claims import fig2a as F2A
from lib.chapters.mha_memorization.claims import fig245 as S
from lib.chapters.mha_memorization.claims import paper_scale as PS
from lib.core import claims
from lib.engine import sweep


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def test_declarations_share_fig2a_code_and_fit_the_budget():
    sws = store.sweeps("mha-memorization")
    assert store.fingerprint(sws["fig2a-seed1"]) == store.fingerprint(sws["fig2a"])     # same code, same recipe
    assert {p["seed"] for p in EV.SWEEPS["fig2a-seed1"]["points"]} == {1}
    assert len(EV.SWEEPS["fig2a-seed1"]["points"]) == len(EV.SWEEPS["fig2a"]["points"])
    assert store.fingerprint(sws["fig4-context"]) == store.fingerprint(sws["fig4"])   # the head panel's code
    assert {p["T"] for p in EV.POINTS_4N} == {p["T"] for p in EV.POINTS_4}          # and its T (the control)
    for name in ("fig2b", "fig2c", "fig4", "fig4-context", "fig5"):
        sw = sws[name]
        assert len(sw["points"]) * sw["cost_s"] / 3600 <= sw["budget_h"], name
        assert set(sw["claims"]) <= set(PS.STATEMENTS)
    dhs = {p["dh"] for p in EV.POINTS_C}
    assert min(dhs) < 32 < max(dhs) and 32 in dhs                    # both sides of n = 32


@pytest.mark.parametrize("cfg,pts", [
    (dict(EV.RECIPE_C, d=8, min_steps=30, epochs=0, eval_every=10),
     [dict(H=2, n=3, dh=2, T=40, seed=0), dict(H=2, n=3, dh=2, T=60, seed=0)]),
    (dict(EV.RECIPE_4, d=8, min_steps=30, epochs=0, eval_every=10), [dict(panel="H", H=2, n=3, T=40, seed=0)]),
    (dict(EV.RECIPE_5, d=8, min_steps=30, epochs=0, eval_every=10), [dict(panel="n", H=2, n=1, T=40, seed=0)]),
])
def test_training_function_stores_sealed_points(tmp_path, cfg, pts):
    rows = sweep.run(EV.train_points, pts, name="t", group_by=["H", "n"], config=cfg, fn_kwargs=cfg,
                     run_dir=tmp_path, workers=1, quiet=True, sealed=True)
    for r, p in zip(rows, pts, strict=True):
        assert r["steps"] == 30 and r["cpu_s"] >= 0 and r["digest"]
        if cfg.get("task", "classification") == "classification":
            assert 0 <= r["best_acc"] <= 1 and r["memorized"] == pytest.approx(r["best_acc"] * p["T"])
        else:
            assert "best_acc" not in r and r["best_loss"] > 0
            assert not r["stopped_early"]


def _pts(sw: dict, value) -> list[dict]:
    return [dict(p, **value(p)) for p in sw["points"]]


def _shapes(good: bool) -> dict[str, list[dict]]:
    """Synthetic complete stores: the paper's shapes (good) or the wrong ones."""
    def acc2b(p):
        a = min(1.0, 0.01 + (p["n"] - 1) * 0.3 * 6000 / p["T"] / 60) if p["n"] > 1 else 0.01
        if not good and p["n"] == 40:
            a = 0.1          # a dip above the chance floor (a dip to chance would be dropped by that variant)
        return dict(best_acc=a, memorized=a * p["T"])
    acc2c = {10: 0.5, 32: 0.7, 64: 0.71 if good else 0.85}    # good: a gain below every reading of "benefit"
    def f4(p):
        m = 300 * p["H"] + 100 if good else 20 * p["H"] ** 2 + 100
        return dict(best_acc=m / p["T"], memorized=m)
    def f4n(p):           # good: flat beyond n = 5 (not a line); wrong: a line in n
        m = 20000 * (1 - np.exp(-p["n"] / 2)) + 100 if good else 400 * p["n"] + 100
        return dict(best_acc=m / p["T"], memorized=m)
    def f5(p):
        x = p[p["panel"]]
        return dict(best_loss=0.09 if x == 1 else (0.05 / x if good or x != 30 else 0.06))
    def a2(seed):
        def f(p):
            a = min(1.0, p["H"] * 300 / p["T"] + 0.001 * seed)
            return dict(best_acc=a, memorized=a * p["T"])
        return f
    return {"fig2b": _pts(EV.SWEEPS["fig2b"], acc2b),
            "fig2c": _pts(EV.SWEEPS["fig2c"], lambda p: dict(best_acc=acc2c[p["dh"]], best_step=300_000,
                                                                        steps=300_000)),
            "fig4": _pts(EV.SWEEPS["fig4"], f4), "fig4-context": _pts(EV.SWEEPS["fig4-context"], f4n),
            # the GPU grids at their two smallest T (a per-example point's chance level costs T·n·d draws)
            "fig4-gpu": _pts(dict(points=[p for p in EV.SWEEPS["fig4-gpu"]["points"] if p["T"] <= 50_000]), f4),
            "fig4-context-gpu": _pts(dict(points=[p for p in EV.SWEEPS["fig4-context-gpu"]["points"]
                                                  if p["T"] <= 30_000]), f4n),
            "fig5": _pts(EV.SWEEPS["fig5"], f5),
            "fig2a": _pts(EV.SWEEPS["fig2a"], a2(0)), "fig2a-seed1": _pts(EV.SWEEPS["fig2a-seed1"], a2(1))}


def _judge(monkeypatch, stores: dict[str, list[dict]]) -> tuple[claims.Claims, str]:
    sws = store.sweeps("mha-memorization")

    def load(chapter, name, root=None):
        return store.Evidence(chapter, name, points=stores.get(name, []), total=len(sws[name]["points"]),
                              manifest={"sessions": [{"date": "2026-01-01"}]})
    monkeypatch.setattr(store, "load", load)
    C = claims.Claims("mha-memorization", "book")
    return C, S.report(C)


def test_reader_not_run_while_partial(monkeypatch):
    stores = {k: v[:1] for k, v in _shapes(True).items()}
    C, table = _judge(monkeypatch, stores)
    for i in set(PS.STATEMENTS) - {"fig4-gpu-reproduces-cpu"}:     # judged on any point both machines stored
        assert C.claims[i].verdict == claims.NOT_RUN, i
    assert C.claims["fig4-gpu-reproduces-cpu"].verdict == claims.HOLDS
    crit = C.claims["fig2b-monotone-paper-scale"].criterion
    assert "1 of 24 points stored" in crit and "python -m lib evidence mha-memorization fig2b" in crit
    assert "CPU-hours" in C.claims["fig4-context-paper-scale"].criterion
    assert "| Fig. 2(c) |" in table and "(estimated)" in table


def test_reader_judges_the_paper_shapes(monkeypatch):
    C, table = _judge(monkeypatch, _shapes(True))
    for i in PS.STATEMENTS:
        assert C.claims[i].verdict == claims.HOLDS, (i, C.claims[i])
    assert "holds" in table


def test_reader_fails_the_wrong_shapes(monkeypatch):
    C, _ = _judge(monkeypatch, _shapes(False))
    for i in ("fig2b-monotone-paper-scale", "fig2c-no-gain-paper-scale", "fig4-linear-paper-scale",
              "fig4-context-paper-scale", "fig4-context-plateau-paper-scale", "fig5a-monotone-paper-scale",
              "fig5b-monotone-paper-scale"):
        assert C.claims[i].verdict == claims.FAILS, (i, C.claims[i])
    # a gain beyond n makes the up-to-n claim's control pass: not discriminating
    assert C.claims["fig2c-up-to-n-paper-scale"].verdict == claims.NOT_DISCRIMINATING


def test_mse_ties_below_the_floor_and_sanity_ceilings():
    assert PS.decreasing([0.1, 0.01, 5e-5, 6e-5])
    assert not PS.decreasing([0.1, 0.01, 0.02])
    assert not PS.decreasing([0.1, 0.1])
    T = 6000
    assert 0.01 <= F2A.majority(1, 20, T, 0) < 0.03
    v = PS.label_variance(1, 20, 25_000, 0)
    assert abs(v - 1 / 12) < 0.003 and np.isfinite(v)


def test_seed1_waits_for_seed0(monkeypatch):
    stores = _shapes(True)
    stores["fig2a"] = stores["fig2a"][:3]
    C, _ = _judge(monkeypatch, stores)
    c = C.claims["fig2a-seeds-paper-scale"]
    assert c.verdict == claims.NOT_RUN and "`fig2a` 3 of 32 points stored" in c.criterion, c.criterion
    assert "python -m lib evidence mha-memorization fig2a` (about 2.19 CPU-hours to go" in c.criterion


def test_reversed_controls_pass_on_falling_or_saturated_sequences(monkeypatch):
    """The monotone claims' control is the same sequence in the reversed order of the swept parameter: it fails on the
    paper's shapes, passes when the trend goes the other way, and passes with the claim (not discriminating) when
    every model is saturated."""
    good = _shapes(True)
    C, _ = _judge(monkeypatch, good)
    for i in ("fig2b-monotone-paper-scale", "fig5a-monotone-paper-scale", "fig5b-monotone-paper-scale"):
        assert not C.claims[i].control["passed"] and "reversed" in C.claims[i].control["description"], i
    saturated = dict(good, fig2b=[dict(p, best_acc=1.0, memorized=float(p["T"])) for p in good["fig2b"]],
                     fig5=[dict(p, best_loss=1e-6) for p in good["fig5"]])
    C, _ = _judge(monkeypatch, saturated)
    for i in ("fig2b-monotone-paper-scale", "fig5a-monotone-paper-scale", "fig5b-monotone-paper-scale"):
        assert C.claims[i].base == claims.NOT_DISCRIMINATING, (i, C.claims[i])
    # tied MSEs (all 1e-6) hold only because the tie floor exempts them: read strictly (floor 0), they flip
    assert "tie floor (MSE) = 0" in C.claims["fig5a-monotone-paper-scale"].flips
    falling = dict(good, fig2b=[dict(p, best_acc=0.5 / p["n"], memorized=0.5 / p["n"] * p["T"]) for p in good["fig2b"]],
                   fig5=[dict(p, best_loss=0.01 * p[p["panel"]]) for p in good["fig5"]])
    C, _ = _judge(monkeypatch, falling)
    for i in ("fig2b-monotone-paper-scale", "fig5a-monotone-paper-scale", "fig5b-monotone-paper-scale"):
        assert C.claims[i].base == claims.FAILS and C.claims[i].control["passed"], (i, C.claims[i])


def test_not_run_claims_state_their_declared_criterion(monkeypatch):
    C, _ = _judge(monkeypatch, {})
    for i in PS.STATEMENTS:
        crit = C.claims[i].criterion
        assert crit.startswith(f"criterion (declared): {PS.CRITERIA[i]}"), (i, crit)
        assert "python -m lib" in crit, (i, crit)
    assert "√n" in C.claims["fig4-context-paper-scale"].criterion
    assert "none of 24 points stored" in S.status()


def test_fig2a_monotone_control_is_the_reversed_order(monkeypatch):
    from lib.chapters.mha_memorization.claims import fig2a as stored
    pts = _shapes(True)["fig2a"]
    ev = store.Evidence("mha-memorization", "fig2a", points=pts, total=len(pts),
                        manifest={"sessions": [{"date": "2026-01-01"}]})
    monkeypatch.setattr(store, "load", lambda *a, **k: ev)
    C = claims.Claims("mha-memorization", "book")
    stored.report(C)
    c = C.claims["fig2a-monotone-paper-scale"]
    assert c.verdict == claims.HOLDS and not c.control["passed"] and "reversed steps fail" in c.control["value"]
    flat = [dict(p, best_acc=1.0, memorized=float(p["T"])) for p in pts]            # every model saturated
    ev = store.Evidence("mha-memorization", "fig2a", points=flat, total=len(pts), manifest={"sessions": [{"date": "x"}]})
    C = claims.Claims("mha-memorization", "book")
    stored.report(C)
    assert C.claims["fig2a-monotone-paper-scale"].verdict == claims.NOT_DISCRIMINATING


def test_fig4_context_control_is_the_head_panel(monkeypatch):
    """A head panel that is not a line either makes the weakened-line claim not discriminating; without a complete
    head panel the context claim is not run."""
    good = _shapes(True)
    curved = dict(good, fig4=[dict(p, memorized=20 * p["H"] ** 2 + 100, best_acc=(20 * p["H"] ** 2 + 100) / p["T"])
                              for p in good["fig4"]])
    C, _ = _judge(monkeypatch, curved)
    c = C.claims["fig4-context-paper-scale"]
    assert c.verdict == claims.NOT_DISCRIMINATING and c.control["passed"], c
    C, _ = _judge(monkeypatch, dict(good, fig4=good["fig4"][:2]))
    c = C.claims["fig4-context-paper-scale"]
    assert c.verdict == claims.NOT_RUN and "head panel" in c.criterion, c


def test_fig4_plateau_control_is_the_shared_context(monkeypatch):
    """The plateau finding passes on a flat context panel and its control (Fig. 2(b), growing with n) fails; a flat
    Fig. 2(b) makes it not discriminating; without a complete Fig. 2(b) it is not run."""
    good = _shapes(True)
    C, _ = _judge(monkeypatch, good)
    c = C.claims["fig4-context-plateau-paper-scale"]
    assert c.verdict == claims.HOLDS and c.kind == claims.FINDING and not c.control["passed"], c
    flat = dict(good, fig2b=[dict(p, best_acc=0.3, memorized=0.3 * p["T"]) if p["n"] > 1 else p for p in good["fig2b"]])
    C, _ = _judge(monkeypatch, flat)
    assert C.claims["fig4-context-plateau-paper-scale"].verdict == claims.NOT_DISCRIMINATING
    C, _ = _judge(monkeypatch, dict(good, fig2b=good["fig2b"][:3]))
    c = C.claims["fig4-context-plateau-paper-scale"]
    assert c.verdict == claims.NOT_RUN and "fig2b" in c.criterion, c


def test_fig4_note_only_when_judged(monkeypatch):
    good = _shapes(True)
    _, page = _judge(monkeypatch, good)
    note = page[page.index("**Reading Fig. 4"):]
    assert "cannot tell" not in note and "O(Hd)" in note
    _, page = _judge(monkeypatch, dict(good, **{"fig4-context": good["fig4-context"][:2]}))
    assert "**Reading Fig. 4" not in page


def test_gpu_panels_are_judged_per_complete_T(monkeypatch):
    """The official grid on a GPU is judged at the T whose panel is complete (one T is enough), by the CPU subsets'
    criteria: a line in H holds and a curve fails; the plateau leaves out a T where the data set is the ceiling."""
    good = _shapes(True)
    one_T = dict(good, **{k: [p for p in good[k] if p["T"] == 30_000] + [p for p in good[k] if p["T"] != 30_000][:1]
                          for k in ("fig4-gpu", "fig4-context-gpu")})     # one complete T, one point of another
    C, page = _judge(monkeypatch, one_T)
    c = C.claims["fig4-linear-gpu"]
    assert c.verdict == claims.HOLDS and "T = 30,000 of 30k..130k" in c.scale["ours"], c
    assert not c.control["passed"]
    p = C.claims["fig4-context-plateau-gpu"]
    assert p.verdict == claims.HOLDS and "T=30,000" in p.ours, p
    C, _ = _judge(monkeypatch, good)
    p = C.claims["fig4-context-plateau-gpu"]
    assert "T=20,000" not in p.ours and any("ceiling included (20,000)" in v["choice"] for v in p.variants), p
    assert "**Fig. 4 on the official grid (GPU).**" in page
    bad = _shapes(False)
    C, _ = _judge(monkeypatch, dict(good, **{k: bad[k] for k in ("fig4-gpu", "fig4-context-gpu")}))
    assert C.claims["fig4-linear-gpu"].verdict == claims.FAILS
    assert C.claims["fig4-context-plateau-gpu"].verdict == claims.FAILS


def test_gpu_and_cpu_points_must_agree(monkeypatch):
    """The machines' check fails when a point stored by both differs by more than its tolerance."""
    good = _shapes(True)
    C, _ = _judge(monkeypatch, good)
    assert C.claims["fig4-gpu-reproduces-cpu"].verdict == claims.HOLDS
    off = [dict(p, best_acc=p["best_acc"] + (0.02 if p["H"] == 5 and p["T"] == 30_000 else 0.0))
           for p in good["fig4-gpu"]]
    C, _ = _judge(monkeypatch, dict(good, **{"fig4-gpu": off}))
    c = C.claims["fig4-gpu-reproduces-cpu"]
    assert c.verdict == claims.FAILS and "0.0200" in c.ours, c
