"""Train a family of G independent small models in one batched computation.

``train_family(fam, data, seeds=..., steps=..., lr=...)`` trains the G models of a family
(:mod:`lib.family`) together: one forward/backward pass over stacked parameters per step, one
batched Adam update. Each model keeps everything that makes it *itself*:

* its **seed**: model g's initial weights come from ``fam.init_one(seeds[g])`` and its batch order
  from its own generator seeded with ``batch_seeds[g]`` (default ``seeds[g]``), so a model trains the
  same whether it is alone or in a family of 64, at any position (tests/test_train.py checks this);
* its **data**: ``data`` holds one data set per model (``FamilyData``; sizes may differ);
* its **learning-rate schedule**: ``lr`` and ``steps`` may be per-model lists; the schedule shape is
  one of "constant", "warmup_cosine" (the official MHA code: ``LinearLR`` from 0.01× over
  ``steps // 20`` steps, then cosine to 0), "linear" (linear from ``lr`` to ``lr_end`` across
  ``steps``, held per epoch when ``per_epoch`` is given: the official AoT code's per-epoch
  ``LinearLR``), or a callable ``f(step: ndarray[G], total: ndarray[G]) -> factor ndarray[G]``;
* its **stopping**: it stops at its own ``steps``, or earlier when its accuracy on its training set
  (evaluated every ``eval_every`` steps, as the official MHA code does every 500, and at the model's
  last step) reaches ``early_stop_acc``. A stopped model's weights are frozen; when at most half the family is still
  running, the family is compacted (stopped models leave the batched computation).

Optimiser: Adam, the same update as ``torch.optim.Adam`` (bias-corrected; ``betas``, ``eps``), with a
per-model learning rate. Batches: each model draws its examples from a stream of random permutations
of its training set (one permutation per epoch, batches may straddle epochs; no example is dropped).

Returns one dict per model (in input order)::

    {"seed", "steps" (steps taken), "stopped_early" (bool), "final_loss", "final_acc" (last
     evaluation on the training set, i.e. at the stop), "best_loss", "best_acc", "best_step" (the
     evaluation with the lowest training loss: the official MHA code reports the accuracy of that
     checkpoint), "running_acc" (mean training-batch accuracy over the last ``running_window`` steps,
     the official AoT metric), "eval_loss", "eval_acc" (on ``eval_data`` if given, e.g. the full
     AoT table), "history" (list of [step, loss, acc] at each evaluation), "params" (when
     ``return_params``: {"final": {...}, "best": {...} (with ``keep_best``)} CPU tensors, no model axis)}

``on_model_done(g, result)`` is called as soon as model g stops (before the others finish): the sweep
engine writes that point to disk there. ``progress(n_model_steps)`` is called every few steps.

Devices and precision: ``device`` "cpu" | "cuda" (data and parameters moved there); ``dtype``
float32 by default, float64 available. Threads are the caller's business (``lib.repro.setup``).

Performance (``benchmarks/sweep.py``, 2-core AMD EPYC, one torch thread, process CPU time; G = 32
models, batch 256, float32; float32 matmul peak measured 91.6 GFLOP/s, load average 0.6-1.0):

================================  ==============  ===============  ================  ==========
family                            engine          vs same math,    vs official math  % of peak
                                  model-steps/s   one at a time    one at a time
================================  ==============  ===============  ================  ==========
MHA d=64 n=32 H=1 shared          1498            ×2.3             ×40               36%
MHA d=64 n=32 H=20 shared         325             ×1.2             ×142              41%
MHA d=64 n=32 H=1 non-shared      235             ×1.3             ×6                9%
MHA d=64 n=32 H=20 non-shared     86              ×1.0             ×38               40%
AoT N=50 d=dh=10 H=1 (official)   2561            ×3.2             ×5                4%
AoT N=50 d=dh=10 H=16 (official)  1278            ×2.3             ×23               9%
================================  ==============  ===============  ================  ==========

Most of the gain over the official code is the math (query-only attention, re-associated products,
the S = 2 sigmoid form); batching itself buys most for small models, whose one-model steps are bound
by PyTorch's per-op cost. It cannot buy much for the MHA H = 20 model: one model at a time, the same
math already runs at 263 model-steps/s × 114 MFLOP = 30 GFLOP/s, a third of the matmul peak, so ×3
from batching would need the whole step, softmax and Adam included, at the GEMMs' own peak. The AoT
family is memory-bound: its contractions have inner dimensions of 10-160, and its step reads and
writes some fifteen tensors of ~1 M elements for 0.2 GFLOP (about 3 FLOP per byte, against ~9 for
this core's GEMM peak over its memory bandwidth). Two measured improvements: Adam through PyTorch's
fused kernel (one pass over the parameters instead of six: 4.0 vs 14.1 ms per MHA H=20 step) and the
score softmax in cache-sized blocks (:class:`lib.family.SoftmaxDot`: 18 vs 34 ms); ``torch.compile``
(inductor, C++) was measured and not adopted: 1.27× on the MHA H=20 forward + backward after 5-18 s
of compilation per shape, 1.04× on AoT H=16. One torch thread is 2-5× faster than two on this
machine (``benchmarks/threads.py``). One seed of the MHA paper's Fig. 2(a) grid at paper scale (32
runs, 1.9 M steps, no early stop): 2.4 CPU-hours measured here (official code: about 3.3 V100-days
per seed, its README); extrapolated to one H100 (no GPU was lent to measure it): ~26 min one family
after another (bound by the 156 kernel launches per step), ~3 min with the 32 runs zero-padded into
one family. Measured numbers: ``benchmarks/results/``.
"""
from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable, Sequence

