"""Softmax vs linear attention: the theorems' deterministic half (every row that must stay silent has l1 norm
below τ, so every readout is silent), the same question under other readings of D0, and the readout-free
margins Δ between D0 and D1 of Section 5.1.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor

from lib.chapters.softmax_vs_linear.model import DT, attend
from lib.chapters.softmax_vs_linear.theory.closed_forms import pq, row_norms
from lib.chapters.softmax_vs_linear.theory.constructions import X_cross, X_self, cross_pair, self_pair


# ----------------------------------------------------------------------------------------------
# the theorems' deterministic half: every row that must stay silent has l1 norm below tau
# ----------------------------------------------------------------------------------------------
def silent_bound(construction: str, n: int, k: int, b: float) -> float:
    """Closed form of the largest l1 norm over every row that must stay silent (all rows of D0 for both
    maps, all rows of linear D1, softmax D1's rows other than the needle). A neuron w fires on a row c
    iff <w, c> > τ, and max over w ∈ {±1}^d of <w, c> = ||c||_1, so *every* readout is silent iff τ is at
    least this bound. Self X_D: 2 + 2/(n+1) (linear D1's needle row, Lemma D.11); cross: 1 + 2/(n+1)
    (Lemma F.11); self X_E: 2 + max(3/(n+t+1), 2/(n+t), 1/(t+(n-t)e^-b)) (linear needle row, linear
    and softmax rows in the needle's group; with t = 1 no other row shares it: 1/(n+t), e^-b/(1+(n-1)e^-b))."""
    if construction == "self-D":
        return 2.0 + 2.0 / (n + 1)
    if construction == "cross":
        return 1.0 + 2.0 / (n + 1)
    if construction == "self-E":
        t, r = n // k, math.exp(-b)
        same = 1.0 if t > 1 else r                   # the flag weight of a row in the needle's group, or not
        return 2.0 + max(3.0 / (n + t + 1), (1.0 + (t > 1)) / (n + t), same / (t + (n - t) * r))
    raise ValueError(f"construction = {construction!r}: expected 'self-D', 'self-E' or 'cross'")


def silent_rows(construction: str, n: int, k: int, b: float, X: Tensor | None = None,
                kinds: tuple[str, ...] = ("softmax", "linear"), seed: int = 0) -> Tensor:
    """All rows that must stay silent, stacked ``[rows, d]`` (one instance): the first map's rows of D0
    and of D1 other than the needle, and every row of D0 and D1 under the other maps (``kinds[1:]``)."""
    gen = torch.Generator().manual_seed(seed)
    if construction == "cross":
        Q, K0, K1, j1, *_ = cross_pair(1, n, k + 1, gen)
        X = X_cross(k + 1, b) if X is None else X
        p0, p1, row = (Q, K0), (Q, K1), int(j1[0])
    else:
        A0, A1, j, _ = self_pair(1, n, k, gen)
        X = X_self(k, b, construction[-1]) if X is None else X
        p0, p1, row = (A0, A0), (A1, A1), int(j[0])
    c1 = attend(*p1, X, kinds[0])[0][0]
    out = [attend(*p0, X, kinds[0])[0][0], torch.cat([c1[:row], c1[row + 1:]])]
    out += [attend(*pr, X, kind)[0][0] for kind in kinds[1:] for pr in (p0, p1)]
    return torch.cat(out)


def worst_neuron_output(rows: Tensor, tau: float) -> float:
    """The network's output on ``rows`` for the readout that fires most: the single neuron
    ``w* = sign(c)`` of the row with the largest l1 norm (it attains max_w <w, c> over w ∈ {±1}^d).
    Zero iff every readout W is silent on every row."""
    top = rows[int(row_norms(rows).argmax())]
    w = torch.where(top >= 0, 1.0, -1.0).to(DT).unsqueeze(-1)
    from lib.chapters.softmax_vs_linear.model import network
    return float(network(rows, w, tau))


# ----------------------------------------------------------------------------------------------
# other readings of D0 (its definition is lost): does the theorems' silent half survive them?
# ----------------------------------------------------------------------------------------------
D0_READINGS = {
    "self": ("no group for the flagged token (ours)", "Type III: the flagged token's last entry is 0",
             "no flag (first column 0)", "D0 = D1 (control)"),
    "cross": ("key j2 in no group (ours)", "no key flag (first column of A2 is 0)",
              "no query flag (first column of A1 is 0)", "D0 = D1 (control)"),
}
# the other readings (indices into D0_READINGS) that the surviving text leaves open. Self-attention: Definition D.1's
# D0 bullets lost every value, so both other readings stay open. Cross-attention: Definition F.1's D0 bullets keep "the
# first column of A2 is e_{j2} (this is a one-sparse vector where only j2-th location is 1)", which rules out "no key
# flag"; the value at j1 of A1's first column and A2's other columns are lost, so "no query flag" stays open.
OPEN_READINGS = {"self": (1, 2), "cross": (2,)}


def d0_instance(construction: str, n: int, k: int, b: float, reading: int, seed: int = 0,
                X: Tensor | None = None) -> tuple[tuple[Tensor, Tensor], tuple[Tensor, Tensor], Tensor]:
    """One instance ``((A1, A2) of D0, (A1, A2) of D1, X)`` with D0 built by the ``reading``-th entry of
    :data:`D0_READINGS` (D1 is the same under every reading). ``X`` replaces the construction's parameter."""
    gen = torch.Generator().manual_seed(seed)
    if construction == "cross":
        Q, K0, K1, *_ = cross_pair(1, n, k + 1, gen)
        X = X_cross(k + 1, b) if X is None else X
        q0, k0 = Q.clone(), [K0, K1.clone(), K1, K1][reading]
        if reading == 1:
            k0[..., 0] = 0.0
        if reading == 2:
            q0[..., 0] = 0.0
        return (q0, k0), (Q, K1), X
    A0, A1, j, _ = self_pair(1, n, k, gen)
    X = X_self(k, b, construction[-1]) if X is None else X
    a0 = [A0, A1.clone(), A1.clone(), A1][reading]
    if reading == 1:
        a0[0, int(j[0]), -1] = 0.0
    if reading == 2:
        a0[..., 0] = 0.0
    return (a0, a0), (A1, A1), X


def d0_max_norm(construction: str, n: int, k: int, b: float, reading: int, seed: int = 0,
                X: Tensor | None = None, kinds: tuple[str, ...] = ("softmax", "linear")) -> float:
    """The largest l1 norm over every row of D0, under the maps ``kinds``, for the ``reading``-th entry of
    :data:`D0_READINGS` (D1 is unchanged). The theorems' D0 half holds for every readout iff τ exceeds it.
    ``X`` replaces the construction's combined parameter (e.g. :func:`X_signed` with ``kinds=("linear",)``);
    NaN where a linear row sums to 0 (the map is undefined there)."""
    pair, _, X = d0_instance(construction, n, k, b, reading, seed, X)
    norms = [row_norms(attend(*pair, X, kind)[0][0]) for kind in kinds]
    return float(torch.cat(norms).max()) if all(bool(torch.isfinite(v).all()) for v in norms) else float("nan")


# ----------------------------------------------------------------------------------------------
# the readout-free margins of Section 5.1 (under any reading of D0)
# ----------------------------------------------------------------------------------------------
def margins(construction: str, n: int, k: int, b: float, seed: int = 0, reading: int = 0) -> dict[str, float]:
    """W-free margin ``Δ = max_{j0} ||c(D1)_{j0} - c(D0)_{j0}||_1`` of each map, on one instance
    (``reading``: which :data:`D0_READINGS` entry is D0; 0 is ours)."""
    p0, p1, X = d0_instance(construction, n, k, b, reading, seed)
    out = {}
    for kind in ("softmax", "linear"):
        c0, _ = attend(*p0, X, kind)
        c1, _ = attend(*p1, X, kind)
        out[kind] = float((c1 - c0).abs().sum(-1).max())
    return out


def margin_closed_form(construction: str, n: int, k: int, b: float) -> dict[str, float]:
    """Closed form of :func:`margins` (ours, from the lemmas' rows). The gap is the larger of the needle
    row's and any other row's. Self X_D: softmax ``p_b = e^b/(e^b+n-1)`` (only the needle's group coordinate
    moves), linear ``2/(n+1)``; cross: the needle row against D0's uniform row j1, or a row j0 != j1 against
    D0's row that puts ``1/(1+(n-1)e^b)`` (softmax) or 0 (linear) on key j2. Linear never depends on b;
    softmax at a fixed b decays like e^b/n."""
    t = n // k
    p, q = pq(n, b)
    if construction == "self-D":
        return {"softmax": max(p, 1.0 / n), "linear": max(2.0 / (n + 1), 1.0 / n)}
    if construction != "cross":
        raise ValueError(f"construction = {construction!r}: expected 'self-D' or 'cross'")

    def gap(fj: float, fi: float, f2: float, fo: float) -> float:
        """Needle row with weights (fj on j2, fi elsewhere) against D0's uniform row, and a row j0 != j1:
        uniform in D1 against (f2 on j2, fo elsewhere) in D0."""
        needle = abs(fj - 1 / n) + abs(fj + (t - 1) * fi - (t - 1) / n) + (k - 1) * t * abs(fi - 1 / n)
        other = abs(1 / n - f2) + abs(t / n - (t - 1) * fo) + (k - 1) * t * abs(1 / n - fo)
        return max(needle, other)
    a0 = 1.0 + (n - 1) * math.exp(b)
    return {"softmax": gap(p, q, 1 / a0, math.exp(b) / a0), "linear": gap(2 / (n + 1), 1 / (n + 1), 0.0, 1 / (n - 1))}
