"""Softmax vs linear attention: closed forms of the reconstruction (scores, firing probabilities, the τ window,
thresholds and margins). Each function is the closed form of one quantity of the paper's proofs (as
reconstructed); the Monte Carlo of :mod:`.montecarlo` is checked against them.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from lib.chapters.softmax_vs_linear.model import attend
from lib.chapters.softmax_vs_linear.theory.constructions import X_cross, X_self, cross_pair, self_pair


# ----------------------------------------------------------------------------------------------
# closed forms (the lemmas' values, reconstructed) and exact firing probabilities
# ----------------------------------------------------------------------------------------------
def pq(n: int, b: float) -> tuple[float, float]:
    """``p_b = e^b/(e^b+n-1)`` (weight of the needle) and ``q_b = 1/(e^b+n-1)`` (every other token)."""
    return 1.0 / (1.0 + (n - 1) * math.exp(-b)), 1.0 / (math.exp(b) + n - 1)


def fire_prob(c_row: np.ndarray, tau: float) -> float:
    """Exact ``P_w[<w, c_row> > τ]`` for w uniform in {±1}^d: equal entries are grouped, and the sum over
    a group of size s with value v is ``v (2K - s)``, K ~ Binomial(s, 1/2)."""
    vals, counts = np.unique(np.round(np.asarray(c_row, dtype=float), 12), return_counts=True)
    total = 0.0
    ranges = [range(s + 1) for s in counts]
    for ks in itertools.product(*ranges):
        z = sum(v * (2 * kk - s) for v, kk, s in zip(vals, ks, counts, strict=False))
        if z > tau:
            total += math.prod(math.comb(s, kk) / 2 ** s for kk, s in zip(ks, counts, strict=False))   # exact ints
    return total


def p_success(p1: float, m: int) -> float:
    """Probability that at least one of m independent neurons fires: ``1 - (1 - p1)^m``."""
    return 1.0 - (1.0 - p1) ** m


def toy_theory(n: int, b: float, m: int, tau: float, fire_scale: float = 1.0) -> float:
    """Exact ``P(E)`` for the toy model over the random readout. One neuron sees only ``w_j`` and
    ``S = Σ_{i≠j} w_i`` (2·Bin(n-1, 1/2) - (n-1)): D0 (both maps) gives ``(w_j + S)/n``, linear on D1
    ``(2 w_j + S)/(n+1)``, softmax on D1 ``p_b w_j + q_b S``. E = no neuron fires on D0 or on linear-D1 and
    some neuron fires on softmax-D1, so ``P(E) = P(ok)^m - P(ok and silent)^m``. ``fire_scale`` multiplies
    P(ok and fires) (0.5: the control with the firing chance halved)."""
    p, q = pq(n, b)
    bad = fires = 0.0               # P(some map fires on D0 or linear-D1); P(ok and fires on softmax-D1)
    for wj in (-1, 1):
        for K in range(n):
            S = 2 * K - (n - 1)
            pr = math.comb(n - 1, K) / 2 ** n          # 0.5 · Bin(n-1, 1/2), exact integers (no overflow)
            if (wj + S) / n > tau or (2 * wj + S) / (n + 1) > tau:
                bad += pr
            elif p * wj + q * S > tau:
                fires += pr
    # P(ok)^m − P(ok and silent)^m through the small masses: exp(m log(1 − bad)) (1 − exp(m log((1 − bad − f)/(1 − bad))))
    f = fire_scale * fires
    if bad >= 1.0:
        return 0.0
    log_ok = math.log1p(-bad)
    silent = 1.0 - bad - f
    if silent <= 0.0:
        return math.exp(m * log_ok)
    return math.exp(m * log_ok) * -math.expm1(m * (math.log1p(-(bad + f)) - log_ok))


def row_norms(c: Tensor) -> Tensor:
    """``||c_{j0}||_1`` per row (the largest value a ±1 neuron can reach on that row)."""
    return c.abs().sum(-1)


@dataclass
class Window:
    """The guarantee window of a construction at fixed (n, k, b): for ``tau_rest < τ`` nothing but the
    needle row of softmax-D1 can ever fire (every other row has ``||c||_1 ≤ tau_rest``); the needle row
    fires with exact probability ``fire_prob(c_needle, τ)`` per neuron; it fires for *every* neuron whose
    s needle signs are +1 when ``τ < tau_hi``, and for no neuron when ``τ ≥ tau_top = ||c_needle||_1``."""
    tau_rest: float
    tau_wrong: float
    tau_hi: float
    tau_top: float
    c_needle: np.ndarray
    s: int

    @property
    def tau_lo(self) -> float:
        """Lower end of the theorem's window: above it only the needle row can fire, and only for
        neurons whose s needle signs are all +1 (probability exactly 2^-s when also τ < tau_hi)."""
        return max(self.tau_rest, self.tau_wrong)

    def p1(self, tau: float) -> float:
        return fire_prob(self.c_needle, tau)


def window(construction: str, n: int, k: int, b: float, gen_seed: int = 0) -> Window:
    """Compute the window from one constructed instance (by symmetry every instance gives the same
    values). ``construction``: 'self-D', 'self-E' or 'cross' (k = number of groups)."""
    gen = torch.Generator().manual_seed(gen_seed)
    if construction == "cross":
        Q, K0, K1, j1, j2, g = cross_pair(1, n, k + 1, gen)
        X = X_cross(k + 1, b)
        pairs = [(Q, K0), (Q, K1)]
        row, big = int(j1[0]), [0, 1 + int(g[0])]
    else:
        A0, A1, j, g = self_pair(1, n, k, gen)
        X = X_self(k, b, construction[-1])
        pairs = [(A0, A0), (A1, A1)]
        row, big = int(j[0]), [0, 1 + int(g[0]), k + 1]
    lo = 0.0
    for (a1, a2), kind in itertools.product(pairs, ("softmax", "linear")):
        c, _ = attend(a1, a2, X, kind)
        norms = row_norms(c[0])
        if kind == "softmax" and a2 is pairs[1][1]:
            cn = c[0, row].numpy()
            norms = torch.cat([norms[:row], norms[row + 1:]])
        lo = max(lo, float(norms.max()))
    # needle row, all needle signs +1, the rest -1: the worst case of a "good" neuron
    sign = -np.ones_like(cn)
    sign[big] = 1
    # a neuron with a needle sign -1 reaches at most ||c||_1 - 2·(smallest needle coordinate)
    wrong = float(cn.sum() - 2 * cn[big].min())
    return Window(tau_rest=lo, tau_wrong=wrong, tau_hi=float(sign @ cn), tau_top=float(cn.sum()),
                  c_needle=cn, s=len(big))


# ----------------------------------------------------------------------------------------------
# what the theorem does and does not say
# ----------------------------------------------------------------------------------------------
def toy_hoeffding(n: int, b: float, m: int, tau: float) -> float:
    """The paper's style of bound for the toy (Lemmas 4.1-5.4: Hoeffding per neuron, union bound over
    the m neurons): ``P(E) ≥ 1 - m [e^{-nτ²/2} + e^{-((n+1)τ-2)²/(2(n-1))}] - (1 - g)^m`` with
    ``g = ½ (1 - e^{-((p_b-τ)/q_b)²/(2(n-1))})`` the chance that a neuron fires on softmax-D1 (needs
    ``p_b > τ``; the bound is clipped at 0)."""
    p, q = pq(n, b)
    bad = math.exp(-n * tau ** 2 / 2)
    lin_gap = (n + 1) * tau - 2
    bad += math.exp(-lin_gap ** 2 / (2 * (n - 1))) if lin_gap > 0 else 1.0
    g = 0.5 * (1 - math.exp(-((p - tau) / q) ** 2 / (2 * (n - 1)))) if p > tau else 0.0
    return max(0.0, 1 - m * bad - (1 - g) ** m)


def b_star(n: int, k: int, tau: float) -> float:
    """Closed form: the smallest b at which every good neuron fires on cross-attention's D1 needle row,
    ``2p_b + (t-1)q_b - (n-t)q_b = τ``  ⇔  ``e^b = (τ(n-1) + n + 1 - 2t)/(2 - τ)`` (t = n/k)."""
    t = n // k
    if not separates(n, tau):
        return math.nan
    return math.log(max((tau * (n - 1) + n + 1 - 2 * t) / (2 - tau), 1.0))      # b ≥ 0: below 1, every b ≥ 0 fires


def inv_eps_star(n: int, k: int, tau: float) -> float:
    """Closed form: the smallest 1/ε at which linear attention with ``X_ε = diag(1, ε I_k)`` makes every
    good neuron fire on cross-attention's D1 needle row: ``(2 + (2t-n+1)ε)/(1+nε) = τ``
    ⇔ ``1/ε = ((1+τ)n - 2t - 1)/(2 - τ)``."""
    t = n // k
    if not separates(n, tau):
        return math.nan
    return max(((1 + tau) * n - 2 * t - 1) / (2 - tau), 1.0)                   # 1/ε ≥ 1: below 1, every ε ≤ 1 fires


def separates(n: int, tau: float) -> bool:
    """Whether any scale separates the cross-attention datasets: a D0 row's ``||c||_1`` is ``1 + 1/n`` at every
    scale (both maps), so nothing fires on D0 only when ``τ > 1 + 1/n``."""
    return tau > 1 + 1 / n
