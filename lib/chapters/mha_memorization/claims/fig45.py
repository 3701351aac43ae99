"""The stored paper-scale subsets of Fig. 4 (both panels) and Fig. 5 (Mahdavi et al. 2024, App. A, App. I.1), read
back from ``book/evidence/mha-memorization/`` and judged (criteria and statements: :mod:`~.paper_scale`, declared
before any run; the whole set of stored subsets is described in :mod:`~.fig245`).
"""
from __future__ import annotations

from lib.book import evidence as store
from lib.chapters.mha_memorization import evidence as EV
from lib.chapters.mha_memorization.claims.fig2a import FLOOR, READINGS, SATURATED, line_variants, r2_by_rival
from lib.chapters.mha_memorization.claims.paper_scale import (CHAPTER, CRITERIA, PLATEAU, STATEMENTS, _needs, above,
                                                              decreasing, extended, label_variance, pending, rises,
                                                              series)
from lib.core import robust
from lib.core.claims import EXPERIMENT, FINDING, HOLDS, NOT_RUN, SANITY, Claims, Control, Scale


def fig4_note(C: Claims, fig4: dict) -> str:
    """Markdown: how to read Fig. 4's stored panels together (the shape of the context panel, both panels' fits,
    whether the declared weakened-line claim could tell them apart, the dataset's ceiling, the paper's conjecture),
    from :func:`report_fig4`'s curves and fits; '' while the context claims are not judged."""
    ids = ("fig4-context-paper-scale", "fig4-context-plateau-paper-scale")
    if any(i not in C.claims or C.claims[i].verdict == NOT_RUN for i in ids):
        return ""
    (ns, mem, acc), f, fH = fig4["n"], fig4["r2n"], fig4["r2"]
    k, T, H, d = ns.index(5), EV.T_4, EV.H_4N, EV.RECIPE_4["d"]
    falls = sum(b < a for a, b in zip(mem[k:], mem[k + 1:], strict=False))
    out = (f"**Reading Fig. 4 at the paper's scale.** With per-example contexts (general position, H = {H}) the count "
           f"goes from {mem[0]:.0f} at n = 1 to {mem[k]:.0f} at n = 5 and then stays between {min(mem[k:]):.0f} and "
           f"{max(mem[k:]):.0f} up to n = {ns[-1]} ({falls} of the {len(ns) - k - 1} steps beyond n = 5 fall). A line in "
           f"n fits with R² {f['H']:.3f} and a √n + b with {f['√H']:.3f}; a line in H (n = 32) fits with "
           f"{fH['H']:.3f}, against {fH['√H']:.3f} for √H and {fH['H²']:.3f} for a H² + b. ")
    if C.claims[ids[0]].control["passed"]:
        out += ("The declared criterion of `fig4-context-paper-scale` asks only whether the line misses R² 0.98 or "
                "loses to the square root, and the head panel's line fails it too: that claim cannot tell the two "
                f"panels apart. `{ids[1]}`, declared when n = 1, 5, 10 were stored, compares the context panel with "
                "Fig. 2(b)'s shared context instead. ")
    out += f"The dataset is no ceiling here (accuracy at most {max(acc):.2f} of T = {T:,}). "
    if C.claims[ids[1]].verdict == HOLDS:
        out += ("A count that stops growing with n fits the paper's conjectured O(Hd) capacity in shape, not in size: "
                f"H(d − 1) + 1 = {H * (d - 1) + 1:,} is far below our counts, because the official model (an "
                "embedding, 100 classes, accuracy) is not the theorems' layer with real labels. ")
    return out + "One seed, one T."


# ---- Fig. 4, 5 ------------------------------------------------------------------------------------------------
def report_fig4(C: Claims, fig2b: dict) -> dict:
    """Fig. 4's stored panels: the line claim on the head panel, the weakened-line claim on the context panel (its
    control: the head panel) and the plateau finding (its control: ``fig2b``, :func:`report_fig2b`'s curves). Returns
    {"H": (H, counts, accuracies), "r2": {rival: R²}, "n": (n, counts, accuracies), "r2n": {rival: R²}}, each key
    present only when its run is complete."""
    ev, sw = store.load(CHAPTER, "fig4"), EV.SWEEPS["fig4"]
    print(ev.label)
    out: dict = {}
    if not pending(C, ev, sw, sw["claims"]):
        Hs, mem, acc, ch = above(ev.points, "H", shared=False)
        f = r2_by_rival(Hs, acc, mem, SATURATED)
        judged = sum(a <= SATURATED for a in acc) >= 3
        crit = lambda a, b: bool(judged and f[a] >= 0.98 and f[a] >= f[b])  # noqa: E731
        cur = {ev.points[0]["T"]: (Hs, acc, mem, ch)}
        sc = Scale(ours=f"n = 32, H = {', '.join(map(str, Hs))}, T = {ev.points[0]['T']:,}, one seed",
                   paper=sw["paper"])
        C.check("fig4-linear-paper-scale", STATEMENTS["fig4-linear-paper-scale"][0], paper="linear in H",
                kind=EXPERIMENT, ours=f"R² {f['H']:.3f} (H²: {f['H²']:.3f}); counts above chance "
                + " ".join(f"{m:.0f}" for m in mem), ok=crit("H", "H²"), stable=False, scale=sc,
                variants=line_variants(cur),
                criterion=CRITERIA["fig4-linear-paper-scale"],
                control=Control("the rival curve a H² + b", passed=crit("H²", "H"), value=f"{f['H²']:.3f}"))
        out.update(H=(Hs, mem, acc), r2=f)
    out.update(report_fig4_context(C, out, fig2b))
    return out


