"""Exact separation ranks of the linearised self-attention network, over a prime field.

The network of Levine et al. (2020, eq. 3) is a polynomial of degree ``3^L`` in its inputs, so its
separation rank w.r.t. a partition ``(P, Q)`` of the positions is the rank of its coefficient matrix in
the monomial bases of the two sides. We measure it as the rank of an *evaluation matrix*
``M[r, c] = y(X_P^(r), X_Q^(c))`` on ``K`` random row and ``K`` random column configurations: the
paper's grid-tensor matricization (its Claim 1) with the grid replaced by generic points. Then
``rank M = min(K, sep)`` for generic points, so once ``rank M < K`` the rank *is* ``sep``.

Floating point cannot be trusted for this (at L = 2 the smallest retained singular value is already
~1e-8 of the largest; see :func:`float_rank`), so all arithmetic is done in GF(p):

* evaluation: float64 matmuls with entries in ``[0, p)`` and ``p < 2^23`` are exact as long as
  ``inner_dim · (p-1)^2 < 2^53`` (inner dimension ≤ 128), reduced with ``np.fmod`` after every product;
* rank: FLINT's ``nmod_mat.rank`` (python-flint), a compiled exact elimination. :func:`rank_modp_numpy`
  is our own vectorised elimination, kept as an independent cross-check and for the benchmark.

Generic rank over GF(p) equals the generic rank over the reals except on a set of weights and points of
probability ≲ degree/p (Schwartz–Zippel); :func:`sep_rank` therefore (i) doubles ``K`` until the rank is
below ``K`` and (ii) re-measures with a second, independent draw of weights and points, which must agree.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import torch
from torch import Tensor

PRIME = 8388593            # the largest prime below 2^23
MAX_INNER = 2 ** 53 // (PRIME - 1) ** 2   # = 128: exactness limit of float64 products


# ---------------------------------------------------------------------------------------------
# arithmetic mod p (torch float64: exact, batched, CPU or GPU; np.fmod is ~10x slower than torch.fmod)
# ---------------------------------------------------------------------------------------------
def mm(a: Tensor, b: Tensor, p: int = PRIME) -> Tensor:
    """Exact ``a @ b mod p`` for float64 tensors holding integers in [0, p) (batched like torch.matmul)."""
    if a.shape[-1] > MAX_INNER:
        raise ValueError(f"inner dimension {a.shape[-1]} > {MAX_INNER}: float64 products would not be exact")
    return torch.fmod(a @ b, p)


def rand_modp(gen: torch.Generator, shape, p: int = PRIME, device="cpu") -> Tensor:
    """Uniform integers in [0, p) as float64 (drawn on the CPU generator, so equal on any device)."""
    return torch.randint(0, p, tuple(shape), generator=gen, dtype=torch.int64).to(torch.float64).to(device)


@dataclass
class Weights:
    """One linearised network in GF(p): the paper's per-head matrices, and the fused products of the
    S-form, ``A[l, h] = W^{O,l,h} W^{V,l,h}`` and ``B[l, h] = (W^{K,l,h})^T W^{Q,l,h}`` (d_x×d_x, rank d_a)."""
    WQ: Tensor  # [L, H, d_a, d_x]
    WK: Tensor
    WV: Tensor
    WO: Tensor  # [L, H, d_x, d_a]
    A: Tensor = field(init=False)
    B: Tensor = field(init=False)

    def __post_init__(self):
        self.A = mm(self.WO, self.WV)
        self.B = mm(self.WK.transpose(-1, -2), self.WQ)

    @property
    def L(self) -> int:
        return self.WQ.shape[0]

    @property
    def H(self) -> int:
        return self.WQ.shape[1]

    @property
    def d(self) -> int:
        return self.WQ.shape[-1]


def random_weights(d_x: int, L: int, H: int, gen: torch.Generator, p: int = PRIME, device="cpu") -> Weights:
    """Uniform random weights in GF(p) for the paper's per-head matrices (d_a = d_x / H)."""
    if d_x % H:
        raise ValueError(f"H = {H} must divide d_x = {d_x}")
    da = d_x // H
    return Weights(*(rand_modp(gen, s, p, device) for s in
                     [(L, H, da, d_x), (L, H, da, d_x), (L, H, da, d_x), (L, H, d_x, da)]))


