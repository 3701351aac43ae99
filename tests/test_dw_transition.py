"""The CPU-scale transition analysis of depth-width (lib/chapters/depth_width/transition.py): the paper's
procedure on synthetic comparisons whose answer is known, and the declared grids of the stored sweep."""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.depth_width import evidence as E
from lib.chapters.depth_width import lm
from lib.chapters.depth_width import transition as T


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
