"""The CPU-scale transition analysis of depth-width (lib/chapters/depth_width/claims/transition.py and procedure.py): the paper's
procedure on synthetic comparisons whose answer is known, and the declared grids of the stored sweep."""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.depth_width import evidence as E
from lib.chapters.depth_width import train as lm
from lib.chapters.depth_width.claims import transition as T


def _cell(size: float, d_s: int, delta: float, noise: float = 0.01) -> T.Cell:
    base = np.array([-1.0, 0.0, 1.0]) * noise
    return T.Cell(size, d_s, d_s - 2, list(4.0 + base), list(4.0 - delta + base))


def test_status_uses_the_student_bar():
    c = _cell(1e3, 10, 0.0)
    bar = c.t_crit * c.se
    assert math.isclose(c.t_crit, 2.7764, rel_tol=1e-4)            # t(0.975, df = 4)
    assert _cell(1e3, 10, 0.9 * bar).status == "tie"
    assert _cell(1e3, 10, 1.1 * bar).status == "deeper"
    assert _cell(1e3, 10, -1.1 * bar).status == "shallower"
    assert T.Cell(1e3, 10, 8, [4.0], [3.0]).status == "one seed"


def test_transition_by_the_papers_procedure():
    cs = [_cell(1e3, 10, -0.2), _cell(2e3, 14, 0.0), _cell(4e3, 20, 0.2), _cell(8e3, 28, 0.3)]
    t = T.transition(cs)
    assert t["found"] and t["k"] == 2 and t["width"] == 17 and t["err"] == 6 and t["left"] == "tie"
    assert not T.transition(T._swap(cs))["found"]                   # the control: depths swapped


def test_no_transition_cases():
    assert not T.transition([_cell(1e3, 10, 0.2), _cell(2e3, 14, 0.3)])["found"]       # deeper wins everywhere
    assert not T.transition([_cell(1e3, 10, -0.2), _cell(2e3, 14, -0.1)])["found"]     # never
    rev = [_cell(1e3, 10, 0.0), _cell(2e3, 14, 0.2), _cell(4e3, 20, -0.2)]            # a later reversal
    assert not T.transition(rev)["found"]


def test_settled_step():
    steps = np.array([100, 200, 300, 400])
    assert T.settled_step(steps, np.array([-0.1, 0.1, -0.2, 0.1])) == 400
    assert T.settled_step(steps, np.array([-0.1, 0.1, 0.2, 0.1])) == 200
    assert T.settled_step(steps, np.array([0.1, 0.1, 0.2, 0.1])) == 100


def test_declared_grids():
    assert len(E.POINTS) == len(E.DEPTHS) * len(E.SIZES) * len(E.SEEDS)
    assert all(lm.matched_steps(1, s, E.STEPS, T=E.RECIPE["T"], batch=E.RECIPE["batch"], vocab=E.RECIPE["vocab"]) == E.STEPS for s in E.SIZES)
    assert all(p["steps"] > E.STEPS for p in E.FLOPS_POINTS)       # narrower embeddings: more steps for equal FLOPs
    assert [p["seed"] for p in E.POINTS[:len(E.DEPTHS) * len(E.SIZES)]] == [0] * (len(E.DEPTHS) * len(E.SIZES))


def test_agreement_with_eq10_and_the_null_control():
    """lm-cpu-transition's judge: the procedure's outcome against a prediction; with no transition in the grid and
    none predicted, the null (no transition at any size) agrees too: the verdict is not discriminating."""
    found = {(1, 2): [_cell(1e3, 10, -0.2), _cell(2e3, 14, 0.0), _cell(4e3, 20, 0.2), _cell(8e3, 28, 0.3)]}
    none = {(1, 2): [_cell(1e3, 10, -0.2), _cell(2e3, 14, -0.2)]}
    null = {(1, 2): dict(found=False, width=None)}
    assert T.agrees(found, {(1, 2): dict(found=True, width=18.0)})[0]
    assert not T.agrees(found, {(1, 2): dict(found=True, width=30.0)})[0]          # outside the error bar
    assert not T.agrees(found, null)[0]
    assert T.agrees(none, null)[0] and T.agrees(none, {(1, 2): dict(found=False, width=163.0)})[0]
    p = T.eq10_prediction((1, 2), none[(1, 2)], 5.039, 0.0555)
    assert round(p["width"]) == 163 and 3.1e5 < p["N"] < 3.3e5 and not p["found"]
    assert round(T.eq10_prediction((2, 4), none[(1, 2)], 5.039, 0.0555)["width"]) == 172


def test_literal_threshold_judge_and_its_control():
    cs = {(1, 2): [_cell(1e3, 10, -0.2), _cell(2e3, 14, -0.2), _cell(4e3, 20, -0.2)]}
    assert T.threshold_not_seen(cs, lambda p: 3 ** p[0])[0]
    assert not T.threshold_not_seen(cs, lambda p: 163)[0]                             # no width past it: no test
    assert not T.threshold_not_seen({(1, 2): cs[(1, 2)] + [_cell(8e3, 28, 0.3)]}, lambda p: 3)[0]


