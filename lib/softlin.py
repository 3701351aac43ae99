"""Softmax vs linear attention (Deng, Song, Zhou, Yuan, arXiv 2310.11685): the chapter's machinery.

The paper's copy we have lost every formula, so the datasets and weights below are a *reconstruction*
from the proofs' surviving structure (see the chapter's opening section and the research note). Every
function states which object of the paper it rebuilds.

Notation (the paper's, mapped onto :mod:`lib.attention`):

* inputs ``A1 ∈ R^{n×d}`` (queries) and ``A2 ∈ R^{n×d}`` (keys = values); self-attention is ``A1 = A2``;
* the combined parameter ``X = Q K^T ∈ R^{d×d}``; value matrix ``V = I_d``;
* ``Att_exp = D^{-1} exp(A1 X A2^T) A2`` and ``Att_lin = D_lin^{-1} (A1 X A2^T) A2``.

In ``lib.attention`` this is one head with ``W_Q = X``, ``W_K = W_V = I_d`` and ``score_map`` =
``"softmax"`` or ``"linear"``: :func:`attend` does exactly that, batched over any leading dimensions
(a family of R random models is a leading dimension of size R).

The network (layers 1-4 of the paper: scores, normalisation, aggregation, ReLU readout) is
``F(A1, A2) = Σ_{j0 ∈ [n]} Σ_{r ∈ [m]} φ_τ(<w_r, c_{j0,*}>)`` with ``c = Att(A1, A2)``, ``φ_τ(z) = max(z-τ, 0)``
and ``W = [w_1 … w_m] ∈ {±1}^{d×m}`` i.i.d. Rademacher (:func:`network`).

Everything runs in float64 on the CPU with one thread: the matrices are small and the Monte-Carlo
families are batched.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch
from torch import Tensor

from lib import attention as att

DT = torch.float64


# ----------------------------------------------------------------------------------------------
# attention and network
# ----------------------------------------------------------------------------------------------
def attend(A1: Tensor, A2: Tensor, X: Tensor, kind: str) -> tuple[Tensor, Tensor]:
    """``(c, f)``: ``c = f A2`` (V = I) and the normalised weights ``f = φ(A1 X A2^T)``.

    ``A1 [..., n_q, d]``, ``A2 [..., n, d]``, ``X [..., d, d]`` (broadcast); ``kind`` is ``"softmax"``
    or ``"linear"``. Returns ``c [..., n_q, d]`` and ``f [..., n_q, n]``."""
    d = A1.shape[-1]
    eye = torch.eye(d, dtype=A1.dtype, device=A1.device).unsqueeze(0)      # [H=1, d, d]
    out, w = att.attention(A1, A2, X.unsqueeze(-3), eye, eye, None, score_map=kind, return_weights=True)
    return out, w.squeeze(-3)


def network(c: Tensor, W: Tensor, tau: float) -> Tensor:
    """``F = Σ_{j0, r} φ_τ(<w_r, c_{j0}>)`` for ``c [..., n, d]`` and ``W [..., d, m]``: shape ``[...]``."""
    return torch.relu(c @ W - tau).sum(dim=(-1, -2))


def rademacher(shape: Sequence[int], gen: torch.Generator) -> Tensor:
    """I.i.d. ±1 entries (Definition 3.7)."""
    return (torch.randint(0, 2, tuple(shape), generator=gen) * 2 - 1).to(DT)


def paper_four_step(A1: np.ndarray, A2: np.ndarray, X: np.ndarray, kind: str) -> np.ndarray:
    """The paper's Definitions C.1/C.4, written out row by row with the tensor trick (Fact A.1):
    ``u_{j0} = exp(𝖠_{j0} x)`` (or ``𝖠_{j0} x``), ``α_{j0} = <u_{j0}, 1_n>``, ``f_{j0} = u_{j0}/α_{j0}`` and
    ``c_{j0, i0} = <f_{j0}, (A2 V)_{*, i0}>`` with ``𝖠 = A1 ⊗ A2``, ``x = vec(X)`` (row-major) and V = I.
    Plain numpy, deliberately independent of :func:`attend`, to check it."""
    n = A1.shape[0]
    big = np.kron(A1, A2)                      # [n^2, d^2]
    x = X.reshape(-1)
    c = np.empty((n, A2.shape[1]))
    for j0 in range(n):
        block = big[j0 * n:(j0 + 1) * n]       # the j0-th block 𝖠_{j0} ∈ R^{n×d^2}
        s = block @ x
        u = np.exp(s - s.max()) if kind == "softmax" else s   # exp(s)/Σexp(s) is shift-invariant
        f = u / u.sum()
        c[j0] = f @ A2
    return c


# ----------------------------------------------------------------------------------------------
# the reconstructed datasets (one pair D0/D1 per random model; batched over R models)
# ----------------------------------------------------------------------------------------------
def _groups(R: int, n: int, k: int, gen: torch.Generator) -> Tensor:
    """Group one-hots ``B [R, n, k]``: each of the k columns is t = n/k sparse, rows in random order."""
    t = n // k
    base = torch.arange(k).repeat_interleave(t)
    g = torch.stack([base[torch.randperm(n, generator=gen)] for _ in range(R)])
    return torch.nn.functional.one_hot(g, k).to(DT)


def toy_pair(R: int, n: int, b: float, gen: torch.Generator) -> tuple[Tensor, Tensor, Tensor]:
    """Definition 3.8 (reconstructed): D0 has every score b, D1 has one index j with score 2b.
    Returns ``x0, x1 [R, n]`` and ``j [R]``."""
    j = torch.randint(0, n, (R,), generator=gen)
    x0 = torch.full((R, n), b, dtype=DT)
    x1 = x0.clone()
    x1[torch.arange(R), j] = 2 * b
    return x0, x1, j


def self_pair(R: int, n: int, k: int, gen: torch.Generator) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Definition D.1 (reconstructed): ``A = [e_j | B | 1_n] ∈ R^{n×(k+2)}`` (Type I, II, III columns);
    in D0 the flagged token j belongs to no group (row j of B is zero). Returns ``A0, A1, j, g`` (g the
    flagged token's group in D1)."""
    B = _groups(R, n, k, gen)
    j = torch.randint(0, n, (R,), generator=gen)
    r = torch.arange(R)
    g = B[r, j].argmax(-1)
    flag = torch.nn.functional.one_hot(j, n).to(DT).unsqueeze(-1)
    ones = torch.ones(R, n, 1, dtype=DT)
    A1 = torch.cat([flag, B, ones], -1)
    B0 = B.clone()
    B0[r, j] = 0
    A0 = torch.cat([flag, B0, ones], -1)
    return A0, A1, j, g


