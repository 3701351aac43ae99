"""Unit tests of lib.chapters.mha_memorization.theory, .train.gd, .model.vit, .train.capacity and .claims (the mha-memorization
chapter). Small and fast."""
import math

import numpy as np
import pytest
import torch

from lib.chapters.mha_memorization.model import vit as mha_vit
from lib.chapters.mha_memorization.theory import appendices as app
from lib.chapters.mha_memorization.theory import construction as con
from lib.chapters.mha_memorization.theory import layer as mha
from lib.chapters.mha_memorization.train import gd as mha_gd


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)
    with mha.limit_blas_threads(1):
        yield


def test_forward_matches_equations_1_to_6():
    rng = np.random.default_rng(0)
    T, n, d, H, dh, dv, do = 5, 4, 7, 3, 2, 2, 3
    E, e = rng.standard_normal((T, n, d)), rng.standard_normal((T, d))
    W = [rng.standard_normal(s) for s in ((H, d, dh), (H, d, dh), (H, d, dv), (H * dv, d), (d, do))]
    ref = np.stack([mha.paper_layer(E[t], e[t], *W) for t in range(T)])
    assert np.abs(mha.forward(E, e, *W) - ref).max() < 1e-12
    # skip connection adds the query before W_D
    ref_skip = ref + e @ W[4]
    assert np.abs(mha.forward(E, e, *W, skip=True) - ref_skip).max() < 1e-12


def test_param_count_includes_W_O():
    f = mha.param_count(4, 16, 6, 2, 3)
    assert f["true"] == mha.count_module_params(4, 16, 6, 2, 3)
    assert f["true"] - f["paper"] == 4 * 2 * 16


def test_kruskal_rank_exact_and_randomized():
    rng = np.random.default_rng(1)
    assert mha.kruskal_rank(rng.standard_normal((7, 3))) == 3
    V = rng.standard_normal((6, 4))
    V[3] = V[0] + V[1]
    assert mha.kruskal_rank(V) == 2
    frac, ranks = mha.kruskal_test(rng.standard_normal((30, 8)), 5, 50, rng)
    assert frac == 1.0 and (ranks == 5).all()


@pytest.mark.parametrize("shared,d_v,d_out,Q,skip", [(True, 1, 1, None, False), (False, 1, 1, None, False),
                                                      (True, 10, 10, None, False), (True, 1, 1, 3, False),
                                                      (True, 1, 1, None, True)])
def test_construction_memorizes(shared, d_v, d_out, Q, skip):
    rng = np.random.default_rng(2)
    d, n, H, dh = 10, 5, 4, 10
    r = min(n if Q is None else Q, dh)
    T = H * (r - 1) + 1
    E, e = mha.uniform_data(T, n, d, rng, shared=shared, Q=Q)
    Y = rng.standard_normal((T, d_out))
    res = con.memorize_check(E, e, Y, H, dh, d_v, rng, Q=Q, skip=skip)
    assert res["rankZ"] == T
    assert res["err"] <= 1e-8 * res["scale"]
    assert res["max_head_rank"] <= dh and res["factor_err"] < 1e-10
    assert res["sat_ok"]


def test_construction_respects_small_dh():
    rng = np.random.default_rng(3)
    d, n, H, dh = 10, 6, 3, 3
    T = H * (dh - 1) + 1
    E, e = mha.uniform_data(T, n, d, rng)
    res = con.memorize_check(E, e, rng.standard_normal((T, 1)), H, dh, 1, rng)
    assert res["max_head_rank"] <= dh and res["err"] <= 1e-8 * res["scale"]


def test_construction_rejects_too_many_examples():
    rng = np.random.default_rng(4)
    E, e = mha.uniform_data(20, 4, 8, rng)
    with pytest.raises(ValueError):
        con.construct(E, e, np.zeros((20, 1)), 2, 8, 1, rng)


def test_prop2_bound_for_random_weights():
    rng = np.random.default_rng(5)
    d, n, H = 9, 4, 3
    B = H * (n - 1) + 1
    E, e = mha.uniform_data(3 * B, n, d, rng)
    s = mha.singular_values(mha.features(E, e, *mha.random_heads(H, d, 2, 1.0, rng)))
    assert s[B] / s[0] < 1e-12 < s[B - 1] / s[0]


def test_prop4_averaging_layer():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((5, 4, 6))
    assert np.abs(app.averaging_layer(X) - (X + X.mean(1, keepdims=True))).max() < 1e-12


def test_prop3_reduction_and_jacobian_rank():
    rng = np.random.default_rng(7)
    E, e, x = app.appF_dataset(40, 3, 6, rng)
    diff, jr, n_all, n_red = app.fcn_reduction(E, e, x, 4, 1, rng)
    assert diff < 1e-12 and jr <= n_red == 4 * 4 + 5 and n_all > n_red


def test_query_attention_reproduces_engine_logits():
    """θ from lib.core.attention on the trained parameters, combined with the values, gives the engine's logits."""
    from lib.chapters.mha_memorization import model as mha_model
    from lib.engine import family
    fam = mha_model.MHAMemorization(d=8, n=5, H=3, dh=4)
    data = mha_model.mha_data(fam, [12], [0], dtype=torch.float64)
    p = {k: v[0] for k, v in fam.init([0], dtype=torch.float64).items()}
    th = torch.as_tensor(mha_gd.query_attention(fam, p, data))                 # [T, H, n]
    pe = family.sinusoidal_pe(6, 8)
    c = data.shared["E"][0] @ p["emb_W"] + p["emb_b"] + pe[1:]
    V = c @ p["W_V"].T                                                          # [n, H]
    heads = torch.einsum("thn,nh->th", th, V)
    ref = (heads @ p["W_O"]) @ p["dec_W"] + p["dec_b"]
    logits = fam.logits({k: v[None] for k, v in p.items()}, data.batch(torch.arange(12)[None]))[0]
    assert torch.allclose(logits, ref, atol=1e-10)
    assert torch.allclose(th.sum(-1), torch.ones(12, 3, dtype=torch.float64))


