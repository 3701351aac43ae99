"""The figures and tables of the stored paper-scale runs (:mod:`~lib.chapters.aot_memorization.claims.stored`):
Exps. 1-6, v1's protocol and App. B.1, each beside the paper's CSVs."""
from __future__ import annotations


import matplotlib.pyplot as plt

from lib.chapters.aot_memorization.claims import stored as S
from lib.chapters.aot_memorization.theory import PAPER, phi
from lib.chapters.aot_memorization.train import mean_over_reps, paper_slopes, per_head_slopes
from lib.core import plots


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


def d_colours(fig, ax, ds: list[int]):
    """One viridis colour per d = d_h, keyed by a colour bar beside ``ax`` (eleven curves: a legend would cover
    them); returns d -> colour."""
    norm = plt.Normalize(min(ds), max(ds))
    cmap = plt.get_cmap("viridis")
    fig.colorbar(plt.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label="d = d_h", ticks=ds[::2], pad=0.02,
                 fraction=0.05)
    return lambda d: cmap(norm(d))


def _exp1_figure(m: dict, ds: list[int], Hs: list[int], slopes: dict, pslopes: dict) -> None:
    """Fig. 1a (seed means, solid) over the v2 CSV (dashed), and Fig. 2b's associations per head, log-log."""
    fig, ax = plots.subplots(1, 2, width=4.2, height=2.4)
    col = d_colours(fig, ax[0], ds)
    for d in ds:
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=col(d), marker="o", ms=3)
        ax[0].plot(Hs, PAPER["exp1"][d], color=col(d), ls="--", lw=0.8)
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05))
    ax[0].set_title("Exp. 1 (Fig. 1a), N = 50", fontsize=9)
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
    fig, ax = plots.subplots(1, 2, width=4.4, height=2.4)
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
    fig, ax = plots.subplots(1, 1, width=5.6, height=2.6)
    col = d_colours(fig, ax[0], sorted(v1t))
    for d in sorted(v1t):
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=col(d), marker="o", ms=3)
        ax[0].plot(Hs[: len(v1t[d])], v1t[d], color=col(d), ls="--", lw=0.8)
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05))
    ax[0].set_title("v1's protocol, N = 50", fontsize=9)
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
    """App. B.1's Figs. 5 (left, Exp. 1: N = 200, d = d_h = 40, 50, 60), 6 (middle, Exp. 2: d = 50, H = 11) and, when
    ``b1-fig7`` is stored, 7 (right, Exp. 5: :func:`panel_b1_fig7`) in one figure (the tables: :func:`table_b1_fig5`,
    :func:`table_b1_fig6`, :func:`stored_b1_fig7`)."""
    e5, e6, e7 = evs["b1-fig5"], evs["b1-fig6"], evs["b1-fig7"]
    if not (e5.complete and e6.complete):
        return
    Hs, csv, m = PAPER["b1_exp1_H"], PAPER["b1_exp1"], mean_over_reps(e5.points, "running_acc", ["d", "H"])
    fig, ax = plots.subplots(1, 3 if e7.complete else 2, width=2.75 if e7.complete else 3.6, height=2.25)
    for i, d in enumerate(sorted(csv)):
        ax[0].plot(Hs, [m[(d, H)][0] for H in Hs], color=plots.COLORS[i], marker="o", ms=3, label=f"d = d_h = {d}")
        ax[0].plot(Hs, csv[d], color=plots.COLORS[i], ls="--", lw=0.8)
    ax[0].set(xlabel="heads H", ylabel="running accuracy", ylim=(0, 1.05))
    ax[0].set_title("Fig. 5 (Exp. 1)", fontsize=9)
    ax[0].legend(fontsize=8)
    _panel(ax[1], e6, "dh", *_b1_fig6_curves(), "head dimension d_h", "Fig. 6 (Exp. 2): d = 50, H = 11",
           models=("official",))
    ax[1].set_ylim(0, 0.7)
    h, lab = ax[1].get_legend_handles_labels()
    short = {"paper (v2 CSV)": "v2 CSV", "stored run, official code's model": "stored run"}
    ax[1].legend(h, [short.get(x, "bound") for x in lab], fontsize=8, loc="upper left")
    seven = ""
    if e7.complete:
        panel_b1_fig7(ax[2], evs)
        seven = (" Right: Fig. 7 (Exp. 5), the MLP transformer of width 2d(H - 1) (solid, stored sweep `b1-fig7`), "
                 "the AoT with H heads at the same parameter count (dashed, `b1-fig5`) and the v2 CSVs' MLP (dotted); "
                 "v2 reads the MLP as better yet harder to optimize: solid above dashed at small H, flattening below 1.")
    plots.show(fig, "App. B.1 at N = 200, official models, one seed, stored runs over the v2 CSVs (dashed). Left: "
               "Fig. 5 (Exp. 1, stored sweep `b1-fig5`), running accuracy against H; v2 calls it linear. Middle: Fig. 6 "
               "(Exp. 2, `b1-fig6`), against d_h, with the bound; v2 calls it linear: compare its bend with Fig. 1b's."
               + seven, "fig-aot-stored-b1-fig56")


def panel_b1_fig7(ax, evs: dict) -> None:
    """App. B.1 / Fig. 7 on ``ax``: the stored MLP transformers (``b1-fig7``, solid) and AoTs (``b1-fig5``, dashed)
    against the equal-parameter head count H, and the v2 CSVs' MLP curves (dotted)."""
    from lib.chapters.aot_memorization.claims.b1 import fig7_csv, fig7_curves
    a, m = fig7_curves(evs["b1-fig5"].points, evs["b1-fig7"].points)
    mc = fig7_csv()[1]
    for i, d in enumerate(sorted(m)):
        Hs = sorted(m[d])
        ax.plot(Hs, [m[d][H] for H in Hs], color=plots.COLORS[i], marker="^", ms=3, label=f"MLP, d = {d}")
        ax.plot(Hs, [a[d][H] for H in Hs], color=plots.COLORS[i], ls="--", lw=0.9)
        if d in mc:
            ax.plot(sorted(mc[d]), [mc[d][H] for H in sorted(mc[d])], color=plots.COLORS[i], ls=":", lw=0.9)
    ax.set(xlabel="H (MLP width 2d(H - 1))", ylabel="running accuracy", ylim=(0, 1.0))
    ax.set_title("Fig. 7 (Exp. 5)", fontsize=9)
    ax.legend(fontsize=8)


def stored_b1_fig7(evs: dict) -> None:
    """App. B.1 / Fig. 7's curves (:func:`panel_b1_fig7`, the right panel of :func:`stored_b1_fig56`) as a table,
    ours and the v2 CSVs', when stored."""
    from lib.chapters.aot_memorization.claims.b1 import fig7_csv, fig7_curves
    ev5, ev7 = evs["b1-fig5"], evs["b1-fig7"]
    if not (ev5.complete and ev7.complete):
        return
    curves = {"stored runs (1 seed)": fig7_curves(ev5.points, ev7.points), "v2 CSVs (5 seeds)": fig7_csv()}
    for title, (a, m) in curves.items():
        for d in sorted(m):
            Hs = sorted(m[d])
            print(f"{title}, d = {d}: H " + " ".join(f"{H:6d}" for H in Hs) + "\n   MLP   " +
                  " ".join(f"{m[d][H]:6.3f}" for H in Hs) + "\n   AoT   " + " ".join(f"{a[d][H]:6.3f}" for H in Hs))


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