def X_self(k: int, b: float, variant: str) -> Tensor:
    """Section D's ``X_D = b (e_1 e_1^T + e_d e_d^T)`` (flag and bias only) or Appendix E's ``X_E = b I_d``."""
    d = k + 2
    if variant == "D":
        X = torch.zeros(d, d, dtype=DT)
        X[0, 0] = X[-1, -1] = b
        return X
    if variant == "E":
        return b * torch.eye(d, dtype=DT)
    raise ValueError(f"variant = {variant!r}: expected 'D' or 'E'")


def cross_pair(R: int, n: int, d: int, gen: torch.Generator):
    """Definition F.1 (reconstructed): ``A1 = [e_{j1} | 1_{n×k}]``, ``A2 = [e_{j2} | B]`` with k = d-1 groups;
    in D0 the key j2 belongs to no group. Returns ``Q, K0, K1, j1, j2, g``."""
    k = d - 1
    B = _groups(R, n, k, gen)
    j1 = torch.randint(0, n, (R,), generator=gen)
    j2 = torch.randint(0, n, (R,), generator=gen)
    r = torch.arange(R)
    g = B[r, j2].argmax(-1)
    Q = torch.cat([torch.nn.functional.one_hot(j1, n).to(DT).unsqueeze(-1), torch.ones(R, n, k, dtype=DT)], -1)
    e2 = torch.nn.functional.one_hot(j2, n).to(DT).unsqueeze(-1)
    K1 = torch.cat([e2, B], -1)
    B0 = B.clone()
    B0[r, j2] = 0
    K0 = torch.cat([e2, B0], -1)
    return Q, K0, K1, j1, j2, g


