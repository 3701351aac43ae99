"""The model role: each paper's attention layer written literally in that paper's notation (chapter ``notation``).

These are deliberately naive transcriptions of the equations, loop over heads included, so that the
chapter can check ``lib.core.attention`` against them. Chapters use ``lib.core.attention``, not these.
"""
from __future__ import annotations

import torch
from torch import Tensor


def mahdavi_layer(E: Tensor, e: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor, W_D: Tensor) -> Tensor:
    """Mahdavi et al. (2024), eqs. (1)-(6). ``E [n, d]`` context, ``e [d]`` query, ``W_Q, W_K [H, d, d_h]``,
    ``W_V [H, d, d_v]``, ``W_O [H d_v, d]``, ``W_D [d, d_out]``; returns ``ŷ [d_out]``."""
    p = []
    for h in range(W_Q.shape[0]):
        alpha = E @ W_K[h] @ W_Q[h].T @ e          # (1)  α_h = E W_{K,h} W_{Q,h}^T e
        theta = torch.softmax(alpha, dim=0)        # (2)  θ_h = softmax(α_h)
        z = E.T @ theta                            # (3)  z_h = E^T θ_h
        p.append(W_V[h].T @ z)                     # (4)  p_h = W_{V,h}^T z_h
    o = W_O.T @ torch.cat(p)                       # (5)  o = W_O^T [p_1; ...; p_H]
    return W_D.T @ o                               # (6)  ŷ = W_D^T o


def dana_layer(t: Tensor, emb: Tensor, pos: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor,
               W_U: Tensor) -> Tensor:
    """Dana et al. (2025), eq. (2) literally: ``T(t) = W_U (e(t_S) + pos_S + W_O W_V A(t))`` with the heads'
    output matrices concatenated, ``W_O = [W_O^1, ..., W_O^H] ∈ R^{d×H d_h}``, the value matrices placed on
    a block diagonal, ``W_V = blockdiag(W_V^h) ∈ R^{H d_h×H d}``, and ``A(t) = [A^1; ...; A^H] ∈ R^{H d}``.
    Token ids ``t [S]``, ``emb [N, d]``, ``pos [S, d]``, left-multiplying ``W_Q, W_K, W_V [H, d_h, d]``,
    ``W_O [H, d, d_h]``, ``W_U [N, d]``."""
    x = emb[t] + pos                                   # x_s = e(t_s) + pos_s
    A = torch.cat([dana_A(x, W_Q[h], W_K[h]) for h in range(W_Q.shape[0])])     # A(t) ∈ R^{Hd}
    W_O_cat = torch.cat(list(W_O), dim=1)              # [d, H d_h]
    W_V_bd = torch.block_diag(*W_V)                    # [H d_h, H d]
    return W_U @ (x[-1] + W_O_cat @ W_V_bd @ A)        # eq. (2); x[-1] = e(t_S) + pos_S


def dana_A(x: Tensor, W_Q: Tensor, W_K: Tensor) -> Tensor:
    """Dana et al., eq. (1): ``A^h = Σ_s a^h_s x_s`` with ``a^h = Softmax_s(x_S^T W_QK^h x_s)`` and
    ``W_QK^h = (W_Q^h)^T W_K^h``; ``x [S, d]``, ``W_Q, W_K [d_h, d]``."""
    W_QK = W_Q.T @ W_K
    a = torch.softmax(torch.stack([x[-1] @ W_QK @ x[s] for s in range(x.shape[0])]), dim=0)
    return sum(a[s] * x[s] for s in range(x.shape[0]))


def dana_heads(t: Tensor, emb: Tensor, pos: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor) -> Tensor:
    """Dana et al., eq. (1), first equality, summed: ``Σ_h W_O^h W_V^h A^h`` (the attention part of eq. 2)."""
    x = emb[t] + pos
    return sum(W_O[h] @ W_V[h] @ dana_A(x, W_Q[h], W_K[h]) for h in range(W_Q.shape[0]))


def dana_eq1_second_form(t: Tensor, emb: Tensor, pos: Tensor, W_Q: Tensor, W_K: Tensor, W_O: Tensor) -> Tensor:
    """Eq. (1)'s second equality as printed, ``Σ_h W_O^h Σ_s a^h_s x_s``: ``W_V^h`` is missing. Defined only
    when ``d_h = d`` (``W_O^h`` is ``d×d_h``, ``Σ_s a_s x_s`` is in ``R^d``); raises otherwise."""
    x = emb[t] + pos
    return sum(W_O[h] @ dana_A(x, W_Q[h], W_K[h]) for h in range(W_Q.shape[0]))