def _tiny_params(**kw):
    P = dict(seed=0, gd_seeds=1, gd_n=4, gd_d=8, gd_classes=100, gd_heads=[1, 4], gd_T_heads=[20, 40],
             gd_T_reg=[20], gd_T_nonshared=[20], gd_H_n=2, gd_ns=[1, 4], gd_T_n=[30], gd_H_dh=2, gd_dhs=[1, 8],
             gd_T_dh=[30], gd_steps=300, gd_epochs=0, gd_dh_steps=150, gd_batch=0, gd_lr=1e-2, gd_eval_every=50,
             sat_H=[4], sat_T=[20], sat_steps=[150])
    P.update(kw)
    return P


def test_sweeps_run_and_learn(tmp_path, monkeypatch):
    monkeypatch.setenv("ATR_QUIET", "1")
    P = _tiny_params()
    rows = mha_gd.run_sweep("heads", P, "cpu")
    assert len(rows) == 4
    acc = {(r["H"], r["T"]): r["best_acc"] for r in rows}
    assert acc[(4, 20)] > acc[(1, 20)] and acc[(4, 20)] >= 0.2          # chance: ~0.05 among 100 classes
    sat = mha_gd.run_sweep("saturation", P, "cpu")
    mx = np.array(sat[0]["max_weight"])
    assert mx.shape == (20, 4) and (mx <= 1 + 1e-9).all() and (mx >= 1 / 4 - 1e-9).all()
    mx0 = np.array(sat[0]["max_weight_init"])                      # the same model before training
    assert mx0.shape == mx.shape and not np.allclose(mx0, mx)
    two = mha_gd.run_sweep("saturation", _tiny_params(sat_steps=[20, 150]), "cpu")
    assert sorted(r["steps"] for r in two) == [20, 150]            # one run per training budget


def test_n1_accuracy_is_at_most_majority(monkeypatch):
    monkeypatch.setenv("ATR_QUIET", "1")
    P = _tiny_params()
    rows = mha_gd.run_sweep("context", P, "cpu")
    for r in rows:
        if r["n"] == 1:
            assert r["best_acc"] <= mha_gd.majority_fraction(r, 8, 100) + 1e-9


def test_plan_cost_counts_models():
    fl, models = mha_gd.plan_cost(_tiny_params(), mha_gd.SWEEPS)
    assert models == 4 + 2 + 2 + 2 + 2 + 2 + 2 + 1 and fl > 0


def test_vit_shapes_and_embedding_queries_identical():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = mha_vit.load_images("digits", 12, 16, rng)
    vit = mha_vit.TinyViT(1, 16, 4, 24, 2, 32)
    reps = mha_vit.representations(vit, x)
    X0 = reps["Embedding"]
    assert X0.shape == (12, 17, 24)
    assert np.abs(X0[:, 0] - X0[0, 0]).max() == 0.0
    assert reps["Random attention"].shape == X0.shape
    # without positions (t1-A2's control) the blank border patches of the digits give equal rows: rank < n
    nopos = mha_vit.a2_fractions(mha_vit.representations(vit, x, positions=False))
    assert max(nopos.values()) < 0.99 and min(mha_vit.a2_fractions(reps).values()) >= 0.99


def test_frozen_attention_control_trains_only_the_values():
    """appH-beyond-rank's rival: with the attention frozen and d_v = 1 the logits are affine in the H head
    outputs; one head (a scalar) cannot separate 60 examples with 10 random classes."""
    p = dict(kind="heads", H=1, n=2, dh=8, T=60, seed=0)
    acc = mha_gd.frozen_kq_accuracy(p, 8, 10, 100, 0.05, 10)
    assert 0.0 < acc < 0.5
    assert abs(acc * 60 - round(acc * 60)) < 1e-9                   # a fraction of the 60 examples
    acc32 = mha_gd.frozen_kq_accuracy(p, 8, 10, 100, 0.05, 10, dtype="float32")   # the cheaper precision
    assert 0.0 < acc32 < 0.5 and abs(acc32 - acc) <= 3 / 60


def test_linear_fit_r2():
    coef, r2 = mha_gd.linear_fit([1, 2, 3, 4], [3, 5, 7, 9])
    assert math.isclose(r2, 1.0) and np.allclose(coef, [2, 1])


def test_generic_weights_fall_short_on_clustered_queries_but_not_below_d_plus_1():
    """Finding of the chapter: with a shared context and queries within ε of a point, generic key/query
    weights reach only rank d+1 (first order in ε), the construction reaches T = H(n−1)+1 > d+1."""
    rng = np.random.default_rng(8)
    d, n = 10, 5
    for H, short in ((4, True), (2, False)):           # T = 17 > d+1 = 11; T = 9 ≤ 11
        T = H * (n - 1) + 1
        E, _ = mha.uniform_data(T, n, d, rng)
        e = con.clustered_queries(T, d, 1e-4, rng)
        Y = rng.standard_normal((T, 1))
        res = con.memorize_check(E, e, Y, H, n, 1, rng)
        gen = con.generic_fit(E, e, Y, H, n, [0.1, 1.0, 100.0], 2, rng)
        assert res["rankZ"] == T and res["err"] <= 1e-8 * res["scale"]
        assert (gen["rankZ"] < T and gen["err"] > 1e-8) == short, gen


def test_past_capacity_and_saturation_grid():
    rng = np.random.default_rng(9)
    d, n, H = 9, 4, 3
    T = H * (n - 1) + 1
    E, e = mha.uniform_data(T, n, d, rng)
    res = con.memorize_check(E, e, rng.standard_normal((T, 1)), H, n, 1, rng)
    plus = con.past_capacity(E, e, res["con"], rng)
    assert plus["rankZ"] == T and plus["err"] > 1e-6
    assert res["c_found"] and not res["c0_ok"]
    assert all(c in con.C_GRID for c in res["con"].c_grid)


