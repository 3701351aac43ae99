"""Levine et al. (2020), "The depth-to-width interplay in self-attention": the chapter's library.

* the analysed network (eq. 3) in float64 through :mod:`lib.attention` (identity score map), and its
  S-form ``F_L(S)`` (see :mod:`lib.seprank` for the exact GF(p) version);
* the paper's bounds on the separation rank (Theorems 1–6, the grid-tensor lower bound) and the closed
  forms this chapter found numerically (labelled as ours);
* the weighted fit of the transition widths (Table 4), eq. 10 and Table 1;
* the rank-grid specification parser and the figure helpers.

Notation: ``C(L) = (3^L − 1)/2``; ``((n, k)) = binom(n + k − 1, k)`` (multisets of size k from n items);
``log3`` is the base-3 logarithm.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import torch

from lib import attention

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
# the analysed network in float64 (through lib.attention) and its S-form
# ---------------------------------------------------------------------------------------------
def paper_weights(d_x: int, L: int, H: int, gen: torch.Generator, dtype=torch.float64):
    """Per-layer per-head matrices in the paper's shapes: W^{Q,K,V} [L,H,d_a,d_x], W^O [L,H,d_x,d_a]."""
    da = d_x // H
    g = lambda *s: torch.randn(*s, generator=gen, dtype=dtype) / math.sqrt(d_x)
    return {"Q": g(L, H, da, d_x), "K": g(L, H, da, d_x), "V": g(L, H, da, d_x), "O": g(L, H, d_x, da)}


def network_lib(Wp: dict, X: torch.Tensor, residual: bool = False) -> torch.Tensor:
    """Eq. 3 layer by layer with :func:`lib.attention.attention` (identity score map, no scale, no mask).
    lib is row-convention (tokens are rows): X ``[..., N, d_x]``; the paper's ``W^Q x`` is ``x W_Q`` with
    ``W_Q = (W^Q)^T``, and ``W^O W^V x`` is ``x W_V W_O`` with ``W_V = (W^V)^T``, ``W_O = (W^O)^T``."""
    T = lambda M: M.transpose(-1, -2)
    for l in range(Wp["Q"].shape[0]):
        X = attention.attention(X, X, T(Wp["Q"][l]), T(Wp["K"][l]), T(Wp["V"][l]), T(Wp["O"][l]),
                                score_map="identity", scale=None, skip=residual)
    return X


def network_sform(Wp: dict, X: torch.Tensor, residual: bool = False) -> torch.Tensor:
    """The same network through ``F_0 = I``, ``F_l = T_l(F_{l−1} S F_{l−1}^T) F_{l−1}`` (+ F_{l−1} with a
    residual), ``T_l(G) = Σ_h W^O W^V G (W^K)^T W^Q``, ``S = Σ_j x^j x^jT``; output rows ``(F_L x^i)^T``."""
    Xc = X.transpose(-1, -2)                                   # columns = positions (paper's convention)
    S = Xc @ X
    d = S.shape[-1]
    F = torch.eye(d, dtype=X.dtype).expand_as(S)
    for l in range(Wp["Q"].shape[0]):
        G = F @ S @ F.transpose(-1, -2)
        T = sum(Wp["O"][l, h] @ Wp["V"][l, h] @ G @ Wp["K"][l, h].T @ Wp["Q"][l, h]
                for h in range(Wp["Q"].shape[1]))
        F = F + T @ F if residual else T @ F
    return (F @ Xc).transpose(-1, -2)


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
# the rank grid: a compact, validated specification
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Case:
    d_x: int
    L: int
    H: int
    N: int
    residual: bool = False


_CASE = re.compile(r"^\s*L[:=](\d+)\s+N[:=](\d+)\s+H[:=](\d+)\s+dx[:=](\d+)(?:\.\.(\d+))?(\s+res)?\s*$")


def parse_cases(specs: list[str], name: str = "rank_cases") -> list[Case]:
    """Parse entries like ``"L:2 N:2 H:1 dx:1..8"`` or ``"L:2 N:4 H:2 dx:6 res"`` (``=`` is accepted in
    place of ``:``; the specs use ``:`` because papermill cannot parse a parameter line whose value contains
    ``=``). Widths not divisible by H are skipped. Raises ValueError naming the parameter on a malformed entry."""
    out: list[Case] = []
    for s in specs:
        m = _CASE.match(s)
        if not m:
            raise ValueError(f"parameter '{name}': entry {s!r} is invalid: expected 'L:<int> N:<even int> "
                             f"H:<int> dx:<int>[..<int>][ res]'")
        L, N, H, lo = (int(m.group(i)) for i in range(1, 5))
        hi = int(m.group(5) or lo)
        if L < 1 or N < 2 or N % 2 or H < 1 or lo < 1 or hi < lo or hi > 64:
            raise ValueError(f"parameter '{name}': entry {s!r} is invalid: need L ≥ 1, even N ≥ 2, H ≥ 1, "
                             f"1 ≤ dx ≤ 64")
        out += [Case(d, L, H, N, bool(m.group(6))) for d in range(lo, hi + 1) if d % H == 0]
    return out