def X_cross(d: int, b: float) -> Tensor:
    """Appendix F's combined parameter ``X = b I_d`` (reconstructed)."""
    return b * torch.eye(d, dtype=DT)


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
        z = sum(v * (2 * kk - s) for v, kk, s in zip(vals, ks, counts))
        if z > tau:
            total += math.prod(math.comb(s, kk) / 2.0 ** s for kk, s in zip(ks, counts))
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
# Monte Carlo: the paper's event E counted over R random models
# ----------------------------------------------------------------------------------------------
@dataclass
class Counts:
    """Per random model: E (the four-way event), and the four network outputs' firing indicators."""
    E: int
    exp1: int     # F_exp(D1) > 0
    exp0: int     # F_exp(D0) > 0
    lin1: int     # F_lin(D1) > 0
    lin0: int     # F_lin(D0) > 0
    sep: int      # F_exp(D1) > 0 and F_exp(D0) = 0: the 'exp' network alone separates
    R: int


def _count(F: dict[str, Tensor]) -> Counts:
    fire = {k: v > 0 for k, v in F.items()}
    E = fire["exp1"] & ~fire["exp0"] & ~fire["lin1"] & ~fire["lin0"]
    sep = fire["exp1"] & ~fire["exp0"]
    return Counts(int(E.sum()), *(int(fire[k].sum()) for k in ("exp1", "exp0", "lin1", "lin0")),
                  sep=int(sep.sum()), R=len(E))


