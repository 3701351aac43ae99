"""The chapter's paper-scale evidence on the page, one experiment per section: Exp. 6 at the official v2
recipe, Exps. 2-3 at N = 50, d = 10, H = 20 (both models) and Exp. 1 / Fig. 1a's full grid, read from the
stored runs of :mod:`~lib.chapters.aot_memorization.evidence` and
:mod:`~lib.chapters.aot_memorization.evidence_exp1` (``python -m lib evidence aot-memorization``) without
recomputing anything, each beside the paper's v2 CSV and labelled as a stored run.

Every claim judged here names a stored sweep (the ids its declaration lists, ending in ``-paper-scale``); the
claims the stored seeds make decidable are added: the convexity of Exp. 2 and the plateau of Exp. 3 with
margins over seed noise, and the difference between the official code's model and eq. (2)'s. The training
code does not import this module, so editing it leaves the stored runs' fingerprint unchanged.
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from lib.book import evidence as E
from lib.chapters.aot_memorization import construction as aot
from lib.chapters.aot_memorization import evidence as EV
from lib.chapters.aot_memorization import train as AT
from lib.core import claims as K
from lib.core import plots
from lib.core.claims import EXPERIMENT, Claims, Control
from lib.core.fit import linear_fit

MODELS = ("official", "paper")
LABEL = {"official": "official code's model", "paper": "eq. (2) model"}


def load() -> dict:
    """The chapter's stored sweeps (:class:`lib.book.evidence.Evidence`), and their provenance printed."""
    sws = E.sweeps(EV.CHAPTER)
    evs = {n: E.load(EV.CHAPTER, n) for n in sws}
    for n, ev in evs.items():
        print(f"{n}: {sws[n]['what']}\n    {ev.label}")
    return evs


def _mean(points: list[dict], variant: str, x: str, key: str) -> tuple[list[int], list[float], list[float]]:
    """(x values, mean and std over repetitions of ``key``) of one model."""
    by: dict[int, list[float]] = {}
    for p in points:
        if p["variant"] == variant:
            by.setdefault(p[x], []).append(p[key])
    xs = sorted(by)
    return xs, [float(np.mean(by[v])) for v in xs], [float(np.std(by[v])) for v in xs]


def _ratio6(H, y) -> float:
    """Exp. 6's slope ratio (chapter rule): slope of the non-saturated part × T0 / ((1 - 1/N) d_h)."""
    x, yy = AT.truncate_saturated(H, y)
    if len(x) < 2:
        return float("nan")
    return float(np.polyfit(x, yy, 1)[0]) * 100 / ((1 - 1 / 10) * 2)


def _gap(xs, ys, paper: dict) -> float:
    """The largest |ours − paper| over the grid."""
    return max(abs(a - paper[v]) for v, a in zip(xs, ys, strict=True))


def _scale(ev, exp: str) -> K.Scale:
    what = E.sweeps(EV.CHAPTER)[exp]["what"]
    return K.Scale(ours=f"{len(ev.points)} trained models: " + what.split(": ", 1)[1], paper=AT.PAPER_SCALE[exp], enough=True)


def _not_run(C: Claims, ids: list[str], ev, paper: str) -> bool:
    """Record the sweep's claims as not run (no stored, stale or partial evidence); True if so."""
    if ev.complete:
        return False
    why = (f"stored evidence is stale ({ev.reason})" if ev.stale else ev.reason if not ev.points else
           f"{len(ev.points)} of {ev.total} points stored") + f"; run `{ev.command}`"
    for i in ids:
        C.not_run(i, f"{i}: needs the stored paper-scale run", paper=paper, reason=why, kind=EXPERIMENT)
    return True


def by_seed(ev, variant: str, x: str, key: str = "running_acc") -> dict[int, dict]:
    """{repetition: {x: value}} of one model in a stored sweep."""
    out: dict[int, dict] = {}
    for p in ev.points:
        if p["variant"] == variant:
            out.setdefault(p["rep"], {})[p[x]] = p[key]
    return out


