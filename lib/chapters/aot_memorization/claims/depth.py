"""Appendix B.2 (v2): deeper attention-only models. At the paper's scale not trained (its measured cost:
:mod:`~lib.chapters.aot_memorization.evidence`); at a small scale (Figs. 8 and 9's settings at Exps. 1 and 2's scale,
trained by :func:`~lib.chapters.aot_memorization.train.depth_grid`): the rise with heads per layer (the tolerance
:func:`agree`), Fig. 8's line in H (:func:`shape`, Exp. 1's test) and Fig. 9's convexity in d_h (:func:`fig9`, Exp.
2's test), each beside the v2 depth CSVs judged by the same test."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
from IPython.display import Markdown, display

from lib.chapters.aot_memorization import evidence as EV
from lib.chapters.aot_memorization.claims.common import prints_verdicts
from lib.core import claims as K
from lib.core.claims import EXPERIMENT, Claims, Control
from lib.core.robust import variant
from lib.core.stats import quadratic_fit

# The v2 CSVs of Fig. 8 (`Data_exp_1_{d}_depth.csv` of the official repository, 3 layers, N = 70): accuracy at
# H = 1, 5, ..., 21 heads per layer, d = d_h. Their one-layer counterparts are Exp. 5's AoT curves (theory.PAPER).
PAPER_DEPTH_H = (1, 5, 9, 13, 17, 21)
PAPER_DEPTH = {7: (0.0659, 0.1136, 0.1520, 0.1966, 0.2396, 0.2943),
               10: (0.0876, 0.1769, 0.2886, 0.3832, 0.4639, 0.5434),
               13: (0.1138, 0.2880, 0.4343, 0.5863, 0.6956, 0.7695)}
# The v2 CSV of Fig. 9 (`Data_exp_2_depth.csv`, 3 layers, N = 70, d = 10, H = 21 heads per layer): accuracy at d_h = 1..10.
PAPER_DEPTH_DH = tuple(range(1, 11))
PAPER_DEPTH_EXP2 = (0.0498, 0.0601, 0.0821, 0.1260, 0.1774, 0.2377, 0.3002, 0.3743, 0.4533, 0.5453)
# Fig. 9 at a small scale: Exp. 2's grid (d = exp2_d, d_h = exp2_dh) with this many heads per layer, so that the deep
# model stays below saturation at N = train_N (at Exp. 2's 5 heads per layer, 3 layers reach 0.96 at d_h = 4 with N = 20).
FIG9_H = 1


def accs(recs: list[dict], key: str = "table_acc", **at) -> list[float]:
    """``key`` of every seed of the records matching ``at`` (e.g. ``d=4, H=3, L=1``), in seed order."""
    return [r[key] for r in sorted(recs, key=lambda r: r["rep"]) if all(r[k] == v for k, v in at.items())]


def agree(a: Sequence[float], b: Sequence[float], floor: float = 0.05) -> tuple[float, float]:
    """The difference of two models' seed means, ``mean(a) - mean(b)``, and the tolerance it is judged by:
    ``max(floor, 2 SE)``, SE the standard error of that difference from the seeds' sample variances (``floor``
    alone with one seed). "Similar" is ``abs(diff) <= tol``."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    diff = float(a.mean() - b.mean())
    if min(len(a), len(b)) < 2:
        return diff, floor
    se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return diff, max(floor, 2 * se)


@prints_verdicts
def paper_scale(C: Claims, cost: dict | None) -> None:
    """App. B.2 / Figs. 8-10 at the paper's scale: not run, with the measured cost (``cost``)."""
    C.not_run("appB2-depth-paper-scale", "App. B.2 / Figs. 8-10 (v2): deeper attention-only models (3 layers in the code, 5 in the text) give similar results to Exps. 1, 2 and 5",
              paper="similar to one layer",
              reason=EV.reason(cost, ["Fig. 8 (depth, Exp. 1)", "Fig. 9 (depth, Exp. 2)"], "not trained: the depth path exists "
                                  "(lib.chapters.aot_memorization.model.DeepAoT, an engine family defined in the chapter, equal to the "
                                  "eq. (2) AoT at one layer: tests/test_aot.py), but 3 layers at N = 70, 8192 steps of batch 512, "
                                  "5 seeds", extra=EV.fig10_estimate(cost)), kind=EXPERIMENT)


