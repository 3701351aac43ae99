"""The chapter's paper-scale evidence on the page, one experiment per section: Exp. 6 at the official v2
recipe, Exps. 2-3 at N = 50, d = 10, H = 20 (both models), Exp. 1 / Fig. 1a's full grid (both models), v1's
protocol for Fig. 1a, Appendix B.1's Figs. 5-6 (N = 200) and Exp. 5 at N = 70, read from the stored runs of
:mod:`~lib.chapters.aot_memorization.evidence` and its ``evidence_*`` modules (``python -m lib evidence
aot-memorization``) without recomputing anything, each beside the paper's CSV (v2's, or v1's for v1's protocol)
and labelled as a stored run. A sweep not stored yet (or stale, or partial) makes its claims *not run*, with the
measured cost of what it lacks and the command that produces it.

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
    sw = E.sweeps(EV.CHAPTER)[exp]
    return K.Scale(ours=f"{len(ev.points)} trained models: " + sw["what"].split(": ", 1)[1], paper=sw["paper"], enough=True)


def cost(ev) -> str:
    """The declared cost of the points a sweep still lacks (its measured CPU-seconds per point)."""
    sw = E.sweeps(EV.CHAPTER)[ev.name]
    same_code = (ev.manifest or {}).get("fingerprint") == E.fingerprint(sw)     # a grown grid keeps its points
    n = ev.total - len(ev.points) if same_code else ev.total
    return (f"{n} of {ev.total} points to train, {sw['cost_s']:g} CPU-s each (measured): about "
            f"{n * sw['cost_s'] / 3600:.2f} CPU-hours at one torch thread")


def _why(ev) -> str:
    """Why a sweep's claims are not run: its state, the cost of what is missing, the command."""
    return (f"stored evidence is stale ({ev.reason})" if ev.stale else ev.reason if not ev.points else
            f"{len(ev.points)} of {ev.total} points stored") + f"; {cost(ev)}; run `{ev.command}`"


def _not_run(C: Claims, ids: list[str], ev, paper: str | dict, statements: dict | None = None) -> bool:
    """Record the sweep's claims as not run (no stored, stale or partial evidence), with the cost and the command
    that produce it; True if so."""
    if ev.complete:
        return False
    why = _why(ev)
    for i in ids:
        C.not_run(i, (statements or {}).get(i, f"{i}: needs the stored paper-scale run"), reason=why, kind=EXPERIMENT,
                  paper=paper.get(i, "") if isinstance(paper, dict) else paper)
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


def _panel(ax, ev, x: str, paper: dict, bound: dict, xlabel: str, title: str, models=MODELS) -> None:
    for i, v in enumerate(models):
        xs, m, s = _mean(ev.points, v, x, "running_acc")
        if xs:
            ax.errorbar(xs, m, yerr=s, marker="o" if i == 0 else "x", ls="-" if i == 0 else ":",
                        color=plots.COLORS[2 * i], capsize=2, label=f"stored run, {LABEL[v]}")
    ax.plot(list(paper), list(paper.values()), **dict(plots.PAPER, label="paper (v2 CSV)"))
    ax.plot(list(bound), list(bound.values()), color="#1a7f37", lw=0.8, ls=":", label="bound phi(H min(d_h, d) + d)")
    ax.set(xlabel=xlabel, ylabel="running accuracy", ylim=(0, 1.05), title=title)
    ax.legend(fontsize=6)


def _table(ev, x: str, paper: dict, bound: dict, models=MODELS) -> None:
    xs = sorted(paper)
    cols = {v: dict(zip(*_mean(ev.points, v, x, "running_acc")[:2], strict=True)) for v in models}
    print(f"{x:>14} " + " ".join(f"{v:6d}" for v in xs))
    for v in models:
        print(f"{'eq. (2) model' if v == 'paper' else 'official model':>14} " + " ".join(f"{cols[v].get(k, float('nan')):6.3f}" for k in xs))
    print(f"{'paper (CSV)':>14} " + " ".join(f"{paper[k]:6.3f}" for k in xs))
    print(f"{'bound':>14} " + " ".join(f"{bound[k]:6.3f}" for k in xs))


