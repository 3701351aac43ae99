"""The appendix's Lemma 3 and Claims 1–2 (Levine et al. 2020, App. A.5 and B.1), checked by exact computation
or by a randomized test.

* **Lemma 3** (AM–GM for multiset numbers): for ``r_1 + … + r_k = M``,
  ``Π_j ((n, r_j)) ≤ Π_{t=1}^{n−1} (M/k + t)^k / ((n−1)!)^k``, with equality when every ``r_j = M/k``
  (:func:`lemma3_grid`, exact rationals).
* **Claim 1** (grid tensors): for any templates, ``sep_(I,J)(y) ≥ rank ⟦𝒜(y)⟧_{I,J}``. Here ``sep`` is computed
  from its definition, independently of any evaluation matrix: the network is expanded symbolically over GF(p)
  (layer by layer, eq. 12) and ``sep`` is the rank of its coefficient matrix (rows: the monomials of the I-side
  coordinates, columns: the J-side ones), since monomials are linearly independent functions
  (:func:`coefficient_sep`). Grid tensors over several template families (:func:`grid_matrix`) must stay at
  or below it.
* **Claim 2** (rank of polynomial matrices): a rank reached at one point, real or complex, is reached almost
  everywhere. Tested on Lemma 6's sub-block as a polynomial in the weights, templates fixed: the proof's point
  (with 𝐢 = √−1 mod p) against random integer weights (:func:`claim2_ranks`).
"""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import torch

from lib.chapters.depth_width.theory import depthseries as DS
from lib.chapters.depth_width.theory import seprank as SR
from lib.chapters.depth_width.theory.bounds import multiset

P = SR.PRIME


# ---------------------------------------------------------------------------------------------
# Lemma 3
# ---------------------------------------------------------------------------------------------
def lemma3_rhs(n: int, k: int, M: int) -> Fraction:
    """Lemma 3's right-hand side ``Π_{t=1}^{n−1} (M/k + t)^k / ((n−1)!)^k``, exactly."""
    prod = Fraction(1)
    for t in range(1, n):
        prod *= (Fraction(M, k) + t) ** k
    return prod / math.factorial(n - 1) ** k