def quad(x, y) -> tuple[float, float, float]:
    """(coefficient of x² of the least-squares a x² + b x + c, R² of that quadratic, R² of the line)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    X = np.stack([x ** 2, x, np.ones_like(x)], 1)
    c = np.linalg.lstsq(X, y, rcond=None)[0]
    res, tot = y - X @ c, ((y - y.mean()) ** 2).sum()
    return float(c[0]), float(1 - res @ res / tot), float(linear_fit(x, y).r2)


def _panel(ax, ev, x: str, paper: dict, bound: dict, xlabel: str, title: str) -> None:
    for i, v in enumerate(MODELS):
        xs, m, s = _mean(ev.points, v, x, "running_acc")
        if xs:
            ax.errorbar(xs, m, yerr=s, marker="o" if i == 0 else "x", ls="-" if i == 0 else ":",
                        color=plots.COLORS[2 * i], capsize=2, label=f"stored run, {LABEL[v]}")
    ax.plot(list(paper), list(paper.values()), **dict(plots.PAPER, label="paper (v2 CSV)"))
    ax.plot(list(bound), list(bound.values()), color="#1a7f37", lw=0.8, ls=":", label="bound phi(H min(d_h, d) + d)")
    ax.set(xlabel=xlabel, ylabel="running accuracy", ylim=(0, 1.05), title=title)
    ax.legend(fontsize=6)


def _table(ev, x: str, paper: dict, bound: dict) -> None:
    xs = sorted(paper)
    cols = {v: dict(zip(*_mean(ev.points, v, x, "running_acc")[:2], strict=True)) for v in MODELS}
    print(f"{x:>14} " + " ".join(f"{v:6d}" for v in xs))
    for v in MODELS:
        print(f"{'eq. (2) model' if v == 'paper' else 'official model':>14} " + " ".join(f"{cols[v].get(k, float('nan')):6.3f}" for k in xs))
    print(f"{'paper (CSV)':>14} " + " ".join(f"{paper[k]:6.3f}" for k in xs))
    print(f"{'bound':>14} " + " ".join(f"{bound[k]:6.3f}" for k in xs))


def _figure_and_table(ev, x: str, paper: dict, bound: dict, xlabel: str, title: str):
    """One stored experiment against the paper's curve and the bound: the figure, then the table. Returns the axis."""
    _, ax = plots.subplots(1, 1, width=5.0, height=3.4)
    _panel(ax[0], ev, x, paper, bound, xlabel, title)
    _table(ev, x, paper, bound)
    return ax[0]


# ----------------------------------------------------------------------------------------------
# Experiment 6
# ----------------------------------------------------------------------------------------------
def exp6(C: Claims, evs: dict) -> None:
    """Exp. 6 / Fig. 4 at the official recipe (N = 10, d = d_h = 2, 6 seeds, both models): figure, table, claims."""
    ev = evs["exp6"]
    Hs = aot.PAPER["exp6_H"]
    bound = {H: float(aot.phi(2 * H + 2, 10, 100)) for H in Hs}
    _figure_and_table(ev, "H", dict(zip(Hs, aot.PAPER["exp6"], strict=True)), bound, "heads H",
                      "Exp. 6, stored run: N = 10, d = d_h = 2")
    rp = _ratio6(Hs, aot.PAPER["exp6"])
    ratios = {}
    for v in MODELS:
        H, y, _ = _mean(ev.points, v, "H", "running_acc")
        ratios[v] = _ratio6(H, y) if H else float("nan")
        seeds = [_ratio6(sorted(d), [d[k] for k in sorted(d)]) for d in by_seed(ev, v, "H").values()]
        print(f"slope ratio, {LABEL[v]}: {ratios[v]:.2f} (seed mean curve); per seed "
              + ", ".join(f"{r:.2f}" for r in seeds))
    print(f"slope ratio of the v2 CSV (20 seeds): {rp:.2f}; v2 text: 1.3")
    _claims6(C, ev)
    if ev.complete:
        C.close("exp6-ratio-eq2-paper-scale", "Exp. 6 (v2) at the official recipe: the slope ratio of the eq. (2) model is "
                "the v2 data's too [eq. (2) model]", paper=rp, ours=ratios["paper"], atol=0.25, fmt=".2f",
                kind=EXPERIMENT, paper_text=f"{rp:.2f} (v2 CSV)", scale=_scale(ev, "exp6"),
                control=("a model at the bound's slope (ratio 1)", 1.0))


