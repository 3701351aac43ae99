"""Property-based tests of the softmax-vs-linear chapter's exact parts (Hypothesis, profile in conftest.py).

Parameters are drawn from the chapter's own spec (``notebooks/softmax-vs-linear.params.toml``, read with
``lib.core.params.load``) and every draw is validated by the spec itself (``SPEC.validate``). Drawn, over their
ranges and the spec's divisibility constraints (n = k t, every swept n a multiple of the groups, τ below the
needle row's norm): seed; the toy model's toy_n0, toy_m0, toy_tau, toy_b_offset and its sweeps toy_n, toy_m;
self-attention's self_n0, self_k0, self_b_offset, self_tau0 and its sweeps self_n, self_k, self_b, self_m,
self_tau; cross-attention's cross_n0, cross_d0, cross_b_offset, cross_tau0 and its sweeps cross_n, cross_d,
cross_b, cross_m, cross_tau; margin_n, dyn_n, counter_n, counter_inv_eps, signed_n; and reps, the number of
random models per point, up to the spec's maximum (10000, included) in a test of its own at the smallest sizes.
The sizes are capped (every n at most a few hundred; the toy's brute force over 2^n sign vectors at n ≤ 10)
so that the file stays well under a minute; the toy's n sweep is capped at 1024 in the main tests, and
``test_toy_theory_above_n_1024`` checks a larger n (toy_theory overflowed there before its weights became exact).

Not drawn (left at the book preset): preset and device (no exact computation reads them) and the learned
comparison's learn_n, learn_seeds, learn_steps, learn_batch, learn_lrs, learn_sigma (training only: no
exact-theory function reads them).

For every draw: every closed form of the lemmas holds at the working points (and fails with D0 and D1 swapped,
the claims' control); the silent-row bound is the built maximum, every readout is silent above it and one fires
just below (the control); inside the window a neuron fires with probability exactly 2^-s at every working and
swept point, and never at or above the needle row's norm; the toy's exact P(E) is the brute force and the
Hoeffding bound stays below it at every swept point; the margins, the signed-X rows and the separation thresholds
b*, 1/eps* equal their closed forms; and, at up to reps models, every count agrees with the exact probability."""
import math

import numpy as np
import pytest
import torch
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from lib.chapters.softmax_vs_linear import theory as sl_theory
from lib.chapters.softmax_vs_linear.claims import analysis as sl_claims
from lib.core import params

SPEC = params.load("softmax-vs-linear")
P = SPEC.params
REPS_MAX = int(P["reps"].max)
CAP = {"k": 6, "t": 8, "mult": 4, "n": 240, "toy_n": 1024, "toy_n0": 300, "m": 1000}
S = {"self-D": 3, "self-E": 3, "cross": 2}
_SIGNS = {d: np.array(np.meshgrid(*[[-1.0, 1.0]] * d)).reshape(d, -1).T for d in range(1, 9)}


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def _f(name: str, hi: float | None = None, below: bool = False) -> st.SearchStrategy[float]:
    p = P[name]
    return st.floats(float(p.min), float(p.max if hi is None else hi), exclude_max=below)


def _lst(elem: st.SearchStrategy, n: int = 2) -> st.SearchStrategy[list]:
    return st.lists(elem, min_size=1, max_size=n)


