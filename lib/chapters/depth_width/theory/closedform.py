"""A closed form for the separation rank at H = 1 (ours, issue 29), its upper-bound argument, and its consequences.

Notation: ``D = d_x(d_x+1)/2`` (the distinct entries of a symmetric d_x × d_x matrix), ``C = C(L) = (3^L − 1)/2``,
``h(k) = binom(k + D − 1, D − 1)`` (monomials of degree exactly k in D variables). The closed form is

    sep(d_x, L) = Σ_{j=0..C} min(d_x · h(C − j), h(j)).

**The upper bound, for every N and H** (each step checked numerically on the page, :func:`degree_split`):

1. The output at position i is ``y = e^T F_L(S) x^i`` with ``S = Σ_j x^j x^jᵀ`` and ``F_l = T_l(F S Fᵀ) F``
   (the S-form, ``seprank.s_form_matrix``); ``T_l`` is linear, so ``F_l`` is homogeneous of degree
   ``3 deg F_{l−1} + 1`` in the entries of S: ``deg F_L = C(L)``.
2. With i on the P side, ``S = S_P + S_Q``. Expanding ``F_L(S_P + S_Q)`` gives ``y = Σ_j y_j`` where ``y_j`` has
   degree j in the entries of ``S_Q`` and, by homogeneity, degree ``C − j`` in ``S_P`` and 1 in ``x^i``.
3. ``y_j = Σ_m m(S_Q) g_m(S_P, x^i)`` over the ``h(j)`` monomials m of degree j in the D distinct entries of S_Q,
   and every ``g_m`` lies in the space spanned by ``(monomial of degree C − j in S_P) × (a coordinate of x^i)``,
   of dimension ``d_x h(C − j)``. So the matrix of y_j over (P configurations) × (Q configurations) has rank
   ``≤ min(d_x h(C − j), h(j))``.
4. Rank is subadditive: ``sep(y) ≤ Σ_j rank(y_j)``, which is the closed form.

Attainment (the bound is the separation rank at generic weights and N) is a conjecture, tested exactly at every
point the chapter measures; :func:`crossings` draws its consequences for the paper's bounds.
"""
from __future__ import annotations

import math

import torch

from lib.chapters.depth_width.theory import seprank
from lib.chapters.depth_width.theory.bounds import C as C_of
from lib.chapters.depth_width.theory.bounds import log3, thm2_log3_bounds, thm4_upper

P = seprank.PRIME


def D_of(d_x: int) -> int:
    """D = d_x(d_x+1)/2: the distinct entries of the symmetric matrix S_Q."""
    return d_x * (d_x + 1) // 2


def h(k: int, D: int) -> int:
    """Monomials of degree exactly k in D variables: binom(k + D − 1, D − 1)."""
    return math.comb(k + D - 1, D - 1) if k >= 0 else 0


def terms(d_x: int, L: int, D: int | None = None) -> list[tuple[int, int, int]]:
    """Per degree j in S_Q: (j, d_x h(C − j), h(j)), the two sides of step 3's bound (``D`` overridable: controls)."""
    D, c = D_of(d_x) if D is None else D, C_of(L)
    return [(j, d_x * h(c - j, D), h(j, D)) for j in range(c + 1)]


def sep_formula(d_x: int, L: int, D: int | None = None) -> int:
    """The closed form Σ_j min(d_x h(C − j), h(j)) (for large C use :func:`sep_formula_fast`)."""
    return sum(min(a, b) for _, a, b in terms(d_x, L, D))


def sep_formula_fast(d_x: int, L: int, D: int | None = None) -> int:
    """The closed form in O(log C) binomials: h(j) increases and d_x h(C − j) decreases in j, so the min is h(j) up
    to the last j* with h(j*) ≤ d_x h(C − j*) and d_x h(C − j) after; Σ_{j ≤ m} h(j) = binom(m + D, D)."""
    D, c = D_of(d_x) if D is None else D, C_of(L)
    lo, hi = -1, c                       # invariant: j ≤ lo satisfies, j > hi does not
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if h(mid, D) <= d_x * h(c - mid, D):
            lo = mid
        else:
            hi = mid - 1
    head = math.comb(lo + D, D) if lo >= 0 else 0
    tail = d_x * math.comb(c - lo - 1 + D, D) if lo < c else 0     # Σ_{j > j*} h(C − j) = Σ_{k ≤ C−j*−1} h(k)
    return head + tail


# ---------------------------------------------------------------------------------------------
# the argument, step by step, on the network over GF(p)
# ---------------------------------------------------------------------------------------------
def _vandermonde_inverse(ts: list[int], p: int = P) -> list[list[int]]:
    """Inverse of V[k, j] = t_k^j mod p (Gauss–Jordan on Python ints; at most C + 1 ≤ 41 nodes)."""
    n = len(ts)
    A = [[pow(t, j, p) for j in range(n)] + [int(i == k) for i in range(n)] for k, t in enumerate(ts)]
    for c in range(n):
        r = next(r for r in range(c, n) if A[r][c])
        A[c], A[r] = A[r], A[c]
        inv = pow(A[c][c], p - 2, p)
        A[c] = [v * inv % p for v in A[c]]
        for r in range(n):
            if r != c and A[r][c]:
                f = A[r][c]
                A[r] = [(v - f * w) % p for v, w in zip(A[r], A[c], strict=True)]
    return [row[n:] for row in A]