def lemma3_grid(n_max: int = 6, k_max: int = 4, r_max: int = 8) -> list[dict]:
    """Every ``(n, k, r_1..r_k)`` with ``n ≤ n_max``, ``k ≤ k_max``, ``0 ≤ r_j ≤ r_max`` (r sorted: the two sides
    are symmetric in r): the product of multiset numbers, the bound, and the wrong alternative
    ``((n, ⌊M/k⌋))^k`` (the integer multiset number at the rounded-down mean)."""
    out = []
    for n in range(1, n_max + 1):
        for k in range(1, k_max + 1):
            for r in itertools.combinations_with_replacement(range(r_max + 1), k):
                M = sum(r)
                lhs = math.prod(multiset(n, rj) for rj in r)
                out.append(dict(n=n, k=k, r=r, lhs=lhs, rhs=lemma3_rhs(n, k, M),
                                floor_alt=multiset(n, M // k) ** k, balanced=len(set(r)) == 1))
    return out


# ---------------------------------------------------------------------------------------------
# Claim 1: sep from its definition, and grid tensors
# ---------------------------------------------------------------------------------------------
def _symbolic_output(W: SR.Weights, N: int, coord: int = 0, i: int = 0):
    """``y_coord`` at position i of the network run layer by layer (eq. 12: ``Y = Σ_h A_h X Xᵀ B_h X``) as a
    sparse polynomial over GF(p) in the ``N d_x`` input coordinates (sympy's ``ring``)."""
    from sympy.polys.domains import GF
    from sympy.polys.rings import ring
    d = W.d
    R, *xs = ring(",".join(f"x{j}_{a}" for j in range(N) for a in range(d)), GF(P))
    X = [[xs[j * d + a] for j in range(N)] for a in range(d)]             # d × N
    mul = lambda A, B: [[sum((A[r][t] * B[t][c] for t in range(len(B))), R(0)) for c in range(len(B[0]))]
                        for r in range(len(A))]
    ints = lambda T: [[int(v) for v in row] for row in T.tolist()]
    for l in range(W.L):
        G = mul(X, [list(c) for c in zip(*X, strict=True)])                                # X Xᵀ
        terms = [mul(mul(ints(W.A[l, h]), G), mul(ints(W.B[l, h]), X)) for h in range(W.H)]
        X = [[sum((t[a][j] for t in terms), R(0)) for j in range(N)] for a in range(d)]
    return X[coord][i]


def coefficient_sep(W: SR.Weights, N: int, coord: int = 0) -> tuple[int, tuple[int, int]]:
    """The separation rank of ``y_coord`` at position 1 w.r.t. (first N/2 positions | the rest), from its
    definition: the exact rank over GF(p) of the coefficient matrix of the expanded polynomial. Returns
    (rank, matrix shape)."""
    y = _symbolic_output(W, N, coord)
    nA = (N // 2) * W.d
    rows: dict = {}
    cols: dict = {}
    ent = []
    for mono, c in y.terms():
        ent.append((rows.setdefault(mono[:nA], len(rows)), cols.setdefault(mono[nA:], len(cols)), int(c) % P))
    M = np.zeros((max(len(rows), 1), max(len(cols), 1)), np.int64)
    for r, c, v in ent:
        M[r, c] = v
    return SR.rank_modp(M), M.shape


def templates(family: str, M: int, d: int, gen: torch.Generator) -> torch.Tensor:
    """``M`` template vectors [M, d] over GF(p): ``random`` (uniform), ``line`` (multiples of one vector),
    ``repeated`` (M/2 distinct vectors, each twice), ``binary`` (entries 0/1)."""
    if family == "random":
        return SR.rand_modp(gen, (M, d))
    if family == "line":
        return torch.fmod(SR.rand_modp(gen, (M, 1)) * SR.rand_modp(gen, (1, d)), P)
    if family == "repeated":
        return SR.rand_modp(gen, ((M + 1) // 2, d)).repeat(2, 1)[:M]
    if family == "binary":
        return torch.randint(0, 2, (M, d), generator=gen).to(torch.float64)
    raise ValueError(family)


def grid_matrix(W: SR.Weights, T: torch.Tensor, N: int, coord: int = 0) -> np.ndarray:
    """The grid tensor's matricization ``⟦𝒜(y)⟧_{I,J}`` (App. B.1): every position takes every template,
    rows = the template tuples of I (the first N/2 positions, with position 1), columns = those of J;
    ``M^{N/2} × M^{N/2}``. Evaluated layer by layer (``seprank.raw_network_modp``)."""
    Mt, d = T.shape
    tuples = list(itertools.product(range(Mt), repeat=N // 2))
    idx = torch.tensor([a + b for a in tuples for b in tuples])              # [rows·cols, N]
    X = T[idx].transpose(1, 2)                                                # [rows·cols, d, N]
    Y = SR.raw_network_modp(W, X)[:, coord, 0]
    return Y.reshape(len(tuples), len(tuples)).numpy().astype(np.int64)


def claim1_case(d_x: int, L: int, N: int, seed: int = 0, H: int = 1) -> dict:
    """One network (random GF(p) weights): ``sep`` from the coefficient matrix; grid-tensor ranks for every
    template family at M = 2 and at the smallest M whose grid has at least ``sep + 4`` distinct columns (the
    J side's positions are interchangeable, so the grid has ``((M, N/2))`` of them); and the page's own
    measurement (an evaluation matrix on ``sep + 8`` random configurations per side, same weights)."""
    gen = torch.Generator().manual_seed(SR.hash_seed(seed, 1, d_x, L, N))
    W = SR.random_weights(d_x, L, H, gen)
    sep, shape = coefficient_sep(W, N)
    M_big = next(m for m in itertools.count(2) if multiset(m, N // 2) >= sep + 4)
    grids = {f"{fam}, M={Mt}": SR.rank_modp(grid_matrix(W, templates(fam, Mt, d_x, gen), N))
             for fam in ("random", "line", "repeated", "binary") for Mt in (2, M_big)}
    K = sep + 8
    SP, xi = SR.side_configs(gen, K, N // 2, d_x)
    SQ, _ = SR.side_configs(gen, K, N // 2, d_x)
    page = SR.rank_modp(SR.eval_block(W, SP, xi, SQ).numpy())
    return dict(d_x=d_x, L=L, N=N, sep=sep, coef_shape=shape, grids=grids, page_rank=page, K=K)


# ---------------------------------------------------------------------------------------------
# Claim 2: a rank reached at one point is reached almost everywhere
# ---------------------------------------------------------------------------------------------
def claim2_ranks(d_x: int = 7, L: int = 3, N: int = 4, draws: int = 12, extra: int = 8, seed: int = 0) -> dict:
    """Lemma 6's sub-block ``A(θ)`` (templates fixed: unit-norm rows of V, eqs. 29–30) as a polynomial in the
    weights θ. At the proof's point θ₀ (complex: 𝐢 = √−1 mod p) its rank is ``((d, λ))``; at ``draws`` random
    integer weights (real points) Claim 2 says it is at least that. The control is the claim's hypothesis
    removed: the same block times ``ReLU(θ₁)`` for one signed weight θ₁ (θ₁ = 1 at θ₀), a piecewise-polynomial
    family with the same rank at θ₀ and rank 0 on the half-space θ₁ ≤ 0."""
    d, lam = (d_x - 1) // 2, 3 ** (L - 2)
    R = multiset(d, lam) + extra
    rng = np.random.default_rng(SR.hash_seed(seed, 2, d_x, L, N))
    V = DS.unit_rows(R, d, rng)
    T = DS.lemma6_templates(V, d_x, 1)
    r0 = SR.rank_modp(DS.lemma6_block(DS.lemma6_weights(d_x, L, 1, N), *T, N))
    gen = torch.Generator().manual_seed(SR.hash_seed(seed, 3, d_x, L, N))
    ranks, gated = [], []
    for _ in range(draws):
        A = DS.lemma6_block(SR.random_weights(d_x, L, 1, gen), *T, N)
        relu = max(int(rng.integers(-1000, 1001)), 0)           # ReLU(θ₁), θ₁ a signed weight
        ranks.append(SR.rank_modp(A))
        gated.append(SR.rank_modp(A * relu % P))
    return dict(d_x=d_x, L=L, N=N, d=d, lam=lam, size=R, rank0=r0, predicted=multiset(d, lam), ranks=ranks,
                gated=gated)


def lemma8_random(seed: int, trials: int = 40, lo: int = 0, hi: int = 4, repeat: bool = False) -> dict:
    """Lemma 8 (the vector rearrangement inequality, App. B.2) by a randomized exact test: ``trials`` sets of N ≤ 5
    distinct integer vectors in ``[lo, hi]^R̄`` (R̄ ≤ 3), every non-identity permutation σ of each set, and the
    strict inequality ``Σ_i <v_i, v_σ(i)> < Σ_i |v_i|²`` (integers: exact). ``lo < 0`` drops the lemma's
    non-negativity hypothesis (the identity ``Σ|v_i|² − Σ<v_i, v_σ(i)> = ½ Σ|v_i − v_σ(i)|²`` makes it unnecessary);
    ``repeat`` makes two vectors of each set equal (the hypothesis 'different vectors' broken: the control).
    Returns the number of (set, σ) pairs tested and of strict inequalities among them."""
    import itertools
    rng = np.random.default_rng(SR.hash_seed(seed, 8, lo + 100, hi, int(repeat)))
    tested = strict = 0
    for _ in range(trials):
        r = int(rng.integers(1, 4))
        n = min(int(rng.integers(2, 6)), (hi - lo + 1) ** r)     # N different vectors must exist
        while True:
            V = rng.integers(lo, hi + 1, (n, r))
            if repeat:
                V[1] = V[0]
            if len({tuple(v) for v in V}) == n - int(repeat):
                break
        sq = int((V * V).sum())
        for s in itertools.permutations(range(n)):
            if s != tuple(range(n)):
                tested += 1
                strict += int((V * V[list(s)]).sum()) < sq
    return dict(tested=tested, strict=strict, lo=lo, hi=hi, repeat=repeat)
