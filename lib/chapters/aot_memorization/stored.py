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

import functools

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import t as student_t

from lib.book import evidence as E
from lib.chapters.aot_memorization import construction as aot
from lib.chapters.aot_memorization import evidence as EV
from lib.chapters.aot_memorization import train as AT
from lib.core import claims as K
from lib.core import plots
from lib.core.claims import EXPERIMENT, FINDING, Claims, Control
from lib.core.fit import linear_fit

MODELS = ("official", "paper")
LABEL = {"official": "official code's model", "paper": "eq. (2) model"}


_FIGS = (("Exp. 2 / Fig. 3a", "Exp. 2 / Fig. 1b"), ("Exp. 3 / Fig. 3b", "Exp. 3 / Fig. 2a"))


def what(sw: dict) -> str:
    """A sweep's description in the paper's figure numbering (the declarations of ``exp2`` and ``exp3`` say
    'Fig. 3a' and 'Fig. 3b' for the figures the paper numbers 1b and 2a; the declarations are fingerprinted,
    so the page corrects them on display)."""
    s = sw["what"]
    for a, b in _FIGS:
        s = s.replace(a, b)
    return s


def load() -> dict:
    """The chapter's stored sweeps (:class:`lib.book.evidence.Evidence`), and their provenance printed."""
    sws = E.sweeps(EV.CHAPTER)
    evs = {n: E.load(EV.CHAPTER, n) for n in sws}
    for n, ev in evs.items():
        print(f"{n}: {what(sws[n])}\n    {ev.label}")
    return evs


def state(ev) -> str:
    """A sweep's state today, in words: stored (complete), partial, stale, or not run."""
    if ev.complete:
        return f"stored ({len(ev.points)} trained models)"
    if ev.stale and ev.points:
        return f"stored but stale ({ev.reason})"
    if ev.points:
        return f"partly stored ({len(ev.points)} of {ev.total} models)"
    return "not run yet"


def _mean(points: list[dict], variant: str, x: str, key: str) -> tuple[list[int], list[float], list[float]]:
    """(x values, mean and std over repetitions of ``key``) of one model."""
    by: dict[int, list[float]] = {}
    for p in points:
        if p["variant"] == variant:
            by.setdefault(p[x], []).append(p[key])
    xs = sorted(by)
    return xs, [float(np.mean(by[v])) for v in xs], [float(np.std(by[v])) for v in xs]


def _ratio6(H, y, N: int = 10) -> float:
    """Exp. 6's slope ratio (chapter rule): slope of the non-saturated part × T0 / ((1 - 1/N) d_h), d_h = 2."""
    x, yy = AT.truncate_saturated(H, y)
    if len(x) < 2:
        return float("nan")
    return float(np.polyfit(x, yy, 1)[0]) * N * N / ((1 - 1 / N) * 2)


RATIO6_TEXT = 1.3          # v2's text: "around 1.3 H d_h" (its CSV gives another value: paper_ratio6())
BOOT = 10_000              # bootstrap resamples of the seeds (fixed generator: the interval is reproducible)


def paper_ratio6() -> float:
    """Exp. 6's slope ratio of the v2 CSV (20 seeds), by the chapter's rule."""
    return _ratio6(aot.PAPER["exp6_H"], aot.PAPER["exp6"])


def ratio6_interval(H, Y, N: int = 10, n: int = BOOT, seed: int = 0) -> tuple[float, float, float]:
    """(ratio of the seed-mean curve, 2.5 and 97.5 percentiles of that ratio over ``n`` bootstrap resamples of the
    seeds). ``Y``: one row of accuracies per seed. The v2 CSV's ratio is that of a 20-seed mean curve, so the
    statistic compared with it is the ratio of our seed-mean curve, not the mean of per-seed ratios (a seed that
    saturates early has its ratio fitted on fewer points). With fewer than 2 seeds the interval is (nan, nan).
    The page asks for the same interval three times (the printout, the claim, the Findings): it is computed once."""
    Y = np.asarray(Y, float)
    return _ratio6_interval(tuple(H), Y.tobytes(), Y.shape, N, n, seed)


@functools.lru_cache(maxsize=None)
def _ratio6_interval(H: tuple, Yb: bytes, shape: tuple, N: int, n: int, seed: int) -> tuple[float, float, float]:
    Y = np.frombuffer(Yb).reshape(shape)
    if len(Y) < 2:
        return (_ratio6(H, Y[0], N) if len(Y) else float("nan")), float("nan"), float("nan")
    g = np.random.default_rng(seed)
    boots = [_ratio6(H, Y[g.integers(0, len(Y), len(Y))].mean(0), N) for _ in range(n)]
    lo, hi = np.nanpercentile(boots, [2.5, 97.5])
    return _ratio6(H, Y.mean(0), N), float(lo), float(hi)


def ratio6_criterion(n_seeds: int) -> str:
    return (f"the v2 CSV's ratio ({paper_ratio6():.2f}) lies in the 95% bootstrap interval of our ratio (the slope of "
            f"the seed-mean curve; {BOOT} resamples of the {n_seeds} seeds, percentiles 2.5 and 97.5)")


def ratio6_check(C: Claims, cid: str, statement: str, H, Y, N: int = 10, scale: K.Scale | None = None) -> K.Claim:
    """Exp. 6's slope ratio against the v2 CSV's, judged by the seeds' bootstrap interval; the control is the v2
    text's 1.3 through the same interval (the two published values must be told apart)."""
    rp = paper_ratio6()
    r, lo, hi = ratio6_interval(H, Y, N)
    inside = lambda v: bool(lo <= v <= hi)
    return C.check(cid, statement, paper=f"{RATIO6_TEXT} (v2 text), {rp:.2f} (v2 CSV)",
                   ours=f"{r:.2f} (95% interval {lo:.2f}-{hi:.2f}, {len(Y)} seeds)", ok=inside(rp),
                   criterion=ratio6_criterion(len(Y)), stable=False, kind=EXPERIMENT, scale=scale,
                   control=Control(f"the v2 text's {RATIO6_TEXT} through the same interval", inside(RATIO6_TEXT),
                                   f"{RATIO6_TEXT}"))


def exp6_above_phi5(H, acc) -> int | None:
    """The largest H up to which every accuracy is at or above v1's phi(5H + 2) (N = 10), None if not even at the
    first H: how far trained d = d_h = 2 models go past a count the proof does not give at d = 2."""
    last = None
    for h, a in zip(H, acc, strict=True):
        if a < float(aot.phi(5 * h + 2, 10, 100)):
            break
        last = h
    return last


def _gap(xs, ys, paper: dict) -> float:
    """The largest |ours − paper| over the grid."""
    return max(abs(a - paper[v]) for v, a in zip(xs, ys, strict=True))


def _scale(ev, exp: str) -> K.Scale:
    sw = E.sweeps(EV.CHAPTER)[exp]
    return K.Scale(ours=f"{len(ev.points)} trained models: " + what(sw).split(": ", 1)[1], paper=sw["paper"], enough=True)


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


