"""Levine et al. (2020): the analysed network (eq. 3) in float64, through :mod:`lib.core.attention` (identity
score map), and its S-form ``F_L(S)`` (:mod:`lib.chapters.depth_width.seprank` has the exact GF(p) version).
"""
from __future__ import annotations

import math

import torch

from lib.core import attention


# ---------------------------------------------------------------------------------------------
# the analysed network in float64 (through lib.core.attention) and its S-form
# ---------------------------------------------------------------------------------------------
def paper_weights(d_x: int, L: int, H: int, gen: torch.Generator, dtype=torch.float64):
    """Per-layer per-head matrices in the paper's shapes: W^{Q,K,V} [L,H,d_a,d_x], W^O [L,H,d_x,d_a]."""
    da = d_x // H
    g = lambda *s: torch.randn(*s, generator=gen, dtype=dtype) / math.sqrt(d_x)
    return {"Q": g(L, H, da, d_x), "K": g(L, H, da, d_x), "V": g(L, H, da, d_x), "O": g(L, H, d_x, da)}


def network_lib(Wp: dict, X: torch.Tensor, residual: bool = False) -> torch.Tensor:
    """Eq. 3 layer by layer with :func:`lib.core.attention.attention` (identity score map, no scale, no mask).
    lib is row-convention (tokens are rows): X ``[..., N, d_x]``; the paper's ``W^Q x`` is ``x W_Q`` with
    ``W_Q = (W^Q)^T``, and ``W^O W^V x`` is ``x W_V W_O`` with ``W_V = (W^V)^T``, ``W_O = (W^O)^T``."""
    T = lambda M: M.transpose(-1, -2)
    for l in range(Wp["Q"].shape[0]):
        X = attention.attention(X, X, T(Wp["Q"][l]), T(Wp["K"][l]), T(Wp["V"][l]), T(Wp["O"][l]),
                                score_map="identity", scale=None, skip=residual)
    return X


def network_sform(Wp: dict, X: torch.Tensor, residual: bool = False) -> torch.Tensor:
    """The same network through ``F_0 = I``, ``F_l = T_l(F_{l−1} S F_{l−1}^T) F_{l−1}`` (+ F_{l−1} with a
    residual), ``T_l(G) = Σ_h W^O W^V G (W^K)^T W^Q``, ``S = Σ_j x^j x^jT``; output rows ``(F_L x^i)^T``."""
    Xc = X.transpose(-1, -2)                                   # columns = positions (paper's convention)
    S = Xc @ X
    d = S.shape[-1]
    F = torch.eye(d, dtype=X.dtype).expand_as(S)
    for l in range(Wp["Q"].shape[0]):
        G = F @ S @ F.transpose(-1, -2)
        T = sum(Wp["O"][l, h] @ Wp["V"][l, h] @ G @ Wp["K"][l, h].T @ Wp["Q"][l, h]
                for h in range(Wp["Q"].shape[1]))
        F = F + T @ F if residual else T @ F
    return (F @ Xc).transpose(-1, -2)
