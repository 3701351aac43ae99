"""Property-based tests of the depth-width chapter's exact parts (Hypothesis, profile in conftest.py).

Parameters are drawn from the valid region of each statement: small widths, depths and heads (H | d_x),
even numbers of positions. Every identity (the S-form, homogeneity of degree 3^L), every exact rank against
the paper's bounds and our closed forms, Lemma 6's construction on the network, Lemmas 7–8's Hadamard power,
Theorem 4's grouping step and the fit's bookkeeping must hold for every draw; where a closest wrong
alternative exists (the wrong degree, unnormalised rows, Ω = 1, a shallower bound, two vectors) the test
runs it too and demands that it fail.

The spec's own parameters (``notebooks/depth-width.params.toml``, read with ``lib.core.params.load``, every draw
validated by ``SPEC.validate``) are drawn too and run through the chapter's own claim functions (claims/grid.py,
network.py, regimes.py) as the notebook does (cells 18, 21, 24, 31, 47): seed, rank_cases and prop1_cases (records
L, N, H, dx_min, dx_max, res under their checks), rank_seeds, rank_K_max, hadamard_d and hadamard_lam (paired),
extrap_dx and extrap_L_max. Every theorem and sanity claim must hold (or be 'not run' where no case is in its
regime) and every theorem control must fail. Sizes are capped for speed (L ≤ 3, N ≤ 6, d_x ≤ 4, ranks below 64 so
that any rank_K_max ≥ 64 converges, ((d, λ)) ≤ 60 Hadamard rows); rank_seeds is drawn up to its maximum (5,
included) in a test of its own at the smallest case with an ``@example`` at the maximum.

Defects (valid draws where a claim or its control cannot hold), each an xfail(strict) test with an ``@example``:
the depth L − 1 controls of thm3-upper (at d_x = 1), thm4-upper, thm2-upper, thm5-residual and thm6-residual hold on small grids (the bounds are too loose
for one layer less to be violated), prop1 without an N = 4 non-residual case has no control (NOT_DISCRIMINATING),
lemma78-hadamard with every hadamard_d = 1 (Ω = 1 gives the full rank 1 too), and rank_K_max below a case's rank
(ranks-converged fails: the spec does not tie rank_K_max to the cases). The main draws avoid these: the grid test
accepts 'not discriminating' for those five controls only, prop1_cases holds an N = 4 non-residual record and
hadamard_d a d ≥ 2.

Not drawn (left at the book preset): preset, device, and the language-model ablation's lm_depths, lm_sizes,
lm_steps, lm_batch, lm_seq, lm_vocab, lm_lr, lm_eval_batches, corpus_path, workers (training, no exact theory).
"""
import importlib
import math

import numpy as np
import pytest
import torch
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from lib.chapters.depth_width.claims import fit as F
from lib.chapters.depth_width.theory import bounds as B
from lib.chapters.depth_width.theory import depthseries as ds
from lib.chapters.depth_width.theory import rankgrid as dw_checks
from lib.chapters.depth_width.theory import seprank as sr
from lib.core import params
from lib.core.claims import FAILS, HOLDS, NOT_DISCRIMINATING, NOT_RUN, Claims

G = importlib.import_module("lib.chapters.depth_width.claims.grid")       # the package re-exports a function grid
NW = importlib.import_module("lib.chapters.depth_width.claims.network")
RE = importlib.import_module("lib.chapters.depth_width.claims.regimes")
SPEC = params.load("depth-width")
BOOK = SPEC.resolve("book")
SEEDS_MAX = int(SPEC.params["rank_seeds"].max)
LOOSE = {"thm3-upper", "thm4-upper", "thm2-upper", "thm5-residual", "thm6-residual"}   # controls that can hold on small grids (defect)


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