def test_ledger_rival_curves_and_scale():
    from lib.chapters.mha_memorization.claims import gd as cgd
    H = [1, 2, 3, 4, 5, 6]
    r2 = cgd.curve_r2(H, [30 * h - 10 for h in H])
    assert cgd.wins("H", r2) and not cgd.wins("H²", r2) and not cgd.wins("log H", r2)
    r2q = cgd.curve_r2(H, [h * h for h in H])
    assert cgd.wins("H²", r2q) and not cgd.wins("H", r2q)
    P = dict(gd_d=16, gd_n=8, gd_steps=60, gd_dh_steps=800, gd_seeds=1)
    assert not cgd.gd_scale(P, "heads").enough and cgd.gd_scale(P, "dh").enough


def test_capacity_frozen_ceiling_is_B_and_training_goes_past_it():
    from lib.chapters.mha_memorization.train import capacity as cap
    H, n, d = 2, 3, 6
    B = cap.bound(H, n)
    runs = [dict(T=T, dh=d, seed=s) for T in (B, B + 1) for s in range(2)]
    fro = cap.frozen_fit(runs, H, n, d)
    assert all(r["memorized"] and r["rank_Z"] == B for r in fro if r["T"] == B)
    assert all(not r["memorized"] and r["rank_Z"] == B for r in fro if r["T"] == B + 1)     # Prop. 2
    got = cap.train([dict(T=B + 1, dh=d, seed=0)], H, n, d, steps=1500)
    assert got[0]["memorized"] and got[0]["max_err"] <= cap.TOL and got[0]["steps_to_fit"] <= 1500
    assert cap.effective_params(H, n, d) == H * ((n - 1) * d + n)


def test_capacity_forward_is_equations_1_to_6_and_dh_padding_stays_zero():
    from lib.chapters.mha_memorization.train import capacity as cap
    H, n, d = 2, 3, 6
    runs = [dict(T=5, dh=2, seed=3), dict(T=4, dh=d, seed=4)]
    E, e, y, valid, mask, W = cap._setup(runs, H, n, d, shared=True)
    assert (W["W_Q"][0, ..., 2:] == 0).all() and (W["W_K"][0, ..., 2:] == 0).all()
    g, T = 0, 5                                                     # one copy through the chapter's literal forward
    W_O = W["W_O"][g, 0].reshape(H, d).numpy()                      # [H·d_v, d] with d_v = 1
    ref = mha.forward(E[g, :T].numpy(), e[g, :T].numpy(), W["W_K"][g, 0].numpy(), W["W_Q"][g, 0].numpy(),
                      W["W_V"][g, 0].numpy(), W_O, W["W_D"][g, 0].numpy())
    from lib.core import attention as att
    o = att.attention(e[:, :, None, :], E, W["W_Q"], W["W_K"], W["W_V"], W["W_O"])
    assert np.abs((o @ W["W_D"])[g, :T, 0, 0].numpy() - ref[:, 0]).max() < 1e-12
    assert (E[0] == E[0, :1]).all()                                 # shared context


def test_saturation_claims_controls_and_joint_criterion():
    from lib.chapters.mha_memorization.claims import fig3
    from lib.core import claims
    T, H = 40, 4
    sat = np.full((T, H), 0.9999)                                   # saturated under every reading (> 0.999)
    sat[:, 0] = 0.6                                                 # one free head per example, the others saturated
    flat = np.full((T, H), 0.3)
    rows = [dict(H=H, T=T, steps=s, final_acc=1.0 if s == 800 else 0.5, max_weight=(sat if s == 800 else flat).tolist(),
                 max_weight_init=flat.tolist()) for s in (100, 800)]
    P = dict(sat_steps=[100, 800], sat_H=[H], sat_T=[T], gd_d=16, gd_n=8, gd_heads=[1], gd_T_heads=[50])
    theta = np.full((T, H, 8), 1 / 8)
    C = claims.Claims("mha-memorization", "book")
    fig3.saturation_claims(C, rows, theta, P, [dict(H=1, T=50, best_acc=0.4)])
    got = C.claims
    for k in ("fig3-majority", "fig3-one-free", "fig3-memorized"):
        assert got[k].verdict == claims.HOLDS, (k, got[k])
        assert not got[k].control["passed"]
    assert got["fig3-length"].verdict == claims.HOLDS
    assert "shortest budget" in got["fig3-memorized"].control["description"]
    C3 = claims.Claims("mha-memorization", "book")                  # memorized already at the shortest budget
    fig3.saturation_claims(C3, [dict(r, final_acc=1.0) for r in rows], theta, P, [])
    assert C3.claims["fig3-memorized"].verdict == claims.NOT_DISCRIMINATING
    C2 = claims.Claims("mha-memorization", "book")                  # a network with no saturated head
    fig3.saturation_claims(C2, [dict(r, max_weight=flat.tolist()) for r in rows], theta, P, [])
    assert C2.claims["fig3-one-free"].base == claims.FAILS         # the free-head half alone would pass:
    assert C2.claims["fig3-one-free"].verdict == claims.FRAGILE    # the literal reading (a free head) flips it
    assert C2.claims["fig3-one-free"].flips[0].startswith("the literal reading")
    assert C2.claims["fig3-majority"].verdict == claims.FAILS


