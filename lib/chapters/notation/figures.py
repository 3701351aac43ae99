"""The figures of chapter ``notation``: the weights the three score maps put on the keys."""
from __future__ import annotations

import torch
from torch import Tensor

from .theory import Draws


def plot_score_maps(X: Tensor, W_Q: Tensor, W_K: Tensor, scales: tuple[float, ...] = (0.25, 1.0, 4.0)):
    """Attention weights of the last token under each score map, softmax at several scales (chapter figure)."""
    from lib.core import plots
    from lib.core.attention import normalize, scores
    S = scores(X[-1:], X, W_Q[None], W_K[None])[0, 0]          # [n]
    fig, axes = plots.subplots(1, 3, width=3.6, height=2.8)
    keys = range(1, S.shape[0] + 1)
    for s in scales:
        axes[0].plot(keys, normalize(s * S, "softmax").cpu(), marker="o", label=f"scale {s:g}")
    axes[0].set_title("softmax")
    axes[1].plot(keys, normalize(S, "linear").cpu(), marker="o", color=plots.COLORS[1])
    axes[1].set_title("linear (normalised, no exp)")
    axes[2].plot(keys, S.cpu(), marker="o", color=plots.COLORS[2])
    axes[2].set_title("identity (raw scores)")
    axes[0].legend()
    for ax in axes:
        ax.set_xlabel("key position")
    axes[0].set_ylabel("weight of the last query")
    return fig


def score_maps(D: Draws, n: int, d: int, d_h: int):
    """The chapter's figure: :func:`plot_score_maps` for one draw of non-negative unit tokens and weights of spectral
    norm 1 (so that every score lies in [0, 1] and the linear map is defined), at the softmax scales 1, 4 and 16."""
    Xp = D.randn(n, d).abs()
    Xp = Xp / Xp.norm(dim=1, keepdim=True)
    Wq, Wk = (W / torch.linalg.matrix_norm(W, 2) for W in (D.randn(d, d_h).abs(), D.randn(d, d_h).abs()))
    return plot_score_maps(Xp, Wq, Wk, scales=(1.0, 4.0, 16.0))
