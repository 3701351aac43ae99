"""Exp. 4 / Fig. 2b: the exponent k of associations per head ~ d^k against a rival k: the fitted k within
the claimed k's window and the claimed fixed-k fit leaving at most 1/2 of the rival's residual
(:func:`exponent_test`), on slopes of the points before saturation
(:func:`~lib.chapters.aot_memorization.train.truncate_saturated`); the live grid's claims (:func:`live`)."""
from __future__ import annotations

import numpy as np

from lib.chapters.aot_memorization import theory as aot
from lib.chapters.aot_memorization import train as AT
from lib.chapters.aot_memorization.claims import skeptic as SK
from lib.chapters.aot_memorization.claims.common import MODEL_NAME, model_id, prints_verdicts
from lib.core import claims as K
from lib.core import stats
from lib.core.claims import EXPERIMENT, Claims, Control
from lib.core.fit import linear_fit
from lib.core.stats import power_exponent

EXPONENT_MARGIN = 2.0      # the claimed exponent's fit must leave at most 1/2 of the rival's residual


EXPONENT_WINDOW = 0.2      # |k - claimed k| <= 0.2, or half the distance to the rival when that is smaller


def per_head(slopes: dict, N: int) -> tuple[np.ndarray, np.ndarray]:
    """(the d with a positive slope, associations per head slope T0 / (1 - 1/N) there): Exp. 4's curve."""
    ds = np.array([d for d in sorted(slopes) if slopes[d] > 0], float)
    return ds, np.array([slopes[int(d)] for d in ds]) * N * N / (1 - 1 / N)


def exponent(slopes: dict, N: int) -> float:
    """The exponent k of associations per head ~ d^k (:func:`lib.core.stats.power_exponent`)."""
    return power_exponent(*per_head(slopes, N))


def exponent_window(k_claim: float, k_rival: float) -> float:
    """The window around the claimed exponent: 0.2, or half the distance to the rival when that is smaller (so that
    the claimed and the rival windows are disjoint)."""
    return min(EXPONENT_WINDOW, abs(k_claim - k_rival) / 2)


def exponent_criterion(k_claim: float, k_rival: float, claim: str, rival: str) -> str:
    """The exponent claims' criterion (:func:`exponent_test`), in words."""
    return (f"|k - {k_claim:.2f}| <= {exponent_window(k_claim, k_rival):.2f} (min(0.2, half the distance to the rival): "
            f"disjoint from the rival's window), and the fit log(associations per head) = k log d + c (c free) with "
            f"k = {k_claim:.2f} ({claim}) leaves at most 1/{EXPONENT_MARGIN:g} of the residual sum of squares of the same "
            f"fit with k = {k_rival:.2f} ({rival})")


def fixed_exponent_ss(slopes: dict, N: int, k: float) -> float:
    """Residual sum of squares of log(associations per head) = k log d + c, k fixed (:mod:`lib.core.stats`)."""
    return stats.fixed_exponent_ss(*per_head(slopes, N), k)


def exponent_test(slopes: dict, N: int, k_claim: float, k_rival: float) -> bool:
    """The exponent criterion (:func:`exponent_criterion`) for ``k_claim`` against ``k_rival``."""
    k = exponent(slopes, N)
    w = exponent_window(k_claim, k_rival)
    sc, sr = fixed_exponent_ss(slopes, N, k_claim), fixed_exponent_ss(slopes, N, k_rival)
    return bool(np.isfinite(k) and abs(k - k_claim) <= w and EXPONENT_MARGIN * sc <= sr)


def rival_data(which: str) -> tuple[str, dict, int]:
    """(description, slopes, N) of a published data set whose fit gives a rival exponent: the control of an exponent
    claim is that data through the same test (it must fail: the test tells the rival's own points from the claim)."""
    P, Hs = aot.PAPER, aot.PAPER["exp1_H"]
    return {"v1": ("the v1 CSV's points (Fig. 1a, N = 50: the data behind v1's 'cubic'), same test",
                   AT.csv_slopes(P["exp1_v1"], Hs), 50),
            "v2": ("the v2 CSV's points (Fig. 1a, N = 50, d = 3..13), same test",
                   AT.paper_slopes(), 50),
            "b1": ("the B.1 CSV's points (N = 200, d = 40..60: the data behind the rival exponent), same test",
                   AT.csv_slopes(P["b1_exp1"], P["b1_exp1_H"]), 200)}[which]


def exponent_check(C: Claims, cid: str, statement: str, slopes: dict, N: int, k_claim: float, k_rival: float,
                   claim: str, rival: str, paper: str, scale, rival_set: str, variants: list | None = None) -> K.Claim:
    """An exponent claim: the fitted k within the claimed exponent's window and the claimed fixed-exponent fit
    better than the rival's by :data:`EXPONENT_MARGIN`; the control is a published data set whose own exponent is the
    rival's (:func:`rival_data`) through the same test; ``variants``: the same test under a skeptic's choices
    (:func:`~.skeptic.exp1_variants`)."""
    k = exponent(slopes, N)
    sc, sr = fixed_exponent_ss(slopes, N, k_claim), fixed_exponent_ss(slopes, N, k_rival)
    desc, cs, cN = rival_data(rival_set)
    return C.check(cid, statement, paper=paper,
                   ours=f"k = {k:.2f}; residual SS {sc:.3g} at k = {k_claim:.2f} vs {sr:.3g} at k = {k_rival:.2f}",
                   ok=exponent_test(slopes, N, k_claim, k_rival),
                   criterion=exponent_criterion(k_claim, k_rival, claim, rival),
                   stable=False, kind=EXPERIMENT, scale=scale,
                   control=Control(desc, exponent_test(cs, cN, k_claim, k_rival), f"k = {exponent(cs, cN):.2f}"),
                   variants=variants)


