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


# Table 2: the widths d_x trained at each depth (App. D), column by column as printed (rows of ≈ equal size)
TABLE2 = {
    6: [128, 168, 184, 192, 200, 208, 216, 220, 224, 236, 248, 272, 296, 320, 376, 408, 456, 496, 568, 680, 816, 960,
        1088, 1416, 2128, 2832],
    12: [88, 120, 130, 136, 142, 148, 152, 156, 158, 168, 176, 192, 208, 224, 264, 272, 280, 288, 296, 304, 308, 314,
         320, 328, 240, 352, 400, 480, 576, 680, 768, 1000, 1504, 2000],
    18: [116, 124, 130, 144, 184, 216, 244, 228, 232, 240, 248, 252, 256, 264, 268, 278, 288, 320, 360, 384, 406, 416,
         424, 434, 440, 448, 456, 464, 472, 560, 624, 816, 1232],
    24: [64, 88, 88, 104, 112, 128, 136, 144, 160, 184, 200, 224, 248, 280, 312, 336, 352, 360, 368, 376, 376, 388, 396,
         402, 408, 480, 544, 552, 560, 568, 576, 584, 592, 600, 704, 1064, 1416],
    30: [144, 168, 176, 200, 224, 248, 304, 368, 432, 484, 494, 504, 508, 512, 522, 530, 536, 632, 712, 760, 808, 840,
         896, 952, 992, 1264],
}

# Table 3: the widths whose test-loss standard deviation over repeated trainings is reported, per depth (App. D)
TABLE3 = {6: [320, 680, 800], 12: [224, 400, 680, 1000], 24: [160, 280, 480, 704]}


def transition_pairs(L: int, d: float, delta: float, table2: dict = TABLE2) -> dict:
    """Search Table 2's widths at depth L for the pair behind a Table 4 row (d ± Δd): the pairs with mean d at
    half-distance Δd (the numbers' convention) and at full distance Δd (the text's), and whether the pair is
    adjacent among the distinct widths trained at that depth."""
    ws = sorted(set(table2[L]))
    half = [(a, b) for a in ws for b in ws if a < b and a + b == 2 * d and b - a == 2 * delta]
    full = [(a, b) for a in ws for b in ws if a < b and a + b == 2 * d and b - a == delta]
    adj = [(a, b) for a, b in half if ws.index(b) == ws.index(a) + 1]
    between = [[w for w in ws if a < w < b] for a, b in half]
    return dict(L=L, d=d, delta=delta, half=half, full=full, adjacent=bool(adj), between=between)


# rows of Table 2 (networks of about equal size 12 L d_x²): the five that span every depth, and three that look corrupted
TABLE2_FULL_ROWS = [dict(zip((6, 12, 18, 24, 30, 36, 48), r, strict=True)) for r in
                    [(320, 224, 184, 160, 144, 128, 112), (456, 320, 264, 224, 200, 184, 160),
                     (680, 480, 384, 336, 304, 272, 240), (1088, 768, 624, 544, 484, 440, 384),
                     (2128, 1504, 1232, 1064, 952, 872, 752)]]
TABLE2_SUSPECT_ROWS = [{6: 236, 12: 168, 24: 88, 48: 60}, {12: 272, 18: 244}, {12: 240, 18: 278}]


def size_spread(row: dict) -> float:
    """max/min − 1 of the sizes 12 L d_x² in one row of Table 2."""
    sizes = [12 * L * d * d for L, d in row.items()]
    return max(sizes) / min(sizes) - 1


def equal_size_width(row: dict, L: int, ref: int | None = None) -> float:
    """The width at depth L with the size of the row's network at depth ``ref`` (default: the shallowest)."""
    ref = min(row) if ref is None else ref
    return row[ref] * math.sqrt(ref / L)
