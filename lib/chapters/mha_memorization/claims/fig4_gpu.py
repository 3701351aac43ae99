"""Fig. 4 on the official grid, trained on a GPU (Mahdavi et al. 2024, App. I.1): the head panel at every H of the
paper and the context panel at every n, at the official T a lease reached (sweeps ``fig4-gpu``,
``fig4-context-gpu`` of :mod:`~lib.chapters.mha_memorization.evidence`). Judged at every official T whose panel is
complete, by the criteria of the CPU subsets (:mod:`~.fig45`), with the same analysis variants; and the points
both machines trained, compared.
"""
from __future__ import annotations

from lib.book import evidence as store
from lib.book import stored_claims
from lib.chapters.mha_memorization.claims.fig2a import line_judge, line_variants, r2
from lib.chapters.mha_memorization.claims.fig45 import growth
from lib.chapters.mha_memorization.claims.paper_scale import (CHAPTER, CRITERIA, PLATEAU, STATEMENTS, SATURATED,
                                                              above, kind)
from lib.core import robust
from lib.core.claims import Claims, Control, Scale
from lib.engine.sweep import point_key

TOL_MACHINES = 0.01     # fig4-gpu-reproduces-cpu: largest |accuracy GPU − CPU| at a shared point
TIE_R2 = 0.005          # the note's reading of the head panel: two fits whose R² differ by less are not distinguished


def complete_panels(ev: store.Evidence, x: str, size: int = 8) -> dict[int, tuple[list, list, list, list]]:
    """{T: (x values, accuracies, counts above chance, majority fractions)} for every T with ``size`` stored points
    (a panel the lease completed), the counts above chance of :func:`~.paper_scale.above` (per-example contexts)."""
    out = {}
    for T in sorted({p["T"] for p in ev.points}):
        if sum(p["T"] == T for p in ev.points) == size:
            xs, mem, acc, ch = above(ev.points, x, shared=False, T=T)
            out[T] = (xs, acc, mem, ch)
    return out


def _not_run(C: Claims, i: str, ev: store.Evidence) -> None:
    C.not_run(i, STATEMENTS[i][0], paper=STATEMENTS[i][1], kind=kind(i),
              reason=stored_claims.pending_reason([ev], CRITERIA[i]) or f"criterion (declared): {CRITERIA[i]}")


def fig4_linear_gpu(C: Claims, ev: store.Evidence) -> dict:
    """``fig4-linear-gpu``: :func:`~.fig2a.line_judge` on every complete T of the head panel; control: the rival
    a H² + b through the same criterion; variants: :func:`~.fig2a.line_variants`. Returns the panels."""
    i, cur = "fig4-linear-gpu", complete_panels(ev, "H")
    if not cur:
        _not_run(C, i, ev)
        return {}
    ok, fits = line_judge(cur)
    rival = all(_quad_wins(c) for c in cur.values())
    sc = Scale(ours=f"n = 32, H = 1..60 (all eight), T = {', '.join(f'{T:,}' for T in cur)} of 30k..130k, one "
                    f"seed, on a GPU", paper="H = 1..60, T = 30k..130k")
    C.check(i, STATEMENTS[i][0], paper=STATEMENTS[i][1], kind=kind(i), stable=False, scale=sc,
            ours=fits + "; counts above chance " + "; ".join(
                f"T={T:,}: " + " ".join(f"{m:.0f}" for m in c[2]) for T, c in cur.items()),
            ok=ok, criterion=CRITERIA[i], variants=line_variants(cur),
            control=Control("the rival curve a H² + b through the same criterion (R² ≥ 0.98 and at least the line's)",
                            passed=rival))
    return cur


def _quad_wins(c: tuple) -> bool:
    """The rival's side of the line criterion on one panel: R² of a H² + b ≥ 0.98 and ≥ that of the line."""
    Hs, acc, mem, _ = c
    keep = [k for k, a in enumerate(acc) if a <= SATURATED]
    if len(keep) < 3:
        return False
    x, y = [Hs[k] for k in keep], [mem[k] for k in keep]
    q = r2([h * h for h in x], y)
    return q >= 0.98 and q >= r2(x, y)