def _claims6(C: Claims, ev) -> None:
    """The official model's slope ratio against the v2 CSV's, and Fig. 4's 'above the bound', on the stored run."""
    ids = ["exp6-ratio-paper-scale", "exp6-above-bound-paper-scale"]
    if _not_run(C, ids, ev, "slope ratio 1.3 (v2 text)"):
        return
    H, y, _ = _mean(ev.points, "official", "H", "running_acc")
    r, rp = _ratio6(H, y), _ratio6(aot.PAPER["exp6_H"], aot.PAPER["exp6"])
    C.close(ids[0], "Exp. 6 (v2) at the official recipe: the empirical slope is about 1.3x the bound's (1.52 from "
            "the v2 CSV) [official model]", paper=rp, ours=r, atol=0.25, fmt=".2f", kind=EXPERIMENT,
            paper_text=f"1.3 (v2 text), {rp:.2f} (v2 CSV)", scale=_scale(ev, "exp6"),
            control=("a model at the bound's slope (ratio 1)", 1.0))
    _, t, _ = _mean(ev.points, "official", "H", "table_acc")
    above = lambda acc: all(a >= float(aot.phi(2 * h + 2, 10, 100)) - 0.02 for h, a in zip(H, acc, strict=True))
    C.check(ids[1], "Exp. 6 / Fig. 4 at the official recipe: trained AoTs stay above phi(2H + 2) [official model]",
            paper="above the bound", ours=", ".join(f"{a:.2f}" for a in t), ok=above(t), stable=False,
            criterion="full-table accuracy >= min(1, phi(2H+2)) - 0.02 at every H", kind=EXPERIMENT,
            scale=_scale(ev, "exp6"),
            control=Control("a model that gains nothing from heads (its H = 1 accuracy at every H)",
                            passed=above([t[0]] * len(t)), value=f"{t[0]:.2f}"))


