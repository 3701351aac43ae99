"""Softmax vs linear attention (Deng, Song, Zhou, Yuan, arXiv 2310.11685): the layer, the network, the datasets.

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


# ----------------------------------------------------------------------------------------------
# the reconstructed datasets (one pair D0/D1 per random model; batched over R models)
# ----------------------------------------------------------------------------------------------
def _groups(R: int, n: int, k: int, gen: torch.Generator) -> Tensor:
    """Group one-hots ``B [R, n, k]``: each of the k columns is t = n/k sparse, rows in random order."""
    t = n // k
    base = torch.arange(k).repeat_interleave(t)
    g = torch.stack([base[torch.randperm(n, generator=gen)] for _ in range(R)])
    return torch.nn.functional.one_hot(g, k).to(DT)


def toy_pair(R: int, n: int, b: float, gen: torch.Generator) -> tuple[Tensor, Tensor, Tensor]:
    """Definition 3.8 (reconstructed): D0 has every score b, D1 has one index j with score 2b.
    Returns ``x0, x1 [R, n]`` and ``j [R]``."""
    j = torch.randint(0, n, (R,), generator=gen)
    x0 = torch.full((R, n), b, dtype=DT)
    x1 = x0.clone()
    x1[torch.arange(R), j] = 2 * b
    return x0, x1, j


def self_pair(R: int, n: int, k: int, gen: torch.Generator) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Definition D.1 (reconstructed): ``A = [e_j | B | 1_n] ∈ R^{n×(k+2)}`` (Type I, II, III columns);
    in D0 the flagged token j belongs to no group (row j of B is zero). Returns ``A0, A1, j, g`` (g the
    flagged token's group in D1)."""
    B = _groups(R, n, k, gen)
    j = torch.randint(0, n, (R,), generator=gen)
    r = torch.arange(R)
    g = B[r, j].argmax(-1)
    flag = torch.nn.functional.one_hot(j, n).to(DT).unsqueeze(-1)
    ones = torch.ones(R, n, 1, dtype=DT)
    A1 = torch.cat([flag, B, ones], -1)
    B0 = B.clone()
    B0[r, j] = 0
    A0 = torch.cat([flag, B0, ones], -1)
    return A0, A1, j, g


def X_self(k: int, b: float, variant: str) -> Tensor:
    """Section D's ``X_D = b (e_1 e_1^T + e_d e_d^T)`` (flag and bias only) or Appendix E's ``X_E = b I_d``."""
    d = k + 2
    if variant == "D":
        X = torch.zeros(d, d, dtype=DT)
        X[0, 0] = X[-1, -1] = b
        return X
    if variant == "E":
        return b * torch.eye(d, dtype=DT)
    raise ValueError(f"variant = {variant!r}: expected 'D' or 'E'")


def cross_pair(R: int, n: int, d: int, gen: torch.Generator):
    """Definition F.1 (reconstructed): ``A1 = [e_{j1} | 1_{n×k}]``, ``A2 = [e_{j2} | B]`` with k = d-1 groups;
    in D0 the key j2 belongs to no group. Returns ``Q, K0, K1, j1, j2, g``."""
    k = d - 1
    B = _groups(R, n, k, gen)
    j1 = torch.randint(0, n, (R,), generator=gen)
    j2 = torch.randint(0, n, (R,), generator=gen)
    r = torch.arange(R)
    g = B[r, j2].argmax(-1)
    Q = torch.cat([torch.nn.functional.one_hot(j1, n).to(DT).unsqueeze(-1), torch.ones(R, n, k, dtype=DT)], -1)
    e2 = torch.nn.functional.one_hot(j2, n).to(DT).unsqueeze(-1)
    K1 = torch.cat([e2, B], -1)
    B0 = B.clone()
    B0[r, j2] = 0
    K0 = torch.cat([e2, B0], -1)
    return Q, K0, K1, j1, j2, g


def X_cross(d: int, b: float) -> Tensor:
    """Appendix F's combined parameter ``X = b I_d`` (reconstructed)."""
    return b * torch.eye(d, dtype=DT)