def _figure_and_table(ev, x: str, paper: dict, bound: dict, xlabel: str, title: str, models=MODELS):
    """One stored experiment against the paper's curve and the bound: the figure, then the table. Returns the axis."""
    _, ax = plots.subplots(1, 1, width=5.0, height=3.4)
    _panel(ax[0], ev, x, paper, bound, xlabel, title, models)
    _table(ev, x, paper, bound, models)
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
EXP1_EQ2_IDS = ["exp1-linear-eq2-paper-scale", "exp4-exponent-eq2-paper-scale", "exp1-models-agree-paper-scale"]
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
    if _not_run(C, EXP1_IDS + EXP1_EQ2_IDS, ev, "v2 CSV (5 seeds)"):
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
    _exp1_eq2(C, ev, ds, Hs, m, pslopes, sc)


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


def _exp1_eq2(C: Claims, ev, ds: list[int], Hs: list[int], m: dict, pslopes: dict, sc) -> None:
    """Exp. 1 and 4 with the eq. (2) model on the stored grid: the line in H and the exponent (the official model's
    criteria and controls), and whether the two models' curves agree at d = d_h (where they differ only by the
    positional embedding's place and the 1/sqrt(d_h) scaling)."""
    from lib.chapters.aot_memorization import plots as AP
    pq = [p for p in ev.points if p["variant"] == "paper"]
    if not pq:
        for i in EXP1_EQ2_IDS:
            C.not_run(i, f"{i}: needs the eq. (2) model's points", paper="(v2 CSV)", kind=EXPERIMENT,
                      reason=f"the stored run has no eq. (2) model; run `{ev.command}`")
        return
    mq = AT.mean_over_reps(pq, "running_acc", ["d", "H"])
    r2 = {k: AP.pooled_r2(pq, ds, Hs, k) for k in (0.5, 1, 2)}
    lin_ok = lambda k: bool(r2[k] >= 0.98 and all(1 - r2[j] >= 2 * (1 - r2[k]) for j in r2 if j != k))
    C.check(EXP1_EQ2_IDS[0], "Exp. 1 / Fig. 1a at the paper's scale: accuracy is linear in H at every d = d_h = 3..13 "
            "[eq. (2) model]", paper="linear (R^2 of the official fits >= 0.99)",
            ours=", ".join(f"R^2(H^{k}) {r:.3f}" for k, r in r2.items()), ok=lin_ok(1),
            criterion="pooled R^2 of the line >= 0.98 and its residual 1 - R^2 at most half that of sqrt(H) and of H^2 "
            "(pre-saturation points)", stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the nearest rival curve a sqrt(H) + b, same criterion", lin_ok(0.5), f"R^2 {r2[0.5]:.3f}"))
    slopes, _ = AP.per_head_slopes(pq, ds, Hs, 50)
    k_q, k_paper = exponent(slopes, 50), exponent(pslopes, 50)
    print(f"eq. (2) model: exponent of associations per head ~ d^k: {k_q:.2f} (v2 CSV {k_paper:.2f})")
    C.close(EXP1_EQ2_IDS[1], "Exp. 4 / Fig. 2b (v2) at the paper's scale: the per-head coefficient grows like d^k with the "
            "v2 data's k [eq. (2) model]", paper=k_paper, ours=k_q, atol=0.2, fmt=".2f", kind=EXPERIMENT, scale=sc,
            control=("v1's cubic exponent 3 (the nearer rival)", 3.0))
    gap = max(abs(m[(d, H)][0] - mq[(d, H)][0]) for d in ds for H in Hs)
    nxt = max(abs(m[(d, H)][0] - mq[(d + 1, H)][0]) for d in ds[:-1] for H in Hs)
    print(f"largest |official - eq. (2)| over the {len(ds) * len(Hs)} points: {gap:.3f} (official at d against eq. (2) at "
          f"d + 1: {nxt:.3f})")
    C.check(EXP1_EQ2_IDS[2], "Exp. 1 at the paper's scale: at d = d_h the official code's model and the eq. (2) model give "
            "the same Fig. 1a", paper="(the paper trains one model)", ours=f"max |official - eq. (2)| {gap:.3f}",
            ok=gap <= 0.05, criterion="|official - eq. (2)| <= 0.05 at every (d, H) (seed means)", stable=False,
            kind=EXPERIMENT, scale=sc,
            control=Control("the eq. (2) model one dimension up (d + 1) against the official model at d", nxt <= 0.05,
                            f"max |diff| {nxt:.3f}"))


# ----------------------------------------------------------------------------------------------
# v1's protocol (Fig. 1a), Appendix B.1 (Figs. 5-6) and Exp. 5 at N = 70
# ----------------------------------------------------------------------------------------------
def csv_slopes(table: dict, Hs: list[int]) -> dict[int, float]:
    """{d: slope of accuracy vs H} of a published table (pre-saturation points, the official rule)."""
    out = {}
    for d, y in table.items():
        x, yy = AT.truncate_saturated(Hs[: len(y)], y)
        out[d] = linear_fit(x, yy).slope
    return out


def curvature(x, y) -> float:
    """How far a curve is from a line: the x^2 term of its least-squares quadratic over the x range, as a fraction of
    the rise (0 for a line, 1 for a x^2 from x = 0)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    return quad(x, y)[0] * (x.max() - x.min()) ** 2 / (y[-1] - y[0])


V1_IDS = ["v1-protocol", "v1-exponent", "v1-cubic", "v1-above-bound"]
V1_TEXT = {"v1-protocol": "v1's protocol (Adam at a constant 1e-3, 10 epochs of 1000 batches of 1024) gives v1's Fig. 1a "
                          "[official (v2) model]",
           "v1-exponent": "Exp. 4 (v1) under v1's protocol: the per-head coefficient grows like d^k with the v1 data's k",
           "v1-cubic": "Exp. 4 / Fig. 2b (v1) under v1's protocol: the per-head coefficient grows like d^3 ('cubic')",
           "v1-above-bound": "Fig. 1a (v1) under v1's protocol: trained AoTs memorize at least the bound phi(H d_h + d)"}
V1_PAPER = {"v1-protocol": "v1 CSV (2 seeds)", "v1-exponent": "the v1 CSV's exponent", "v1-cubic": "3 (v1 text)",
            "v1-above-bound": "above 'our lower bound' (v1 Fig. 1a)"}


def v1(C: Claims, evs: dict) -> None:
    """v1's protocol for Fig. 1a (N = 50, 1 seed, official model) against the v1 CSV: figure, table, claims."""
    from lib.chapters.aot_memorization import plots as AP
    ev = evs["v1"]
    if _not_run(C, V1_IDS, ev, V1_PAPER, V1_TEXT):
        return
    pts, v1t, Hs = ev.points, aot.PAPER["exp1_v1"], aot.PAPER["exp1_H"]
    m, mt = (AT.mean_over_reps(pts, k, ["d", "H"]) for k in ("running_acc", "table_acc"))
    ds = sorted(v1t)
    _, ax = plots.subplots(1, 1, width=5.0, height=3.4)
    cmap = plt.get_cmap("viridis")
    for i, d in enumerate(ds):
        col = cmap(i / (len(ds) - 1))
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=col, marker="o", ms=3, label=f"d = {d}")
        ax[0].plot(Hs[: len(v1t[d])], v1t[d], color=col, ls="--", lw=0.8)
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05), title="v1's protocol, stored run (solid) vs v1 CSV (dashed)")
    ax[0].legend(fontsize=5, ncol=2)
    diff = {d: max(abs(m[(d, H)][0] - y) for H, y in zip(Hs, v1t[d], strict=False)) for d in ds}   # v1: 6 or 7 H
    v2gap = max(abs(a - b) for d in ds for a, b in zip(aot.PAPER["exp1"][d], v1t[d], strict=False))
    print("d                    " + " ".join(f"{d:6d}" for d in ds))
    print("max |ours - v1 CSV|  " + " ".join(f"{diff[d]:6.3f}" for d in ds))
    slopes, _ = AP.per_head_slopes(pts, ds, Hs, 50)
    k, k1, k2 = exponent(slopes, 50), exponent(csv_slopes(v1t, Hs), 50), exponent(csv_slopes(aot.PAPER["exp1"], Hs), 50)
    print(f"exponent of associations per head ~ d^k: v1 protocol {k:.2f}; v1 CSV {k1:.2f}; v2 CSV {k2:.2f}")
    sc = _scale(ev, "v1")
    n = sum(len(y) for y in v1t.values())
    C.check("v1-protocol", V1_TEXT["v1-protocol"], paper="v1 CSV (2 seeds)", ours=f"max |diff| {max(diff.values()):.3f} over {n} points",
            ok=max(diff.values()) <= 0.05, criterion="|ours - v1| <= 0.05 at every (d, H) of v1's grid", stable=False,
            kind=EXPERIMENT, scale=sc, control=Control("the v2 CSV (v2's recipe, 5 seeds) against the same v1 numbers",
                                                       v2gap <= 0.05, f"max |diff| {v2gap:.3f}"))
    C.close("v1-exponent", V1_TEXT["v1-exponent"], paper=k1, ours=k, atol=0.2, fmt=".2f", kind=EXPERIMENT, scale=sc,
            paper_text=f"{k1:.2f} (v1 CSV)", control=("the v2 data's exponent (the v2 recipe)", k2))
    C.close("v1-cubic", V1_TEXT["v1-cubic"], paper=3.0, ours=k, atol=0.2, fmt=".2f", kind=EXPERIMENT, scale=sc,
            paper_text="3 (v1 text)", control=("the v2 data's exponent (the nearer rival)", k2))
    grid = [(d, H) for d in ds for H in Hs if d >= 4]
    above = lambda acc: all(acc(d, H) >= float(aot.phi(H * d + d, 50, 2500)) - 0.02 for d, H in grid)
    C.check("v1-above-bound", V1_TEXT["v1-above-bound"], paper="above 'our lower bound' (v1 Fig. 1a)",
            ours=f"{len(grid)} points (d >= 4)", ok=above(lambda d, H: mt[(d, H)][0]),
            criterion="full-table acc >= phi(H d_h + d) - 0.02 for d >= 4", stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("a model that gains nothing from heads (its H = 1 accuracy at every H)",
                            above(lambda d, H: mt[(d, Hs[0])][0])))


