"""Softmax vs linear attention, what the theorem does not say: combined parameters with which *linear* attention
separates the same datasets (signed, 0/1, strictly positive), and the smallest separating scale of each map
within X_ε = diag(1, ε I) (the dynamic range).
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from lib.chapters.softmax_vs_linear.model import DT, attend
from lib.chapters.softmax_vs_linear.theory.closed_forms import row_norms
from lib.chapters.softmax_vs_linear.theory.constructions import X_cross, cross_pair, self_pair
from lib.chapters.softmax_vs_linear.theory.silent import d0_instance


# ----------------------------------------------------------------------------------------------
# a counterexample: linear attention with a signed combined parameter separates both datasets
# ----------------------------------------------------------------------------------------------
def X_signed(construction: str, k: int) -> Tensor:
    """O(1) signed combined parameters with which *linear* attention puts weight exactly 1 on the needle.
    Self (d = k+2): ``X = e_1e_1^T - e_1e_d^T + e_de_d^T`` (the needle row scores 1 on itself, 0 elsewhere).
    Cross (d = k+1): ``X_00 = 1``, ``X_0g = -1`` and ``X_1g = +1`` for every group column g (the query's
    all-ones columns cancel the needle row's background scores to exactly 0)."""
    if construction == "cross":
        X = torch.zeros(k + 1, k + 1, dtype=DT)
        X[0, 0], X[0, 1:], X[1, 1:] = 1.0, -1.0, 1.0
        return X
    X = torch.zeros(k + 2, k + 2, dtype=DT)
    X[0, 0], X[0, -1], X[-1, -1] = 1.0, -1.0, 1.0
    return X


def signed_needle_row(construction: str, n: int, k: int, seed: int = 0) -> np.ndarray:
    """Linear attention with :func:`X_signed`: D1's needle row (closed form: the needle token's own input
    row, ``(1, e_g, 1)`` self or ``(1, e_g)`` cross, l1 norm s)."""
    gen = torch.Generator().manual_seed(seed)
    if construction == "cross":
        Q, _, K1, j1, *_ = cross_pair(1, n, k + 1, gen)
        return attend(Q, K1, X_signed("cross", k), "linear")[0][0, int(j1[0])].numpy()
    _, A1, j, _ = self_pair(1, n, k, gen)
    return attend(A1, A1, X_signed(construction, k), "linear")[0][0, int(j[0])].numpy()


# ----------------------------------------------------------------------------------------------
# entrywise non-negative X outside the family diag(1, eps I): linear attention separates with O(1) entries
# ----------------------------------------------------------------------------------------------
def X_positive(construction: str, k: int, delta: float = 0.0) -> Tensor:
    """An entrywise non-negative combined parameter with which every *linear* score is >= 0 and every row
    attends to the flagged key: cross (d = k+1) ``X = e_1 e_0^T`` (0-based: the query's all-ones column
    times the key's flag), self (d = k+2) ``X = e_d e_0^T`` (the bias column times the flag). Every query has
    a 1 in that column, so every row scores 1 on the flagged key and 0 elsewhere. ``delta > 0`` adds
    ``delta`` times the key's row sum to every score (``+ delta e_1 1^T``, resp. ``e_d 1^T``): every score is
    then >= delta > 0 (strictly positive scores) with a score ratio of order 1/delta."""
    d = k + 1 if construction == "cross" else k + 2
    r = 1 if construction == "cross" else d - 1
    X = torch.zeros(d, d, dtype=DT)
    X[r, :] = delta
    X[r, 0] += 1.0
    return X


def positive_rows(construction: str, n: int, k: int, delta: float = 0.0, seed: int = 0,
                  reading: int = 0) -> dict[str, float]:
    """Linear attention with :func:`X_positive` on one built instance: the smallest score, the largest spread
    between the rows of D1 (every row attends alike: 0 up to rounding), the per-neuron firing probability on
    D1's needle row (exact, :func:`fire_prob` at τ given later: the row itself is returned) and the largest
    row norm on D0 (every readout is silent on D0 iff it is below τ; NaN where a D0 row scores 0 on every key,
    so that the linear map is undefined there). ``reading``: which entry of
    :data:`~lib.chapters.softmax_vs_linear.theory.silent.D0_READINGS` builds D0 (0 is ours; D1 is the same
    under every reading)."""
    gen = torch.Generator().manual_seed(seed)
    X = X_positive(construction, k, delta)
    if construction == "cross":
        Q, K0, K1, j1, *_ = cross_pair(1, n, k + 1, gen)
        p0, p1, row = (Q, K0), (Q, K1), int(j1[0])
    else:
        A0, A1, j, _ = self_pair(1, n, k, gen)
        p0, p1, row = (A0, A0), (A1, A1), int(j[0])
    if reading:
        p0 = d0_instance(construction, n, k, 0.0, reading, seed, X)[0]   # the same draws: D1 and row are unchanged
    S = torch.cat([p[0][0] @ X @ p[1][0].T for p in (p0, p1)])
    c1, c0 = attend(*p1, X, "linear")[0][0], attend(*p0, X, "linear")[0][0]
    return {"min_score": float(S.min()), "spread": float((c1 - c1[row]).abs().max()),
            "c_needle": c1[row].numpy(), "d0_norm": float(row_norms(c0).max())}


def cross_needle_value(n: int, k: int, kind: str, scale: float) -> tuple[float, float]:
    """Cross-attention: the worst-case firing value of a good neuron on D1's needle row, and the largest
    row norm on D0, for softmax with ``X = b I`` (``scale`` = b) or linear attention with
    ``X_ε = diag(1, ε I_k)`` (``scale`` = 1/ε). Deterministic (one instance; symmetry)."""
    gen = torch.Generator().manual_seed(0)
    Q, K0, K1, j1, j2, g = cross_pair(1, n, k + 1, gen)
    if kind == "softmax":
        X = X_cross(k + 1, scale)
    else:
        X = torch.diag(torch.tensor([1.0] + [1.0 / scale] * k, dtype=DT))
    c1, _ = attend(Q, K1, X, kind)
    c0, _ = attend(Q, K0, X, kind)
    cn = c1[0, int(j1[0])].numpy()
    sign = -np.ones_like(cn)
    sign[[0, 1 + int(g[0])]] = 1
    others = torch.cat([row_norms(c1[0])[:int(j1[0])], row_norms(c1[0])[int(j1[0]) + 1:]])
    return float(sign @ cn), float(max(row_norms(c0[0]).max(), others.max()))


def min_scale(n: int, k: int, kind: str, tau: float, lo: float, hi: float, log: bool) -> float:
    """Smallest scale (b for softmax, 1/ε for linear) at which cross-attention *provably* separates
    (every good neuron fires on D1, nothing fires on D0), by bisection (geometric when ``log``)."""
    def good(s: float) -> bool:
        v, rest = cross_needle_value(n, k, kind, s)
        return v > tau and rest < tau
    if not good(hi):
        return float("nan")
    for _ in range(60):
        mid = math.sqrt(lo * hi) if log else 0.5 * (lo + hi)
        lo, hi = (lo, mid) if good(mid) else (mid, hi)
    return hi
