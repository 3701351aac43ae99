"""Softmax vs linear attention, the model role: the paper's attention layer and network (Deng, Song, Zhou, Yuan,
arXiv 2310.11685), mapped onto :mod:`lib.core.attention`; the datasets and weights are :mod:`.theory.constructions`.

The paper's copy we have lost every formula, so the datasets and weights below are a *reconstruction*
from the proofs' surviving structure (see the chapter's opening section). Every function states which
object of the paper it rebuilds.

Notation (the paper's, mapped onto :mod:`lib.core.attention`):

* inputs ``A1 ∈ R^{n×d}`` (queries) and ``A2 ∈ R^{n×d}`` (keys = values); self-attention is ``A1 = A2``;
* the combined parameter ``X = Q K^T ∈ R^{d×d}``; value matrix ``V = I_d``;
* ``Att_exp = D^{-1} exp(A1 X A2^T) A2`` and ``Att_lin = D_lin^{-1} (A1 X A2^T) A2``.

In ``lib.core.attention`` this is one head with ``W_Q = X``, ``W_K = W_V = I_d`` and ``score_map`` =
``"softmax"`` or ``"linear"``: :func:`attend` does exactly that, batched over any leading dimensions
(a family of R random models is a leading dimension of size R).

The network (layers 1-4 of the paper: scores, normalisation, aggregation, ReLU readout) is
``F(A1, A2) = Σ_{j0 ∈ [n]} Σ_{r ∈ [m]} φ_τ(<w_r, c_{j0,*}>)`` with ``c = Att(A1, A2)``, ``φ_τ(z) = max(z-τ, 0)``
and ``W = [w_1 … w_m] ∈ {±1}^{d×m}`` i.i.d. Rademacher (:func:`network`).

Everything runs in float64 on the CPU with one thread.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch import Tensor

from lib.core import attention as att

DT = torch.float64


# ----------------------------------------------------------------------------------------------
# attention and network
# ----------------------------------------------------------------------------------------------
def attend(A1: Tensor, A2: Tensor, X: Tensor, kind: str) -> tuple[Tensor, Tensor]:
    """``(c, f)``: ``c = f A2`` (V = I) and the normalised weights ``f = φ(A1 X A2^T)``.

    ``A1 [..., n_q, d]``, ``A2 [..., n, d]``, ``X [..., d, d]`` (broadcast); ``kind`` is ``"softmax"``
    or ``"linear"``. Returns ``c [..., n_q, d]`` and ``f [..., n_q, n]``."""
    d = A1.shape[-1]
    eye = torch.eye(d, dtype=A1.dtype, device=A1.device).unsqueeze(0)      # [H=1, d, d]
    out, w = att.attention(A1, A2, X.unsqueeze(-3), eye, eye, None, score_map=kind, return_weights=True)
    return out, w.squeeze(-3)


def network(c: Tensor, W: Tensor, tau: float) -> Tensor:
    """``F = Σ_{j0, r} φ_τ(<w_r, c_{j0}>)`` for ``c [..., n, d]`` and ``W [..., d, m]``: shape ``[...]``."""
    return torch.relu(c @ W - tau).sum(dim=(-1, -2))


def rademacher(shape: Sequence[int], gen: torch.Generator) -> Tensor:
    """I.i.d. ±1 entries (Definition 3.7)."""
    return (torch.randint(0, 2, tuple(shape), generator=gen) * 2 - 1).to(DT)


def paper_four_step(A1: np.ndarray, A2: np.ndarray, X: np.ndarray, kind: str) -> np.ndarray:
    """The paper's Definitions C.1/C.4, written out row by row with the tensor trick (Fact A.1):
    ``u_{j0} = exp(𝖠_{j0} x)`` (or ``𝖠_{j0} x``), ``α_{j0} = <u_{j0}, 1_n>``, ``f_{j0} = u_{j0}/α_{j0}`` and
    ``c_{j0, i0} = <f_{j0}, (A2 V)_{*, i0}>`` with ``𝖠 = A1 ⊗ A2``, ``x = vec(X)`` (row-major) and V = I.
    Plain numpy, deliberately independent of :func:`attend`, to check it."""
    n = A1.shape[0]
    big = np.kron(A1, A2)                      # [n^2, d^2]
    x = X.reshape(-1)
    c = np.empty((n, A2.shape[1]))
    for j0 in range(n):
        block = big[j0 * n:(j0 + 1) * n]       # the j0-th block 𝖠_{j0} ∈ R^{n×d^2}
        s = block @ x
        u = np.exp(s - s.max()) if kind == "softmax" else s   # exp(s)/Σexp(s) is shift-invariant
        f = u / u.sum()
        c[j0] = f @ A2
    return c
