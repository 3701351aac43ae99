"""Property-based tests of the mha-memorization chapter's exact parts (Hypothesis, profile in conftest.py).

Parameters are drawn from the chapter's own spec (``notebooks/mha-memorization.params.toml``, read with
``lib.core.params.load``) and every draw is validated by the spec itself (``SPEC.validate``). Drawn, over their
ranges and the constraints n < d, max(con_n) < d, max(remark1_Q) < n, max(remark1_Q) ≤ d: seed, d, n, con_n,
con_H, con_dh, con_trials, prop2_H, prop2_dh, prop2_scales, prop2_draws, remark1_Q. The sizes are capped
(d ≤ 10, H ≤ 4) so that the file runs in well under a minute on one core; the trial counts con_trials and
prop2_draws are drawn up to the spec's maxima (100 and 1000, included) in a test of their own at the smallest
sizes (d = 3, n = 2, one head).

Not drawn (left at the book preset): preset and device; con_big_d, con_big_n, con_big_H (the construction at the
paper's sizes, the same code as con_* at d = 64: too slow here); gen_eps, gen_scales, gen_draws (the rivals'
least-squares fits, a comparison and not a theorem claim); prop3_m (an illustration); every vit_*, gd_*, sat_*,
cap_* and appj_* parameter (training runs and assumption tests on model representations: no exact-theory function
reads them).

For every draw, as the chapter's cells do (Theorem 1's grid, Proposition 2, Remark 1):

* the construction memorizes exactly, rank Z = T = H(min(n, d_h)−1)+1, every head has rank ≤ min(n, d_h) and
  factors with d_h columns, a c of the fixed grid saturates each new head and c = 0 does not (the control);
* with a shared context and d_h ≥ n, one more example is beyond reach: rank Z stays at T (Proposition 2);
* for random key/query weights and a shared context, σ_{B+1}(Z)/σ_1(Z) ≤ 1e-12, B = H(n−1)+1 (Proposition 2);
* with queries of Kruskal rank Q < n, H(min(Q, d)−1)+1 examples are memorized (Remark 1); its control, HQ + 1
  examples, is memorized too at one head (a defect, recorded as an xfail test).
"""
import numpy as np
import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lib.chapters.mha_memorization.theory import construction as mha_con
from lib.chapters.mha_memorization.theory import layer as mha_layer
from lib.core import params

SPEC = params.load("mha-memorization")
P = SPEC.params
CAP = {"d": 10, "H": 4, "trials": 2, "draws": 3}
TRIALS_MAX, DRAWS_MAX = int(P["con_trials"].max), int(P["prop2_draws"].max)


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)
    with mha_layer.limit_blas_threads(1):
        yield


def _lst(elem: st.SearchStrategy, n: int = 2) -> st.SearchStrategy[list]:
    return st.lists(elem, min_size=1, max_size=n)


@st.composite
def valid(draw, max_d: int = CAP["d"], max_H: int = CAP["H"]) -> dict:
    """One parameter set the spec accepts (validated by the spec itself). The spec forces n ≥ 3 and d ≥ 4
    (remark1_Q ≥ 2 with max(remark1_Q) < n < d); con_n goes down to 1."""
    d = draw(st.integers(max(int(P["d"].min), 4), max_d))
    n = draw(st.integers(3, d - 1))
    v = dict(SPEC.resolve("book"), seed=draw(st.integers(0, 2**31 - 1)), d=d, n=n,
             con_n=draw(_lst(st.integers(int(P["con_n"].min), d - 1))),
             con_H=draw(_lst(st.integers(1, max_H))), con_dh=draw(_lst(st.integers(1, d + 2))),
             con_trials=draw(st.integers(1, CAP["trials"])),
             prop2_H=draw(_lst(st.integers(1, max_H))), prop2_dh=draw(_lst(st.integers(1, d + 2))),
             prop2_scales=draw(_lst(st.floats(float(P["prop2_scales"].min), float(P["prop2_scales"].max)))),
             prop2_draws=draw(st.integers(1, CAP["draws"])),
             remark1_Q=draw(_lst(st.integers(int(P["remark1_Q"].min), n - 1))))
    return SPEC.validate(v)


