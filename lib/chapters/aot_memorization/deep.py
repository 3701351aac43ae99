"""Appendix B.2 (v2): deeper attention-only Transformers, as a family of the sweep engine.

The engine trains any object with :mod:`lib.engine.family`'s interface (``init``, ``init_one``, ``logits``,
``per_example``, ``flops``, ``shape_key``, ``eval_width``), so the depth path lives here, in the chapter, and
:func:`lib.engine.train.train_family` trains it unchanged. :class:`DeepAoT` stacks L layers of eqs. (1)-(2):

    x^0_s = e(t_s) + p_s,   x^{l+1}_s = x^l_s + sum_h sum_{s' <= s} softmax_{s'}(x^l_s W_Q^{l,h} (x^l_{s'} W_K^{l,h})^T) x^l_{s'} W_V^{l,h} W_O^{l,h},

and the logits are x^L_S U. Every position is computed at every layer (causal mask), since deeper layers read
the earlier positions' updated residuals; at L = 1 only x^1_S matters and the model is the chapter's eq. (2)
AoT (``AoTMemorization(variant="paper")``, checked in tests/test_aot.py). Initialisation follows that model's,
layer by layer. The v2 code's depth runs use 3 layers (its text says 5).
"""
from __future__ import annotations

import math
import time
from typing import Sequence

import numpy as np
import torch
from torch import Tensor

from lib.chapters.aot_memorization import model as aot_model
from lib.chapters.aot_memorization import train as AT
from lib.core import attention as attn
from lib.core.repro import seed_hash
from lib.engine import train
from lib.engine.family import _uniform, _xavier, stack


class DeepAoT:
    """G attention-only Transformers of L layers (module docstring). Parameters: ``E [G, N, d]``,
    ``P [G, S, d]``, ``W_Q, W_K, W_V [G, L, H, d, dh]``, ``W_O [G, L, H, dh, d]``, ``U [G, d, N]``.
    Batches: ``t`` ``[G, B, S]`` (int64 tokens), ``y`` ``[G, B]``."""

    def __init__(self, N: int, S: int = 2, d: int = 4, dh: int | None = None, H: int = 1, L: int = 1):
        if min(N, S, d, H, L) < 1:
            raise ValueError(f"N, S, d, H, L must be >= 1, got {N}, {S}, {d}, {H}, {L}")
        self.N, self.S, self.d, self.H, self.L = N, S, d, H, L
        self.dh = d if dh is None else dh
        self.C = N

    @property
    def eval_width(self) -> int:
        return max(self.H * self.S * self.S, self.H * self.S * self.dh, self.N)

    def shape_key(self) -> tuple:
        return ("deep-aot", self.N, self.S, self.d, self.dh, self.H, self.L)

    def init_one(self, seed: int) -> dict[str, Tensor]:
        g = torch.Generator().manual_seed(int(seed))
        N, S, d, dh, H, L = self.N, self.S, self.d, self.dh, self.H, self.L
        p = {"E": _uniform(g, (N, d), 1 / math.sqrt(d)), "P": _uniform(g, (S, d), 1 / math.sqrt(dh))}
        layers = [{"W_Q": _xavier(g, (H, d, dh), d, 3 * dh), "W_K": _xavier(g, (H, d, dh), d, 3 * dh),
                   "W_V": _xavier(g, (H, d, dh), d, 3 * dh), "W_O": _uniform(g, (H, dh, d), 1 / math.sqrt(dh))}
                  for _ in range(L)]
        p.update({k: torch.stack([lay[k] for lay in layers]) for k in ("W_Q", "W_K", "W_V", "W_O")})
        p["U"] = _uniform(g, (d, N), 1 / math.sqrt(d))
        return p

    def init(self, seeds: Sequence[int], dtype=torch.float32, device="cpu") -> dict[str, Tensor]:
        return {k: v.to(dtype=dtype, device=device) for k, v in stack([self.init_one(s) for s in seeds]).items()}

    def logits(self, p: dict[str, Tensor], batch: dict[str, Tensor]) -> Tensor:
        t = batch["t"]
        G = t.shape[0]
        x = p["E"][torch.arange(G, device=t.device).view(G, 1, 1), t] + p["P"].unsqueeze(1)   # [G, B, S, d]
        mask = torch.tril(torch.ones(self.S, self.S, dtype=torch.bool, device=t.device))
        for layer in range(self.L):
            w = {k: p[k][:, layer].unsqueeze(1) for k in ("W_Q", "W_K", "W_V", "W_O")}       # [G, 1, H, ., .]
            x = x + attn.attention(x, x, w["W_Q"], w["W_K"], w["W_V"], w["W_O"], mask=mask)
        return torch.bmm(x[:, :, -1], p["U"])                                                 # [G, B, N]

    per_example = aot_model.AoTMemorization.per_example      # cross-entropy and accuracy of self.logits

    def flops(self, batch_size: int) -> float:
        B, S, d, dh, H, L, N = batch_size, self.S, self.d, self.dh, self.H, self.L, self.N
        per_layer = S * H * (3 * d * dh + 2 * S * dh + dh * d)       # Q, K, V, scores, mix, W_O
        return 3.0 * 2 * B * (L * per_layer + d * N)