# ---------------------------------------------------------------------------------------------
# the network mod p: layer by layer (eq. 3 / 12) and the S-form
# ---------------------------------------------------------------------------------------------
def raw_network_modp(W: Weights, X: Tensor, residual: bool = False, p: int = PRIME,
                     mask: Tensor | None = None) -> Tensor:
    """The analysed network, layer by layer, in the paper's matrix form (eq. 12):
    ``Y = Σ_h W^O W^V X X^T (W^K)^T W^Q X`` with X ``[..., d_x, N]`` (columns = positions); every product
    is formed from the raw per-head matrices. With ``residual`` each layer is ``X + Y``.
    ``mask`` (N×N, 0/1, entry [i, j] = 1 when position i attends to j) gives a *local* variant,
    ``Y = Σ_h W^O W^V X ((X^T (W^K)^T W^Q X) ⊙ mask^T)``, used only as a contrast to Proposition 1."""
    if mask is not None:
        return _raw_masked(W, X, mask.to(X.dtype), residual, p)
    for l in range(W.L):
        G = mm(X, X.transpose(-1, -2), p)                                   # X X^T
        Y = torch.zeros_like(X)
        for h in range(W.H):
            left = mm(W.WO[l, h], mm(W.WV[l, h], G, p), p)                  # W^O W^V X X^T
            right = mm(W.WK[l, h].T, mm(W.WQ[l, h], X, p), p)               # (W^K)^T W^Q X
            Y = torch.fmod(Y + mm(left, right, p), p)
        X = torch.fmod(X + Y, p) if residual else Y
    return X


def _raw_masked(W: Weights, X: Tensor, mask: Tensor, residual: bool, p: int) -> Tensor:
    for l in range(W.L):
        Y = torch.zeros_like(X)
        for h in range(W.H):
            K = mm(W.WK[l, h], X, p)                                        # W^K X   [..., d_a, N]
            Q = mm(W.WQ[l, h], X, p)
            G = mm(K.transpose(-1, -2), Q, p) * mask.T                      # G[j, i] = <W^K x^j, W^Q x^i> m_ij
            V = mm(W.WO[l, h], mm(W.WV[l, h], X, p), p)                     # W^O W^V X
            Y = torch.fmod(Y + mm(V, G, p), p)
        X = torch.fmod(X + Y, p) if residual else Y
    return X


def _T(W: Weights, l: int, G: Tensor, p: int) -> Tensor:
    """``T_l(G) = Σ_h A_{l,h} G B_{l,h}`` for a stack G ``[n, d, d]``, as two matmuls over all heads:
    ``G [B_1 … B_H]`` then ``[A_1 … A_H]`` against the head blocks stacked (inner dim H·d ≤ 128)."""
    n, d, H = G.shape[0], W.d, W.H
    Bcat = W.B[l].permute(1, 0, 2).reshape(d, H * d)                         # [d, H d]
    GB = mm(G, Bcat, p)                                                       # [n, d, H d]
    GB = GB.reshape(n, d, H, d).permute(0, 2, 1, 3).reshape(n, H * d, d)     # blocks stacked
    Acat = W.A[l].permute(1, 0, 2).reshape(d, H * d)                         # [A_1 … A_H]
    return mm(Acat.expand(n, d, H * d), GB, p)


def s_form_matrix(W: Weights, S: Tensor, residual: bool = False, p: int = PRIME,
                  upto: int | None = None) -> Tensor:
    """``F_L(S)`` with ``F_0 = I``, ``F_l = T_l(F_{l-1} S F_{l-1}^T) F_{l-1}`` (+ ``F_{l-1}`` with residual);
    the output at position i is ``F_L(S) x^i`` with ``S = X X^T``. S ``[n, d, d]``. ``upto``: stop early."""
    n, d = S.shape[0], S.shape[-1]
    F = None                                                                  # None = identity
    for l in range(W.L if upto is None else upto):
        G = S if F is None else mm(mm(F, S, p), F.transpose(-1, -2), p)
        T = _T(W, l, G, p)
        if F is None:
            F = torch.fmod(T + torch.eye(d, dtype=S.dtype, device=S.device), p) if residual else T
        else:
            TF = mm(T, F, p)
            F = torch.fmod(F + TF, p) if residual else TF
    if F is None:
        F = torch.eye(d, dtype=S.dtype, device=S.device).expand(n, d, d).clone()
    return F


