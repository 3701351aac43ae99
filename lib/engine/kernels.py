"""Fused kernels the families share: ``softmax_dot(S, V) = softmax(S) · V`` with a hand-written backward.

The scores of a memorization family are the largest tensors of a step (``[G, B, H, n]``); computing the
softmax and its contraction with the values in L2-sized blocks of models, forward and backward, halves
the step's time on a CPU (18 ms against 34 ms for ``[32, 256, 20, 32]``; ``benchmarks/sweep.py``).
"""
from __future__ import annotations

import torch
from torch import Tensor

_CHUNK_ELEMS = 1 << 17      # elements of S per chunk: S, A and dS chunks of ~0.5 MB (float32) stay in L2


def _chunks(n: int, per: int) -> list[slice]:
    c = max(1, _CHUNK_ELEMS // max(1, per))
    return [slice(i, min(n, i + c)) for i in range(0, n, c)]


def _blocks(S: Tensor, V: Tensor) -> tuple[Tensor, list[slice]]:
    """``V`` expanded along the leading axis to S's (when it has size 1 there), and the blocks of that
    axis that :class:`SoftmaxDot` walks (one block when S has a single axis)."""
    Vb = V.expand(S.shape[0], *V.shape[1:]) if V.shape[0] == 1 and S.shape[0] != 1 else V
    if S.dim() < 2:
        return Vb, [slice(None)]
    return Vb, _chunks(S.shape[0], S[0].numel() if S.shape[0] > 0 else 0)


class SoftmaxDot(torch.autograd.Function):
    """``h = Σ_i softmax(S)_i V_i`` over the last axis, with a hand-written backward
    (``dS = A ⊙ (V − h) · dh``, ``dV = Σ A · dh``) that saves the autograd graph's temporaries. Both
    passes run over blocks of the leading (model) axis small enough for the core's L2 cache, so the
    five elementwise passes over a block read it from cache, not memory: on the MHA H=20 family's
    ``[32, 256, 20, 32]`` scores, forward + backward 18 ms against 34 ms unblocked
    (benchmarks/sweep.py; tests compare it with autograd's ``(softmax(S) * V).sum(-1)``). ``V``
    broadcasts against ``S``; its leading axis is S's or 1."""

    @staticmethod
    def forward(ctx, S: Tensor, V: Tensor) -> Tensor:
        A = torch.empty_like(S)
        h = S.new_empty(S.shape[:-1])
        Vb, blocks = _blocks(S, V)
        for sl in blocks:
            torch.softmax(S[sl], dim=-1, out=A[sl])
            torch.sum(A[sl] * Vb[sl], dim=-1, out=h[sl])
        ctx.save_for_backward(A, V, h)
        return h

    @staticmethod
    def backward(ctx, gh: Tensor):
        A, V, h = ctx.saved_tensors
        dS = torch.empty_like(A)
        need_v = ctx.needs_input_grad[1]
        Vb, blocks = _blocks(A, V)
        dV = torch.empty_like(Vb) if need_v else None
        for sl in blocks:
            g = gh[sl].unsqueeze(-1)
            a = A[sl]
            torch.mul(a, (Vb[sl] - h[sl].unsqueeze(-1)) * g, out=dS[sl])
            if need_v:
                dV[sl] = (a * g).sum_to_size(Vb[sl].shape)
        return dS, (dV.sum_to_size(V.shape) if need_v else None)


def softmax_dot(S: Tensor, V: Tensor) -> Tensor:
    """``Σ_i softmax(S)_i V_i`` (last axis), the fused form of :class:`SoftmaxDot`."""
    return SoftmaxDot.apply(S, V)
