"""The figures of the page's own runs: Props. 2-3, Lemma 1's probe, Theorem 3's rate, Exps. 1-4 on the
page's grids (with the spot check at the paper's scale) and App. B.2 at a small scale, the paper's numbers beside
ours."""
from __future__ import annotations

from typing import Sequence

from matplotlib import ticker
import numpy as np

from lib.chapters.aot_memorization.claims.common import MODEL_NAME
from lib.chapters.aot_memorization.claims.depth import accs
from lib.chapters.aot_memorization.theory import PAPER, phi
from lib.chapters.aot_memorization.train import mean_over_reps
from lib.core import plots


def _bounds(ax, x, N, T0, ours_cap, prev_cap, label_x=True):
    ax.plot(x, phi(ours_cap, N, T0), color="#1a7f37", lw=1.2, label=r"our lower bound $\phi(Hd_h+d)$")
    ax.plot(x, phi(np.maximum(prev_cap, 0), N, T0), color="#bf8700", lw=1.2, label=r"previous $\phi(H(d_h-1)+1)$")
    ax.axhline(1 / N, color="#57606a", lw=0.8, ls=":", label="random 1/N")


def fig1a(recs_by_model: dict, N, d_list, H_list, key="running_acc", slopes: tuple | None = None,
          spot: list[dict] | None = None):
    """Fig. 1a / Exp. 1: accuracy vs H for each d = d_h, one panel per model (ours), the paper's curves at N = 50
    (official v2 CSV) in the next panel, with the spot check's points at d = 10 (``spot``:
    :func:`~lib.chapters.aot_memorization.train.spot_check`'s records, both metrics) and, given ``slopes`` = (slopes
    by model, the paper's, N), Exp. 4 / Fig. 2b's panel (:func:`slopes_panel`) in the one after."""
    T0 = N * N
    fig, grid = plots.subplots(2, 2, width=4.2, height=2.15)
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
        ax.set(xlabel="heads H", ylabel="accuracy", ylim=(0, 1.3), yticks=[0, 0.25, 0.5, 0.75, 1])
        ax.set_title(f"ours, {model} model (N = {N})", fontsize=9)
        ax.legend(fontsize=8, loc="upper left", ncol=len(d_list), handlelength=1.2, columnspacing=0.8)  # above 1
    Hp = PAPER["exp1_H"]
    ax = axes[-1]
    for i, d in enumerate([4, 6, 8, 10, 12]):       # colours as in our panels; only the d they lack are labelled
        ax.plot(Hp, PAPER["exp1"][d], color=plots.COLORS[i % 8], marker="s", mfc="none", ls="--",
                label=None if d in d_list else f"d = {d}")
        ax.plot(Hp, phi(np.array(Hp) * d + d, 50, 2500), color=plots.COLORS[i % 8], lw=0.8, ls=":")
    ax.axhline(1 / 50, color="#57606a", lw=0.8, ls=":")
    if spot:
        xs = [r["H"] for r in spot]
        ax.plot(xs, [r["running_acc"] for r in spot], color=plots.COLORS[3], marker="o", ls="none", ms=6,
                label="ours, d = 10: running")
        ax.plot(xs, [r["table_acc"] for r in spot], color=plots.COLORS[3], marker="^", ls="none", ms=6,
                label="ours, d = 10: full table")
    ax.set(xlabel="heads H", ylim=(0, 1.5 if spot else 1.3), yticks=[0, 0.25, 0.5, 0.75, 1])
    ax.set_title("v2 CSV, N = 50" + (" (filled: our spot check)" if spot else ""), fontsize=9)
    ax.legend(fontsize=8, loc="upper left", ncol=2, handlelength=1.2, columnspacing=0.8)        # above accuracy 1
    return fig