# ---------------------------------------------------------------------------------------------
# the spec's parameters through the chapter's claim functions
# ---------------------------------------------------------------------------------------------
def _record(draw, N4: bool = False) -> dict:
    """A rank_cases / prop1_cases record under its checks, capped so that every rank stays below 64."""
    while True:
        L = draw(st.integers(1, 3))
        N = 4 if N4 else draw(st.sampled_from([2, 4, 6] if L == 1 else [2, 4]))
        res = False if N4 else draw(st.booleans())
        H = draw(st.integers(1, 3 if L == 1 else 2))
        dmax = {1: 6, 2: 4 if N == 2 else 3, 3: 1 if N == 4 else 2}[L]
        if H == 2 and L >= 2 and N == 4:
            continue
        widths = [d for d in range(1, dmax + 1) if d % H == 0]
        if widths:
            break
    lo = draw(st.integers(1, widths[-1]))
    lo = min(lo, max(w for w in widths if w >= lo))
    hi = draw(st.integers(max(lo, min(w for w in widths if w >= lo)), dmax))
    rec = dict(L=L, N=N, H=H, dx_min=lo, dx_max=hi)
    if res:
        rec["res"] = True
    return rec


def _small(rec: dict) -> bool:
    """Every rank of the record below 64 (our closed form where there is one, else the monomial bound)."""
    def rank_max(c) -> int:
        cf = B.ours_closed_form(c.d_x, c.L, c.H, c.N)
        return cf if cf is not None else B.monomial_upper(c.d_x, c.L)
    return all(rank_max(c) < 64 for c in dw_checks.expand_cases([rec]))


@st.composite
def valid(draw) -> dict:
    rc = [r for r in (_record(draw) for _ in range(draw(st.integers(1, 2)))) if _small(r)] or \
        [dict(L=1, N=2, H=1, dx_min=1, dx_max=2)]
    p1 = [_record(draw, N4=True)] + [r for r in (_record(draw) for _ in range(draw(st.integers(0, 1)))) if _small(r)]
    p1 = [r for r in p1 if _small(r)] or [dict(L=1, N=4, H=1, dx_min=2, dx_max=2)]
    hd, hl = [], []
    for k in range(draw(st.integers(1, 3))):
        d = draw(st.integers(2 if k == 0 else 1, 8))
        lam = draw(st.integers(1, 27).filter(lambda x, d=d: B.multiset(d, x) <= 60))
        hd.append(d)
        hl.append(lam)
    v = dict(BOOK, seed=draw(st.integers(0, 2**31 - 1)), rank_cases=rc, prop1_cases=p1,
             rank_seeds=draw(st.integers(1, 2)), rank_K_max=draw(st.integers(64, 16384)), hadamard_d=hd,
             hadamard_lam=hl, extrap_dx=draw(st.lists(st.integers(1, 10 ** 6), min_size=1, max_size=4)),
             extrap_L_max=draw(st.integers(2, 30)))
    return SPEC.validate(v)


def _verdicts(C: Claims) -> dict:
    """claim id → (verdict, kind); a lower bound that is vacuous (≤ 1) on every case is run and recorded as not
    discriminating (its control, the trivial bound sep ≥ 1, passes): it is keyed ``<id>:vacuous``."""
    return {k + (":vacuous" if "vacuous on this preset" in c.statement else ""): (c.verdict, c.kind)
            for k, c in C.claims.items()}


def grid_verdicts(v: dict) -> dict:
    """Cells 21 and 24: the exact rank grid of rank_cases and every bound's claim on it."""
    rows = dw_checks.measure_grid(dw_checks.expand_cases(v["rank_cases"]), seeds=v["rank_seeds"],
                                  K_max=v["rank_K_max"], seed=v["seed"], device="cpu", log=lambda *a: None)
    C = Claims("depth-width")
    G.grid_claims(C, rows, v["rank_seeds"])
    return _verdicts(C)


def prop1_verdict(v: dict) -> str:
    """Cell 18: Proposition 1 on prop1_cases, control the local mask on the (first three) N = 4 plain cases."""
    cases = dw_checks.expand_cases(v["prop1_cases"])
    prop1 = [dw_checks.prop1_check(c, seed=v["seed"], K_max=v["rank_K_max"]) for c in cases]
    local = [dw_checks.local_contrast(c, width=1, seed=v["seed"], K=min(v["rank_K_max"], r["K"] + 64))
             for c, r in zip(cases, prop1, strict=True) if c.N == 4 and not c.residual][:3]
    C = Claims("depth-width")
    NW.prop1_claim(C, prop1, local)
    return C.claims["prop1"].verdict