def _not_run(C: Claims, ids: list[str], ev, paper: str | dict, statements: dict, crit: dict) -> bool:
    """Record the sweep's claims as not run (no stored, stale or partial evidence): each with its statement and the
    criterion it will be judged by, then the sweep's state, the cost of what is missing and the command that
    produces it; True if so."""
    if ev.complete:
        return False
    why = _why(ev)
    for i in ids:
        C.not_run(i, statements[i], reason=f"criterion: {crit[i]}. Not run: {why}", kind=EXPERIMENT,
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


CONVEX_CRIT = ("the 95% t-interval of the per-seed x² coefficients (of a x² + b x + c) lies above 0, and in every seed the "
               "line's residual (1 - R²) is >= 5x the quadratic's")


def coef_interval(qs: list[tuple[float, float, float]]) -> tuple[float, float, float]:
    """(mean, and the 95% Student t-interval) of the x² coefficients of :func:`quad` over seeds (NaN below 2 seeds)."""
    a = np.array([q[0] for q in qs], float)
    if len(a) < 2:
        return (float(a.mean()) if len(a) else float("nan")), float("nan"), float("nan")
    half = float(student_t.ppf(0.975, len(a) - 1) * a.std(ddof=1) / np.sqrt(len(a)))
    return float(a.mean()), float(a.mean() - half), float(a.mean() + half)


def convex_seeds(qs: list[tuple[float, float, float]]) -> bool:
    """:data:`CONVEX_CRIT` on the per-seed :func:`quad` fits of one model."""
    lo = coef_interval(qs)[1]
    return bool(len(qs) >= 2 and lo > 0 and all((1 - c) >= 5 * (1 - b) for _, b, c in qs))


def fmt_convex(qs: list[tuple[float, float, float]]) -> str:
    m, lo, hi = coef_interval(qs)
    return (f"x² coefficient {m:+.4f} (95% interval {lo:+.4f}..{hi:+.4f}; seeds " + ", ".join(f"{a:+.4f}" for a, _, _ in qs)
            + "); line/quadratic residual " + ", ".join(f"{(1 - c) / max(1 - b, 1e-12):.1f}x" for _, b, c in qs))


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
EXP6_TEXT = {"exp6-ratio-paper-scale": "Exp. 6 (v2) at the official recipe: the slope ratio (empirical slope over the bound's) is the v2 "
                                        "CSV's, not the v2 text's 1.3 [official model]",
             "exp6-above-bound-paper-scale": "Exp. 6 / Fig. 4 at the official recipe: trained AoTs stay above phi(2H + 2) "
                                             "[official model]",
             "exp6-ratio-eq2-paper-scale": "Exp. 6 (v2) at the official recipe: the slope ratio of the eq. (2) model is the "
                                           "v2 CSV's too, not the v2 text's 1.3 [eq. (2) model]"}


def _exp6_crit(n_seeds: int) -> dict:
    r = ratio6_criterion(n_seeds) + f"; control: the v2 text's {RATIO6_TEXT} through the same interval"
    return {"exp6-ratio-paper-scale": r, "exp6-ratio-eq2-paper-scale": r,
            "exp6-above-bound-paper-scale": "full-table accuracy >= min(1, phi(2H+2)) - 0.02 at every H"}


def seed_rows(ev, variant: str, x: str, key: str = "running_acc") -> tuple[list, np.ndarray]:
    """(the x values, one row of ``key`` per seed) of one model in a stored sweep (seeds with the full grid)."""
    bs = by_seed(ev, variant, x, key)
    xs = sorted({k for d in bs.values() for k in d})
    rows = [[d[k] for k in xs] for _, d in sorted(bs.items()) if all(k in d for k in xs)]
    return xs, np.array(rows, float).reshape(len(rows), len(xs))


def exp6(C: Claims, evs: dict) -> None:
    """Exp. 6 / Fig. 4 at the official recipe (N = 10, d = d_h = 2, 6 seeds, both models): figure, table, claims."""
    ev = evs["exp6"]
    Hs = aot.PAPER["exp6_H"]
    bound = {H: float(aot.phi(2 * H + 2, 10, 100)) for H in Hs}
    _figure_and_table(ev, "H", dict(zip(Hs, aot.PAPER["exp6"], strict=True)), bound, "heads H",
                      "Exp. 6, stored run: N = 10, d = d_h = 2")
    rp = paper_ratio6()
    for v in MODELS:
        H, Y = seed_rows(ev, v, "H")
        if not len(Y):
            continue
        r, lo, hi = ratio6_interval(H, Y)
        seeds = [_ratio6(H, y) for y in Y]
        half = (float(student_t.ppf(0.975, len(seeds) - 1) * np.std(seeds, ddof=1) / np.sqrt(len(seeds)))
                if len(seeds) > 1 else float("nan"))
        print(f"slope ratio, {LABEL[v]}: {r:.2f} (seed-mean curve; 95% bootstrap interval {lo:.2f}-{hi:.2f}); per seed "
              + ", ".join(f"{x:.2f}" for x in seeds) + f" (their mean {np.mean(seeds):.2f} +- {half:.2f}, a different "
              "statistic: a seed that saturates early is fitted on fewer points)")
    print(f"slope ratio of the v2 CSV (20 seeds): {rp:.2f}; v2 text: {RATIO6_TEXT}")
    H, acc, _ = _mean(ev.points, "official", "H", "table_acc")
    if H:
        last = exp6_above_phi5(H, acc)
        print(f"v1's phi(5H + 2) (a count the proof does not give at d = 2): the official model's full-table accuracy is "
              f"above it {'up to H = ' + str(last) if last else 'at no H'} (of H = {', '.join(map(str, H))})")
    ids = list(EXP6_TEXT)
    n = len({p["rep"] for p in ev.points}) or 6
    if _not_run(C, ids, ev, {i: f"slope ratio {RATIO6_TEXT} (v2 text), {rp:.2f} (v2 CSV)" if "ratio" in i else
                             "above the bound" for i in ids}, EXP6_TEXT, _exp6_crit(n)):
        return
    sc = _scale(ev, "exp6")
    H, Y = seed_rows(ev, "official", "H")
    ratio6_check(C, ids[0], EXP6_TEXT[ids[0]], H, Y, scale=sc)
    _, t, _ = _mean(ev.points, "official", "H", "table_acc")
    above = lambda acc: all(a >= float(aot.phi(2 * h + 2, 10, 100)) - 0.02 for h, a in zip(H, acc, strict=True))
    C.check(ids[1], EXP6_TEXT[ids[1]], paper="above the bound", ours=", ".join(f"{a:.2f}" for a in t), ok=above(t),
            stable=False, criterion=_exp6_crit(n)[ids[1]], kind=EXPERIMENT, scale=sc,
            control=Control("a model that gains nothing from heads (its H = 1 accuracy at every H)",
                            passed=above([t[0]] * len(t)), value=f"{t[0]:.2f}"))
    H, Y = seed_rows(ev, "paper", "H")
    ratio6_check(C, ids[2], EXP6_TEXT[ids[2]], H, Y, scale=sc)


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
    if _not_run(C, list(EXP23_TEXT["exp2"]), ev, "v2 CSV curve", EXP23_TEXT["exp2"], EXP23_CRIT):
        return
    _claims23(C, ev, "exp2", "dh")
    sc = _scale(ev, "exp2")
    C.check("exp2-convex-official-paper-scale", EXP23_TEXT["exp2"]["exp2-convex-official-paper-scale"], paper=f"quadratic (v2 CSV x² coefficient {quad(dhs, aot.PAPER['exp2'])[0]:+.4f})",
            ours=fmt_convex(q["official"]), ok=convex_seeds(q["official"]),
            criterion=EXP23_CRIT["exp2-convex-official-paper-scale"],
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the eq. (2) model's seeds, same test", convex_seeds(q["paper"]), fmt_convex(q["paper"])))
    qo, qp = [a for a, _, _ in q["official"]], [a for a, _, _ in q["paper"]]
    spread = max(qo) - min(qo)
    C.check("exp2-model-dependence-paper-scale", EXP23_TEXT["exp2"]["exp2-model-dependence-paper-scale"],
            paper="(not discussed)",
            ours=f"x² coefficient: official {min(qo):+.4f}..{max(qo):+.4f}, eq. (2) {min(qp):+.4f}..{max(qp):+.4f}",
            ok=min(qo) - max(qp) > 0.005, criterion=EXP23_CRIT["exp2-model-dependence-paper-scale"], stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the same margin between two seeds of the official model (largest difference)",
                            bool(spread > 0.005), f"{spread:+.4f}"))
    best = {v: max(ppm[v], key=ppm[v].get) for v in MODELS}
    C.check("exp2-dh-optimal-paper-scale", EXP23_TEXT["exp2"]["exp2-dh-optimal-paper-scale"], paper="'taking d = d_h is optimal in term of memorization per parameter'",
            ours=f"best d_h = {best['official']} (official), {best['paper']} (eq. (2))", ok=best["official"] == 10,
            criterion=EXP23_CRIT["exp2-dh-optimal-paper-scale"],
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
    if _not_run(C, list(EXP23_TEXT["exp3"]), ev, "v2 CSV curve", EXP23_TEXT["exp3"], EXP23_CRIT):
        return
    _claims23(C, ev, "exp3", "d")
    sc = _scale(ev, "exp3")
    curve = {v: dict(zip(*_mean(ev.points, v, "d", "running_acc")[:2], strict=True)) for v in MODELS}
    plateau = lambda c: bool(c[10] - c[5] > 0.3 and abs(c[15] - c[10]) <= 0.05)
    C.check("exp3-plateau-official-paper-scale", EXP23_TEXT["exp3"]["exp3-plateau-official-paper-scale"], paper="v2: 'constant' for d >= d_h (CSV: "
            f"{aot.PAPER['exp3'][5]:.2f} at d = 10, {aot.PAPER['exp3'][-1]:.2f} at d = 15)",
            ours=f"{curve['official'][5]:.2f} -> {curve['official'][10]:.2f} -> {curve['official'][15]:.2f} (d = 5, 10, 15)",
            ok=plateau(curve["official"]), criterion=EXP23_CRIT["exp3-plateau-official-paper-scale"],
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the eq. (2) model", plateau(curve["paper"]),
                            f"{curve['paper'][10]:.2f} -> {curve['paper'][15]:.2f}"))
    o15, p15 = [b for _, b in at["official"].values()], [b for _, b in at["paper"].values()]
    spread = max(o15) - min(o15)
    C.check("exp3-model-dependence-paper-scale", EXP23_TEXT["exp3"]["exp3-model-dependence-paper-scale"],
            paper="(not discussed)",
            ours=f"acc at d = 15: official {min(o15):.3f}..{max(o15):.3f}, eq. (2) {min(p15):.3f}..{max(p15):.3f}",
            ok=min(p15) - max(o15) > 0.05, criterion=EXP23_CRIT["exp3-model-dependence-paper-scale"],
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the same margin between two seeds of the official model (largest difference)",
                            bool(spread > 0.05), f"{spread:+.3f}"))