def test_stored_transition_claims_and_their_variants():
    """On the stored sweep: the transition is not discriminating against eq. 10 and fragile (eq. 10's 2σ lower edge
    puts a transition at L = 1 inside the grid, where none is found); lm-cpu-fit likewise; the literal threshold 3^L
    is not observed, survives every variant (one seed left out keeps 14 of 15 sizes significant), and is not
    discriminating, since eq. 10 predicts the same outcome on this grid."""
    import pytest
    from lib.core.claims import FRAGILE, HOLDS, NOT_DISCRIMINATING, Claims
    ev, fl = T.load()
    if not ev.complete:
        pytest.skip("no stored transition sweep")
    C = Claims("depth-width")
    out = T.claims(C, ev, fl)
    T.control_claims(C, ev, fl, out)
    T.fit_finding(C, out)
    assert C.missing_variants() == []
    tr = C.claims["lm-cpu-transition"]
    assert tr.verdict == FRAGILE and tr.base == NOT_DISCRIMINATING and tr.control["passed"] and len(tr.variants) == 8
    assert tr.flips == ["eq. 10 at its 2σ lower edge N_tr − 2ΔN_tr"]
    p1 = T.eq10_prediction((1, 2), out[(1, 2)]["cells"], 5.039, 0.0555, shift=2.0)
    assert p1["found"] and p1["width"] < p1["top"]                       # the 2σ edge lies inside the grid
    assert not T.eq10_prediction((1, 2), out[(1, 2)]["cells"], 5.039, 0.0555, shift=1.0)["found"]
    fit = C.claims["lm-cpu-fit"]
    assert fit.verdict == FRAGILE and fit.base == NOT_DISCRIMINATING and "significantly better" in fit.statement
    th = C.claims["lm-cpu-threshold-3L"]
    assert th.verdict == NOT_DISCRIMINATING and th.base == NOT_DISCRIMINATING and th.control["passed"] is True
    assert "refuted" not in th.statement and "not observed" in th.statement and th.flips == []
    assert "14/15" in next(v["value"] for v in th.variants if v["choice"] == "seed 2 left out")
    we = C.claims["lm-cpu-width-efficiency"]
    assert we.verdict == HOLDS and "3.1e+04" in we.ours and "6.6e+04" in we.ours
    g = out.extra["overfit"]
    assert 0.2 < min(g["gap"].values()) and max(g["gap"].values()) < 0.3 and 13 < g["tpp"][0]


def _pt(L: int, size: float, seed: int, loss: float) -> dict:
    return dict(L=L, size=size, seed=seed, budget="steps", test_loss=loss, d=int(math.sqrt(size / (12 * L))))


def test_best_depth_per_size_and_its_judge():
    """Fig. 3(c)'s reading: the depth with the lowest seed-mean loss per size; a deeper best somewhere fails the judge."""
    from lib.chapters.depth_width.claims import bestdepth as B
    pts = [_pt(L, s, sd, 4.0 + 0.1 * L * (1 if s < 1e4 else -1) + 0.01 * sd) for s in (1e3, 1e5) for L in (1, 2)
           for sd in (0, 1, 2)]
    assert B.best_depth(pts) == [(1e3, 1), (1e5, 2)]
    assert B._shallowest(B.best_depth(pts), [1, 2])[0] is False
    assert B._shallowest(B.best_depth([p for p in pts if p["size"] == 1e3]), [1, 2])[0] is True


def test_eq10_best_depth_prediction():
    """The control of lm-cpu-best-depth: eq. 10 puts depth L' ahead of L once N > N_tr(L)."""
    from lib.chapters.depth_width.claims import bestdepth as B
    from lib.chapters.depth_width.claims import fit as F
    n1, n2 = (float(F.n_transition(L, 5.039, 0.0555)) for L in (1, 2))
    assert 3.1e5 < n1 < 3.3e5 and n1 < n2
    assert B.eq10_best_depth([1e3, 3e5, 4e5, 1e6], [1, 2, 4], 5.039, 0.0555) == [(1e3, 1), (3e5, 1), (4e5, 2), (1e6, 4)]


def test_stored_best_depth_figure_and_transition_cost():
    """On the stored sweep: one colour (the shallowest depth best everywhere) and a cost line with its numbers."""
    import matplotlib
    matplotlib.use("Agg")
    from lib.chapters.depth_width.claims import bestdepth as B
    from lib.chapters.depth_width.claims.procedure import load
    from lib.core.claims import NOT_DISCRIMINATING, Claims
    ev, _ = load()
    C = Claims("depth-width")
    out = B.claim(C, ev)
    c = C.claims["lm-cpu-best-depth"]
    # eq. 10 puts N_tr(1) above every stored size, so the paper's own fit predicts one colour too: not discriminating
    assert c.verdict == NOT_DISCRIMINATING and c.base == NOT_DISCRIMINATING and c.control["passed"] is True
    assert "One colour" in out["caption"] and "predicts one colour" in c.statement
    B.fig3c(ev.points)
    line = B.transition_cost(ev.points)
    assert "CPU-hours" in line and "training tokens" in line and "N = 6.4e+05" in line
