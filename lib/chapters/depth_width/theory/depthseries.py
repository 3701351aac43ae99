"""Depth-efficiency measured on the network itself (Levine et al. 2020, Lemma 6, Theorem 1), exactly over GF(p).

Three evidence sweeps of exact computations (:mod:`lib.chapters.depth_width.evidence`: ``lemma6``, ``rank-series``,
``width-points``), run by ``python -m lib evidence depth-width`` through :func:`lemma6_points` and
:func:`series_points` into the evidence store and read back by :func:`lib.chapters.depth_width.claims.series.section2b`
(the notebook never recomputes them):

(a) **Lemma 6's construction.** The weights and templates of the proof of Lemma 6 (App. B.2, eqs. 28–54), put
    into the analysed network (eq. 3) and run layer by layer; the ``M/2 × M/2`` sub-block of the grid tensor
    (position 1 of I over the row templates, position 1 of J over the column templates, every other position
    pinned to template ``M+1``, eqs. 29–30) must equal ``Const · (V Vᵀ)^{⊙λ}``, ``λ = 3^{L−2}`` (eq. 28), and its
    rank must be ``((d, λ))``, ``d = (d_x − H)/2`` (B.2, the source of Theorem 1's lower bound).
(b) **An exact depth series at N = 4** (:func:`lib.chapters.depth_width.theory.seprank.sep_rank`, generic weights).
(c) **The width a shallower network needs** to reach a deeper one's exact rank (:func:`min_width_row`), from
    the measured ranks of (b) and of the widths the L = 2 closed form names (:func:`width_candidates`).

GF(p) stands in for ℂ: the construction's complex unit ``𝐢`` is a square root of −1 mod p (p ≡ 1 mod 4) and
the unit-norm rows of V are drawn on the sphere ``Σ v_r² = 1`` of GF(p)^d (the lemma holds for *any* V with
unit-norm rows; the proof's Ω-power rows of B.2 need square roots that GF(p) lacks, and their Hadamard rank is
checked over the integers elsewhere, ``seprank.hadamard_power_rank``). Index conventions (0-based): with
``m = (d_a − 1)/2``, segment h holds coordinates ``h d_a … h d_a + d_a − 1``; offsets ``0 … m−1`` carry the
row template's V entries, ``m … 2m−1`` the column template's, offset ``2m`` the constant 1. The paper's
``φ(j)`` strides by ``d_a − 1`` per segment while V has ``m`` columns per head; we stride by ``m``.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass
from typing import Callable

import numpy as np
import torch
from torch import Tensor

from lib.chapters.depth_width.theory import seprank
from lib.chapters.depth_width.theory.bounds import multiset, ours_closed_form

P = seprank.PRIME


# ---------------------------------------------------------------------------------------------
# GF(p) helpers: √−1 and square roots (Tonelli–Shanks), unit-norm rows
# ---------------------------------------------------------------------------------------------
def sqrt_mod(a: int, p: int = P) -> int | None:
    """A square root of ``a`` mod the odd prime p (Tonelli–Shanks), or None when a is a non-residue."""
    a %= p
    if a == 0:
        return 0
    if pow(a, (p - 1) // 2, p) != 1:
        return None
    q, s = p - 1, 0
    while q % 2 == 0:
        q, s = q // 2, s + 1
    z = next(z for z in range(2, p) if pow(z, (p - 1) // 2, p) == p - 1)
    m, c, t, r = s, pow(z, q, p), pow(a, q, p), pow(a, (q + 1) // 2, p)
    while t != 1:
        i, t2 = 1, t * t % p
        while t2 != 1:
            t2, i = t2 * t2 % p, i + 1
        b = pow(c, 1 << (m - i - 1), p)
        m, c, t, r = i, b * b % p, t * b * b % p, r * b % p
    return r


I_UNIT = sqrt_mod(P - 1)          # 𝐢 = √−1 in GF(p) (exists since p ≡ 1 mod 4)


def unit_rows(n: int, d: int, rng: np.random.Generator, p: int = P, norm: bool = True) -> np.ndarray:
    """``n × d`` matrix over GF(p) whose rows satisfy ``Σ_r v_r² = 1`` (Lemma 6's l²-normalised rows): the first
    d − 1 entries uniform, the last ``√(1 − Σ)`` (redrawn while 1 − Σ is a non-residue). ``norm=False`` gives
    uniform rows (the control: Lemma 6 without its normalisation)."""
    V = np.zeros((n, d), dtype=np.int64)
    for r in range(n):
        while True:
            row = rng.integers(0, p, d)
            if not norm:
                break
            rest = sqrt_mod(1 - sum(int(x) * int(x) for x in row[:-1]), p)
            if rest is not None:
                row[-1] = rest
                break
        V[r] = row
    return V


# ---------------------------------------------------------------------------------------------
# Lemma 6: weights and templates
# ---------------------------------------------------------------------------------------------
def lemma6_weights(d_x: int, L: int, H: int, N: int, p: int = P) -> seprank.Weights:
    """The weight assignment of Lemma 6's proof (App. B.2), as GF(p) tensors ``W^Q, W^K, W^V`` [L, H, d_a, d_x]
    and ``W^O`` [L, H, d_x, d_a]. Layer 1: ``W^Q = W^K`` read the constant coordinate of segment 0, ``W^V``
    (×1/N) forms ``a + 𝐢 b`` on offsets < m, its complement ``1 − (a + 𝐢 b)`` on offsets m…2m−1 and 1 at 2m;
    layer 2: ``W^Q = W^K`` project the first half of segment h; layers > 2: row 0 sums every non-constant
    coordinate; layers 1 < l < L: ``W^V`` projects segment h; layer L: every row of ``W^V`` is 𝐢 at coordinate
    d_a − 1; ``W^O`` puts the d_a rows back on segment h. Needs L ≥ 2, H | d_x and d_a = d_x/H odd."""
    da = d_x // H
    if L < 2 or d_x % H or da % 2 == 0 or da < 3:
        raise ValueError(f"Lemma 6 needs L ≥ 2 and d_a = d_x/H odd ≥ 3 (d_x={d_x}, H={H}, L={L})")
    m, inv_n, i_ = (da - 1) // 2, pow(N, p - 2, p), I_UNIT
    WQ, WV = np.zeros((L, H, da, d_x), np.int64), np.zeros((L, H, da, d_x), np.int64)
    WO = np.zeros((L, H, d_x, da), np.int64)
    for h in range(H):
        s = h * da
        for o in range(m):                                   # layer 1's W^V (eq. after "assignment")
            WV[0, h, o, s + o], WV[0, h, o, s + m + o] = inv_n, i_ * inv_n % p
            WV[0, h, m + o, s + o], WV[0, h, m + o, s + m + o] = p - inv_n, (p - i_) * inv_n % p
        WV[0, h, m:, s + da - 1] = inv_n
        WQ[0, h, 0, da - 1] = 1                              # W^{Q,1,h} = W^{K,1,h} = 1_{i=1 ∧ j=d_a}
        for o in range(m):
            WQ[1, h, o, s + o] = 1                           # W^{Q,2,h} = W^{K,2,h}: first half of segment h
        for l in range(2, L):
            WQ[l, h, 0, [j for j in range(d_x) if (j + 1) % da]] = 1
        for l in range(1, L - 1):
            WV[l, h, np.arange(da), s + np.arange(da)] = 1   # 1 < l < L: project segment h
        WV[L - 1, h, :, da - 1] = i_                         # W^{V,L,h} = 𝐢 · 1_{j = d_a}
        WO[:, h, s + np.arange(da), np.arange(da)] = 1
    t = lambda a: torch.from_numpy(a % p).to(torch.float64)
    return seprank.Weights(t(WQ), t(WQ.copy()), t(WV), t(WO))


def lemma6_templates(V: np.ndarray, d_x: int, H: int, p: int = P) -> tuple[Tensor, Tensor, Tensor]:
    """The templates of Lemma 6: row templates ``x^(1..M/2)`` carry row r of V on offsets < m of each segment,
    column templates ``x^(M/2+1..M)`` carry it on offsets m…2m−1, every template (and the pinned
    ``x^(M+1)``) has 1 at offset 2m. V: [M/2, d], d = H m. Returns (rows [M/2, d_x], cols, pinned [d_x])."""
    da = d_x // H
    m = (da - 1) // 2
    R = V.shape[0]
    rows, cols, pin = np.zeros((R, d_x), np.int64), np.zeros((R, d_x), np.int64), np.zeros(d_x, np.int64)
    for h in range(H):
        s = h * da
        rows[:, s:s + m] = V[:, h * m:(h + 1) * m]
        cols[:, s + m:s + 2 * m] = V[:, h * m:(h + 1) * m]
        rows[:, s + da - 1] = cols[:, s + da - 1] = pin[s + da - 1] = 1
    t = lambda a: torch.from_numpy(a % p).to(torch.float64)
    return t(rows), t(cols), t(pin)


def lemma6_block(W: seprank.Weights, rows: Tensor, cols: Tensor, pin: Tensor, N: int, coord: int = 0,
                 p: int = P, chunk: int = 1 << 15) -> np.ndarray:
    """The sub-block of eqs. 29–30: ``B[r, c] = y_coord`` at position 1 of the network run layer by layer (eq. 3,
    ``seprank.raw_network_modp``) on ``X = (x^(r), pin, …, pin | x^(c), pin, …, pin)`` (I = first N/2 positions).
    rows, cols: [R, d_x]; returns int64 [R, R]."""
    R, d = rows.shape
    mask = torch.ones(N, N, dtype=torch.float64)            # full attention: eq. 3 through the K^T Q form
    out = np.empty((R, cols.shape[0]), np.int64)
    per = max(1, chunk // cols.shape[0])
    for r0 in range(0, R, per):
        r1 = min(R, r0 + per)
        X = pin.expand(r1 - r0, cols.shape[0], N, d).clone()
        X[:, :, 0] = rows[r0:r1, None]
        X[:, :, N // 2] = cols[None]
        Y = seprank.raw_network_modp(W, X.reshape(-1, N, d).transpose(1, 2), p=p, mask=mask)
        out[r0:r1] = Y[:, coord, 0].reshape(r1 - r0, -1).numpy().astype(np.int64)
    return out


def hadamard_gram(V: np.ndarray, lam: int, p: int = P) -> np.ndarray:
    """``(V Vᵀ)^{⊙λ}`` over GF(p) (eq. 28's right-hand side, up to the constant). V: [R, d] → [R, R]."""
    G = np.zeros((V.shape[0], V.shape[0]), np.int64)
    for r in range(V.shape[1]):                              # exact: products < p², sums reduced each step
        G = (G + np.outer(V[:, r], V[:, r]) % p) % p
    return np.vectorize(lambda g: pow(int(g), lam, p), otypes=[np.int64])(G) if lam > 1 else G


def proportional(B: np.ndarray, G: np.ndarray, p: int = P) -> bool:
    """Is B = c · G over GF(p) for one c ≠ 0 (eq. 28's 'Const.')? Cross-multiplied at a pivot entry."""
    k = np.flatnonzero(G)
    if k.size == 0 or B.flat[k[0]] == 0:
        return False
    b0, g0 = int(B.flat[k[0]]), int(G.flat[k[0]])
    return bool(np.array_equal((B.astype(object) * g0) % p, (G.astype(object) * b0) % p))


@dataclass
class Lemma6Point:
    d_x: int
    L: int
    H: int
    N: int
    d: int          # columns of V used (the lemma's d = (d_x − H)/2, or fewer: V supported on d of them)
    lam: int        # 3^{L−2}
    size: int       # rows (and columns) of the measured block: ((d, λ)) + extra
    rank: int       # exact rank of the network's sub-block
    predicted: int  # ((d, λ))
    proportional: bool   # sub-block == Const · (V Vᵀ)^{⊙λ}
    rank_unnormalised: int   # control: the same measurement with V's rows not normalised
    rank_lambda_minus_1: int  # control: rank of (V Vᵀ)^{⊙(λ−1)} on the same V (the wrong template power)
    cpu_s: float


def lemma6_point(d_x: int, L: int, N: int = 4, H: int = 1, d_used: int | None = None, extra: int = 16,
                 seed: int = 0) -> Lemma6Point:
    """Measure Lemma 6 on the network: build the weights, draw V ([((d, λ)) + extra, d], unit-norm rows, zero
    outside its first ``d_used`` columns), run the network on the sub-block and take its exact rank. The block
    has ``extra`` rows and columns more than ((d, λ)), so the rank must both reach ((d, λ)) (Lemma 6 + B.2: the
    lower bound) and stop there (a Hadamard λ-power of a rank-d matrix). Controls: the same block with V's rows
    not normalised (then ``‖ṽ‖² = n_r − n_c + 2𝐢 (VVᵀ)_rc`` is no Hadamard power of a rank-d matrix), and the
    wrong template power λ − 1 on the same V. ``d = (d_x − H)/2`` unless ``d_used`` is smaller."""
    t0 = time.process_time()
    d_full, lam = (d_x - H) // 2, 3 ** (L - 2)
    d = d_full if d_used is None else d_used
    size = multiset(d, lam)
    R = size + extra
    rng = np.random.default_rng(seprank.hash_seed(seed, 6, d_x, L, H, N, d))
    W = lemma6_weights(d_x, L, H, N)
    ranks, prop = [], False
    for norm in (True, False):
        V = np.zeros((R, d_full), np.int64)
        V[:, :d] = unit_rows(R, d, rng, norm=norm)
        B = lemma6_block(W, *lemma6_templates(V, d_x, H), N)
        ranks.append(seprank.rank_modp(B))
        if norm:
            G = hadamard_gram(V, lam)
            prop, r_wrong = proportional(B, G), seprank.rank_modp(hadamard_gram(V, lam - 1)) if lam > 1 else 0
    return Lemma6Point(d_x, L, H, N, d, lam, R, ranks[0], size, prop, ranks[1], r_wrong,
                       time.process_time() - t0)


# ---------------------------------------------------------------------------------------------
# (b) the exact depth series and (c) the width a shallower network needs
# ---------------------------------------------------------------------------------------------
def series_point(d_x: int, L: int, N: int = 4, H: int = 1, K0: int = 64, K_max: int = 6144) -> dict:
    """One exact separation rank (``seprank.sep_rank``: generic weights, K grown until rank < K, a second draw
    re-measured at rank + 8) as a JSON-ready dict, with the process CPU-seconds it took."""
    t0 = time.process_time()
    r = seprank.sep_rank(d_x, L, H, N, K0=K0, K_max=K_max, seeds=2)
    return dict(d_x=d_x, L=L, H=H, N=N, rank=r.rank, ranks=r.ranks_per_seed, K=r.K, K_check=r.K_check,
                converged=r.converged, cpu_s=round(time.process_time() - t0, 2))


def min_width_row(target: int, L_deep: int, d_deep: int, L: int, ranks: dict) -> dict:
    """The smallest width w at depth L whose exact N = 4 rank reaches ``target`` (the rank of the deeper
    network), certified by rank(w − 1) < target ≤ rank(w) from ``ranks[(w, L)]`` when both are stored
    ('measured'), else from the L = 1 formula d_x + 1 ('formula, L = 1: d_x + 1'). None when not reached."""
    ws = sorted(w for (w, l) in ranks if l == L)
    for w in ws:
        if ranks[(w, L)] >= target:
            below = ranks.get((w - 1, L))
            if below is not None and below < target:
                return dict(L_deep=L_deep, d_deep=d_deep, target=target, L=L, width=w, rank_at=ranks[(w, L)],
                            rank_below=below, source="measured", ratio=round(w / d_deep, 2))
            break
    if L in (1, 2):
        w = width_candidates(target)[1] if L == 2 else target - 1
        at, below = (ours_closed_form(w, L, 1, 4), ours_closed_form(w - 1, L, 1, 4))
        top = max([v for (v, l) in ranks if l == L], default=0)
        src = "formula, L = 1: d_x + 1" if L == 1 else f"formula, L = 2 closed form (measured up to d_x = {top})"
        return dict(L_deep=L_deep, d_deep=d_deep, target=target, L=L, width=w, rank_at=at, rank_below=below,
                    source=src, ratio=round(w / d_deep, 2))
    return dict(L_deep=L_deep, d_deep=d_deep, target=target, L=L, width=None, rank_at=None, rank_below=None,
                source="not measured", ratio=None)


def width_candidates(target: int) -> list[int]:
    """Widths to measure at L = 2 (N = 4) to certify the smallest one reaching ``target``: the first width the
    chapter's L = 2 closed form (bounds.ours_closed_form, a conjecture from data) puts at or above it, and its
    predecessor; the measurement, not the formula, decides."""
    w = 1
    while ours_closed_form(w, 2, 1, 4) < target:
        w += 1
    return [w - 1, w]


# ---------------------------------------------------------------------------------------------
# the evidence sweeps (declared in lib.chapters.depth_width.evidence)
# ---------------------------------------------------------------------------------------------
def _k0(d_x: int, L: int, N: int) -> int:
    """Where the K search starts (a guess; it never changes the rank, only the stored K, see seprank.sep_rank)."""
    cf = ours_closed_form(d_x, L, 1, N)
    return {(2, 3): 240, (3, 3): 2648, (2, 4): 1024}.get((d_x, L), 64 if cf is None else cf + 8)


def lemma6_points(points: list[dict], report: Callable[[dict, dict], None], N: int, extra: int, seed: int) -> None:
    """Sweep ``lemma6``: :func:`lemma6_point` at each point (d_x, L, H, d), reported without the point's keys."""
    for p in points:
        q = asdict(lemma6_point(p["d_x"], p["L"], N, p["H"], d_used=p["d"], extra=extra, seed=seed))
        report(p, {k: v for k, v in q.items() if k not in p})


def series_points(points: list[dict], report: Callable[[dict, dict], None], N: int, H: int) -> None:
    """Sweeps ``rank-series`` and ``width-points``: :func:`series_point` at each point (d_x, L)."""
    for p in points:
        q = series_point(p["d_x"], p["L"], N, H, K0=_k0(p["d_x"], p["L"], N))
        report(p, {k: v for k, v in q.items() if k not in p})


def n6_points(points: list[dict], report, N: int, H: int) -> None:
    """Sweep ``rank-series-n6``: :func:`~lib.chapters.depth_width.theory.depthseries.series_point` at N = 6, the K search
    started just above the rank (the N = 4 sweep's start, 2648 for (3, 3), would double K past it)."""
    k0 = {(2, 3): 240, (3, 3): 3110}
    for p in points:
        q = series_point(p["d_x"], p["L"], N, H, K0=k0.get((p["d_x"], p["L"]), 64))
        report(p, {k: v for k, v in q.items() if k not in p})