# ----------------------------------------------------------------------------------------------
# Experiments 2 and 3
# ----------------------------------------------------------------------------------------------
def exp2(C: Claims, evs: dict) -> None:
    """Exp. 2 / Fig. 1b at N = 50, d = 10, H = 20, d_h = 1..10 (3 seeds, both models): figure, table, claims."""
    ev = evs["exp2"]
    dhs = aot.PAPER["exp2_dh"]
    bound = {dh: float(aot.phi(20 * dh + 10, 50, 2500)) for dh in dhs}
    _figure_and_table(ev, "dh", dict(zip(dhs, aot.PAPER["exp2"], strict=True)), bound, "head dimension d_h",
                      "Exp. 2, stored run: N = 50, d = 10, H = 20")
    q = {v: [quad(sorted(d), [d[k] for k in sorted(d)]) for d in by_seed(ev, v, "dh").values()] for v in MODELS}
    for v in MODELS:
        print(f"{LABEL[v]}, per seed: x² coefficient " + ", ".join(f"{a:+.4f}" for a, _, _ in q[v])
              + "; R² quadratic / line " + ", ".join(f"{b:.3f}/{c:.3f}" for _, b, c in q[v]))
    ppm = {v: per_parameter(ev, v) for v in MODELS}
    for v in MODELS:
        print(f"{LABEL[v]}: associations per parameter d(S + 2N + 4 d_h H) at d_h = 1..10: "
              + " ".join(f"{a:.3f}" for a in ppm[v].values()))
    _claims23(C, ev, "exp2", "dh")
    if not ev.complete:
        return
    sc = _scale(ev, "exp2")
    convex = lambda qs: bool(qs) and all(a > 0 and (1 - c) >= 5 * (1 - b) for a, b, c in qs)
    C.check("exp2-convex-official-paper-scale", "Exp. 2 / Fig. 1b at N = 50: accuracy is convex ('quadratic') in d_h "
            "[official model]", paper=f"quadratic (v2 CSV x² coefficient {quad(dhs, aot.PAPER['exp2'])[0]:+.4f})",
            ours="x² coefficients " + ", ".join(f"{a:+.4f}" for a, _, _ in q["official"]), ok=convex(q["official"]),
            criterion="in every seed: x² coefficient > 0 and the line's residual >= 5x the quadratic's (1 - R²)",
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the eq. (2) model's seeds", convex(q["paper"]),
                            ", ".join(f"{a:+.4f}" for a, _, _ in q["paper"])))
    qo, qp = [a for a, _, _ in q["official"]], [a for a, _, _ in q["paper"]]
    spread = max(qo) - min(qo)
    C.check("exp2-model-dependence-paper-scale", "Exp. 2 at N = 50: the convexity in d_h belongs to the official code's "
            "shared compression; the eq. (2) model is concave", paper="(not discussed)",
            ours=f"x² coefficient: official {min(qo):+.4f}..{max(qo):+.4f}, eq. (2) {min(qp):+.4f}..{max(qp):+.4f}",
            ok=min(qo) - max(qp) > 0.005, criterion="every official seed's x² coefficient exceeds every eq. (2) seed's "
            "by > 0.005", stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the same margin between two seeds of the official model (largest difference)",
                            bool(spread > 0.005), f"{spread:+.4f}"))
    best = {v: max(ppm[v], key=ppm[v].get) for v in MODELS}
    C.check("exp2-dh-optimal-paper-scale", "Exp. 2 at N = 50: among d_h <= d (the stored grid stops at d_h = d = 10; "
            "d_h > d was never trained), d_h = d is best in memorization per parameter (the paper's count) [official model]", paper="'taking d = d_h is optimal in term of memorization per parameter'",
            ours=f"best d_h = {best['official']} (official), {best['paper']} (eq. (2))", ok=best["official"] == 10,
            criterion="associations per parameter largest at d_h = d = 10 among d_h = 1..10 (d_h > d untested)",
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the eq. (2) model", best["paper"] == 10, f"best d_h = {best['paper']}"))


def per_parameter(ev, variant: str) -> dict[int, float]:
    """Associations memorized per parameter (the paper's count d(S + 2N + 4 d_h H)) at each d_h, seed mean."""
    xs, m, _ = _mean(ev.points, variant, "dh", "running_acc")
    return {dh: (a - 1 / 50) * 2500 / (1 - 1 / 50) / aot.n_params_paper(50, 2, 10, dh, 20) for dh, a in zip(xs, m, strict=True)}


def exp3(C: Claims, evs: dict) -> None:
    """Exp. 3 / Fig. 2a at N = 50, d_h = 10, H = 20, d = 5..15 (3 seeds, both models): figure, table, claims."""
    ev = evs["exp3"]
    ds = aot.PAPER["exp3_d"]
    bound = {d: float(aot.phi(20 * min(10, d) + d, 50, 2500)) for d in ds}
    ax = _figure_and_table(ev, "d", dict(zip(ds, aot.PAPER["exp3"], strict=True)), bound, "embedding dimension d",
                           "Exp. 3, stored run: N = 50, d_h = 10, H = 20")
    ax.axvline(10, color="#57606a", lw=0.6)
    at = {v: {r: (s[10], s[15]) for r, s in by_seed(ev, v, "d").items() if 10 in s and 15 in s} for v in MODELS}
    for v in MODELS:
        print(f"{LABEL[v]}, per seed (acc at d = 10, d = 15): " + ", ".join(f"({a:.3f}, {b:.3f})" for a, b in at[v].values()))
    _claims23(C, ev, "exp3", "d")
    if not ev.complete:
        return
    sc = _scale(ev, "exp3")
    curve = {v: dict(zip(*_mean(ev.points, v, "d", "running_acc")[:2], strict=True)) for v in MODELS}
    plateau = lambda c: bool(c[10] - c[5] > 0.3 and abs(c[15] - c[10]) <= 0.05)
    C.check("exp3-plateau-official-paper-scale", "Exp. 3 / Fig. 2a (v2) at N = 50: accuracy grows with d up to d_h, then "
            "stays constant below 1 [official model]", paper="v2: 'constant' for d >= d_h (CSV: "
            f"{aot.PAPER['exp3'][5]:.2f} at d = 10, {aot.PAPER['exp3'][-1]:.2f} at d = 15)",
            ours=f"{curve['official'][5]:.2f} -> {curve['official'][10]:.2f} -> {curve['official'][15]:.2f} (d = 5, 10, 15)",
            ok=plateau(curve["official"]), criterion="rise > 0.3 from d = 5 to d = d_h = 10, then |acc(15) - acc(10)| <= 0.05",
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the eq. (2) model", plateau(curve["paper"]),
                            f"{curve['paper'][10]:.2f} -> {curve['paper'][15]:.2f}"))
    o15, p15 = [b for _, b in at["official"].values()], [b for _, b in at["paper"].values()]
    spread = max(o15) - min(o15)
    C.check("exp3-model-dependence-paper-scale", "Exp. 3 at N = 50: the plateau for d > d_h comes from the official code's "
            "shared rank-d_h compression; the eq. (2) model keeps improving", paper="(not discussed)",
            ours=f"acc at d = 15: official {min(o15):.3f}..{max(o15):.3f}, eq. (2) {min(p15):.3f}..{max(p15):.3f}",
            ok=min(p15) - max(o15) > 0.05, criterion="every eq. (2) seed exceeds every official seed by > 0.05 at d = 15",
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the same margin between two seeds of the official model (largest difference)",
                            bool(spread > 0.05), f"{spread:+.3f}"))