import numpy as np
import torch
from torch import Tensor

from lib.family import FamilyData

__all__ = ["train_family", "lr_factors", "evaluate", "adam_step", "tune_malloc"]

_BATCH_SEED_OFFSET = 1_000_003  # batch-order generator seed = batch_seed + offset (init uses the seed itself)
_PROGRESS_EVERY = 16            # steps between progress() calls (benchmarks set 1 to time single steps)
_MALLOC_TUNED = False


def tune_malloc() -> bool:
    """On Linux/glibc, keep freed large blocks in the heap instead of returning them to the OS
    (``mallopt`` M_MMAP_THRESHOLD = M_TRIM_THRESHOLD = 1 GiB). The families allocate and free the same
    tens-of-MB tensors every step; with glibc's defaults each step page-faults them in again. Measured
    here: half the page faults and system time of an MHA H=20 family step (benchmarks/sweep.py).
    Called once by ``train_family`` on CPU; set ``ATR_MALLOC_TUNE=0`` to leave malloc alone."""
    global _MALLOC_TUNED
    if _MALLOC_TUNED or os.environ.get("ATR_MALLOC_TUNE", "1") == "0" or not sys.platform.startswith("linux"):
        return _MALLOC_TUNED
    try:
        import ctypes
        libc = ctypes.CDLL("libc.so.6")
        _MALLOC_TUNED = bool(libc.mallopt(-3, 1 << 30)) and bool(libc.mallopt(-1, 1 << 30))
    except (OSError, AttributeError):
        _MALLOC_TUNED = False
    return _MALLOC_TUNED


def _per_model(v, G: int, name: str, cast=float) -> list:
    if isinstance(v, (list, tuple, np.ndarray, Tensor)):
        v = [cast(x) for x in (v.tolist() if isinstance(v, (np.ndarray, Tensor)) else v)]
        if len(v) != G:
            raise ValueError(f"{name}: expected {G} values (one per model), got {len(v)}")
        return v
    return [cast(v)] * G


