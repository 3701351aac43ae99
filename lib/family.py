"""Families of small attention models with stacked parameters: G independent models, one computation.

A *family* is G models of one architecture whose parameters are stored stacked, every tensor with a
leading model axis ``G``. One forward pass computes all G models on their own batches (data tensors
also carry the leading ``G``), and because the models share no parameter, the gradient of the *sum*
of their losses is each model's own gradient. :func:`lib.train.train_family` trains a family; this
module defines the models and their data. Two families are provided:

``MHAMemorization``  (Mahdavi, Liao & Thrampoulidis, ICLR 2024; the model of their official code)
    Input ``[query; n context tokens]`` in ``R^{d_in}``; a trainable embedding ``Linear(d_in, d)``
    with bias, plus sinusoidal positional encoding (position 0 = the query); one multi-head attention
    layer with H heads, key/query dimension ``dh`` (official default: d), **value dimension 1 per
    head**, scores scaled by ``1/sqrt(d)`` (d = d_model, not dh), the query position masked out of
    the keys, no biases; output projection ``W_O ∈ R^{H×d}``; a decoder ``Linear(d, C)`` with bias
    (C = 100 classes, or 1 output for regression). Only the query position's output enters the loss,
    so the family computes keys and values of the context once and attends from the query alone: the
    same loss and gradients as the official code, which attends from all n+1 positions. With a shared
    context (``shared=True``, the paper's Fig. 2 setting) keys and values are computed once per model
    and step, and the query-key product is re-associated as ``q · (W_Q K^T)`` (one GEMM over all
    heads). With per-example contexts (``shared=False``, App. I.1) the contexts are never embedded:
    scores and values are re-associated through the embedding matrix. ``OfficialMHA`` is a one-model ``nn.Module`` that computes the official code's math as it
    is written (whole context attended, masked), for equivalence tests and the benchmark's baseline.

``AoTMemorization``  (Dana, Pydi & Chevaleyre, AISTATS 2025: an attention-only Transformer)
    Tokens ``t_1..t_S`` from ``[N]``; embeddings ``x_s = E[t_s] + pos_s``; one layer of H heads read
    at the last position; the residual stream; an unembedding ``U ∈ R^{d×N}``. Two variants:

    * ``variant="paper"`` (eq. (2) of the paper): per-head ``W_Q, W_K, W_V ∈ R^{d×dh}``,
      ``W_O ∈ R^{dh×d}``, logits ``U^T (x_S + Σ_h W_O^h W_V^h Σ_s a^h_s x_s)``, no score scaling
      unless ``scale`` is given.
    * ``variant="official"`` (the authors' code at HEAD, per the research note seed-003 §2.3): the
      positional embedding lives in ``R^{dh}``; each head is a one-head ``nn.MultiheadAttention(dh)``
      (``dh×dh`` projections, scores scaled by ``1/sqrt(dh)``), heads summed; the residual carries
      the word embedding only (pos is *not* in the skip). When ``d != dh`` a shared compress
      ``R^d→R^{dh}`` feeds all heads (pos added after it) and one shared decompress ``R^{dh}→R^d``
      maps their sum back (assumed bias-free: the note does not say). ``compress=None`` means
      "compress iff d != dh", as in the code.

    Loss: cross-entropy of the last position's logits (the official ``CE(log(softmax+1e-12))``
    differs only by that 1e-12). For S = 2 the fast path uses softmax over two positions = sigmoid
    of the score difference. ``OfficialAoT`` is the same math as a plain one-model module.

Each family takes ``impl="reference"``: the same model computed with :func:`lib.attention.attention`
(slower); tests/test_train.py checks that the fast paths equal it and the official-math modules.

Every family has the same small interface (what :mod:`lib.train` uses):

``fam.init(seeds, dtype=, device=) -> dict[str, Tensor]``
    stacked parameters, model g drawn from ``torch.Generator().manual_seed(seeds[g])`` in a fixed
    order (so a model's initial weights depend on its seed only, never on its place in a family),
    drawn in float64 and cast, so float32 and float64 runs start from the same point.
``fam.per_example(params, batch) -> (loss [G, B], correct [G, B])``
    per-example loss and 0/1 correctness (regression: ``correct`` is all zeros).
``fam.logits(params, batch) -> [G, B, C]``
``fam.flops(batch_size) -> float``
    FLOPs of the contractions (matmuls and dot products) of one training step of one model as the fast
    path computes them (forward + backward ≈ 3× forward), for the benchmark's peak fraction.
``fam.shape_key() -> tuple``  the architecture: models with equal keys can share a family.

Data are a :class:`FamilyData`: per-example tensors ``examples[k]`` of shape ``[G, T_max, ...]``
(model g uses the first ``sizes[g]`` rows), per-model tensors ``shared[k]`` of shape ``[G, ...]``.
``mha_data(...)``, ``aot_data(...)`` and ``aot_table(...)`` build them from per-model seeds.

Example (a family of 4 MHA models, 2 dataset sizes × 2 seeds)::

    from lib import family, train
    fam = family.MHAMemorization(d=64, n=32, H=20)
    data = family.mha_data(fam, sizes=[1000, 1000, 2000, 2000], seeds=[0, 1, 0, 1])
    res = train.train_family(fam, data, seeds=[0, 1, 0, 1], steps=2000, lr=1e-3,
                             schedule="warmup_cosine", early_stop_acc=1.0, eval_every=500)
    [r["best_acc"] for r in res]
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from lib import attention as attn

__all__ = ["FamilyData", "MHAMemorization", "AoTMemorization", "OfficialMHA", "OfficialAoT", "softmax_dot",
           "mha_data", "aot_data", "aot_table", "sinusoidal_pe", "unstack", "stack"]


# ----------------------------------------------------------------------------------------------
# data container
# ----------------------------------------------------------------------------------------------
@dataclass
class FamilyData:
    """Data of a family: ``examples[k]`` ``[G, T_max, ...]`` (model g: its first ``sizes[g]`` rows),
    ``shared[k]`` ``[G, ...]`` (one per model, e.g. a shared context), ``sizes`` ``[G]`` (int64)."""
    examples: dict[str, Tensor]
    shared: dict[str, Tensor] = field(default_factory=dict)
    sizes: Tensor | None = None

    def __post_init__(self):
        first = next(iter(self.examples.values()))
        if self.sizes is None:
            self.sizes = torch.full((first.shape[0],), first.shape[1], dtype=torch.long)
        self.sizes = torch.as_tensor(self.sizes, dtype=torch.long).cpu()

    @property
    def G(self) -> int:
        return int(self.sizes.numel())

    def to(self, device=None, dtype=None) -> "FamilyData":
        """Move to a device; floating tensors are cast to ``dtype`` (integers are kept)."""
        def mv(t: Tensor) -> Tensor:
            if dtype is not None and t.is_floating_point():
                t = t.to(dtype)
            return t.to(device) if device is not None else t
        return FamilyData({k: mv(v) for k, v in self.examples.items()},
                          {k: mv(v) for k, v in self.shared.items()}, self.sizes)

    def select(self, idx: Tensor) -> "FamilyData":
        """The sub-family of models ``idx`` (a 1-D index tensor)."""
        idx_cpu = idx.cpu()
        return FamilyData({k: v[idx.to(v.device)] for k, v in self.examples.items()},
                          {k: v[idx.to(v.device)] for k, v in self.shared.items()}, self.sizes[idx_cpu])

    def batch(self, idx: Tensor) -> dict[str, Tensor]:
        """Rows ``idx`` (``[G, B]`` int64, on the data's device) of every model: ``[G, B, ...]``,
        plus the shared tensors."""
        out = {}
        for k, v in self.examples.items():
            flat = idx.reshape(idx.shape[0], -1)
            gi = flat.view(*flat.shape, *([1] * (v.dim() - 2))).expand(*flat.shape, *v.shape[2:])
            out[k] = torch.gather(v, 1, gi).view(*idx.shape, *v.shape[2:])
        out.update(self.shared)
        return out


def stack(params: Sequence[dict[str, Tensor]]) -> dict[str, Tensor]:
    """Stack per-model parameter dicts (no model axis) into one family dict (model axis first)."""
    return {k: torch.stack([p[k] for p in params]) for k in params[0]}


def unstack(params: dict[str, Tensor]) -> list[dict[str, Tensor]]:
    """Split a family parameter dict into per-model dicts (views)."""
    G = next(iter(params.values())).shape[0]
    return [{k: v[g] for k, v in params.items()} for g in range(G)]


def _uniform(gen: torch.Generator, shape, bound: float) -> Tensor:
    return (torch.rand(*shape, generator=gen, dtype=torch.float64) * 2 - 1) * bound


def _xavier(gen: torch.Generator, shape, fan_in: int, fan_out: int) -> Tensor:
    return _uniform(gen, shape, math.sqrt(6.0 / (fan_in + fan_out)))


def sinusoidal_pe(length: int, d: int, dtype=torch.float64) -> Tensor:
    """The usual sinusoidal positional encoding ``[length, d]``: even columns sin, odd columns cos,
    frequencies ``10000^{-2i/d}`` (the official MHA code's ``SinPositionalEncoding``)."""
    pos = torch.arange(length, dtype=torch.float64)[:, None]
    freq = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
    pe = torch.zeros(length, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * freq)
    pe[:, 1::2] = torch.cos(pos * freq)[:, : d // 2]
    return pe.to(dtype)


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


# ----------------------------------------------------------------------------------------------
# Mahdavi et al.: the official code's model
# ----------------------------------------------------------------------------------------------
class MHAMemorization:
    """G models of the official MHA-memorization code (module docstring). Parameters (stacked):
    ``emb_W [G, d_in, d]``, ``emb_b [G, d]``, ``W_Q, W_K [G, H, d, dh]``, ``W_V [G, H, d]`` (value
    dim 1), ``W_O [G, H, d]``, ``dec_W [G, d, C]``, ``dec_b [G, C]``. Batches: ``x`` ``[G, B, d_in]``
    (queries), ``y`` ``[G, B]`` (int64 class or float target), and the context: ``E`` ``[G, n, d_in]``
    in ``shared`` (shared context) or ``[G, B, n, d_in]`` in the batch (non-shared).

    ``impl="fast"`` (default) is the specialised computation; ``impl="reference"`` computes the same
    math with :func:`lib.attention.attention` (tests compare the two)."""

    def __init__(self, d: int = 64, n: int = 32, H: int = 20, dh: int | None = None, d_in: int | None = None,
                 n_classes: int = 100, task: str = "classification", shared: bool = True, impl: str = "fast"):
        if task not in ("classification", "regression"):
            raise ValueError(f"task = {task!r}: expected 'classification' or 'regression'")
        if min(d, n, H) < 1:
            raise ValueError(f"d, n, H must be >= 1, got d={d}, n={n}, H={H}")
        self.d, self.n, self.H = d, n, H
        self.dh = d if dh is None else dh
        self.d_in = d if d_in is None else d_in
        self.task = task
        self.C = n_classes if task == "classification" else 1
        self.shared = shared
        self.impl = impl
        self.scale = 1.0 / math.sqrt(d)
        self._pe: dict = {}

    @property
    def eval_width(self) -> int:
        """Elements per example of the largest intermediate tensor (the scores), for evaluation chunks."""
        return self.H * max(self.n, self.d_in if not self.shared else 1)

    def shape_key(self) -> tuple:
        return ("mha", self.d, self.n, self.H, self.dh, self.d_in, self.C, self.task, self.shared)

    def __repr__(self) -> str:
        return (f"MHAMemorization(d={self.d}, n={self.n}, H={self.H}, dh={self.dh}, d_in={self.d_in}, "
                f"C={self.C}, task={self.task!r}, shared={self.shared})")

    def init_one(self, seed: int) -> dict[str, Tensor]:
        """One model's parameters (float64), distributed as the official code's initialisation."""
        g = torch.Generator().manual_seed(int(seed))
        d, d_in, H, dh, C = self.d, self.d_in, self.H, self.dh, self.C
        return {
            "emb_W": _uniform(g, (d_in, d), 1 / math.sqrt(d_in)),      # nn.Linear default
            "emb_b": _uniform(g, (d,), 1 / math.sqrt(d_in)),
            "W_Q": _xavier(g, (H, d, dh), d, dh),                      # xavier_uniform per head
            "W_K": _xavier(g, (H, d, dh), d, dh),
            "W_V": _xavier(g, (H, d), d, 1),
            "W_O": _xavier(g, (H, d), H, d),
            "dec_W": _uniform(g, (d, C), 1 / math.sqrt(d)),
            "dec_b": _uniform(g, (C,), 1 / math.sqrt(d)),
        }

    def init(self, seeds: Sequence[int], dtype=torch.float32, device="cpu") -> dict[str, Tensor]:
        return {k: v.to(dtype=dtype, device=device) for k, v in stack([self.init_one(s) for s in seeds]).items()}

    def pe(self, dtype, device) -> Tensor:
        key = (dtype, str(device))
        if key not in self._pe:
            self._pe[key] = sinusoidal_pe(self.n + 1, self.d).to(dtype=dtype, device=device)
        return self._pe[key]

    def _embed(self, p, x: Tensor, E: Tensor) -> tuple[Tensor, Tensor]:
        pe = self.pe(x.dtype, x.device)
        q = torch.baddbmm(p["emb_b"].unsqueeze(1), x, p["emb_W"]) + pe[0]                 # [G, B, d]
        if E.dim() == 3:                                                                    # shared [G, n, d_in]
            c = torch.baddbmm(p["emb_b"].unsqueeze(1), E, p["emb_W"]) + pe[1:]              # [G, n, d]
        else:                                                                               # [G, B, n, d_in]
            c = (E @ p["emb_W"].unsqueeze(1)) + p["emb_b"][:, None, None] + pe[1:]          # [G, B, n, d]
        return q, c

    def logits(self, p: dict[str, Tensor], batch: dict[str, Tensor]) -> Tensor:
        x, E = batch["x"], batch["E"]
        G, B, _ = x.shape
        H, n, d, dh = self.H, self.n, self.d, self.dh
        if self.impl == "reference":
            q, c = self._embed(p, x, E)
            Wo = p["W_O"].view(G, 1, H, 1, d)
            ctx = c.unsqueeze(1) if c.dim() == 3 else c                                     # [G, 1|B, n, d]
            o = attn.attention(q.unsqueeze(2), ctx, p["W_Q"].unsqueeze(1), p["W_K"].unsqueeze(1),
                               p["W_V"].unsqueeze(-1).unsqueeze(1), Wo, scale=self.scale).squeeze(2)
            return torch.baddbmm(p["dec_b"].unsqueeze(1), o, p["dec_W"])
        pe = self.pe(x.dtype, x.device)
        q = torch.baddbmm(p["emb_b"].unsqueeze(1), x, p["emb_W"]) + pe[0]                  # [G, B, d]
        if E.dim() == 3:
            # shared context: c = E W_emb + b + pe (n rows per model); scores q · (W_Q^h (c W_K^h)^T) with
            # the [d, H n] matrix formed once per step, so one GEMM gives all heads' scores
            c = torch.baddbmm(p["emb_b"].unsqueeze(1), E, p["emb_W"]) + pe[1:]              # [G, n, d]
            Vc = torch.bmm(c, p["W_V"].transpose(1, 2))                                     # [G, n, H]
            Vt = Vc.transpose(1, 2).unsqueeze(1)                                            # [G, 1, H, n]
            K = c.unsqueeze(1) @ p["W_K"]                                                   # [G, H, n, dh]
            M = (p["W_Q"] @ (K.transpose(-1, -2) * self.scale)).transpose(1, 2).reshape(G, d, H * n)
            S = torch.bmm(q, M).view(G, B, H, n)                                            # [G, B, H, n]
        else:
            # per-example contexts: never embed them. With c_i = E_i W_emb + P_i (P = b + pe), the score is
            # q W_Q^h W_K^h^T W_emb^T E_i^T + q W_Q^h (P_i W_K^h)^T: a [d, d_in] matrix per head (formed
            # once per step) then E_i, plus the shared-context form for P; values likewise.
            P = p["emb_b"].unsqueeze(1) + pe[1:]                                             # [G, n, d]
            Kw = p["emb_W"].unsqueeze(1) @ p["W_K"]                                          # [G, H, d_in, dh]
            R = (p["W_Q"] @ (Kw.transpose(-1, -2) * self.scale))                             # [G, H, d, d_in]
            u = torch.bmm(q, R.transpose(1, 2).reshape(G, d, H * self.d_in)).view(G, B, H, self.d_in)
            KP = P.unsqueeze(1) @ p["W_K"]                                                   # [G, H, n, dh]
            MP = (p["W_Q"] @ (KP.transpose(-1, -2) * self.scale)).transpose(1, 2).reshape(G, d, H * n)
            S = (u @ E.transpose(-1, -2)) + torch.bmm(q, MP).view(G, B, H, n)                # [G, B, H, n]
            Wv = torch.bmm(p["emb_W"], p["W_V"].transpose(1, 2))                             # [G, d_in, H]
            VP = torch.bmm(P, p["W_V"].transpose(1, 2))                                      # [G, n, H]
            Vt = ((E @ Wv.unsqueeze(1)) + VP.unsqueeze(1)).transpose(-1, -2)                 # [G, B, H, n]
        heads = softmax_dot(S, Vt)                                                           # [G, B, H]
        o = torch.bmm(heads, p["W_O"])                                                       # [G, B, d]
        return torch.baddbmm(p["dec_b"].unsqueeze(1), o, p["dec_W"])                         # [G, B, C]

    def per_example(self, p, batch) -> tuple[Tensor, Tensor]:
        z = self.logits(p, batch)
        y = batch["y"]
        if self.task == "classification":
            G, B, C = z.shape
            loss = F.cross_entropy(z.reshape(G * B, C), y.reshape(G * B), reduction="none").view(G, B)
            correct = (z.argmax(-1) == y).to(z.dtype)
        else:
            loss = (z[..., 0] - y) ** 2
            correct = torch.zeros_like(loss)
        return loss, correct

    def flops(self, batch_size: int) -> float:
        """Matmul FLOPs of one training step of one model as computed here (fwd + 2× bwd)."""
        B, d, n, H, dh, C, d_in = batch_size, self.d, self.n, self.H, self.dh, self.C, self.d_in
        if self.shared:
            fwd = 2 * (B * d_in * d + n * d_in * d + H * n * d * dh * 2 + B * d * H * n + n * d * H
                       + B * H * n + B * H * d + B * d * C)
        else:   # per example: q W (d_in d), u (d · H d_in), scores (H d_in n + d H n), values (n d_in H)
            fwd = 2 * (B * d_in * d + B * d * H * d_in + B * H * d_in * n + B * d * H * n + B * n * d_in * H
                       + B * H * n + B * H * d + B * d * C)
            fwd += 2 * (H * d_in * d * dh + H * d * dh * d_in + 2 * H * n * d * dh + d_in * d * H + n * d * H)
        return 3.0 * fwd

    def official_flops(self, batch_size: int) -> float:
        """Matmul FLOPs of one step of the official code's math (all n+1 positions attend)."""
        B, d, n, H, dh, C, d_in = batch_size, self.d, self.n, self.H, self.dh, self.C, self.d_in
        m = n + 1
        fwd = 2 * B * (m * d_in * d + 2 * H * m * d * dh + H * m * d + 2 * H * m * m * dh
                       + H * m * m + m * H * d + m * d * C)
        return 3.0 * fwd


class OfficialMHA(nn.Module):
    """One model computing the official MHA-memorization code's math as written: the whole sequence
    ``[query; context]`` is embedded and attends to itself (every position's query row computed), the
    query position masked out of the keys, the output read at position 0. Built from one model's
    parameters of :class:`MHAMemorization` (``params`` without the model axis) so that its weights
    start equal to the family's. Used by tests and as the benchmark's one-model-at-a-time baseline."""

    def __init__(self, fam: MHAMemorization, params: dict[str, Tensor]):
        super().__init__()
        self.fam = fam
        dt = params["W_Q"].dtype
        self.embedding = nn.Linear(fam.d_in, fam.d, dtype=dt)
        self.Wq = nn.Parameter(params["W_Q"].clone())
        self.Wk = nn.Parameter(params["W_K"].clone())
        self.Wv = nn.Parameter(params["W_V"].clone().unsqueeze(-1))         # [H, d, 1]
        self.Wo = nn.Parameter(params["W_O"].clone())                       # [H*1, d]
        self.decoder = nn.Linear(fam.d, fam.C, dtype=dt)
        with torch.no_grad():
            self.embedding.weight.copy_(params["emb_W"].T)
            self.embedding.bias.copy_(params["emb_b"])
            self.decoder.weight.copy_(params["dec_W"].T)
            self.decoder.bias.copy_(params["dec_b"])
        m = fam.n + 1
        self.register_buffer("pe", sinusoidal_pe(m, fam.d).to(params["W_Q"].dtype))
        mask = torch.zeros(m, m, dtype=torch.bool)
        mask[:, 0] = True                                                    # nobody attends to the query
        self.register_buffer("mask", mask)

    def forward(self, X: Tensor) -> Tensor:
        """``X`` ``[B, n+1, d_in]`` (row 0 the query) -> logits ``[B, C]`` at position 0."""
        B, m, _ = X.shape
        h = self.embedding(X) + self.pe[:m]
        Q = h[:, None] @ self.Wq[None]                                        # [B, H, m, dh]
        K = h[:, None] @ self.Wk[None]
        V = h[:, None] @ self.Wv[None]                                        # [B, H, m, 1]
        S = (Q @ K.transpose(2, 3)) / math.sqrt(h.shape[-1])
        S = S.masked_fill(self.mask, float("-inf"))
        out = (torch.softmax(S, -1) @ V).transpose(1, 2).reshape(B, m, -1) @ self.Wo
        return self.decoder(out)[:, 0]

    def export(self) -> dict[str, Tensor]:
        """Parameters in the family's layout (no model axis)."""
        return {"emb_W": self.embedding.weight.detach().T, "emb_b": self.embedding.bias.detach(),
                "W_Q": self.Wq.detach(), "W_K": self.Wk.detach(), "W_V": self.Wv.detach()[..., 0],
                "W_O": self.Wo.detach(), "dec_W": self.decoder.weight.detach().T,
                "dec_b": self.decoder.bias.detach()}


def mha_data(fam: MHAMemorization, sizes: Sequence[int], seeds: Sequence[int], dtype=torch.float32,
             device="cpu") -> FamilyData:
    """Synthetic data of the MHA paper (Sec. 5.2 / App. A), one data set per model: model g draws
    from ``np.random.RandomState(seeds[g])`` its context ``E ~ U[0,1)^{n×d_in}`` (shared) or one per
    example (non-shared, general position), then the queries ``U[0,1)^{T×d_in}``, then the labels
    (uniform over C classes, or ``U[0,1)`` for regression), in the official code's order E, e, y.
    Models of one grid that must see the same data (the paper's H sweep) get the same data seed."""
    if len(sizes) != len(seeds):
        raise ValueError(f"sizes and seeds must have the same length, got {len(sizes)} and {len(seeds)}")
    Tmax = max(sizes)
    G = len(sizes)
    xs = np.zeros((G, Tmax, fam.d_in), dtype=np.float64)
    ys = np.zeros((G, Tmax), dtype=np.int64 if fam.task == "classification" else np.float64)
    Es = np.zeros((G, fam.n, fam.d_in) if fam.shared else (G, Tmax, fam.n, fam.d_in), dtype=np.float64)
    for g, (T, s) in enumerate(zip(sizes, seeds)):
        rs = np.random.RandomState(int(s))
        Es[g, ...] = 0
        if fam.shared:
            Es[g] = rs.uniform(size=(fam.n, fam.d_in))
        else:
            Es[g, :T] = rs.uniform(size=(T, fam.n, fam.d_in))
        xs[g, :T] = rs.uniform(size=(T, fam.d_in))
        ys[g, :T] = rs.randint(fam.C, size=T) if fam.task == "classification" else rs.uniform(size=T)
    t = lambda a: torch.as_tensor(a).to(device=device, dtype=dtype if a.dtype == np.float64 else torch.long)
    ex = {"x": t(xs), "y": t(ys)}
    sh = {}
    if fam.shared:
        sh["E"] = t(Es)
    else:
        ex["E"] = t(Es)
    return FamilyData(ex, sh, torch.as_tensor(list(sizes)))


# ----------------------------------------------------------------------------------------------
# Dana et al.: attention-only Transformer
# ----------------------------------------------------------------------------------------------
class AoTMemorization:
    """G attention-only Transformers (module docstring). ``variant`` "paper" | "official".

    Parameters, paper: ``E [G, N, d]``, ``P [G, S, d]``, ``W_Q, W_K, W_V [G, H, d, dh]``,
    ``W_O [G, H, dh, d]``, ``U [G, d, N]``. Official: ``E [G, N, d]``, ``P [G, S, dh]``,
    ``W_Q, W_K, W_V [G, H, dh, dh]`` (acting on row vectors: ``x W``), ``W_O [G, H, dh, dh]``,
    ``U [G, d, N]``, and with compression ``Cmp [G, d, dh]``, ``Dec [G, dh, d]``.
    Batches: ``t`` ``[G, B, S]`` (int64 tokens), ``y`` ``[G, B]`` (int64 next token).

    Initialisation (both variants, as the official code's torch defaults): E, U, Cmp ``U(±1/sqrt d)``;
    P, W_O, Dec ``U(±1/sqrt dh)``; W_Q, W_K, W_V xavier-uniform of the stacked in-projection
    (bound ``sqrt(6/(fan_in + 3 dh))``, fan_in = d (paper) or dh (official))."""

    def __init__(self, N: int = 50, S: int = 2, d: int = 10, dh: int | None = None, H: int = 1,
                 variant: str = "paper", scale: float | None | str = "default", compress: bool | None = None,
                 impl: str = "fast"):
        if variant not in ("paper", "official"):
            raise ValueError(f"variant = {variant!r}: expected 'paper' or 'official'")
        if min(N, S, d, H) < 1:
            raise ValueError(f"N, S, d, H must be >= 1, got N={N}, S={S}, d={d}, H={H}")
        self.N, self.S, self.d, self.H = N, S, d, H
        self.dh = d if dh is None else dh
        self.variant = variant
        if scale == "default":
            scale = 1.0 / math.sqrt(self.dh) if variant == "official" else None
        self.scale = scale
        self.compress = (d != self.dh) if compress is None else compress
        if variant == "official" and not self.compress and d != self.dh:
            raise ValueError("official variant without compression needs d == dh")
        self.impl = impl
        self.C = N

    @property
    def eval_width(self) -> int:
        """Elements per example of the largest intermediate tensor, for evaluation chunks."""
        k = self.d if self.variant == "paper" else self.dh
        return max(self.H * k * self.S, k * k, self.N)

    def shape_key(self) -> tuple:
        return ("aot", self.variant, self.N, self.S, self.d, self.dh, self.H, self.scale, self.compress)

    def __repr__(self) -> str:
        return (f"AoTMemorization(N={self.N}, S={self.S}, d={self.d}, dh={self.dh}, H={self.H}, "
                f"variant={self.variant!r}, scale={self.scale}, compress={self.compress})")

    def init_one(self, seed: int) -> dict[str, Tensor]:
        g = torch.Generator().manual_seed(int(seed))
        N, S, d, dh, H = self.N, self.S, self.d, self.dh, self.H
        if self.variant == "paper":
            return {"E": _uniform(g, (N, d), 1 / math.sqrt(d)), "P": _uniform(g, (S, d), 1 / math.sqrt(dh)),
                    "W_Q": _xavier(g, (H, d, dh), d, 3 * dh), "W_K": _xavier(g, (H, d, dh), d, 3 * dh),
                    "W_V": _xavier(g, (H, d, dh), d, 3 * dh), "W_O": _uniform(g, (H, dh, d), 1 / math.sqrt(dh)),
                    "U": _uniform(g, (d, N), 1 / math.sqrt(d))}
        p = {"E": _uniform(g, (N, d), 1 / math.sqrt(d)), "P": _uniform(g, (S, dh), 1 / math.sqrt(dh)),
             "W_Q": _xavier(g, (H, dh, dh), dh, 3 * dh), "W_K": _xavier(g, (H, dh, dh), dh, 3 * dh),
             "W_V": _xavier(g, (H, dh, dh), dh, 3 * dh), "W_O": _uniform(g, (H, dh, dh), 1 / math.sqrt(dh)),
             "U": _uniform(g, (d, N), 1 / math.sqrt(d))}
        if self.compress:
            p["Cmp"] = _uniform(g, (d, dh), 1 / math.sqrt(d))
            p["Dec"] = _uniform(g, (dh, d), 1 / math.sqrt(dh))
        return p

    def init(self, seeds: Sequence[int], dtype=torch.float32, device="cpu") -> dict[str, Tensor]:
        return {k: v.to(dtype=dtype, device=device) for k, v in stack([self.init_one(s) for s in seeds]).items()}

    def _heads_input(self, p, t: Tensor) -> tuple[Tensor, Tensor]:
        """(residual at the last position [G, B, d], attention input x [G, B, S, d or dh])."""
        G = t.shape[0]
        res = p["E"][torch.arange(G, device=t.device).view(G, 1, 1), t]                    # [G, B, S, d]
        if self.variant == "paper":
            x = res + p["P"].unsqueeze(1)
            return x[:, :, -1], x
        xin = res @ p["Cmp"].unsqueeze(1) if self.compress else res
        return res[:, :, -1], xin + p["P"].unsqueeze(1)

    def logits(self, p: dict[str, Tensor], batch: dict[str, Tensor]) -> Tensor:
        t = batch["t"]
        r, x = self._heads_input(p, t)                                                     # [G,B,d], [G,B,S,k]
        G, B, S, k = x.shape
        H, dh = self.H, self.dh
        if self.impl == "reference":
            out = attn.attention(x[:, :, -1:], x, p["W_Q"].unsqueeze(1), p["W_K"].unsqueeze(1),
                                 p["W_V"].unsqueeze(1), p["W_O"].unsqueeze(1), scale=self.scale)[:, :, 0]
        elif S == 2:
            # two positions: softmax = sigmoid of the score difference x_2^T W_QK^h (x_2 − x_1), computed
            # as one GEMM of the outer products x_2 ⊗ (x_2 − x_1) with the stacked W_QK^h; the output is
            # x_1 W_VO + Σ_h a_2h (x_2 − x_1) W_VO^h (one GEMM of a_2 ⊗ (x_2 − x_1)). Same math, 1.6× faster.
            x1, x2 = x[:, :, 0], x[:, :, 1]
            D = x2 - x1                                                                    # [G, B, k]
            Wqk = p["W_Q"] @ p["W_K"].transpose(-1, -2)                                    # [G, H, k, k]
            if self.scale is not None:
                Wqk = Wqk * self.scale
            Z = (x2.unsqueeze(-1) * D.unsqueeze(-2)).reshape(G, B, k * k)
            a2 = torch.sigmoid(torch.bmm(Z, Wqk.permute(0, 2, 3, 1).reshape(G, k * k, H)))  # [G, B, H]
            WVO = p["W_V"] @ p["W_O"]                                                      # [G, H, k, k_out]
            out = torch.bmm(x1, WVO.sum(1)) + torch.bmm((a2.unsqueeze(-1) * D.unsqueeze(2)).reshape(G, B, H * k),
                                                        WVO.reshape(G, H * k, -1))
        else:
            # scores x_S^T (W_Q^h W_K^h^T) x_s: u = x_S [W_Q^h W_K^h^T]_h (one GEMM), then u_h · x_s;
            # output Σ_h (Σ_s a_sh x_s) W_V^h W_O^h: the mix, then one GEMM with the stacked W_V^h W_O^h
            xs = x[:, :, -1]                                                               # [G, B, k]
            Wqk = p["W_Q"] @ p["W_K"].transpose(-1, -2)                                    # [G, H, k, k]
            if self.scale is not None:
                Wqk = Wqk * self.scale
            u = torch.bmm(xs, Wqk.transpose(1, 2).reshape(G, k, H * k)).view(G, B, H, k)
            sc = torch.stack([(u * x[:, :, s].unsqueeze(2)).sum(-1) for s in range(S)], 2)  # [G, B, S, H]
            a = torch.softmax(sc, dim=2)
            mix = a[:, :, 0].unsqueeze(-1) * x[:, :, 0].unsqueeze(2)
            for s in range(1, S):
                mix = mix + a[:, :, s].unsqueeze(-1) * x[:, :, s].unsqueeze(2)             # [G, B, H, k]
            WVO = (p["W_V"] @ p["W_O"]).reshape(G, H * k, -1)                              # [G, H k, k_out]
            out = torch.bmm(mix.reshape(G, B, H * k), WVO)
        if self.variant == "official" and self.compress:
            out = torch.bmm(out, p["Dec"])
        return torch.bmm(r + out, p["U"])                                                  # [G, B, N]

    def per_example(self, p, batch) -> tuple[Tensor, Tensor]:
        z = self.logits(p, batch)
        y = batch["y"]
        G, B, C = z.shape
        loss = F.cross_entropy(z.reshape(G * B, C), y.reshape(G * B), reduction="none").view(G, B)
        return loss, (z.argmax(-1) == y).to(z.dtype)

    def flops(self, batch_size: int) -> float:
        B, S, d, dh, H, N = batch_size, self.S, self.d, self.dh, self.H, self.N
        k = d if self.variant == "paper" else dh
        kout = d if self.variant == "paper" or not self.compress else dh
        # per example: u = x_S W_QK (k·Hk), scores (S·H·k), mix (S·H·k), mix·W_VO (Hk·k_out), unembed (d·N);
        # for S = 2: outer product (k²), its GEMM (k²·H), x_1 W_VO (k·k_out), (a ⊗ D) W_VO (Hk·k_out), unembed
        if S == 2:
            fwd = 2 * B * (k * k / 2 + k * k * H + k * kout + H * k / 2 + H * k * kout + d * N)
        else:
            fwd = 2 * B * (k * H * k + 2 * S * H * k + H * k * kout + d * N)
        fwd += 2 * H * (k * dh * k + k * dh * kout)              # W_Q W_K^T and W_V W_O, once per step
        if self.variant == "official" and self.compress:
            fwd += 2 * B * (S * d * dh + dh * d)
        return 3.0 * fwd


class OfficialAoT(nn.Module):
    """One AoT computed as a plain module: per head ``W_Q, W_K, W_V, W_O`` applied as written (all S
    query rows computed, causal mask), the same math as ``AoTMemorization`` (either variant). Built
    from one model's parameters; used as a one-model-at-a-time baseline and in tests."""

    def __init__(self, fam: AoTMemorization, params: dict[str, Tensor]):
        super().__init__()
        self.fam = fam
        self.p = nn.ParameterDict({k: nn.Parameter(v.clone()) for k, v in params.items()})
        S = fam.S
        self.register_buffer("causal", torch.triu(torch.ones(S, S, dtype=torch.bool), 1))

    def forward(self, t: Tensor) -> Tensor:
        """``t`` ``[B, S]`` -> logits ``[B, N]`` at the last position."""
        p, fam = self.p, self.fam
        res = p["E"][t]                                                                    # [B, S, d]
        if fam.variant == "paper":
            x = res + p["P"]
            skip = x
        else:
            x = (res @ p["Cmp"] if fam.compress else res) + p["P"]
            skip = res
        Q = x[:, None] @ p["W_Q"]                                                           # [B, H, S, dh]
        K = x[:, None] @ p["W_K"]
        V = x[:, None] @ p["W_V"]
        sc = Q @ K.transpose(2, 3)
        if fam.scale is not None:
            sc = sc * fam.scale
        a = torch.softmax(sc.masked_fill(self.causal, float("-inf")), -1)
        out = ((a @ V) @ p["W_O"]).sum(1)                                                  # [B, S, k]
        if fam.variant == "official" and fam.compress:
            out = out @ p["Dec"]
        return ((skip + out) @ p["U"])[:, -1]

    def export(self) -> dict[str, Tensor]:
        return {k: v.detach() for k, v in self.p.items()}


def aot_data(fam: AoTMemorization, n_samples: int | Sequence[int], seeds: Sequence[int], device="cpu") -> FamilyData:
    """The association task of Dana et al. (uniform prior, random look-up table), one per model:
    model g draws, from ``np.random.RandomState(seeds[g])``, a table ``g: [N]^S -> [N]`` (uniform),
    then a fixed training set of ``n_samples`` sequences sampled uniformly with replacement (the
    official code's fixed data set, reshuffled each epoch by the trainer). The table is returned in
    ``shared["table"]`` ``[G, N^S]`` for full-table evaluation (:func:`aot_table`)."""
    G = len(seeds)
    ns = [int(n_samples)] * G if np.isscalar(n_samples) else [int(v) for v in n_samples]
    Tmax = max(ns)
    NS = fam.N ** fam.S
    tab = np.zeros((G, NS), dtype=np.int64)
    toks = np.zeros((G, Tmax, fam.S), dtype=np.int64)
    ys = np.zeros((G, Tmax), dtype=np.int64)
    for g, s in enumerate(seeds):
        rs = np.random.RandomState(int(s))
        tab[g] = rs.randint(fam.N, size=NS)
        seq = rs.randint(NS, size=ns[g])
        toks[g, : ns[g]] = np.stack(np.unravel_index(seq, (fam.N,) * fam.S), -1)
        ys[g, : ns[g]] = tab[g, seq]
    dev = lambda a: torch.as_tensor(a).to(device)
    return FamilyData({"t": dev(toks), "y": dev(ys)}, {"table": dev(tab)}, torch.as_tensor(ns))


def aot_table(fam: AoTMemorization, data: FamilyData) -> FamilyData:
    """Every sequence of ``[N]^S`` with its target under each model's table: the full-table evaluation
    set (uniform prior: full-table accuracy = memorised fraction of the T0 = N^S associations)."""
    tab = data.shared["table"]
    G, NS = tab.shape
    allseq = torch.stack(torch.meshgrid(*[torch.arange(fam.N)] * fam.S, indexing="ij"), -1).reshape(NS, fam.S)
    return FamilyData({"t": allseq.to(tab.device).expand(G, NS, fam.S).contiguous(), "y": tab.clone()})
