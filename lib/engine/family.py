"""Families of small models with stacked parameters: G independent models, one computation.

A *family* is G models of one architecture whose parameters are stored stacked, every tensor with a
leading model axis ``G``. One forward pass computes all G models on their own batches (data tensors
also carry the leading ``G``), and because the models share no parameter, the gradient of the *sum*
of their losses is each model's own gradient. :func:`lib.engine.train.train_family` trains a family.
The chapters define the families themselves (``lib.chapters.mha_memorization.model.MHAMemorization``,
``lib.chapters.aot_memorization.model.AoTMemorization``); this module holds what every family shares.

Every family has the same small interface (what :mod:`lib.engine.train` uses):

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

Example (a family of 4 MHA models, 2 dataset sizes × 2 seeds)::

    from lib.engine import train
    from lib.chapters.mha_memorization import model
    fam = model.MHAMemorization(d=64, n=32, H=20)
    data = model.mha_data(fam, sizes=[1000, 1000, 2000, 2000], seeds=[0, 1, 0, 1])
    res = train.train_family(fam, data, seeds=[0, 1, 0, 1], steps=2000, lr=1e-3,
                             schedule="warmup_cosine", early_stop_acc=1.0, eval_every=500)
    [r["best_acc"] for r in res]
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Sequence

import torch
from torch import Tensor


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