def _construction_grid(v: dict, rng: np.random.Generator) -> None:
    """The chapter's Theorem 1 grid (H in con_H, n in con_n, d_h in con_dh, shared or per-example contexts,
    d_v = d_out = 1, con_trials datasets each) with the one-past-capacity check of Proposition 2."""
    d = v["d"]
    for H in v["con_H"]:
        for n_c in v["con_n"]:
            for d_h in v["con_dh"]:
                r = min(n_c, d_h)
                T = H * (r - 1) + 1
                for shared in (True, False):
                    for _ in range(v["con_trials"]):
                        E, e = mha_layer.uniform_data(T, n_c, d, rng, shared=shared)
                        res = mha_con.memorize_check(E, e, rng.standard_normal((T, 1)), H, d_h, 1, rng)
                        where = (H, n_c, d_h, shared, T)
                        assert res["rankZ"] == T == res["bound"], where
                        assert res["err"] <= 1e-8 * res["scale"], (where, res["err"])
                        assert res["max_head_rank"] <= r and res["factor_err"] <= 1e-10, where
                        assert res["c_found"] and res["sat_ok"], where
                        if res["c"]:                       # at least one saturating head: c = 0 is not enough
                            assert not res["c0_ok"], where
                        if shared and d_h >= n_c:          # one past capacity is out of reach
                            plus = mha_con.past_capacity(E, e, res["con"], rng)
                            assert plus["rankZ"] == T and plus["err"] > 1e-8, where


def _prop2(v: dict, rng: np.random.Generator) -> None:
    """Proposition 2 as the chapter checks it: T = 3B shared-context examples, random heads at every scale."""
    n, d = v["n"], v["d"]
    for H in v["prop2_H"]:
        B = H * (n - 1) + 1
        for d_h in v["prop2_dh"]:
            for sc in v["prop2_scales"]:
                for _ in range(v["prop2_draws"]):
                    E, e = mha_layer.uniform_data(3 * B, n, d, rng)
                    s = mha_layer.singular_values(mha_layer.features(E, e, *mha_layer.random_heads(H, d, d_h, sc, rng)))
                    assert s[0] == 0 or s[B] / s[0] <= 1e-12, (H, d_h, sc, s[B] / s[0])


@given(valid())
def test_construction_memorizes_and_its_heads_respect_d_h(v):
    _construction_grid(v, np.random.default_rng(v["seed"]))


@given(valid())
def test_prop2_rank_bound_for_random_weights(v):
    _prop2(v, np.random.default_rng(v["seed"]))


def _remark1(v: dict, control: bool) -> None:
    n, d, H = v["n"], v["d"], max(v["con_H"])
    rng = np.random.default_rng(v["seed"])
    for Q in v["remark1_Q"]:
        T = H * (min(Q, d) - 1) + 1
        E, e = mha_layer.uniform_data(T, n, d, rng, Q=Q)
        res = mha_con.memorize_check(E, e, rng.standard_normal((T, 1)), H, d, 1, rng, Q=Q)
        assert mha_layer.kruskal_rank(e) == Q and res["rankZ"] == T and res["err"] <= 1e-8 * res["scale"], (Q, T)
        if control:                    # the construction with r = Q+1 on queries of Kruskal rank Q must fail
            T_ = H * Q + 1
            E_, e_ = mha_layer.uniform_data(T_, n, d, rng, Q=Q)
            res_ = mha_con.memorize_check(E_, e_, rng.standard_normal((T_, 1)), H, d, 1, rng, Q=Q + 1)
            assert not (res_["rankZ"] == T_ and res_["err"] <= 1e-8 * res_["scale"]), (Q, T_)


@given(valid())
def test_remark1_kruskal_rank_Q_memorizes(v):
    _remark1(v, control=False)


# con_H = [1], n = 3, d = 4, remark1_Q = [2], seed 0 (valid): the control of claim remark1 (T = HQ + 1 = 3 examples,
# the construction run with r = Q + 1) memorizes exactly, so the control does not fail
REMARK1_CONTROL = dict(SPEC.resolve("book"), seed=0, d=4, n=3, con_n=[3], con_H=[1], remark1_Q=[2])


