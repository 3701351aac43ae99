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


def toy_theory(n: int, b: float, m: int, tau: float, fire_scale: float = 1.0) -> float:
    """Exact ``P(E)`` for the toy model over the random readout. One neuron sees only ``w_j`` and
    ``S = Σ_{i≠j} w_i`` (2·Bin(n-1, 1/2) - (n-1)): D0 (both maps) gives ``(w_j + S)/n``, linear on D1
    ``(2 w_j + S)/(n+1)``, softmax on D1 ``p_b w_j + q_b S``. E = no neuron fires on D0 or on linear-D1 and
    some neuron fires on softmax-D1, so ``P(E) = P(ok)^m - P(ok and silent)^m``. ``fire_scale`` multiplies
    P(ok and fires) (0.5: the control with the firing chance halved)."""
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
    ok_silent = ok - fire_scale * (ok - ok_silent)
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


# ----------------------------------------------------------------------------------------------
# the lemmas' closed forms (reconstructed), compared with the constructed networks
# ----------------------------------------------------------------------------------------------
class _Err(dict):
    """Largest absolute difference per named closed form (a lemma part)."""

    def __call__(self, name: str, got: Tensor, want) -> None:
        want = torch.as_tensor(want, dtype=DT).expand_as(got)
        diff = float((got - want).abs().max()) if got.numel() else 0.0      # an empty case (e.g. k = 1) holds
        self[name] = max(self.get(name, 0.0), diff)


def _toy_forms(e: _Err, n: int, b: float, gen: torch.Generator, swap: bool) -> None:
    x0, x1, j = toy_pair(1, n, b, gen)
    if swap:
        x0, x1 = x1, x0
    j = int(j[0])
    p, q = pq(n, b)
    others = [i for i in range(n) if i != j]
    for kind in ("softmax", "linear"):
        e("D0: f = 1/n (both maps)", att.normalize(x0, kind)[0], 1.0 / n)
    fe, fl = att.normalize(x1, "softmax")[0], att.normalize(x1, "linear")[0]
    e("D1 softmax: f_j = p_b", fe[j], p)
    e("D1 softmax: f_i = q_b (i != j)", fe[others], q)
    e("D1 linear: f_j = 2/(n+1)", fl[j], 2.0 / (n + 1))
    e("D1 linear: f_i = 1/(n+1)", fl[others], 1.0 / (n + 1))


def _self_rows(n: int, k: int, g: int, j_w: float, group_w: float, other_w: float, flag_rest: Tensor,
               grp_rest: Tensor) -> tuple[Tensor, Tensor]:
    """Aggregated rows ``c = f A`` of a self-attention instance: the needle row from its weights, and the
    other rows from their flag weight and per-group weights (helpers for the closed forms below)."""
    cj = torch.full((k + 2,), other_w, dtype=DT)
    cj[0], cj[1 + g], cj[-1] = j_w, group_w, 1.0
    rows = torch.cat([flag_rest.unsqueeze(-1), grp_rest, torch.ones(n - 1, 1, dtype=DT)], -1)
    return cj, rows


