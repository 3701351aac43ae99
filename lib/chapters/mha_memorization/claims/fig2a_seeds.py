"""Fig. 2(a) at paper scale seed by seed (Mahdavi et al. 2024, Sec. 5.2, Fig. 2a; stored sweeps ``fig2a`` and
``fig2a-seed1``): the paper's line criterion on each seed's count memorized above chance, and the shape the counts
show instead, an onset followed by a line, stated only if both seeds show it.

``fig2a-onset-line-paper-scale`` (finding): on every seed, at every T with at least 3 non-saturated points (accuracy
≤ 0.95) with H ≥ ``H_MIN``, the count above chance fits a line with R² ≥ 0.98 and at least that of a H² + b, and the
line crosses zero at H ≥ ``ONSET`` (a line through the origin would cross near 0; the small-H counts sit above the
extrapolated line: an onset). Control: the rival a H² + b through the same criterion (a convex curve also has a
chord that crosses zero late; it must lose to the line). While ``fig2a-seed1`` is incomplete, seed 1 is judged on
its complete H columns (the H stored at every T), and the claim says which points are missing.
"""
from __future__ import annotations

import numpy as np

from lib.book import evidence as store
from lib.chapters.mha_memorization import evidence as EV
from lib.chapters.mha_memorization.claims.fig2a import FLOOR, SATURATED, above_curves, line_judge, r2
from lib.core import robust
from lib.core.claims import FINDING, Claims, Control, Scale

H_MIN, ONSET, R2_MIN = 10, 3.0, 0.98


def seed_points() -> tuple[dict[int, list[dict]], str]:
    """{seed: points} of both seeds (seed 1 cut to its complete H columns while its sweep is incomplete) and a
    phrase saying what seed 1 is judged on."""
    ev0, ev1 = store.load(EV.CHAPTER, "fig2a"), store.load(EV.CHAPTER, "fig2a-seed1")
    if ev1.complete:
        return {0: ev0.points, 1: ev1.points}, "both seeds complete"
    have = {(p["H"], p["T"]) for p in ev1.points}
    miss = [(H, T) for H in EV.HEADS for T in EV.SIZES if (H, T) not in have]
    cols = [H for H in EV.HEADS if all((H, T) in have for T in EV.SIZES)]
    return ({0: ev0.points, 1: [p for p in ev1.points if p["H"] in cols]},
            f"seed 1 on its complete H columns (H = {', '.join(map(str, cols))}): `fig2a-seed1` has {len(ev1.points)} of "
            f"{ev1.total} points; missing " + ", ".join(f"H = {H} at T = {T // 1000}k" for H, T in miss))


def _fit(cur: dict, T: int, h_min: int, level: float, chance: bool) -> tuple[list, list] | None:
    """The judged points of one T: H ≥ h_min, accuracy ≤ level; counts above chance (or accuracy · T)."""
    Hs, acc, mem, ch = cur[T]
    k = [i for i, (H, a) in enumerate(zip(Hs, acc, strict=True)) if H >= h_min and a <= level]
    if len(k) < 3:
        return None
    return [Hs[i] for i in k], [mem[i] + (ch[i] * T if chance else 0.0) for i in k]


def onset_judge(cur: dict, h_min: int = H_MIN, level: float = SATURATED, r2_min: float = R2_MIN,
                onset: float = ONSET, chance: bool = False, curve: str = "line", drop: tuple = ()) -> tuple[bool, str]:
    """The shape on one seed's curves (:func:`~.fig2a.above_curves`): at every T with ≥ 3 judged points, R² of
    ``curve`` (line: a H + b; "H²": a H² + b) ≥ ``r2_min`` and ≥ the other's, zero crossing ≥ ``onset``."""
    out, ok = [], []
    if drop:
        cur = {T: tuple(map(list, zip(*[r for r in zip(*c, strict=True) if r[0] not in drop], strict=True)))
               for T, c in cur.items()}
    for T in cur:
        xy = _fit(cur, T, h_min, level, chance)
        if xy is None:
            continue
        x, y = np.array(xy[0], float), np.array(xy[1], float)
        lin, quad = r2(x, y), r2(x ** 2, y)
        a, b = np.polyfit(x ** 2 if curve == "H²" else x, y, 1)
        zero = float(np.sqrt(max(-b / a, 0.0)) if curve == "H²" else -b / a)
        mine, other = (quad, lin) if curve == "H²" else (lin, quad)
        ok.append(mine >= r2_min and mine >= other and zero >= onset)
        out.append(f"T={T // 1000}k: {a:.0f}{'·H²' if curve == 'H²' else ''} per head, R² {mine:.3f} (rival "
                   f"{other:.3f}), zero at H ≈ {zero:.1f}")
    return bool(ok) and all(ok), "; ".join(out) or "no T with 3 points"