@prints_verdicts
def live(C: Claims, P: dict, recs_d: list[dict], rise_d: dict, noise_d: list, paper_gap: dict, Rd) -> None:
    """App. B.2 at a small scale (``recs_d``; the rise with heads ``rise_d``, the seed noise ``noise_d``, the v2 CSVs'
    depth gaps ``paper_gap``, the recipe ``Rd``): the rise with heads at depth; depth against one layer is described,
    not judged (the paper makes no claim there)."""
    Ld, Hs_d = P["depth_L"], P["depth_H"]
    sc_d = K.Scale(ours=f"N = {P['train_N']}, d = d_h = {', '.join(map(str, P['depth_d']))}, H = {', '.join(map(str, Hs_d))} per layer, "
                             f"L = {Ld} vs 1, {Rd.steps} steps of batch {Rd.batch} (Exp. 1's recipe), {P['reps']} seed(s)",
                        paper="N = 70, d = d_h = 7, 10, 13, H = 1, 5, ..., 21 per layer, 3 layers (text: 5), 8192 steps of batch 512, 5 seeds",
                        enough=P["train_N"] >= 10 and Rd.steps >= 512 and P["reps"] >= 2,
                        why="needs N >= 10, >= 512 steps and >= 2 seeds (the tolerance and the control use the seed spread)")
    beyond = lambda rows: bool(rows) and all(x > t for *_, x, t in rows)          # every difference exceeds its tolerance
    noise_ctl = lambda test: (f"the same test on seed noise: seed 0 minus seed 1 of the same model, at each (d, H, L) (tolerance {agree([0], [0])[1]:.2f} with one seed a side)",
                              test(noise_d), ", ".join(f"{x:+.3f}" for *_, x, _ in noise_d))
    pg = list(paper_gap.values())
    rise_seed = lambda j: [(d, *agree(accs(recs_d, d=d, H=Hs_d[-1], L=Ld)[j:j + 1], accs(recs_d, d=d, H=Hs_d[0], L=Ld)[j:j + 1])) for d in P["depth_d"]]
    C.check("appB2-depth-small", f"App. B.2 / Fig. 8 at a small scale: with {Ld} layers, accuracy rises from H = {Hs_d[0]} to H = {Hs_d[-1]} heads per layer at every d "
            "(the direction of Fig. 8's curves; their shape, 'the scaling is linear', is appB2-depth-linear)",
            paper="'similar results' to Exp. 1 (v2 CSVs at N = 70, 3 layers: rising in H at d = 7, 10, 13)",
            ours=", ".join(f"d={d}: {x:+.3f} (tol {t:.3f})" for d, x, t in rise_d[Ld]),
            ok=beyond(rise_d[Ld]), criterion=f"mean acc(H = {Hs_d[-1]}) - mean acc(H = {Hs_d[0]}) > max(0.05, 2 SE of the difference) at every d, {Ld} layers, full-table accuracy",
            stable=False, kind=EXPERIMENT, scale=sc_d, control=noise_ctl(beyond),
            variants=[variant(f"seed {j} alone", beyond(rise_seed(j))) for j in range(P["reps"])]
            + [variant("any rise (difference > 0, no tolerance)", all(x > 0 for _, x, _ in rise_d[Ld]))])
    gap_d = [(d, H, *agree(accs(recs_d, d=d, H=H, L=Ld), accs(recs_d, d=d, H=H, L=1))) for d in P["depth_d"] for H in Hs_d]
    lo_d, hi_d = min(x for *_, x, _ in gap_d), max(x for *_, x, _ in gap_d)
    display(Markdown(
        f"Here {Ld} layers minus one layer ranges from {lo_d:+.3f} to {hi_d:+.3f} over the {len(gap_d)} points "
        f"(tolerances {min(t for *_, t in gap_d):.3f} to {max(t for *_, t in gap_d):.3f}); the v2 CSVs give {min(pg):+.3f} to {max(pg):+.3f}. "
        f"The rise with heads per layer is {', '.join(f'{x:+.3f}' for _, x, _ in rise_d[Ld])} at {Ld} layers and "
        f"{', '.join(f'{x:+.3f}' for _, x, _ in rise_d[1])} at one layer (d = {', '.join(map(str, P['depth_d']))})."))


# Fig. 8's shape at a small scale: head counts trained at depth besides ``depth_H`` (at the largest ``depth_d``), so
# that a line can be told from sqrt(H) (at least 4 head counts; Exp. 1's criterion, :data:`~.exp1.LIN_CRIT`).
LINE_EXTRA_H = (2, 5)


def line_heads(Hs: Sequence[int]) -> list[int]:
    """The head counts of Fig. 8's shape check: ``Hs`` and :data:`LINE_EXTRA_H`."""
    return sorted(set(Hs) | set(LINE_EXTRA_H))


