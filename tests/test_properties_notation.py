"""Property-based tests of the notation chapter (Hypothesis, profile in conftest.py).

Parameters are drawn from the chapter's own spec (``notebooks/notation.params.toml``, read with
``lib.core.params.load``): its ranges and its constraint ``d_h <= d``, with the sizes capped so that the
literal, loop-over-everything transcriptions stay fast. For every draw, every claim the chapter records
(each paper's literal layer against ``lib.core.attention``, the parameter counts, the misprint findings and
the perturbation check) must hold, and every theorem claim's control must fail."""
import math

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from lib.chapters.notation import checks
from lib.core import params
from lib.core.claims import HOLDS, Claims

SPEC = params.load("notation")
CAP = {"n": 9, "d": 9, "H": 4, "d_v": 4, "trials": 2}     # literal loops cost n^2 H per draw


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)


def _int(name: str) -> st.SearchStrategy[int]:
    p = SPEC.params[name]
    return st.integers(int(p.min), min(int(p.max), CAP.get(name, int(p.max))))


@st.composite
def valid(draw) -> dict:
    """One parameter set the spec accepts (validated by the spec itself)."""
    d = draw(_int("d"))
    tol_p = SPEC.params["tol"]
    v = dict(SPEC.resolve("book"), n=draw(_int("n")), d=d, H=draw(_int("H")),
             d_h=draw(st.integers(int(SPEC.params["d_h"].min), d)), d_v=draw(_int("d_v")),
             trials=draw(_int("trials")), seed=draw(st.integers(0, 2**31 - 1)),
             tol=10 ** draw(st.floats(math.log10(tol_p.min), math.log10(tol_p.max))))
    return SPEC.validate(v)


def _run(section: str, v: dict) -> Claims:
    C, D = Claims("notation"), checks.Draws(v["seed"])
    args = {"mahdavi": ("n", "d", "H", "d_h", "d_v"), "dana": ("n", "d", "H", "d_h"), "levine": ("n", "d", "H", "d_h"),
            "deng": ("n", "d", "d_h", "d_v"), "four_notations": ("n", "d", "H", "d_h", "d_v")}[section]
    getattr(checks, section)(C, D, *(v[k] for k in args), v["trials"], v["tol"])
    return C


def _all_hold(C: Claims, v: dict) -> None:
    bad = {c.id: (c.verdict, c.ours, c.control) for c in C.claims.values() if c.verdict != HOLDS}
    assert not bad, f"{bad} at {v}"
    assert C.missing_controls() == []


@given(valid())
def test_mahdavi_literal_layer_is_lib(v):
    _all_hold(_run("mahdavi", v), v)


@given(valid())
def test_dana_eq2_literal_is_lib_and_counts(v):
    C = _run("dana", v)
    _all_hold(C, v)
    assert int(C.claims["dana-param-count"].ours) == v["d"] * (v["n"] + 2 * checks.N_VOCAB + 4 * v["d_h"] * v["H"])


@given(valid())
def test_levine_equations_are_lib(v):
    _all_hold(_run("levine", v), v)


@given(valid())
def test_deng_reconstruction_is_lib(v):
    _all_hold(_run("deng", v), v)


@given(valid())
def test_four_notations_and_perturbation_detected(v):
    _all_hold(_run("four_notations", v), v)
