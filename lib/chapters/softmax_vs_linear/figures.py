"""Softmax vs linear attention, the figures role: the panels' figures (Monte-Carlo counts against the closed forms),
the margins, the dynamic range and the learned comparison, and the printed tables of the sweeps and closed forms.
Each returns the figure; the page's cell shows it with :func:`lib.core.plots.show` and its caption.
"""
from __future__ import annotations

import textwrap
from typing import Sequence

import numpy as np

from lib.chapters.softmax_vs_linear.theory.montecarlo import Panel

LABELS = {"n": "sequence length $n$", "k": "groups $k$ ($d = k+2$)", "d": "feature dimension $d$",
          "b": "score scale $b$", "m": "readout width $m$", "tau": r"threshold $\tau$"}


def plot_panels(panels: Sequence[Panel], title: str, ncols: int = 3, width: float = 3.4, height: float = 2.8):
    """Panels in rows of ``ncols``: our count of E out of R models (blue), the exact theory R·P(E) of the
    reconstruction (dashed black), the models in which linear attention fired (red crosses), and the
    points inside the theorem's window (green ticks). Returns ``(fig, axes)``; the caller's cell shows it with
    :func:`lib.core.plots.show` and its caption (the paper's plotted values are lost, so there is no paper overlay)."""
    from lib.core import plots
    nrows = -(-len(panels) // ncols)
    fig, axes = plots.subplots(nrows, min(ncols, len(panels)), width=width, height=height)
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    for ax, pn in zip(axes, panels, strict=False):
        x = np.asarray(pn.xs, float)
        plots.paper_vs_ours(ax, x, pn.E, paper=None, label="ours: # of E")
        ax.plot(x, pn.R * pn.theory, color="black", linestyle="--", marker="s", markerfacecolor="none",
                label="exact theory (reconstruction)")
        ax.plot(x, pn.lin_fires, color="#cf222e", marker="x", linestyle="none", label="# linear net fired")
        inw = x[pn.in_window] if pn.construction != "toy" else x[:0]
        if len(inw):
            ax.scatter(inw, np.full(len(inw), -0.05 * pn.R), marker="|", color="#1a7f37", s=80,
                       label="inside the theorem's window")
        if pn.key in ("n", "m") and x.max() / max(x.min(), 1e-9) > 20:
            ax.set_xscale("log")
        ax.set_xlabel(LABELS[pn.key])
        ax.set_ylim(-0.1 * pn.R, 1.08 * pn.R)
        ax.set_ylabel(f"count out of {pn.R}")
    axes[0].legend(fontsize=8, loc="center right")
    fig.suptitle(title, fontsize=10)
    return fig, axes


def err_summary(err: dict[str, float], label: str) -> None:
    """Print the closed forms of one construction: how many, the largest error, and the largest error per lemma."""
    groups: dict[str, float] = {}
    for key, v in err.items():
        g = key.split()[0].rstrip(":")
        groups[g] = max(groups.get(g, 0.0), v)
    print(f"{label}: {len(err)} closed forms, max |error| {max(err.values()):.1e}; per lemma:")
    print(textwrap.fill(", ".join(f"{g} {v:.0e}" for g, v in groups.items()), 100, initial_indent="  ", subsequent_indent="  "))


def family_table(panels: Sequence[Panel]) -> None:
    """Print the five panels of one construction: our count of E, the exact R·P(E), and the models where linear fired."""
    for letter, pn in zip("abcde", panels, strict=False):
        print(f"({letter}) {pn.key:>3s} = {pn.xs}\n    ours # E  : {pn.E.tolist()}\n    exact R·P : "
              f"{[None if np.isnan(t) else round(float(pn.R * t), 1) for t in pn.theory]}\n    linear fired: {pn.lin_fires.tolist()}")


def toy(fig3a: Panel, fig3b: Panel, lb: dict[str, np.ndarray]):
    """The Fig 3 analogue: both toy panels with the Hoeffding + union bound (dotted purple)."""
    fig, axes = plot_panels([fig3a, fig3b], "Fig 3 analogue: toy model", ncols=2)
    for ax, pn in zip(axes, (fig3a, fig3b), strict=False):
        ax.plot(pn.xs, pn.R * lb[pn.key], color="#8250df", linestyle=":", label="Hoeffding + union bound")
    axes[1].legend(fontsize=8, loc="lower right")
    return fig


def margins(mg: dict, mg_fix: dict, cf: dict, ns: np.ndarray, b_fix: float):
    """The readout-free gaps of both maps against n (log-log), at b = ln n + 3 and at a fixed b, with the closed forms."""
    from lib.core import plots
    fig, axes = plots.subplots(1, 2, width=4.0, height=3.0)
    for ax, (con, rows) in zip(axes, mg.items(), strict=False):
        ax.loglog(ns, [r["softmax"] for r in rows], "o-", label="softmax")
        ax.loglog(ns, [r["linear"] for r in rows], "s-", color="#cf222e", label="linear")
        ax.loglog(ns, [r["softmax"] for r in mg_fix[con]], "o--", color="#8250df", label=f"softmax, fixed b = {b_fix:.1f}")
        ax.loglog(ns, [c["linear"] for c in cf[con, False]], ":", color="gray", label="closed forms")
        ax.loglog(ns, [c["softmax"] for c in cf[con, True]], ":", color="gray")
        ax.set_xlabel("$n$")
        ax.set_ylabel(r"$\Delta=\max_{j_0}\|c(D_1)-c(D_0)\|_1$")
        ax.set_title(con, fontsize=10)
    axes[0].legend(fontsize=8)
    return fig


def dynamic_range(dyn: np.ndarray):
    """Softmax's b* against ln n, and linear attention's 1/ε* with softmax's score ratio e^{b*}, against n."""
    from lib.core import plots
    fig, axes = plots.subplots(1, 2, width=4.0, height=3.0)
    axes[0].plot(dyn[:, 0], dyn[:, 2], "o-", label=r"softmax $b^\star$")
    axes[0].plot(dyn[:, 0], np.log(dyn[:, 0]), ":", color="gray", label=r"$\ln n$")
    axes[0].set_xscale("log")
    axes[0].set_xlabel("$n$")
    axes[0].set_ylabel("parameter needed")
    axes[0].legend(fontsize=8)
    axes[1].loglog(dyn[:, 0], dyn[:, 4], "s-", color="#cf222e", label=r"linear $1/\varepsilon^\star$")
    axes[1].loglog(dyn[:, 0], np.exp(dyn[:, 2]), "o--", label=r"softmax $e^{b^\star}$ (score ratio)")
    axes[1].set_xlabel("$n$")
    axes[1].legend(fontsize=8)
    return fig


def learned(L):
    """The learned comparison: each model's test accuracy (dots) and the median (lines) per n, each map at its best rate."""
    from lib.core import plots
    P = L.P
    fig, axes = plots.subplots(1, 1, width=4.6, height=3.0)
    ax = axes[0]
    for kind, col in (("softmax", plots.COLORS[0]), ("linear", plots.COLORS[1])):
        for n in P["learn_n"]:
            a = L.learn[kind, n, L.best[kind, n]]["acc"]
            ax.scatter(np.full(len(a), n) * (1.06 if kind == "linear" else 0.94), a, s=10, color=col, alpha=0.5)
        ax.plot(P["learn_n"], [np.median(L.learn[kind, n, L.best[kind, n]]["acc"]) for n in P["learn_n"]], "o-", color=col,
                label=f"{kind} at its best lr (median; dots: models)")
    ax.axhline(0.5, color="gray", linestyle=":", label="chance")
    ax.set_xscale("log")
    ax.set_xlabel("sequence length $n$")
    ax.set_ylabel("test accuracy")
    ax.legend(fontsize=8)
    ax.set_title("needle task, trained", fontsize=10)
    return fig
