"""Levine et al. (2020): the models. The analysed network (eq. 3) in float64, through :mod:`lib.core.attention`
(identity score map), and its S-form ``F_L(S)`` (:mod:`lib.chapters.depth_width.theory.seprank` has the exact GF(p)
version); and the decoder-only language model of the depth-vs-width ablation (Sec. 5): GPT-style pre-LayerNorm
blocks, two heads, attention through :func:`lib.core.attention.attention` (softmax, scale 1/sqrt(d_k), causal mask),
a 4·d GELU MLP, learned positions, tied embeddings; non-embedding size 12·L·d² (Kaplan's count, the paper's N) plus
LayerNorm/bias terms; init N(0, 0.02) with 0.02/sqrt(2L) on the residual output projections. Its training is
:mod:`~lib.chapters.depth_width.train`.
"""
from __future__ import annotations

import math

import torch
from torch import nn

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


# ---------------------------------------------------------------------------------------------
# the model
# ---------------------------------------------------------------------------------------------
class Block(nn.Module):
    def __init__(self, d: int, H: int, L: int):
        super().__init__()
        dk = d // H
        std, std_out = 0.02, 0.02 / math.sqrt(2 * L)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.WQ = nn.Parameter(torch.randn(H, d, dk) * std)
        self.WK = nn.Parameter(torch.randn(H, d, dk) * std)
        self.WV = nn.Parameter(torch.randn(H, d, dk) * std)
        self.WO = nn.Parameter(torch.randn(H, dk, d) * std_out)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        nn.init.normal_(self.fc1.weight, std=std), nn.init.zeros_(self.fc1.bias)
        nn.init.normal_(self.fc2.weight, std=std_out), nn.init.zeros_(self.fc2.bias)
        self.scale = 1 / math.sqrt(dk)

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + attention.attention(h, h, self.WQ, self.WK, self.WV, self.WO, score_map="softmax",
                                    scale=self.scale, mask=mask)
        return x + self.fc2(nn.functional.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    """Decoder-only LM: tied token embedding, learned positions, L pre-LN blocks, final LayerNorm."""

    def __init__(self, vocab: int, d: int, L: int, H: int, T: int):
        super().__init__()
        self.emb = nn.Parameter(torch.randn(vocab, d) * 0.02)
        self.pos = nn.Parameter(torch.randn(T, d) * 0.02)
        self.blocks = nn.ModuleList(Block(d, H, L) for _ in range(L))
        self.ln = nn.LayerNorm(d)
        self.register_buffer("mask", torch.tril(torch.ones(T, T, dtype=torch.bool)), persistent=False)

    def forward(self, idx):
        T = idx.shape[1]
        x = self.emb[idx] + self.pos[:T]
        for b in self.blocks:
            x = b(x, self.mask[:T, :T])
        return self.ln(x) @ self.emb.T

    def non_embedding_params(self) -> int:
        return sum(p.numel() for n, p in self.named_parameters() if n not in ("emb", "pos"))


def width_for(size: float, L: int, H: int = 2) -> int:
    """The width d (a multiple of H) with 12·L·d² closest to ``size``."""
    d = math.sqrt(size / (12 * L))
    return max(H, int(round(d / H)) * H)


def flops_per_step(L: int, d: int, T: int, batch: int, vocab: int) -> float:
    """Training FLOPs of one step by :func:`estimated_flops`' count (6 · params · tokens plus attention)."""
    return 6.0 * (12 * L * d * d + vocab * d) * batch * T + 6.0 * L * T * d * batch * T