EXP23_TEXT = {
    "exp2": {"exp2-paper-scale": "Exp. 2 / Fig. 1b at N = 50, d = 10, H = 20, the official recipe: our accuracy curve is "
                                 "the paper's [official model]",
             "exp2-convex-official-paper-scale": "Exp. 2 / Fig. 1b at N = 50: accuracy is convex ('quadratic') in d_h "
                                                 "[official model]",
             "exp2-model-dependence-paper-scale": "Exp. 2 at N = 50: the convexity in d_h belongs to the official code's "
                                                  "shared compression; the eq. (2) model is concave",
             "exp2-dh-optimal-paper-scale": "Exp. 2 at N = 50: among d_h <= d (the grid stops at d_h = d = 10; d_h > d "
                                            "is never trained), d_h = d is best in memorization per parameter (the "
                                            "paper's count) [official model]"},
    "exp3": {"exp3-paper-scale": "Exp. 3 / Fig. 2a at N = 50, d_h = 10, H = 20, the official recipe: our accuracy curve "
                                 "is the paper's [official model]",
             "exp3-plateau-official-paper-scale": "Exp. 3 / Fig. 2a (v2) at N = 50: accuracy grows with d up to d_h, "
                                                  "then stays constant below 1 [official model]",
             "exp3-model-dependence-paper-scale": "Exp. 3 at N = 50: the plateau for d > d_h comes from the official "
                                                  "code's shared rank-d_h compression; the eq. (2) model keeps improving"}}
EXP23_CRIT = {
    "exp2-paper-scale": "max over the grid of |ours - paper| <= 0.05 (mean over seeds); control: the eq. (2) model",
    "exp3-paper-scale": "max over the grid of |ours - paper| <= 0.05 (mean over seeds); control: the eq. (2) model",
    "exp2-convex-official-paper-scale": CONVEX_CRIT,
    "exp2-model-dependence-paper-scale": "every official seed's x² coefficient exceeds every eq. (2) seed's by > 0.005",
    "exp2-dh-optimal-paper-scale": "associations per parameter largest at d_h = d = 10 among d_h = 1..10 (d_h > d "
                                   "untested)",
    "exp3-plateau-official-paper-scale": "rise > 0.3 from d = 5 to d = d_h = 10, then |acc(15) - acc(10)| <= 0.05",
    "exp3-model-dependence-paper-scale": "every eq. (2) seed exceeds every official seed by > 0.05 at d = 15"}


