"""Property-based tests of the mha-memorization chapter's exact parts (Hypothesis, profile in conftest.py).

Parameters are drawn from the region where Theorem 1 applies, following the chapter's parameter spec
(``notebooks/mha-memorization.params.toml``): context size 2 ≤ n < d (the spec's constraint n < d), heads
H ≥ 1, key/query dimension d_h ≥ 1, r = min(n, d_h), T = H(r−1)+1 examples with i.i.d. uniform contexts and
queries (Assumptions 1–2 hold almost surely). n = 1 is left out here: r − 1 = 0, so T = 1 and the
construction is trivial (the chapter checks n = 1 separately). Sizes are small so that the whole file runs
in well under a minute on one core. For every draw:

* the construction memorizes exactly, rank Z = T, every head matrix has rank ≤ r and factors with d_h
  columns, a c of the fixed grid saturates each new head within the proof's δ and c = 0 does not;
* with a shared context and d_h ≥ n, one more example (T+1) is beyond reach: rank Z stays at T
  (Proposition 2) and the least-squares value step cannot fit arbitrary labels;
* for random key/query weights and a shared context, rank Z ≤ H(n−1)+1 (Proposition 2).
"""
import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lib.chapters.mha_memorization import construction as mha


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)
    with mha.limit_blas_threads(1):
        yield


@st.composite
def sizes(draw, max_d: int = 12, max_H: int = 4):
    """(H, n, d, d_h) with 2 ≤ n < d ≤ max_d, 1 ≤ H ≤ max_H, 1 ≤ d_h ≤ d."""
    d = draw(st.integers(3, max_d))
    n = draw(st.integers(2, d - 1))
    return draw(st.integers(1, max_H)), n, d, draw(st.integers(1, d))


@given(hnd=sizes(), shared=st.booleans(), seed=st.integers(0, 2**16))
def test_construction_memorizes_and_its_heads_respect_d_h(hnd, shared, seed):
    H, n, d, d_h = hnd
    rng = np.random.default_rng(seed)
    r = min(n, d_h)
    T = H * (r - 1) + 1
    E, e = mha.uniform_data(T, n, d, rng, shared=shared)
    res = mha.memorize_check(E, e, rng.standard_normal((T, 1)), H, d_h, 1, rng)
    assert res["rankZ"] == T == res["bound"]
    assert res["err"] <= 1e-8 * res["scale"], res["err"]
    assert res["max_head_rank"] <= r and res["factor_err"] <= 1e-10
    assert res["c_found"] and res["sat_ok"]
    if res["c"]:                               # at least one saturating head: c = 0 is not enough
        assert not res["c0_ok"]


@given(hnd=sizes(), seed=st.integers(0, 2**16))
def test_one_example_past_capacity_is_out_of_reach(hnd, seed):
    H, n, d, _ = hnd
    rng = np.random.default_rng(seed)
    T = H * (n - 1) + 1
    E, e = mha.uniform_data(T, n, d, rng)
    res = mha.memorize_check(E, e, rng.standard_normal((T, 1)), H, n, 1, rng)
    plus = mha.past_capacity(E, e, res["con"], rng)
    assert res["rankZ"] == T and plus["rankZ"] == T
    assert plus["err"] > 1e-8


@given(hnd=sizes(), scale=st.sampled_from([0.1, 1.0, 10.0]), seed=st.integers(0, 2**16))
def test_prop2_rank_bound_for_random_weights(hnd, scale, seed):
    H, n, d, d_h = hnd
    rng = np.random.default_rng(seed)
    B = H * (n - 1) + 1
    E, e = mha.uniform_data(2 * B + 1, n, d, rng)
    assert mha.num_rank(mha.features(E, e, *mha.random_heads(H, d, d_h, scale, rng))) <= B


@given(hnd=sizes(max_d=8, max_H=3), extra=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_frozen_key_query_weights_cannot_fit_past_the_bound(hnd, extra, seed):
    """capacity.frozen_fit (the chapter's eqs. (1)-(6) scan): with the key/query weights fixed and a shared
    context, rank Z never exceeds H(n−1)+1 however many examples are added (Proposition 2), whatever d_h."""
    from lib.chapters.mha_memorization import capacity as cap
    H, n, d, d_h = hnd
    B = cap.bound(H, n)
    (row,) = cap.frozen_fit([dict(T=B + extra, dh=d_h, seed=seed)], H, n, d)
    assert row["rank_Z"] <= B


@given(accs=st.lists(st.sampled_from([1.0, 0.999, 0.5]), min_size=1, max_size=6), H=st.integers(1, 5),
       seed=st.integers(0, 2**16))
def test_fig3_located_capacity_and_statistics(accs, H, seed):
    """App. H's search on a grid (ledger.fig3_capacity): T* is memorized, no larger grid T is, ``past`` is the next
    grid T; the statistics at T* are fractions, with 'a saturated and a free head' ⊆ 'a free head'."""
    from lib.chapters.mha_memorization import ledger
    rng = np.random.default_rng(seed)
    Ts = [10 * (i + 1) for i in range(len(accs))]
    rows = [dict(H=H, T=T, final_acc=a, max_weight=rng.uniform(0.9, 1.0, (T, H)).tolist(),
                 max_weight_init=rng.uniform(0, 1, (T, H)).tolist()) for T, a in zip(Ts, accs, strict=True)]
    S = ledger.fig3_stats(rows)[H]
    mem = [T for T, a in zip(Ts, accs, strict=True) if a == 1.0]
    assert S["T"] == max(mem, default=None)
    assert all(a < 1.0 for T, a in zip(Ts, accs, strict=True) if S["T"] is not None and T > S["T"])
    assert S["past"] == min((T for T in Ts if S["T"] is None or T > S["T"]), default=None)
    if S["T"] is not None:
        mx = np.array(rows[Ts.index(S["T"])]["max_weight"])
        assert S["at"]["pairs"] == (mx > 0.99).mean()
        assert 0 <= S["at"]["both"] <= S["at"]["free"] <= 1