def _selfD_forms(e: _Err, n: int, k: int, b: float, gen: torch.Generator, swap: bool) -> None:
    A0, A1, j, g = self_pair(1, n, k, gen)
    if swap:
        A0, A1 = A1, A0
    j, g, t = int(j[0]), int(g[0]), n // k
    p, q = pq(n, b)
    X = X_self(k, b, "D")
    rest = [i for i in range(n) if i != j]
    eye = torch.eye(k + 2, dtype=DT).unsqueeze(0)
    lemmas = {("D1", "softmax"): ("D.2", "D.3"), ("D1", "linear"): ("D.10", "D.11"),
              ("D0", "softmax"): ("D.6", "D.7"), ("D0", "linear"): ("D.14", "D.15")}
    for tag, A in (("D1", A1), ("D0", A0)):
        S = att.scores(A, A, X.unsqueeze(0), eye)[0, 0]
        for kind, (fj, fi) in (("softmax", (p, q)), ("linear", (2 / (n + 1), 1 / (n + 1)))):
            lw, lc = lemmas[tag, kind]
            # the scores do not depend on the map: Parts 1-2 of the weight lemma of each map
            e(f"{lw} Part 1a ({tag}, {kind}): u_jj = 2b", S[j, j], 2 * b)
            e(f"{lw} Parts 1b/2 ({tag}, {kind}): u = b elsewhere", S[j, rest], b)
            e(f"{lw} Parts 1b/2 ({tag}, {kind}): u = b elsewhere", S[rest], b)
            c, f = attend(A, A, X, kind)
            e(f"{lw} Part 3a ({tag}, {kind}): f_jj", f[0, j, j], fj)
            e(f"{lw} Part 3b ({tag}, {kind}): f_ji", f[0, j, rest], fi)
            e(f"{lw} Part 4 ({tag}, {kind}): f_(j0,i) = 1/n", f[0, rest], 1.0 / n)
            # aggregated rows c = f A: the needle row from (fj, fi), every other row uniform
            gw = fj + (t - 1) * fi if tag == "D1" else (t - 1) * fi
            gr = torch.full((n - 1, k), t / n, dtype=DT)
            if tag == "D0":
                gr[:, g] = (t - 1) / n
            cj, rows = _self_rows(n, k, g, fj, gw, t * fi, torch.full((n - 1,), 1.0 / n, dtype=DT), gr)
            e(f"{lc} Parts 1-3 ({tag}, {kind}): needle row c_j", c[0, j], cj)
            e(f"{lc} Parts 4-6 ({tag}, {kind}): rows c_(j0), j0 != j", c[0, rest], rows)
    e("D.7: ||c_j(D0)||_1 = 2 (softmax)", row_norms(attend(A0, A0, X, "softmax")[0][0])[j], 2.0)
    cl = attend(A1, A1, X, "linear")[0]
    e("D.11: ||c_j(D1)||_1 = 2 + 2/(n+1) (linear)", row_norms(cl[0])[j], 2.0 + 2.0 / (n + 1))
    e("D.15: ||c_j(D0)||_1 = 2 (linear)", row_norms(attend(A0, A0, X, "linear")[0][0])[j], 2.0)
    e("linear is invariant to b: c(b) = c(2b+1)", attend(A1, A1, X_self(k, 2 * b + 1, "D"), "linear")[0][0], cl[0])


def _selfE_forms(e: _Err, n: int, k: int, b: float, gen: torch.Generator, swap: bool) -> None:
    """Lemmas E.1 (scores 3b / 2b / b and the softmax weights) and E.2 (the aggregated rows), X_E = b I."""
    A0, A1, j, g = self_pair(1, n, k, gen)
    if swap:
        A0, A1 = A1, A0
    j, g, t = int(j[0]), int(g[0]), n // k
    X = X_self(k, b, "E")
    grp = A1[0, :, 1:-1].argmax(-1)                       # every token's group in D1
    same = [i for i in range(n) if i != j and int(grp[i]) == g]
    diff = [i for i in range(n) if int(grp[i]) != g]
    rest = [i for i in range(n) if i != j]
    S = att.scores(A1, A1, X.unsqueeze(0), torch.eye(k + 2, dtype=DT).unsqueeze(0))[0, 0]
    e("E.1 Part 1a: u_jj = 3b", S[j, j], 3 * b)
    e("E.1 Part 1b: u_ji = 2b (t-1 indices of j's group)", S[j, same], 2 * b)
    e("E.1 Part 1b: u_ji = b (the n-t others)", S[j, diff], b)
    same_all = (grp[rest].unsqueeze(1) == grp.unsqueeze(0)).to(DT)       # [n-1, n]: same group as j0
    e("E.1 Part 2: u_(j0,i) = 2b (same group) or b", S[rest], b * (1 + same_all))
    r = math.exp(-b)
    a = 1 + (t - 1) * r + (n - t) * r * r                  # α_j / e^{3b}
    c, f = attend(A1, A1, X, "softmax")
    e("E.1 Part 3a: f_jj = e^3b/α_j", f[0, j, j], 1 / a)
    e("E.1 Part 3b: f_ji = e^2b/α_j (same group)", f[0, j, same], r / a)
    e("E.1 Part 3b: f_ji = e^b/α_j (other groups)", f[0, j, diff], r * r / a)
    a2 = t + (n - t) * r                                   # α_(j0) / e^{2b}
    e("E.1 Part 4: f_(j0,i) = e^2b/α or e^b/α", f[0, rest], (same_all + (1 - same_all) * r) / a2)
    cj, rows = _self_rows(n, k, g, 1 / a, (1 + (t - 1) * r) / a, t * r * r / a,
                          (same_all[:, j] + (1 - same_all[:, j]) * r) / a2,
                          (torch.nn.functional.one_hot(grp[rest], k).to(DT) * (1 - r) + r) * t / a2)
    e("E.2 Parts 1-3: needle row c_j", c[0, j], cj)
    e("E.2 Parts 4-6: rows c_(j0), j0 != j", c[0, rest], rows)