def _claims23(C: Claims, ev, n: str, x: str) -> None:
    """:func:`evidence._claims23`'s claim for one experiment, with the eq. (2) model as a second control."""
    cid = f"{n}-paper-scale"
    xs, m, _ = _mean(ev.points, "official", x, "running_acc")
    xp, mp, _ = _mean(ev.points, "paper", x, "running_acc")
    paper = dict(zip(aot.PAPER[f"{n}_{x}"], aot.PAPER[n], strict=True))
    gp = _gap(xp, mp, paper)
    C.check(cid, EXP23_TEXT[n][cid], paper="v2 CSV: " + " ".join(f"{paper[v]:.2f}" for v in xs),
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
N_EXP1 = len(aot.PAPER["exp1"]) * len(aot.PAPER["exp1_H"])     # Fig. 1a's grid: 11 values of d x 7 head counts

LIN_CRIT = ("pooled R^2 of the line >= 0.98 and its residual 1 - R^2 at most half that of sqrt(H) and of H^2 "
            "(pre-saturation points)")
ABOVE_CRIT = "full-table acc >= phi(H d_h + d) - 0.02 for d >= 4"
RATIO_CRIT = "associations per head (slope x T0 / (1 - 1/N)) / d_h >= 1.5 for every d >= 5"
RATIO_NOISE = ("seed noise: the same ratio on the slope difference of two seeds (largest pair) at each d, "
               "same threshold")
EXPONENT_MARGIN = 2.0      # the claimed exponent's fit must leave at most 1/2 of the rival's residual
EXPONENT_WINDOW = 0.2      # |k - claimed k| <= 0.2, or half the distance to the rival when that is smaller


def exponent_window(k_claim: float, k_rival: float) -> float:
    """The window around the claimed exponent: 0.2, or half the distance to the rival when that is smaller (so that
    the claimed and the rival windows are disjoint)."""
    return min(EXPONENT_WINDOW, abs(k_claim - k_rival) / 2)


def exponent_criterion(k_claim: float, k_rival: float, claim: str, rival: str) -> str:
    return (f"|k - {k_claim:.2f}| <= {exponent_window(k_claim, k_rival):.2f} (min(0.2, half the distance to the rival): "
            f"disjoint from the rival's window), and the fit log(associations per head) = k log d + c (c free) with "
            f"k = {k_claim:.2f} ({claim}) leaves at most 1/{EXPONENT_MARGIN:g} of the residual sum of squares of the same "
            f"fit with k = {k_rival:.2f} ({rival})")


def fixed_exponent_ss(slopes: dict, N: int, k: float) -> float:
    """Residual sum of squares of log(associations per head) = k log d + c (k fixed, c fitted) over the d with a
    positive slope."""
    ds = np.array([d for d in sorted(slopes) if slopes[d] > 0], float)
    if len(ds) < 2:
        return float("nan")
    y = np.log(np.array([slopes[int(d)] for d in ds]) * N * N / (1 - 1 / N)) - k * np.log(ds)
    return float(((y - y.mean()) ** 2).sum())


def exponent_test(slopes: dict, N: int, k_claim: float, k_rival: float) -> bool:
    """The exponent criterion (:func:`exponent_criterion`) for ``k_claim`` against ``k_rival``."""
    k = exponent(slopes, N)
    w = exponent_window(k_claim, k_rival)
    sc, sr = fixed_exponent_ss(slopes, N, k_claim), fixed_exponent_ss(slopes, N, k_rival)
    return bool(np.isfinite(k) and abs(k - k_claim) <= w and EXPONENT_MARGIN * sc <= sr)


def exponent_check(C: Claims, cid: str, statement: str, slopes: dict, N: int, k_claim: float, k_rival: float,
                   claim: str, rival: str, paper: str, scale) -> K.Claim:
    """An exponent claim: the fitted k within the claimed exponent's window and the claimed fixed-exponent fit
    better than the rival's by :data:`EXPONENT_MARGIN`; the control is the rival through the same test."""
    k = exponent(slopes, N)
    sc, sr = fixed_exponent_ss(slopes, N, k_claim), fixed_exponent_ss(slopes, N, k_rival)
    return C.check(cid, statement, paper=paper,
                   ours=f"k = {k:.2f}; residual SS {sc:.3g} at k = {k_claim:.2f} vs {sr:.3g} at k = {k_rival:.2f}",
                   ok=exponent_test(slopes, N, k_claim, k_rival),
                   criterion=exponent_criterion(k_claim, k_rival, claim, rival),
                   stable=False, kind=EXPERIMENT, scale=scale,
                   control=Control(f"the rival k = {k_rival:.2f} ({rival}) through the same test",
                                   exponent_test(slopes, N, k_rival, k_claim), f"SS ratio {sr / sc:.2f}"
                                   if sc > 0 else ""))


def noise_ratios(recs: list[dict], ds: list[int], Hs: list[int], N: int) -> dict[int, float]:
    """{d: the largest |slope(seed a) - slope(seed b)| over pairs of seeds, as a slope ratio}: the seed noise of
    :data:`RATIO_CRIT` (empty with fewer than two seeds)."""
    from lib.chapters.aot_memorization import plots as AP
    reps = sorted({r["rep"] for r in recs})
    per = {r: AP.per_head_slopes([p for p in recs if p["rep"] == r], ds, Hs, N)[0] for r in reps}
    out = {}
    for d in ds:
        s = [per[r][d] for r in reps if d in per[r]]
        if len(s) >= 2 and d >= 5:
            out[d] = AT.slope_ratio(max(s) - min(s), N, N * N, d)
    return out


def ratio_check(C: Claims, cid: str, statement: str, recs: list[dict], ds: list[int], Hs: list[int], N: int,
                paper: str, scale) -> K.Claim:
    """Exp. 1's slope ratio (:data:`RATIO_CRIT`) on the seed means; control: the same ratio on the seed noise."""
    from lib.chapters.aot_memorization import plots as AP
    slopes, _ = AP.per_head_slopes(recs, ds, Hs, N)
    ratios = {d: AT.slope_ratio(s_, N, N * N, d) for d, s_ in slopes.items() if d >= 5}
    noise = noise_ratios(recs, ds, Hs, N)
    ctl = (Control(RATIO_NOISE, bool(noise) and all(r >= 1.5 for r in noise.values()),
                   ", ".join(f"d={d}: {r:.2f}x" for d, r in noise.items())) if noise else None)
    return C.check(cid, statement, paper=paper, ours=", ".join(f"d={d}: {r:.1f}x" for d, r in ratios.items()) or "no d >= 5",
                   ok=bool(ratios) and all(r >= 1.5 for r in ratios.values()), criterion=RATIO_CRIT, stable=False,
                   kind=EXPERIMENT, scale=scale, control=ctl)


def _exp1_text() -> tuple[dict, dict, dict]:
    """Statements, the paper's side and criteria of the Exp. 1 / 4 claims on the stored grid (also when not run)."""
    from lib.chapters.aot_memorization import plots as AP
    k2 = exponent(AP.paper_slopes(), 50)
    pr = [AT.slope_ratio(s_, 50, 2500, d) for d, s_ in AP.paper_slopes().items() if d >= 5]
    text = {
        "exp1-vs-paper-paper-scale": f"Exp. 1 / Fig. 1a at the paper's scale, all {N_EXP1} points: our running accuracy "
                                     "is the official data's [official model]",
        "exp1-linear-paper-scale": "Exp. 1 / Fig. 1a at the paper's scale: accuracy is linear in H at every d = d_h = "
                                   "3..13 [official model]",
        "exp1-above-bound-paper-scale": "Exp. 1 at the paper's scale: trained AoTs memorize at least the bound "
                                        "phi(H d_h + d) [official model]",
        "exp1-slope-ratio-paper-scale": "Exp. 1 at the paper's scale: the empirical per-head memorization is several "
                                        "times the bound's d_h [official model]",
        "exp4-exponent-paper-scale": "Exp. 4 / Fig. 2b (v2) at the paper's scale: the per-head coefficient grows like "
                                     "d^k with the v2 data's k, not v1's cubic [official model]",
        "exp4-cubic-v1-paper-scale": "Exp. 4 / Fig. 2b (v1) at the paper's scale: the per-head coefficient grows like "
                                     "d^3, not with the v2 data's k [official model]",
        "exp1-linear-eq2-paper-scale": "Exp. 1 / Fig. 1a at the paper's scale: accuracy is linear in H at every d = d_h "
                                       "= 3..13 [eq. (2) model]",
        "exp4-exponent-eq2-paper-scale": "Exp. 4 / Fig. 2b (v2) at the paper's scale: the per-head coefficient grows "
                                         "like d^k with the v2 data's k, not v1's cubic [eq. (2) model]",
        "exp1-models-agree-paper-scale": "Exp. 1 at the paper's scale: at d = d_h the official code's model and the "
                                         "eq. (2) model give the same Fig. 1a"}
    paper = {"exp1-vs-paper-paper-scale": "v2 CSV (5 seeds)", "exp1-linear-paper-scale": "linear (R^2 of the official fits >= 0.99)",
             "exp1-above-bound-paper-scale": "above 'our lower bound' everywhere (d >= 4)",
             "exp1-slope-ratio-paper-scale": f"{min(pr):.1f}x-{max(pr):.1f}x (v2 CSV, d = 5..13)",
             "exp4-exponent-paper-scale": f"{k2:.2f} (v2 CSV)", "exp4-cubic-v1-paper-scale": "3 (v1 text)",
             "exp1-linear-eq2-paper-scale": "linear (R^2 of the official fits >= 0.99)",
             "exp4-exponent-eq2-paper-scale": f"{k2:.2f} (v2 CSV)", "exp1-models-agree-paper-scale": "(the paper trains one model)"}
    ctl = "; control: the rival through the same test"
    crit = {"exp1-vs-paper-paper-scale": "|ours - paper| <= 0.05 at every (d, H) (seed means); control: our full-table "
                                         "accuracy against the same numbers",
            "exp1-linear-paper-scale": LIN_CRIT + "; control: the rival sqrt(H)",
            "exp1-above-bound-paper-scale": ABOVE_CRIT + "; control: a model that gains nothing from heads",
            "exp1-slope-ratio-paper-scale": RATIO_CRIT + "; control: " + RATIO_NOISE,
            "exp4-exponent-paper-scale": exponent_criterion(k2, 3.0, "v2 CSV", "v1 cubic") + ctl,
            "exp4-cubic-v1-paper-scale": exponent_criterion(3.0, k2, "v1 cubic", "v2 CSV") + ctl,
            "exp1-linear-eq2-paper-scale": LIN_CRIT + "; control: the rival sqrt(H)",
            "exp4-exponent-eq2-paper-scale": exponent_criterion(k2, 3.0, "v2 CSV", "v1 cubic") + ctl,
            "exp1-models-agree-paper-scale": "|official - eq. (2)| <= 0.05 at every (d, H) (seed means); control: the "
                                             "eq. (2) model one dimension up (d + 1) against the official model at d"}
    return text, paper, crit


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
    official v2 recipe, both models, seed means): figure, table, claims with the live claims' criteria."""
    from lib.chapters.aot_memorization import plots as AP
    ev = evs["exp1"]
    text, paper, crit = _exp1_text()
    if _not_run(C, EXP1_IDS + EXP1_EQ2_IDS, ev, paper, text, crit):
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
    cid = EXP1_IDS[0]
    C.check(cid, text[cid], paper=paper[cid], ours=f"max |diff| {dm:.3f} over {len(m)} points "
            f"({'mean of ' + str(n_seeds) + ' seeds' if n_seeds > 1 else '1 seed'})", ok=dm <= 0.05,
            criterion="|ours - paper| <= 0.05 at every (d, H)", stable=False,
            kind=EXPERIMENT, scale=sc, control=Control("our full-table accuracy (the other metric) against the same numbers",
                                                       dmt <= 0.05, f"max |diff| {dmt:.3f}"))
    _exp1_shape(C, pts, ds, Hs, mt, sc, text, paper)
    k2 = exponent(pslopes, 50)
    print(f"exponent of associations per head ~ d^k: stored run {exponent(slopes, 50):.2f} ({len(slopes)} values of d), "
          f"v2 CSV {k2:.2f}")
    for cid, kc, kr, lc, lr in ((EXP1_IDS[4], k2, 3.0, "v2 CSV", "v1 cubic"), (EXP1_IDS[5], 3.0, k2, "v1 cubic", "v2 CSV")):
        exponent_check(C, cid, text[cid], slopes, 50, kc, kr, lc, lr, paper[cid], sc)
    _exp1_eq2(C, ev, ds, Hs, m, pslopes, sc, text, paper)