def test_stored_fig2a_reader_judges_saturated_ties_and_rival_curves():
    """The paper-scale Fig. 2(a) reader (lib.chapters.mha_memorization.claims.fig2a): a tie between two models that both
    memorized all T examples is no decrease, a tie below saturation is; R² on a line vs on a parabola."""
    from lib.chapters.mha_memorization.claims import fig2a as stored
    assert stored.increasing([100, 900, 1000, 1000], [0.1, 0.9, 1.0, 1.0])
    assert not stored.increasing([100, 900, 900, 1000], [0.1, 0.9, 0.9, 1.0])
    assert not stored.increasing([100, 80], [0.1, 0.08])
    assert not stored.increasing([1000, 998], [1.0, 0.998])                   # the first version: accuracy 1 only
    assert stored.increasing([1000, 998], [1.0, 0.998], level=stored.SATURATED)  # two saturated models
    assert not stored.increasing([1000, 900], [1.0, 0.9], level=stored.SATURATED)  # a saturated model, then not
    H = np.array([1.0, 5, 10, 20, 30])
    assert stored.r2(H, 300 * H + 50) > 0.999 and stored.r2(H ** 2, 300 * H + 50) < 0.98
    assert np.isnan(stored.r2([1, 5], [1, 2]))


def test_stored_fig2a_reading_finding_follows_the_curve_shape():
    """fig2a-reading-paper-scale holds when the line verdict differs between readings of "non-saturated" (a line below
    0.95 whose near-saturated points fall off it), and fails when every reading agrees (counts exactly linear)."""
    from lib.chapters.mha_memorization.claims import fig2a as stored
    from lib.core import claims
    H, T, ch = [1, 5, 10, 20, 30, 40], 40_000, 0.0112
    for acc, expected in (([ch + 0.02 * h for h in H], claims.FAILS),
                          ([ch + 0.02 * h for h in H[:4]] + [0.97, 0.98], claims.HOLDS)):
        cur = {T: (H, acc, [(a - ch) * T for a in acc], [ch] * len(H))}
        C = claims.Claims("mha-memorization", "book")
        stored._reading_finding(C, cur)
        assert C.claims["fig2a-reading-paper-scale"].base == expected
    assert C.claims["fig2a-reading-paper-scale"].variants                   # re-judged under a skeptic's choices


def test_stored_fig2a_line_verdict_turns_on_the_chance_floor():
    """The stored seed-0 Fig. 2(a) run: the line criterion fails as declared, and the paper's own criterion (R² ≥ 0.98)
    holds once the points at the chance floor (H = 1, accuracy < 2× the majority class) are dropped: that variant
    flips the claim (fragile); dropping H = 5 instead does not. Counts are above chance."""
    from lib.book import evidence as store
    from lib.chapters.mha_memorization.claims import fig2a as stored
    pts = store.load("mha-memorization", "fig2a").points
    if len(pts) < 32:
        pytest.skip("the stored Fig. 2(a) run is incomplete")
    cur = stored.above_curves({0: pts})
    assert stored.floor_H(cur) == [1]
    assert all(m[0] < 0.02 * T for T, (_, _, m, _) in cur.items())         # H = 1: under 2% of T above chance
    assert not stored.line_judge(cur)[0]
    assert stored.line_judge(cur, paper_rule=True, floor=False)[0]
    v = {x.choice: x.ok for x in stored.line_variants(cur)}
    assert v["the paper's own criterion, chance floor dropped"] and not v["drop H = 5"]



def test_fig2a_two_seeds_judged_on_their_mean_with_each_seed_a_variant():
    """Fig. 2(a)'s paper-scale claims on two seeds (written against the points stored so far: the store loads a
    partial sweep): judged on the mean accuracy of the seeds, "seed 0 alone" and "seed 1 alone" as variants of every
    count-fitting claim, the number of seeds and their spread in the scale; one seed: no seed variants, no spread.
    While seed 1's run is incomplete the page judges seed 0 alone and says so."""
    from lib.book import evidence as store
    from lib.chapters.mha_memorization.claims import fig2a
    from lib.core import claims
    ev0, ev1 = store.load("mha-memorization", "fig2a"), store.load("mha-memorization", "fig2a-seed1")
    if len(ev0.points) < 32 or len(ev1.points) < 4:
        pytest.skip("fewer than 32 seed-0 points or 4 seed-1 points stored")
    common = {(p["H"], p["T"]) for p in ev1.points}
    seeds = {0: [p for p in ev0.points if (p["H"], p["T"]) in common], 1: list(ev1.points)}
    C = claims.Claims("mha-memorization", "book")
    md = fig2a.judge(C, seeds, len(common), "paper")
    ids = ("fig2a-linear-paper-scale", "fig2a-reading-paper-scale", "fig2a-monotone-paper-scale")
    for i in ids:
        choices = [v["choice"] for v in C.claims[i].variants]
        assert "seed 0 alone" in choices and "seed 1 alone" in choices, (i, choices)
    sc = C.claims["fig2a-linear-paper-scale"].scale["ours"]
    assert "the mean of 2 seeds" in sc and f"seed spread over {len(common)} common points" in sc, sc
    assert "Judged on the mean of 2 seeds; seed spread" in md
    acc = {(p["H"], p["T"], p["seed"]): p["best_acc"] for s in seeds.values() for p in s}
    gap = max(abs(acc[h, t, 0] - acc[h, t, 1]) for h, t in common)
    assert f"largest |accuracy difference| {gap:.4f}" in sc
    cur = fig2a.above_curves(seeds)                               # the judged curves are the seeds' mean accuracy
    T = min(cur)
    H = cur[T][0][0]
    assert cur[T][1][0] == pytest.approx((acc[H, T, 0] + acc[H, T, 1]) / 2)
    C1 = claims.Claims("mha-memorization", "book")
    fig2a.judge(C1, {0: seeds[0]}, len(common), "paper")
    assert not any(v["choice"].startswith("seed ") for i in ids for v in C1.claims[i].variants)
    assert "spread" not in C1.claims["fig2a-linear-paper-scale"].scale["ours"]
    judged, which = fig2a.seeds_state()
    if ev1.complete:
        assert set(judged) == {0, 1} and which.startswith("the mean of 2 seeds")
    else:
        assert set(judged) == {0} and which.startswith("seed 0 alone") and f"{len(ev1.points)} of 32" in which

