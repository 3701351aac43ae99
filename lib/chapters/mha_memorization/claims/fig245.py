"""The stored paper-scale subsets of Fig. 2(b), 2(c) (:mod:`~.fig2bc`), 4, 5 (:mod:`~.fig45`) and the second seed
of Fig. 2(a) (here) on the page
(Mahdavi et al. 2024, Sec. 5.2, App. A, App. I.1): read back from ``book/evidence/mha-memorization/`` (declared in
:mod:`~lib.chapters.mha_memorization.evidence`), drawn and judged. Nothing is trained. Every claim is ``not run``
(with its stored count, its cost and its command) until its sweep is complete and current. Criteria, declared
before any run:

* ``fig2b-monotone-paper-scale``: at every stored T (``fig2b``'s, and ``fig2b-14k``'s once complete) the memorized count strictly increases with n, except
  between two saturated models (accuracy ≥ 0.95, as Fig. 2(a)); control: the same counts in the reversed order of
  n, through the same criterion (it passes if the counts fall with n or every model is saturated). ``fig2b-n1-paper-scale`` (sanity): at n = 1 the shared context has one
  key, every output is the same, and the accuracy is at most the labels' majority fraction.
* ``fig2c-up-to-n-paper-scale``: acc(d_h = n) − acc(smallest d_h) ≥ 0.05; control: the same criterion beyond n,
  acc(largest d_h) − acc(d_h = n) ≥ 0.05. ``fig2c-no-gain-paper-scale``: acc(largest d_h) − acc(d_h = n) < 0.05;
  control: the same criterion below n. The 0.05 is the book-scale claims' (:func:`~.gd.dh_claims`).
* ``fig4-linear-paper-scale``: Fig. 2(a)'s line criterion (R² ≥ 0.98 and ≥ that of a H² + b on the points of
  accuracy ≤ 0.95, at least 3 of them); control: the rival a H² + b. ``fig4-context-paper-scale`` (the context
  panel, the sweep ``fig4-context``, declared after the head panel's run with the
  criterion written before it): the line in n fails that criterion (R² < 0.98 or below a √n + b); control: the
  head panel through the same criterion (:func:`line_weak`).
* ``fig5a-monotone-paper-scale`` / ``fig5b-monotone-paper-scale``: at every stored T (``fig5``'s, and
  ``fig5-rest``'s once complete) the training MSE strictly decreases with H / with n, except between two models both below an MSE of 1e-4 (0.1% of the labels' variance 1/12); control: the
  same MSEs in the reversed order of H / n, through the same criterion. (An earlier control, the H = 1 / n = 1 value
  at every point, could not pass on any data: a constant sequence never decreases strictly.) ``fig5b-n1-paper-scale`` (sanity): at n = 1 every
  output is the same, so the MSE is at least the labels' variance (the best constant).
* ``fig2a-seeds-paper-scale``: the count increases with H at every T on seed 1 as well (the stored seed-0
  criterion); control: the seed difference (seed 1 − seed 0 count at each H) through the same criterion.
"""
from __future__ import annotations

from lib.book import evidence as store
from lib.chapters.mha_memorization import evidence as EV
from lib.chapters.mha_memorization import figures as mha_plots
from lib.chapters.mha_memorization.claims.fig2a import READINGS, SATURATED, curves, increasing
from lib.chapters.mha_memorization.claims.paper_scale import CHAPTER, CRITERIA, ROWS, STATEMENTS, _needs, pending
from lib.chapters.mha_memorization.claims.fig2bc import fig2c_note, report_fig2b, report_fig2c
from lib.chapters.mha_memorization.claims.fig45 import fig4_note, report_fig4, report_fig5
from lib.chapters.mha_memorization.claims.fig4_gpu import fig4_gpu_note, report_fig4_gpu
from lib.core import robust
from lib.core.claims import EXPERIMENT, Claims, Control, Scale