def exponent_claim(C: Claims, cid: str, statement: str, D: dict, k_claim: float, k_rival: float, claim: str,
                   rival: str, paper: str, scale, rival_set: str, srcs: tuple = (None, None)) -> K.Claim:
    """:func:`exponent_check` on an Exp. 1 grid ``D`` (:func:`~.skeptic.grid`), with its variants: each truncation rule,
    each seed alone, each head count and each dimension left out. ``srcs``: the CSV (v2, v1, b1) whose exponent the
    claimed and the rival k are, if any; under a variant it is recomputed by the same truncation and head counts."""
    var = SK.exp1_variants(SK.exponent_judge(srcs[0] or k_claim, srcs[1] or k_rival), D)
    return exponent_check(C, cid, statement, SK.slopes(D), D["N"], k_claim, k_rival, claim, rival, paper, scale,
                          rival_set, var)


# ---- the page's live grid (book preset) ----
def loglog_exponent(sl: dict, N: int) -> float:
    """The exponent k of associations per head ~ d^k: the log-log slope over the d with a positive slope."""
    ds = np.array([d for d in sorted(sl) if sl[d] > 0], float)
    a = np.array([sl[int(d)] for d in ds]) * N * N / (1 - 1 / N)
    return linear_fit(np.log(ds), np.log(a)).slope if len(ds) >= 2 else float("nan")


@prints_verdicts
def live(C: Claims, P: dict, ex1: dict, slopes_by: dict, k_ours: dict, k_paper: float, pslopes: dict, common: list, xr: dict, v0: str) -> None:
    """Exp. 4 / Fig. 2b on the page's grid: the exponent of associations per head against the v2 data's and v1's
    cubic (each model), and ours against the paper's per head at the same d (``xr``, model ``v0``)."""
    for i, (v, _k) in enumerate(k_ours.items()):
        sfx, name = ("", "exp1") if i == 0 else (model_id(v), f"exp1_{v}")
        sc4 = AT.scale(P, name, extra=(len(slopes_by[v]) >= 3, "needs >= 3 values of d = d_h with a slope"))
        D4 = SK.grid(ex1[v], P["exp1_d"], P["exp1_H"], P["train_N"])
        exponent_claim(C, "exp4-exponent" + sfx, f"Exp. 4 / Fig. 2b (v2): the per-head coefficient grows like d^k with the v2 data's k, not v1's cubic [{MODEL_NAME.get(v, v)} model]",
                                   D4, k_paper, 3.0, "v2 CSV", "v1 cubic", f"{k_paper:.2f} (v2 CSV)", sc4, "v1", ("v2", None))
        exponent_claim(C, "exp4-cubic-v1" + sfx, "Exp. 4 / Fig. 2b: v1's 'cubic' carried over to v2's recipe (book scale): the per-head coefficient "
                       f"grows like d^3, not with the v2 data's k [{MODEL_NAME.get(v, v)} model]",
                                   D4, 3.0, k_paper, "v1 cubic", "v2 CSV", "3 (v1 text)", sc4, "v2", (None, "v2"))
    xr_bound = {d: 1 / AT.slope_ratio(pslopes[d], 50, 2500, d) for d in common}   # a model storing d_h per head
    def per_head_ok(D):       # exp4-vs-paper's criterion on a grid D: ours / the v2 CSV's associations per head in [0.7, 1.4]
        r = {d: AT.slope_ratio(s_, D["N"], D["N"] ** 2, d) / AT.slope_ratio(pslopes[d], 50, 2500, d) for d, s_ in SK.slopes(D).items() if d in common}
        return bool(r) and all(0.7 <= x <= 1.4 for x in r.values()), ", ".join(f"x{x:.2f}" for x in r.values())
    C.check("exp4-vs-paper", f"Associations stored per head at the same d = d_h: ours (N = {P['train_N']}) vs the paper's v2 data (N = 50) [{v0} model]",
            paper="v2 CSV slopes x T0/(1-1/N)", ours=", ".join(f"d={d}: x{r:.2f}" for d, r in xr.items()) or "no common d",
            ok=bool(xr) and all(0.7 <= r <= 1.4 for r in xr.values()), criterion="ratio in [0.7, 1.4] for every common d", stable=False,
            kind=EXPERIMENT, scale=AT.scale(P, "exp1", extra=(bool(xr), "needs a d = d_h in common with the paper's grid 3..13")),
            control=("a model storing the bound's d_h per head", bool(xr_bound) and all(0.7 <= r <= 1.4 for r in xr_bound.values()),
                     ", ".join(f"x{r:.2f}" for r in xr_bound.values())),
            variants=SK.exp1_variants(per_head_ok, SK.grid(ex1[v0], P["exp1_d"], P["exp1_H"], P["train_N"]), loo_H=False, loo_d=False))