def _fig3_rows(sat_frac: float = 0.75, cap: dict | None = None, rising: bool = True):
    """Synthetic stored Fig. 3 rows: H = 4 and 8 on the declared grid, memorized up to ``cap[H]``; at every T a
    ``[T, H]`` max-weight array with head 0 free on every example and a ``sat_frac`` share of pairs saturated."""
    from lib.chapters.mha_memorization import evidence as EV3
    cap = cap or {4: 550, 8: 1300}
    rows = []
    for H, Ts in EV3.GRID_3.items():
        for T in Ts:
            mx = np.full((T, H), 0.5)
            k = int(round(sat_frac * T * H))                        # saturate pairs (t, h >= 1) row by row
            idx = [(t, h) for h in range(1, H) for t in range(T)][:k]
            for t, h in idx:
                mx[t, h] = 0.9999
            mem = cap[H] is not None and T <= cap[H]
            rows.append(dict(H=H, T=T, seed=0, final_acc=1.0 if mem else 0.93, history=_history(mem, rising),
                             max_weight=mx.tolist(), max_weight_init=np.full((T, H), 0.06).tolist()))
    return rows


def _history(memorized: bool, rising: bool = True, steps: int = 300_000) -> list:
    """A synthetic learning curve every 1000 steps: 100% from step 100k (memorized), else rising linearly to 0.93 at
    the last step (``rising``) or flat at 0.93 from step 100k."""
    out = []
    for s in range(1000, steps + 1, 1000):
        a = min(1.0, s / 100_000) if memorized else (0.93 * s / steps if rising else 0.93 * min(1.0, s / 100_000))
        out.append([s, 1.0 - a, a])
    return out


def test_fig3_paper_claims_judge_the_stored_rows():
    """The paper-protocol Fig. 3 judging (fig3.fig3_paper_claims) on synthetic rows: the paper's T memorized with the
    next grid T (the control) not; the saturated majority and one-free statistics at T* against the untrained control;
    each criterion fails when its statistic does."""
    from lib.chapters.mha_memorization.claims import fig3
    from lib.core import claims
    sc = claims.Scale(ours="synthetic", paper="Fig. 3")

    def judge(**kw):
        C = claims.Claims("mha-memorization", "book")
        S = fig3.fig3_paper_claims(C, _fig3_rows(**kw), sc)
        return C.claims, S
    got, S = judge()
    assert (S[4]["T"], S[4]["past"], S[8]["T"], S[8]["past"]) == (550, 700, 1300, 1700)
    assert abs(S[4]["at"]["pairs"] - 0.75) < 1e-3 and S[4]["at"]["both"] == 1.0 and S[4]["init"]["pairs"] == 0.0
    for k in ("fig3-paper-capacity", "fig3-paper-majority", "fig3-paper-one-free"):
        assert got[k].verdict == claims.HOLDS, (k, got[k])
        assert not got[k].control["passed"]
    assert "700" in got["fig3-paper-majority"].ours                 # the run one grid step past T* is printed
    assert "H=4, T=700: 0.930" in got["fig3-paper-capacity"].control["value"]
    got, _ = judge(sat_frac=0.45)                                   # below half the pairs saturated: majority fails,
    assert got["fig3-paper-majority"].base == claims.FAILS          # but not under App. H's text reading (most
    assert got["fig3-paper-majority"].verdict == claims.FRAGILE     # examples with at least half their heads saturated)
    assert got["fig3-paper-one-free"].verdict == claims.HOLDS      # every example still has both kinds of head
    got, _ = judge(sat_frac=0.0)                                    # nothing saturated: one-free fails too,
    assert got["fig3-paper-one-free"].base == claims.FAILS          # but not under the literal reading (a free head)
    assert got["fig3-paper-one-free"].verdict == claims.FRAGILE
    got, S = judge(cap={4: 300, 8: 1300})                           # the stored run's shape at H = 4: T* = 300 < 550
    assert got["fig3-paper-capacity"].verdict == claims.FAILS and S[4]["T"] == 300
    assert "the paper's T=550 trained to 0.930 (largest T memorized in 300k steps 300" in got["fig3-paper-capacity"].ours
    got, _ = judge(cap={4: 700, 8: 1700})                           # every T memorized: the paper's T is no maximum
    assert got["fig3-paper-capacity"].verdict == claims.NOT_DISCRIMINATING
    got, _ = judge(cap={4: 700, 8: 1300})                           # the rival must hold at every H to pass
    assert got["fig3-paper-capacity"].verdict == claims.HOLDS
    got, _ = judge(cap={4: None, 8: 1300})                          # nothing memorized at H = 4: not judged
    assert got["fig3-paper-majority"].verdict == claims.NOT_RUN
    assert got["fig3-paper-capacity"].verdict == claims.FAILS


def test_fig3_cause_is_computed_from_the_stored_points(monkeypatch):
    """fig3_notes.fig3_cause / fig3_versus write the located T*, the paper's T and the statistics from the points."""
    from lib.book import evidence as store
    from lib.chapters.mha_memorization import evidence as EV3
    from lib.chapters.mha_memorization.claims import fig3_notes as fig3
    rows = _fig3_rows(cap={4: 300, 8: 1300})
    ev = store.Evidence("mha-memorization", "fig3", points=rows, manifest={"sessions": [{"date": "2026-01-01"}]},
                        total=len(EV3.SWEEPS["fig3"]["points"]))
    monkeypatch.setattr(store, "load", lambda *a, **k: ev)
    text = fig3.fig3_cause()
    assert "T* = 300, not the paper's 550, which trains to accuracy 0.930" in text
    assert "the one-free criterion passes whatever T" in text          # head 0 free, others saturated on every row
    assert ("at H = 4 the paper finds about 550; the largest T of our grid memorized within 300k steps is 300"
            in fig3.fig3_versus())
    monkeypatch.setattr(store, "load", lambda *a, **k: store.Evidence("mha-memorization", "fig3", points=rows[:2],
                        manifest={}, total=len(EV3.SWEEPS["fig3"]["points"])))
    assert fig3.fig3_cause() == "" and "not complete" in fig3.fig3_versus()