# ---- Fig. 2(a), second seed -------------------------------------------------------------------------------------
def report_fig2a_seed1(C: Claims) -> dict:
    """The second seed of Fig. 2(a) against the first: the monotone claim on seed 1, with the seed difference as
    control. Returns {T: (H, counts seed 0, counts seed 1)} ({} while not run)."""
    ev, sw = store.load(CHAPTER, "fig2a-seed1"), EV.SWEEPS["fig2a-seed1"]
    print(ev.label)
    ev0 = store.load(CHAPTER, "fig2a")
    if pending(C, ev, sw, sw["claims"]) or _needs(C, "fig2a-seeds-paper-scale", "fig2a"):
        return {}
    c0, c1 = curves(ev0.points), curves(ev.points)
    diff = {T: [b - a for a, b in zip(c0[T][2], c1[T][2], strict=True)] for T in c1}
    acc = {T: [min(a, b) for a, b in zip(c0[T][1], c1[T][1], strict=True)] for T in c1}
    gap = max(abs(a - b) for T in c1 for a, b in zip(c0[T][1], c1[T][1], strict=True))
    sc = Scale(ours=f"all {ev.total} points of the paper's grid, seed 1 next to seed 0", paper=sw["paper"])
    C.check("fig2a-seeds-paper-scale", STATEMENTS["fig2a-seeds-paper-scale"][0], paper="increasing",
            ours="counts memorized (accuracy · T, chance included): "
                 + "; ".join(f"T={T}: " + " ".join(f"{x:.0f}" for x in c[2]) for T, c in c1.items())
            + f"; largest |accuracy seed 1 − seed 0| {gap:.4f}",
            ok=all(increasing(c[2], c[1], SATURATED) for c in c1.values()), kind=EXPERIMENT, stable=False, scale=sc,
            criterion=CRITERIA["fig2a-seeds-paper-scale"],
            variants=robust.thresholds(lambda lv: all(increasing(c[2], c[1], lv) for c in c1.values()),
                                       [lv for lv in READINGS if lv != SATURATED], "saturation threshold (accuracy)")
            + robust.rejudge(lambda c: all(increasing(x[2][1:], x[1][1:], SATURATED) for x in c.values()),
                             {"drop H = 1 (the chance floor)": c1}),
            control=Control("the seed difference (seed 1 − seed 0 count at each H) through the same criterion",
                            passed=all(increasing(diff[T], acc[T], SATURATED) for T in c1)))
    return {T: (c1[T][0], c0[T][2], c1[T][2]) for T in c1}


# ---- the page ---------------------------------------------------------------------------------------------------
def table(C: Claims) -> str:
    """Markdown: per figure, the paper's setting and statement (it prints no per-point values) beside our stored
    subset, its cost and our verdicts."""
    sws = store.sweeps(CHAPTER)
    head = ("| figure | paper: setting | paper: statement | ours: stored subset | CPU-hours | ours: verdicts |\n"
            "|---|---|---|---|---|---|\n")
    rows = []
    for fig, name, setting, statement, ids in ROWS:
        sw, ev = sws[name], store.load(CHAPTER, name)
        h = ev.cpu_hours if ev.complete else len(sw["points"]) * sw["cost_s"] / 3600
        cost = f"{ev.gpu_hours:.2f} on a GPU" if ev.gpu else f"{h:.2f}{'' if ev.complete else ' (estimated)'}"
        rows.append(f"| {fig} | {setting} | {statement} | {sw['what'].split(': ', 1)[-1]} ({len(ev.points)}/{ev.total} "
                    f"stored) | {cost} | "
                    + "; ".join(f"`{i}` {C.claims[i].verdict}" for i in ids if i in C.claims) + " |")
    return head + "\n".join(rows)


def status() -> str:
    """Markdown: the state of each declared subset, read from the evidence store (complete, stale, partial, absent)."""
    out = []
    for fig, name, *_ in ROWS:
        ev = store.load(CHAPTER, name)
        state = (f"stale ({ev.reason}), {len(ev.points)} of {ev.total} points" if ev.stale else
                 f"complete, {ev.total} points" if ev.complete else
                 f"{len(ev.points)} of {ev.total} points stored" if ev.points else f"declared, none of {ev.total} points "
                 "stored")
        out.append(f"{fig} (`{name}`): {state}")
    return ("**Stored now** (read from `book/evidence/mha-memorization/`): " + "; ".join(out) + ". The rest of Fig. "
            f"4's official grid would cost about {EV.LEFT_4 / 3600:.0f} CPU-hours at the measured rates, without early "
            "stops: the GPU sweeps above hold it, and the `paper` preset runs it on a GPU.")


def report(C: Claims) -> str:
    """Read, draw and judge every stored subset (module docstring) and the official Fig. 4 grid trained on a GPU
    (:mod:`~.fig4_gpu`), and print the verdict lines; returns the Markdown of the paper's statements beside ours
    (:func:`table`) followed by the notes on reading Fig. 2(c) and Fig. 4."""
    b = report_fig2b(C)
    c, f4, f5 = report_fig2c(C), report_fig4(C, b), report_fig5(C)
    gpu = report_fig4_gpu(C, b)
    report_fig2a_seed1(C)
    mha_plots.paper_scale_panels(b, c, f4, f5, gpu)
    C.lines()
    return "\n\n".join(x for x in (table(C), fig2c_note(C), fig4_note(C, f4), fig4_gpu_note(C, gpu)) if x)