def _lincomb(mats: list, coeffs: list[int], p: int = P):
    """Σ_k coeffs[k] · mats[k] mod p, term by term (each product < p², reduced at once)."""
    acc = torch.zeros_like(mats[0])
    for M, a in zip(mats, coeffs, strict=True):
        acc = torch.fmod(acc + torch.fmod(M * a, p), p)
    return acc


def degree_split(d_x: int, L: int, N: int, K: int, seed: int = 0) -> dict:
    """Steps 1-4 measured: one K × K evaluation matrix ``M(t)[r, c] = y(S_P^r + t S_Q^c, x^r)`` at C + 2 values of t,
    its degree-j parts ``M_j`` by exact interpolation in t (the C + 2-th value checks that no degree above C is
    present: step 1), their exact ranks against step 3's ``min(d_x h(C − j), h(j))``, and the rank of M = M(1)
    against Σ_j rank M_j (step 4). Returns the per-degree ranks and bounds, rank M, whether the extra node agrees
    with the degree-≤ C interpolant (``extra_node_ok``) and with a degree-≤ C − 1 one (``lower_degree_ok``, the
    control: must be False) and whether the degree-C part is non-zero."""
    c = C_of(L)
    gen = torch.Generator().manual_seed(seprank.hash_seed(seed, 29, d_x, L, N))
    W = seprank.random_weights(d_x, L, 1, gen)
    SP, xi = seprank.side_configs(gen, K, N // 2, d_x)
    SQ, _ = seprank.side_configs(gen, K, N // 2, d_x)
    ts = list(range(1, c + 3))
    Ms = [seprank.eval_block(W, SP, xi, torch.fmod(SQ * t, P)) for t in ts]
    Vi = _vandermonde_inverse(ts[:-1])
    parts = [_lincomb(Ms[:c + 1], Vi[j]) for j in range(c + 1)]            # M_j = Σ_k (V⁻¹)_jk M(t_k)
    t_last = ts[-1]
    pred = _lincomb(parts, [pow(t_last, j, P) for j in range(c + 1)])       # the degree-≤ C interpolant at the extra node
    Vc = _vandermonde_inverse(ts[:-2])                # control: an interpolant of degree ≤ C − 1 (C nodes)
    low = _lincomb([_lincomb(Ms[:c], Vc[j]) for j in range(c)], [pow(t_last, j, P) for j in range(c)])
    ranks = [seprank.rank_modp(Mj.numpy()) for Mj in parts]
    return dict(d_x=d_x, L=L, N=N, K=K, C=c, ranks=ranks, bounds=[min(a, b) for _, a, b in terms(d_x, L)],
                rank=seprank.rank_modp(Ms[0].numpy()), extra_node_ok=bool(torch.equal(pred, Ms[-1])),
                lower_degree_ok=bool(torch.equal(low, Ms[-1])),
                top_nonzero=bool(parts[-1].abs().sum() > 0))


# ---------------------------------------------------------------------------------------------
# consequences: where the closed form would cross the paper's upper bounds
# ---------------------------------------------------------------------------------------------
def crossings(d_max: int = 12, L_max: int = 12, formula=sep_formula_fast) -> dict[str, list[tuple[int, int]]]:
    """For each width d_x ≤ d_max, the smallest depth L ≤ L_max at which ``formula(d_x, L)`` exceeds Theorem 4's
    bound (``thm4_upper``, exact integers) and Theorem 2's upper bound (``3^(2 d_x L + c1 + c2)``, in Theorem 2's
    regime L > log3 d_x, compared on log3): ``{"thm4": [(d_x, L)], "thm2": [(d_x, L)]}``, widths with no
    crossing omitted."""
    out: dict[str, list[tuple[int, int]]] = {}
    for bound in ("thm4", "thm2"):
        firsts = ((d, first_crossing_depth(d, bound, L_max, formula)) for d in range(1, d_max + 1))
        out[bound] = [(d, L) for d, L in firsts if L is not None]
    return out


def _log3(v: int) -> float:
    """log3 of a positive integer of any size."""
    if v < 2 ** 1000:
        return log3(v)
    s = v.bit_length() - 60
    return (math.log(v >> s) + s * math.log(2)) / math.log(3)


def first_crossing_depth(d_x: int, bound: str, L_max: int = 40, formula=sep_formula_fast) -> int | None:
    """The smallest L ≤ L_max at which ``formula`` exceeds Theorem 4's (``bound='thm4'``) or Theorem 2's
    (``'thm2'``) upper bound at width d_x; None when it does not within L_max."""
    for L in range(1, L_max + 1):
        if bound == "thm4" and formula(d_x, L) > thm4_upper(d_x, L):
            return L
        if bound == "thm2" and L > log3(d_x) + 1e-12 and _log3(formula(d_x, L)) > thm2_log3_bounds(d_x, L, 1)[1]:
            return L
    return None
