"""Softmax vs linear attention: Lemmas 4.1 and 4.2 (the toy datasets' properties), part by part, computed exactly.

One random sign vector ``w`` (uniform in {±1}^n) meets one normalised score row ``f``. Each part of the lemmas bounds
the law of ``<w, f>``; that law is exact here (:func:`inner_law`: equal entries of ``f`` are grouped, a group of size
s with value v adds ``v (2K − s)``, K ~ Bin(s, ½)), so every part is checked as an inequality between an exact
probability and the lemma's δ, on the rows the chapter's code builds (:func:`toy_rows`):

* Lemma 4.1 (D0, every score b), Part 1 (linear) and Part 2 (softmax): ``P[|<w, f>| > τ_δ] ≤ δ`` with Hoeffding's
  ``τ_δ = √(2 ln(2/δ)/n)`` (Lemma 3.1 with n terms of range 2/n), :func:`tau_d0`;
* Lemma 4.2 (D1, one score 2b), Part 1 (linear): the same with ``τ_δ = √(2(n+3) ln(2/δ))/(n+1)`` (one term of range
  4/(n+1), n − 1 of range 2/(n+1)), :func:`tau_lin_d1`;
* Lemma 4.2 Part 2 (softmax): ``P[|<w, f>| < L_δ] ≤ δ`` with ``L_δ = p_b − q_b √(2(n−1) ln(2/δ))``, and ``L_δ > τ``
  once b ≳ ln n, :func:`floor_exp_d1`;
* Lemma 4.2 Part 3 (softmax): the sign of ``<w, f>`` is that of ``w_j`` (probability ½ each), :func:`sign_miss`.

The exact statements of the lemmas are lost from our copy; these are the reconstructions of the research note
(the parts' maps and datasets are [read] from Lemmas 5.1–5.4, which cite them; the constants are [medium]).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from lib.chapters.softmax_vs_linear.theory.closed_forms import pq
from lib.chapters.softmax_vs_linear.theory.constructions import toy_pair
from lib.core import attention as att

# the failure probabilities δ at which every part is checked (from a coin flip to one in a million)
DELTAS = (0.5, 0.1, 1e-2, 1e-3, 1e-6)


def toy_rows(n: int, b: float, seed: int = 0) -> dict:
    """The four normalised rows of one toy instance (Def. 3.8; Defs 3.2/3.3): ``{(map, dataset): f [n]}`` for map
    "linear"/"softmax" and dataset 0/1, built by the chapter's code (``toy_pair`` and ``lib.core.attention``), with
    the needle index under ``"j"``."""
    x0, x1, j = toy_pair(1, n, b, torch.Generator().manual_seed(seed))
    out: dict = {"j": int(j[0])}
    for d, x in ((0, x0), (1, x1)):
        for kind in ("linear", "softmax"):
            out[kind, d] = att.normalize(x.unsqueeze(-2), kind)[0, 0].numpy()
    return out


def inner_law(f: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact law of ``<w, f>`` for w uniform in {±1}^n: its support values and their probabilities."""
    vals, counts = np.unique(np.round(np.asarray(f, dtype=float), 12), return_counts=True)
    pmfs = [np.array([math.comb(int(s), k) / 2 ** int(s) for k in range(int(s) + 1)]) for s in counts]
    z, p = [], []
    for ks in itertools.product(*[range(int(s) + 1) for s in counts]):
        z.append(sum(v * (2 * k - s) for v, k, s in zip(vals, ks, counts, strict=True)))
        p.append(math.prod(pm[k] for pm, k in zip(pmfs, ks, strict=True)))
    return np.array(z), np.array(p)


def tau_d0(n: int, delta: float, c: float = 2.0) -> float:
    """Lemma 4.1's threshold from Hoeffding (Lemma 3.1): ``√(c ln(2/δ)/n)``, c = 2 (n terms of range 2/n).
    ``c = 1`` is the bound with Hoeffding's constant doubled (the control of Part 1)."""
    return math.sqrt(c * math.log(2 / delta) / n)


def tau_lin_d1(n: int, delta: float) -> float:
    """Lemma 4.2 Part 1's threshold: ``<w, f_lin> = (2 w_j + Σ_{i≠j} w_i)/(n+1)``, squared ranges summing to
    ``4(n+3)/(n+1)²``, so Hoeffding gives ``√(2(n+3) ln(2/δ))/(n+1)``."""
    return math.sqrt(2 * (n + 3) * math.log(2 / delta)) / (n + 1)