# ---------------------------------------------------------------------------------------------
# the experiments' fit and projections (Sec. 5.2–5.3, App. D.1)
# ---------------------------------------------------------------------------------------------
TABLE4 = [(6, 214, 6), (12, 308, 12), (18, 436, 20), (24, 572, 12), (30, 824, 16)]   # (L, d_x, Δd_x)
TABLE4B_LOG = [5.37, 5.73, 6.08, 6.35, 6.71]
TABLE4B_DLOG = [2.80e-2, 3.90e-2, 4.59e-2, 2.10e-2, 1.94e-2]
PAPER_FIT = dict(a=5.039, b=0.0555, sa=0.030, sb=1.3e-3, var_a=9.4e-4, cov_ab=-3.74e-5, var_b=1.7e-6,
                 chi2_red=0.854, R2=0.998)
# Table 1: name, size as printed, trained (L, d_x), the paper's suggested (L, d_x)
TABLE1 = [("GPT-3 Small", "125M", 12, 768, 23, 555), ("GPT-3 Medium", "350M", 24, 1024, 32, 886),
          ("GPT-3 Large", "760M", 24, 1536, 38, 1220), ("GPT-3 XL", "1.3B", 24, 2048, 42, 1550),
          ("GPT-3 2.7B", "2.7B", 32, 2560, 47, 2110), ("GPT-3 6.7B", "6.7B", 32, 4096, 54, 3150),
          ("GPT-3 13B", "13.0B", 40, 5140, 60, 4200), ("GPT-3 175B", "175.0B", 96, 12288, 80, 13500)]
TABLE1_SIZES = {"125M": 125e6, "350M": 350e6, "760M": 760e6, "1.3B": 1.3e9, "2.7B": 2.7e9, "6.7B": 6.7e9,
                "13.0B": 13.0e9, "175.0B": 175.0e9}


@dataclass
class Fit:
    a: float
    b: float
    cov: np.ndarray
    chi2: float
    chi2_red: float
    R2: float
    R2_paper_formula: float

    @property
    def sa(self) -> float:
        return math.sqrt(self.cov[0, 0])

    @property
    def sb(self) -> float:
        return math.sqrt(self.cov[1, 1])


def weighted_fit(L, y, sigma) -> Fit:
    """Weighted least squares y = a + b L with weights 1/σ² (covariance (XᵀWX)⁻¹, not rescaled by χ²),
    χ²_red = χ²/(n − 2), weighted R² with the weighted mean ȳ = Σwy/Σw; also R² with the paper's
    printed ȳ = (1/n) Σ y/σ² (eq. 59), which is dimensionally odd."""
    L, y, s = (np.asarray(v, float) for v in (L, y, sigma))
    w = 1 / s ** 2
    X = np.stack([np.ones_like(L), L], 1)
    cov = np.linalg.inv(X.T @ (w[:, None] * X))
    a, b = cov @ (X.T @ (w * y))
    res = y - (a + b * L)
    chi2 = float((w * res ** 2).sum())
    ybar = float((w * y).sum() / w.sum())
    R2 = 1 - chi2 / float((w * (y - ybar) ** 2).sum())
    ybar_p = float((y / s ** 2).mean())
    R2p = 1 - chi2 / float((w * (y - ybar_p) ** 2).sum())
    return Fit(float(a), float(b), cov, chi2, chi2 / (len(L) - 2), R2, R2p)


def table4_fit() -> Fit:
    L = [r[0] for r in TABLE4]
    d = np.array([r[1] for r in TABLE4], float)
    dd = np.array([r[2] for r in TABLE4], float)
    return weighted_fit(L, np.log(d), dd / d)


def n_transition(L, a: float, b: float):
    """Eq. 10: N_tr(L) = 12 L e^{2a} e^{2bL} (non-embedding parameters at the transition)."""
    L = np.asarray(L, float)
    return 12 * L * np.exp(2 * a + 2 * b * L)


