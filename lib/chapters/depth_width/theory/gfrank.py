"""Exact ranks of large matrices over GF(p) on float64 BLAS, and the separation rank at d_x = 4, L = 3.

:func:`rank_blocked` is a right-looking blocked Gaussian elimination (LU with row pivoting, rank-revealing in
the echelon sense) done in place on a float64 tensor whose entries are integers in ``[0, p)``:

* a panel of ``b ≤ 128`` columns is eliminated column by column (vectorised row operations on the tall panel,
  every product ``< p²`` and reduced at once);
* the pivot rows of the trailing columns are solved against the panel's unit lower triangle (``U12 = L11⁻¹ A12``);
* the trailing block is updated by one GEMM per row chunk, ``A22 ← A22 + (p − L21) U12 mod p``, whose inner
  dimension is the number of pivots ``k ≤ 128``: every entry of the product is a sum of at most 128 terms
  ``< (p − 1)²``, so it stays below 2^53 and float64 arithmetic is exact (the bound ``seprank.MAX_INNER`` that
  ``seprank.mm`` already relies on), in any summation order, FMA included.

No copy of the matrix is made (the panel and one row chunk of the product are the only temporaries), so a
31.5k-square matrix costs its own 7.9 GB. It is checked against FLINT's ``nmod_mat.rank`` in
``tests/test_depthseries.py``.

:func:`big_rank_points` is the evidence sweep ``rank-generic`` (:mod:`lib.chapters.depth_width.evidence`):
one evaluation matrix ``M[r, c] = y(S_P^(r) + S_Q^(c), x^(r))`` of size K × K built by ``seprank.eval_block``
(vectorised torch, never a Python list) and its exact rank. Why one draw suffices when the rank meets the upper
bound: the entries are the integer network's values reduced mod p, so ``rank_p M ≤ rank_ℚ M ≤ sep`` for the
drawn weights ``≤`` the generic separation rank ``≤`` any proven upper bound; a draw whose rank reaches the bound
certifies it, and a draw whose rank stays below K measures a lower bound only (a second draw must then agree).
"""
from __future__ import annotations

import sys
import time
from typing import Callable

import torch
from torch import Tensor

from lib.chapters.depth_width.theory import seprank

P = seprank.PRIME


def _panel_lu(Pn: Tensor, p: int) -> tuple[list[tuple[int, int]], list[int]]:
    """Eliminate the tall panel ``Pn`` (R × w, in place): row swaps, multipliers stored below each pivot in the
    pivot's column (as LAPACK does), echelon rows on top. Returns the swaps (local row pairs, in order) and the
    pivot columns."""
    R, w = Pn.shape
    swaps: list[tuple[int, int]] = []
    piv: list[int] = []
    k = 0
    for c in range(w):
        if k == R:
            break
        nz = torch.nonzero(Pn[k:, c])
        if nz.numel() == 0:
            continue
        j = k + int(nz[0, 0])
        if j != k:
            Pn[[k, j]] = Pn[[j, k]]
            swaps.append((k, j))
        inv = pow(int(Pn[k, c]), p - 2, p)
        low = torch.fmod(Pn[k + 1:, c] * inv, p)                       # multipliers l_i (< p² before fmod)
        Pn[k + 1:, c] = low
        if c + 1 < w and k + 1 < R:
            neg = torch.fmod(p - low, p)
            Pn[k + 1:, c + 1:] = torch.fmod(Pn[k + 1:, c + 1:] + neg[:, None] * Pn[k, c + 1:][None, :], p)
        piv.append(c)
        k += 1
    return swaps, piv


def _solve_unit_lower(L11: Tensor, U: Tensor, p: int) -> None:
    """``U ← L11⁻¹ U`` in place for a unit lower-triangular ``L11`` (k × k, k ≤ 128), by forward substitution
    (its diagonal is never read)."""
    neg = torch.fmod(p - L11, p)
    for i in range(1, U.shape[0]):
        U[i] = torch.fmod(U[i] + torch.fmod(neg[i, :i] @ U[:i], p), p)


