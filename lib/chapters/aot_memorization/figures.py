"""Figures and tables of the aot-memorization chapter, the paper's numbers beside ours: the live grids', the spot
check's, App. B.2's depth grid's and the stored paper-scale runs' (:mod:`~lib.chapters.aot_memorization.claims.stored`),
each with its table."""
from __future__ import annotations

from typing import Sequence

from matplotlib import ticker
import matplotlib.pyplot as plt
import numpy as np

from lib.chapters.aot_memorization.claims import stored as S
from lib.chapters.aot_memorization.theory import PAPER, phi
from lib.chapters.aot_memorization.train import mean_over_reps, paper_slopes, per_head_slopes
from lib.chapters.aot_memorization.claims.depth import accs
from lib.core import plots


def _bounds(ax, x, N, T0, ours_cap, prev_cap, label_x=True):
    ax.plot(x, phi(ours_cap, N, T0), color="#1a7f37", lw=1.2, label=r"our lower bound $\phi(Hd_h+d)$")
    ax.plot(x, phi(np.maximum(prev_cap, 0), N, T0), color="#bf8700", lw=1.2, label=r"previous $\phi(H(d_h-1)+1)$")
    ax.axhline(1 / N, color="#57606a", lw=0.8, ls=":", label="random 1/N")


def fig1a(recs_by_model: dict, N, d_list, H_list, key="running_acc", slopes: tuple | None = None):
    """Fig. 1a / Exp. 1: accuracy vs H for each d = d_h, one panel per model (ours), the paper's curves at N = 50
    (official v2 CSV) in the next panel and, given ``slopes`` = (slopes by model, the paper's, N), Exp. 4 / Fig. 2b's
    panel (:func:`slopes_panel`) in the one after."""
    T0 = N * N
    fig, grid = plots.subplots(2, 2, width=4.2, height=2.5)
    axes = list(grid.ravel())
    if slopes is not None:
        slopes_panel(axes[len(recs_by_model) + 1], *slopes)
    for ax in axes[len(recs_by_model) + 1 + (slopes is not None):]:
        ax.axis("off")
    axes = axes[: len(recs_by_model) + 1]
    for ax, (model, recs) in zip(axes, recs_by_model.items(), strict=False):
        m = mean_over_reps(recs, key, ["d", "H"])
        for i, d in enumerate(d_list):
            y = [m[(d, H)][0] for H in H_list]
            e = [m[(d, H)][1] for H in H_list]
            plots.paper_vs_ours(ax, H_list, y, ours_err=e, label=f"d = d_h = {d}", color=plots.COLORS[i % 8])
            ax.plot(H_list, phi(np.array(H_list) * d + d, N, T0), color=plots.COLORS[i % 8], lw=0.8, ls=":")
        ax.axhline(1 / N, color="#57606a", lw=0.8, ls=":")
        ax.set(xlabel="heads H", ylabel="accuracy", ylim=(0, 1.05))
        ax.set_title(f"ours, {model} model (N = {N})", fontsize=9)
        ax.legend(fontsize=8)
    Hp = PAPER["exp1_H"]
    ax = axes[-1]
    for i, d in enumerate([4, 6, 8, 10, 12]):
        ax.plot(Hp, PAPER["exp1"][d], color=plots.COLORS[i % 8], marker="s", mfc="none", ls="--", label=f"d = {d}")
        ax.plot(Hp, phi(np.array(Hp) * d + d, 50, 2500), color=plots.COLORS[i % 8], lw=0.8, ls=":")
    ax.axhline(1 / 50, color="#57606a", lw=0.8, ls=":")
    ax.set(xlabel="heads H", ylim=(0, 1.05))
    ax.set_title("paper (official v2 CSV, N = 50)", fontsize=9)
    ax.legend(fontsize=8)
    return fig


def fig_single(ax, x, y, err, N, T0, caps, prevs, label, paper_x=None, paper_y=None, color=None, xlabel=""):
    plots.paper_vs_ours(ax, x, y, ours_err=err, label=label, color=color)
    if paper_x is not None:
        ax.plot(paper_x, paper_y, **dict(plots.PAPER, label="paper (N = 50)"))
    if caps is not None:
        _bounds(ax, x, N, T0, caps, prevs)
    ax.set(xlabel=xlabel, ylabel="accuracy", ylim=(0, 1.05))