B1_TEXT = {"appB1-exp2-linear": "App. B.1 / Fig. 6 (v2): at N = 200, d = 50, H = 11, accuracy is linear (not quadratic) in d_h "
                                "[official model]",
           "appB1-exp2-vs-paper": "App. B.1 / Fig. 6 at N = 200: our accuracy curve over d_h is the v2 CSV's [official model]",
           "appB1-exp1-linear": "App. B.1 / Fig. 5 (v2): at N = 200, d = d_h = 40, 50, 60, accuracy stays linear in H "
                                "[official model]",
           "appB1-exp1-vs-paper": "App. B.1 / Fig. 5 at N = 200: our accuracy at every (d, H) is the v2 CSV's [official model]",
           "appB1-exp4-exponent": "App. B.1 at N = 200, d = 40..60: the per-head coefficient grows like d^k with the B.1 "
                                  "data's k [official model]",
           "appB1-exp4-quadratic": "App. B.1 (v2): at large dimension the per-head coefficient grows quadratically in d "
                                   "('quadratic instead of cubic') [official model]"}

B1_PAPER = {"appB1-exp2-linear": "'the scaling here is linear' (v2 Fig. 6)", "appB1-exp2-vs-paper": "v2 CSV (5 seeds)",
            "appB1-exp1-linear": "'as expected, the scaling remains linear' (v2 Fig. 5)",
            "appB1-exp1-vs-paper": "v2 CSV (5 seeds)", "appB1-exp4-exponent": "the B.1 CSV's exponent",
            "appB1-exp4-quadratic": "2 (v2 text)"}