def _lu(A: Tensor, p: int, widths: tuple[int, ...], left: bool = True, chunk_rows: int = 2048,
        progress: Callable[[int, int], None] | None = None) -> tuple[list[tuple[int, int]], list[int]]:
    """Blocked LU of ``A`` in place (LAPACK's layout: echelon rows on top, multipliers below each pivot in its
    column). Panels of ``widths[0]`` columns are factored recursively with ``widths[1:]`` (the last level by
    :func:`_panel_lu`); each panel's row swaps are applied to the rest of the row (to the columns left of it
    only when ``left``: the top level never reads them again), its pivot rows solved against its unit lower
    triangle and the rows below updated by one GEMM per row chunk, inner dimension = its pivots ≤ widths[0]."""
    m, n = A.shape
    b, r = widths[0], 0
    swaps: list[tuple[int, int]] = []
    piv: list[int] = []
    for c0 in range(0, n, b):
        if r == m:
            break
        c1 = min(n, c0 + b)
        Pn = A[r:, c0:c1].clone()
        s_loc, p_loc = _lu(Pn, p, widths[1:]) if len(widths) > 1 else _panel_lu(Pn, p)
        A[r:, c0:c1] = Pn
        k = len(p_loc)
        for i, j in s_loc:
            if c1 < n:
                A[[r + i, r + j], c1:] = A[[r + j, r + i], c1:]
            if left and c0:
                A[[r + i, r + j], :c0] = A[[r + j, r + i], :c0]
        if k and c1 < n:
            U = A[r:r + k, c1:]
            _solve_unit_lower(Pn[:k, p_loc], U, p)
            neg = torch.fmod(p - Pn[k:, p_loc], p)                    # (R − k) × k
            for s in range(0, neg.shape[0], chunk_rows):
                blk = A[r + k + s:r + k + s + chunk_rows, c1:]
                blk.addmm_(neg[s:s + chunk_rows], U).fmod_(p)        # < 128 (p−1)² + p < 2^53: exact
        swaps += [(r + i, r + j) for i, j in s_loc]
        piv += [c0 + c for c in p_loc]
        r += k
        if progress is not None:
            progress(c1, r)
    return swaps, piv


def rank_blocked(A: Tensor, p: int = P, b: int = 128, inner: int = 16, chunk_rows: int = 2048,
                 progress: Callable[[int, int], None] | None = None) -> int:
    """Exact rank over GF(p) of the float64 matrix ``A`` (integers in [0, p)), destroyed in place:
    :func:`_lu` with panels of ``b`` ≤ ``seprank.MAX_INNER`` columns, each factored in sub-panels of ``inner``."""
    if b > seprank.MAX_INNER:
        raise ValueError(f"panel width {b} > {seprank.MAX_INNER}: the trailing GEMM would not be exact")
    if A.dtype != torch.float64:
        raise TypeError("rank_blocked works on float64 tensors")
    widths = (b, inner) if inner and inner < b else (b,)
    return len(_lu(A, p, widths, left=False, chunk_rows=chunk_rows, progress=progress)[1])


def _log(msg: str) -> None:
    """Progress of a long rank on stderr (the evidence run's log)."""
    print(time.strftime("%H:%M:%S"), msg, file=sys.stderr, flush=True)