def test_dh_no_gain_margin_follows_the_seed_spread():
    """fig2c-no-gain: the margin is max(0.05, the largest seed half-range); a +0.01 gain inside a ±0.14 spread passes
    only as 'below the spread', and the below-n control fails only when its gain exceeds that spread."""
    from lib.chapters.mha_memorization.claims import gd as cgd
    from lib.core import claims
    P = dict(gd_n=8, gd_d=16, gd_steps=800, gd_dh_steps=800, gd_seeds=3)

    def judge(vals):
        rows = [dict(dh=k, best_acc=a, seed=s) for k, v in vals.items() for s, a in enumerate(v)]
        C = claims.Claims("mha-memorization", "book")
        cgd.dh_claims(C, rows, P)
        return C.claims["fig2c-no-gain"]
    tight = {1: [0.40, 0.41, 0.42], 4: [0.60, 0.61, 0.62], 8: [0.60, 0.61, 0.62], 16: [0.61, 0.62, 0.63]}
    c = judge(tight)
    assert c.verdict == claims.HOLDS and "margin 0.050" in c.ours
    wide = {**tight, 8: [0.42, 0.56, 0.70]}                         # ±0.14 at d_h = n
    c = judge(wide)
    assert "margin 0.140" in c.ours and c.verdict == claims.HOLDS  # the below-n gain, +0.20, is resolved
    wider = {**wide, 1: [0.30, 0.55, 0.80]}                         # ±0.25: below-n gain no longer resolved
    assert judge(wider).verdict == claims.NOT_DISCRIMINATING


def test_head_claims_are_sanity_and_claim2_is_judged_at_the_proofs_c():
    from lib.chapters.mha_memorization.claims import theorem1
    from lib.core import claims
    rng = np.random.default_rng(11)
    d, n, H = 9, 4, 3
    runs = []
    for dh in (2, 4):
        T = H * (min(n, dh) - 1) + 1
        E, e = mha.uniform_data(T, n, d, rng)
        runs.append(dict(con.memorize_check(E, e, rng.standard_normal((T, 1)), H, dh, 1, rng), n=n, d_h=dh))
    C = claims.Claims("mha-memorization", "book")
    theorem1.head_claims(C, runs)
    for k in ("prop1-dh", "claim2-saturation"):
        assert C.claims[k].kind == claims.SANITY and C.claims[k].verdict == claims.HOLDS, C.claims[k]
    k = sum(bool(r["c"]) for r in runs)                              # constructions with a saturating head
    assert k >= 1 and C.claims["claim2-saturation"].ours.startswith(f"{k}/{k} at c from")
    broken = [dict(r, sat_ok=False) for r in runs]                   # the proof's c falls short: the check says so
    C2 = claims.Claims("mha-memorization", "book")
    theorem1.head_claims(C2, broken)
    assert C2.claims["claim2-saturation"].verdict == claims.FAILS


def test_stored_fig3_reader_partial_and_complete(monkeypatch):
    """fig3.report_fig3: partial store -> not-run claims naming the stored count and the command; complete ->
    judged; the training module's attention statistic equals gd.query_attention."""
    from lib.book import evidence as store
    from lib.chapters.mha_memorization import evidence as EV3
    from lib.chapters.mha_memorization import model as mha_model
    from lib.chapters.mha_memorization.claims import fig3
    from lib.chapters.mha_memorization import train as mha_train
    from lib.core import claims
    rows = _fig3_rows()
    for pts, verdict in ((rows[:3], claims.NOT_RUN), (rows, claims.HOLDS)):
        ev = store.Evidence("mha-memorization", "fig3", points=pts, manifest={"sessions": [{"date": "2026-01-01"}]},
                            total=len(EV3.SWEEPS["fig3"]["points"]))
        monkeypatch.setattr(store, "load", lambda ch, name, *a, ev=ev, **k: ev if name == "fig3" else
                            store.Evidence(ch, name, total=2, reason="not run yet"))
        C = claims.Claims("mha-memorization", "book")
        table = fig3.report_fig3(C)
        assert "| 4 |" in table
        for k in fig3.FIG3_CLAIMS:
            assert C.claims[k].verdict == verdict, (k, C.claims[k])
        if verdict == claims.NOT_RUN:
            assert "3 of 8 points stored" in C.claims["fig3-paper-majority"].criterion
            assert "python -m lib evidence mha-memorization fig3" in C.claims["fig3-paper-majority"].criterion
    fam = mha_model.MHAMemorization(d=16, n=6, H=3, dh=16)
    data = mha_model.mha_data(fam, [7, 9], [1, 2])
    p = fam.init_one(5)
    assert np.abs(mha_train.max_attention(fam, p, data, 1) - mha_gd.query_attention(fam, p, data, 1).max(axis=2)).max() < 1e-12


