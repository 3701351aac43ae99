"""Levine et al. (2020): the rank grid (cases, exact ranks against the bounds) and the checks beside it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from lib.chapters.depth_width.theory.bounds import (
    gridtensor_lower,
    log3,
    monomial_upper,
    multiset,
    ours_closed_form,
    regime,
    thm1_log3_bounds,
    thm2_log3_bounds,
    thm3_upper,
    thm4_upper,
    thm5_residual_log3_upper,
    thm6_residual_upper,
)
from lib.chapters.depth_width.model import network_sform, paper_weights


# ---------------------------------------------------------------------------------------------
# the rank grid: cases expanded from the spec's validated records
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    d_x: int
    L: int
    H: int
    N: int
    residual: bool = False


def expand_cases(records: list[dict]) -> list[Case]:
    """Expand the grid records ``{L, N, H, dx_min, dx_max, res}`` of ``rank_cases`` / ``prop1_cases`` into one
    case per width ``dx_min <= d_x <= dx_max`` that H divides. The records' rules (even N, the width range,
    a width the heads divide) are checked by the parameter spec, before anything runs."""
    return [Case(d, r["L"], r["H"], r["N"], bool(r.get("res", False)))
            for r in records for d in range(r["dx_min"], r["dx_max"] + 1) if d % r["H"] == 0]




# ---------------------------------------------------------------------------------------------
# measuring the grid (exact ranks + every bound that applies)
# ---------------------------------------------------------------------------------------------
def bounds_row(c: Case) -> dict:
    """Every bound of the paper (and ours) that applies to a case, with the regime."""
    d, L, H, N = c.d_x, c.L, c.H, c.N
    row = dict(regime=regime(d, L), thm3=thm3_upper(d, L, H), thm4=thm4_upper(d, L),
               monomial=monomial_upper(d, L), grid_lower=gridtensor_lower(d, L, H),
               closed=ours_closed_form(d, L, H, N))
    if c.residual:
        row["thm6"] = thm6_residual_upper(d, L)
        row["thm5_log3"] = thm5_residual_log3_upper(d, L, H, N)
    if row["regime"] == "thm1" and d > H:
        row["thm1_log3"] = thm1_log3_bounds(d, L, H)
    if row["regime"] == "thm2":
        row["thm2_log3"] = thm2_log3_bounds(d, L, H)
    return row


def check_row(rank: int, b: dict, residual: bool) -> dict[str, bool]:
    """Which bounds the measured rank satisfies (only the bounds that apply to the case)."""
    l3 = log3(rank) if rank > 0 else float("-inf")
    eps = 1e-9
    out = {}
    if not residual:
        out["thm3"] = rank <= b["thm3"]
        out["thm4"] = rank <= b["thm4"]
        if "thm1_log3" in b:
            lo, hi = b["thm1_log3"]
            out["thm1"] = lo - eps <= l3 <= hi + eps
        if "thm2_log3" in b:
            lo, hi = b["thm2_log3"]
            out["thm2"] = lo - eps <= l3 <= hi + eps
        if b["grid_lower"] is not None:
            out["grid_lower"] = rank >= b["grid_lower"]
    else:
        out["thm6"] = rank <= b["thm6"]
        out["thm5"] = l3 <= b["thm5_log3"] + eps
    out["monomial"] = rank <= b["monomial"]
    return out


def measure_grid(cases: list[Case], seeds: int = 2, K_max: int = 4096, seed: int = 0, device="cpu",
                 log=print) -> list[dict]:
    """Exact separation rank of every case (lib.chapters.depth_width.theory.seprank.sep_rank) with its bounds and checks."""
    from lib.chapters.depth_width.theory import seprank
    rows = []
    for c in cases:
        cf = ours_closed_form(c.d_x, c.L, c.H, c.N)
        K0 = 64 if cf is None else min(K_max, max(16, cf + 8))    # a starting size only (see sep_rank)
        r = seprank.sep_rank(c.d_x, c.L, c.H, c.N, c.residual, seed=seed, K0=K0, K_max=K_max,
                             seeds=seeds, device=device)
        b = bounds_row(c)
        rows.append(dict(case=c, rank=r.rank, ranks=r.ranks_per_seed, K=r.K, converged=r.converged,
                         seconds=r.seconds, t_eval=r.t_eval, t_rank=r.t_rank, bounds=b,
                         checks=check_row(r.rank, b, c.residual)))
        log(f"d_x={c.d_x:2d} L={c.L} H={c.H} N={c.N}{' res' if c.residual else '    '}: sep = {r.rank:5d} "
            f"(K={r.K}, draws {r.ranks_per_seed}) {r.seconds:6.2f} s")
    return rows


def balanced_partitions(N: int, i: int = 0) -> list[list[int]]:
    """Every balanced partition of range(N), as the side P that contains position i."""
    import itertools
    others = [j for j in range(N) if j != i]
    return [[i, *rest] for rest in itertools.combinations(others, N // 2 - 1)]


def prop1_check(c: Case, seed: int = 0, margin: int = 8, K_max: int = 4096, device="cpu") -> dict:
    """Proposition 1 on the layer-by-layer network (no S-form): the exact rank of the evaluation matrix
    for every balanced partition, with the same weights. K = (S-form rank) + margin; a partition whose
    rank reached K would show up as rank == K (not converged), so the S-form only sets the size."""
    from lib.chapters.depth_width.theory import seprank
    ref = seprank.sep_rank(c.d_x, c.L, c.H, c.N, c.residual, seed=seed, seeds=1, K_max=K_max, device=device)
    K = min(K_max, ref.rank + margin)
    gen = torch.Generator().manual_seed(seprank.hash_seed(seed, 99, c.d_x, c.L, c.H, c.N))
    W = seprank.random_weights(c.d_x, c.L, c.H, gen, device=device)
    parts = balanced_partitions(c.N)
    ranks = [seprank.rank_modp(seprank.eval_matrix_raw(W, c.N, P, K, gen, residual=c.residual).numpy())
             for P in parts]
    return dict(case=c, partitions=parts, ranks=ranks, K=K, sform_rank=ref.rank,
                equal=len(set(ranks)) == 1, converged=max(ranks) < K)


def local_contrast(c: Case, width: int = 1, seed: int = 0, K: int = 256) -> dict:
    """The contrast the paper draws with convolutions: the same network with a *local* attention mask
    (position i attends to j only when |i − j| ≤ width) treats balanced partitions differently. Exact ranks
    of the layer-by-layer network for every balanced partition (K points per side)."""
    from lib.chapters.depth_width.theory import seprank
    N = c.N
    mask = torch.tensor([[1.0 if abs(i - j) <= width else 0.0 for j in range(N)] for i in range(N)], dtype=torch.float64)
    gen = torch.Generator().manual_seed(seprank.hash_seed(seed, 98, c.d_x, c.L, c.H, c.N))
    W = seprank.random_weights(c.d_x, c.L, c.H, gen)
    parts = balanced_partitions(N)
    ranks = [seprank.rank_modp(seprank.eval_matrix_raw(W, N, P, K, gen, residual=c.residual, mask=mask).numpy())
             for P in parts]
    full = seprank.rank_modp(seprank.eval_matrix_raw(W, N, parts[0], K, gen, residual=c.residual,
                                                     mask=torch.ones(N, N, dtype=torch.float64)).numpy())
    return dict(case=c, partitions=parts, ranks=ranks, K=K, full_mask_rank=full, converged=max(ranks + [full]) < K)


def float_rank_demo(d_x: int, L: int, N: int, exact: int, seed: int = 0, margin: int = 16) -> dict:
    """The same evaluation matrix in float64 with Gaussian weights and inputs: its SVD spectrum.
    Returns the numerical rank at several relative thresholds and the spectrum (for a figure)."""
    from lib.chapters.depth_width.theory import seprank
    gen = torch.Generator().manual_seed(seprank.hash_seed(seed, 7, d_x, L, N))
    Wp = paper_weights(d_x, L, 1, gen)
    K = exact + margin
    XP = torch.randn(K, N // 2, d_x, generator=gen, dtype=torch.float64)
    XQ = torch.randn(K, N // 2, d_x, generator=gen, dtype=torch.float64)
    X = torch.cat([XP[:, None].expand(K, K, N // 2, d_x), XQ[None].expand(K, K, N // 2, d_x)], 2)
    M = network_sform(Wp, X.reshape(K * K, N, d_x))[:, 0, 0].reshape(K, K)
    s = torch.linalg.svdvals(M).numpy()
    s = s / s[0]
    ranks = {t: int((s > t).sum()) for t in (1e-6, 1e-9, 1e-12)}
    return dict(d_x=d_x, L=L, N=N, exact=exact, K=K, spectrum=s, float_ranks=ranks,
                s_exact=float(s[exact - 1]), s_next=float(s[exact]) if exact < K else 0.0)


def gram_monomial_rank(d_x: int, c: int, n_side: int, seed: int = 0) -> tuple[int, int, int]:
    """The step of Theorem 4's proof that we question, made measurable. The B-side of the output is a
    polynomial of degree C in the entries of the Gram matrix S_B = Σ_{j∈B} x^j x^jT. Theorem 4's proof
    groups terms by the *power vector* of the coordinates, i.e. it treats the degree-C monomials in the
    entries of S_B as if there were only ((d_x, 2C)) distinct functions. We measure the dimension of the
    span of all ((D, C)) degree-C monomials in the D = d_x(d_x+1)/2 entries of S_B, evaluated on random
    B-configurations of ``n_side`` vectors (exact rank mod p). Returns (dimension, ((d_x, 2C)), ((D, C)))."""
    import itertools

    from lib.chapters.depth_width.theory import seprank
    p = seprank.PRIME
    D = d_x * (d_x + 1) // 2
    pairs = [(i, j) for i in range(d_x) for j in range(i, d_x)]
    monos = list(itertools.combinations_with_replacement(range(D), c))
    rng = np.random.default_rng(seed)
    K = len(monos) + 8
    X = rng.integers(0, p, (K, n_side, d_x)).astype(object)
    rows = []
    for k in range(K):
        S = [sum(X[k, j, a] * X[k, j, b] for j in range(n_side)) % p for a, b in pairs]
        rows.append([int(np.prod([S[t] for t in m], dtype=object) % p) for m in monos])
    rank = seprank.rank_modp(np.array(rows, dtype=np.int64), p)
    return rank, multiset(d_x, 2 * c), multiset(D, c)