def _line(C: Claims, cid: str, statement: str, paper: str, D: dict, scale) -> None:
    """Exp. 1's line in H (pooled R^2 against sqrt(H) and H^2) on the grid ``D``; control: the rival sqrt(H) through
    the same criterion; variants: each truncation rule, each seed alone, each head count left out, the other metric."""
    from lib.chapters.aot_memorization.claims import skeptic as SK
    from lib.chapters.aot_memorization.claims.exp1 import LIN_CRIT
    from lib.core.stats import beats_rivals
    r2 = {k: SK.pooled_r2(D, k) for k in (0.5, 1, 2)}
    ok = lambda k: all(np.isfinite(v) for v in r2.values()) and beats_rivals(r2, k)
    C.check(cid, statement, paper=paper, ours=", ".join(f"R^2(H^{k}) {r:.3f}" for k, r in r2.items()), ok=ok(1),
            criterion=LIN_CRIT, stable=False, kind=EXPERIMENT, scale=scale,
            control=Control("the nearest rival curve a sqrt(H) + b, same criterion", ok(0.5), f"R^2 {r2[0.5]:.3f}"),
            variants=SK.exp1_variants(SK.linear_judge, D, loo_H=True, loo_d=len(D["ds"]) > 1,
                                      metric=D["key"] == "running_acc" and all("table_acc" in r for r in D["recs"])))


@prints_verdicts
def shape(C: Claims, P: dict, recs: list[dict], Hs: list[int], d: int, Rd) -> None:
    """Fig. 8 (v2) as captioned, "the scaling is linear" in H at depth: Exp. 1's line-vs-rival test on our depth-L
    runs at d = d_h = ``d`` and head counts ``Hs`` (``recs``: :func:`~.train.depth_grid`'s records at one layer and at
    L), meaningful where the one-layer model of the same grid passes the same test; and on the v2 depth CSVs
    (:data:`PAPER_DEPTH`, N = 70, 3 layers)."""
    from lib.chapters.aot_memorization.claims import skeptic as SK
    Ld = P["depth_L"]
    grid = lambda L: SK.grid([r for r in recs if r["L"] == L and r["d"] == d], [d], Hs, P["train_N"])
    one_ok, one_txt = SK.linear_judge(grid(1))
    sc = K.Scale(ours=f"N = {P['train_N']}, d = d_h = {d}, H = {', '.join(map(str, Hs))} per layer, L = {Ld} (eq. (2) "
                      f"layers), {Rd.steps} steps of batch {Rd.batch}, {P['reps']} seed(s)",
                 paper="N = 70, d = d_h = 7, 10, 13, H = 1, 5, ..., 21 per layer, 3 layers, 8192 steps of batch 512, 5 seeds",
                 enough=len(Hs) >= 4 and P["reps"] >= 2 and Rd.steps >= 512 and one_ok,
                 why="needs >= 4 head counts (a line against sqrt(H)), >= 2 seeds and >= 512 steps, and a scale at "
                     "which the one-layer model of the same grid, linear by the paper's Exp. 1, passes the same test "
                     f"(here: {'passes' if one_ok else 'fails'}, {one_txt}); below it a curve that fails the line says "
                     "nothing of depth")
    display(Markdown(f"The one-layer model on the same grid ($d = d_h = {d}$, $H = {', '.join(map(str, Hs))}$), by the "
                     f"same test: {'passes' if one_ok else 'fails'} ({one_txt})."))
    _line(C, "appB2-depth-linear", f"App. B.2 / Fig. 8 (v2) at a small scale: with {Ld} layers, accuracy is linear in the "
          "heads per layer H ('the scaling is linear') [eq. (2) layers]", "linear (Fig. 8 caption)", grid(Ld), sc)
    recs_p = [dict(d=dd, H=H, rep=0, running_acc=y) for dd, ys in PAPER_DEPTH.items() for H, y in zip(PAPER_DEPTH_H, ys, strict=True)]
    sc_p = K.Scale(ours="the v2 depth CSVs themselves (Data_exp_1_{d}_depth.csv)", paper="the same", enough=True)
    _line(C, "appB2-depth-linear-csv", "App. B.2 / Fig. 8 (v2): the v2 depth CSVs (3 layers, N = 70) are linear in H",
          "linear (Fig. 8 caption)", SK.grid(recs_p, sorted(PAPER_DEPTH), list(PAPER_DEPTH_H), 70), sc_p)


CONVEX_CRIT = ("the least-squares quadratic's x² coefficient > 0 and the line's residual (1 - R²) >= 5x the quadratic's "
               "(Exp. 2's per-seed test, and appB1-exp2-csv-convex's)")


def convex(xs: Sequence[float], ys: Sequence[float], m: float = 5.0) -> tuple[bool, str]:
    """:data:`CONVEX_CRIT` on one curve (``m``: the residual ratio asked of the line), and its numbers in words."""
    if len(xs) < 4:
        return False, f"{len(xs)} points: too few for a quadratic against a line"
    q = quadratic_fit(xs, ys)
    ratio = (1 - q[2]) / max(1 - q[1], 1e-12)
    return bool(q[0] > 0 and ratio >= m), f"x² coefficient {q[0]:+.4f}, line/quadratic residual {ratio:.1f}x"