def big_rank_point(d_x: int, L: int, N: int, K: int, seed: int = 0, H: int = 1) -> dict:
    """One K × K evaluation matrix of the H-head network at a balanced split of N positions (generic weights and
    points over GF(p), drawn as in ``seprank.sep_rank``) and its exact rank by :func:`rank_blocked`. The rank is
    the separation rank when it is below K and meets a proven upper bound (module docstring)."""
    t0, c0 = time.perf_counter(), time.process_time()
    gen = torch.Generator().manual_seed(seprank.hash_seed(seed, 44, d_x, L, H, N))
    W = seprank.random_weights(d_x, L, H, gen)
    SP, xi = seprank.side_configs(gen, K, N // 2, d_x)
    SQ, _ = seprank.side_configs(gen, K, N // 2, d_x)
    M = seprank.eval_block(W, SP, xi, SQ)
    t1 = time.perf_counter()
    _log(f"d_x={d_x} L={L} N={N} K={K}: matrix built in {t1 - t0:.0f} s")
    every = max(1, K // 128 // 20)

    def progress(c: int, r: int) -> None:
        if (c // 128) % every == 0:
            _log(f"  columns {c}/{K}, rank so far {r}, {time.perf_counter() - t1:.0f} s")
    rank = rank_blocked(M, progress=progress)
    del M
    return dict(H=H, rank=rank, below_K=rank < K, seed=seed, t_eval=round(t1 - t0, 1),
                t_rank=round(time.perf_counter() - t1, 1), cpu_s=round(time.process_time() - c0, 1))


def big_rank_points(points: list[dict], report: Callable[[dict, dict], None], seed: int) -> None:
    """Sweep ``rank-generic``: :func:`big_rank_point` at each point (d_x, L, N, K)."""
    for q in points:
        res = big_rank_point(q["d_x"], q["L"], q["N"], q["K"], seed)
        report(q, res)


def draw_point(d_x: int, L: int, N: int, K: int, seed: int, p: int, H: int = 1) -> dict:
    """One independent draw of the K × K evaluation matrix over GF(``p``) (weights, points and prime all chosen by
    the caller, stream ``hash_seed(seed, 45, d_x, L, H, N, p)``) and its exact rank by :func:`rank_blocked`; as
    :func:`big_rank_point`, whose draws use the prime ``seprank.PRIME`` only. A draw's rank is a lower bound of the
    generic rank; independent draws (seed, prime, N) tell an unlucky draw from a structural deficit."""
    if not p < 2 ** 23:
        raise ValueError(f"p = {p} ≥ 2^23: float64 products with inner dimension 128 would not be exact")
    t0, c0 = time.perf_counter(), time.process_time()
    gen = torch.Generator().manual_seed(seprank.hash_seed(seed, 45, d_x, L, H, N, p))
    W = seprank.random_weights(d_x, L, H, gen, p=p)
    W.A, W.B = seprank.mm(W.WO, W.WV, p), seprank.mm(W.WK.transpose(-1, -2), W.WQ, p)   # fused mod p, not mod PRIME
    SP, xi = seprank.side_configs(gen, K, N // 2, d_x, p=p)
    SQ, _ = seprank.side_configs(gen, K, N // 2, d_x, p=p)
    M = seprank.eval_block(W, SP, xi, SQ, p=p)
    t1 = time.perf_counter()
    _log(f"d_x={d_x} L={L} N={N} K={K} p={p} seed={seed}: matrix built in {t1 - t0:.0f} s")
    every = max(1, K // 128 // 20)

    def progress(c: int, r: int) -> None:
        if (c // 128) % every == 0:
            _log(f"  columns {c}/{K}, rank so far {r}, {time.perf_counter() - t1:.0f} s")
    rank = rank_blocked(M, p=p, progress=progress)
    del M
    return dict(H=H, rank=rank, below_K=rank < K, seed=seed, p=p, t_eval=round(t1 - t0, 1),
                t_rank=round(time.perf_counter() - t1, 1), cpu_s=round(time.process_time() - c0, 1))


def draw_points(points: list[dict], report: Callable[[dict, dict], None], seed: int, p: int) -> None:
    """Sweep ``rank-generic-d4``: :func:`draw_point` at each point (d_x, L, N, K) with the sweep's seed and prime."""
    for q in points:
        report(q, draw_point(q["d_x"], q["L"], q["N"], q["K"], seed, p))