def dn_transition(L, a: float, b: float, cov: np.ndarray):
    """Eq. 10's propagated uncertainty with dN/da = 2N, dN/db = 2LN."""
    L = np.asarray(L, float)
    N = n_transition(L, a, b)
    da, db = 2 * N, 2 * L * N
    return np.sqrt(da ** 2 * cov[0, 0] + db ** 2 * cov[1, 1] + 2 * da * db * cov[0, 1])


def optimal_depth(N: float, a: float, b: float) -> float:
    """The real L* with N_tr(L*) = N (bisection; N_tr is increasing in L)."""
    lo, hi = 1e-3, 1e3
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if n_transition(mid, a, b) < N:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def table1_rows(fit_a: float, fit_b: float, use_printed_size: bool = False) -> list[dict]:
    """Table 1 recomputed: the GPT-3 model's non-embedding size N = 12 L d_x² (or, with
    ``use_printed_size``, the total size printed in the table), L* with N_tr(L*) = N, its rounding,
    and the width d = sqrt(N / (12 L)) at the paper's suggested L and at round(L*)."""
    rows = []
    for name, size, L, d, Lp, dp in TABLE1:
        N = TABLE1_SIZES[size] if use_printed_size else 12 * L * d * d
        Ls = optimal_depth(N, fit_a, fit_b)
        rows.append(dict(name=name, size=size, L=L, d=d, N=N, L_star=Ls, L_round=round(Ls), L_paper=Lp,
                         d_at_Lpaper=math.sqrt(N / (12 * Lp)), d_at_Lround=math.sqrt(N / (12 * round(Ls))),
                         d_paper=dp, too_shallow=Ls > L))
    return rows


def sig_round(x: float, digits: int = 3) -> float:
    """x rounded to ``digits`` significant digits."""
    if x == 0:
        return 0.0
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


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
    """Exact separation rank of every case (lib.seprank.sep_rank) with its bounds and checks."""
    from lib import seprank
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
    from lib import seprank
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
    from lib import seprank
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
    from lib import seprank
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


# ---------------------------------------------------------------------------------------------
# figures (hidden from the reader: boilerplate lives here)
# ---------------------------------------------------------------------------------------------
def fig_regimes(rows: list[dict], dx_max: int, L_max: int, extrap_dx: list[int]):
    """(a) heat map of log3 sep from the N = 2 closed form over (d_x, L), measured N = 2 cells ringed,
    the curve L = log3 d_x; (b) log3 sep(L) for several widths; (c) increments per layer / d_x."""
    import matplotlib.pyplot as plt
    from lib import plots
    fig, ax = plots.subplots(1, 3, width=4.4, height=3.6)
    ds = np.arange(1, dx_max + 1)
    Ls = np.arange(1, L_max + 1)
    Z = np.array([[log3_sep_n2(d, L) for d in ds] for L in Ls])
    im = ax[0].imshow(np.log10(Z + 1e-9), origin="lower", aspect="auto", cmap="viridis",
                      extent=(0.5, dx_max + 0.5, 0.5, L_max + 0.5))
    fig.colorbar(im, ax=ax[0], shrink=0.85, label="log10(log3 sep)")
    xx = np.linspace(1, dx_max, 200)
    ax[0].plot(xx, np.log(xx) / np.log(3), "w-", lw=2, label="L = log3 d_x (paper)")
    ax[0].plot(xx, np.log(2 * xx) / np.log(3), "w--", lw=1.2, label="L = log3 2d_x (ours: C(L) = d_x)")
    meas = [(r["case"].d_x, r["case"].L) for r in rows if r["case"].N == 2 and not r["case"].residual]
    if meas:
        ax[0].plot(*zip(*meas), "o", mfc="none", mec="red", ms=6, label="measured exactly")
    ax[0].set(xlabel="width d_x", ylabel="depth L", title="log3 sep, N = 2 closed form", ylim=(0.5, L_max + 0.5))
    ax[0].grid(False)
    ax[0].legend(fontsize=7, loc="upper left")
    for k, d in enumerate(extrap_dx):
        v = np.array([log3_sep_n2(d, L) for L in Ls])
        ax[1].semilogy(Ls, v, "o-", ms=3, color=plots.COLORS[k % 8], label=f"d_x = {d}")
        ax[1].axvline(log3(d), color=plots.COLORS[k % 8], ls=":", lw=1)
        inc = np.diff(v) / d
        ax[2].plot(Ls[1:] - log3(d), inc, "o-", ms=3, color=plots.COLORS[k % 8], label=f"d_x = {d}")
    ax[1].set(xlabel="depth L", ylabel="log3 sep", title="dotted: L = log3 d_x")
    ax[1].legend(fontsize=7)
    ax[2].axhline(1, color="k", lw=0.8)
    ax[2].axvline(0, color="k", lw=0.8, ls=":")
    ax[2].set(xlabel="L − log3 d_x", ylabel="(log3 sep(L) − log3 sep(L−1)) / d_x",
              title="increment per layer, in units of d_x")
    ax[2].legend(fontsize=7)
    return fig