def _claims23(C: Claims, ev, n: str, x: str) -> None:
    """:func:`evidence._claims23`'s claim for one experiment, with the eq. (2) model as a second control."""
    cid = f"{n}-paper-scale"
    if _not_run(C, [cid], ev, "v2 CSV curve"):
        return
    xs, m, _ = _mean(ev.points, "official", x, "running_acc")
    xp, mp, _ = _mean(ev.points, "paper", x, "running_acc")
    paper = dict(zip(aot.PAPER[f"{n}_{x}"], aot.PAPER[n], strict=True))
    gp = _gap(xp, mp, paper)
    C.check(cid, f"{'Exp. 2 / Fig. 1b' if n == 'exp2' else 'Exp. 3 / Fig. 2a'} at N = 50, "
            f"{'d = 10' if n == 'exp2' else 'd_h = 10'}, H = 20, the official recipe: our accuracy curve is the paper's "
            "[official model]", paper="v2 CSV: " + " ".join(f"{paper[v]:.2f}" for v in xs),
            ours=" ".join(f"{a:.2f}" for a in m), ok=_gap(xs, m, paper) <= 0.05,
            criterion="max over the grid of |ours - paper| <= 0.05 (mean over seeds)", stable=False, kind=EXPERIMENT,
            scale=_scale(ev, n),
            control=Control("the eq. (2) model, same recipe and data", gp <= 0.05, f"max gap {gp:.2f}"))


# ----------------------------------------------------------------------------------------------
# Experiments 1 and 4 (Fig. 1a's full grid, official model)
# ----------------------------------------------------------------------------------------------
EXP1_IDS = ["exp1-vs-paper-paper-scale", "exp1-linear-paper-scale", "exp1-above-bound-paper-scale",
            "exp1-slope-ratio-paper-scale", "exp4-exponent-paper-scale", "exp4-cubic-v1-paper-scale"]


def exponent(slopes: dict, N: int) -> float:
    """The exponent k of associations per head ~ d^k: the line fit of log(slope T0 / (1 - 1/N)) on log d."""
    ds = np.array([d for d in sorted(slopes) if slopes[d] > 0], float)
    a = np.array([slopes[int(d)] for d in ds]) * N * N / (1 - 1 / N)
    return float(linear_fit(np.log(ds), np.log(a)).slope) if len(ds) >= 2 else float("nan")