def margins(seeds: dict[int, list[dict]]) -> dict[tuple[int, int], float]:
    """{(seed, T): R² of the line − R² of a H² + b} on the points :func:`onset_judge` judges by default (H ≥ H_MIN,
    accuracy ≤ SATURATED, counts above chance), for ``seeds`` ({seed: points}): how far the line's win is from a tie."""
    out = {}
    for s, pts in seeds.items():
        cur = above_curves({0: pts})
        for T in cur:
            xy = _fit(cur, T, H_MIN, SATURATED, False)
            if xy is not None:
                x, y = np.array(xy[0], float), np.array(xy[1], float)
                out[(s, T)] = r2(x, y) - r2(x ** 2, y)
    return out


def both(seeds: dict[int, dict], **kw) -> tuple[bool, str]:
    """:func:`onset_judge` on every seed ({seed: curves}); holds only if it holds on each."""
    r = {s: onset_judge(c, **kw) for s, c in seeds.items()}
    return all(ok for ok, _ in r.values()), " | ".join(f"seed {s}: {v}" for s, (_, v) in r.items())


def onset_line(C: Claims, seeds: dict[int, list[dict]], which: str) -> None:
    """``fig2a-onset-line-paper-scale`` (module docstring) on ``seeds`` ({seed: points})."""
    cur = {s: above_curves({0: pts}) for s, pts in seeds.items()}
    ok, ours = both(cur)
    Hs = sorted({H for c in cur.values() for T in c for H in c[T][0] if H >= H_MIN})
    var = robust.rejudge(lambda kw: both(cur, **kw), {
        **{f"the line from H = {h} (not {H_MIN})": dict(h_min=h) for h in (5, 20)},
        **{f"R² threshold {t:g}": dict(r2_min=t) for t in (0.95, 0.99)},
        **{f"onset read as a zero crossing at H ≥ {o:g}": dict(onset=o) for o in (2.0, 5.0)},
        **{f"non-saturated read as accuracy ≤ {lv:g}": dict(level=lv) for lv in (0.9, 0.99)},
        "counts with chance included (accuracy · T)": dict(chance=True)})
    var += robust.leave_one_out(lambda hs: both(cur, drop=tuple(h for h in Hs if h not in hs)), Hs,
                                label=lambda h: f"H = {h}", min_left=3)
    C.check("fig2a-onset-line-paper-scale", f"Fig. 2(a) at paper scale, on each seed: the count memorized above chance "
            f"is an onset followed by a line: for H ≥ {H_MIN} a line (R² ≥ {R2_MIN}, better than a H² + b) that crosses "
            f"zero at H ≥ {ONSET:g}", kind=FINDING, stable=False, paper="linear in H (R² ≥ 0.98)", ours=ours, ok=ok,
            variants=var, scale=Scale(ours=f"d = 64, n = 32, seeds 0 and 1 ({which})", paper=EV.PAPER_2A),
            criterion=f"on each seed, at every T with ≥ 3 points of H ≥ {H_MIN} and accuracy ≤ {SATURATED}: R² of the "
                      f"line ≥ {R2_MIN} and ≥ that of a H² + b, and its zero crossing at H ≥ {ONSET:g}",
            control=Control("the rival a H² + b through the same criterion (R² ≥ 0.98 and above the line's, zero ≥ "
                            f"{ONSET:g}) on both seeds", *both(cur, curve="H²")))


def per_seed_table(seeds: dict[int, list[dict]]) -> str:
    """Markdown: the paper's line criterion (``fig2a-linear-paper-scale``'s) on each seed alone, with and without the
    chance floor (accuracy < 2× the majority fraction)."""
    rows = ["| seed | line criterion, counts above chance | verdict | chance floor dropped | verdict |",
            "|---|---|---|---|---|"]
    for s, pts in seeds.items():
        c = above_curves({0: pts})
        (a, av), (b, bv) = line_judge(c), line_judge(c, floor=False)
        rows.append(f"| {s} | {av} | {'✓' if a else '✗'} | {bv} | {'✓' if b else '✗'} |")
    return "\n".join(rows)


def report(C: Claims) -> str:
    """Record ``fig2a-onset-line-paper-scale``, print its verdict line; returns the per-seed line table and what seed 1
    is judged on (Markdown)."""
    seeds, which = seed_points()
    onset_line(C, seeds, which)
    C.lines()
    return (f"**Each seed alone** ({which}; chance floor: accuracy < {FLOOR:g}× the majority class):\n\n"
            + per_seed_table(seeds))
