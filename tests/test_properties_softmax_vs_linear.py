"""Property-based tests of the softmax-vs-linear chapter's exact parts (Hypothesis, profile in conftest.py).

Parameters are drawn from the chapter's valid region: k groups of t tokens (n = k t, n ≥ 2), a score scale
b > 0 and, where a threshold is needed, τ inside the construction's window. Every closed form of the
lemmas, the silent-row bound behind the theorems' linear half, the exact per-neuron firing probability and
the signed-X counterexample must hold for every draw, not only at the presets."""
import math

import numpy as np
import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from lib.chapters.softmax_vs_linear import theory as sl_theory

CONSTRUCTIONS = ("self-D", "self-E", "cross")
S = {"self-D": 3, "self-E": 3, "cross": 2}


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def sizes(max_k: int = 8, max_t: int = 12):
    """(n, k) with n = k t, at least two tokens."""
    return st.tuples(st.integers(1, max_k), st.integers(1, max_t)).map(lambda kt: (kt[0] * kt[1], kt[0])).filter(
        lambda nk: nk[0] >= 2)


@given(con=st.sampled_from(("toy",) + CONSTRUCTIONS), nk=sizes(), b=st.floats(0.01, 30.0), seed=st.integers(0, 10))
def test_closed_forms_hold_and_detect_swapped_datasets(con, nk, b, seed):
    n, k = nk
    err = sl_theory.closed_form_errors(con, n, 1 if con == "toy" else k, b, seed=seed)
    assert max(err.values()) < 1e-12, {key: v for key, v in err.items() if v >= 1e-12}
    swapped = sl_theory.closed_form_errors(con, n, 1 if con == "toy" else k, b, seed=seed, swap=True)
    assert max(swapped.values()) > 1e-12


@given(con=st.sampled_from(CONSTRUCTIONS), nk=sizes(), b=st.floats(0.01, 30.0))
def test_silent_bound_is_the_built_maximum_and_tight(con, nk, b):
    n, k = nk
    rows = sl_theory.silent_rows(con, n, k, b)
    bound = sl_theory.silent_bound(con, n, k, b)
    assert float(sl_theory.row_norms(rows).max()) == pytest.approx(bound, abs=1e-12)
    assert sl_theory.worst_neuron_output(rows, bound + 1e-9) == 0.0         # every readout silent above it
    assert sl_theory.worst_neuron_output(rows, bound - 0.5 / (n + 1)) > 0.0   # one readout fires just below


@given(con=st.sampled_from(CONSTRUCTIONS), nk=sizes(), offset=st.floats(0.0, 8.0), frac=st.floats(0.01, 0.99))
def test_inside_the_window_a_neuron_fires_with_probability_two_to_minus_s(con, nk, offset, frac):
    n, k = nk
    w = sl_theory.window(con, n, k, math.log(n) + offset)
    assume(w.tau_hi - w.tau_lo > 1e-6)
    tau = w.tau_lo + frac * (w.tau_hi - w.tau_lo)
    assert w.tau_lo == pytest.approx(max(sl_theory.silent_bound(con, n, k, math.log(n) + offset), w.tau_wrong), abs=1e-12)
    assert w.p1(tau) == 2.0 ** -S[con]
    # brute force over all 2^d sign vectors
    d = len(w.c_needle)
    signs = np.array(np.meshgrid(*[[-1.0, 1.0]] * d)).reshape(d, -1).T
    assert float(np.mean(signs @ w.c_needle > tau)) == w.p1(tau)


@given(con=st.sampled_from(("self-D", "cross")), nk=sizes(), seed=st.integers(0, 10))
def test_signed_X_puts_all_weight_on_the_needle(con, nk, seed):
    n, k = nk
    s = S[con]
    needle = sl_theory.signed_needle_row(con, n, k, seed=seed)
    assert np.abs(needle).sum() == pytest.approx(s, abs=1e-12) and needle.min() >= 0
    rows = sl_theory.silent_rows(con, n, k, 0.0, X=sl_theory.X_signed(con, k), kinds=("linear",), seed=seed)
    assert float(sl_theory.row_norms(rows).max()) == pytest.approx(s - 1 + 1 / n, abs=1e-12)


@given(n=st.integers(2, 9), m=st.integers(1, 6), tau=st.floats(0.0, 1.0), offset=st.floats(-2.0, 6.0))
def test_toy_theory_is_the_brute_force_probability(n, m, tau, offset):
    b = math.log(n) + offset
    p, q = sl_theory.pq(n, b)
    signs = np.array(np.meshgrid(*[[-1, 1]] * n)).reshape(n, -1).T
    ok = (signs.sum(1) / n <= tau) & ((signs.sum(1) + signs[:, 0]) / (n + 1) <= tau)
    fires = p * signs[:, 0] + q * signs[:, 1:].sum(1) > tau
    assert sl_theory.toy_theory(n, b, m, tau) == pytest.approx(ok.mean() ** m - (ok & ~fires).mean() ** m, abs=1e-12)
    assert sl_theory.toy_hoeffding(n, b, m, tau) <= sl_theory.toy_theory(n, b, m, tau) + 1e-12


@given(con=st.sampled_from(("self-D", "cross")), nk=sizes(), b=st.floats(0.01, 12.0), seed=st.integers(0, 5))
def test_margins_equal_their_closed_forms(con, nk, b, seed):
    """b > 0: at b = 0 the combined parameter is 0 and linear attention is undefined (every score 0)."""
    n, k = nk
    built, closed = sl_theory.margins(con, n, k, b, seed=seed), sl_theory.margin_closed_form(con, n, k, b)
    assert built["softmax"] == pytest.approx(closed["softmax"], abs=1e-12)
    assert built["linear"] == pytest.approx(closed["linear"], abs=1e-12)