def line_weak(xs: list, acc: list, mem: list, level: float = SATURATED) -> tuple[bool, dict[str, float], int]:
    """The criterion of ``fig4-context-paper-scale`` on one panel: (the line count ~ a x + b fails, i.e. R² < 0.98 or
    below that of a √x + b, on ≥ 3 points of accuracy ≤ SATURATED; the R² of each rival; the number of points
    judged). Fewer than 3 judged points: False (nothing to judge)."""
    f = r2_by_rival(xs, acc, mem, level)
    k = sum(a <= level for a in acc)
    return bool(k >= 3 and not (f["H"] >= 0.98 and f["H"] >= f["√H"])), f, k


def report_fig4_context(C: Claims, head: dict, fig2b: dict) -> dict:
    """Fig. 4's stored context panel (H = 20, the head panel's T): "linearity in n weakened", judged by
    :func:`line_weak` (control: the head panel through the same criterion), and the plateau finding (control:
    Fig. 2(b)'s shared context, {T: (n, counts, accuracies)}). Returns {"n": ..., "r2n": ...} ({} while not run)."""
    ev, sw = store.load(CHAPTER, "fig4-context"), EV.SWEEPS["fig4-context"]
    print(ev.label)
    i = "fig4-context-paper-scale"
    if pending(C, ev, sw, sw["claims"]):
        return {}
    ns, mem, acc, ch = above(ev.points, "n", shared=False)
    out = {"n": (ns, mem, acc), "r2n": r2_by_rival(ns, acc, mem, SATURATED)}
    plateau(C, ns, mem, fig2b, acc)
    if not head and _needs(C, i, "fig4"):          # its control: the head panel
        return out
    ok, f, k = line_weak(ns, acc, mem)
    Hs, memH, accH = head["H"]
    okH, fH, kH = line_weak(Hs, accH, memH)
    keep = lambda sel: ([ns[i] for i in sel], [acc[i] for i in sel], [mem[i] for i in sel])  # noqa: E731
    lw = lambda sel, lv=SATURATED: (line_weak(*keep(sel), lv)[0], f"R² {line_weak(*keep(sel), lv)[1]['H']:.3f}")  # noqa: E731
    idx = list(range(len(ns)))
    floor = [i for i in idx if acc[i] >= FLOOR * ch[i]]
    var = robust.rejudge(lambda sel: lw(sel), {"drop the chance floor": floor} if len(floor) < len(idx) else {})
    var += robust.rejudge(lambda lv: lw(idx, lv), {f"non-saturated read as accuracy ≤ {lv:g}": lv for lv in READINGS
                                                    if lv != SATURATED and (sum(a <= lv for a in acc) != k)})
    var += robust.leave_one_out(lambda sel: lw(sel), idx, label=lambda i: f"n = {ns[i]}", min_left=3)
    sc = Scale(ours=f"H = 20, n = {', '.join(map(str, ns))}, T = {ev.points[0]['T']:,}, one seed", paper=sw["paper"])
    C.check(i, STATEMENTS[i][0], paper=STATEMENTS[i][1], kind=EXPERIMENT, stable=False, scale=sc,
            ours=f"R² of a line in n {f['H']:.3f} (√n: {f['√H']:.3f}; n²: {f['H²']:.3f}) on {k} points; counts above chance "
                 + " ".join(f"{m:.0f}" for m in mem),
            ok=ok, criterion=CRITERIA[i], variants=var,
            control=Control("the head panel (n = 32, the same T) through the same criterion: a line in H that fails "
                            "too would make the claim say nothing about n in particular", passed=okH,
                            value=f"R² of a line in H {fH['H']:.3f} (√H: {fH['√H']:.3f}) on {kH} points"))
    return out


def growth(ns: list, counts: list, n0: int = 5) -> float:
    """count(largest n) / count(n0): how much a curve still grows beyond n0."""
    return float(counts[-1] / counts[ns.index(n0)])