def _cross_forms(e: _Err, n: int, k: int, b: float, gen: torch.Generator, swap: bool) -> None:
    Q, K0, K1, j1, j2, g = cross_pair(1, n, k + 1, gen)
    if swap:
        K0, K1 = K1, K0
    j1, j2, g, t = int(j1[0]), int(j2[0]), int(g[0]), n // k
    p, q = pq(n, b)
    X = X_cross(k + 1, b)
    rest_i = [i for i in range(n) if i != j2]
    rest_j = [i for i in range(n) if i != j1]
    eye = torch.eye(k + 1, dtype=DT).unsqueeze(0)
    S = att.scores(Q, K1, X.unsqueeze(0), eye)[0, 0]
    e("F.2/F.10 Part 1: u_(j1 j2) = 2b", S[j1, j2], 2 * b)
    e("F.2/F.10 Part 2: u = b if j0 != j1 or i != j2", S[j1, rest_i], b)
    e("F.2/F.10 Part 2: u = b if j0 != j1 or i != j2", S[rest_j], b)
    c1, f1 = attend(Q, K1, X, "softmax")
    e("F.2 Part 3a: f_(j1 j2) = p_b", f1[0, j1, j2], p)
    e("F.2 Part 3b: f_(j1 i) = q_b", f1[0, j1, rest_i], q)
    e("F.2 Part 4: f_(j0 i) = 1/n (j0 != j1)", f1[0, rest_j], 1.0 / n)
    uni = torch.full((n - 1, k + 1), t / n, dtype=DT)     # a uniform row of D1: (1/n | t/n, ..., t/n)
    uni[:, 0] = 1.0 / n
    want = torch.full((k + 1,), t * q, dtype=DT)
    want[0], want[1 + g] = p, p + (t - 1) * q
    e("F.3 Parts 1-2: c_(j1) = (p_b | p_b+(t-1)q_b, t q_b)", c1[0, j1], want)
    e("F.3 Parts 3-4: c_(j0) = (1/n | t/n) (j0 != j1)", c1[0, rest_j], uni)
    cl, fl = attend(Q, K1, X, "linear")
    e("F.10 Part 3: f_(j1 j2) = 2/(n+1)", fl[0, j1, j2], 2.0 / (n + 1))
    e("F.10 Part 4: f_(j1 i) = 1/(n+1)", fl[0, j1, rest_i], 1.0 / (n + 1))
    e("F.10 Part 5: f_(j0 i) = 1/n (j0 != j1)", fl[0, rest_j], 1.0 / n)
    want = torch.full((k + 1,), t / (n + 1), dtype=DT)
    want[0], want[1 + g] = 2.0 / (n + 1), (t + 1.0) / (n + 1)
    e("F.11 Parts 1-2: c_(j1) = (2 | t+1, t)/(n+1)", cl[0, j1], want)
    e("F.11 Parts 3-4: c_(j0) = (1/n | t/n) (j0 != j1)", cl[0, rest_j], uni)
    e("F.11: ||c_(j1)(D1)||_1 = 1 + 2/(n+1)", row_norms(cl[0])[j1], 1.0 + 2.0 / (n + 1))
    # D0 (our reading: key j2 in no group)
    S0 = att.scores(Q, K0, X.unsqueeze(0), eye)[0, 0]
    e("F.6/F.14 Parts 1-2 (D0): u_(j1 i) = b for every i", S0[j1], b)
    e("F.6/F.14 (D0, our reading): u_(j0 j2) = 0 (j0 != j1)", S0[rest_j, j2], 0.0)
    e("F.6/F.14 (D0, our reading): u_(j0 i) = b (j0 != j1, i != j2)", S0[rest_j][:, rest_i], b)
    c0, f0 = attend(Q, K0, X, "softmax")
    a0 = 1.0 + (n - 1) * math.exp(b)
    e("F.6 Part 3: row j1 of D0 is uniform, f = 1/n", f0[0, j1], 1.0 / n)
    e("F.6 Part 4: f_(j0 j2)(D0) = 1/(1+(n-1)e^b)", f0[0, rest_j, j2], 1.0 / a0)
    e("F.6 Part 4: f_(j0 i)(D0) = e^b/(1+(n-1)e^b)", f0[0][rest_j][:, rest_i], math.exp(b) / a0)
    row0 = torch.full((k + 1,), t / n, dtype=DT)          # D0's needle row: (1/n | (t-1)/n in g, t/n)
    row0[0], row0[1 + g] = 1.0 / n, (t - 1.0) / n
    e("F.7 Parts 1-2: c_(j1)(D0) = (1/n | (t-1)/n, t/n)", c0[0, j1], row0)
    rest0 = torch.full((n - 1, k + 1), t * math.exp(b) / a0, dtype=DT)
    rest0[:, 0], rest0[:, 1 + g] = 1.0 / a0, (t - 1) * math.exp(b) / a0
    e("F.7 Parts 4-5: c_(j0)(D0) = (1 | (t-1)e^b, t e^b)/(1+(n-1)e^b)", c0[0, rest_j], rest0)
    e("F.7: ||c_(j0)(D0)||_1 = 1", row_norms(c0[0]), 1.0)
    c0l, f0l = attend(Q, K0, X, "linear")
    e("F.14 Parts 3-4: f_(j1 i)(D0) = 1/n for every i", f0l[0, j1], 1.0 / n)
    e("F.14 Part 5: f_(j0 j2)(D0) = 0 (j0 != j1)", f0l[0, rest_j, j2], 0.0)
    e("F.14 Part 5: f_(j0 i)(D0) = 1/(n-1) (j0 != j1, i != j2)", f0l[0][rest_j][:, rest_i], 1.0 / (n - 1))
    e("F.15 Parts 1-2: c_(j1)(D0) = (1/n | (t-1)/n, t/n)", c0l[0, j1], row0)
    rest0l = torch.full((n - 1, k + 1), t / (n - 1.0), dtype=DT)
    rest0l[:, 0], rest0l[:, 1 + g] = 0.0, (t - 1.0) / (n - 1)
    e("F.15 Parts 3-4: c_(j0)(D0) = (0 | (t-1), t)/(n-1)", c0l[0, rest_j], rest0l)
    e("F.15: ||c_(j0)(D0)||_1 = 1", row_norms(c0l[0]), 1.0)