def train_points(points: list[dict], report, recipe: dict, data_seed: int, device="cpu") -> None:
    """:func:`lib.engine.sweep.run`'s training function for :class:`DeepAoT`: a unit's points
    ``dict(N, d, H, L, rep)`` share (N, d, H, L) (``group_by``) and train as one family on the chapter's
    task (:func:`~lib.chapters.aot_memorization.model.aot_data`, one look-up table of seed ``data_seed``)
    with the recipe of :class:`~lib.chapters.aot_memorization.train.Recipe`'s fields."""
    p0, R = points[0], AT.Recipe(**recipe)
    fam = DeepAoT(N=p0["N"], d=p0["d"], H=p0["H"], L=p0["L"])
    seeds = [seed_hash(data_seed, "deep", p["L"], p["d"], p["H"], p["rep"]) for p in points]
    data = aot_model.aot_data(fam, R.batch * R.batches_per_epoch, [data_seed] * len(points))
    table = aot_model.aot_table(fam, data)
    res = train.train_family(fam, data, seeds=seeds, steps=R.steps, lr=R.lr, schedule="linear", lr_end=R.lr_end,
                             per_epoch=R.batches_per_epoch, batch_size=R.batch, running_window=R.running_window,
                             eval_data=table, device=device, progress=getattr(report, "progress", None))
    for p, r in zip(points, res, strict=True):
        report(p, dict(running_acc=float(r["running_acc"]), table_acc=float(r["eval_acc"])))



# ----------------------------------------------------------------------------------------------
# Appendix B.2 at a small scale: Fig. 8's setting (Exp. 1 with depth) on the book preset's task
# ----------------------------------------------------------------------------------------------
# The v2 CSVs of Fig. 8 (`Data_exp_1_{d}_depth.csv` of the official repository, 3 layers, N = 70): accuracy at
# H = 1, 5, ..., 21 heads per layer, d = d_h. Their one-layer counterparts are Exp. 5's AoT curves (construction.PAPER).
PAPER_DEPTH_H = (1, 5, 9, 13, 17, 21)
PAPER_DEPTH = {7: (0.0659, 0.1136, 0.1520, 0.1966, 0.2396, 0.2943),
               10: (0.0876, 0.1769, 0.2886, 0.3832, 0.4639, 0.5434),
               13: (0.1138, 0.2880, 0.4343, 0.5863, 0.6956, 0.7695)}


def depth_grid(N: int, ds: Sequence[int], Hs: Sequence[int], Ls: Sequence[int], reps: int, recipe: dict,
               data_seed: int, device="cpu") -> list[dict]:
    """Train :class:`DeepAoT` (d = d_h) at every (d, H, L) with ``reps`` seeds each, by :func:`train_points` (one
    family per (d, H, L)) on the chapter's task of vocabulary ``N``. One record per model: ``dict(N, d, H, L, rep,
    running_acc, table_acc, cpu_s)``, ``cpu_s`` the process CPU time of its family divided by ``reps``."""
    out: list[dict] = []
    for L in Ls:
        for d in ds:
            for H in Hs:
                got: list[dict] = []
                c0 = time.process_time()
                train_points([dict(N=N, d=d, H=H, L=L, rep=r) for r in range(reps)],
                             lambda p, r, got=got: got.append(dict(p, **r)), recipe, data_seed, device=device)
                cpu = (time.process_time() - c0) / reps
                out.extend(dict(g, cpu_s=cpu) for g in got)
    return out


def accs(recs: list[dict], key: str = "table_acc", **at) -> list[float]:
    """``key`` of every seed of the records matching ``at`` (e.g. ``d=4, H=3, L=1``), in seed order."""
    return [r[key] for r in sorted(recs, key=lambda r: r["rep"]) if all(r[k] == v for k, v in at.items())]


def agree(a: Sequence[float], b: Sequence[float], floor: float = 0.05) -> tuple[float, float]:
    """The difference of two models' seed means, ``mean(a) - mean(b)``, and the tolerance it is judged by:
    ``max(floor, 2 SE)``, SE the standard error of that difference from the seeds' sample variances (``floor``
    alone with one seed). "Similar" is ``abs(diff) <= tol``."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    diff = float(a.mean() - b.mean())
    if min(len(a), len(b)) < 2:
        return diff, floor
    se = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
    return diff, max(floor, 2 * se)


def plot_depth(ax, recs: list[dict], ds: Sequence[int], Hs: Sequence[int], L: int, N: int) -> None:
    """Accuracy (full table, seed mean and the seeds) against heads per layer: one layer solid, L layers dashed."""
    from lib.core import plots
    for i, d in enumerate(ds):
        for depth, ls, mk in ((1, "-", "o"), (L, "--", "s")):
            seeds = [accs(recs, d=d, H=H, L=depth) for H in Hs]
            ax.plot(Hs, [float(np.mean(a)) for a in seeds], color=plots.COLORS[i], ls=ls, marker=mk,
                    label=f"d = d_h = {d}, {depth} layer{'s' * (depth > 1)}")
            for H, a in zip(Hs, seeds, strict=True):
                ax.scatter([H] * len(a), a, color=plots.COLORS[i], s=6)
    ax.axhline(1 / N, color="#57606a", lw=0.6)
    ax.set(xlabel="heads per layer H", ylabel="accuracy (full table)", ylim=(0, 1.05), xticks=list(Hs),
           title=f"App. B.2 at N = {N}: 1 vs {L} layers")
    ax.legend(fontsize=8)