def _chunks(R: int, per: int) -> list[int]:
    out = [per] * (R // per)
    return out + ([R % per] if R % per else [])


def mc_toy(n: int, b: float, m: int, tau: float, R: int, seed: int) -> Counts:
    """Toy model (Sections 3-5): ``F(x) = Σ_r φ_τ(<w_r, f(x)>)``, W ∈ {±1}^{n×m}, R random models."""
    gen = torch.Generator().manual_seed(seed)
    F: dict[str, list[Tensor]] = {k: [] for k in ("exp1", "exp0", "lin1", "lin0")}
    for Rc in _chunks(R, max(1, 2_000_000 // (n * m))):
        x0, x1, _ = toy_pair(Rc, n, b, gen)
        W = rademacher((Rc, n, m), gen)
        for name, x in (("0", x0), ("1", x1)):
            for kind, tag in (("softmax", "exp"), ("linear", "lin")):
                f = att.normalize(x.unsqueeze(-2), kind)              # [Rc, 1, n]: one attention row
                F[tag + name].append(network(f, W, tau))
    return _count({k: torch.cat(v) for k, v in F.items()})


def mc_pairs(construction: str, n: int, k: int, b: float, m: int, tau: float, R: int, seed: int,
             X: Tensor | None = None, kinds: tuple[str, str] = ("softmax", "linear")) -> Counts:
    """Self-attention ('self-D', 'self-E') or cross-attention ('cross') with k groups: R random models
    (random W, needle position and group assignment each), counted as in the paper's Section 7.
    ``X`` overrides the construction's combined parameter (for the counter-check); ``kinds`` names the
    maps used for the 'exp' and 'lin' networks (both 'linear' in the counter-check)."""
    gen = torch.Generator().manual_seed(seed)
    d = k + 1 if construction == "cross" else k + 2
    if X is None:
        X = X_cross(d, b) if construction == "cross" else X_self(k, b, construction[-1])
    F: dict[str, list[Tensor]] = {k_: [] for k_ in ("exp1", "exp0", "lin1", "lin0")}
    for Rc in _chunks(R, max(1, 4_000_000 // (n * n))):
        if construction == "cross":
            Q, K0, K1, *_ = cross_pair(Rc, n, d, gen)
            data = {"0": (Q, K0), "1": (Q, K1)}
        else:
            A0, A1, *_ = self_pair(Rc, n, k, gen)
            data = {"0": (A0, A0), "1": (A1, A1)}
        W = rademacher((Rc, d, m), gen)
        eye = torch.eye(d, dtype=DT).unsqueeze(0)
        for name, (a1, a2) in data.items():
            S = att.scores(a1, a2, X.unsqueeze(-3), eye)            # shared by both maps
            for kind, tag in zip(kinds, ("exp", "lin")):
                c = att.normalize(S, kind).squeeze(-3) @ a2          # = attend(a1, a2, X, kind)[0]
                F[tag + name].append(network(c, W, tau))
    return _count({k_: torch.cat(v) for k_, v in F.items()})


def binom_ok(count: int, R: int, p: float, z: float = 4.0) -> bool:
    """``count`` within ``z`` binomial standard deviations of ``R p`` (plus 1 for the integer grid)."""
    return abs(count - R * p) <= z * math.sqrt(R * p * (1 - p)) + 1.0


def sweep(fn: Callable[..., Counts], grid: Sequence, key: str, base: dict, seed: int) -> list[Counts]:
    """Run ``fn(**base, key=v)`` for each v of ``grid`` with the seed ``seed + 1000·i`` (reproducible)."""
    return [fn(**{**base, key: v}, seed=seed + 1000 * i) for i, v in enumerate(grid)]


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


# ----------------------------------------------------------------------------------------------
# beyond the paper: a learned comparison on a needle task
# ----------------------------------------------------------------------------------------------
def needle_batch(G: int, B: int, n: int, K: int, sigma: float, gen: torch.Generator,
                 dtype: torch.dtype = torch.float32) -> tuple[Tensor, Tensor]:
    """The needle task: n tokens, each the one-hot of a symbol drawn uniformly from {1..K-1} plus
    Gaussian noise of std ``sigma``; with probability 1/2 one random token is replaced by the needle
    symbol 0 (label 1), otherwise there is no needle (label 0). Shapes ``x [G, B, n, K]``, ``y [G, B]``."""
    sym = torch.randint(1, K, (G, B, n), generator=gen)
    y = torch.randint(0, 2, (G, B), generator=gen)
    pos = torch.randint(0, n, (G, B, 1), generator=gen)
    with_needle = sym.scatter(2, pos, 0)
    sym = torch.where(y.bool().unsqueeze(-1), with_needle, sym)
    x = torch.nn.functional.one_hot(sym, K).to(dtype)
    x = x + sigma * torch.randn(x.shape, generator=gen, dtype=dtype)
    return x, y.to(dtype)


def train_needle(kind: str, n: int, *, seeds: int, steps: int, batch: int, lr: float, K: int = 8,
                 d_k: int = 8, sigma: float = 0.1, test: int = 1000, seed: int = 0,
                 device: torch.device | str = "cpu") -> dict[str, np.ndarray]:
    """Train ``seeds`` independent one-layer attention classifiers at once (a family: leading dim G).

    Model: a learned query ``q`` attends over the n tokens with ``lib.attention`` (one head,
    ``W_Q, W_K ∈ R^{K×d_k}``, ``W_V ∈ R^{K×K}``, score map ``kind``); the output goes through a linear
    readout ``logit = <r, o> + β``. Adam on the binary cross-entropy, fresh batches every step, the
    same data stream and initialisation for both maps (same ``seed``). Returns the test accuracy per
    model, the final training loss, and whether the model's parameters stayed finite."""
    dt = torch.float32
    gen = torch.Generator().manual_seed(seed)
    G = seeds
    W = att.init_weights(1, K, d_k, K, family=(G, 1), generator=gen, dtype=dt)
    q = torch.randn(G, 1, 1, K, generator=gen, dtype=dt)
    r = torch.randn(G, 1, K, 1, generator=gen, dtype=dt) / K ** 0.5
    beta = torch.zeros(G, 1, dtype=dt)
    params = [W["W_Q"], W["W_K"], W["W_V"], q, r, beta]
    params = [p.to(device).requires_grad_(True) for p in params]
    WQ, WK, WV, q, r, beta = params
    opt = torch.optim.Adam(params, lr=lr)

    def logits(x: Tensor) -> Tensor:
        o = att.attention(q.expand(G, x.shape[1], 1, K), x, WQ, WK, WV, None, score_map=kind)
        return (o @ r).squeeze(-1).squeeze(-1) + beta

    loss = torch.zeros(G)
    for _ in range(steps):
        x, y = needle_batch(G, batch, n, K, sigma, gen, dt)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            logits(x.to(device)), y.to(device), reduction="none").mean(1)
        opt.zero_grad()
        loss.nan_to_num(0.0).sum().backward()
        for p in params:          # a diverged model (non-finite) stays diverged; it must not poison the rest
            if p.grad is not None:
                p.grad.nan_to_num_(0.0, 0.0, 0.0)
        opt.step()
    with torch.no_grad():
        x, y = needle_batch(G, test, n, K, sigma, gen, dt)
        z = logits(x.to(device)).cpu()
        acc = ((z > 0).to(dt) == y).to(dt).mean(1)
        finite = torch.stack([torch.isfinite(p.detach().cpu()).reshape(G, -1).all(1) for p in params]).all(0)
    return {"acc": acc.numpy().astype(float), "loss": loss.detach().cpu().numpy().astype(float),
            "finite": finite.numpy()}


# ----------------------------------------------------------------------------------------------
# the figure analogues: one panel = one swept parameter, counted over R random models per point
# ----------------------------------------------------------------------------------------------
@dataclass
class Panel:
    """One swept parameter of a Fig 3/4/5/7 analogue, with the exact theory at every point."""
    construction: str
    key: str                   # the swept parameter: 'n', 'k' (self) / 'd' (cross), 'b', 'm', 'tau'
    xs: list
    counts: list[Counts]
    theory: np.ndarray         # exact P(E) where it is known (tau > tau_rest), NaN elsewhere
    zero: np.ndarray           # the needle row cannot reach tau at all (P(E) = 0 exactly)
    in_window: np.ndarray      # tau_lo < tau < tau_hi: the theorem's regime, P(E) = 1 - (1 - 2^-s)^m
    rest_silent: np.ndarray    # tau > tau_rest: linear and D0 can never fire
    R: int

    @property
    def E(self) -> np.ndarray:
        return np.array([c.E for c in self.counts])

    @property
    def lin_fires(self) -> np.ndarray:
        """Models in which the linear network fired on D0 or D1 (at most the sum of the two counts)."""
        return np.array([max(c.lin0, c.lin1) for c in self.counts])

    def agree(self, z: float = 4.0) -> np.ndarray:
        """Per point: the count matches the exact theory (binomial, z sd; exactly 0 where P = 0)."""
        out = np.ones(len(self.xs), bool)
        for i, (c, p) in enumerate(zip(self.counts, self.theory)):
            if self.zero[i]:
                out[i] = c.E == 0
            elif not np.isnan(p):
                out[i] = binom_ok(c.E, self.R, float(p), z)
        return out

    def linear_silent(self) -> bool:
        """Linear attention never fired (on D0 or D1) at any point where the window says it cannot."""
        return bool(all(c.lin0 == 0 and c.lin1 == 0 for c, s in zip(self.counts, self.rest_silent) if s))


def run_panel(construction: str, key: str, grid: Sequence, base: dict, R: int, seed: int) -> Panel:
    """Sweep ``key`` over ``grid`` with the other parameters in ``base`` (n, k, m, tau, b_offset; b is
    ``ln n + b_offset`` unless swept). For cross-attention the swept dimension is d = k + 1."""
    counts, theory, zero, inwin, silent = [], [], [], [], []
    for i, v in enumerate(grid):
        p = dict(base)
        if key == "d":
            p["k"] = int(v) - 1
        else:
            p[key] = v
        n, k, m, tau = int(p["n"]), int(p["k"]), int(p["m"]), float(p["tau"])
        b = float(p["b"]) if key == "b" else math.log(n) + float(p["b_offset"])
        counts.append(mc_pairs(construction, n, k, b, m, tau, R, seed + 1000 * i))
        w = window(construction, n, k, b)
        p1 = w.p1(tau)
        silent.append(tau > w.tau_rest)
        theory.append(p_success(p1, m) if tau > w.tau_rest else np.nan)
        zero.append(tau >= w.tau_top)
        inwin.append(w.tau_lo < tau < w.tau_hi)
    return Panel(construction, key, list(grid), counts, np.array(theory), np.array(zero), np.array(inwin),
                 np.array(silent), R)


def toy_panel(key: str, grid: Sequence, base: dict, R: int, seed: int) -> Panel:
    """Fig 3 analogue: sweep n or m of the toy model; the theory is :func:`toy_theory` (exact)."""
    counts, theory = [], []
    for i, v in enumerate(grid):
        p = {**base, key: v}
        n, m, tau = int(p["n"]), int(p["m"]), float(p["tau"])
        b = math.log(n) + float(p["b_offset"])
        counts.append(mc_toy(n, b, m, tau, R, seed + 1000 * i))
        theory.append(toy_theory(n, b, m, tau))
    z = np.zeros(len(grid), bool)
    return Panel("toy", key, list(grid), counts, np.array(theory), z, ~z, z, R)


LABELS = {"n": "sequence length $n$", "k": "groups $k$ ($d = k+2$)", "d": "feature dimension $d$",
          "b": "score scale $b$", "m": "readout width $m$", "tau": r"threshold $\tau$"}


def plot_panels(panels: Sequence[Panel], title: str, ncols: int = 3, width: float = 3.4, height: float = 2.8):
    """Panels in rows of ``ncols``: our count of E out of R models (blue), the exact theory R·P(E) of the
    reconstruction (dashed black), the models in which linear attention fired (red crosses), and the
    points inside the theorem's window (green ticks). Returns ``(fig, axes)``; the caller's cell shows it."""
    from lib import plots
    nrows = -(-len(panels) // ncols)
    fig, axes = plots.subplots(nrows, min(ncols, len(panels)), width=width, height=height)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    for ax, pn in zip(axes, panels):
        x = np.asarray(pn.xs, float)
        plots.paper_vs_ours(ax, x, pn.E, paper=None, label="ours: # of E")
        ax.plot(x, pn.R * pn.theory, color="black", linestyle="--", marker="s", markerfacecolor="none",
                label="exact theory (reconstruction)")
        ax.plot(x, pn.lin_fires, color="#cf222e", marker="x", linestyle="none", label="# linear net fired")
        inw = x[pn.in_window] if pn.construction != "toy" else x[:0]
        if len(inw):
            ax.scatter(inw, np.full(len(inw), -0.05 * pn.R), marker="|", color="#1a7f37", s=80,
                       label="inside the theorem's window")
        if pn.key in ("n", "m") and x.max() / max(x.min(), 1e-9) > 20:
            ax.set_xscale("log")
        ax.set_xlabel(LABELS[pn.key])
        ax.set_ylim(-0.1 * pn.R, 1.08 * pn.R)
        ax.set_ylabel(f"count out of {pn.R}")
    axes[0].legend(fontsize=7, loc="center right")
    fig.suptitle(title + " — the paper's plotted values are lost from our copy, so no paper overlay",
                 fontsize=9)
    return fig, axes


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


def sampled_fire_rate(c_row: np.ndarray, tau: float, N: int, seed: int) -> float:
    """Frequency of ``<w, c_row> > τ`` over N random sign vectors (the '1/8' and '1/4' of D.4 and F.4)."""
    gen = torch.Generator().manual_seed(seed)
    w = rademacher((N, len(c_row)), gen)
    return float(((w @ torch.as_tensor(c_row, dtype=DT)) > tau).to(DT).mean())


def check_params(P: dict) -> None:
    """Divisibility rules the params spec cannot express (n = k t): raise ParameterError naming them."""
    from lib.params import ParameterError
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