def slopes_panel(ax, slopes_by_model: dict, slopes_paper: dict, N_ours: int) -> None:
    """Fig. 2b / Exp. 4 on ``ax``: per-head slope of accuracy vs d = d_h, scaled to associations per head
    (slope * T0 / (1 - 1/N)) so that N = 20 and N = 50 can share axes; log-log."""
    curves = [(f"ours, {k} model", v, N_ours, dict(plots.OURS, color=plots.COLORS[i])) for i, (k, v) in enumerate(slopes_by_model.items())]
    curves.append(("paper (v2 CSV)", slopes_paper, 50, dict(plots.PAPER)))
    for lab, sl, N, st in curves:
        ds = np.array([d for d in sorted(sl) if sl[d] > 0])
        a = np.array([sl[d] for d in ds]) * N * N / (1 - 1 / N)
        st["label"] = f"{lab}, N = {N}"
        ax.plot(ds, a, **st)
    dd = np.linspace(2, 14, 50)
    ax.plot(dd, dd, color="#1a7f37", lw=1, label="bound: d_h per head")
    ax.set(xscale="log", yscale="log", xlabel="d = d_h", ylabel="associations per head", xticks=[2, 4, 8, 12])
    ax.xaxis.set_major_formatter(ticker.ScalarFormatter())
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())
    ax.set_title("Exp. 4 (Fig. 2b): associations per head", fontsize=9)
    ax.legend(fontsize=8)


# ----------------------------------------------------------------------------------------------
# the stored paper-scale runs (lib.chapters.aot_memorization.claims.stored), beside the paper's CSVs
# ----------------------------------------------------------------------------------------------
def _panel(ax, ev, x: str, paper: dict, bound: dict, xlabel: str, title: str, models=S.MODELS) -> None:
    """A stored sweep's seed-mean curves (with their std) beside the v2 CSV and the bound."""
    for i, v in enumerate(models):
        xs, m, s = S.curve(ev.points, v, x, "running_acc")
        if xs:
            ax.errorbar(xs, m, yerr=s, marker="o" if i == 0 else "x", ls="-" if i == 0 else ":",
                        color=plots.COLORS[2 * i], capsize=2, label=f"stored run, {S.LABEL[v]}")
    ax.plot(list(paper), list(paper.values()), **dict(plots.PAPER, label="paper (v2 CSV)"))
    ax.plot(list(bound), list(bound.values()), color="#1a7f37", lw=0.8, ls=":", label="bound phi(H min(d_h, d) + d)")
    ax.set(xlabel=xlabel, ylabel="running accuracy", ylim=(0, 1.05))
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=8)


def _table(ev, x: str, paper: dict, bound: dict, models=S.MODELS) -> None:
    """The curves of :func:`_panel` as a printed table."""
    xs = sorted(paper)
    cols = {v: dict(zip(*S.curve(ev.points, v, x, "running_acc")[:2], strict=True)) for v in models}
    print(f"{x:>14} " + " ".join(f"{v:6d}" for v in xs))
    for v in models:
        print(f"{'eq. (2) model' if v == 'paper' else 'official model':>14} " + " ".join(f"{cols[v].get(k, float('nan')):6.3f}" for k in xs))
    print(f"{'paper (CSV)':>14} " + " ".join(f"{paper[k]:6.3f}" for k in xs))
    print(f"{'bound':>14} " + " ".join(f"{bound[k]:6.3f}" for k in xs))


def _show(fig, figure: bool, caption: str, name: str) -> None:
    """``plots.show`` the figure, or close it undrawn (``figure`` False: the caller wants the table alone, in a cell
    of its own, so that the figure's cell has one display output and the table can be folded)."""
    if figure:
        plots.show(fig, caption, name)
    else:
        plt.close(fig)