def fig9_curve(recs: list[dict], dhs: Sequence[int], L: int, key: str = "running_acc", seeds: slice = slice(None)) -> list[float]:
    """The seed-mean ``key`` at each d_h of Fig. 9's small grid (``recs``: :func:`~.train.depth_grid` with ``dhs``) at
    ``L`` layers (``seeds``: which seeds, in order)."""
    return [float(np.mean(accs(recs, key, L=L, dh=dh)[seeds])) for dh in dhs]


@prints_verdicts
def fig9(C: Claims, P: dict, recs: list[dict], Rd) -> None:
    """Fig. 9 (v2) as captioned, accuracy "quadratic" in d_h at depth: Exp. 2's convexity test (:func:`convex`) on our
    depth-L runs at Exp. 2's grid with :data:`FIG9_H` heads per layer (``recs``; control: the one-layer model of the
    same grid) and on the v2 depth CSV (:data:`PAPER_DEPTH_EXP2`; control: Fig. 8's CSV at d = 10, which v2 calls
    linear)."""
    Ld, dhs = P["depth_L"], list(P["exp2_dh"])
    ok, txt = convex(dhs, fig9_curve(recs, dhs, Ld))
    ok1, txt1 = convex(dhs, fig9_curve(recs, dhs, 1))
    drops = {f"d_h = {dhs[-1]} = d dropped (no compression there)": dhs[:-1],
             f"d_h = {dhs[0]} dropped (the smallest head)": dhs[1:]} if len(dhs) >= 4 else {}
    var = [variant(c, convex(xs, fig9_curve(recs, xs, Ld))) for c, xs in drops.items()]
    var += [variant(f"seed {j} alone", convex(dhs, fig9_curve(recs, dhs, Ld, seeds=slice(j, j + 1)))) for j in range(P["reps"])]
    var += [variant("the full-table accuracy (the paper's definition) instead of the running metric",
                    convex(dhs, fig9_curve(recs, dhs, Ld, "table_acc")))]
    sc = K.Scale(ours=f"N = {P['train_N']}, d = {P['exp2_d']}, d_h = {', '.join(map(str, dhs))}, H = {FIG9_H} per layer, "
                      f"L = {Ld} (eq. (2) layers), {Rd.steps} steps of batch {Rd.batch}, {P['reps']} seed(s)",
                 paper="N = 70, d = 10, d_h = 1..10, H = 21 per layer, 3 layers of the official model (one compression "
                       "shared by the layers), 8192 steps of batch 512, 5 seeds",
                 enough=len(dhs) >= 4 and P["reps"] >= 2 and Rd.steps >= 512,
                 why="needs >= 4 head dimensions, >= 2 seeds and >= 512 steps")
    C.check("appB2-depth-convex", f"App. B.2 / Fig. 9 (v2) at a small scale: with {Ld} layers, accuracy is convex "
            "('quadratic') in d_h [eq. (2) layers]", paper="'quadratic' (Fig. 9 caption)", ours=txt, ok=ok,
            criterion=CONVEX_CRIT + " (seed means)", stable=False, kind=EXPERIMENT, scale=sc,
            control=Control("the one-layer model of the same grid, same test", ok1, txt1), variants=var)
    xs, ys = list(PAPER_DEPTH_DH), list(PAPER_DEPTH_EXP2)
    okc, txtc = convex(xs, ys)
    ctl = convex(PAPER_DEPTH_H, PAPER_DEPTH[10])
    var_c = [variant(f"d_h = {xs[-1]} = d dropped (no compression there)", convex(xs[:-1], ys[:-1])),
             variant(f"d_h = {xs[0]} dropped (the smallest head)", convex(xs[1:], ys[1:]))]
    var_c += [variant(f"the line's residual >= {m}x the quadratic's (our 5x read otherwise)", convex(xs, ys, m)) for m in (3, 10)]
    C.check("appB2-depth-convex-csv", "App. B.2 / Fig. 9 (v2): the v2 depth CSV of Exp. 2 (3 layers, N = 70, d = 10, "
            "H = 21 per layer) is convex ('quadratic') in d_h", paper="'quadratic' (Fig. 9 caption)", ours=txtc, ok=okc,
            criterion=CONVEX_CRIT, stable=False, kind=EXPERIMENT,
            scale=K.Scale(ours="the v2 depth CSV itself (Data_exp_2_depth.csv)", paper="the same", enough=True),
            control=Control("Fig. 8's depth CSV at d = 10 (accuracy against H, which v2 calls linear), same test", *ctl),
            variants=var_c)
