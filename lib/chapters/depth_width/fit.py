"""Levine et al. (2020): the weighted fit of the transition widths (Table 4), eq. 10 and Table 1.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

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
