"""Experiments 1-6 of Dana et al. on the shared sweep engine (:mod:`lib.family`, :mod:`lib.train`).

The engine trains a *family* of G models of one shape in one batched computation. The paper's grids
vary the number of heads H, so this module adds a per-model **head mask**: a family is built with
``H_max`` heads and model g uses only its first ``H_g`` (the masked heads' ``W_O^h`` is multiplied by 0,
so they contribute nothing and receive zero gradients; Adam leaves them at their initial values). The
mask travels with the data (``shared["hmask"]``), so the engine's family compaction keeps it aligned.
For Experiment 5 the MLP Transformer (one head with d_h = d, then ``x + W_2 GELU(W_1 x + b_1)``) is a
subclass with a per-model **width mask** in the same way.

Recipe (the official v2 code as it really runs, research note §4.3): Adam (0.9, 0.999, 1e-8), a fixed
training set of ``batches_per_epoch × batch`` sequences sampled once, reshuffled every epoch, the
learning rate linear *per epoch* from 1e-2 to 5e-4 (the code passes learning rates as LinearLR's
factors: 0.1 × 0.1 → 0.1 × 0.005); one look-up table and data set per experiment, shared by every
configuration and repetition, repetitions differing by initialisation and batch order. Reported:
the running accuracy over the last 100 training batches (the official metric) and the full-table
accuracy under the uniform prior (the paper's definition, Corollary 2).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from . import family, train


class MaskedAoT(family.AoTMemorization):
    """An AoT family with ``H`` = the largest head count; ``batch["hmask"]`` ``[G, H]`` selects heads."""

    def logits(self, p, batch):
        q = dict(p)
        q["W_O"] = p["W_O"] * batch["hmask"].to(p["W_O"].dtype)[:, :, None, None]
        return super().logits(q, batch)

    def residual(self, p, batch):
        """The sequence embedding before the unembedding, ``[G, B, d]`` (the parent with U = I)."""
        q = dict(p)
        G = p["U"].shape[0]
        q["U"] = torch.eye(self.d, dtype=p["U"].dtype, device=p["U"].device).expand(G, self.d, self.d)
        return MaskedAoT.logits(self, q, batch)


class MLPTransformer(MaskedAoT):
    """One attention head (d_h = d) followed by one GELU MLP of width ``w`` (mask ``batch["wmask"]``
    ``[G, w]``) with a residual connection, then the unembedding (the paper's §4.2.1 model; the
    official code's W_1 has a bias and W_2 none)."""

    def __init__(self, *args, width: int = 1, **kw):
        super().__init__(*args, **kw)
        self.width = width

    def init_one(self, seed: int):
        p = super().init_one(seed)
        g = torch.Generator().manual_seed(int(seed) + 7919)
        d, w = self.d, self.width
        u = lambda shape, b: (torch.rand(*shape, generator=g, dtype=torch.float64) * 2 - 1) * b
        p.update(W1=u((d, w), 1 / math.sqrt(d)), b1=u((w,), 1 / math.sqrt(d)), W2=u((w, d), 1 / math.sqrt(w)))
        return p

    def logits(self, p, batch):
        r = self.residual(p, batch)                                                # [G, B, d]
        m = batch["wmask"].to(r.dtype)[:, None, :]
        h = F.gelu(torch.bmm(r, p["W1"]) + p["b1"][:, None, :]) * m
        r = r + torch.bmm(h, p["W2"])
        return torch.bmm(r, p["U"])


@dataclass(frozen=True)
class Recipe:
    """Training hyper-parameters (defaults: the official v2 recipe; ``steps = epochs × batches``)."""
    batch: int = 256
    batches_per_epoch: int = 64
    epochs: int = 64
    lr: float = 1e-2
    lr_end: float = 5e-4
    running_window: int = 100

    @property
    def steps(self) -> int:
        return self.batches_per_epoch * self.epochs


def _with_masks(data: family.FamilyData, hmask: torch.Tensor, wmask: torch.Tensor | None) -> family.FamilyData:
    sh = dict(data.shared)
    sh["hmask"] = hmask
    if wmask is not None:
        sh["wmask"] = wmask
    return family.FamilyData(data.examples, sh, data.sizes)


def train_grid(N: int, configs: Sequence[tuple], reps: int, recipe: Recipe, *, variant: str = "official",
               data_seed: int = 2222, S: int = 2, mlp: bool = False, device="cpu", dtype=torch.float32) -> list[dict]:
    """Train every configuration ``(d, d_h, H)`` (or ``(d, d_h, H, width)`` with ``mlp=True``) ``reps``
    times on one random look-up table over ``[N]^S``. Configurations sharing (d, d_h) form one family.
    Returns one record per (config, rep): d, d_h, H, width, rep, running_acc, table_acc, seconds."""
    out: list[dict] = []
    groups: dict[tuple, list] = {}
    for c in configs:
        groups.setdefault(tuple(c[:2]), []).append(c)
    for (d, dh), cs in groups.items():
        Hmax = max(c[2] for c in cs)
        wmax = max(c[3] for c in cs) if mlp else 0
        cls = MLPTransformer if mlp else MaskedAoT
        kw = dict(width=max(wmax, 1)) if mlp else {}
        fam = cls(N=N, S=S, d=d, dh=dh, H=Hmax, variant=variant, **kw)
        members = [(c, r) for c in cs for r in range(reps)]
        G = len(members)
        # init seeds: a hash of (config, rep), so a model's initialisation does not depend on the grid
        seeds = [int(abs(hash_cfg(data_seed, variant, mlp, c, r))) for c, r in members]
        data = family.aot_data(fam, recipe.batch * recipe.batches_per_epoch, [data_seed] * G)
        hmask = torch.zeros(G, Hmax)
        wmask = torch.zeros(G, max(wmax, 1)) if mlp else None
        for g, (c, r) in enumerate(members):
            hmask[g, : c[2]] = 1
            if mlp:
                wmask[g, : c[3]] = 1
        data = _with_masks(data, hmask, wmask)
        table = _with_masks(family.aot_table(fam, data), hmask, wmask)
        t0 = time.perf_counter()
        res = train.train_family(fam, data, seeds=seeds, steps=recipe.steps, lr=recipe.lr, schedule="linear",
                                 lr_end=recipe.lr_end, per_epoch=recipe.batches_per_epoch,
                                 batch_size=recipe.batch, running_window=recipe.running_window,
                                 eval_data=table, device=device, dtype=dtype)
        dt = time.perf_counter() - t0
        for (c, r), rr in zip(members, res):
            out.append(dict(d=d, d_h=dh, H=c[2], width=c[3] if mlp else 0, rep=r, variant=variant, mlp=mlp,
                            running_acc=rr["running_acc"], table_acc=rr["eval_acc"], seconds=dt / G))
    return out


def hash_cfg(*parts) -> int:
    """A stable 31-bit seed from any printable parts (Python's hash() is salted per process)."""
    import zlib
    return zlib.crc32(repr(parts).encode()) & 0x7FFFFFFF


def mean_over_reps(records: list[dict], key: str, by: Sequence[str]) -> dict[tuple, tuple[float, float]]:
    """{config key: (mean, std over repetitions)} of ``key``."""
    acc: dict[tuple, list] = {}
    for r in records:
        acc.setdefault(tuple(r[b] for b in by), []).append(r[key])
    return {k: (float(np.mean(v)), float(np.std(v))) for k, v in acc.items()}


# ---------------------------------------------------------------------------------------------
# fits (the authors' rules, research note E11)
# ---------------------------------------------------------------------------------------------
def truncate_saturated(x, y, level: float = 0.95):
    """Points up to (excluding) the first with accuracy > level, as the official fitting scripts do."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    over = np.nonzero(y > level)[0]
    n = over[0] if len(over) else len(y)
    return x[:n], y[:n]


def linfit(x, y) -> tuple[float, float, float]:
    """Least squares y = a x + b; returns (a, b, R^2)."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    A = np.stack([x, np.ones_like(x)], 1)
    (a, b), *_ = np.linalg.lstsq(A, y, rcond=None)
    ss = ((y - y.mean()) ** 2).sum()
    r2 = 1 - ((y - A @ [a, b]) ** 2).sum() / ss if ss > 0 else 1.0
    return float(a), float(b), float(r2)


def powfit(x, y, k: float) -> tuple[float, float, float]:
    """Least squares y = a x^k + b; returns (a, b, R^2)."""
    return linfit(np.asarray(x, float) ** k, y)


def slope_ratio(slope: float, N: int, T0: int, d_h: int) -> float:
    """Empirical associations per head over the bound's d_h per head: slope T0 / ((1 - 1/N) d_h)."""
    return slope * T0 / ((1 - 1 / N) * d_h)


# ---------------------------------------------------------------------------------------------
# The chapter's experiment plan (one place that turns parameters into grids, for the notebook,
# the cost estimate and the benchmark)
# ---------------------------------------------------------------------------------------------
def plan(P: dict) -> dict[str, dict]:
    """Every training grid of the chapter from its parameters: name -> dict(N, configs, reps, recipe,
    variant, mlp). Experiment 4 reuses Experiment 1; Experiment 5 reuses Experiment 1's AoT runs when
    its vocabulary and recipe are the same."""
    R = Recipe(batch=P["batch"], batches_per_epoch=P["batches_per_epoch"], epochs=P["epochs"],
               lr=P["lr"], lr_end=P["lr_end"])
    out = {"exp1": dict(N=P["train_N"], configs=[(d, d, H) for d in P["exp1_d"] for H in P["exp1_H"]],
                        reps=P["reps"], recipe=R, variant=P["exp1_variant"], mlp=False)}
    for v in P["variants"]:
        out[f"exp2_{v}"] = dict(N=P["train_N"], configs=[(P["exp2_d"], dh, P["exp2_H"]) for dh in P["exp2_dh"]],
                                reps=P["reps"], recipe=R, variant=v, mlp=False)
        out[f"exp3_{v}"] = dict(N=P["train_N"], configs=[(d, P["exp3_dh"], P["exp3_H"]) for d in P["exp3_d"]],
                                reps=P["reps"], recipe=R, variant=v, mlp=False)
    R5 = Recipe(batch=P["exp5_batch"], batches_per_epoch=P["exp5_batches_per_epoch"], epochs=P["epochs"],
                lr=P["lr"], lr_end=P["lr_end"])
    R5m = Recipe(batch=P["exp5_batch"], batches_per_epoch=P["exp5_batches_per_epoch"], epochs=P["epochs"],
                 lr=P["lr"], lr_end=P["exp5_lr_end_mlp"])
    reuse = (P["exp5_N"] == P["train_N"] and R5 == R and P["exp1_variant"] == "official"
             and all(d in P["exp1_d"] for d in P["exp5_d"]) and all(H in P["exp1_H"] for H in P["exp5_H"]))
    if not reuse:
        out["exp5_aot"] = dict(N=P["exp5_N"], configs=[(d, d, H) for d in P["exp5_d"] for H in P["exp5_H"]],
                               reps=P["reps"], recipe=R5, variant="official", mlp=False)
    out["exp5_mlp"] = dict(N=P["exp5_N"], configs=[(d, d, 1, 2 * d * (H - 1)) for d in P["exp5_d"] for H in P["exp5_H"]],
                           reps=P["reps"], recipe=R5m, variant="official", mlp=True)
    R6 = Recipe(batch=P["exp6_batch"], batches_per_epoch=P["batches_per_epoch"], epochs=P["exp6_epochs"],
                lr=P["lr"], lr_end=P["lr_end"])
    out["exp6"] = dict(N=P["exp6_N"], configs=[(2, 2, H) for H in P["exp6_H"]], reps=P["exp6_reps"],
                       recipe=R6, variant="official", mlp=False)
    return out


def plan_flops(grid: dict) -> float:
    """Matmul FLOPs of a grid as the engine runs it (families padded to their largest H and width)."""
    groups: dict[tuple, list] = {}
    for c in grid["configs"]:
        groups.setdefault(tuple(c[:2]), []).append(c)
    tot = 0.0
    R = grid["recipe"]
    for (d, dh), cs in groups.items():
        fam = family.AoTMemorization(N=grid["N"], d=d, dh=dh, H=max(c[2] for c in cs), variant=grid["variant"])
        f = fam.flops(R.batch)
        if grid["mlp"]:
            f += 3 * 2 * R.batch * 2 * d * max(c[3] for c in cs)
        tot += f * len(cs) * grid["reps"] * R.steps
    return tot


def calibrate(device="cpu", steps: int = 32) -> float:
    """Measured FLOP/s of the engine on a mid-sized AoT family (for the cost estimate)."""
    grid = dict(N=20, configs=[(6, 6, 5)] * 4, reps=1, recipe=Recipe(batch=128, batches_per_epoch=steps, epochs=1),
                variant="official", mlp=False)
    t0 = time.perf_counter()
    train_grid(20, grid["configs"][:1] * 1, 4, grid["recipe"], device=device)
    dt = time.perf_counter() - t0
    g1 = dict(grid, configs=grid["configs"][:1], reps=4)
    return plan_flops(g1) / dt


def run_plan(P: dict, device="cpu", only: Sequence[str] | None = None, log=print) -> dict[str, list[dict]]:
    """Train every grid of :func:`plan` (or those named in ``only``); returns name -> records.
    Grids that share the vocabulary, recipe, model and repetitions are pooled and every distinct
    configuration is trained once (Exp. 2 and 3 share a point, and both share points with Exp. 1)."""
    pl = {k: g for k, g in plan(P).items() if only is None or k in only}
    pools: dict[tuple, list] = {}
    for g in pl.values():
        key = (g["N"], g["recipe"], g["variant"], g["mlp"], g["reps"])
        lst = pools.setdefault(key, [])
        lst.extend(tuple(c) for c in g["configs"] if tuple(c) not in lst)
    trained: dict[tuple, dict] = {}
    for key, cfgs in pools.items():
        N, R, variant, mlp, reps = key
        t0 = time.perf_counter()
        recs = train_grid(N, cfgs, reps, R, variant=variant, mlp=mlp, data_seed=P["data_seed"], device=device)
        for r in recs:
            c = (r["d"], r["d_h"], r["H"], r["width"]) if mlp else (r["d"], r["d_h"], r["H"])
            trained[(key, c, r["rep"])] = r
        log(f"{variant} {'MLP ' if mlp else ''}models, N = {N}, {R.steps} steps: {len(recs)} runs in "
            f"{time.perf_counter() - t0:.1f} s")
    return {name: [trained[((g["N"], g["recipe"], g["variant"], g["mlp"], g["reps"]), tuple(c), rep)]
                   for c in g["configs"] for rep in range(g["reps"])] for name, g in pl.items()}
