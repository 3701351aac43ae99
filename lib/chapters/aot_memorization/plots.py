"""Figures of the aot-memorization chapter (paper's numbers beside ours), kept out of the reader's way."""
from __future__ import annotations

import numpy as np

from lib.chapters.aot_memorization.construction import PAPER, phi
from lib.chapters.aot_memorization.train import mean_over_reps, truncate_saturated
from lib.core.fit import linear_fit, power_fit
from lib.core import plots


def _bounds(ax, x, N, T0, ours_cap, prev_cap, label_x=True):
    ax.plot(x, phi(ours_cap, N, T0), color="#1a7f37", lw=1.2, label=r"our lower bound $\phi(Hd_h+d)$")
    ax.plot(x, phi(np.maximum(prev_cap, 0), N, T0), color="#bf8700", lw=1.2, label=r"previous $\phi(H(d_h-1)+1)$")
    ax.axhline(1 / N, color="#57606a", lw=0.8, ls=":", label="random 1/N")


def fig1a(recs_by_model: dict, N, d_list, H_list, key="running_acc"):
    """Fig. 1a / Exp. 1: accuracy vs H for each d = d_h, one panel per model (ours), and the paper's
    curves at N = 50 (official v2 CSV) in the last panel."""
    T0 = N * N
    fig, axes = plots.subplots(1, len(recs_by_model) + 1, width=3.8, height=3.4)
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
        ax.legend(fontsize=6)
    Hp = PAPER["exp1_H"]
    ax = axes[-1]
    for i, d in enumerate([4, 6, 8, 10, 12]):
        ax.plot(Hp, PAPER["exp1"][d], color=plots.COLORS[i % 8], marker="s", mfc="none", ls="--", label=f"d = {d}")
        ax.plot(Hp, phi(np.array(Hp) * d + d, 50, 2500), color=plots.COLORS[i % 8], lw=0.8, ls=":")
    ax.axhline(1 / 50, color="#57606a", lw=0.8, ls=":")
    ax.set(xlabel="heads H", ylim=(0, 1.05))
    ax.set_title("paper (official v2 CSV, N = 50)", fontsize=9)
    ax.legend(fontsize=6)
    fig.suptitle(r"dotted: the bound $\phi(Hd_h+d)$", fontsize=9)
    return fig


def fig_single(ax, x, y, err, N, T0, caps, prevs, label, paper_x=None, paper_y=None, color=None, xlabel=""):
    plots.paper_vs_ours(ax, x, y, ours_err=err, label=label, color=color)
    if paper_x is not None:
        ax.plot(paper_x, paper_y, **dict(plots.PAPER, label="paper (N = 50)"))
    if caps is not None:
        _bounds(ax, x, N, T0, caps, prevs)
    ax.set(xlabel=xlabel, ylabel="accuracy", ylim=(0, 1.05))


def fig4_slopes(slopes_by_model: dict, slopes_paper: dict, N_ours: int):
    """Fig. 2b / Exp. 4: per-head slope of accuracy vs d = d_h, scaled to associations per head
    (slope * T0 / (1 - 1/N)) so that N = 20 and N = 50 can share axes; log-log."""
    fig, axes = plots.subplots(1, 1, width=5.0, height=3.4)
    ax = axes[0]
    curves = [(f"ours, {k} model", v, N_ours, dict(plots.OURS, color=plots.COLORS[i])) for i, (k, v) in enumerate(slopes_by_model.items())]
    curves.append(("paper (v2 CSV)", slopes_paper, 50, dict(plots.PAPER)))
    for lab, sl, N, st in curves:
        ds = np.array([d for d in sorted(sl) if sl[d] > 0])
        a = np.array([sl[d] for d in ds]) * N * N / (1 - 1 / N)
        st["label"] = f"{lab}, N = {N}"
        ax.plot(ds, a, **st)
    dd = np.linspace(2, 14, 50)
    ax.plot(dd, dd, color="#1a7f37", lw=1, label="bound: d_h per head")
    ax.set(xscale="log", yscale="log", xlabel="d = d_h", ylabel="associations per head")
    ax.legend(fontsize=7)
    return fig


def per_head_slopes(recs, d_list, H_list, N, key="running_acc"):
    """{d: slope of accuracy vs H} over the pre-saturation points (the official rule), and R^2."""
    m = mean_over_reps(recs, key, ["d", "H"])
    out, r2 = {}, {}
    for d in d_list:
        x, y = truncate_saturated(H_list, [m[(d, H)][0] for H in H_list])
        if len(x) >= 2:
            a, b, r = linear_fit(x, y)
            out[d], r2[d] = a, (r if len(x) >= 3 else float("nan"))
    return out, r2


def pooled_r2(recs, d_list, H_list, k: float, key="running_acc") -> float:
    """R^2 of the curves accuracy = a_d H^k + b_d (one fit per d, through lib.core.fit.power_fit), pooled over
    every d with >= 3 pre-saturation points: 1 - sum SS_res / sum SS_tot. NaN when no d qualifies."""
    m = mean_over_reps(recs, key, ["d", "H"])
    res = tot = 0.0
    for d in d_list:
        x, y = truncate_saturated(H_list, [m[(d, H)][0] for H in H_list])
        if len(x) >= 3:
            ss = float(((y - y.mean()) ** 2).sum())
            r2 = power_fit(x, y, k).r2
            res, tot = res + (1 - r2) * ss if ss > 0 else res, tot + ss
    return 1 - res / tot if tot > 0 else float("nan")


def paper_slopes():
    out = {}
    for d, y in PAPER["exp1"].items():
        x, yy = truncate_saturated(PAPER["exp1_H"], y)
        out[d] = linear_fit(x, yy)[0]
    return out