def _exp1_figure(m: dict, ds: list[int], Hs: list[int], slopes: dict, pslopes: dict) -> None:
    """Fig. 1a (seed means, solid) over the v2 CSV (dashed), and Fig. 2b's associations per head, log-log."""
    fig, ax = plots.subplots(1, 2, width=4.2, height=2.8)
    cmap = plt.get_cmap("viridis")
    for i, d in enumerate(ds):
        col = cmap(i / max(1, len(ds) - 1))
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=col, marker="o", ms=3, label=f"d = {d}")
        ax[0].plot(Hs, PAPER["exp1"][d], color=col, ls="--", lw=0.8)
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05))
    ax[0].set_title("Exp. 1 (Fig. 1a), N = 50", fontsize=9)
    ax[0].legend(fontsize=8, ncol=2, handlelength=1.2, columnspacing=0.8)
    sd = sorted(slopes)
    ax[1].loglog(sd, [slopes[d] * 2500 / (1 - 1 / 50) for d in sd], **dict(plots.OURS, label="stored run"))
    ax[1].loglog(sorted(pslopes), [pslopes[d] * 2500 / (1 - 1 / 50) for d in sorted(pslopes)], **dict(plots.PAPER, label="v2 CSV"))
    ax[1].set(xlabel="d = d_h", ylabel="associations per head")
    ax[1].set_title("Exp. 4 (Fig. 2b)", fontsize=9)
    ax[1].legend(fontsize=8)
    plots.show(fig, "Experiments 1 and 4 at the paper's scale (stored sweep `exp1`, official model, seed means). Left: "
               "running accuracy against the head count H for d = d_h = 3..13 (solid) over the v2 CSV (dashed); the "
               "curves should coincide. Right: the per-head slope as associations per head against d, log-log, ours "
               "and the v2 CSV's; the slope of this line is Exp. 4's exponent.", "fig-aot-stored-exp1")


def _exp6_curves() -> tuple[dict, dict]:
    """Fig. 4's v2 CSV and the bound phi(2H + 2) (N = 10, d = d_h = 2), by H."""
    Hs = PAPER["exp6_H"]
    return dict(zip(Hs, PAPER["exp6"], strict=True)), {H: float(phi(2 * H + 2, 10, 100)) for H in Hs}


def panel_exp6(ax, evs: dict) -> None:
    """Exp. 6 / Fig. 4 at the official recipe (N = 10, d = d_h = 2), stored sweep ``exp6``, on ``ax``."""
    _panel(ax, evs["exp6"], "H", *_exp6_curves(), "heads H", "stored runs, official recipe: N = 10")


def table_exp6(evs: dict) -> None:
    """The curves of :func:`panel_exp6` as a table."""
    _table(evs["exp6"], "H", *_exp6_curves())


def _exp2_curves() -> tuple[dict, dict]:
    """Fig. 1b's v2 CSV and the bound phi(20 d_h + 10) (N = 50, d = 10, H = 20), by d_h."""
    dhs = PAPER["exp2_dh"]
    return dict(zip(dhs, PAPER["exp2"], strict=True)), {dh: float(phi(20 * dh + 10, 50, 2500)) for dh in dhs}


def _exp3_curves() -> tuple[dict, dict]:
    """Fig. 2a's v2 CSV and the bound phi(20 min(10, d) + d) (N = 50, d_h = 10, H = 20), by d."""
    ds = PAPER["exp3_d"]
    return dict(zip(ds, PAPER["exp3"], strict=True)), {d: float(phi(20 * min(10, d) + d, 50, 2500)) for d in ds}


def table_exp2(evs: dict) -> None:
    """The curves of :func:`stored_exp23`'s left panel (Exp. 2 / Fig. 1b) as a table."""
    _table(evs["exp2"], "dh", *_exp2_curves())


def table_exp3(evs: dict) -> None:
    """The curves of :func:`stored_exp23`'s right panel (Exp. 3 / Fig. 2a) as a table."""
    _table(evs["exp3"], "d", *_exp3_curves())