def dana_parameters(N: int, S: int, d: int, H: int, d_h: int) -> dict[str, list[Tensor]]:
    """The AoT's parameter tensors, built as the paper lists them (zeros: only their shapes matter): ``e``,
    ``pos``, ``W_U`` and, per head, ``W_Q^h, W_K^h, W_V^h ∈ R^{d_h×d}`` and ``W_O^h ∈ R^{d×d_h}``. The
    block-diagonal ``W_V`` of eq. (2) is assembled from the ``W_V^h``; its off-diagonal zeros are not
    parameters."""
    z = torch.zeros
    return {"e": [z(N, d)], "pos": [z(S, d)], "W_U": [z(N, d)], "W_Q^h": [z(d_h, d) for _ in range(H)],
            "W_K^h": [z(d_h, d) for _ in range(H)], "W_V^h": [z(d_h, d) for _ in range(H)],
            "W_O^h": [z(d, d_h) for _ in range(H)]}


def mahdavi_skip_layer(E: Tensor, e: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor,
                       W_D: Tensor) -> Tensor:
    """Mahdavi et al., Appendix C (Remark 2): eqs. (1)-(6) with eq. (5) replaced by
    ``o = W_O^T [p_1; ...; p_H] + e`` (the skip connection adds the query token)."""
    p = [W_V[h].T @ E.T @ torch.softmax(E @ W_K[h] @ W_Q[h].T @ e, dim=0) for h in range(W_Q.shape[0])]
    o = W_O.T @ torch.cat(p) + e                   # (5') with the skip connection
    return W_D.T @ o


def levine_residual(X: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor) -> Tensor:
    """Levine et al., Appendix A.4: one residual block ``x^i + f(x)^i`` with ``f`` the analysed layer of
    eq. (3) (no softmax); tokens are the columns of ``X [d_x, N]``."""
    return X + levine_eq3(X, W_Q, W_K, W_V, W_O)


def levine_parameters(d_x: int, H: int) -> list[Tensor]:
    """One layer's attention weights with Levine et al.'s ``d_a = d_x / H``: ``W^{Q,h}, W^{K,h}, W^{V,h}
    ∈ R^{d_a×d_x}`` and ``W^{O,h} ∈ R^{d_x×d_a}`` for each head (``H`` must divide ``d_x``)."""
    if d_x % H:
        raise ValueError(f"d_a = d_x/H needs H | d_x, got d_x = {d_x}, H = {H}")
    d_a = d_x // H
    return [torch.zeros(d_a, d_x) for _ in range(3 * H)] + [torch.zeros(d_x, d_a) for _ in range(H)]


def levine_eq3(X: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor) -> Tensor:
    """Levine et al. (2020), eq. (3): ``y^i = Σ_j Σ_h <W^Q x^i, W^K x^j> W^O W^V x^j`` with tokens as the
    columns of ``X [d_x, N]`` and ``W_Q, W_K, W_V [H, d_a, d_x]``, ``W_O [H, d_x, d_a]``; returns ``[d_x, N]``."""
    d_x, N = X.shape
    Y = torch.zeros_like(X)
    for i in range(N):
        for j in range(N):
            for h in range(W_Q.shape[0]):
                Y[:, i] += torch.dot(W_Q[h] @ X[:, i], W_K[h] @ X[:, j]) * (W_O[h] @ W_V[h] @ X[:, j])
    return Y


def levine_eq12(X: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor) -> Tensor:
    """Levine et al. (2020), eq. (12), the matrix form of eq. (3): ``Y = Σ_h W^O W^V X X^T (W^K)^T W^Q X``."""
    return sum(W_O[h] @ W_V[h] @ X @ X.T @ W_K[h].T @ W_Q[h] @ X for h in range(W_Q.shape[0]))


def levine_eq1(X: Tensor, W_Q: Tensor, W_K: Tensor, W_V: Tensor, W_O: Tensor) -> Tensor:
    """Levine et al. (2020), eq. (1): the practical self-attention with ``SM_j{<W^Q x^i, W^K x^j>/sqrt(d_a)}``."""
    d_a = W_Q.shape[1]
    Y = torch.zeros_like(X)
    for h in range(W_Q.shape[0]):
        logits = (W_Q[h] @ X).T @ (W_K[h] @ X) / d_a ** 0.5      # [N (i), N (j)]
        Y += W_O[h] @ W_V[h] @ X @ torch.softmax(logits, dim=1).T
    return Y


def deng_attention(A1: Tensor, A2: Tensor, X: Tensor, V: Tensor, score_map: str = "softmax") -> Tensor:
    """Deng et al. (2023): ``D^{-1} exp(A_1 X A_2^T) A_2 V`` (softmax) or ``D_lin^{-1} (A_1 X A_2^T) A_2 V`` (linear)."""
    M = A1 @ X @ A2.T
    U = torch.exp(M) if score_map == "softmax" else M
    D = torch.diag(U @ torch.ones(U.shape[1], dtype=U.dtype, device=U.device))
    return torch.linalg.solve(D, U @ A2 @ V)
