"""Multi-head attention: the one implementation every chapter maps its paper's notation onto.

Row-vector convention (tokens are rows). For queries ``X_q ∈ R^{n_q×d}``, keys/values ``X_kv ∈ R^{n×d}``
and head ``h`` with ``W_Q^h, W_K^h ∈ R^{d×d_k}``, ``W_V^h ∈ R^{d×d_v}``, ``W_O^h ∈ R^{d_v×d_out}``::

    S^h = s · (X_q W_Q^h)(X_kv W_K^h)^T              ∈ R^{n_q×n}     scores, s = `scale` (default 1)
    A^h = φ(S^h)                                     ∈ R^{n_q×n}     row-normalised weights
    out = Σ_h A^h (X_kv W_V^h) W_O^h  [+ X_q]        ∈ R^{n_q×d_out}  optional skip connection

with the score map φ one of

* ``"softmax"``: φ(S)_{ij} = exp(S_ij) / Σ_k exp(S_ik)  (every paper's attention);
* ``"linear"``:  φ(S)_{ij} = S_ij / Σ_k S_ik             (Deng et al.'s linear attention: the same
  normalisation without the exponential; defined only where the row sums are non-zero);
* ``"identity"``: φ(S) = S                                (Levine et al.'s analysed network, eq. 3).

The single-query form of the memorization papers is ``n_q = 1``; self-attention is ``X_q = X_kv``.
Leading dimensions broadcast as in ``torch.matmul``: X ``[..., n, d]`` against weights
``[..., H, d, d_k]``. A family of G independent models with batches of B examples each is
X ``[G, B, n, d]`` with weights ``[G, 1, H, d, d_k]``: one batched matmul trains them all.
"""
from __future__ import annotations

from typing import Literal

import torch
from torch import Tensor

ScoreMap = Literal["softmax", "linear", "identity"]


def scores(X_q: Tensor, X_kv: Tensor, W_Q: Tensor, W_K: Tensor, scale: float | None = None) -> Tensor:
    """Attention scores ``S^h = s (X_q W_Q^h)(X_kv W_K^h)^T``, shape ``[..., H, n_q, n]``."""
    Q = X_q.unsqueeze(-3) @ W_Q            # [..., H, n_q, d_k]
    K = X_kv.unsqueeze(-3) @ W_K           # [..., H, n, d_k]
    S = Q @ K.transpose(-1, -2)
    return S if scale is None else S * scale


def normalize(S: Tensor, score_map: ScoreMap = "softmax", mask: Tensor | None = None) -> Tensor:
    """Apply the score map φ along the key axis. ``mask`` (bool, True = attend) broadcasts to S."""
    if score_map == "softmax":
        if mask is not None:
            S = S.masked_fill(~mask, float("-inf"))
        return torch.softmax(S, dim=-1)
    if score_map == "linear":
        if mask is not None:
            S = S.masked_fill(~mask, 0.0)
        return S / S.sum(dim=-1, keepdim=True)
    if score_map == "identity":
        return S if mask is None else S.masked_fill(~mask, 0.0)
    raise ValueError(f"score_map = {score_map!r}: expected 'softmax', 'linear' or 'identity'")


def attention(X_q: Tensor, X_kv: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor | None = None,
              *, score_map: ScoreMap = "softmax", scale: float | None = None, skip: bool = False,
              mask: Tensor | None = None, return_weights: bool = False):
    """Multi-head attention (module docstring). Returns ``[..., n_q, d_out]``; with ``W_O=None`` the
    heads' outputs are concatenated instead (``[..., n_q, H·d_v]``). ``return_weights`` also returns
    the weights ``A`` of shape ``[..., H, n_q, n]``."""
    A = normalize(scores(X_q, X_kv, W_Q, W_K, scale), score_map, mask)
    heads = A @ (X_kv.unsqueeze(-3) @ W_V)             # [..., H, n_q, d_v]
    if W_O is None:
        out = heads.transpose(-3, -2).flatten(-2)      # [..., n_q, H*d_v]
    else:
        out = (heads @ W_O).sum(dim=-3)                # [..., n_q, d_out]
    if skip:
        if out.shape[-1] != X_q.shape[-1]:
            raise ValueError(f"skip connection needs d_out = d, got d_out = {out.shape[-1]}, d = {X_q.shape[-1]}")
        out = out + X_q
    return (out, A) if return_weights else out


def init_weights(H: int, d: int, d_k: int, d_v: int, d_out: int | None = None, *, family: tuple[int, ...] = (),
                 generator: torch.Generator | None = None, dtype: torch.dtype = torch.float64,
                 device: torch.device | str = "cpu") -> dict[str, Tensor]:
    """Gaussian weights with variance 1/fan_in: ``W_Q, W_K [*family, H, d, d_k]``, ``W_V [*family, H, d, d_v]``
    and, when ``d_out`` is given, ``W_O [*family, H, d_v, d_out]``."""
    def g(*shape: int, fan_in: int) -> Tensor:
        return torch.randn(*family, *shape, generator=generator, dtype=dtype, device=device) / fan_in ** 0.5
    W = {"W_Q": g(H, d, d_k, fan_in=d), "W_K": g(H, d, d_k, fan_in=d), "W_V": g(H, d, d_v, fan_in=d)}
    if d_out is not None:
        W["W_O"] = g(H, d_v, d_out, fan_in=H * d_v)
    return W