def stored_exp23(evs: dict) -> None:
    """Exps. 2 (Fig. 1b, left) and 3 (Fig. 2a, right) at N = 50, stored sweeps ``exp2`` and ``exp3``: one figure
    (the tables: :func:`table_exp2`, :func:`table_exp3`)."""
    e2, e3 = evs["exp2"], evs["exp3"]
    if not (e2.points or e3.points):
        return
    fig, ax = plots.subplots(1, 2, width=4.4, height=2.7)
    _panel(ax[0], e2, "dh", *_exp2_curves(), "head dimension d_h", "Exp. 2 (Fig. 1b): d = 10, H = 20")
    _panel(ax[1], e3, "d", *_exp3_curves(), "embedding dimension d", "Exp. 3 (Fig. 2a): d_h = 10, H = 20")
    ax[1].axvline(10, color="#57606a", lw=0.6)
    ax[1].get_legend().remove()
    plots.show(fig, f"Experiments 2 (left: against d_h) and 3 (right: against d; the vertical line marks d = d_h = 10) at "
               f"the paper's scale, N = 50, stored sweeps `exp2` ({S.seeds(e2)} seeds) and `exp3` ({S.seeds(e3)} seeds): "
               "running accuracy (seed mean and std) of the official model (solid) and the eq. (2) model (dotted), "
               "beside the v2 CSV and the bound. The official curves follow the CSV: convex in d_h, flat past d = d_h; "
               "the eq. (2) curves bend down in d_h and keep rising in d.", "fig-aot-stored-exp23")


def stored_exp1(evs: dict) -> None:
    """Exp. 1 / Fig. 1a and Exp. 4 / Fig. 2b on the stored full grid, official model (when stored)."""
    ev = evs["exp1"]
    if not ev.complete:
        return
    pts = [p for p in ev.points if p["variant"] == "official"]
    ds, Hs = sorted({p["d"] for p in pts}), PAPER["exp1_H"]
    _exp1_figure(mean_over_reps(pts, "running_acc", ["d", "H"]), ds, Hs, per_head_slopes(pts, ds, Hs, 50)[0],
                 paper_slopes())


def stored_v1(evs: dict) -> None:
    """v1's protocol for Fig. 1a (solid) over the v1 CSV (dashed), when stored."""
    ev, v1t, Hs = evs["v1"], PAPER["exp1_v1"], PAPER["exp1_H"]
    if not ev.complete:
        return
    m = mean_over_reps(ev.points, "running_acc", ["d", "H"])
    fig, ax = plots.subplots(1, 1, width=5.6, height=3.0)
    cmap = plt.get_cmap("viridis")
    for i, d in enumerate(sorted(v1t)):
        col = cmap(i / (len(v1t) - 1))
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=col, marker="o", ms=3, label=f"d = {d}")
        ax[0].plot(Hs[: len(v1t[d])], v1t[d], color=col, ls="--", lw=0.8)
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05))
    ax[0].set_title("v1's protocol, N = 50", fontsize=9)
    ax[0].legend(fontsize=8, ncol=3, handlelength=1.2, columnspacing=0.8)
    plots.show(fig, "v1's training protocol (constant learning rate 1e-3, 10k steps of batch 1024, one seed), stored "
               "sweep `v1`: running accuracy against H for d = d_h = 3..13 (solid) over v1's own CSV (dashed). If "
               "v1's text described how its figure was made, the two would coincide.", "fig-aot-stored-v1")


def _b1_fig6_curves() -> tuple[dict, dict]:
    """App. B.1 / Fig. 6's v2 CSV and the bound phi(11 d_h + 50) (N = 200, d = 50, H = 11), by d_h."""
    dhs = PAPER["b1_exp2_dh"]
    return dict(zip(dhs, PAPER["b1_exp2"], strict=True)), {dh: float(phi(11 * dh + 50, 200, 40000)) for dh in dhs}


def table_b1_fig6(evs: dict) -> None:
    """The curves of :func:`stored_b1_fig56`'s right panel (App. B.1 / Fig. 6) as a table, when stored."""
    if evs["b1-fig6"].complete:
        _table(evs["b1-fig6"], "dh", *_b1_fig6_curves(), models=("official",))