def lr_factors(schedule: str | Callable, step: np.ndarray, total: np.ndarray, *, lr: np.ndarray,
               lr_end: np.ndarray | None = None, warmup_frac: float = 0.05, warmup_start: float = 0.01,
               per_epoch: np.ndarray | None = None) -> np.ndarray:
    """Learning rates ``[..., G]`` at 0-based optimiser steps ``step`` (broadcast against ``total``)."""
    step = np.asarray(step, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    if callable(schedule):
        return lr * np.asarray(schedule(step, total), dtype=np.float64)
    if schedule == "constant":
        return lr * np.ones_like(step * total)
    if schedule == "warmup_cosine":
        w = np.floor(total * warmup_frac) if warmup_frac != 0.05 else np.floor(total / 20)
        wsafe = np.maximum(w, 1)
        warm = warmup_start + (1 - warmup_start) * step / wsafe
        T = np.maximum(total - w, 1)
        cos = 0.5 * (1 + np.cos(np.pi * np.clip(step - w, 0, None) / T))
        return lr * np.where(step < w, warm, cos)
    if schedule == "linear":
        end = lr if lr_end is None else lr_end
        if per_epoch is not None:
            pe = np.asarray(per_epoch, dtype=np.float64)
            epochs = np.maximum(np.ceil(total / pe), 1)
            frac = np.minimum(np.floor(step / pe) / epochs, 1.0)
        else:
            frac = np.minimum(step / np.maximum(total, 1), 1.0)
        return lr + (end - lr) * frac
    raise ValueError(f"schedule = {schedule!r}: expected 'constant', 'warmup_cosine', 'linear' or a callable")


_FUSED_OK = hasattr(torch, "_fused_adam_")   # PyTorch's fused Adam kernel (CPU and CUDA, float32/64)


@torch.no_grad()
def adam_step(params: list[Tensor], grads: list[Tensor], m: list[Tensor], v: list[Tensor], t: int,
              lr: Sequence[float], betas=(0.9, 0.999), eps: float = 1e-8) -> None:
    """One Adam step (``torch.optim.Adam``'s update, bias-corrected) with a per-model learning rate
    ``lr`` (``G`` floats; a model with ``lr = 0`` keeps its parameters).

    The models are grouped by learning rate (usually one group: every model on the same schedule) and
    each group is updated by PyTorch's fused Adam kernel (``torch._fused_adam_``, what
    ``torch.optim.Adam(fused=True)`` runs) on the group's slices of the stacked tensors: one pass over
    the parameters instead of the six of an unfused update, equal to ``torch.optim.Adam`` to the last
    bit in float64. Measured on an MHA H=20 family (5.7 M parameters): 4.0 ms against 14.1 ms for the
    previous ``torch._foreach`` form, :func:`_adam_foreach`, used where the kernel is missing."""
    lr = [float(x) for x in lr]
    if not _FUSED_OK:
        _adam_foreach(params, grads, m, v, t, torch.tensor(lr, dtype=params[0].dtype, device=params[0].device),
                      betas, eps)
        return
    # the fused kernel walks every tensor of a group in memory order: gradients must have their
    # parameter's layout (autograd.grad may return, e.g., a transposed gradient)
    grads = [g if g.stride() == p.stride() else g.contiguous() for g, p in zip(grads, params)]
    groups: dict[float, list[int]] = {}
    for g, x in enumerate(lr):
        if x != 0.0:
            groups.setdefault(x, []).append(g)
    G = len(lr)
    b1, b2 = betas
    step = torch.tensor(float(t))
    for x, gs in groups.items():
        sel = (params, grads, m, v) if len(gs) == G else \
            tuple([a[g] for a in arrs for g in gs] for arrs in (params, grads, m, v))
        torch._fused_adam_(*sel, [], [step] * len(sel[0]), lr=x, beta1=b1, beta2=b2, weight_decay=0.0,
                           eps=eps, amsgrad=False, maximize=False)


def _adam_foreach(params: list[Tensor], grads: list[Tensor], m: list[Tensor], v: list[Tensor], t: int,
                  lr: Tensor, betas=(0.9, 0.999), eps: float = 1e-8) -> None:
    """The same Adam step with ``torch._foreach`` ops and a per-model ``lr`` tensor ``[G]``.

    ``p -= lr/bc1 · m / (sqrt(v)/sqrt(bc2) + eps)``, computed as ``p -= m / ((sqrt(v) + eps·sqrt(bc2)) /
    (lr·sqrt(bc2)/bc1))`` so that the per-model factor costs no extra pass over the parameters."""
    b1, b2 = betas
    torch._foreach_lerp_(m, grads, 1 - b1)
    torch._foreach_mul_(v, b2)
    torch._foreach_addcmul_(v, grads, grads, 1 - b2)
    bc1 = 1 - b1 ** t
    s = math.sqrt(1 - b2 ** t)
    denom = torch._foreach_sqrt(v)
    torch._foreach_add_(denom, eps * s)
    step = lr * (s / bc1)
    for p, mm, dd in zip(params, m, denom):
        dd.div_(step.view(-1, *([1] * (p.dim() - 1))))
        p.addcdiv_(mm, dd, value=-1.0)


@torch.no_grad()
def evaluate(fam, params: dict[str, Tensor], data: FamilyData, chunk: int | None = None) -> tuple[Tensor, Tensor]:
    """Mean loss and accuracy ``[G]`` of every model on its whole data set (padding rows excluded).
    ``chunk`` examples per model at a time; by default as many as keep the largest intermediate tensor
    near 2^23 elements (``fam.eval_width``: its size per example), between 64 and 8192."""
    sizes = data.sizes.to(next(iter(params.values())).device)
    Tmax = next(iter(data.examples.values())).shape[1]
    G = data.G
    dev = sizes.device
    if chunk is None:
        per = max([int(getattr(fam, "eval_width", 0))] + [math.prod(v.shape[2:]) for v in data.examples.values()])
        chunk = int(min(8192, max(64, 2 ** 23 // max(1, G * per))))
    tot_l = torch.zeros(G, dtype=torch.float64, device=dev)
    tot_c = torch.zeros(G, dtype=torch.float64, device=dev)
    for s in range(0, Tmax, chunk):
        e = min(Tmax, s + chunk)
        idx = torch.arange(s, e, device=dev).expand(G, e - s)
        batch = data.batch(idx)
        loss, correct = fam.per_example(params, batch)
        w = (idx < sizes[:, None]).to(loss.dtype)
        tot_l += (loss * w).sum(1).double()
        tot_c += (correct * w).sum(1).double()
    return tot_l / sizes, tot_c / sizes


class _Batches:
    """Per-model streams of epoch permutations, produced in chunks of ``k`` steps."""

    def __init__(self, sizes: Sequence[int], seeds: Sequence[int], B: int, device, k: int = 256):
        self.sizes, self.B, self.k, self.device = list(sizes), B, k, device
        self.gens = [torch.Generator().manual_seed(int(s) + _BATCH_SEED_OFFSET) for s in seeds]
        self.left = [torch.empty(0, dtype=torch.long) for _ in seeds]
        self.chunk: Tensor | None = None
        self.pos = k

    def _refill(self, active: Sequence[int]) -> None:
        need = self.k * self.B
        rows = []
        for g in active:
            buf = [self.left[g]]
            n = buf[0].numel()
            while n < need:
                perm = torch.randperm(self.sizes[g], generator=self.gens[g])
                buf.append(perm)
                n += perm.numel()
            cat = torch.cat(buf)
            rows.append(cat[:need])
            self.left[g] = cat[need:]
        self.chunk = torch.stack(rows).view(len(active), self.k, self.B).to(self.device)
        self.pos = 0

    def next(self, active: Sequence[int]) -> Tensor:
        """Indices ``[len(active), B]`` for the models ``active`` (original ids, fixed between refills)."""
        if self.pos >= self.k:
            self._refill(active)
        out = self.chunk[:, self.pos]
        self.pos += 1
        return out

    def drop(self, keep_rows: Tensor) -> None:
        """Keep only the rows ``keep_rows`` of the current chunk (after a family compaction)."""
        if self.chunk is not None:
            self.chunk = self.chunk[keep_rows.to(self.chunk.device)]


def train_family(fam, data: FamilyData, *, seeds: Sequence[int], steps: int | Sequence[int],
                 lr: float | Sequence[float] = 1e-3, schedule: str | Callable = "constant",
                 lr_end: float | Sequence[float] | None = None, per_epoch: int | Sequence[int] | None = None,
                 batch_size: int = 256, betas=(0.9, 0.999), eps: float = 1e-8,
                 early_stop_acc: float | None = None, eval_every: int = 0, eval_data: FamilyData | None = None,
                 keep_best: bool = False, running_window: int = 0, batch_seeds: Sequence[int] | None = None,
                 params: dict[str, Tensor] | None = None, dtype=torch.float32, device="cpu",
                 compact: bool = True, return_params: bool = False,
                 on_model_done: Callable[[int, dict], Any] | None = None,
                 progress: Callable[[int], Any] | None = None, chunk_steps: int = 256) -> list[dict]:
    """Train the family's G models (module docstring). ``steps``, ``lr``, ``lr_end``, ``per_epoch``
    and ``seeds`` may be per-model. ``params`` overrides ``fam.init(seeds)``."""
    G = data.G
    device = torch.device(device)
    if device.type == "cpu":
        tune_malloc()
    seeds = _per_model(seeds, G, "seeds", int)
    bseeds = seeds if batch_seeds is None else _per_model(batch_seeds, G, "batch_seeds", int)
    total = np.array(_per_model(steps, G, "steps", int), dtype=np.int64)
    lr_v = np.array(_per_model(lr, G, "lr"), dtype=np.float64)
    lr_end_v = None if lr_end is None else np.array(_per_model(lr_end, G, "lr_end"), dtype=np.float64)
    pe_v = None if per_epoch is None else np.array(_per_model(per_epoch, G, "per_epoch", int), dtype=np.float64)
    if (total < 0).any():
        raise ValueError("steps must be >= 0")

    if eval_data is not None and eval_data.G != G:
        raise ValueError(f"eval_data has {eval_data.G} models, data has {G}")
    data = data.to(device=device, dtype=dtype)
    if eval_data is not None:
        eval_data = eval_data.to(device=device, dtype=dtype)
    if params is None:
        params = fam.init(seeds, dtype=dtype, device=device)
    else:
        params = {k: v.detach().to(device=device, dtype=dtype).clone().contiguous() for k, v in params.items()}
    names = list(params)
    P = [params[k].requires_grad_(True) for k in names]
    M = [torch.zeros_like(p) for p in P]
    V = [torch.zeros_like(p) for p in P]
    best = {k: params[k].detach().clone() for k in names} if keep_best else None

    ids = torch.arange(G)                                # original ids of the rows now in the computation
    sampler = _Batches(data.sizes.tolist(), bseeds, batch_size, device, k=chunk_steps)
    inf = float("inf")
    res = [{"seed": seeds[g], "steps": 0, "stopped_early": False, "final_loss": float("nan"),
            "final_acc": float("nan"), "best_loss": inf, "best_acc": float("nan"), "best_step": -1,
            "running_acc": float("nan"), "eval_loss": float("nan"), "eval_acc": float("nan"), "history": []}
           for g in range(G)]
    done = np.zeros(G, dtype=bool)
    ring = torch.zeros(max(running_window, 1), G, dtype=torch.float64, device=device)
    cur_data = data
    cur_eval = eval_data
    t = 0
    lr_table = None

    def finish(rows: list[int], early: list[bool]) -> None:
        """Record and report the models at rows ``rows`` of the current computation as done."""
        if eval_data is not None:
            el, ea = evaluate(fam, {k: p.detach() for k, p in zip(names, P)}, cur_eval)
        for r, e in zip(rows, early):
            g = int(ids[r])
            out = res[g]
            out["steps"] = t
            out["stopped_early"] = bool(e)
            if running_window:
                w = min(running_window, t)
                out["running_acc"] = float(ring[:, g].sum() / w) if w else float("nan")
            if eval_data is not None:
                out["eval_loss"], out["eval_acc"] = float(el[r]), float(ea[r])
            if return_params:
                out["params"] = {"final": {k: p[r].detach().cpu().clone() for k, p in zip(names, P)}}
                if keep_best:
                    out["params"]["best"] = {k: best[k][r].cpu().clone() for k in names}
            done[g] = True
            if on_model_done is not None:
                on_model_done(g, out)

    def do_eval(rows: Tensor) -> tuple[np.ndarray, np.ndarray]:
        l, a = evaluate(fam, {k: p.detach() for k, p in zip(names, P)}, cur_data)
        l, a = l.cpu().numpy(), a.cpu().numpy()
        for r in rows.tolist():
            g = int(ids[r])
            out = res[g]
            out["final_loss"], out["final_acc"] = float(l[r]), float(a[r])
            out["history"].append([t, float(l[r]), float(a[r])])
            if l[r] < out["best_loss"]:
                out["best_loss"], out["best_acc"], out["best_step"] = float(l[r]), float(a[r]), t
                if keep_best:
                    for k, p in zip(names, P):
                        best[k][r] = p[r].detach()
        return l, a

    # models with zero steps are done at once
    zero = [r for r in range(G) if total[r] == 0]
    if zero:
        do_eval(torch.tensor(zero))
        finish(zero, [False] * len(zero))

    while not done.all():
        rows_active = ~torch.from_numpy(done[ids.numpy()])
        # compaction: drop finished models once they are at least half of the computation
        n_act = int(rows_active.sum())
        if compact and n_act <= len(ids) // 2 and n_act < len(ids):
            keep = torch.nonzero(rows_active).flatten()
            kd = keep.to(device)
            with torch.no_grad():
                P = [p.detach()[kd].clone().requires_grad_(True) for p in P]
                M = [m[kd].clone() for m in M]
                V = [v[kd].clone() for v in V]
                if keep_best:
                    best = {k: b[kd].clone() for k, b in best.items()}
            cur_data = cur_data.select(keep)
            if cur_eval is not None:
                cur_eval = cur_eval.select(keep)
            sampler.drop(keep)
            ids = ids[keep]
            rows_active = rows_active[keep]
            lr_table = None
        if lr_table is None or t - lr_t0 >= lr_table.shape[0]:
            lr_t0 = t
            sub = ids.numpy()
            steps_ahead = np.arange(t, t + chunk_steps)[:, None]
            lr_table = lr_factors(schedule, steps_ahead, total[sub], lr=lr_v[sub],
                                  lr_end=None if lr_end_v is None else lr_end_v[sub],
                                  per_epoch=None if pe_v is None else pe_v[sub])
        idx = sampler.next(ids.tolist())
        batch = cur_data.batch(idx)
        pd = dict(zip(names, P))
        loss, correct = fam.per_example(pd, batch)
        grads = torch.autograd.grad(loss.mean(1).sum(), P)
        t += 1
        adam_step(P, list(grads), M, V, t, lr_table[t - 1 - lr_t0] * rows_active.numpy(), betas, eps)
        if running_window:
            ring[(t - 1) % running_window, ids.to(device)] = correct.detach().mean(1).double()
        if progress is not None and (t % _PROGRESS_EVERY == 0):
            progress(_PROGRESS_EVERY * n_act)
        # evaluation / stopping
        ids_np = ids.numpy()
        at_end = (total[ids_np] == t) & ~done[ids_np]
        due = eval_every and t % eval_every == 0
        if due or at_end.any():
            rows = torch.nonzero(rows_active).flatten()
            l, a = do_eval(rows)
            stop_rows, early = [], []
            for r in rows.tolist():
                g = int(ids[r])
                hit = early_stop_acc is not None and a[r] >= early_stop_acc - 1e-6
                if at_end[r] or hit:
                    stop_rows.append(r)
                    early.append(bool(hit and not at_end[r]))
            if stop_rows:
                finish(stop_rows, early)
    return res
