"""Statistics shared by the chapters' claims: a quadratic fit, a Student-t and a bootstrap interval, a power-law
exponent and the test of a curve against its rivals. The line fit itself is :func:`lib.core.fit.linear_fit`.
"""
from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np
from scipy.stats import t as student_t

from lib.core.fit import linear_fit


class QuadFit(NamedTuple):
    a: float           # coefficient of x² of the least-squares a x² + b x + c
    r2: float          # R² of that quadratic
    r2_line: float     # R² of the least-squares line (lib.core.fit.linear_fit)


def quadratic_fit(x, y) -> QuadFit:
    """Least squares ``y ≈ a x² + b x + c``: its x² coefficient and R², beside the line's R²."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    X = np.stack([x ** 2, x, np.ones_like(x)], 1)
    c = np.linalg.lstsq(X, y, rcond=None)[0]
    res, tot = y - X @ c, ((y - y.mean()) ** 2).sum()
    return QuadFit(float(c[0]), float(1 - res @ res / tot), float(linear_fit(x, y).r2))


def t_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """(mean, and the two-sided Student t-interval of the mean at ``level``: mean ± t_{n-1} s / √n); NaN bounds
    below two values."""
    a = np.asarray(values, float)
    if len(a) < 2:
        return (float(a.mean()) if len(a) else float("nan")), float("nan"), float("nan")
    half = float(student_t.ppf((1 + level) / 2, len(a) - 1) * a.std(ddof=1) / np.sqrt(len(a)))
    return float(a.mean()), float(a.mean() - half), float(a.mean() + half)


def bootstrap_interval(rows, stat: Callable[[np.ndarray], float], n: int = 10_000, seed: int = 0,
                       level: float = 0.95) -> tuple[float, float, float]:
    """(``stat`` of the mean row, and the percentile bootstrap interval at ``level`` of that statistic over ``n``
    resamples of the rows with replacement; fixed generator, so reproducible). NaN bounds below two rows."""
    Y = np.asarray(rows, float)
    if len(Y) < 2:
        return (stat(Y[0]) if len(Y) else float("nan")), float("nan"), float("nan")
    g = np.random.default_rng(seed)
    boots = [stat(Y[g.integers(0, len(Y), len(Y))].mean(0)) for _ in range(n)]
    lo, hi = np.nanpercentile(boots, [round(50 * (1 - level), 10), round(50 * (1 + level), 10)])
    return stat(Y.mean(0)), float(lo), float(hi)


def power_exponent(x, y) -> float:
    """The exponent k of ``y ~ x^k``: the slope of the line fit of log y on log x (NaN below two points)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    return float(linear_fit(np.log(x), np.log(y)).slope) if len(x) >= 2 else float("nan")


def fixed_exponent_ss(x, y, k: float) -> float:
    """Residual sum of squares of ``log y = k log x + c`` with k fixed and c fitted (NaN below two points)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2:
        return float("nan")
    r = np.log(y) - k * np.log(x)
    return float(((r - r.mean()) ** 2).sum())


def beats_rivals(r2: dict[float, float], k: float, min_r2: float = 0.98, margin: float = 2.0) -> bool:
    """Whether the curve of exponent ``k`` fits (R² >= ``min_r2``) and leaves at most 1/``margin`` of the residual
    1 - R² of every rival exponent in ``r2`` ({exponent: R²}, e.g. of :func:`lib.core.fit.power_fit`)."""
    return bool(r2[k] >= min_r2 and all(1 - r2[j] >= margin * (1 - r2[k]) for j in r2 if j != k))
