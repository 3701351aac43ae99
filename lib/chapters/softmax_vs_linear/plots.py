"""Softmax vs linear attention: the panels' figures (Monte-Carlo counts against the closed forms).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from lib.chapters.softmax_vs_linear.montecarlo import Panel

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