def output_coordinate(W: Weights, S: Tensor, xi: Tensor, coord: int = 0, residual: bool = False,
                      p: int = PRIME) -> Tensor:
    """``y_coord = e_coord^T F_L(S) x^i`` for stacks S ``[n, d, d]``, x^i ``[n, d]``. The last layer needs
    only ``e^T T_L(G) F_{L-1} x^i = Σ_h (e^T A_h) G (B_h v)``, ``v = F_{L-1} x^i``: vectors, not matrices."""
    l = W.L - 1
    if l == 0:
        v, G = xi, S
    else:
        F = s_form_matrix(W, S, residual, p, upto=l)
        v = mm(F, xi[..., None], p)[..., 0]                                   # [n, d]
        G = mm(mm(F, S, p), F.transpose(-1, -2), p)
    Bv = torch.fmod(torch.einsum("hab,nb->nha", W.B[l], v), p)              # B_h v          [n, H, d]
    GBv = torch.fmod(torch.einsum("nab,nhb->nha", G, Bv), p)                 # G B_h v        [n, H, d]
    out = torch.fmod((GBv * W.A[l][:, coord, :]).sum((-1, -2)), p)         # Σ_h e^T A_h G B_h v
    if residual:
        out = torch.fmod(out + v[:, coord], p)
    return out


# ---------------------------------------------------------------------------------------------
# exact ranks
# ---------------------------------------------------------------------------------------------
def rank_modp(M: np.ndarray, p: int = PRIME) -> int:
    """Exact rank of an integer matrix over GF(p), with FLINT (python-flint's nmod_mat)."""
    import flint
    r, c = M.shape
    return flint.nmod_mat(r, c, M.astype(np.int64).ravel().tolist(), p).rank()


def rank_modp_numpy(M: np.ndarray, p: int = PRIME) -> int:
    """Our own exact Gaussian elimination over GF(p) (vectorised row operations, int64).
    Independent of FLINT; used as a cross-check and in the benchmark."""
    A = np.array(M, dtype=np.int64) % p
    rows, cols = A.shape
    r = 0
    for c in range(cols):
        if r == rows:
            break
        nz = np.nonzero(A[r:, c])[0]
        if nz.size == 0:
            continue
        k = r + nz[0]
        if k != r:
            A[[r, k]] = A[[k, r]]
        inv = pow(int(A[r, c]), p - 2, p)
        A[r, c:] = (A[r, c:] * inv) % p
        below = np.nonzero(A[r + 1:, c])[0] + r + 1
        if below.size:
            f = A[below, c][:, None]
            # (f * A[r]) can reach p^2 < 2^46: safe in int64
            A[below, c:] = (A[below, c:] - (f * A[r, c:][None, :]) % p) % p
        r += 1
    return r


def float_rank(M: np.ndarray, rtol: float = 1e-9) -> tuple[int, float]:
    """Numerical rank of a real evaluation matrix (SVD, relative threshold) and the ratio of the smallest
    retained singular value to the largest, the figure of merit that shows why floats fail here."""
    s = np.linalg.svd(M, compute_uv=False)
    r = int((s > rtol * s[0]).sum())
    return r, float(s[r - 1] / s[0]) if r else 0.0


# ---------------------------------------------------------------------------------------------
# evaluation matrices and the separation rank
# ---------------------------------------------------------------------------------------------
def side_configs(gen: torch.Generator, K: int, n_side: int, d: int, p: int = PRIME, device="cpu"):
    """K random configurations of ``n_side`` positions: their Gram sums ``S = Σ_j x^j x^jT`` [K, d, d]
    and the first vector of each (x^i on the row side) [K, d]."""
    X = rand_modp(gen, (K, n_side, d), p, device)
    S = torch.fmod(torch.einsum("kja,kjb->kab", X, X), p)      # n_side·p^2 < 2^53 for n_side ≤ 128
    return S, X[:, 0, :]


def _last_two_layers(W: Weights, apply_S, x: Tensor, coord: int, residual: bool, p: int) -> Tensor:
    """``y = e^T U_L U_{L-1} x`` where ``U_l = T_l(S_l)`` (+ I with residual), ``S_L = U_{L-1} S_{L-1} U_{L-1}^T``,
    computed with matrix-vector products only: ``y = Σ_h (U^T a_h)^T S_{L-1} (U^T B_h U x)`` with
    ``a_h = A_{L,h}^T e``; ``apply_S(z) = S_{L-1} z`` for z ``[..., d]``. For L = 1 the U_{L-1} factor is I."""
    L, H = W.L, W.H
    f = lambda t: torch.fmod(t, p)
    mv = lambda Mx, z: f(z @ Mx.T)                       # fixed matrix times a stack of vectors

    if L >= 2:
        def U(z, l=L - 2):                               # l: 0-based index of layer L-1
            out = sum(mv(W.A[l, g], apply_S(mv(W.B[l, g], z))) for g in range(H))
            return f(out + z) if residual else f(out)

        def UT(z, l=L - 2):
            out = sum(mv(W.B[l, g].T, apply_S(mv(W.A[l, g].T, z))) for g in range(H))
            return f(out + z) if residual else f(out)
        v = U(x)                                         # x_L = U_{L-1} x_{L-1}
    else:
        U = UT = (lambda z: z)
        v = x
    l = L - 1
    y = 0
    for h in range(H):
        a = W.A[l, h][coord].expand_as(v)                # a_h = A_h^T e_coord
        left, right = UT(a), UT(mv(W.B[l, h], v))
        y = f(y + f((left * apply_S(right)).sum(-1)))
    if residual:
        y = f(y + v[..., coord])
    return y