def hadamard_verdict(v: dict) -> str:
    """Cell 31: Lemmas 7-8 at Ω = 7, control Ω = 1."""
    ds, lams = v["hadamard_d"], v["hadamard_lam"]
    had = [(d, lam, *sr.hadamard_power_rank(d, lam)) for d, lam in zip(ds, lams, strict=True)]
    had1 = [(d, lam, *sr.hadamard_power_rank(d, lam, omega=1)) for d, lam in zip(ds, lams, strict=True)]
    C = Claims("depth-width")
    G.hadamard_claim(C, had, had1)
    return C.claims["lemma78-hadamard"].verdict


def _grid_ok(verdicts: dict) -> None:
    for cid, (verdict, kind) in verdicts.items():
        if kind in ("theorem", "sanity"):
            allowed = {HOLDS, NOT_RUN} | ({NOT_DISCRIMINATING} if cid in LOOSE or cid.endswith(":vacuous") else set())
            assert verdict in allowed, (cid, verdict)
        assert verdict != FAILS, (cid, verdict)


@given(valid())
def test_spec_rank_grid_inside_every_bound_and_controls_fail(v):
    _grid_ok(grid_verdicts(v))


@given(valid())
def test_spec_prop1_hadamard_and_extrapolation_claims_hold(v):
    assert prop1_verdict(v) == HOLDS
    assert hadamard_verdict(v) == HOLDS
    C = Claims("depth-width")
    RE.extrapolation_claims(C, v["extrap_dx"], v["extrap_L_max"])
    assert all(c.verdict == HOLDS for c in C.claims.values()), _verdicts(C)


@settings(max_examples=3)
@example(dict(BOOK, seed=0, rank_cases=[dict(L=1, N=2, H=1, dx_min=1, dx_max=1)], rank_seeds=SEEDS_MAX))
@given(st.builds(dict, seed=st.integers(0, 2**31 - 1), k=st.integers(1, SEEDS_MAX)).map(
    lambda a: dict(BOOK, seed=a["seed"], rank_cases=[dict(L=1, N=2, H=1, dx_min=1, dx_max=1)], rank_seeds=a["k"])))
def test_rank_grid_up_to_the_maximum_number_of_seeds(v):
    _grid_ok(grid_verdicts(SPEC.validate(v)))


# defects: valid parameter sets where a theorem's control cannot fail, or a sanity claim fails
@pytest.mark.xfail(strict=True, reason="defect: on small grids the depth L-1 controls of thm4-upper and thm2-upper hold")
@settings(max_examples=1)
@example(dict(BOOK, seed=0, rank_cases=[dict(L=2, N=2, H=1, dx_min=1, dx_max=1)]))
@given(valid())
def test_loose_upper_bound_controls(v):
    verdicts = grid_verdicts(SPEC.validate(v))
    assert all(verdicts[c][0] != NOT_DISCRIMINATING for c in LOOSE), verdicts


@pytest.mark.xfail(strict=True, reason="defect: prop1_cases without an N = 4 plain case: prop1 has no control")
@settings(max_examples=1)
@example(dict(BOOK, seed=0, prop1_cases=[dict(L=1, N=2, H=1, dx_min=1, dx_max=1)]))
@given(valid())
def test_prop1_without_an_N4_case(v):
    assert prop1_verdict(SPEC.validate(v)) == HOLDS


@pytest.mark.xfail(strict=True, reason="defect: hadamard_d = [1]: the Omega = 1 control has the full rank 1 too")
@settings(max_examples=1)
@example(dict(BOOK, seed=0, hadamard_d=[1], hadamard_lam=[1]))
@given(valid())
def test_hadamard_with_d_1(v):
    assert hadamard_verdict(SPEC.validate(v)) == HOLDS


@pytest.mark.xfail(strict=True, reason="defect: rank_K_max = 64 below a valid case's rank (70): ranks-converged fails")
@settings(max_examples=1)
@example(dict(BOOK, seed=0, rank_cases=[dict(L=2, N=2, H=2, dx_min=4, dx_max=4)], rank_K_max=64, rank_seeds=1))
@given(valid())
def test_rank_K_max_below_a_rank(v):
    _grid_ok(grid_verdicts(SPEC.validate(v)))
