"""The trained model of Mahdavi, Liao & Thrampoulidis (ICLR 2024), as a family for the engine.

``MHAMemorization``  (the model of the paper's official code)
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
    scores and values are re-associated through the embedding matrix.

``OfficialMHA`` is a one-model ``nn.Module`` that computes the official code's math as it is written
(whole context attended, masked), for equivalence tests and the benchmark's baseline. ``impl="reference"``
computes the family with :func:`lib.core.attention.attention` (slower); ``tests/test_train.py`` checks that
the fast path equals both. ``mha_data`` draws a family's data from per-model seeds. The family interface
is described in :mod:`lib.engine.family`.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from lib.core import attention as attn
from lib.engine.family import FamilyData, _uniform, _xavier, sinusoidal_pe, stack
from lib.engine.kernels import softmax_dot


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
    math with :func:`lib.core.attention.attention` (tests compare the two)."""

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
        H, n, d = self.H, self.n, self.d
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
    real = np.float32 if dtype == torch.float32 else np.float64      # the float64 draws, rounded once on storing
    xs = np.zeros((G, Tmax, fam.d_in), dtype=real)
    ys = np.zeros((G, Tmax), dtype=np.int64 if fam.task == "classification" else real)
    Es = np.zeros((G, fam.n, fam.d_in) if fam.shared else (G, Tmax, fam.n, fam.d_in), dtype=real)
    for g, (T, s) in enumerate(zip(sizes, seeds, strict=False)):
        rs = np.random.RandomState(int(s))
        Es[g, ...] = 0
        if fam.shared:
            Es[g] = rs.uniform(size=(fam.n, fam.d_in))
        else:
            Es[g, :T] = rs.uniform(size=(T, fam.n, fam.d_in))
        xs[g, :T] = rs.uniform(size=(T, fam.d_in))
        ys[g, :T] = rs.randint(fam.C, size=T) if fam.task == "classification" else rs.uniform(size=T)
    t = lambda a: torch.as_tensor(a).to(device=device, dtype=torch.long if a.dtype == np.int64 else dtype)
    ex = {"x": t(xs), "y": t(ys)}
    sh = {}
    if fam.shared:
        sh["E"] = t(Es)
    else:
        ex["E"] = t(Es)
    return FamilyData(ex, sh, torch.as_tensor(list(sizes)))