def fig4_plateau_gpu(C: Claims, ev: store.Evidence, fig2b: dict) -> dict:
    """``fig4-context-plateau-gpu``: count(largest n) / count(n = 5) ≤ PLATEAU at every complete T of the context
    panel whose accuracies stay ≤ SATURATED (where the data set is a ceiling, a flat count says nothing of capacity);
    control: Fig. 2(b)'s shared context ({T: (n, counts, accuracies)}, its largest T); variants: the flat
    threshold, growth from n = 10, the largest n dropped, chance included, each T alone, the saturated T included.
    Returns every complete panel."""
    i, every = "fig4-context-plateau-gpu", complete_panels(ev, "n")
    cur = {T: c for T, c in every.items() if max(c[1]) <= SATURATED}     # the data set is no ceiling at this T
    if not cur or not fig2b:
        _not_run(C, i, ev)
        return every
    g = {T: growth(ns, mem) for T, (ns, _, mem, _) in cur.items()}
    judge = lambda gs, t=PLATEAU: (all(v <= t for v in gs.values()),  # noqa: E731
                                   ", ".join(f"T={T:,}: {v:.2f}" for T, v in gs.items()))
    var = robust.thresholds(lambda t: judge(g, t), (1.1, 1.5), "flat threshold (growth ratio)")
    var += robust.rejudge(judge, {
        "growth from n = 10 (not 5)": {T: growth(ns, mem, 10) for T, (ns, _, mem, _) in cur.items()},
        "the largest n dropped": {T: growth(ns[:-1], mem[:-1]) for T, (ns, _, mem, _) in cur.items()},
        "counts with chance included (accuracy · T)": {T: acc[-1] / acc[ns.index(5)]
                                                       for T, (ns, acc, _, _) in cur.items()}})
    if len(cur) > 1:
        var += robust.rejudge(judge, {f"T = {T:,} alone": {T: v} for T, v in g.items()})
    if len(every) > len(cur):
        var += robust.rejudge(judge, {"the T at the data set's ceiling included (" + ", ".join(
            f"{T:,}" for T in every if T not in cur) + ")": {T: growth(c[0], c[2]) for T, c in every.items()}})
    Tb = max(fig2b)
    nb, mb, _ = fig2b[Tb]
    gb = growth(nb, mb)
    sc = Scale(ours=f"H = 20, n = 1..60 (all eight), T = {', '.join(f'{T:,}' for T in cur)} of 20k..60k, one seed, "
                    f"on a GPU", paper="H = 20, n = 1..60, T = 20k..60k")
    C.check(i, STATEMENTS[i][0], paper=STATEMENTS[i][1], kind=kind(i), stable=False, scale=sc,
            ours="count at n = 60 / at n = 5: " + judge(g)[1], ok=judge(g)[0], criterion=CRITERIA[i], variants=var,
            control=Control(f"Fig. 2(b)'s shared context (H = 20, T = {Tb:,}), the same ratio", passed=gb <= PLATEAU,
                            value=f"{gb:.2f}"))
    return every


def gpu_vs_cpu(C: Claims, pairs: list[tuple[str, str]]) -> None:
    """``fig4-gpu-reproduces-cpu``: the points stored by a GPU sweep and by its CPU subset (``pairs`` of sweep names),
    best accuracy compared."""
    i, diffs = "fig4-gpu-reproduces-cpu", []
    for gpu, cpu in pairs:
        key = lambda p: point_key({k: p[k] for k in ("panel", "H", "n", "T", "seed")})  # noqa: E731
        a = {key(p): p["best_acc"] for p in store.load(CHAPTER, cpu).points}
        diffs += [abs(p["best_acc"] - a[key(p)]) for p in store.load(CHAPTER, gpu).points if key(p) in a]
    if not diffs:
        evs = [store.load(CHAPTER, g) for g, _ in pairs]
        C.not_run(i, STATEMENTS[i][0], paper=STATEMENTS[i][1], kind=kind(i),
                  reason=stored_claims.pending_reason(evs, CRITERIA[i])
                  or f"criterion (declared): {CRITERIA[i]}; not run: no point stored by both machines")
        return
    C.sanity(i, STATEMENTS[i][0], paper=STATEMENTS[i][1], ok=max(diffs) <= TOL_MACHINES, criterion=CRITERIA[i],
             ours=f"largest |Δ accuracy| {max(diffs):.4f} over {len(diffs)} points (mean {sum(diffs) / len(diffs):.4f})")


