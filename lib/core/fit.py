"""Least-squares fits shared by the chapters: one line fit, its power-law variant, and R².

A chapter that claims "y grows linearly in x" runs :func:`linear_fit` on the data and, as the claim's control,
:func:`power_fit` with the rival exponents through the same code (the criterion must tell them apart).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class LinearFit(NamedTuple):
    slope: float
    intercept: float
    r2: float          # coefficient of determination; NaN when y is constant (nothing to explain)


def linear_fit(x, y) -> LinearFit:
    """Least squares ``y ≈ slope·x + intercept`` and its R² = 1 − SS_res/SS_tot.

    Constant data have SS_tot = 0: R² is then NaN, so that a criterion like "R² ≥ 0.9" fails on a flat
    (e.g. saturated) curve instead of calling it linear."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if x.shape != y.shape or x.ndim != 1 or x.size < 2:
        raise ValueError(f"linear_fit needs two 1-D arrays of equal length >= 2, got {x.shape} and {y.shape}")
    A = np.stack([x, np.ones_like(x)], 1)
    (a, b), *_ = np.linalg.lstsq(A, y, rcond=None)
    ss_tot = float(((y - y.mean()) ** 2).sum())
    ss_res = float(((y - A @ np.array([a, b])) ** 2).sum())
    return LinearFit(float(a), float(b), 1.0 - ss_res / ss_tot if ss_tot > 0 else float("nan"))


def power_fit(x, y, k: float) -> LinearFit:
    """Least squares ``y ≈ slope·x^k + intercept`` (a line in ``x^k``); ``k = 0`` means ``log x``."""
    x = np.asarray(x, float)
    return linear_fit(np.log(x) if k == 0 else x ** k, y)