def test_fig3_converged_judges_the_learning_curves():
    """fig3_converged.paper_converged: curves still rising at the paper's T (before the rate is a tenth of its peak)
    hold, with the memorized T* (flat at 100%) as a failing control; flat curves make the finding fail. The window
    is placed by the official schedule: the rate is a tenth of its peak at step ~242k of 300k."""
    from lib.chapters.mha_memorization.claims import fig3_converged as cv
    from lib.core import claims
    assert 240_000 < cv.lr_step(300_000) < 243_000 and 600_000 < cv.lr_step(750_000) < 610_000

    def judge(**kw):
        C = claims.Claims("mha-memorization", "book")
        cv.paper_converged(C, _fig3_rows(cap={4: 300, 8: 1100}, **kw), {4: 300, 8: 1100})
        return C.claims["fig3-paper-converged"]
    c = judge()
    assert c.verdict == claims.HOLDS and not c.control["passed"], c
    assert "H=4, T=550: +0.155" in c.ours                                 # 0.93 · 50k / 300k
    c = judge(rising=False)                                               # plateaued at 100k: converged
    assert c.base == claims.FAILS


def test_fig3_long_claims_not_run_then_judged(monkeypatch):
    """fig3_converged.long_claims: not run with the command and the cost while fig3-long is absent; judged on stored
    long runs, with the 300k-step runs (still rising, not memorized) as the failing control of both claims."""
    from lib.book import evidence as store
    from lib.chapters.mha_memorization import evidence as EV3
    from lib.chapters.mha_memorization.claims import fig3_converged as cv
    from lib.core import claims
    short = _fig3_rows(cap={4: 300, 8: 1100})
    monkeypatch.setattr(store, "load", lambda ch, name, *a, **k: store.Evidence(ch, name, total=2, reason="not run yet"))
    C = claims.Claims("mha-memorization", "book")
    assert cv.long_claims(C, short) == ({}, {})
    c = C.claims["fig3-long-plateau"]
    assert c.verdict == claims.NOT_RUN and "python -m lib evidence mha-memorization fig3-long" in c.criterion
    assert "CPU-hours to go" in c.criterion
    sat = {(r["H"], r["T"]): r for r in _fig3_rows()}                   # head 0 free, the others saturated
    long = [dict(H=H, T=T, seed=0, final_acc=a, history=_history(a == 1.0, steps=EV3.STEPS_3L), first_full=100_000,
                 max_weight=sat[H, T]["max_weight"], max_weight_init=sat[H, T]["max_weight_init"])
            for (H, T), a in (((4, 550), 1.0), ((8, 1300), 1.0))]
    monkeypatch.setattr(store, "load", lambda ch, name, *a, **k: store.Evidence(ch, name, points=long[:1], total=2,
                                                                                 manifest={"sessions": [{}]}))
    C = claims.Claims("mha-memorization", "book")                # one point stored: judged in the reason, not run
    assert set(cv.long_claims(C, short)[0]) == {4}
    for k in cv.LONG_CLAIMS:
        c = C.claims[k]
        assert c.verdict == claims.NOT_RUN and "1 of 2 points stored" in c.criterion, c.criterion
        assert "stored so far" in c.criterion and "H = 4, T = 550" in c.criterion and "H = 8" not in c.criterion
    text = cv.reconcile_text(C)                                  # H = 4 converged and memorized: a lower bound only
    assert "stored at H = 4 only" in text and "the capacity is at least 550" in text and "no maximum" in text
    assert "wait for H = 8, where no capacity is named" in text
    monkeypatch.setattr(store, "load", lambda ch, name, *a, **k: store.Evidence(ch, name, points=long, total=2,
                                                                                 manifest={"sessions": [{}]}))
    C = claims.Claims("mha-memorization", "book")
    got, seed1 = cv.long_claims(C, short)
    assert set(got) == {4, 8} and set(seed1) == {4, 8}        # the same rows stand for seed 1
    for k in cv.LONG_CLAIMS:
        assert C.claims[k].verdict == claims.HOLDS and not C.claims[k].control["passed"], C.claims[k]
    assert "literal" in C.claims["fig3-long-one-free"].ours and "majority" in C.claims["fig3-long-one-free"].ours
    assert "the capacity is at least 1300" in C.claims["fig3-long-memorized"].ours
    long[0]["final_acc"] = 0.97                                            # H = 4 not memorized: the claim fails
    C = claims.Claims("mha-memorization", "book")
    cv.long_claims(C, short)
    assert C.claims["fig3-long-memorized"].base == claims.FAILS
    long[1]["history"] = _history(False, steps=EV3.STEPS_3L)               # H = 8 still rising: not converged
    C = claims.Claims("mha-memorization", "book")
    cv.long_claims(C, short)
    assert C.claims["fig3-long-plateau"].base == claims.FAILS
    assert "H = 8 training has not converged at T = 1300: no capacity is named" in C.claims["fig3-long-memorized"].ours
    long[0]["max_weight"] = np.full((550, 4), 0.5).tolist()                # nothing saturated: one-free fails, literal not
    C = claims.Claims("mha-memorization", "book")
    cv.long_claims(C, short)
    c = C.claims["fig3-long-one-free"]
    assert c.base == claims.FAILS and "the literal reading: at least one non-saturated head" in c.flips
    assert C.claims["fig3-long-majority"].base == claims.FAILS


def test_fig2a_onset_line_needs_both_seeds():
    """fig2a_seeds.onset_judge: an onset followed by a line (count 0 up to H = 6, then 550 per head) holds, and the
    rival a H² + b fails on it; a pure H² curve fails the line and passes as the rival; both() needs every seed."""
    from lib.chapters.mha_memorization.claims import fig2a_seeds as fs
    Hs = [1, 5, 10, 20, 30, 40, 50, 60]

    def cur(f, T=40_000):
        mem = [f(H) for H in Hs]
        return {T: (Hs, [m / T for m in mem], mem, [0.0] * len(Hs))}
    onset = cur(lambda H: max(0.0, 550.0 * (H - 6)) + 5.0 * np.sin(H))
    convex = cur(lambda H: 9.0 * H * H)
    assert fs.onset_judge(onset)[0] and not fs.onset_judge(onset, curve="H²")[0]
    assert not fs.onset_judge(convex)[0] and fs.onset_judge(convex, curve="H²", onset=0.0)[0]
    through_origin = cur(lambda H: 550.0 * H)
    assert not fs.onset_judge(through_origin)[0]                          # a line, but no onset
    assert fs.both({0: onset, 1: onset})[0] and not fs.both({0: onset, 1: convex})[0]