def _vs_paper(C: Claims, cid: str, ev, pairs: list[tuple], sc) -> None:
    """``cid``: max |ours - paper| <= 0.05 over ``pairs`` (point key, paper value); control: our full-table accuracy."""
    key = lambda p: tuple(p[k] for k in ("d", "dh", "H"))
    run = {key(p): p["running_acc"] for p in ev.points}
    tab = {key(p): p["table_acc"] for p in ev.points}
    g, gt = (max(abs(acc[k] - y) for k, y in pairs) for acc in (run, tab))
    C.check(cid, B1_TEXT[cid], paper="v2 CSV (5 seeds)", ours=f"max |diff| {g:.3f} over {len(pairs)} points (1 seed)",
            ok=g <= 0.05, criterion="|ours - paper| <= 0.05 at every point", stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("our full-table accuracy (the other metric) against the same numbers", gt <= 0.05,
                            f"max |diff| {gt:.3f}"))


def b1_fig6(C: Claims, evs: dict) -> None:
    """App. B.1 / Fig. 6 (N = 200, d = 50, H = 11, d_h = 1, 5, ..., 50) against the v2 CSV: figure, table, claims."""
    ev, ids = evs["b1-fig6"], ["appB1-exp2-linear", "appB1-exp2-vs-paper"]
    if _not_run(C, ids, ev, B1_PAPER, B1_TEXT):
        return
    dhs, csv = aot.PAPER["b1_exp2_dh"], aot.PAPER["b1_exp2"]
    bound = {dh: float(aot.phi(11 * dh + 50, 200, 40000)) for dh in dhs}
    ax = _figure_and_table(ev, "dh", dict(zip(dhs, csv, strict=True)), bound, "head dimension d_h",
                           "App. B.1 / Fig. 6, stored run: N = 200, d = 50, H = 11", models=("official",))
    ax.set_ylim(0, 0.7)
    _, y, _ = _mean(ev.points, "official", "dh", "running_acc")
    k, k_csv, k50 = curvature(dhs, y), curvature(dhs, csv), curvature(aot.PAPER["exp2_dh"], aot.PAPER["exp2"])
    k_in = curvature(dhs[:-1], y[:-1])
    print(f"curvature (x^2 term over the range / rise): ours {k:.2f} ({k_in:.2f} without d_h = d, where the official model "
          f"drops its compression); B.1 CSV {k_csv:.2f}; Fig. 1b's v2 CSV (N = 50, d = 10) {k50:.2f}")
    sc = _scale(ev, "b1-fig6")
    C.check(ids[0], B1_TEXT[ids[0]], paper=f"'the scaling here is linear' (the B.1 CSV's own curvature {k_csv:.2f})",
            ours=f"curvature {k:.2f}", ok=k <= 0.25, criterion="curvature (the quadratic fit's x^2 term over the d_h range, "
            "as a fraction of the rise) <= 0.25", stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("Fig. 1b's v2 CSV (N = 50, d = 10, which v2 calls quadratic)", k50 <= 0.25, f"{k50:.2f}"))
    _vs_paper(C, ids[1], ev, [((50, dh, 11), a) for dh, a in zip(dhs, csv, strict=True)], sc)