def plateau(C: Claims, ns: list, mem: list, fig2b: dict, acc_: list) -> None:
    """``fig4-context-plateau-paper-scale``: the context panel's growth beyond n = 5 is at most PLATEAU; control: the
    same growth on Fig. 2(b)'s shared context at its largest (least saturated) T."""
    i = "fig4-context-plateau-paper-scale"
    if not fig2b and _needs(C, i, "fig2b"):        # its control: Fig. 2(b)'s shared context
        return
    T = max(fig2b)
    nb, mb, _ = fig2b[T]
    g, gb = growth(ns, mem), growth(nb, mb)
    var = robust.thresholds(lambda t: (bool(g <= t), f"{g:.2f}"), (1.1, 1.5), "flat threshold (growth ratio)")
    var += robust.rejudge(lambda kw: (bool(kw["g"] <= PLATEAU), f"{kw['g']:.2f}"), {
        "growth from n = 10 (not 5)": dict(g=growth(ns, mem, 10)),
        f"growth to n = {ns[-2]} (the largest n dropped)": dict(g=growth(ns[:-1], mem[:-1])),
        "counts with chance included (accuracy · T)": dict(g=float(acc_[-1] / acc_[ns.index(5)]))})
    C.check(i, STATEMENTS[i][0], paper=STATEMENTS[i][1], kind=FINDING, stable=False,
            ours=f"count at n = {ns[-1]} / at n = 5: {g:.2f} ({mem[-1]:.0f} / {mem[ns.index(5)]:.0f}); at n = 1: "
                 f"{mem[0]:.0f} (counts above chance)", ok=g <= PLATEAU, criterion=CRITERIA[i], variants=var,
            control=Control(f"Fig. 2(b)'s shared context (H = 20, T = {T:,}), the same ratio", passed=gb <= PLATEAU,
                            value=f"{gb:.2f} ({mb[-1]:.0f} / {mb[nb.index(5)]:.0f})"))


def report_fig5(C: Claims) -> dict:
    """Fig. 5's stored panels: the two monotone claims (at every stored T) and the n = 1 sanity. Returns
    {"H": {T: (H, MSE)}, "n": {T: (n, MSE)}} ({} while not run)."""
    ev, sw = store.load(CHAPTER, "fig5"), EV.SWEEPS["fig5"]
    print(ev.label)
    if pending(C, ev, sw, sw["claims"]):
        return {}
    points = extended(ev, "fig5-rest")
    cur = {k: {T: series(points, k, "best_loss", panel=k, T=T)[:2]
               for T in sorted({p["T"] for p in points if p["panel"] == k})} for k in ("H", "n")}
    for id_, k in (("fig5a-monotone-paper-scale", "H"), ("fig5b-monotone-paper-scale", "n")):
        by_T = cur[k]
        every = lambda test, c=by_T: all(test(y) for _, y in c.values())                  # noqa: E731
        xs = next(iter(by_T.values()))[0]
        sc = Scale(ours=f"{k} = {', '.join(map(str, xs))} at T = {', '.join(f'{T:,}' for T in by_T)}, one seed",
                   paper=sw["paper"])
        var = robust.thresholds(lambda fl, e=every, b=by_T, k=k: (e(lambda y: decreasing(y, fl)), rises(b, k, fl)),
                                (0.0, 1e-3), "tie floor (MSE)")
        var += robust.rejudge(lambda e: (e(lambda y: decreasing(y[1:])), ""),
                              {f"drop {k} = 1 (the constant-output floor)": every})
        rev = [not decreasing(p) for _, m in by_T.values() for p in zip(m[::-1], m[::-1][1:], strict=False)]
        C.check(id_, STATEMENTS[id_][0], paper=STATEMENTS[id_][1], kind=EXPERIMENT, stable=False, scale=sc,
                ours="; ".join((f"T={T}: " if len(by_T) > 1 else "") + " ".join(f"{x:.2e}" for x in m)
                               for T, (_, m) in by_T.items()),
                ok=every(decreasing), criterion=CRITERIA[id_], variants=var,
                control=Control(f"the same MSEs in the reversed order of {k} (a model whose MSE rises with {k}), the "
                                "same criterion", passed=every(lambda m: decreasing(m[::-1])),
                                value=f"{sum(rev)} of {len(rev)} reversed steps fail"))
    n1 = [(p["best_loss"], label_variance(1, p["H"], p["T"], p["seed"])) for p in points if p["n"] == 1]
    C.check("fig5b-n1-paper-scale", STATEMENTS["fig5b-n1-paper-scale"][0], paper="capacity 1 at n = 1", kind=SANITY,
            ours=", ".join(f"MSE {m:.5f} ≥ variance {v:.5f}" for m, v in n1), stable=True,
            ok=all(m >= v * (1 - 1e-3) for m, v in n1), criterion=CRITERIA["fig5b-n1-paper-scale"])
    return cur