def live_exp23(res: dict, P: dict) -> tuple[dict, dict]:
    """Experiments 2 (left: accuracy against d_h) and 3 (right: against d) on the page's grids, both models in each
    panel (official solid, eq. (2) dotted; seed mean and spread), the bounds and the v2 CSVs (N = 50) for their shape;
    returns the seed-mean curves ``({model: (d_h, acc)}, {model: (d, acc)})``."""
    N, T0, H2, H3, dh3 = P["train_N"], P["train_N"] ** 2, P["exp2_H"], P["exp3_H"], P["exp3_dh"]
    fig, ax = plots.subplots(1, 2, width=3.6, height=2.2)
    out: tuple[dict, dict] = ({}, {})
    for k, (exp, x, by) in enumerate((("exp2", P["exp2_dh"], "d_h"), ("exp3", P["exp3_d"], "d"))):
        for i, v in enumerate(P["variants"]):
            m = mean_over_reps(res[f"{exp}_{v}"], "running_acc", [by])
            y, e = [m[(a,)][0] for a in x], [m[(a,)][1] for a in x]
            out[k][v] = (x, y)
            plots.paper_vs_ours(ax[k], x, y, ours_err=e, label=f"ours, {MODEL_NAME.get(v, v)} model",
                                color=plots.COLORS[3 * i])
            ax[k].lines[-1].set_linestyle("-" if i == 0 else ":")
            ax[k].lines[-1].set_marker("o" if i == 0 else "x")
        xs = np.array(x)
        cap = xs * H2 + P["exp2_d"] if k == 0 else H3 * np.minimum(dh3, xs) + xs
        prev = xs * H2 - H2 + 1 if k == 0 else np.full(len(xs), H3 * (dh3 - 1) + 1)
        _bounds(ax[k], x, N, T0, cap, prev)
        ax[k].plot(PAPER[f"{exp}_{'dh' if k == 0 else 'd'}"], PAPER[exp], **dict(plots.PAPER, label="paper (v2 CSV, N = 50)"))
        ax[k].set(xlabel="head dimension d_h" if k == 0 else "embedding dimension d", ylabel="running accuracy",
                  ylim=(0, 1.05))
    ax[1].axvline(dh3, color="#57606a", lw=0.6)
    ax[0].set_title(f"Exp. 2: d = {P['exp2_d']}, H = {H2}, N = {N}", fontsize=9)
    ax[1].set_title(f"Exp. 3: d_h = {dh3}, H = {H3}, N = {N}", fontsize=9)
    ax[0].legend(fontsize=8)
    plots.show(fig, f"Experiments 2 (Fig. 1b, left) and 3 (Fig. 2a, right) at N = {N}: running accuracy against the "
               f"head dimension d_h (d = {P['exp2_d']}, H = {H2}) and against the embedding dimension d (d_h = {dh3}, "
               f"vertical line; H = {H3}), the official model (solid) and the eq. (2) model (dotted), seed mean and "
               "spread, with the bounds φ(Hd_h + d) and φ(H(d_h - 1) + 1); dashed: the paper's curves (v2 CSV, N = 50), "
               "for their shape. The paper: quadratic growth in d_h; in d, growth up to d = d_h, then a plateau.",
               "fig-aot-exp23")
    return out


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


def plot_depth(ax, recs: list[dict], ds: Sequence[int], Hs: Sequence[int], L: int, N: int) -> None:
    """Accuracy (full table, seed mean and the seeds) against heads per layer: one layer solid, L layers dashed."""
    for i, d in enumerate(ds):
        for depth, ls, mk in ((1, "-", "o"), (L, "--", "s")):
            seeds = [accs(recs, d=d, H=H, L=depth) for H in Hs]
            ax.plot(Hs, [float(np.mean(a)) for a in seeds], color=plots.COLORS[i], ls=ls, marker=mk,
                    label=f"d = {d}, L = {depth}")
            for H, a in zip(Hs, seeds, strict=True):
                ax.scatter([H] * len(a), a, color=plots.COLORS[i], s=6)
    ax.axhline(1 / N, color="#57606a", lw=0.6)
    ax.set(xlabel="heads per layer H", ylabel="accuracy (full table)", ylim=(0, 1.05), xticks=list(Hs),
           title=f"App. B.2 at N = {N}: 1 vs {L} layers")
    ax.legend(fontsize=8)