def b1_fig5(C: Claims, evs: dict) -> None:
    """App. B.1 / Fig. 5 (N = 200, d = d_h = 40, 50, 60, H = 1, 3, ..., 11) against the v2 CSV: figure, claims."""
    from lib.chapters.aot_memorization import plots as AP
    ev = evs["b1-fig5"]
    ids = ["appB1-exp1-linear", "appB1-exp1-vs-paper", "appB1-exp4-exponent", "appB1-exp4-quadratic"]
    if _not_run(C, ids, ev, B1_PAPER, B1_TEXT):
        return
    Hs, csv = aot.PAPER["b1_exp1_H"], aot.PAPER["b1_exp1"]
    ds = sorted(csv)
    m = AT.mean_over_reps(ev.points, "running_acc", ["d", "H"])
    _, ax = plots.subplots(1, 1, width=5.0, height=3.4)
    for i, d in enumerate(ds):
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=plots.COLORS[i], marker="o", label=f"stored run, d = d_h = {d}")
        ax[0].plot(Hs, csv[d], color=plots.COLORS[i], ls="--", lw=0.8, label=f"v2 CSV, d = {d}")
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05), title="App. B.1 / Fig. 5, stored run: N = 200")
    ax[0].legend(fontsize=6)
    print("H        " + " ".join(f"{H:6d}" for H in Hs))
    for d in ds:
        print(f"d = {d}   " + " ".join(f"{m[(d, H)][0]:6.3f}" for H in Hs) + "\n  (CSV)  " + " ".join(f"{a:6.3f}" for a in csv[d]))
    sc = _scale(ev, "b1-fig5")
    r2 = {k: AP.pooled_r2(ev.points, ds, Hs, k) for k in (0.5, 1, 2)}
    lin_ok = lambda k: bool(r2[k] >= 0.98 and all(1 - r2[j] >= 2 * (1 - r2[k]) for j in r2 if j != k))
    C.check(ids[0], B1_TEXT[ids[0]], paper="'as expected, the scaling remains linear'",
            ours=", ".join(f"R^2(H^{k}) {r:.3f}" for k, r in r2.items()), ok=lin_ok(1),
            criterion="pooled R^2 of the line >= 0.98 and its residual 1 - R^2 at most half that of sqrt(H) and of H^2",
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the nearest rival curve a sqrt(H) + b, same criterion", lin_ok(0.5), f"R^2 {r2[0.5]:.3f}"))
    _vs_paper(C, ids[1], ev, [((d, d, H), a) for d in ds for H, a in zip(Hs, csv[d], strict=True)], sc)
    slopes, _ = AP.per_head_slopes(ev.points, ds, Hs, 200)
    k, k_csv = exponent(slopes, 200), exponent(csv_slopes(csv, Hs), 200)
    print(f"exponent of associations per head ~ d^k over d = 40..60: stored run {k:.2f}; B.1 CSV {k_csv:.2f}")
    C.close(ids[2], B1_TEXT[ids[2]], paper=k_csv, ours=k, atol=0.2, fmt=".2f", kind=EXPERIMENT, scale=sc,
            paper_text=f"{k_csv:.2f} (B.1 CSV)", control=("the text's quadratic exponent 2", 2.0))
    C.close(ids[3], B1_TEXT[ids[3]], paper=2.0, ours=k, atol=0.2, fmt=".2f", kind=EXPERIMENT, scale=sc,
            paper_text="2 (v2 text)", control=("the B.1 data's own exponent", k_csv))


EXP5_TEXT = {"exp5-mlp-better-v2-paper-scale": "Exp. 5 (v2) at N = 70, d = 7, 10, 13: the MLP Transformer memorizes more "
                                               "at equal parameters [official models]",
             "exp5-same-scaling-v1-paper-scale": "Exp. 5 (v1) at N = 70, d = 7, 10, 13: AoT and MLP Transformer scale the "
                                                 "same at equal parameters [official models]",
             "exp5-aot-vs-paper-paper-scale": "Exp. 5 / Fig. 3 at N = 70: our AoT curves are the v2 CSV's [official model]",
             "exp5-mlp-better-eq2-paper-scale": "Exp. 5 (v2) at N = 70: the MLP Transformer memorizes more than the eq. (2) "
                                                "AoT at equal parameters"}


def exp5_gap(aot_pts: list[dict], mlp_pts: list[dict]) -> dict[int, float]:
    """{seed: mean over d and H >= 6 of accuracy(MLP of width 2d(H - 1)) - accuracy(AoT with H heads)}."""
    a = {(p["rep"], p["d"], p["H"]): p["running_acc"] for p in aot_pts}
    m = {(p["rep"], p["d"], p["width"] // (2 * p["d"]) + 1): p["running_acc"] for p in mlp_pts}
    out: dict[int, list] = {}
    for (r, d, H), y in a.items():
        if H > 1 and (r, d, H) in m:
            out.setdefault(r, []).append(m[(r, d, H)] - y)
    return {r: float(np.mean(v)) for r, v in out.items()}


def paper_gap5() -> float:
    """The v2 CSV's mean gap MLP - AoT over d = 7, 10, 13 and H >= 6."""
    t = aot.PAPER["exp5"]
    return float(np.mean([b - a for d in t for a, b in zip(t[d]["aot"][1:], t[d]["mlp"][1:], strict=True)]))


def exp5(C: Claims, evs: dict) -> None:
    """Exp. 5 / Fig. 3 at N = 70 (1 seed: the official AoT, the MLP Transformer, the eq. (2) AoT) against the v2 CSV."""
    ea, em, eq = evs["exp5-n70"], evs["exp5-n70-mlp"], evs["exp5-n70-eq2"]
    gv2 = paper_gap5()
    ids = ["exp5-mlp-better-v2-paper-scale", "exp5-same-scaling-v1-paper-scale"]
    crit = {ids[0]: f"mean gap MLP - AoT over d and H >= 6 >= {gv2 / 2:+.3f} (half the v2 data's) in every seed",
            ids[1]: f"|mean gap MLP - AoT| <= {abs(gv2) / 4:.3f} (a quarter of the v2 data's gap) in every seed",
            "exp5-aot-vs-paper-paper-scale": "|ours - paper| <= 0.05 at every (d, H)"}
    crit["exp5-mlp-better-eq2-paper-scale"] = crit[ids[0]].replace("AoT", "eq. (2) AoT")
    needs = {ids[0]: (ea, em), ids[1]: (ea, em), "exp5-aot-vs-paper-paper-scale": (ea,),
             "exp5-mlp-better-eq2-paper-scale": (em, eq)}
    _exp5_figure(ea, em, eq)
    for cid, evs_ in needs.items():          # each claim waits for every sweep it reads
        if not all(e.complete for e in evs_):
            C.not_run(cid, EXP5_TEXT[cid], paper="v2 CSV" if cid == "exp5-aot-vs-paper-paper-scale" else
                      f"v2 data: mean gap {gv2:+.3f}", kind=EXPERIMENT, reason=f"criterion: {crit[cid]}. Needs "
                      + "; ".join(f"{e.name}: {_why(e)}" for e in evs_ if not e.complete))
    done = set(C.claims)
    sc = _scale(ea, "exp5-n70") if ea.complete else None
    if ea.complete:
        _exp5_vs_paper(C, ea, sc)
    if ea.complete and em.complete and ids[0] not in done:
        g = exp5_gap(ea.points, em.points)
        print("mean gap MLP - AoT (official): " + ", ".join(f"seed {r}: {v:+.3f}" for r, v in g.items()) + f"; v2 CSV {gv2:+.3f}")
        C.check(ids[0], EXP5_TEXT[ids[0]], paper=f"v2 data: mean gap {gv2:+.3f}", ours=", ".join(f"{v:+.3f}" for v in g.values()),
                ok=all(v >= gv2 / 2 for v in g.values()), criterion=crit[ids[0]], stable=False, kind=EXPERIMENT, scale=sc,
                control=Control("v1's 'the same' (gap 0)", 0.0 >= gv2 / 2, "+0.000"))
        C.check(ids[1], EXP5_TEXT[ids[1]], paper="v1: 'the same'", ours=", ".join(f"{v:+.3f}" for v in g.values()),
                ok=all(abs(v) <= abs(gv2) / 4 for v in g.values()), criterion=crit[ids[1]], stable=False, kind=EXPERIMENT,
                scale=sc, control=Control("the v2 data's own gap (MLP better)", abs(gv2) <= abs(gv2) / 4, f"{gv2:+.3f}"))
    if em.complete and eq.complete and "exp5-mlp-better-eq2-paper-scale" not in done:
        g = exp5_gap(eq.points, em.points)
        C.check("exp5-mlp-better-eq2-paper-scale", EXP5_TEXT["exp5-mlp-better-eq2-paper-scale"],
                paper=f"v2 data (official AoT): mean gap {gv2:+.3f}", ours=", ".join(f"{v:+.3f}" for v in g.values()),
                ok=all(v >= gv2 / 2 for v in g.values()), criterion=crit["exp5-mlp-better-eq2-paper-scale"], stable=False,
                kind=EXPERIMENT, scale=_scale(eq, "exp5-n70-eq2"), control=Control("v1's 'the same' (gap 0)", 0.0 >= gv2 / 2, "+0.000"))


def _exp5_vs_paper(C: Claims, ea, sc) -> None:
    t = aot.PAPER["exp5"]
    a = {(p["d"], p["H"]): p["running_acc"] for p in ea.points}
    pairs = [(d, H, t[d]["aot"][i], t[d]["mlp"][i]) for d in t for i, H in enumerate(aot.PAPER["exp5_H"])]
    g, gm = max(abs(a[(d, H)] - y) for d, H, y, _ in pairs), max(abs(a[(d, H)] - y) for d, H, _, y in pairs)
    cid = "exp5-aot-vs-paper-paper-scale"
    C.check(cid, EXP5_TEXT[cid], paper="v2 CSV (5 seeds)", ours=f"max |diff| {g:.3f} over {len(pairs)} points (1 seed)",
            ok=g <= 0.05, criterion="|ours - paper| <= 0.05 at every (d, H) (seed means)", stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the other curve of the figure: the v2 CSV's MLP Transformer against our AoT", gm <= 0.05,
                            f"max |diff| {gm:.3f}"))


def _exp5_figure(ea, em, eq) -> None:
    """Fig. 3 at N = 70: accuracy against the parameter count 4d^2 H + d(2N + 1), stored runs (solid) and v2 CSV (dashed)."""
    if not (ea.points or em.points or eq.points):
        return
    t = aot.PAPER["exp5"]
    _, ax = plots.subplots(1, 1, width=5.0, height=3.4)
    par = lambda d, H: 4 * d * d * H + d * 141
    for i, d in enumerate(sorted(t)):
        c = plots.COLORS[i]
        ax[0].plot([par(d, H) for H in aot.PAPER["exp5_H"]], t[d]["aot"], color=c, ls="--", lw=0.8)
        ax[0].plot([par(d, H) for H in aot.PAPER["exp5_H"]], t[d]["mlp"], color=c, ls="--", lw=0.8, marker="^", mfc="none")
        for e, mk, lab in ((ea, "o", "AoT"), (eq, "x", "AoT eq. (2)"), (em, "^", "MLP")):
            pts = sorted((p for p in e.points if p["d"] == d), key=lambda p: p.get("width", 0) + p["H"])
            if pts:
                xs = [par(d, p["width"] // (2 * d) + 1 if p.get("mlp") else p["H"]) for p in pts]
                ax[0].plot(xs, [p["running_acc"] for p in pts], color=c, marker=mk, label=f"{lab}, d = {d}")
    ax[0].set(xlabel="parameters 4d^2 H + d(2N + 1)", ylabel="running accuracy", ylim=(0, 1.05),
              title="Exp. 5 at N = 70: stored runs (solid) vs v2 CSV (dashed)")
    ax[0].legend(fontsize=5, ncol=2)