def table_b1_fig5(evs: dict) -> None:
    """The curves of :func:`stored_b1_fig56`'s left panel (App. B.1 / Fig. 5) as a table, when stored."""
    ev, Hs, csv = evs["b1-fig5"], PAPER["b1_exp1_H"], PAPER["b1_exp1"]
    if not ev.complete:
        return
    m = mean_over_reps(ev.points, "running_acc", ["d", "H"])
    print("H        " + " ".join(f"{H:6d}" for H in Hs))
    for d in sorted(csv):
        print(f"d = {d}   " + " ".join(f"{m[(d, H)][0]:6.3f}" for H in Hs) + "\n  (CSV)  " + " ".join(f"{a:6.3f}" for a in csv[d]))


def stored_b1_fig56(evs: dict) -> None:
    """App. B.1's Figs. 5 (left, Exp. 1: N = 200, d = d_h = 40, 50, 60) and 6 (right, Exp. 2: d = 50, H = 11) in one
    figure, when both are stored (the tables: :func:`table_b1_fig5`, :func:`table_b1_fig6`)."""
    e5, e6 = evs["b1-fig5"], evs["b1-fig6"]
    if not (e5.complete and e6.complete):
        return
    Hs, csv, m = PAPER["b1_exp1_H"], PAPER["b1_exp1"], mean_over_reps(e5.points, "running_acc", ["d", "H"])
    fig, ax = plots.subplots(1, 2, width=4.4, height=2.7)
    for i, d in enumerate(sorted(csv)):
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=plots.COLORS[i], marker="o", label=f"stored run, d = d_h = {d}")
        ax[0].plot(Hs, csv[d], color=plots.COLORS[i], ls="--", lw=0.8, label=f"v2 CSV, d = {d}")
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05))
    ax[0].set_title("App. B.1 / Fig. 5: N = 200", fontsize=9)
    ax[0].legend(fontsize=8)
    _panel(ax[1], e6, "dh", *_b1_fig6_curves(), "head dimension d_h", "App. B.1 / Fig. 6: N = 200, d = 50, H = 11",
           models=("official",))
    ax[1].set_ylim(0, 0.7)
    plots.show(fig, "App. B.1 at N = 200, official model, one seed. Left: Fig. 5 (Exp. 1, d = d_h = 40, 50, 60), stored "
               "sweep `b1-fig5`, running accuracy against H (solid) over the v2 CSV (dashed); v2 calls the growth "
               "linear in H. Right: Fig. 6 (Exp. 2, d = 50, H = 11), stored sweep `b1-fig6`, running accuracy against "
               "d_h beside the v2 CSV and the bound; v2 calls this curve linear: compare its bend with Fig. 1b's.",
               "fig-aot-stored-b1-fig56")


def stored_b1_fig7(evs: dict, table: bool = True, figure: bool = True) -> None:
    """App. B.1 / Fig. 7 (N = 200, d = 40, 50, 60): the stored MLP Transformers (``b1-fig7``, solid) and AoTs
    (``b1-fig5``, dashed) against the equal-parameter head count, beside the v2 CSVs; figure and table, when stored."""
    from lib.chapters.aot_memorization.claims.b1 import fig7_csv, fig7_curves
    ev5, ev7 = evs["b1-fig5"], evs["b1-fig7"]
    if not (ev5.complete and ev7.complete):
        return
    curves = {"stored runs (1 seed)": fig7_curves(ev5.points, ev7.points), "v2 CSVs (5 seeds)": fig7_csv()}
    fig, axes = plots.subplots(1, 2, width=4.2, height=2.5)
    for ax, (title, (a, m)) in zip(axes, curves.items(), strict=True):
        for i, d in enumerate(sorted(m)):
            Hs = sorted(m[d])
            ax.plot(Hs, [m[d][H] for H in Hs], color=plots.COLORS[i], marker="o", ms=3, label=f"MLP, d = {d}")
            ax.plot(Hs, [a[d][H] for H in Hs], color=plots.COLORS[i], ls="--", lw=0.9, label=f"AoT, d = {d}")
            if table:
                print(f"{title}, d = {d}: H " + " ".join(f"{H:6d}" for H in Hs) + "\n   MLP   " +
                      " ".join(f"{m[d][H]:6.3f}" for H in Hs) + "\n   AoT   " + " ".join(f"{a[d][H]:6.3f}" for H in Hs))
        ax.set(xlabel="H (the MLP: width 2d(H - 1))", ylabel="running accuracy", ylim=(0, 1.0))
        ax.set_title(title + ", N = 200", fontsize=9)
    axes[0].legend(fontsize=7, ncol=2)
    _show(fig, figure, "App. B.1's Fig. 7 (Exp. 5 at N = 200, d = 40, 50, 60): the MLP Transformer of width 2d(H - 1) "
               "(solid, stored sweep `b1-fig7`) and the AoT with H heads (dashed, `b1-fig5`), the same parameter count, "
               "ours (left) beside the v2 CSVs (right). v2 reads the MLP as better yet harder to optimize: look for "
               "solid above dashed at small H and the solid curves' flattening far below 1.", "fig-aot-stored-b1-fig7")