def _exp1_shape(C: Claims, pts: list[dict], ds: list[int], Hs: list[int], mt: dict, sc, text: dict, paper: dict) -> None:
    """The live claims exp1-linear, exp1-above-bound and exp1-slope-ratio, same criteria, on the stored grid."""
    from lib.chapters.aot_memorization import plots as AP
    r2 = {k: AP.pooled_r2(pts, ds, Hs, k) for k in (0.5, 1, 2)}
    lin_ok = lambda k: bool(r2[k] >= 0.98 and all(1 - r2[j] >= 2 * (1 - r2[k]) for j in r2 if j != k))
    cid = EXP1_IDS[1]
    C.check(cid, text[cid], paper=paper[cid], ours=", ".join(f"R^2(H^{k}) {r:.3f}" for k, r in r2.items()),
            ok=lin_ok(1), criterion=LIN_CRIT, stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the nearest rival curve a sqrt(H) + b, same criterion", lin_ok(0.5), f"R^2 {r2[0.5]:.3f}"))
    grid = [(d, H) for d in ds for H in Hs if d >= 4]
    above = lambda acc: all(acc(d, H) >= float(aot.phi(H * d + d, 50, 2500)) - 0.02 for d, H in grid)
    cid = EXP1_IDS[2]
    C.check(cid, text[cid], paper=paper[cid], ours=f"{len(grid)} points (d >= 4)",
            ok=above(lambda d, H: mt[(d, H)][0]), criterion=ABOVE_CRIT, stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("a model that gains nothing from heads (its H = 1 accuracy at every H)",
                            above(lambda d, H: mt[(d, Hs[0])][0])))
    cid = EXP1_IDS[3]
    ratio_check(C, cid, text[cid], pts, ds, Hs, 50, paper[cid], sc)


def _exp1_eq2(C: Claims, ev, ds: list[int], Hs: list[int], m: dict, pslopes: dict, sc, text: dict, paper: dict) -> None:
    """Exp. 1 and 4 with the eq. (2) model on the stored grid: the line in H and the exponent (the official model's
    criteria and controls), and whether the two models' curves agree at d = d_h (where they differ only by the
    positional embedding's place and the 1/sqrt(d_h) scaling)."""
    from lib.chapters.aot_memorization import plots as AP
    pq = [p for p in ev.points if p["variant"] == "paper"]
    if not pq:
        for i in EXP1_EQ2_IDS:
            C.not_run(i, text[i], paper=paper[i], kind=EXPERIMENT,
                      reason=f"the stored run has no eq. (2) model; run `{ev.command}`")
        return
    mq = AT.mean_over_reps(pq, "running_acc", ["d", "H"])
    r2 = {k: AP.pooled_r2(pq, ds, Hs, k) for k in (0.5, 1, 2)}
    lin_ok = lambda k: bool(r2[k] >= 0.98 and all(1 - r2[j] >= 2 * (1 - r2[k]) for j in r2 if j != k))
    cid = EXP1_EQ2_IDS[0]
    C.check(cid, text[cid], paper=paper[cid], ours=", ".join(f"R^2(H^{k}) {r:.3f}" for k, r in r2.items()), ok=lin_ok(1),
            criterion=LIN_CRIT, stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the nearest rival curve a sqrt(H) + b, same criterion", lin_ok(0.5), f"R^2 {r2[0.5]:.3f}"))
    slopes, _ = AP.per_head_slopes(pq, ds, Hs, 50)
    k_q, k_paper = exponent(slopes, 50), exponent(pslopes, 50)
    print(f"eq. (2) model: exponent of associations per head ~ d^k: {k_q:.2f} (v2 CSV {k_paper:.2f})")
    cid = EXP1_EQ2_IDS[1]
    exponent_check(C, cid, text[cid], slopes, 50, k_paper, 3.0, "v2 CSV", "v1 cubic", paper[cid], sc)
    gap = max(abs(m[(d, H)][0] - mq[(d, H)][0]) for d in ds for H in Hs)
    nxt = max(abs(m[(d, H)][0] - mq[(d + 1, H)][0]) for d in ds[:-1] for H in Hs)
    print(f"largest |official - eq. (2)| over the {len(ds) * len(Hs)} points: {gap:.3f} (official at d against eq. (2) at "
          f"d + 1: {nxt:.3f})")
    cid = EXP1_EQ2_IDS[2]
    C.check(cid, text[cid], paper=paper[cid], ours=f"max |official - eq. (2)| {gap:.3f}",
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


def _v1_exponents() -> tuple[float, float]:
    """The exponents of the v1 CSV and the v2 CSV (Fig. 1a, the official rule)."""
    Hs = aot.PAPER["exp1_H"]
    return exponent(csv_slopes(aot.PAPER["exp1_v1"], Hs), 50), exponent(csv_slopes(aot.PAPER["exp1"], Hs), 50)


def _v1_crit() -> dict:
    k1, k2 = _v1_exponents()
    return {"v1-protocol": "|ours - v1| <= 0.05 at every (d, H) of v1's grid; control: the v2 CSV against the same "
                           "v1 numbers",
            "v1-exponent": exponent_criterion(k1, k2, "v1 CSV", "v2 CSV") + "; control: the rival through the same test",
            "v1-cubic": exponent_criterion(3.0, k2, "v1 text", "v2 CSV") + "; control: the rival through the same test",
            "v1-above-bound": ABOVE_CRIT + "; control: a model that gains nothing from heads"}


def v1_diffs(m: dict, v1t: dict, Hs: list) -> list[tuple[int, int, float, float]]:
    """(d, H, ours − v1 CSV, v2 CSV − v1 CSV) at every point of v1's grid (6 or 7 H per d; ``m``:
    ``{(d, H): (running acc, ...)}``)."""
    return [(d, H, m[(d, H)][0] - y, aot.PAPER["exp1"][d][i] - y) for d in sorted(v1t)
            for i, (H, y) in enumerate(zip(Hs, v1t[d], strict=False))]


def v1_spread(pts: list[tuple[int, int, float, float]]) -> str:
    """Where ours and the v2 CSV stand against the v1 CSV, point by point (:func:`v1_diffs`): the median |diff|, the
    points within 0.05, and the (d, H) of ours beyond it with its sign."""
    ours, v2 = np.abs([p[2] for p in pts]), np.abs([p[3] for p in pts])
    far = [p for p in pts if abs(p[2]) > 0.05]
    return (f"against the v1 CSV: ours within 0.05 at {int((ours <= 0.05).sum())} of {len(pts)} points (median |diff| "
            f"{np.median(ours):.3f}), the v2 CSV at {int((v2 <= 0.05).sum())} (median {np.median(v2):.3f}); ours beyond "
            f"0.05 at d = {min(p[0] for p in far)}..{max(p[0] for p in far)}, H >= {min(p[1] for p in far)}, "
            f"{sum(p[2] > 0 for p in far)} of {len(far)} of them above v1" if far else "every point within 0.05")


def v1(C: Claims, evs: dict) -> None:
    """v1's protocol for Fig. 1a (N = 50, 1 seed, official model) against the v1 CSV: figure, table, claims."""
    from lib.chapters.aot_memorization import plots as AP
    ev = evs["v1"]
    if _not_run(C, V1_IDS, ev, V1_PAPER, V1_TEXT, _v1_crit()):
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
    cmp = v1_diffs(m, v1t, Hs)
    diff = {d: max(abs(p[2]) for p in cmp if p[0] == d) for d in ds}
    v2gap = max(abs(p[3]) for p in cmp)
    print("d                    " + " ".join(f"{d:6d}" for d in ds))
    print("max |ours - v1 CSV|  " + " ".join(f"{diff[d]:6.3f}" for d in ds))
    slopes, _ = AP.per_head_slopes(pts, ds, Hs, 50)
    k, k1, k2 = exponent(slopes, 50), exponent(csv_slopes(v1t, Hs), 50), exponent(csv_slopes(aot.PAPER["exp1"], Hs), 50)
    print(f"exponent of associations per head ~ d^k: v1 protocol {k:.2f}; v1 CSV {k1:.2f}; v2 CSV {k2:.2f}")
    print(v1_spread(cmp))
    sc = _scale(ev, "v1")
    n = sum(len(y) for y in v1t.values())
    C.check("v1-protocol", V1_TEXT["v1-protocol"], paper="v1 CSV (2 seeds)", ours=f"max |diff| {max(diff.values()):.3f} over {n} points",
            ok=max(diff.values()) <= 0.05, criterion="|ours - v1| <= 0.05 at every (d, H) of v1's grid", stable=False,
            kind=EXPERIMENT, scale=sc, control=Control("the v2 CSV (v2's recipe, 5 seeds) against the same v1 numbers",
                                                       v2gap <= 0.05, f"max |diff| {v2gap:.3f}"))
    exponent_check(C, "v1-exponent", V1_TEXT["v1-exponent"], slopes, 50, k1, k2, "v1 CSV", "v2 CSV",
                   f"{k1:.2f} (v1 CSV)", sc)
    exponent_check(C, "v1-cubic", V1_TEXT["v1-cubic"], slopes, 50, 3.0, k2, "v1 text", "v2 CSV", "3 (v1 text)", sc)
    grid = [(d, H) for d in ds for H in Hs if d >= 4]
    above = lambda acc: all(acc(d, H) >= float(aot.phi(H * d + d, 50, 2500)) - 0.02 for d, H in grid)
    C.check("v1-above-bound", V1_TEXT["v1-above-bound"], paper="above 'our lower bound' (v1 Fig. 1a)",
            ours=f"{len(grid)} points (d >= 4)", ok=above(lambda d, H: mt[(d, H)][0]),
            criterion=ABOVE_CRIT, stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("a model that gains nothing from heads (its H = 1 accuracy at every H)",
                            above(lambda d, H: mt[(d, Hs[0])][0])))


B1_TEXT = {"appB1-exp2-linear": "App. B.1 / Fig. 6 (v2): at N = 200, d = 50, H = 11, accuracy is 'linear' in d_h where Fig. 1b "
                                "(d = 10) is 'quadratic': our curve is at least as close to a line as the B.1 CSV's, i.e. "
                                "closer to it than to Fig. 1b's [official model]",
           "appB1-exp2-vs-paper": "App. B.1 / Fig. 6 at N = 200: our accuracy curve over d_h is the v2 CSV's [official model]",
           "appB1-exp1-linear": "App. B.1 / Fig. 5 (v2): at N = 200, d = d_h = 40, 50, 60, accuracy stays linear in H "
                                "[official model]",
           "appB1-exp1-vs-paper": "App. B.1 / Fig. 5 at N = 200: our accuracy at every (d, H) is the v2 CSV's [official model]",
           "appB1-exp4-exponent": "App. B.1 at N = 200, d = 40..60: the per-head coefficient grows like d^k with the B.1 "
                                  "data's k, not the text's 2 [official model]",
           "appB1-exp4-quadratic": "App. B.1 (v2): at large dimension the per-head coefficient grows quadratically in d "
                                   "('quadratic instead of cubic'), not with the B.1 data's k [official model]"}

B1_PAPER = {"appB1-exp2-linear": "'the scaling here is linear' (v2 Fig. 6)", "appB1-exp2-vs-paper": "v2 CSV (5 seeds)",
            "appB1-exp1-linear": "'as expected, the scaling remains linear' (v2 Fig. 5)",
            "appB1-exp1-vs-paper": "v2 CSV (5 seeds)", "appB1-exp4-exponent": "the B.1 CSV's exponent",
            "appB1-exp4-quadratic": "2 (v2 text)"}


def b1_curvatures() -> dict[str, float]:
    """The curvature (:func:`curvature`) of the B.1 CSV's Fig. 6 and of Fig. 1b's v2 CSV, with and without
    d_h = d (where the official model drops its compression), and the threshold of ``appB1-exp2-linear``: the
    midpoint between the two CSVs (what v2 calls linear, and what it calls quadratic)."""
    P = aot.PAPER
    c = {"b1": curvature(P["b1_exp2_dh"], P["b1_exp2"]), "b1_in": curvature(P["b1_exp2_dh"][:-1], P["b1_exp2"][:-1]),
         "fig1b": curvature(P["exp2_dh"], P["exp2"]), "fig1b_in": curvature(P["exp2_dh"][:-1], P["exp2"][:-1])}
    c["mid"] = (c["b1"] + c["fig1b"]) / 2
    return c


def _b1_crit() -> dict:
    c = b1_curvatures()
    kb = exponent(csv_slopes(aot.PAPER["b1_exp1"], aot.PAPER["b1_exp1_H"]), 200)
    return {"appB1-exp2-linear": f"curvature (the quadratic fit's x^2 term over the d_h range, as a fraction of the rise) "
                                 f"<= {c['mid']:.2f}, the midpoint between the B.1 CSV's {c['b1']:.2f} (v2: 'linear') and "
                                 f"Fig. 1b's v2 CSV's {c['fig1b']:.2f} (v2: 'quadratic'); control: our stored Fig. 1b "
                                 "(exp2, official model) through the same threshold",
            "appB1-exp2-vs-paper": "|ours - paper| <= 0.05 at every point; control: our full-table accuracy",
            "appB1-exp1-linear": LIN_CRIT + "; control: the rival sqrt(H)",
            "appB1-exp1-vs-paper": "|ours - paper| <= 0.05 at every point; control: our full-table accuracy",
            "appB1-exp4-exponent": exponent_criterion(kb, 2.0, "B.1 CSV", "v2 text") + "; control: the rival through the same test",
            "appB1-exp4-quadratic": exponent_criterion(2.0, kb, "v2 text", "B.1 CSV") + "; control: the rival through the same test"}


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


def convex_curve(q: tuple[float, float, float]) -> bool:
    """Exp. 2's convexity criterion on one curve: x² coefficient > 0 and the line's residual >= 5x the quadratic's."""
    return bool(q[0] > 0 and (1 - q[2]) >= 5 * (1 - q[1]))


def b1_csv_finding(C: Claims) -> None:
    """v2 calls B.1's Fig. 6 'linear' and Fig. 1b 'quadratic'; by the criterion the chapter applies to Fig. 1b, the
    B.1 CSV is convex too (computed from the CSVs, on the page whether or not the sweep is stored)."""
    P, c = aot.PAPER, b1_curvatures()
    q, q_in = quad(P["b1_exp2_dh"], P["b1_exp2"]), quad(P["b1_exp2_dh"][:-1], P["b1_exp2"][:-1])
    res = lambda q: (1 - q[2]) / (1 - q[1])
    print(f"B.1 CSV (Fig. 6, which v2 calls linear): curvature {c['b1']:.2f} ({c['b1_in']:.2f} without d_h = d); the line "
          f"leaves {res(q):.1f}x the quadratic's residual ({res(q_in):.1f}x without d_h = d). Fig. 1b's v2 CSV (which v2 "
          f"calls quadratic): curvature {c['fig1b']:.2f} ({c['fig1b_in']:.2f} without d_h = d)")
    C.check("appB1-exp2-csv-convex", "v2 calls App. B.1's Fig. 6 (N = 200, d = 50) 'linear' in d_h, against Fig. 1b's "
            "'quadratic', but its own CSV is convex by the criterion this chapter applies to Fig. 1b, with and without "
            "d_h = d; it is less curved than Fig. 1b's CSV, not linear", paper="'the scaling here is linear' (v2 Fig. 6)",
            ours=f"curvature {c['b1']:.2f} ({c['b1_in']:.2f} without d_h = d) vs Fig. 1b's CSV {c['fig1b']:.2f}; the line "
            f"leaves {res(q):.1f}x ({res(q_in):.1f}x) the quadratic's residual",
            ok=convex_curve(q) and convex_curve(q_in) and c["b1"] < c["fig1b"], criterion="on the B.1 CSV, with and without d_h = d "
            "= 50: x² coefficient > 0 and the line's residual >= 5x the quadratic's (1 - R²); and its curvature below "
            "Fig. 1b's CSV's", stable=False, kind=FINDING)


def b1_fig6(C: Claims, evs: dict) -> None:
    """App. B.1 / Fig. 6 (N = 200, d = 50, H = 11, d_h = 1, 5, ..., 50) against the v2 CSV: figure, table, claims.
    The control of ``appB1-exp2-linear`` is our stored Fig. 1b (``evs['exp2']``) when it is stored, else Fig. 1b's
    v2 CSV."""
    b1_csv_finding(C)
    ev, ids = evs["b1-fig6"], ["appB1-exp2-linear", "appB1-exp2-vs-paper"]
    if _not_run(C, ids, ev, B1_PAPER, B1_TEXT, _b1_crit()):
        return
    dhs, csv = aot.PAPER["b1_exp2_dh"], aot.PAPER["b1_exp2"]
    bound = {dh: float(aot.phi(11 * dh + 50, 200, 40000)) for dh in dhs}
    ax = _figure_and_table(ev, "dh", dict(zip(dhs, csv, strict=True)), bound, "head dimension d_h",
                           "App. B.1 / Fig. 6, stored run: N = 200, d = 50, H = 11", models=("official",))
    ax.set_ylim(0, 0.7)
    _, y, _ = _mean(ev.points, "official", "dh", "running_acc")
    c = b1_curvatures()
    k, k_in = curvature(dhs, y), curvature(dhs[:-1], y[:-1])
    e2 = evs.get("exp2")
    if e2 is not None and e2.complete:
        x2, y2, _ = _mean(e2.points, "official", "dh", "running_acc")
        rival, what_ = curvature(x2, y2), "our stored Fig. 1b (exp2: N = 50, d = 10, official model), which v2 calls quadratic"
    else:
        rival, what_ = c["fig1b"], "Fig. 1b's v2 CSV (N = 50, d = 10, which v2 calls quadratic; our exp2 is not stored)"
    print(f"curvature (x^2 term over the range / rise): ours {k:.2f} ({k_in:.2f} without d_h = d, where the official model "
          f"drops its compression); B.1 CSV {c['b1']:.2f}; Fig. 1b's v2 CSV {c['fig1b']:.2f}; threshold {c['mid']:.2f}")
    sc = _scale(ev, "b1-fig6")
    C.check(ids[0], B1_TEXT[ids[0]], paper=f"'the scaling here is linear' (the B.1 CSV's own curvature {c['b1']:.2f})",
            ours=f"curvature {k:.2f}", ok=k <= c["mid"], criterion=_b1_crit()[ids[0]].split("; control")[0],
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control(what_ + ", same threshold", rival <= c["mid"], f"{rival:.2f}"))
    _vs_paper(C, ids[1], ev, [((50, dh, 11), a) for dh, a in zip(dhs, csv, strict=True)], sc)


def b1_fig5(C: Claims, evs: dict) -> None:
    """App. B.1 / Fig. 5 (N = 200, d = d_h = 40, 50, 60, H = 1, 3, ..., 11) against the v2 CSV: figure, claims."""
    from lib.chapters.aot_memorization import plots as AP
    ev = evs["b1-fig5"]
    ids = ["appB1-exp1-linear", "appB1-exp1-vs-paper", "appB1-exp4-exponent", "appB1-exp4-quadratic"]
    if _not_run(C, ids, ev, B1_PAPER, B1_TEXT, _b1_crit()):
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
            ours=", ".join(f"R^2(H^{k}) {r:.3f}" for k, r in r2.items()), ok=lin_ok(1), criterion=LIN_CRIT,
            stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the nearest rival curve a sqrt(H) + b, same criterion", lin_ok(0.5), f"R^2 {r2[0.5]:.3f}"))
    _vs_paper(C, ids[1], ev, [((d, d, H), a) for d in ds for H, a in zip(Hs, csv[d], strict=True)], sc)
    slopes, _ = AP.per_head_slopes(ev.points, ds, Hs, 200)
    k, k_csv = exponent(slopes, 200), exponent(csv_slopes(csv, Hs), 200)
    print(f"exponent of associations per head ~ d^k over d = 40..60: stored run {k:.2f}; B.1 CSV {k_csv:.2f}")
    exponent_check(C, ids[2], B1_TEXT[ids[2]], slopes, 200, k_csv, 2.0, "B.1 CSV", "v2 text", f"{k_csv:.2f} (B.1 CSV)", sc)
    exponent_check(C, ids[3], B1_TEXT[ids[3]], slopes, 200, 2.0, k_csv, "v2 text", "B.1 CSV", "2 (v2 text)", sc)


def b1_fig7(C: Claims, costs_json: dict | None) -> None:
    """App. B.1 / Fig. 7 (Exp. 5 at N = 200, d = 50): not trained; its cost estimated from the measured grids."""
    from lib.chapters.aot_memorization import costs
    gv2 = paper_gap5()
    C.not_run("appB1-exp5-mlp-better", "App. B.1 / Fig. 7 (v2): at N = 200, d = 50, 'the MLPs' memorization capacity is "
              "better, yet it is harder to optimize' [official models]", paper="'the MLPs' memorization capacity is "
              "better, yet it is harder to optimize' (v2 Fig. 7)", kind=EXPERIMENT,
              reason=f"criterion (Exp. 5's at N = 70): mean gap MLP - AoT over H >= 3 >= {gv2 / 2:+.3f} (half the N = 70 "
              "v2 data's), control: the two models' labels swapped. Not run: no sweep is declared; "
              + costs.fig7_estimate(costs_json))


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


def exp5_step_gap(aot_pts: list[dict]) -> dict[int, float]:
    """{seed: mean over d and H >= 6 of accuracy(AoT at the next head count) - accuracy(AoT at H)}: the gap between a
    model and itself one grid step bigger (H + 5 heads at N = 70), the rival of v1's 'the same'."""
    a = {(p["rep"], p["d"], p["H"]): p["running_acc"] for p in aot_pts}
    out: dict[int, list] = {}
    for r, d in sorted({(r, d) for r, d, _ in a}):
        Hs = sorted(H for rr, dd, H in a if (rr, dd) == (r, d))
        out.setdefault(r, []).extend(a[(r, d, h2)] - a[(r, d, h1)] for h1, h2 in zip(Hs[:-1], Hs[1:], strict=True) if h1 > 1)
    return {r: float(np.mean(v)) for r, v in out.items() if v}


SWAPPED = "the two models' labels swapped (AoT - MLP), same test"
STEP = "the AoT against itself one grid step bigger (the next head count), same test"


def exp5_crit(gv2: float) -> dict:
    """Exp. 5's criteria at N = 70 (fixed by the v2 data's gap before any run), with their controls."""
    a = f"mean gap MLP - AoT over d and H >= 6 >= {gv2 / 2:+.3f} (half the v2 data's) in every seed"
    return {"exp5-mlp-better-v2-paper-scale": a, "exp5-mlp-better-eq2-paper-scale": a.replace("AoT", "eq. (2) AoT"),
            "exp5-same-scaling-v1-paper-scale": f"|mean gap MLP - AoT| <= {abs(gv2) / 4:.3f} (a quarter of the v2 "
                                                "data's gap) in every seed",
            "exp5-aot-vs-paper-paper-scale": "|ours - paper| <= 0.05 at every (d, H)"}


def paper_gap5() -> float:
    """The v2 CSV's mean gap MLP - AoT over d = 7, 10, 13 and H >= 6."""
    t = aot.PAPER["exp5"]
    return float(np.mean([b - a for d in t for a, b in zip(t[d]["aot"][1:], t[d]["mlp"][1:], strict=True)]))


def exp5(C: Claims, evs: dict) -> None:
    """Exp. 5 / Fig. 3 at N = 70 (1 seed: the official AoT, the MLP Transformer, the eq. (2) AoT) against the v2 CSV."""
    ea, em, eq = evs["exp5-n70"], evs["exp5-n70-mlp"], evs["exp5-n70-eq2"]
    gv2 = paper_gap5()
    ids = ["exp5-mlp-better-v2-paper-scale", "exp5-same-scaling-v1-paper-scale"]
    crit = exp5_crit(gv2)
    ctl = {ids[0]: SWAPPED, ids[1]: STEP, "exp5-aot-vs-paper-paper-scale": "the v2 CSV's MLP against our AoT",
           "exp5-mlp-better-eq2-paper-scale": SWAPPED}
    needs = {ids[0]: (ea, em), ids[1]: (ea, em), "exp5-aot-vs-paper-paper-scale": (ea,),
             "exp5-mlp-better-eq2-paper-scale": (em, eq)}
    _exp5_figure(ea, em, eq)
    for cid, evs_ in needs.items():          # each claim waits for every sweep it reads
        if not all(e.complete for e in evs_):
            C.not_run(cid, EXP5_TEXT[cid], paper="v2 CSV" if cid == "exp5-aot-vs-paper-paper-scale" else
                      f"v2 data: mean gap {gv2:+.3f}", kind=EXPERIMENT,
                      reason=f"criterion: {crit[cid]}; control: {ctl[cid]}. Not run: needs "
                      + "; ".join(f"{e.name}: {_why(e)}" for e in evs_ if not e.complete))
    done = set(C.claims)
    sc = _scale(ea, "exp5-n70") if ea.complete else None
    if ea.complete:
        _exp5_vs_paper(C, ea, sc)
    fmt = lambda g: ", ".join(f"{v:+.3f}" for v in g.values())
    better = lambda g: bool(g) and all(v >= gv2 / 2 for v in g.values())
    if ea.complete and em.complete and ids[0] not in done:
        g = exp5_gap(ea.points, em.points)
        sw = {r: -v for r, v in g.items()}
        step = exp5_step_gap(ea.points)
        print("mean gap MLP - AoT (official): " + ", ".join(f"seed {r}: {v:+.3f}" for r, v in g.items()) + f"; v2 CSV {gv2:+.3f}; "
              "the AoT one head count up minus the AoT: " + fmt(step))
        C.check(ids[0], EXP5_TEXT[ids[0]], paper=f"v2 data: mean gap {gv2:+.3f}", ours=fmt(g), ok=better(g),
                criterion=crit[ids[0]], stable=False, kind=EXPERIMENT, scale=sc,
                control=Control(SWAPPED, better(sw), fmt(sw)))
        same = lambda g: bool(g) and all(abs(v) <= abs(gv2) / 4 for v in g.values())
        C.check(ids[1], EXP5_TEXT[ids[1]], paper="v1: 'the same'", ours=fmt(g), ok=same(g), criterion=crit[ids[1]],
                stable=False, kind=EXPERIMENT, scale=sc, control=Control(STEP, same(step), fmt(step)))
    if em.complete and eq.complete and "exp5-mlp-better-eq2-paper-scale" not in done:
        g = exp5_gap(eq.points, em.points)
        sw = {r: -v for r, v in g.items()}
        C.check("exp5-mlp-better-eq2-paper-scale", EXP5_TEXT["exp5-mlp-better-eq2-paper-scale"],
                paper=f"v2 data (official AoT): mean gap {gv2:+.3f}", ours=fmt(g), ok=better(g),
                criterion=crit["exp5-mlp-better-eq2-paper-scale"], stable=False, kind=EXPERIMENT,
                scale=_scale(eq, "exp5-n70-eq2"), control=Control(SWAPPED, better(sw), fmt(sw)))


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