def closed_form_errors(construction: str, n: int, k: int, b: float, seed: int = 0,
                       swap: bool = False) -> dict[str, float]:
    """Largest absolute difference between the built attention and each closed form of the lemmas
    (one random instance). Keys name the lemma part they reconstruct. ``swap=True`` builds the two
    datasets the wrong way round (D0 where D1 is meant): the negative control of the closed forms."""
    gen = torch.Generator().manual_seed(seed)
    e = _Err()
    forms = {"toy": lambda: _toy_forms(e, n, b, gen, swap), "self-D": lambda: _selfD_forms(e, n, k, b, gen, swap),
             "self-E": lambda: _selfE_forms(e, n, k, b, gen, swap), "cross": lambda: _cross_forms(e, n, k, b, gen, swap)}
    if construction not in forms:
        raise ValueError(f"construction = {construction!r}: expected one of {sorted(forms)}")
    forms[construction]()
    return dict(e)


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
    from lib.chapters.softmax_vs_linear.constructions import network
    return float(network(rows, w, tau))


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


def check_params(P: dict) -> None:
    """The n = k t divisibility rules are constraints of the chapter's params spec (so ``python -m lib run``
    rejects bad values before papermill starts); this re-checks them for callers holding a plain dict
    (the benchmark). Raises ParameterError naming the rule."""
    from lib.core.params import load
    load("softmax-vs-linear").validate(P)


# ----------------------------------------------------------------------------------------------
# other readings of D0 (its definition is lost): does the theorems' silent half survive them?
# ----------------------------------------------------------------------------------------------
D0_READINGS = {
    "self": ("no group for the flagged token (ours)", "Type III: the flagged token's last entry is 0",
             "no flag (first column 0)", "D0 = D1 (control)"),
    "cross": ("key j2 in no group (ours)", "no key flag (first column of A2 is 0)",
              "no query flag (first column of A1 is 0)", "D0 = D1 (control)"),
}


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


def positive_rows(construction: str, n: int, k: int, delta: float = 0.0, seed: int = 0) -> dict[str, float]:
    """Linear attention with :func:`X_positive` on one built instance: the smallest score, the largest spread
    between the rows of D1 (every row attends alike: 0 up to rounding), the per-neuron firing probability on
    D1's needle row (exact, :func:`fire_prob` at τ given later: the row itself is returned) and the largest
    row norm on D0 (every readout is silent on D0 iff it is below τ)."""
    gen = torch.Generator().manual_seed(seed)
    X = X_positive(construction, k, delta)
    if construction == "cross":
        Q, K0, K1, j1, *_ = cross_pair(1, n, k + 1, gen)
        p0, p1, row = (Q, K0), (Q, K1), int(j1[0])
    else:
        A0, A1, j, _ = self_pair(1, n, k, gen)
        p0, p1, row = (A0, A0), (A1, A1), int(j[0])
    S = torch.cat([p[0][0] @ X @ p[1][0].T for p in (p0, p1)])
    c1, c0 = attend(*p1, X, "linear")[0][0], attend(*p0, X, "linear")[0][0]
    return {"min_score": float(S.min()), "spread": float((c1 - c1[row]).abs().max()),
            "c_needle": c1[row].numpy(), "d0_norm": float(row_norms(c0).max())}
