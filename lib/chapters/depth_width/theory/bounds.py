"""Levine et al. (2020), "The depth-to-width interplay in self-attention": the bounds on the separation rank.

The paper's bounds (Theorems 1–6, the grid-tensor lower bound), the closed forms this chapter found
numerically (labelled as ours), and the width a network of one depth needs to match another's bound.

Notation: ``C(L) = (3^L − 1)/2``; ``((n, k)) = binom(n + k − 1, k)`` (multisets of size k from n items);
``log3`` is the base-3 logarithm.
"""
from __future__ import annotations

import math

# ---------------------------------------------------------------------------------------------
# combinatorics
# ---------------------------------------------------------------------------------------------


def C(L: int) -> int:
    """Number of summed positions in eq. 4: C(L) = (3^L − 1)/2 (C(L+1) = 3C(L) + 1)."""
    return (3 ** L - 1) // 2


def multiset(n: int, k: int) -> int:
    """((n, k)) = binom(n + k − 1, k)."""
    return math.comb(n + k - 1, k)


def log3(x: float) -> float:
    return math.log(x) / math.log(3)


# ---------------------------------------------------------------------------------------------
# the paper's bounds (all on sep, or on log3 sep where stated)
# ---------------------------------------------------------------------------------------------
def thm3_upper(d_x: int, L: int, H: int) -> int:
    """Theorem 3 (any Θ, any partition): sep ≤ (H (d_a + 1))^{C(L)}; eq. 18 relaxes it to (d_x + H)^{C(L)}."""
    return (H * (d_x // H + 1)) ** C(L)


def thm1_log3_bounds(d_x: int, L: int, H: int) -> tuple[float, float]:
    """Theorem 1 (regime L < log3 d_x), on log3 sep:
    3^{L−2}(log3(d_x − H) + a) ≤ log3 sep ≤ C(L) log3(d_x + H), a = −L + 2 − log3 2."""
    a = -L + 2 - log3(2)
    return 3.0 ** (L - 2) * (log3(d_x - H) + a), C(L) * log3(d_x + H)


def thm2_log3_bounds(d_x: int, L: int, H: int) -> tuple[float, float]:
    """Theorem 2 (regime L > log3 d_x), on log3 sep: ½ d_x L + b1 + b2 ≤ log3 sep ≤ 2 d_x L + c1 + c2."""
    b1, c1 = -L * (H / 2 + 1), L
    b2 = -d_x * (1 + 0.5 * log3((d_x - H) / 2)) if d_x > H else float("-inf")
    c2 = -2 * d_x * log3(d_x / (2 * math.sqrt(2 * math.e))) + log3(d_x)
    return 0.5 * d_x * L + b1 + b2, 2 * d_x * L + c1 + c2


def thm4_upper(d_x: int, L: int) -> int:
    """Theorem 4 (the bound behind Thm 2's upper bound): sep ≤ d_x (C+1) ((d_x, 2C)) (2C/d_x + 1)^{d_x}."""
    c = C(L)
    return math.floor(d_x * (c + 1) * multiset(d_x, 2 * c) * (2 * c / d_x + 1) ** d_x)


def thm6_residual_upper(d_x: int, L: int) -> int:
    """Theorem 6 (residual network): Theorem 4's bound times (C + 1)."""
    return thm4_upper(d_x, L) * (C(L) + 1)


def thm5_residual_log3_upper(d_x: int, L: int, H: int, N: int) -> float:
    """Theorem 5 (residual network): log3 sep ≤ L log3 L + (4 log3 d_x + log3 N − log3 H) C(L)."""
    return (L * log3(L) if L > 1 else 0.0) + (4 * log3(d_x) + log3(N) - log3(H)) * C(L)


def monomial_upper(d_x: int, L: int) -> int:
    """Our safe bound (any N): y = e^T F_L(S_P + S_Q) x^i is a polynomial of degree ≤ C(L) in the
    D = d_x(d_x+1)/2 distinct entries of S_Q, so sep ≤ binom(D + C, C)."""
    D = d_x * (d_x + 1) // 2
    return math.comb(D + C(L), C(L))


def gridtensor_lower(d_x: int, L: int, H: int) -> int | None:
    """The appendix's grid-tensor lower bound (Lemma 6 + B.2): sep ≥ ((d, 3^{L−2})), d = (d_x − H)/2.
    Defined for L ≥ 2 and integer d ≥ 1 (the construction also wants d_a odd); None where undefined."""
    if L < 2 or (d_x - H) % 2 or (d_x - H) < 2:
        return None
    return multiset((d_x - H) // 2, 3 ** (L - 2))


def regime(d_x: int, L: int) -> str:
    """'thm1' if L < log3 d_x (depth-efficiency), 'thm2' if L > log3 d_x, 'boundary' if equal."""
    t = log3(d_x)
    return "thm1" if L < t - 1e-12 else ("thm2" if L > t + 1e-12 else "boundary")


# ---------------------------------------------------------------------------------------------
# closed forms found by this chapter (ours, not the paper's)
# ---------------------------------------------------------------------------------------------
def ours_closed_form(d_x: int, L: int, H: int, N: int) -> int | None:
    """The separation ranks our exact measurements follow (conjectured from data, verified on every
    case the chapter measures): L = 1: d_x + 1 (any H, N); N = 2: binom(d_x + C(L), C(L)) (any H);
    N ≥ 4, L = 2, H = 1: (d_x+1)(d_x+4)(d_x²+d_x+2)/8. None where we have no formula."""
    if L == 1:
        return d_x + 1
    if N == 2:
        return math.comb(d_x + C(L), C(L))
    if L == 2 and H == 1 and N >= 4:
        return (d_x + 1) * (d_x + 4) * (d_x * d_x + d_x + 2) // 8
    return None


def log3_sep_n2(d_x: float, L: int) -> float:
    """log3 binom(d_x + C, C) for real d_x (lgamma), the N = 2 closed form used to extrapolate."""
    c = C(L)
    if c < 1e10:
        return (math.lgamma(d_x + c + 1) - math.lgamma(d_x + 1) - math.lgamma(c + 1)) / math.log(3)
    # lgamma differences of huge numbers cancel catastrophically; for c ≫ d_x use
    # ln Γ(c+d+1)/Γ(c+1) = d ln(c + (d+1)/2) + O(d³/c²)
    ln_c = math.log(c)                                   # exact for Python ints of any size
    shift = 0.0 if c > 1e300 else math.log1p((d_x + 1) / 2 / float(c))
    return (d_x * (ln_c + shift) - math.lgamma(d_x + 1)) / math.log(3)


# ---------------------------------------------------------------------------------------------
# corollaries and the equal-budget comparison (from the bounds and from our closed form)
# ---------------------------------------------------------------------------------------------
def min_width(target_log3: float, L: int, upper: bool = True, H: int = 1) -> int:
    """Smallest width w whose log3 sep reaches ``target_log3`` at depth L: with ``upper`` the paper's
    Thm-3 bound log3 (w + H)^{C(L)} (what any network of that shape could reach at most), otherwise our
    N = 2 closed form. Doubling then bisection over integers."""
    f = (lambda w: C(L) * log3(w + H)) if upper else (lambda w: log3_sep_n2(w, L))
    hi = 1
    while f(hi) < target_log3:
        hi *= 2
        if hi > 1 << 62:
            return -1
    lo = max(1, hi // 2)
    while lo < hi:
        mid = (lo + hi) // 2
        if f(mid) >= target_log3:
            hi = mid
        else:
            lo = mid + 1
    return lo


def equal_budget(P: float, L_max: int = 10 ** 6) -> list[tuple[int, float, float]]:
    """At a parameter budget P = 4 L d_x² (the analysed network's count), for each depth L the real width
    d = sqrt(P/(4L)) and log3 sep from our N = 2 closed form (lgamma, real d); rows (L, d, log3 sep)."""
    out = []
    for L in range(1, L_max + 1):
        d = math.sqrt(P / (4 * L))
        if d < 1:
            break
        out.append((L, d, log3_sep_n2(d, L)))
    return out