def _mult(q: int, lo: int, hi: int) -> st.SearchStrategy[int]:
    """Multiples of q in [lo, hi] (hi at least the smallest one)."""
    first = -(-lo // q)
    return st.integers(first, max(first, hi // q)).map(lambda i: i * q)


@st.composite
def valid(draw, cap_k: int = CAP["k"], cap_t: int = CAP["t"]) -> dict:
    """One parameter set the spec accepts (validated by the spec itself)."""
    k0 = draw(st.integers(int(P["self_k0"].min), cap_k))
    n0 = k0 * draw(st.integers(-(-int(P["self_n0"].min) // k0), max(cap_t, -(-6 // k0))))
    kc = draw(st.integers(int(P["cross_d0"].min) - 1, cap_k))
    nc = kc * draw(st.integers(-(-int(P["cross_n0"].min) // kc), max(cap_t, -(-6 // kc))))
    both = math.lcm(k0, kc)
    v = dict(SPEC.resolve("book"),
             seed=draw(st.integers(0, 2**31 - 1)), reps=draw(st.integers(int(P["reps"].min), REPS_MAX)),
             toy_n0=draw(st.integers(int(P["toy_n0"].min), CAP["toy_n0"])), toy_m0=draw(st.integers(1, CAP["m"])),
             toy_tau=draw(_f("toy_tau")), toy_b_offset=draw(_f("toy_b_offset")),
             toy_n=draw(_lst(st.integers(int(P["toy_n"].min), CAP["toy_n"]))),
             toy_m=draw(_lst(st.integers(1, int(P["toy_m"].max)))),
             self_n0=n0, self_k0=k0, self_m0=draw(st.integers(1, CAP["m"])), self_b_offset=draw(_f("self_b_offset")),
             self_tau0=draw(_f("self_tau0", 3.0, below=True)),
             self_n=draw(_lst(_mult(k0, 6, max(6, k0 * cap_t)))),
             self_k=draw(_lst(st.sampled_from([k for k in range(1, min(n0, cap_k * 2) + 1) if n0 % k == 0]))),
             self_b=draw(_lst(_f("self_b"))), self_m=draw(_lst(st.integers(1, CAP["m"]))),
             self_tau=draw(_lst(_f("self_tau"))),
             cross_n0=nc, cross_d0=kc + 1, cross_m0=draw(st.integers(1, CAP["m"])),
             cross_b_offset=draw(_f("cross_b_offset")), cross_tau0=draw(_f("cross_tau0", 2.0, below=True)),
             cross_n=draw(_lst(_mult(kc, 6, max(6, kc * cap_t)))),
             cross_d=draw(_lst(st.sampled_from([k + 1 for k in range(1, min(nc, cap_k * 2) + 1) if nc % k == 0]))),
             cross_b=draw(_lst(_f("cross_b"))), cross_m=draw(_lst(st.integers(1, CAP["m"]))),
             cross_tau=draw(_lst(_f("cross_tau"))),
             margin_n=draw(_lst(_mult(both, 6, max(6, both * CAP["mult"])))),
             signed_n=draw(_lst(_mult(both, 6, max(6, both * CAP["mult"])))),
             dyn_n=draw(_lst(_mult(kc, 6, max(6, kc * cap_t)))),
             counter_n=draw(_lst(_mult(kc, 6, max(6, kc * cap_t)))),
             counter_inv_eps=draw(_lst(st.floats(math.log10(P["counter_inv_eps"].min), math.log10(P["counter_inv_eps"].max)).map(
                 lambda e: 10.0 ** e))))
    return SPEC.validate(v)


def _points(v: dict) -> list[tuple[str, int, int, float, float]]:
    """Every (construction, n, k, b, τ) at which the chapter reads the exact window: the working points and
    every point of the self (n, k, b, τ) and cross (n, d, b, τ) sweeps (m does not enter the window)."""
    out = []
    for con, pre in (("self-D", "self"), ("self-E", "self"), ("cross", "cross")):
        n0 = v[f"{pre}_n0"]
        k0 = v["self_k0"] if pre == "self" else v["cross_d0"] - 1
        off, tau0 = v[f"{pre}_b_offset"], v[f"{pre}_tau0"]
        out.append((con, n0, k0, math.log(n0) + off, tau0))
        out += [(con, n, k0, math.log(n) + off, tau0) for n in v[f"{pre}_n"]]
        ks = v["self_k"] if pre == "self" else [d - 1 for d in v["cross_d"]]
        out += [(con, n0, k, math.log(n0) + off, tau0) for k in ks]
        out += [(con, n0, k0, b, tau0) for b in v[f"{pre}_b"]]
        out += [(con, n0, k0, math.log(n0) + off, tau) for tau in v[f"{pre}_tau"]]
    return out


@given(valid())
def test_closed_forms_hold_and_detect_swapped_datasets(v):
    """Claims toy-closed-forms, selfD-closed-forms, selfE-closed-forms, cross-closed-forms and their controls."""
    n0, k0, nc, kc = v["self_n0"], v["self_k0"], v["cross_n0"], v["cross_d0"] - 1
    for con, n, k, off in (("toy", v["toy_n0"], 1, v["toy_b_offset"]), ("self-D", n0, k0, v["self_b_offset"]),
                           ("self-E", n0, k0, v["self_b_offset"]), ("cross", nc, kc, v["cross_b_offset"])):
        b = math.log(n) + off
        err = sl_theory.closed_form_errors(con, n, k, b)
        assert max(err.values()) < 1e-12, (con, n, k, b, {key: e for key, e in err.items() if e >= 1e-12})
        swapped = sl_theory.closed_form_errors(con, n, k, b, swap=True)
        assert max(swapped.values()) > 1e-12, (con, n, k, b)


@given(valid())
def test_silent_bound_is_the_built_maximum_and_tight(v):
    """Claims thm11-linear / thm12-linear (ledger.linear_claim) at the working points: the built maximum is the
    closed form, every readout is silent iff τ is at least it, and the control τ = bound − 1/(2(n+1)) fires."""
    for con, n, k, b, tau in _points(v)[:1] + [p for p in _points(v) if p[0] == "cross"][:1] + \
            [p for p in _points(v) if p[0] == "self-E"][:1]:
        rows = sl_theory.silent_rows(con, n, k, b, seed=v["seed"] % 2**32)
        bound = sl_theory.silent_bound(con, n, k, b)
        assert float(sl_theory.row_norms(rows).max()) == pytest.approx(bound, abs=1e-12), (con, n, k, b)
        assert (sl_theory.worst_neuron_output(rows, tau) == 0.0) == (tau >= float(sl_theory.row_norms(rows).max()))
        assert sl_theory.worst_neuron_output(rows, bound + 1e-9) == 0.0
        assert sl_theory.worst_neuron_output(rows, bound - 0.5 / (n + 1)) > 0.0      # the control fires


@given(valid())
def test_inside_the_window_a_neuron_fires_with_probability_two_to_minus_s(v):
    """Claims selfD-one-eighth, selfE-one-eighth, cross-one-quarter and the panels' exact theory, at every working
    and swept point: inside the window p1 = 2^-s exactly (neither control value 2^-(s±1)); at or above the
    needle row's norm p1 = 0; the window's low end is the larger of the silent bound and the wrong-sign value."""
    for con, n, k, b, tau in _points(v):
        w = sl_theory.window(con, n, k, b)
        assert w.tau_rest == pytest.approx(sl_theory.silent_bound(con, n, k, b), abs=1e-12), (con, n, k, b)
        p1 = w.p1(tau)
        if w.tau_lo < tau < w.tau_hi:
            assert p1 == 2.0 ** -S[con] and p1 not in (2.0 ** -(S[con] + 1), 2.0 ** -(S[con] - 1)), (con, n, k, b, tau, p1)
        if tau >= w.tau_top:
            assert p1 == 0.0, (con, n, k, b, tau)
        d = len(w.c_needle)
        if tau > w.tau_rest and d <= 8:                   # where the panels read p1: brute force over all 2^d signs,
            z = _SIGNS[d] @ w.c_needle                    # away from ties <w, c> = τ (round-off decides those both ways)
            if np.abs(z - tau).min() > 1e-9:
                assert float(np.mean(z > tau)) == p1, (con, n, k, b, tau)


@given(v=valid(), n=st.integers(int(P["toy_n0"].min), 10))
def test_toy_theory_is_the_brute_force_probability(v, n):
    """toy_theory at n (the spec's toy_n0 range, n ≤ 10 for the 2^n brute force), m = toy_m0, τ = toy_tau,
    b = ln n + toy_b_offset; the Hoeffding bound (claim toy-hoeffding-bound) stays below it."""
    m, tau, b = v["toy_m0"], v["toy_tau"], math.log(n) + v["toy_b_offset"]
    p, q = sl_theory.pq(n, b)
    signs = np.array(np.meshgrid(*[[-1, 1]] * n)).reshape(n, -1).T
    ok = (signs.sum(1) / n <= tau) & ((signs.sum(1) + signs[:, 0]) / (n + 1) <= tau)
    fires = p * signs[:, 0] + q * signs[:, 1:].sum(1) > tau
    assert sl_theory.toy_theory(n, b, m, tau) == pytest.approx(ok.mean() ** m - (ok & ~fires).mean() ** m, abs=1e-12)
    assert sl_theory.toy_hoeffding(n, b, m, tau) <= sl_theory.toy_theory(n, b, m, tau) + 1e-12


@given(valid())
def test_toy_hoeffding_bound_holds_at_every_swept_point(v):
    """Claim toy-hoeffding-bound: the bound is below the exact P(E) over the n sweep (at toy_m0) and the m sweep
    (at toy_n0); the exact P(E) is a probability, and halving the firing chance (the panels' control) lowers it."""
    pts = [(n, v["toy_m0"]) for n in v["toy_n"]] + [(v["toy_n0"], m) for m in v["toy_m"]]
    for n, m in pts:
        b = math.log(n) + v["toy_b_offset"]
        exact = sl_theory.toy_theory(n, b, m, v["toy_tau"])
        assert -1e-12 <= exact <= 1 + 1e-12
        # up to toy_theory's round-off (m n ulps: its binomial sums, raised to the m-th power); the chapter's absolute
        # 1e-12 fails there, see test_toy_hoeffding_claim_tolerance
        assert sl_theory.toy_hoeffding(n, b, m, v["toy_tau"]) <= exact + 1e-12 + 4 * m * n * 2.0 ** -52
        assert sl_theory.toy_theory(n, b, m, v["toy_tau"], fire_scale=0.5) <= exact + 1e-12


@given(valid())
def test_margins_and_signed_rows_equal_their_closed_forms(v):
    """Claims margin-self-D, margin-cross (built gaps = closed forms, at b = ln n + self_b_offset and at the fixed b
    of the smallest n; the linear gap does not depend on b) and the signed-X counterexample's exact rows."""
    b_fix = math.log(v["margin_n"][0]) + v["self_b_offset"]
    for con, k in (("self-D", v["self_k0"]), ("cross", v["cross_d0"] - 1)):
        for n in v["margin_n"]:
            for b in (math.log(n) + v["self_b_offset"], b_fix):
                built, closed = sl_theory.margins(con, n, k, b), sl_theory.margin_closed_form(con, n, k, b)
                assert built["softmax"] == pytest.approx(closed["softmax"], abs=1e-12), (con, n, k, b)
                assert built["linear"] == pytest.approx(closed["linear"], abs=1e-12), (con, n, k, b)
        for n in v["signed_n"]:
            s = S[con]
            needle = sl_theory.signed_needle_row(con, n, k)
            assert np.abs(needle).sum() == pytest.approx(s, abs=1e-12) and needle.min() >= 0
            rows = sl_theory.silent_rows(con, n, k, 0.0, X=sl_theory.X_signed(con, k), kinds=("linear",))
            assert float(sl_theory.row_norms(rows).max()) == pytest.approx(s - 1 + 1 / n, abs=1e-12)


def _dyn_row(n: int, k: int, tau: float) -> tuple[float, ...]:
    """One row the claim dyn-closed-forms reads: (n, b_bisect, b*, 1/eps_bisect, 1/eps*)."""
    b_bis = sl_theory.min_scale(n, k, "softmax", tau, 0.0, 60.0, log=False)
    e_bis = sl_theory.min_scale(n, k, "linear", tau, 1.0, 1e12, log=True)
    b_cf, e_cf = sl_theory.b_star(n, k, tau), sl_theory.inv_eps_star(n, k, tau)
    if math.exp(b_cf) > 1 and e_cf > 1:                             # not clamped: the identity of dyn-log-vs-linear
        assert abs(math.exp(b_cf) - e_cf - 1) <= 1e-6 * e_cf
    return (n, b_bis, b_cf, e_bis, e_cf)


# cross_d0 = 3, cross_tau0 = 0.5, dyn_n = [6] (valid; 0.5 is in the book's cross_tau sweep): every D0 row has l1 norm
# 1 + 1/n > τ, so no scale separates: the bisection and the closed forms must both say so (NaN)
DYN_BELOW = dict(SPEC.resolve("book"), cross_n0=6, cross_d0=3, cross_tau0=0.5, cross_d=[3], cross_n=[6], dyn_n=[6],
                 counter_n=[6], margin_n=[6], signed_n=[6], self_n0=6, self_k0=3, self_n=[6], self_k=[3])
# cross_d0 = 2 (k = 1), cross_tau0 = 0.5: b_star's logarithm got (τ − 1)(n − 1)/(2 − τ) < 0 and raised ValueError
DYN_ONE_GROUP = dict(DYN_BELOW, cross_d0=2, cross_d=[2])


@settings(max_examples=6)
@example(DYN_ONE_GROUP)
@example(DYN_BELOW)
@given(valid())
def test_separation_thresholds_are_their_closed_forms(v):
    """Claim dyn-closed-forms (and the identity of dyn-log-vs-linear) at every n of dyn_n and counter_n, with
    k = cross_d0 − 1 and τ = cross_tau0: wherever some scale separates, the bisection on the built networks is
    b*, 1/eps* (≤ 1e-6); where none does (τ ≤ 1 + 1/n, a D0 row's norm), both are NaN."""
    v = SPEC.validate(v)
    dyn = np.array([_dyn_row(n, v["cross_d0"] - 1, v["cross_tau0"]) for n in sorted(set(v["dyn_n"] + v["counter_n"]))])
    assert sl_claims.dyn_deviation(dyn) <= 1e-6, (v["cross_d0"], v["cross_tau0"], dyn)


@st.composite
def smallest(draw) -> dict:
    """The smallest sizes (n = 6, one to three groups) with up to the spec's maximum number of models, the
    maximum included, and small readouts (so that a panel costs R·n·m)."""
    v = draw(valid(cap_k=3, cap_t=2))
    return SPEC.validate(dict(v, reps=draw(st.integers(int(P["reps"].min), REPS_MAX)),
                              toy_n0=draw(st.integers(4, 8)), toy_m0=draw(st.integers(1, 8)),
                              self_m0=draw(st.integers(1, 8)), cross_m0=draw(st.integers(1, 8))))


@settings(max_examples=3)
@example(dict(SPEC.resolve("book"), reps=REPS_MAX, toy_n0=4, toy_m0=1, toy_tau=0.25, self_n0=6, self_k0=3, self_m0=1,
              self_n=[6], self_k=[3], cross_n0=6, cross_d0=4, cross_m0=1, cross_n=[6], cross_d=[4], margin_n=[6],
              signed_n=[6], dyn_n=[6], counter_n=[6]))
@given(smallest())
def test_counts_agree_with_the_exact_probability_up_to_the_maximum_number_of_models(v):
    """The panels' criterion (theory.montecarlo.panel_claim): at R = reps models, every count within 4 sd + 1 of R·P(E)
    (0 where P = 0), for the toy at (toy_n0, toy_m0) and for each construction at its working point."""
    v = SPEC.validate(v)
    R = v["reps"]
    toy = sl_theory.toy_panel("n", [v["toy_n0"]], dict(n=v["toy_n0"], m=v["toy_m0"], tau=v["toy_tau"],
                                                  b_offset=v["toy_b_offset"]), R, v["seed"])
    assert toy.agree()[toy.tested].all(), (toy.E, R * toy.theory)
    for con, pre, k in (("self-D", "self", v["self_k0"]), ("self-E", "self", v["self_k0"]), ("cross", "cross", v["cross_d0"] - 1)):
        base = dict(n=v[f"{pre}_n0"], k=k, m=v[f"{pre}_m0"], tau=v[f"{pre}_tau0"], b_offset=v[f"{pre}_b_offset"])
        pn = sl_theory.run_panel(con, "m", [base["m"]], base, R, v["seed"])
        assert pn.agree()[pn.tested].all(), (con, pn.E, R * pn.theory)


# toy_n = [1025] (valid: the spec allows toy_n and toy_n0 up to 20000): toy_theory computed the binomial weights as
# math.comb(n - 1, K) / 2.0 ** (n - 1), and 2.0 ** 1024 overflows a float64 (OverflowError); now exact integers
TOY_OVERFLOW = dict(SPEC.resolve("book"), toy_n=[1025])


@settings(max_examples=1)
@example(TOY_OVERFLOW)
@given(valid())
def test_toy_theory_above_n_1024(v):
    v = SPEC.validate(v)
    for n in v["toy_n"]:
        b = math.log(n) + v["toy_b_offset"]
        assert 0.0 <= sl_theory.toy_theory(n, b, v["toy_m0"], v["toy_tau"]) <= 1.0


# toy_n = [303], toy_m0 = 894, toy_tau = 0.5, toy_b_offset = 1 (valid): the exact P(E) is 1 − 1.9e-16 (in exact
# arithmetic); toy_theory returned 1 − 1.09e-12 (round-off of P(ok)^m − P(ok and silent)^m from sums near 1), below the
# Hoeffding bound 1 − 9.1e-14; it now works with the small masses (log1p, expm1) and returns 1 − 2.2e-16
HOEFFDING_ROUNDOFF = dict(SPEC.resolve("book"), toy_n=[303], toy_m0=894, toy_tau=0.5, toy_b_offset=1.0)


@settings(max_examples=1)
@example(HOEFFDING_ROUNDOFF)
@given(valid())
def test_toy_hoeffding_claim_tolerance(v):
    v = SPEC.validate(v)
    gap = min(sl_theory.toy_theory(n, b, v["toy_m0"], v["toy_tau"]) - sl_theory.toy_hoeffding(n, b, v["toy_m0"], v["toy_tau"])
              for n in v["toy_n"] for b in [math.log(n) + v["toy_b_offset"]])
    assert gap >= -1e-12, gap


@given(valid(), st.sampled_from((0.5, 0.1, 1e-2, 1e-3, 1e-6)))
def test_toy_lemma_parts_hold_wherever_their_conditions_do(v, delta):
    """Claims lemma41-*, lemma42-*: at n = toy_n0 (capped), b = ln n + toy_b_offset and any δ, the Hoeffding parts
    (4.1 Parts 1-2, 4.2 Part 1) and the probability half of 4.2 Part 2 hold for every b; 4.2 Part 3 (the sign is
    that of w_j) holds exactly when e^b > n − 1, the condition b ≳ ln n."""
    from lib.chapters.softmax_vs_linear.theory import toy_lemmas as tl
    n = min(v["toy_n0"], 300)
    b = math.log(n) + v["toy_b_offset"]
    rows = tl.toy_rows(n, b, seed=v["seed"] % 1000)
    law = {key: tl.inner_law(rows[key]) for key in (("linear", 0), ("softmax", 0), ("linear", 1), ("softmax", 1))}
    assert tl.above(law["linear", 0], tl.tau_d0(n, delta)) <= delta
    assert tl.above(law["softmax", 0], tl.tau_d0(n, delta)) <= delta
    assert tl.above(law["linear", 1], tl.tau_lin_d1(n, delta)) <= delta
    assert tl.below(law["softmax", 1], tl.floor_exp_d1(n, b, delta)) <= delta
    assume(abs(math.exp(b) - (n - 1)) > 1e-6 * n)
    assert (tl.sign_miss(rows["softmax", 1], rows["j"]) == 0.0) == (math.exp(b) > n - 1)