def fig_fit(fit: Fit, rows1: list[dict]):
    """Fig. 3(a) and Fig. 4 recomputed: the fit of ln d_x vs L with the paper's line, and N_tr(L) with its
    ±ΔN band up to L = 100, the GPT-3 models and the paper's suggested points."""
    from lib import plots
    fig, ax = plots.subplots(1, 2, width=4.8, height=3.6)
    L = np.array([r[0] for r in TABLE4], float)
    d = np.array([r[1] for r in TABLE4], float)
    dd = np.array([r[2] for r in TABLE4], float)
    xs = np.linspace(0, 36, 50)
    plots.paper_vs_ours(ax[0], xs, fit.a + fit.b * xs, PAPER_FIT["a"] + PAPER_FIT["b"] * xs,
                        label=f"our fit {fit.a:.3f} + {fit.b:.4f} L", paper_label="paper: 5.039 + 0.0555 L")
    for line in ax[0].get_lines():
        line.set_marker("")
    ax[0].errorbar(L, np.log(d), yerr=dd / d, fmt="kx", ms=7, ecolor="red", capsize=3, label="Table 4 (paper's data)")
    ax[0].set(xlabel="depth L", ylabel="ln d_x at the transition", title="Fig. 3(a), recomputed")
    ax[0].legend(fontsize=7)
    Ls = np.linspace(4, 100, 200)
    N = n_transition(Ls, fit.a, fit.b)
    dN = dn_transition(Ls, fit.a, fit.b, fit.cov)
    ax[1].fill_between(Ls, N - dN, N + dN, color="green", alpha=0.25, label="±ΔN_tr (ours)")
    ax[1].semilogy(Ls, N, "g-", label="N_tr(L), eq. 10 (ours)")
    ax[1].semilogy(L, 12 * L * d ** 2, "kx", label="Table 4 points")
    for r in rows1:
        ax[1].plot(r["L"], r["N"], "o", color="purple", ms=5)
        ax[1].plot(r["L_paper"], r["N"], "s", mfc="none", color="black", ms=5)
    ax[1].plot([], [], "o", color="purple", label="GPT-3 as trained")
    ax[1].plot([], [], "s", mfc="none", color="black", label="paper's suggested depth")
    ax[1].errorbar([96, 80], [1.17e12, 1.65e11], yerr=[0.23e12, 0.25e11], fmt="none", ecolor="black", capsize=3,
                   label="paper: N_tr(96), N_tr(80)")
    ax[1].set(xlabel="depth L", ylabel="non-embedding parameters", title="Fig. 4, recomputed")
    ax[1].legend(fontsize=6.5)
    return fig


def fig_float(demos: list[dict]):
    """Singular values of float64 evaluation matrices, with the exact GF(p) rank marked."""
    from lib import plots
    fig, ax = plots.subplots(1, 1, width=5.2, height=3.4)
    for k, r in enumerate(demos):
        c = plots.COLORS[k % 8]
        ax[0].semilogy(np.arange(1, len(r["spectrum"]) + 1), np.maximum(r["spectrum"], 1e-300), "-", color=c,
                       label=f"d_x={r['d_x']}, L={r['L']}, N={r['N']} (exact rank {r['exact']})")
        ax[0].axvline(r["exact"], color=c, ls=":")
    ax[0].axhline(1e-9, color="k", lw=0.8, ls="--")
    ax[0].set(xlabel="index", ylabel="σ_k / σ_1", title="float64 spectra; dotted: exact rank over GF(p)",
              ylim=(1e-45, 2))
    ax[0].legend(fontsize=7)
    return fig


