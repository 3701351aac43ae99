"""Softmax vs linear attention: recording the theorems' two halves as claims (the chapter's bookkeeping).

:func:`softmax_claim` judges the probabilistic half (in-window counts against 1 - (1 - 2^-s)^m, with the
firing probability replaced by its rivals as the control); :func:`linear_claim` the deterministic half
(every row that must stay silent has l1 norm at most the closed form, which is below τ; the control sets τ
just below the closed form, where the worst readout fires).
"""
from __future__ import annotations

from typing import Sequence

from lib.chapters.softmax_vs_linear import montecarlo as sl_mc
from lib.chapters.softmax_vs_linear import theory as sl_theory
from lib.core.claims import THEOREM, Claims


def softmax_claim(C: Claims, cid: str, statement: str, panels: Sequence[sl_mc.Panel], s: int, m0: int,
                  alts: Sequence[float], R: int) -> None:
    """Every in-window count ~ Binomial(R, 1 - (1 - 2^-s)^m); the control replaces 2^-s by each of
    ``alts`` (it passes if any alternative fits every point). The test can tell the alternatives apart only
    where the success probabilities differ by more than the binomial noise: on the m panel, and on the
    other panels when their width m0 is not saturated (the chapter sweeps them at the most telling width)."""
    pts = sl_mc.window_points(panels, m0)
    n_m = sum(1 for pn in panels if pn.key == "m" for w in pn.in_window if w)
    agree = sl_mc.window_agree(pts, 2.0 ** -s, R)
    alt = {a: sl_mc.window_agree(pts, a, R) for a in alts}
    C.check(cid, statement, kind=THEOREM, paper=f"w.h.p. [read]; 1 − (1 − 1/{2 ** s})^m [high]",
            ours=f"{agree}/{len(pts)} in-window points agree ({n_m} of them in the m panel; the others at m = {m0}); "
                 f"ML fit of p1: {sl_mc.fit_p1(pts, R):.3f}",
            ok=bool(pts and agree == len(pts)), criterion=f"each within 4 sd + 1 of R(1 − (1 − 1/{2 ** s})^m)",
            stable=False,
            control=(f"firing probability {' or '.join(f'1/{round(1 / a)}' for a in alts)} in place of 1/{2 ** s}",
                     bool(pts and any(v == len(pts) for v in alt.values())),
                     "; ".join(f"1/{round(1 / a)}: {v}/{len(pts)}" for a, v in alt.items())))


def linear_claim(C: Claims, cid: str, statement: str, construction: str, n: int, k: int, b: float,
                 tau: float) -> None:
    """Every row that must stay silent has ||c||_1 <= the closed form < τ, so every readout W is silent:
    checked on the built network with the readout w* = sign(c) that attains the bound. The control is
    τ = closed form − 1/(2(n+1)), where w* fires."""
    rows = sl_theory.silent_rows(construction, n, k, b)
    built, bound = float(sl_theory.row_norms(rows).max()), sl_theory.silent_bound(construction, n, k, b)
    worst = sl_theory.worst_neuron_output(rows, tau)
    tau_c = bound - 0.5 / (n + 1)
    worst_c = sl_theory.worst_neuron_output(rows, tau_c)
    print(f"{construction}: largest silent row norm {built:.6f} (closed form {bound:.6f});\n"
          f"  worst readout at τ = {tau}: F = {worst:g}; at τ = {tau_c:.4f}: F = {worst_c:.4f}")
    exact = abs(built - bound) < 1e-12
    C.check(cid, statement, kind=THEOREM, paper="w.h.p. [read]; for every W [ours]",
            ours=f"max silent ||c||_1 = {bound:.4f} (built − closed form: {abs(built - bound):.0e}); "
                 f"worst readout F = {worst:g} at τ = {tau}",
            ok=bool(exact and worst == 0.0),
            criterion="built max norm = closed form (≤ 1e-12) and the worst neuron w* = sign(c) gives F = 0 "
                      "(then every W does)", stable=False,
            control=(f"τ = closed form − 1/(2(n+1)) = {tau_c:.4f}", bool(exact and worst_c == 0.0), f"F = {worst_c:.4f}"))