def _exp1_figure(m: dict, ds: list[int], Hs: list[int], slopes: dict, pslopes: dict) -> None:
    """Fig. 1a (seed means, solid) over the v2 CSV (dashed), and Fig. 2b's associations per head, log-log."""
    _, ax = plots.subplots(1, 2, width=4.6, height=3.4)
    cmap = plt.get_cmap("viridis")
    for i, d in enumerate(ds):
        col = cmap(i / max(1, len(ds) - 1))
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=col, marker="o", ms=3, label=f"d = {d}")
        ax[0].plot(Hs, aot.PAPER["exp1"][d], color=col, ls="--", lw=0.8)
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05), title="Exp. 1, stored run (solid) vs v2 CSV (dashed)")
    ax[0].legend(fontsize=5, ncol=2)
    sd = sorted(slopes)
    ax[1].loglog(sd, [slopes[d] * 2500 / (1 - 1 / 50) for d in sd], **dict(plots.OURS, label="stored run"))
    ax[1].loglog(sorted(pslopes), [pslopes[d] * 2500 / (1 - 1 / 50) for d in sorted(pslopes)], **dict(plots.PAPER, label="v2 CSV"))
    ax[1].set(xlabel="d = d_h", ylabel="associations per head", title="Exp. 4 from the stored run")
    ax[1].legend(fontsize=7)


def exp1(C: Claims, evs: dict) -> None:
    """Exp. 1 / Fig. 1a and Exp. 4 / Fig. 2b on the stored full grid (N = 50, d = d_h = 3..13, H = 1..31, the
    official v2 recipe, the official model, seed means): figure, table, claims with the live claims' criteria."""
    from lib.chapters.aot_memorization import plots as AP
    ev = evs["exp1"]
    if _not_run(C, EXP1_IDS, ev, "v2 CSV (5 seeds)"):
        return
    pts = [p for p in ev.points if p["variant"] == "official"]
    ds, Hs = sorted({p["d"] for p in pts}), aot.PAPER["exp1_H"]
    m, mt = (AT.mean_over_reps(pts, k, ["d", "H"]) for k in ("running_acc", "table_acc"))
    diff = {d: max(abs(m[(d, H)][0] - p) for H, p in zip(Hs, aot.PAPER["exp1"][d], strict=True)) for d in ds}
    diff_t = {d: max(abs(mt[(d, H)][0] - p) for H, p in zip(Hs, aot.PAPER["exp1"][d], strict=True)) for d in ds}
    slopes, _ = AP.per_head_slopes(pts, ds, Hs, 50)
    pslopes = AP.paper_slopes()
    _exp1_figure(m, ds, Hs, slopes, pslopes)
    print("d                      " + " ".join(f"{d:6d}" for d in ds))
    print("max |ours - paper|     " + " ".join(f"{diff[d]:6.3f}" for d in ds))
    if len({p["rep"] for p in pts}) > 1:
        print("largest seed std       " + " ".join(f"{max(m[(d, H)][1] for H in Hs):6.3f}" for d in ds))
    print("associations per head  " + " ".join(f"{slopes.get(d, float('nan')) * 2500 / 0.98:6.0f}" for d in ds))
    print("  (v2 CSV)             " + " ".join(f"{pslopes[d] * 2500 / 0.98:6.0f}" for d in ds))
    sc = _scale(ev, "exp1")
    dm, dmt = max(diff.values()), max(diff_t.values())
    n_seeds = len({p["rep"] for p in pts})
    C.check(EXP1_IDS[0], f"Exp. 1 / Fig. 1a at the paper's scale, all {len(m)} points: our running accuracy is the official "
            "data's [official model]", paper="v2 CSV (5 seeds)", ours=f"max |diff| {dm:.3f} over {len(m)} points "
            f"({'mean of ' + str(n_seeds) + ' seeds' if n_seeds > 1 else '1 seed'})", ok=dm <= 0.05, criterion="|ours - paper| <= 0.05 at every (d, H)", stable=False,
            kind=EXPERIMENT, scale=sc, control=Control("our full-table accuracy (the other metric) against the same numbers",
                                                       dmt <= 0.05, f"max |diff| {dmt:.3f}"))
    _exp1_shape(C, pts, ds, Hs, mt, slopes, sc)
    _exp4(C, slopes, pslopes, sc)


