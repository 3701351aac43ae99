"""The book's house style for figures, and the paper-vs-ours figure helpers.

Figures are PNG on an opaque white background, so they stay readable in the theme's dark mode, and
nbval (which does not compare PNG) ignores their pixels. Call :func:`setup` once per chapter.
"""
from __future__ import annotations

from typing import Sequence

import matplotlib.pyplot as plt
import numpy as np

PAPER = dict(color="black", marker="s", markerfacecolor="none", linestyle="--", label="paper")
OURS = dict(color="#0969da", marker="o", linestyle="-", label="ours")
COLORS = ["#0969da", "#cf222e", "#1a7f37", "#8250df", "#bf8700", "#57606a", "#e16f24", "#1b7c83"]


def setup(dpi: int = 110) -> None:
    """Apply the house style and make the inline backend emit PNG only."""
    plt.rcParams.update({
        "figure.dpi": dpi, "savefig.dpi": dpi,
        "figure.facecolor": "white", "axes.facecolor": "white", "savefig.facecolor": "white",
        "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False, "axes.spines.right": False,
        "axes.prop_cycle": plt.cycler(color=COLORS), "font.size": 10, "legend.frameon": False,
        "figure.constrained_layout.use": True,
    })
    try:
        from matplotlib_inline.backend_inline import set_matplotlib_formats
        set_matplotlib_formats("png")
    except ImportError:  # outside IPython
        pass


def subplots(nrows: int = 1, ncols: int = 1, width: float = 4.2, height: float = 3.2, **kw):
    """``plt.subplots`` sized per panel; always returns a flat array of axes."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, **kw)
    return fig, axes.ravel()


def paper_vs_ours(ax, x: Sequence[float], ours: Sequence[float], paper: Sequence[float] | None = None,
                  ours_err: Sequence[float] | None = None, label: str = "ours", paper_label: str = "paper",
                  color: str | None = None) -> None:
    """Our curve (with an error band when given) and, dashed with open squares, the paper's numbers."""
    style = dict(OURS, label=label)
    if color:
        style["color"] = color
    ax.plot(x, ours, **style)
    if ours_err is not None:
        lo, hi = np.asarray(ours) - np.asarray(ours_err), np.asarray(ours) + np.asarray(ours_err)
        ax.fill_between(x, lo, hi, color=style["color"], alpha=0.15, linewidth=0)
    if paper is not None:
        p = dict(PAPER, label=paper_label)
        if color:
            p["color"] = color
        ax.plot(x, paper, **p)


def heatmap(ax, M: np.ndarray, xlabels: Sequence | None = None, ylabels: Sequence | None = None,
            cmap: str = "viridis", annotate: bool = False, fmt: str = ".2g", colorbar: bool = True, **kw):
    """An image of a matrix with optional tick labels and per-cell annotations."""
    im = ax.imshow(M, cmap=cmap, aspect="auto", **kw)
    ax.grid(False)
    if xlabels is not None:
        ax.set_xticks(range(len(xlabels)), [str(v) for v in xlabels])
    if ylabels is not None:
        ax.set_yticks(range(len(ylabels)), [str(v) for v in ylabels])
    if annotate:
        for (i, j), v in np.ndenumerate(M):
            ax.text(j, i, format(v, fmt), ha="center", va="center", fontsize=7, color="white")
    if colorbar:
        ax.figure.colorbar(im, ax=ax, shrink=0.85)
    return im


FIGURE_KEY = "atr_figure"   # output metadata that lib.book.captions turns into a numbered, captioned figure


def show(fig, caption: str, name: str) -> None:
    """Display ``fig`` as a numbered figure with ``caption`` (what is plotted, and what to look for) and the label
    ``name`` (cross-references: ``{numref}`name```). One captioned figure per notebook cell."""
    import base64
    import io

    from IPython.display import display
    if not caption.strip() or not name.strip():
        raise ValueError("a figure needs a caption and a name")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    display({"image/png": base64.b64encode(buf.getvalue()).decode(), "text/plain": f"<Figure: {name}>"},
            metadata={FIGURE_KEY: {"caption": caption, "name": name}}, raw=True)