def fig_lm(results, depths: list[int], fit: Fit, vocab: int, unigram: float):
    """Test loss vs non-embedding size per depth (Fig. 2 style), with the paper's extrapolated transition
    sizes N_tr(L) (eq. 10) for the shallower depth of each adjacent pair."""
    from lib import plots
    fig, ax = plots.subplots(1, 2, width=4.6, height=3.5)
    for k, L in enumerate(sorted(depths)):
        rs = sorted([r for r in results if r.L == L], key=lambda r: r.size)
        ax[0].semilogx([r.size for r in rs], [r.test_loss for r in rs], "o-", color=plots.COLORS[k % 8],
                       label=f"L = {L}")
    ds = sorted(depths)
    for k, L in enumerate(ds[:-1]):
        ax[0].axvline(float(n_transition(L, fit.a, fit.b)), color=plots.COLORS[k % 8], ls="--", lw=1,
                      label=f"paper's N_tr({L}) (eq. 10, extrapolated)")
    ax[0].axhline(unigram, color="gray", ls=":", lw=1, label="unigram entropy")
    ax[0].set(xlabel="N = 12 L d_x²", ylabel="held-out loss (nats)", title="loss vs size per depth")
    ax[0].legend(fontsize=6.5)
    for k, (Ls, Ld) in enumerate(zip(ds[:-1], ds[1:])):
        sizes = sorted({r.size for r in results if r.L == Ls})
        diffs, xs = [], []
        for rs_ in [r for r in results if r.L == Ls]:
            partner = min((r for r in results if r.L == Ld), key=lambda r: abs(math.log(r.size / rs_.size)))
            xs.append(rs_.size)
            diffs.append(partner.test_loss - rs_.test_loss)
        o = np.argsort(xs)
        ax[1].semilogx(np.array(xs)[o], np.array(diffs)[o], "o-", color=plots.COLORS[k % 8],
                       label=f"loss(L={Ld}) − loss(L={Ls})")
    ax[1].axhline(0, color="k", lw=0.8)
    from matplotlib.ticker import NullFormatter
    ax[0].xaxis.set_minor_formatter(NullFormatter())
    ticks = sorted({r.size for r in results if r.L == ds[0]})
    ax[1].set_xticks(ticks, [f"{t:.2g}" for t in ticks])
    ax[1].xaxis.set_minor_formatter(NullFormatter())
    ax[1].set(xlabel="N = 12 L d_x²", ylabel="deeper − shallower (nats)",
              title="> 0: the shallower, wider model wins")
    ax[1].legend(fontsize=7)
    return fig


def fig_grid(rows: list[dict]):
    """Measured exact ranks against width, one panel per N (non-residual), with the paper's bounds:
    Theorem 3's upper bound (dashed), Theorem 1's lower bound where its regime holds (triangles), and our
    closed forms (thin lines)."""
    from lib import plots
    Ns = sorted({r["case"].N for r in rows if not r["case"].residual})
    fig, ax = plots.subplots(1, len(Ns), width=4.2, height=3.4)
    for a, N in zip(ax, Ns):
        sub = [r for r in rows if r["case"].N == N and not r["case"].residual and r["case"].H == 1]
        for k, L in enumerate(sorted({r["case"].L for r in sub})):
            rs = sorted([r for r in sub if r["case"].L == L], key=lambda r: r["case"].d_x)
            col = plots.COLORS[k % 8]
            ds = [r["case"].d_x for r in rs]
            a.semilogy(ds, [r["rank"] for r in rs], "o", color=col, label=f"L = {L}: exact (ours)")
            a.semilogy(ds, [thm3_upper(d, L, 1) for d in ds], "--", color=col, lw=1)
            cf = [ours_closed_form(d, L, 1, N) for d in ds]
            if all(v is not None for v in cf):
                a.semilogy(ds, cf, "-", color=col, lw=0.8, alpha=0.6)
            lo = [(r["case"].d_x, 3 ** r["bounds"]["thm1_log3"][0]) for r in rs if "thm1_log3" in r["bounds"]]
            if lo:
                a.semilogy(*zip(*lo), "^", color=col, mfc="none")
        a.plot([], [], "k--", lw=1, label="Thm 3 upper bound (paper)")
        a.plot([], [], "k^", mfc="none", label="Thm 1 lower bound (paper)")
        a.plot([], [], "k-", lw=0.8, label="closed form (ours)")
        a.set(xlabel="width d_x", ylabel="separation rank", title=f"N = {N}, H = 1")
        a.legend(fontsize=6.5)
    return fig


def gram_monomial_rank(d_x: int, c: int, n_side: int, seed: int = 0) -> tuple[int, int, int]:
    """The step of Theorem 4's proof that we question, made measurable. The B-side of the output is a
    polynomial of degree C in the entries of the Gram matrix S_B = Σ_{j∈B} x^j x^jT. Theorem 4's proof
    groups terms by the *power vector* of the coordinates, i.e. it treats the degree-C monomials in the
    entries of S_B as if there were only ((d_x, 2C)) distinct functions. We measure the dimension of the
    span of all ((D, C)) degree-C monomials in the D = d_x(d_x+1)/2 entries of S_B, evaluated on random
    B-configurations of ``n_side`` vectors (exact rank mod p). Returns (dimension, ((d_x, 2C)), ((D, C)))."""
    import itertools

    from lib import seprank
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
