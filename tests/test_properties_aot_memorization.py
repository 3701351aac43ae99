"""Property-based tests of the aot-memorization chapter's exact parts (Hypothesis, profile in conftest.py).

Parameters are drawn from the chapter's valid region (notebooks/aot-memorization.params.toml): vocabulary
N ≥ 2, context S ≥ 2, N^S ≤ 130 so that each draw stays a fraction of a second, d_h ≤ d for Corollary 1
(the paper's condition; d_h > d is the corrected capacity H min(d_h, d) + d). Every draw must satisfy the
statements the chapter records as theorem or sanity claims: Corollary 1's construction memorizes every
association at capacity and fails one head short (its control), Lemma 2's rank is min(T0, H d) for
generic attention and collapses with W_QK = 0, Prop. 3's closed form equals brute force, the parameter
counts are those of the arrays."""
import math

import numpy as np
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from lib.chapters.aot_memorization import construction as aot
from lib.core import stats


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def vocab():
    """(N, S) with N^S between 4 and 130 sequences."""
    return st.tuples(st.integers(2, 11), st.integers(2, 4)).filter(lambda ns: 4 <= ns[0] ** ns[1] <= 130)


def at_capacity(N: int, S: int, d: int, d_h: int, extra: int) -> int:
    """The smallest H with H d_h + d >= N^S, plus ``extra`` heads."""
    return max(1, math.ceil((N ** S - d) / d_h)) + extra


@given(ns=vocab(), d=st.integers(2, 6), dh_frac=st.floats(0.0, 1.0), extra=st.integers(0, 2), seed=st.integers(0, 50))
def test_corollary1_memorizes_at_capacity_and_not_one_head_short(ns, d, dh_frac, extra, seed):
    N, S = ns
    d_h = 1 + int(dh_frac * (d - 1))                     # 1 <= d_h <= d
    # d <= N: the skip term x(t, S) takes only N values, so its rank over all sequences is at most N and the
    # construction's capacity is H d_h + min(d, N) (Hypothesis: (N, S, d, d_h, H) = (2, 2, 3, 1, 1) has rank 3 < 4)
    assume(d <= N)
    H = at_capacity(N, S, d, d_h, extra)
    r = aot.association_check(N, S, d, d_h, H, np.random.default_rng(seed))
    assert r["rank"] == r["T"] and r["acc_all"] == 1.0 and r["rel_err"] < 1e-3, r
    Hc = aot.heads_short_of(N, S, d, d_h)
    assume(Hc >= 1)
    assert Hc * d_h + d < N ** S <= (Hc + 1) * d_h + d
    rc = aot.association_check(N, S, d, d_h, Hc, np.random.default_rng(seed))
    assert rc["rank"] == Hc * d_h + d < rc["T"], rc        # the control: rank F is the capacity, below T0


@given(ns=vocab(), d=st.integers(1, 4), gap=st.integers(1, 4), H=st.integers(1, 12), seed=st.integers(0, 50))
def test_dh_above_d_reaches_only_the_corrected_capacity(ns, d, gap, H, seed):
    N, S = ns
    assume(d <= N)
    d_h = d + gap
    r = aot.association_check(N, S, d, d_h, H, np.random.default_rng(seed))
    assert r["capacity_corrected"] == H * d + d < r["capacity"] == H * d_h + d
    assert r["rank"] == min(r["T"], r["capacity_corrected"]), r


# d >= 2: at d = 1 the head features are sums of sigmoids of nearby rates, full rank in exact arithmetic but
# conditioned like a Vandermonde matrix (Hypothesis: (N, S, d, H) = (3, 2, 1, 7), seed 0: relative singular values
# 2e-8, 2e-11, 1e-15, float64 rank 6 < 7), so the float64 rank cannot test the statement there
@given(ns=vocab(), d=st.integers(2, 6), H=st.integers(1, 40), seed=st.integers(0, 50))
def test_lemma2_rank_is_min_T0_Hd_and_collapses_without_attention(ns, d, H, seed):
    N, S = ns
    rank, bound = aot.lemma2_rank(N, S, d, H, np.random.default_rng(seed))
    assert bound == min(N ** S, H * d) and rank == bound
    flat, _ = aot.lemma2_rank(N, S, d, H, np.random.default_rng(seed), qk_scale=0.0)
    assert flat <= d                                       # every head the same average of x(t, s), a vector of R^d
    if min(N ** S, H * d) > d:
        assert flat < bound


@given(N=st.integers(3, 60), lam=st.floats(0.0, 2000.0), seed=st.integers(0, 20))
def test_prop3_closed_form_is_brute_force_and_d1_does_not_vanish(N, lam, seed):
    closed, direct = aot.prop3_kl(N, lam), aot.prop3_kl_direct(N, 2, lam, np.random.default_rng(seed))
    assert abs(closed - direct) <= 1e-9 * max(1.0, closed)
    # the control (d = 1, tokens on a line): tokens j and N - j share cos(2 pi j / N), so a target with a twin
    # gets probability <= 1/2 at every lambda, and KL >= log 2 on those sequences
    line = aot.prop3_kl_direct(N, 2, lam, np.random.default_rng(seed), dim=1)
    g = aot.random_table(N, 2, np.random.default_rng(seed))
    twin = (g != 0) & (2 * g != N)
    assert line >= math.log(2) * twin.mean() - 1e-12


@given(N=st.integers(2, 30), S=st.integers(1, 5), d=st.integers(1, 8), d_h=st.integers(1, 8), H=st.integers(1, 6))
def test_parameter_counts_are_the_arrays(N, S, d, d_h, H):
    g = np.random.default_rng(0)
    T = lambda *shape: torch.as_tensor(g.standard_normal(shape))
    full = aot.AoT(T(N, d), T(S, d), T(H, d, d_h), T(H, d, d_h), T(H, d, d_h), T(H, d_h, d), T(N, d))
    assert full.n_params() == aot.n_params_paper(N, S, d, d_h, H)
    rank1 = aot.AoT(T(N, d), T(S, d), T(H, d, 1), T(H, d, 1), T(H, d, d_h), T(H, d_h, d), T(N, d))
    assert rank1.n_params() == aot.n_params_rank1(N, S, d, d_h, H)


@given(N=st.integers(3, 20), d=st.integers(80, 200), T=st.integers(10, 80), eta=st.floats(0.01, 0.6), seed=st.integers(0, 50))
def test_theorem2_bound_holds_whenever_C_is_below_one_half(N, d, T, eta, seed):
    r = aot.theorem2_check(N, d, T, eta, np.random.default_rng(seed))
    assume(r["C_emp"] < 0.5)                               # the theorem's hypothesis
    assert r["kl_f"] <= r["bound"] + 1e-12, r
    assert (r["C_jl"] >= 0.5) == (d <= 128 * math.log(N + 1))   # the sanity identity thm2-jl-vacuous


@given(a=st.floats(-0.05, 0.05), b=st.floats(-0.5, 0.5), c=st.floats(-1, 1), n=st.integers(4, 12))
def test_stored_quad_recovers_any_quadratic(a, b, c, n):
    """The convexity test of the stored Exp. 2 (x² coefficient of a least-squares quadratic) is exact on quadratics."""
    assume(abs(a) > 1e-4)
    x = np.arange(1, n + 1, dtype=float)
    got, r2q, r2l = stats.quadratic_fit(x, a * x ** 2 + b * x + c)
    assert got == pytest.approx(a, abs=1e-9) and r2q == pytest.approx(1.0, abs=1e-9) and r2l <= r2q + 1e-12