@pytest.mark.xfail(strict=True, reason="defect: remark1's control (T = HQ + 1) is memorized at one head")
@settings(max_examples=1)
@example(REMARK1_CONTROL)
@given(valid())
def test_remark1_control_fails(v):
    _remark1(SPEC.validate(v), control=True)


@given(v=valid(max_d=8, max_H=3), extra=st.integers(1, 6))
def test_frozen_key_query_weights_cannot_fit_past_the_bound(v, extra):
    """capacity.frozen_fit (the chapter's eqs. (1)-(6) scan): with the key/query weights fixed and a shared
    context, rank Z never exceeds H(n−1)+1 however many examples are added (Proposition 2), whatever d_h."""
    from lib.chapters.mha_memorization.train import capacity as cap
    H, n, d = max(v["con_H"]), v["n"], v["d"]
    B = cap.bound(H, n)
    for d_h in v["con_dh"]:
        (row,) = cap.frozen_fit([dict(T=B + extra, dh=d_h, seed=v["seed"] % 2**16)], H, n, d)
        assert row["rank_Z"] <= B


@st.composite
def many_trials(draw) -> dict:
    """The smallest sizes (d = 4, n = 3, one head, d_h ≤ 3) with up to the spec's maximum numbers of datasets
    (con_trials) and of random weight draws (prop2_draws), the maxima included."""
    v = draw(valid(max_d=4, max_H=1))
    return SPEC.validate(dict(v, con_n=[draw(st.integers(1, 3))], con_dh=[draw(st.integers(1, 3))], prop2_dh=[draw(st.integers(1, 3))],
                              prop2_scales=[draw(st.sampled_from([0.1, 1.0, 10.0]))],
                              con_trials=draw(st.integers(1, TRIALS_MAX)), prop2_draws=draw(st.integers(1, DRAWS_MAX))))


@settings(max_examples=2)
@example(dict(SPEC.resolve("book"), seed=0, d=4, n=3, con_n=[3], con_H=[1], con_dh=[3], prop2_H=[1], prop2_dh=[3],
              prop2_scales=[1.0], remark1_Q=[2], con_trials=TRIALS_MAX, prop2_draws=DRAWS_MAX))
@given(many_trials())
def test_theorem1_and_prop2_hold_up_to_the_maximum_numbers_of_draws(v):
    v = SPEC.validate(v)
    rng = np.random.default_rng(v["seed"])
    _construction_grid(v, rng)
    _prop2(v, rng)


@given(accs=st.lists(st.sampled_from([1.0, 0.999, 0.5]), min_size=1, max_size=6), H=st.integers(1, 5),
       seed=st.integers(0, 2**16))
def test_fig3_located_capacity_and_statistics(accs, H, seed):
    """App. H's search on a grid (fig3_stats): T* is memorized, no larger grid T is, ``past`` is the next
    grid T; the statistics at T* are fractions, with 'a saturated and a free head' ⊆ 'a free head'."""
    from lib.chapters.mha_memorization.claims.fig3 import fig3_stats
    rng = np.random.default_rng(seed)
    Ts = [10 * (i + 1) for i in range(len(accs))]
    rows = [dict(H=H, T=T, final_acc=a, max_weight=rng.uniform(0.9, 1.0, (T, H)).tolist(),
                 max_weight_init=rng.uniform(0, 1, (T, H)).tolist()) for T, a in zip(Ts, accs, strict=True)]
    S = fig3_stats(rows)[H]
    mem = [T for T, a in zip(Ts, accs, strict=True) if a == 1.0]
    assert S["T"] == max(mem, default=None)
    assert all(a < 1.0 for T, a in zip(Ts, accs, strict=True) if S["T"] is not None and T > S["T"])
    assert S["past"] == min((T for T in Ts if S["T"] is None or T > S["T"]), default=None)
    if S["T"] is not None:
        mx = np.array(rows[Ts.index(S["T"])]["max_weight"])
        assert S["at"]["pairs"] == (mx > 0.99).mean()
        assert 0 <= S["at"]["both"] <= S["at"]["free"] <= 1