def panel_exp5(ax, evs: dict) -> None:
    """Fig. 3 at N = 70 on ``ax``: accuracy against the parameter count 4d^2 H + d(2N + 1), the v2 CSV (dashed) and,
    where stored (sweeps ``exp5-n70*``, one seed), our runs (solid): official AoT (o), eq. (2) AoT (x), MLP (^)."""
    ea, em, eq, t = evs["exp5-n70"], evs["exp5-n70-mlp"], evs["exp5-n70-eq2"], PAPER["exp5"]
    par = lambda d, H: 4 * d * d * H + d * 141
    for i, d in enumerate(sorted(t)):
        c = plots.COLORS[i]
        ax.plot([par(d, H) for H in PAPER["exp5_H"]], t[d]["aot"], color=c, ls="--", lw=0.8)
        ax.plot([par(d, H) for H in PAPER["exp5_H"]], t[d]["mlp"], color=c, ls="--", lw=0.8, marker="^", mfc="none")
        for e, mk in ((ea, "o"), (eq, "x"), (em, "^")):
            pts = sorted((p for p in e.points if p["d"] == d), key=lambda p: p.get("width", 0) + p["H"])
            if pts:
                xs = [par(d, p["width"] // (2 * d) + 1 if p.get("mlp") else p["H"]) for p in pts]
                ax.plot(xs, [p["running_acc"] for p in pts], color=c, marker=mk)
    keys = [ax.plot([], [], color=plots.COLORS[i], label=f"d = {d}")[0] for i, d in enumerate(sorted(t))]
    keys += [ax.plot([], [], color="k", ls="none", marker=mk, label=lab)[0]
             for mk, lab in (("o", "AoT"), ("x", "AoT eq. (2)"), ("^", "MLP"))]
    ax.set(xlabel="parameters 4d^2 H + d(2N + 1)", ylabel="running accuracy", ylim=(0, 1.05))
    ax.set_title("stored runs (solid) over the v2 CSV (dashed), N = 70", fontsize=9)
    ax.legend(handles=keys, fontsize=8, ncol=2, loc="lower right")


def spot_check(spot: list[dict] | None) -> None:
    """The spot check of Fig. 1a at the paper's scale (:func:`~lib.chapters.aot_memorization.train.spot_check`'s
    records ``spot``; nothing when it was not run): both metrics against H over the v2 CSV and the bound."""
    if spot is None:
        return
    fig, axes = plots.subplots(1, 1, width=4.6, height=2.5)
    xs = [r["H"] for r in spot]
    axes[0].plot(PAPER["exp1_H"], PAPER["exp1"][10], **dict(plots.PAPER, label="paper (v2 CSV, 5 seeds)"))
    axes[0].plot(xs, [r["running_acc"] for r in spot], **dict(plots.OURS, linestyle="none", label="ours, running accuracy"))
    axes[0].plot(xs, [r["table_acc"] for r in spot], color="#1a7f37", marker="^", linestyle="none",
                 label="ours, full-table accuracy")
    axes[0].plot(PAPER["exp1_H"], phi(np.array(PAPER["exp1_H"]) * 10 + 10, 50, 2500), color="#1a7f37",
                 lw=0.8, ls=":", label=r"$\phi(Hd_h+d)$")
    axes[0].set(xlabel="heads H", ylabel="accuracy", ylim=(0, 1.05), title="N = 50, d = d_h = 10")
    axes[0].legend(fontsize=8)
    plots.show(fig, "The spot check of Fig. 1a at the paper's scale (N = 50, d = d_h = 10, the official v2 recipe, one "
               "seed): our running accuracy (the official metric) and full-table accuracy against H, over the v2 CSV "
               "(5 seeds) and the bound φ(Hd_h + d). The running accuracy should sit on the CSV; the full-table one "
               "a little below it.", "fig-aot-spot-check")


def plot_depth(ax, recs: list[dict], ds: Sequence[int], Hs: Sequence[int], L: int, N: int) -> None:
    """Accuracy (full table, seed mean and the seeds) against heads per layer: one layer solid, L layers dashed."""
    for i, d in enumerate(ds):
        for depth, ls, mk in ((1, "-", "o"), (L, "--", "s")):
            seeds = [accs(recs, d=d, H=H, L=depth) for H in Hs]
            ax.plot(Hs, [float(np.mean(a)) for a in seeds], color=plots.COLORS[i], ls=ls, marker=mk,
                    label=f"d = d_h = {d}, {depth} layer{'s' * (depth > 1)}")
            for H, a in zip(Hs, seeds, strict=True):
                ax.scatter([H] * len(a), a, color=plots.COLORS[i], s=6)
    ax.axhline(1 / N, color="#57606a", lw=0.6)
    ax.set(xlabel="heads per layer H", ylabel="accuracy (full table)", ylim=(0, 1.05), xticks=list(Hs),
           title=f"App. B.2 at N = {N}: 1 vs {L} layers")
    ax.legend(fontsize=8)


def lemma1_probe(norms: np.ndarray, lrs: Sequence[float]) -> None:
    """Lemma 1's probe: the centred-logit norm against the Adam step, the full-support task (solid) and the look-up
    table (dashed), one colour per learning rate (``norms``: [2, len(lrs), steps])."""
    fig, (ax,) = plots.subplots(1, 1, width=5.0, height=2.5)
    steps = np.arange(1, norms.shape[-1] + 1)
    for j, lr in enumerate(lrs):
        ax.loglog(steps, norms[0, j], color=plots.COLORS[j % 8], lw=1.2, label=f"full support, lr {lr:g}")
        ax.loglog(steps, norms[1, j], color=plots.COLORS[j % 8], lw=1.2, ls="--", label=f"look-up table, lr {lr:g}")
    ax.set(xlabel="Adam step", ylabel=r"$\|f - \bar f\|_F$ (centred logits)")
    ax.legend(fontsize=7, ncol=2)
    plots.show(fig, "Lemma 1's probe: the norm of the centred logits of the rank-2 encoder W E while Adam minimises the "
               "KL. On the full-support task (solid) it levels off: the minimiser exists. On a look-up table (dashed) it "
               "keeps growing: the infimum 0 is not attained.", "fig-aot-lemma1")


def theorem3_rate(rows: list[dict], rate) -> None:
    """Theorem 3: the AoT's KL against eps log(1/eps) (``rate``) on log-log axes, with a line of slope 1."""
    fig, (ax,) = plots.subplots(1, 1, width=4.2, height=2.5)
    x = np.array([rate(r["eps"]) for r in rows])
    y = np.array([r["kl_aot"] for r in rows])
    ax.loglog(x, y, **plots.OURS)
    ax.loglog(x, x * y[-1] / x[-1], color="#57606a", lw=0.8, ls=":", label="slope 1")
    ax.set(xlabel=r"$\varepsilon \log(1/\varepsilon)$", ylabel=r"$d_{KL}(\pi, \mathcal{T}^*)$")
    ax.legend(fontsize=8)
    plots.show(fig, "Theorem 3 on a look-up table: the KL of the AoT built on Prop. 3's encoder (delta = eps) against "
               "eps log(1/eps). The points follow a line of slope 1: the gap is proportional to the theorem's rate.",
               "fig-aot-thm3")