def floor_exp_d1(n: int, b: float, delta: float) -> float:
    """Lemma 4.2 Part 2's floor: ``<w, f_exp> = p_b w_j + q_b S`` with ``|S| ≤ √(2(n−1) ln(2/δ))`` w.p. ≥ 1 − δ, so
    ``|<w, f_exp>| ≥ L_δ = p_b − q_b √(2(n−1) ln(2/δ))``."""
    p, q = pq(n, b)
    return p - q * math.sqrt(2 * (n - 1) * math.log(2 / delta))


Law = tuple[np.ndarray, np.ndarray]


def above(law: Law, t: float) -> float:
    """Exact ``P[|<w, f>| > t]`` from the law of ``<w, f>`` (:func:`inner_law`)."""
    z, p = law
    return float(p[np.abs(z) > t].sum())


def below(law: Law, t: float) -> float:
    """Exact ``P[|<w, f>| < t]`` from the law of ``<w, f>`` (:func:`inner_law`)."""
    z, p = law
    return float(p[np.abs(z) < t].sum())


def sign_miss(f: np.ndarray, j: int) -> float:
    """Exact ``P[sign <w, f> ≠ w_j]`` (a zero counts as a miss): 0 when the needle's sign decides the sign."""
    z, p = inner_law(np.delete(f, j))
    return float(sum(0.5 * p[np.sign(f[j] * wj + z) != wj].sum() for wj in (-1, 1)))


def worst_ratio(rows: dict[int, np.ndarray], prob, thresh, deltas=DELTAS) -> float:
    """``max over n and δ of prob(law_n, thresh(n, δ)) / δ`` (``prob``: :func:`above` or :func:`below`): at most 1
    iff the part holds at every (n, δ)."""
    laws = {n: inner_law(f) for n, f in rows.items()}
    return max(prob(laws[n], thresh(n, d)) / d for n in rows for d in deltas)


def lemma_parts(ns: list[int], b_offset: float, tau: float, deltas=DELTAS) -> dict[str, dict[str, float]]:
    """Every part of Lemmas 4.1 and 4.2 at each n of ``ns`` (b = ln n + ``b_offset``) and each δ of ``deltas``, and
    the same computation on each part's control (the closest wrong alternative, which must fail):

    * ``4.1.1`` linear on D0: ``ratio`` = max P[|<w,f>| > τ_δ]/δ; ``control`` with Hoeffding's constant doubled
      (τ = √(ln(2/δ)/n));
    * ``4.1.2`` softmax on D0: the same ratio; ``control`` the same τ_δ on softmax's D1 row (the needle present);
    * ``4.2.1`` linear on D1: the ratio at τ_δ = √(2(n+3) ln(2/δ))/(n+1); ``control`` that τ_δ on softmax's row;
    * ``4.2.2`` softmax on D1: max P[|<w,f>| < L_δ]/δ and ``margin`` = min (L_δ − τ); the control at b = ``b_offset``
      (the condition b ≳ ln n dropped);
    * ``4.2.3`` softmax on D1: ``miss`` = max P[sign <w,f> ≠ w_j]; ``control`` the same on linear attention's row.
    """
    rows = {n: toy_rows(n, math.log(n) + b_offset) for n in ns}
    flat = {n: toy_rows(n, b_offset) for n in ns}

    def row(key, rr=rows):
        return {n: r[key] for n, r in rr.items()}

    def floor(b_of):
        return lambda n, d: floor_exp_d1(n, b_of(n), d)

    grown, fixed = (lambda n: math.log(n) + b_offset), (lambda n: b_offset)
    margin = {name: min(floor_exp_d1(n, b_of(n), d) - tau for n in ns for d in deltas)
              for name, b_of in (("grown", grown), ("fixed", fixed))}
    return {
        "4.1.1": dict(ratio=worst_ratio(row(("linear", 0)), above, tau_d0, deltas),
                      control=worst_ratio(row(("linear", 0)), above, lambda n, d: tau_d0(n, d, 1.0), deltas)),
        "4.1.2": dict(ratio=worst_ratio(row(("softmax", 0)), above, tau_d0, deltas),
                      control=worst_ratio(row(("softmax", 1)), above, tau_d0, deltas)),
        "4.2.1": dict(ratio=worst_ratio(row(("linear", 1)), above, tau_lin_d1, deltas),
                      control=worst_ratio(row(("softmax", 1)), above, tau_lin_d1, deltas)),
        "4.2.2": dict(ratio=worst_ratio(row(("softmax", 1)), below, floor(grown), deltas), margin=margin["grown"],
                      control=worst_ratio(row(("softmax", 1), flat), below, floor(fixed), deltas),
                      control_margin=margin["fixed"]),
        "4.2.3": dict(miss=max(sign_miss(r["softmax", 1], r["j"]) for r in rows.values()),
                      control=min(sign_miss(r["linear", 1], r["j"]) for r in rows.values())),
    }