def eval_block(W: Weights, SP: Tensor, xi: Tensor, SQ: Tensor, coord: int = 0, residual: bool = False,
               p: int = PRIME, chunk_pairs: int = 1 << 16) -> Tensor:
    """The block ``M[r, c] = y_coord(S_P[r] + S_Q[c], x^i[r])`` (rows: P-side configurations containing
    position i; columns: Q-side configurations). Returns a float64 CPU tensor [len(SP), len(SQ)].

    Cost: the last two layers use matrix-vector products only (:func:`_last_two_layers`); for L ≤ 2 the
    pair's S = S_P + S_Q is never formed (``S z = S_P z + S_Q z`` as two batched GEMMs); for L ≥ 3 the
    first L-2 layers are matrix recursions per pair (:func:`s_form_matrix` form)."""
    R, Cn, d = SP.shape[0], SQ.shape[0], W.d
    M = torch.empty((R, Cn), dtype=torch.float64)
    rows_per = max(1, chunk_pairs // max(Cn, 1))
    for r0 in range(0, R, rows_per):
        r1 = min(R, r0 + rows_per)
        sp, x0 = SP[r0:r1], xi[r0:r1]
        if W.L <= 2:
            apply_S = lambda z, sp=sp: torch.fmod(torch.einsum("rab,rcb->rca", sp, z)
                                                  + torch.einsum("cab,rcb->rca", SQ, z), p)
            x = x0[:, None].expand(r1 - r0, Cn, d)
            y = _last_two_layers(W, apply_S, x, coord, residual, p)
        else:
            S = torch.fmod(sp[:, None] + SQ[None], p).reshape(-1, d, d)
            x = x0[:, None].expand(r1 - r0, Cn, d).reshape(-1, d)
            Sl = S
            for l in range(W.L - 2):
                Ul = _T(W, l, Sl, p)
                if residual:
                    Ul = torch.fmod(Ul + torch.eye(d, dtype=S.dtype, device=S.device), p)
                Sl = mm(mm(Ul, Sl, p), Ul.transpose(-1, -2), p)
                x = mm(Ul, x[..., None], p)[..., 0]
            apply_S = lambda z, Sl=Sl: mm(Sl, z[..., None], p)[..., 0]
            y = _last_two_layers(W, apply_S, x, coord, residual, p)
        M[r0:r1] = y.reshape(r1 - r0, Cn).cpu()
    return M


def eval_matrix_raw(W: Weights, N: int, side_P: list[int], K: int, gen: torch.Generator,
                    i: int = 0, coord: int = 0, residual: bool = False, p: int = PRIME,
                    mask: Tensor | None = None) -> Tensor:
    """Evaluation matrix of the layer-by-layer network (no S-form) for an arbitrary partition of the N
    positions: those in ``side_P`` (which must contain i) vary with the row, the others with the column."""
    side_Q = [j for j in range(N) if j not in side_P]
    d = W.d
    dev = W.A.device
    XP = rand_modp(gen, (K, d, len(side_P)), p, dev)
    XQ = rand_modp(gen, (K, d, len(side_Q)), p, dev)
    X = torch.empty((K, K, d, N), dtype=torch.float64, device=dev)
    X[:, :, :, side_P] = XP[:, None]
    X[:, :, :, side_Q] = XQ[None, :]
    return raw_network_modp(W, X.reshape(K * K, d, N), residual, p, mask)[:, coord, i].reshape(K, K).cpu()


@dataclass
class SepResult:
    d_x: int
    L: int
    H: int
    N: int
    residual: bool
    rank: int           # the measured separation rank (first draw)
    K: int              # evaluation-matrix size at which rank < K was reached
    ranks_per_seed: list[int]   # one rank per independent draw of weights and points
    K_check: int        # size of the re-measurement with fresh draws
    seconds: float
    t_eval: float
    t_rank: float

    @property
    def converged(self) -> bool:
        """rank < K (so more points cannot raise it) and every independent draw agrees."""
        return self.rank < self.K and len(set(self.ranks_per_seed)) == 1 and self.rank < self.K_check


def sep_rank(d_x: int, L: int, H: int = 1, N: int = 2, residual: bool = False, seed: int = 0,
             K0: int = 64, grow: float = 1.5, K_max: int = 4096, seeds: int = 2, margin: int = 8,
             p: int = PRIME, device="cpu") -> SepResult:
    """Separation rank of ``y_1`` at position 1 w.r.t. a balanced split of N positions, exactly.

    First draw: K points per side, starting at K0 and growing by ``grow`` (re-using the block already
    evaluated, so the total cost is that of the final K) until ``rank < K``; then rank = sep for that draw.
    Each further draw (fresh weights and points) re-measures at ``K = rank + margin`` and must agree.
    K0 is only where the search starts: a good guess saves time, a bad one costs time, neither changes
    the answer. ``rank == K`` at ``K_max`` is reported as not converged, never hidden."""
    t0 = time.perf_counter()
    te = tr = 0.0
    ranks: list[int] = []
    n_side = N // 2
    K_check = 0
    for s in range(seeds):
        gen = torch.Generator().manual_seed(hash_seed(seed, s, d_x, L, H, N, int(residual)))
        W = random_weights(d_x, L, H, gen, p, device)
        if s == 0:
            K = min(K0, K_max)
            SP, xi = side_configs(gen, K, n_side, d_x, p, device)
            SQ, _ = side_configs(gen, K, n_side, d_x, p, device)
            a = time.perf_counter()
            M = eval_block(W, SP, xi, SQ, 0, residual, p)
            te += time.perf_counter() - a
            while True:
                a = time.perf_counter()
                r = rank_modp(M.numpy(), p)
                tr += time.perf_counter() - a
                if r < K or K >= K_max:
                    break
                K2 = min(K_max, max(K + 1, int(math.ceil(K * grow))))
                SP2, xi2 = side_configs(gen, K2 - K, n_side, d_x, p, device)
                SQ2, _ = side_configs(gen, K2 - K, n_side, d_x, p, device)
                a = time.perf_counter()
                M2 = torch.empty((K2, K2), dtype=torch.float64)
                M2[:K, :K] = M
                M2[:K, K:] = eval_block(W, SP, xi, SQ2, 0, residual, p)
                SP, xi, SQ = torch.cat([SP, SP2]), torch.cat([xi, xi2]), torch.cat([SQ, SQ2])
                M2[K:, :] = eval_block(W, SP2, xi2, SQ, 0, residual, p)
                te += time.perf_counter() - a
                M, K = M2, K2
            first = (r, K)
        else:
            K_check = min(K_max, first[0] + margin)
            SP, xi = side_configs(gen, K_check, n_side, d_x, p, device)
            SQ, _ = side_configs(gen, K_check, n_side, d_x, p, device)
            a = time.perf_counter()
            M = eval_block(W, SP, xi, SQ, 0, residual, p)
            b = time.perf_counter()
            r = rank_modp(M.numpy(), p)
            te, tr = te + b - a, tr + time.perf_counter() - b
        ranks.append(r)
    if seeds == 1:
        K_check = first[1]
    return SepResult(d_x, L, H, N, residual, first[0], first[1], ranks, K_check,
                     time.perf_counter() - t0, te, tr)


def hash_seed(*parts: int) -> int:
    """A deterministic 63-bit seed from integers (Python's hash of ints is not salted, but be explicit)."""
    h = 1469598103934665603
    for x in parts:
        h = ((h ^ (int(x) & 0xFFFFFFFF)) * 1099511628211) % (1 << 63)
    return h


def hadamard_power_rank(d: int, lam: int, omega: int = 7) -> tuple[int, int]:
    """The mechanism of the paper's lower bounds (App. B.2, Lemmas 6–8): rows of V are indexed by the
    compositions q of λ into d non-negative parts, ``v_r = Ω^{q_r}`` (row normalisation does not change
    the rank); the rank of the Hadamard power ``(V V^T)^{⊙λ}`` should be the multiset number
    ``((d, λ)) = binom(d+λ-1, λ)``. Computed exactly over the integers (FLINT fmpz_mat).
    Returns (rank, number of rows)."""
    import itertools

    import flint
    comps = [q for q in itertools.product(range(lam + 1), repeat=d) if sum(q) == lam]
    V = [[omega ** qr for qr in q] for q in comps]
    n = len(V)
    G = [[sum(a * b for a, b in zip(V[i], V[j], strict=False)) ** lam for j in range(n)] for i in range(n)]
    return flint.fmpz_mat(G).rank(), n