def report_fig4_gpu(C: Claims, fig2b: dict) -> dict:
    """Both GPU panels and the machines' agreement; prints the stored runs' labels. Returns {"H": {T: panel},
    "n": {T: panel}} (the panels that are complete)."""
    evH, evn = store.load(CHAPTER, "fig4-gpu"), store.load(CHAPTER, "fig4-context-gpu")
    print(evH.label)
    print(evn.label)
    out = {"H": fig4_linear_gpu(C, evH), "n": fig4_plateau_gpu(C, evn, fig2b)}
    gpu_vs_cpu(C, [("fig4-gpu", "fig4"), ("fig4-context-gpu", "fig4-context")])
    return out


def shape_text(cur: dict, tie: float = TIE_R2) -> str:
    """The head panel's shape, line against a H² + b, with the chance floor fitted and dropped (the points of
    :func:`~.fig2a.line_judge`: accuracy ≤ SATURATED; the floor: accuracy < FLOOR × the majority class): at every T
    the two R², and whether they differ by at least ``tie``."""
    from lib.chapters.mha_memorization.claims.fig2a import FLOOR
    out = []
    for floor, what in ((True, "with the chance floor fitted"), (False, "with the chance floor dropped")):
        fits = {}
        for T, (Hs, acc, mem, ch) in cur.items():
            k = [j for j, a in enumerate(acc) if a <= SATURATED and (floor or a >= FLOOR * ch[j])]
            if len(k) >= 3:
                x, y = [Hs[j] for j in k], [mem[j] for j in k]
                fits[T] = (r2(x, y), r2([h * h for h in x], y))
        if not fits:
            continue
        d = [q - lin for lin, q in fits.values()]
        shape = ("a H² + b fits better than a line" if all(v >= tie for v in d) else
                 "a line fits better than a H² + b" if all(v <= -tie for v in d) else
                 "the line and a H² + b are not distinguishable" if all(abs(v) < tie for v in d) else
                 "neither fit is better at every T")
        out.append(f"{what}, {shape} (R² line against a H² + b: " + ", ".join(
            f"{lin:.3f} against {q:.3f} at T = {T:,}" for T, (lin, q) in fits.items()) + ")")
    return (f"Reading two fits whose R² differ by less than {tie:g} as not distinguishable: " + "; ".join(out)
            if out else "")


def fig4_gpu_note(C: Claims, gpu: dict) -> str:
    """Markdown: what the official grid adds to the CPU subset (the head panel's shape at every H, the machines'
    agreement), from :func:`report_fig4_gpu`'s panels; '' while nothing is judged."""
    cur, i = gpu.get("H") or {}, "fig4-linear-gpu"
    if not cur or C.claims[i].verdict == "not run at this preset":
        return ""
    rows, rising = [], True
    for T, (Hs, acc, mem, _) in cur.items():
        k = [j for j, a in enumerate(acc) if a <= SATURATED]
        per = [(mem[b] - mem[a]) / (Hs[b] - Hs[a]) for a, b in zip(k, k[1:], strict=False)]
        rising &= all(q > p for p, q in zip(per, per[1:], strict=False))
        rows.append(f"T = {T:,}: " + ", ".join(f"{p:.0f}" for p in per)
                    + f" per added head between H = {', '.join(str(Hs[j]) for j in k)}")
    out = ("**Fig. 4 on the official grid (GPU).** Every H of the paper at the official T a lease reached: the count "
           f"above chance gains {'more per head as H grows' if rising else 'per head'} (" + "; ".join(rows) + "). "
           + shape_text(cur) + ". ")
    c = C.claims[i]
    if c.flips:
        out += f"The line criterion fails as declared; it holds under: {'; '.join(c.flips)}. "
    s = C.claims.get("fig4-gpu-reproduces-cpu")
    if s is not None and s.verdict != "not run at this preset":
        out += f"The points both machines trained agree ({s.ours}). "
    return out + "One seed."