def depth_figure(recs_d: list[dict], recs_line: list[dict], recs_9: list[dict], P: dict) -> None:
    """App. B.2 at a small scale in one figure: the rise with heads per layer at one and L layers (:func:`plot_depth`),
    Fig. 8's shape at the largest d (running accuracy against H) and Fig. 9's (against d_h, with the v2 depth CSV)."""
    from lib.chapters.aot_memorization.claims.depth import FIG9_H, PAPER_DEPTH_DH, PAPER_DEPTH_EXP2, fig9_curve
    N, L, d = P["train_N"], P["depth_L"], max(P["depth_d"])
    fig, ax = plots.subplots(1, 3, width=2.75, height=2.2)
    plot_depth(ax[0], recs_d, P["depth_d"], P["depth_H"], L, N)
    ax[0].set_title(f"rise with H (N = {N})", fontsize=9)
    Hs = sorted({r["H"] for r in recs_line})
    for depth, ls, mk in ((1, "-", "o"), (L, "--", "s")):
        ax[1].plot(Hs, [float(np.mean(accs(recs_line, "running_acc", d=d, H=H, L=depth))) for H in Hs], color=plots.COLORS[1],
                   ls=ls, marker=mk, label=f"{depth} layer{'s' * (depth > 1)}")
    ax[1].set(xlabel="heads per layer H", ylabel="running accuracy", ylim=(0, 1.05), xticks=Hs)
    ax[1].set_title(f"Fig. 8's shape: d = d_h = {d}", fontsize=9)
    ax[1].legend(fontsize=8)
    dhs = list(P["exp2_dh"])
    for depth, ls, mk in ((1, "-", "o"), (L, "--", "s")):
        ax[2].plot(dhs, fig9_curve(recs_9, dhs, depth), color=plots.COLORS[2], ls=ls, marker=mk,
                   label=f"{depth} layer{'s' * (depth > 1)}, N = {N}")
    ax[2].plot(PAPER_DEPTH_DH, PAPER_DEPTH_EXP2, **dict(plots.PAPER, label="v2 CSV, 3 layers, N = 70"))
    ax[2].set(xlabel="head dimension d_h", ylabel="running accuracy", ylim=(0, 1.05))
    ax[2].set_title(f"Fig. 9's shape: d = {P['exp2_d']}, H = {FIG9_H}", fontsize=9)
    ax[2].legend(fontsize=8)
    plots.show(fig, f"App. B.2 at a small scale, the AoT of eq. (2) stacked in {L} layers (dashed) against one layer "
               f"(solid), seed means. Left: full-table accuracy against the heads per layer for d = d_h = "
               f"{', '.join(map(str, P['depth_d']))} (dots: the seeds); both depths should rise. Middle: running accuracy "
               f"against H at d = d_h = {d}; Fig. 8's caption calls the deep curve linear. Right: running accuracy "
               f"against d_h (d = {P['exp2_d']}, {FIG9_H} head per layer) beside Fig. 9's v2 CSV (3 layers of the "
               "official model, N = 70, 21 heads per layer), which v2 calls quadratic: compare the curves' bend.",
               "fig-aot-depth")


def lemma1_probe(norms: np.ndarray, lrs: Sequence[float]) -> None:
    """Lemma 1's probe: the centred-logit norm against the Adam step, the full-support task (solid) and the look-up
    table (dashed), one colour per learning rate (``norms``: [2, len(lrs), steps])."""
    fig, (ax,) = plots.subplots(1, 1, width=5.0, height=2.1)
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
    fig, (ax,) = plots.subplots(1, 1, width=4.2, height=2.1)
    x = np.array([rate(r["eps"]) for r in rows])
    y = np.array([r["kl_aot"] for r in rows])
    ax.loglog(x, y, **plots.OURS)
    ax.loglog(x, x * y[-1] / x[-1], color="#57606a", lw=0.8, ls=":", label="slope 1")
    ax.set(xlabel=r"$\varepsilon \log(1/\varepsilon)$", ylabel=r"$d_{KL}(\pi, \mathcal{T}^*)$")
    ax.legend(fontsize=8)
    plots.show(fig, "Theorem 3 on a look-up table: the KL of the AoT built on Prop. 3's encoder (delta = eps) against "
               "eps log(1/eps). The points follow a line of slope 1: the gap is proportional to the theorem's rate.",
               "fig-aot-thm3")