def _exp1_shape(C: Claims, pts: list[dict], ds: list[int], Hs: list[int], mt: dict, slopes: dict, sc) -> None:
    """The live claims exp1-linear, exp1-above-bound and exp1-slope-ratio, same criteria, on the stored grid."""
    from lib.chapters.aot_memorization import plots as AP
    r2 = {k: AP.pooled_r2(pts, ds, Hs, k) for k in (0.5, 1, 2)}
    lin_ok = lambda k: bool(r2[k] >= 0.98 and all(1 - r2[j] >= 2 * (1 - r2[k]) for j in r2 if j != k))
    C.check(EXP1_IDS[1], "Exp. 1 / Fig. 1a at the paper's scale: accuracy is linear in H at every d = d_h = 3..13 [official model]",
            paper="linear (R^2 of the official fits >= 0.99)", ours=", ".join(f"R^2(H^{k}) {r:.3f}" for k, r in r2.items()),
            ok=lin_ok(1), criterion="pooled R^2 of the line >= 0.98 and its residual 1 - R^2 at most half that of sqrt(H) "
            "and of H^2 (pre-saturation points)", stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the nearest rival curve a sqrt(H) + b, same criterion", lin_ok(0.5), f"R^2 {r2[0.5]:.3f}"))
    grid = [(d, H) for d in ds for H in Hs if d >= 4]
    above = lambda acc: all(acc(d, H) >= float(aot.phi(H * d + d, 50, 2500)) - 0.02 for d, H in grid)
    C.check(EXP1_IDS[2], "Exp. 1 at the paper's scale: trained AoTs memorize at least the bound phi(H d_h + d) [official model]",
            paper="above 'our lower bound' everywhere (d >= 4)", ours=f"{len(grid)} points (d >= 4)",
            ok=above(lambda d, H: mt[(d, H)][0]), criterion="full-table acc >= phi(H d_h + d) - 0.02 for d >= 4",
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("a model that gains nothing from heads (its H = 1 accuracy at every H)",
                            above(lambda d, H: mt[(d, Hs[0])][0])))
    ratios = {d: AT.slope_ratio(s_, 50, 2500, d) for d, s_ in slopes.items() if d >= 5}
    pr = [AT.slope_ratio(s_, 50, 2500, d) for d, s_ in AP.paper_slopes().items() if d >= 5]
    C.check(EXP1_IDS[3], "Exp. 1 at the paper's scale: the empirical per-head memorization is several times the bound's "
            "d_h [official model]", paper=f"{min(pr):.1f}x-{max(pr):.1f}x (v2 CSV, d = 5..13)",
            ours=", ".join(f"d={d}: {r:.1f}x" for d, r in ratios.items()),
            ok=bool(ratios) and all(r >= 1.5 for r in ratios.values()), criterion="ratio >= 1.5 for every d >= 5",
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("a model storing exactly the bound's d_h per head (ratio 1)", 1.0 >= 1.5, "1.0x"))


def _exp4(C: Claims, slopes: dict, pslopes: dict, sc) -> None:
    """Exp. 4's two disjoint exponent windows (v2's data, v1's cubic) on the stored grid's eleven values of d."""
    k_ours, k_paper = exponent(slopes, 50), exponent(pslopes, 50)
    print(f"exponent of associations per head ~ d^k: stored run {k_ours:.2f} ({len(slopes)} values of d), v2 CSV {k_paper:.2f}")
    C.close(EXP1_IDS[4], "Exp. 4 / Fig. 2b (v2) at the paper's scale: the per-head coefficient grows like d^k with the v2 "
            "data's k [official model]", paper=k_paper, ours=k_ours, atol=0.2, fmt=".2f", kind=EXPERIMENT, scale=sc,
            control=("v1's cubic exponent 3 (the nearer rival)", 3.0))
    C.close(EXP1_IDS[5], "Exp. 4 / Fig. 2b (v1) at the paper's scale: the per-head coefficient grows like d^3 [official model]",
            paper=3.0, ours=k_ours, atol=0.2, fmt=".2f", kind=EXPERIMENT, scale=sc,
            control=("the v2 data's exponent (the nearer rival)", k_paper))
