"""Softmax vs linear attention: closed forms of the reconstruction (scores, firing probabilities, the τ window, margins).

Each function is the closed form of one quantity of the paper's proofs (as reconstructed); the Monte Carlo
of :mod:`lib.chapters.softmax_vs_linear.montecarlo` is checked against them.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from lib.chapters.softmax_vs_linear.constructions import DT, X_cross, X_self, attend, cross_pair, self_pair, toy_pair
from lib.core import attention as att


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
            total += math.prod(math.comb(s, kk) / 2.0 ** s for kk, s in zip(ks, counts, strict=False))
    return total


def p_success(p1: float, m: int) -> float:
    """Probability that at least one of m independent neurons fires: ``1 - (1 - p1)^m``."""
    return 1.0 - (1.0 - p1) ** m


def toy_theory(n: int, b: float, m: int, tau: float) -> float:
    """Exact ``P(E)`` for the toy model over the random readout. One neuron sees only ``w_j`` and
    ``S = Σ_{i≠j} w_i`` (2·Bin(n-1, 1/2) - (n-1)): D0 (both maps) gives ``(w_j + S)/n``, linear on D1
    ``(2 w_j + S)/(n+1)``, softmax on D1 ``p_b w_j + q_b S``. E = no neuron fires on D0 or on linear-D1 and
    some neuron fires on softmax-D1, so ``P(E) = P(ok)^m - P(ok and silent)^m``."""
    p, q = pq(n, b)
    ok = ok_silent = 0.0
    for wj in (-1, 1):
        for K in range(n):
            S = 2 * K - (n - 1)
            pr = 0.5 * math.comb(n - 1, K) / 2.0 ** (n - 1)
            bad = (wj + S) / n > tau or (2 * wj + S) / (n + 1) > tau
            if not bad:
                ok += pr
                if not p * wj + q * S > tau:
                    ok_silent += pr
    return ok ** m - ok_silent ** m


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
    return math.log((tau * (n - 1) + n + 1 - 2 * t) / (2 - tau))


def inv_eps_star(n: int, k: int, tau: float) -> float:
    """Closed form: the smallest 1/ε at which linear attention with ``X_ε = diag(1, ε I_k)`` makes every
    good neuron fire on cross-attention's D1 needle row: ``(2 + (2t-n+1)ε)/(1+nε) = τ``
    ⇔ ``1/ε = ((1+τ)n - 2t - 1)/(2 - τ)``."""
    t = n // k
    return ((1 + tau) * n - 2 * t - 1) / (2 - tau)


def margins(construction: str, n: int, k: int, b: float, seed: int = 0) -> dict[str, float]:
    """W-free margin ``Δ = max_{j0} ||c(D1)_{j0} - c(D0)_{j0}||_1`` of each map, on one instance."""
    gen = torch.Generator().manual_seed(seed)
    out = {}
    if construction == "cross":
        Q, K0, K1, *_ = cross_pair(1, n, k + 1, gen)
        X, p0, p1 = X_cross(k + 1, b), (Q, K0), (Q, K1)
    else:
        A0, A1, *_ = self_pair(1, n, k, gen)
        X, p0, p1 = X_self(k, b, construction[-1]), (A0, A0), (A1, A1)
    for kind in ("softmax", "linear"):
        c0, _ = attend(*p0, X, kind)
        c1, _ = attend(*p1, X, kind)
        out[kind] = float((c1 - c0).abs().sum(-1).max())
    return out


# ----------------------------------------------------------------------------------------------
# the lemmas' closed forms (reconstructed), compared with the constructed networks
# ----------------------------------------------------------------------------------------------
def closed_form_errors(construction: str, n: int, k: int, b: float, seed: int = 0) -> dict[str, float]:
    """Largest absolute difference between the built attention and each closed form of the lemmas
    (one random instance). Keys name the lemma part they reconstruct."""
    gen = torch.Generator().manual_seed(seed)
    t = n // k
    p, q = pq(n, b)
    err: dict[str, float] = {}

    def e(name: str, got: Tensor, want) -> None:
        want = torch.as_tensor(want, dtype=DT).expand_as(got)
        err[name] = max(err.get(name, 0.0), float((got - want).abs().max()))

    if construction == "toy":
        x0, x1, j = toy_pair(1, n, b, gen)
        j = int(j[0])
        others = [i for i in range(n) if i != j]
        for kind in ("softmax", "linear"):
            e("D0: f = 1/n (both maps)", att.normalize(x0, kind)[0], 1.0 / n)
        fe, fl = att.normalize(x1, "softmax")[0], att.normalize(x1, "linear")[0]
        e("D1 softmax: f_j = p_b", fe[j], p)
        e("D1 softmax: f_i = q_b (i != j)", fe[others], q)
        e("D1 linear: f_j = 2/(n+1)", fl[j], 2.0 / (n + 1))
        e("D1 linear: f_i = 1/(n+1)", fl[others], 1.0 / (n + 1))
        return err

    if construction == "self-D":
        A0, A1, j, g = self_pair(1, n, k, gen)
        j, g = int(j[0]), int(g[0])
        X = X_self(k, b, "D")
        rest = [i for i in range(n) if i != j]
        S = att.scores(A1, A1, X.unsqueeze(0), torch.eye(k + 2, dtype=DT).unsqueeze(0))[0, 0]
        e("D.2 Part 1a: u_jj = 2b", S[j, j], 2 * b)
        e("D.2 Part 1b/2: u = b elsewhere", S[j, rest], b)
        e("D.2 Part 1b/2: u = b elsewhere", S[rest], b)
        c1, f1 = attend(A1, A1, X, "softmax")
        c1, f1 = c1[0], f1[0]
        e("D.2 Part 3a: f_jj = p_b", f1[j, j], p)
        e("D.2 Part 3b: f_ji = q_b", f1[j, rest], q)
        e("D.2 Part 4: f_{j0,i} = 1/n", f1[rest], 1.0 / n)
        want = torch.full((k + 2,), t * q, dtype=DT)
        want[0], want[1 + g], want[-1] = p, p + (t - 1) * q, 1.0
        e("D.3 Parts 1-3: c_j = (p_b, p_b+(t-1)q_b | t q_b, 1)", c1[j], want)
        want = torch.full((k + 2,), 1.0 / k, dtype=DT)
        want[0], want[-1] = 1.0 / n, 1.0
        e("D.3 Parts 4-6: c_{j0} = (1/n, 1/k, 1)", c1[rest], want)
        c0, _ = attend(A0, A0, X, "softmax")
        e("D.7: ||c_j(D0)||_1 = 2", row_norms(c0[0])[j], 2.0)
        cl, fl = attend(A1, A1, X, "linear")
        e("D.10 Part 3a: f_jj = 2/(n+1)", fl[0, j, j], 2.0 / (n + 1))
        e("D.10 Part 3b: f_ji = 1/(n+1)", fl[0, j, rest], 1.0 / (n + 1))
        e("D.10 Part 4: f_{j0,i} = 1/n", fl[0, rest], 1.0 / n)
        e("D.11: ||c_j(D1)||_1 = 2 + 2/(n+1)", row_norms(cl[0])[j], 2.0 + 2.0 / (n + 1))
        c0l, _ = attend(A0, A0, X, "linear")
        e("D.15: ||c_j(D0)||_1 = 2", row_norms(c0l[0])[j], 2.0)
        cb, _ = attend(A1, A1, X_self(k, 2 * b + 1, "D"), "linear")
        e("linear is invariant to b: c(b) = c(2b+1)", cb[0], cl[0])
        return err

    if construction == "cross":
        Q, K0, K1, j1, j2, g = cross_pair(1, n, k + 1, gen)
        j1, j2, g = int(j1[0]), int(j2[0]), int(g[0])
        X = X_cross(k + 1, b)
        rest_i = [i for i in range(n) if i != j2]
        rest_j = [i for i in range(n) if i != j1]
        eye = torch.eye(k + 1, dtype=DT).unsqueeze(0)
        S = att.scores(Q, K1, X.unsqueeze(0), eye)[0, 0]
        e("F.10 Part 1: u_{j1 j2} = 2b", S[j1, j2], 2 * b)
        e("F.10 Part 2: u = b if j0 != j1 or i != j2", S[j1, rest_i], b)
        e("F.10 Part 2: u = b if j0 != j1 or i != j2", S[rest_j], b)
        c1, f1 = attend(Q, K1, X, "softmax")
        e("F.2 Part 3a: f_{j1 j2} = p_b", f1[0, j1, j2], p)
        e("F.2 Part 3b: f_{j1 i} = q_b", f1[0, j1, rest_i], q)
        e("F.2 Part 4: f_{j0 i} = 1/n (j0 != j1)", f1[0, rest_j], 1.0 / n)
        want = torch.full((k + 1,), t * q, dtype=DT)
        want[0], want[1 + g] = p, p + (t - 1) * q
        e("F.3: c_{j1} = (p_b, p_b+(t-1)q_b | t q_b)", c1[0, j1], want)
        cl, fl = attend(Q, K1, X, "linear")
        e("F.10 Part 3: f_{j1 j2} = 2/(n+1)", fl[0, j1, j2], 2.0 / (n + 1))
        e("F.10 Part 4: f_{j1 i} = 1/(n+1)", fl[0, j1, rest_i], 1.0 / (n + 1))
        e("F.10 Part 5: f_{j0 i} = 1/n (j0 != j1)", fl[0, rest_j], 1.0 / n)
        e("F.11: ||c_{j1}(D1)||_1 = 1 + 2/(n+1)", row_norms(cl[0])[j1], 1.0 + 2.0 / (n + 1))
        c0, f0 = attend(Q, K0, X, "softmax")
        e("F.6: row j1 of D0 is uniform, f = 1/n", f0[0, j1], 1.0 / n)
        e("F.6: f_{j0 j2}(D0) = 1/(1+(n-1)e^b)", f0[0, rest_j, j2], 1.0 / (1.0 + (n - 1) * math.exp(b)))
        e("F.7: ||c_{j0}(D0)||_1 = 1", row_norms(c0[0]), 1.0)
        c0l, f0l = attend(Q, K0, X, "linear")
        e("F.14 Part 5: f_{j0 j2}(D0) = 0 (j0 != j1)", f0l[0, rest_j, j2], 0.0)
        e("F.14 Part 5: f_{j0 i}(D0) = 1/(n-1) (j0 != j1, i != j2)", f0l[0][rest_j][:, rest_i], 1.0 / (n - 1))
        e("F.15: ||c_{j0}(D0)||_1 = 1", row_norms(c0l[0]), 1.0)
        return err
    raise ValueError(f"construction = {construction!r}: expected 'toy', 'self-D' or 'cross'")


def check_params(P: dict) -> None:
    """Divisibility rules the params spec cannot express (n = k t): raise ParameterError naming them."""
    from lib.core.params import ParameterError
    kc = P["cross_d0"] - 1
    rules = [("self_n", P["self_n"], lambda v: v % P["self_k0"] == 0, f"multiples of self_k0 = {P['self_k0']}"),
             ("self_k", P["self_k"], lambda v: P["self_n0"] % v == 0, f"divisors of self_n0 = {P['self_n0']}"),
             ("cross_n", P["cross_n"], lambda v: v % kc == 0, f"multiples of cross_d0 - 1 = {kc}"),
             ("cross_d", P["cross_d"], lambda v: P["cross_n0"] % (v - 1) == 0,
              f"values d with d - 1 dividing cross_n0 = {P['cross_n0']}"),
             ("margin_n", P["margin_n"], lambda v: v % P["self_k0"] == 0 and v % kc == 0,
              f"multiples of self_k0 = {P['self_k0']} and of cross_d0 - 1 = {kc}"),
             ("dyn_n", P["dyn_n"], lambda v: v % kc == 0, f"multiples of cross_d0 - 1 = {kc}"),
             ("counter_n", P["counter_n"], lambda v: v % kc == 0, f"multiples of cross_d0 - 1 = {kc}")]
    for name, values, ok, what in rules:
        bad = [v for v in values if not ok(v)]
        if bad:
            raise ParameterError(f"parameter '{name}' = {values!r} is invalid: {bad} are not {what}")
