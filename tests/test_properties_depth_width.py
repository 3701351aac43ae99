"""Property-based tests of the depth-width chapter's exact parts (Hypothesis, profile in conftest.py).

Parameters are drawn from the valid region of each statement: small widths, depths and heads (H | d_x),
even numbers of positions. Every identity (the S-form, homogeneity of degree 3^L), every exact rank against
the paper's bounds and our closed forms, Lemma 6's construction on the network, Lemmas 7–8's Hadamard power,
Theorem 4's grouping step and the fit's bookkeeping must hold for every draw; where a closest wrong
alternative exists (the wrong degree, unnormalised rows, Ω = 1, a shallower bound, two vectors) the test
runs it too and demands that it fail.
"""
import math

import numpy as np
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from lib.chapters.depth_width.claims import fit as F
from lib.chapters.depth_width.theory import bounds as B
from lib.chapters.depth_width.theory import depthseries as ds
from lib.chapters.depth_width.theory import rankgrid as dw_checks
from lib.chapters.depth_width.theory import seprank as sr


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def shapes(max_d: int = 6, max_L: int = 3, max_H: int = 3):
    """(d_x, L, H) with H | d_x."""
    return st.tuples(st.integers(1, max_H), st.integers(1, max_d), st.integers(1, max_L)).map(
        lambda t: (t[0] * max(1, t[1] // t[0]), t[2], t[0]))


@given(shape=shapes(), res=st.booleans(), N=st.integers(2, 6), seed=st.integers(0, 1000))
def test_sform_is_eq12_and_output_has_degree_3_to_the_L(shape, res, N, seed):
    d, L, H = shape
    gen = torch.Generator().manual_seed(seed)
    W = sr.random_weights(d, L, H, gen)
    X = sr.rand_modp(gen, (3, d, N))
    S = sr.mm(X, X.transpose(-1, -2))
    assert torch.equal(sr.raw_network_modp(W, X, res), sr.mm(sr.s_form_matrix(W, S, res), X))
    if not res:
        t = int(torch.randint(2, sr.PRIME - 1, (1,), generator=gen))
        Y, Yt = sr.raw_network_modp(W, X), sr.raw_network_modp(W, torch.fmod(X * t, sr.PRIME))
        assert torch.equal(Yt, torch.fmod(Y * pow(t, 3 ** L, sr.PRIME), sr.PRIME))
        assume(bool(Y.any()))
        assert not torch.equal(Yt, torch.fmod(Y * pow(t, 3 ** L - 1, sr.PRIME), sr.PRIME))


CASES = [(d, L, H, N) for (L, N, dmax) in [(1, 2, 6), (1, 4, 5), (2, 2, 4), (2, 4, 4), (3, 2, 2)]
         for d in range(1, dmax + 1) for H in (1, 2) if d % H == 0 and not (L >= 2 and H == 2 and N == 4)]


@given(case=st.sampled_from(CASES), seed=st.integers(0, 1000))
def test_exact_rank_is_the_closed_form_and_inside_every_bound(case, seed):
    d, L, H, N = case
    r = sr.sep_rank(d, L, H, N, seed=seed, seeds=1, K0=16)
    assert r.converged
    cf = B.ours_closed_form(d, L, H, N)
    if cf is not None:
        assert r.rank == cf
    b = dw_checks.bounds_row(dw_checks.Case(d, L, H, N))
    assert all(dw_checks.check_row(r.rank, b, False).values())
    assert r.rank <= B.monomial_upper(d, L) and r.rank <= B.thm3_upper(d, L, H)
    if L >= 2 and d >= 2:                                   # the depth L − 1 bound of Theorem 3 is violated
        assert r.rank > B.thm3_upper(d, L - 1, H)


@given(dL=st.sampled_from([(5, 2), (7, 2), (9, 2), (5, 3), (7, 3), (5, 4)]), N=st.sampled_from([2, 4]),
       seed=st.integers(0, 1000))
def test_lemma6_on_the_network_is_the_hadamard_power(dL, N, seed):
    d_x, L = dL
    q = ds.lemma6_point(d_x, L, N=N, seed=seed, extra=4)
    assert q.proportional and q.rank == q.predicted == B.multiset((d_x - 1) // 2, 3 ** (L - 2))
    assert q.rank_unnormalised != q.predicted          # control: Lemma 6 without its normalised rows


@given(d=st.integers(1, 4), lam=st.integers(1, 3), omega=st.integers(2, 40))
def test_lemmas_7_8_full_rank_except_omega_one(d, lam, omega):
    assert sr.hadamard_power_rank(d, lam, omega) == (B.multiset(d, lam), B.multiset(d, lam))
    assert sr.hadamard_power_rank(d, lam, 1)[0] == 1


@given(d=st.integers(1, 3), c=st.integers(1, 3), seed=st.integers(0, 100))
def test_theorem4_grouping_holds_for_one_vector_and_undercounts_for_two(d, c, seed):
    dim1, pv, _ = dw_checks.gram_monomial_rank(d, c, 1, seed=seed)
    assert dim1 == pv == B.multiset(d, 2 * c)
    dim2, _, allm = dw_checks.gram_monomial_rank(d, c, 2, seed=seed)
    assert pv <= dim2 <= allm
    assert (dim2 > pv) == (d >= 2 and c >= 2)           # the grouping undercounts from C = 2 (every L ≥ 2) on


@given(d=st.integers(1, 40), L=st.integers(30, 60))
def test_replacement_bound_outgrows_theorem2_exactly_from_width_4(d, L):
    D = d * (d + 1) // 2
    slope = B.log3_sep_n2(D, L + 1) - B.log3_sep_n2(D, L)
    assert slope == pytest.approx(D, abs=0.05 * D + 0.1)
    assert (D > 2 * d + 1) == (d >= 4)


@given(d=st.integers(4, 10 ** 5), L=st.integers(2, 12))
def test_n2_closed_form_inside_theorem_1_in_its_regime(d, L):
    assume(B.regime(d, L) == "thm1")
    lo, hi = B.thm1_log3_bounds(d, L, 1)
    v = B.log3_sep_n2(d, L)
    assert lo - 1e-9 * hi <= v <= hi + 1e-9 * hi
    # (no control here: Theorem 1's window is so wide that it holds the closed form of depth L ± 1 too)


@given(scale=st.floats(0.1, 10.0), L=st.floats(5.0, 120.0))
def test_fit_bookkeeping(scale, L):
    Ls = [r[0] for r in F.TABLE4]
    y = np.log([r[1] for r in F.TABLE4])
    s = np.array([r[2] / r[1] for r in F.TABLE4])
    f, g = F.weighted_fit(Ls, y, s), F.weighted_fit(Ls, y, scale * s)
    assert g.a == pytest.approx(f.a, abs=1e-12) and g.b == pytest.approx(f.b, abs=1e-12)
    assert g.chi2_red == pytest.approx(f.chi2_red / scale ** 2, rel=1e-9)
    assert g.sa == pytest.approx(f.sa * scale, rel=1e-9) and g.R2 == pytest.approx(f.R2, abs=1e-12)
    N = float(F.n_transition(L, f.a, f.b))
    assert F.optimal_depth(N, f.a, f.b) == pytest.approx(L, rel=1e-9)


@given(row=st.sampled_from(F.TABLE4))
def test_table4_pairs_are_half_distance(row):
    L, d, dd = row
    found = F.transition_pairs(L, d, dd)
    assert found["half"] == [(d - dd, d + dd)] and not found["full"]
    assert set(found["half"][0]) <= set(F.TABLE2[L])
    assert not math.isclose(dd, 0)


@given(n=st.integers(1, 12), r=st.lists(st.integers(0, 40), min_size=1, max_size=6))
def test_lemma3_holds_and_is_tight_at_the_mean(n, r):
    from lib.chapters.depth_width.theory import lemmas
    k, M = len(r), sum(r)
    lhs = math.prod(B.multiset(n, x) for x in r)
    assert lhs <= lemmas.lemma3_rhs(n, k, M)
    if M % k == 0:
        assert B.multiset(n, M // k) ** k == lemmas.lemma3_rhs(n, k, M)      # equality at r_j = M/k


@given(shape=st.sampled_from([(2, 1, 2), (2, 1, 4), (3, 1, 2), (2, 2, 2)]), seed=st.integers(0, 1000),
       fam=st.sampled_from(["random", "line", "repeated", "binary"]), M=st.integers(1, 6))
def test_claim1_no_grid_tensor_exceeds_the_coefficient_rank(shape, seed, fam, M):
    from lib.chapters.depth_width.theory import lemmas
    d, L, N = shape
    gen = torch.Generator().manual_seed(seed)
    W = sr.random_weights(d, L, 1, gen)
    sep, _ = lemmas.coefficient_sep(W, N)
    assert sr.rank_modp(lemmas.grid_matrix(W, lemmas.templates(fam, M, d, gen), N)) <= sep