def test_stored_labels_fold_the_readers_labels_and_keep_the_rest(monkeypatch):
    """The stored runs' labels a reader prints first go into one <details>, shown before the first other line; a
    STALE label and every other line stay in the printed text, in order."""
    import io
    import sys

    import IPython.display
    from lib.chapters.mha_memorization.claims.printout import StoredLabels
    shown, out = [], io.StringIO()
    monkeypatch.setattr(IPython.display, "display", lambda x: (shown.append(x.data), out.write("<FOLD>\n")))
    monkeypatch.setattr(sys, "stdout", out)
    with StoredLabels("runs", also=("judged on",)):
        print("stored run of 2026-11-24, 2.17 CPU-hours; reproduce with `python -m lib evidence x fig2a`")
        print("no stored run (no point stored yet); produce it with `x`")
        print("not yet judged (joins the claims once complete): `x-rest` 0 of 8 points stored")
        print("judged on the mean of 2 seeds")
        print("✓ experiment claim a: holds")
        print("stored run of 2026-11-25 — STALE: the code changed; rerun")
    assert sys.stdout is out
    assert out.getvalue().splitlines() == ["<FOLD>", "✓ experiment claim a: holds",
                                           "stored run of 2026-11-25 — STALE: the code changed; rerun"]
    assert len(shown) == 1 and "<summary>runs</summary>" in shown[0]
    assert "* stored run of 2026-11-24" in shown[0] and "* judged on" in shown[0] and "* no stored run" in shown[0]
    assert "* not yet judged" in shown[0]


def test_extension_sweep_joins_its_claims_only_once_complete(monkeypatch, capsys):
    """``paper_scale.extended``: a partial fig2b-14k leaves Fig. 2(b)'s claims on the base T and says what is left;
    a complete one adds T = 14k to the monotone criterion."""
    from lib.book import evidence as store
    from lib.chapters.mha_memorization.claims import fig2bc
    from lib.core.claims import Claims

    def pts(T: int, counts: list[float]) -> list[dict]:
        return [dict(H=20, n=n, dh=64, T=T, seed=0, best_acc=c / T) for n, c in zip((1, 5, 10, 20), counts, strict=True)]
    base = pts(6000, [60, 2000, 3000, 4000]) + pts(10000, [100, 2500, 3600, 5000])
    ext = pts(14000, [140, 3000, 2000, 6000])                     # falls from n = 5 to 10: the criterion must see it
    for full, verdict in ((False, True), (True, False)):
        def load(ch, name, *a, full=full, **k):
            if name == "fig2b":
                return store.Evidence(ch, name, points=base, total=len(base))
            return store.Evidence(ch, name, points=ext if full else ext[:2], total=len(ext))
        monkeypatch.setattr(store, "load", load)
        C = Claims("mha-memorization")
        cur = fig2bc.report_fig2b(C)
        out = capsys.readouterr().out
        c = C.claims["fig2b-monotone-paper-scale"]
        assert (14000 in cur) is full and ((c.base or c.verdict) == "holds") is verdict
        assert ("2 of 4 points stored" in out) is not full


def test_reconcile_sentences_follow_the_claims():
    """reconcile: each figure's sentence reads the verdicts (and what flips a fragile one) from the claims, so a
    claim that fails at the paper's scale is said to fail; nothing is stated once and left."""
    from lib.chapters.mha_memorization.claims import reconcile as R
    from lib.core import claims
    C = claims.Claims("mha-memorization", "book")
    for i in ("fig2b-monotone", "fig2b-n1", "fig2b-n1-paper-scale", "fig5-monotone", "fig5-context",
              "fig5b-monotone-paper-scale", "fig4-heads", "fig4-context"):
        C.check(i, "s", paper="p", ours="o", ok=True)
    C.check("fig5a-monotone-paper-scale", "s", paper="p", ours="o", ok=False,
            scale=claims.Scale(ours="H = 1..60 at T = 10,000, 30,000", paper="p"))
    C.check("fig2b-monotone-paper-scale", "s", paper="p", ours="o", ok=True,
            variants=[("saturated read as accuracy ≥ 0.9999", False)])
    text = R._fig5_text(C)
    assert f"{claims.FAILS} (`fig5a-monotone-paper-scale`; H = 1..60 at T = 10,000, 30,000)" in text
    assert f"{claims.HOLDS} (`fig5b-monotone-paper-scale`" in text and "without exception" not in text
    assert "flipped by saturated read as accuracy ≥ 0.9999" in R._fig2b_text(C)
    assert f"{claims.NOT_RUN} (`fig4-linear-gpu`" in R._fig4_text(C)      # a claim not recorded is said not run


def test_fig5_tie_floor_variant_names_the_steps_it_counts():
    """paper_scale.rises: the steps a tie floor counts against the decreasing trend, with T, the swept values and both
    MSEs, so a reader sees whether a flip is a rise at round-off level."""
    from lib.chapters.mha_memorization.claims.paper_scale import rises
    by_T = {10_000: ([1, 5, 50, 60], [0.06, 0.01, 3.3e-12, 4.2e-12]), 30_000: ([1, 5, 50, 60], [0.07, 0.05, 1e-3, 1e-4])}
    assert rises(by_T, "H") == "0 step(s) against"
    assert rises(by_T, "H", 0.0) == "1 step(s) against (T = 10,000, H = 50 → 60: 3.3e-12 → 4.2e-12)"
    assert rises({10_000: ([1, 5], [0.01, 0.02])}, "n").startswith("1 step(s) against (T = 10,000, n = 1 → 5")
