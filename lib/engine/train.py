"""Train a family of G independent small models in one batched computation.

``train_family(fam, data, seeds=..., steps=..., lr=...)`` trains the G models of a family
(:mod:`lib.engine.family`) together: one forward/backward pass over stacked parameters per step, one
batched Adam update. Each model keeps everything that makes it *itself*:

* its **seed**: model g's initial weights come from ``fam.init_one(seeds[g])`` and its batch order
  from its own generator seeded with ``batch_seeds[g]`` (default ``seeds[g]``), so a model trains the
  same whether it is alone or in a family of 64, at any position (tests/test_train.py checks this);
* its **data**: ``data`` holds one data set per model (``FamilyData``; sizes may differ);
* its **learning-rate schedule**: ``lr`` and ``steps`` may be per-model lists; the schedule shape is
  one of :mod:`lib.engine.schedules` ("constant", "warmup_cosine", "linear") or a callable;
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
float32 by default, float64 available. Threads are the caller's business (``lib.core.repro.setup``).

Performance: ``benchmarks/sweep.py`` measures the engine against one-model-at-a-time loops and the official
code's math; its measured table (model-steps/s, speed-ups, fraction of the matmul peak, the cost of one seed of
the MHA paper's Fig. 2(a)) is in ``benchmarks/results/README.md``.
"""
from __future__ import annotations

import math
import os
import sys
from typing import Any, Callable, Sequence

import numpy as np
import torch
from torch import Tensor

from lib.engine.family import FamilyData
from lib.engine.schedules import lr_factors

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
    grads = [g if g.stride() == p.stride() else g.contiguous() for g, p in zip(grads, params, strict=False)]
    groups: dict[float, list[int]] = {}
    for g, x in enumerate(lr):
        if x != 0.0:
            groups.setdefault(x, []).append(g)
    G = len(lr)
    b1, b2 = betas
    step = torch.full((), float(t), device=params[0].device)      # no host-to-device copy: no sync on a GPU
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
    for p, mm, dd in zip(params, m, denom, strict=False):
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


class _FamilyRun:
    """The state of one :func:`train_family` call: the rows of models still in the computation, their
    parameters and Adam moments, the learning-rate table, and one result record per model."""

    def __init__(self, fam, data: FamilyData, *, seeds, batch_seeds, steps, lr, lr_end, per_epoch, schedule,
                 batch_size, betas, eps, early_stop_acc, eval_every, eval_data, keep_best, running_window,
                 params, dtype, device, compact, return_params, on_model_done, progress, chunk_steps):
        G = data.G
        self.fam, self.G, self.device = fam, G, torch.device(device)
        if self.device.type == "cpu":
            tune_malloc()
        self.seeds = _per_model(seeds, G, "seeds", int)
        bseeds = self.seeds if batch_seeds is None else _per_model(batch_seeds, G, "batch_seeds", int)
        self.total = np.array(_per_model(steps, G, "steps", int), dtype=np.int64)
        self.lr_v = np.array(_per_model(lr, G, "lr"), dtype=np.float64)
        self.lr_end_v = None if lr_end is None else np.array(_per_model(lr_end, G, "lr_end"), dtype=np.float64)
        self.pe_v = None if per_epoch is None else np.array(_per_model(per_epoch, G, "per_epoch", int),
                                                            dtype=np.float64)
        if (self.total < 0).any():
            raise ValueError("steps must be >= 0")
        if eval_data is not None and eval_data.G != G:
            raise ValueError(f"eval_data has {eval_data.G} models, data has {G}")
        self.schedule, self.betas, self.eps, self.chunk_steps = schedule, betas, eps, chunk_steps
        self.early_stop_acc, self.eval_every, self.running_window = early_stop_acc, eval_every, running_window
        self.keep_best, self.compact_on, self.return_params = keep_best, compact, return_params
        self.on_model_done, self.progress = on_model_done, progress
        self.data = data.to(device=self.device, dtype=dtype)
        self.eval_data = None if eval_data is None else eval_data.to(device=self.device, dtype=dtype)
        self._init_params(params, dtype)
        self.ids = torch.arange(G)                       # original ids of the rows now in the computation
        self.sampler = _Batches(self.data.sizes.tolist(), bseeds, batch_size, self.device, k=chunk_steps)
        self.res = [_empty_result(self.seeds[g]) for g in range(G)]
        self.done = np.zeros(G, dtype=bool)
        self.ring = torch.zeros(max(running_window, 1), G, dtype=torch.float64, device=self.device)
        self.cur_data, self.cur_eval = self.data, self.eval_data
        self.t, self.lr_t0, self.lr_table = 0, 0, None

    def _init_params(self, params, dtype) -> None:
        if params is None:
            params = self.fam.init(self.seeds, dtype=dtype, device=self.device)
        else:
            params = {k: v.detach().to(device=self.device, dtype=dtype).clone().contiguous()
                      for k, v in params.items()}
        self.names = list(params)
        self.P = [params[k].requires_grad_(True) for k in self.names]
        self.M = [torch.zeros_like(p) for p in self.P]
        self.V = [torch.zeros_like(p) for p in self.P]
        self.best = {k: params[k].detach().clone() for k in self.names} if self.keep_best else None

    def _detached(self) -> dict[str, Tensor]:
        return {k: p.detach() for k, p in zip(self.names, self.P, strict=True)}

    def finish(self, rows: list[int], early: list[bool]) -> None:
        """Record and report the models at rows ``rows`` of the current computation as done."""
        if self.eval_data is not None:
            el, ea = evaluate(self.fam, self._detached(), self.cur_eval)
        for r, e in zip(rows, early, strict=True):
            g = int(self.ids[r])
            out = self.res[g]
            out["steps"], out["stopped_early"] = self.t, bool(e)
            if self.running_window:
                w = min(self.running_window, self.t)
                out["running_acc"] = float(self.ring[:, g].sum() / w) if w else float("nan")
            if self.eval_data is not None:
                out["eval_loss"], out["eval_acc"] = float(el[r]), float(ea[r])
            if self.return_params:
                out["params"] = {"final": {k: p[r].detach().cpu().clone() for k, p in zip(self.names, self.P,
                                                                                            strict=True)}}
                if self.keep_best:
                    out["params"]["best"] = {k: self.best[k][r].cpu().clone() for k in self.names}
            self.done[g] = True
            if self.on_model_done is not None:
                self.on_model_done(g, out)

    def evaluate_rows(self, rows: Tensor) -> np.ndarray:
        """Evaluate on the training sets; update each row's final and best records. Returns accuracies."""
        loss, acc = evaluate(self.fam, self._detached(), self.cur_data)
        loss, acc = loss.cpu().numpy(), acc.cpu().numpy()
        for r in rows.tolist():
            out = self.res[int(self.ids[r])]
            out["final_loss"], out["final_acc"] = float(loss[r]), float(acc[r])
            out["history"].append([self.t, float(loss[r]), float(acc[r])])
            if loss[r] < out["best_loss"]:
                out["best_loss"], out["best_acc"], out["best_step"] = float(loss[r]), float(acc[r]), self.t
                if self.keep_best:
                    for k, p in zip(self.names, self.P, strict=True):
                        self.best[k][r] = p[r].detach()
        return acc

    def compact(self, rows_active: Tensor) -> Tensor:
        """Drop the finished models from the computation once they are at least half of it."""
        n_act = int(rows_active.sum())
        if not (self.compact_on and n_act <= len(self.ids) // 2 and n_act < len(self.ids)):
            return rows_active
        keep = torch.nonzero(rows_active).flatten()
        kd = keep.to(self.device)
        with torch.no_grad():
            self.P = [p.detach()[kd].clone().requires_grad_(True) for p in self.P]
            self.M = [m[kd].clone() for m in self.M]
            self.V = [v[kd].clone() for v in self.V]
            if self.keep_best:
                self.best = {k: b[kd].clone() for k, b in self.best.items()}
        self.cur_data = self.cur_data.select(keep)
        if self.cur_eval is not None:
            self.cur_eval = self.cur_eval.select(keep)
        self.sampler.drop(keep)
        self.ids = self.ids[keep]
        self.lr_table = None
        return rows_active[keep]

    def lr_now(self) -> np.ndarray:
        """The active rows' learning rates at step ``t`` (tabulated ``chunk_steps`` steps ahead)."""
        if self.lr_table is None or self.t - self.lr_t0 >= self.lr_table.shape[0]:
            self.lr_t0 = self.t
            sub = self.ids.numpy()
            ahead = np.arange(self.t, self.t + self.chunk_steps)[:, None]
            self.lr_table = lr_factors(self.schedule, ahead, self.total[sub], lr=self.lr_v[sub],
                                       lr_end=None if self.lr_end_v is None else self.lr_end_v[sub],
                                       per_epoch=None if self.pe_v is None else self.pe_v[sub])
        return self.lr_table[self.t - self.lr_t0]

    def step(self, rows_active: Tensor) -> None:
        """One batched forward, backward and Adam update of the active rows."""
        lr = self.lr_now()
        batch = self.cur_data.batch(self.sampler.next(self.ids.tolist()))
        loss, correct = self.fam.per_example(dict(zip(self.names, self.P, strict=True)), batch)
        grads = torch.autograd.grad(loss.mean(1).sum(), self.P)
        self.t += 1
        adam_step(self.P, list(grads), self.M, self.V, self.t, lr * rows_active.numpy(), self.betas, self.eps)
        if self.running_window:
            self.ring[(self.t - 1) % self.running_window, self.ids.to(self.device)] = correct.detach().mean(1).double()
        if self.progress is not None and self.t % _PROGRESS_EVERY == 0:
            self.progress(_PROGRESS_EVERY * int(rows_active.sum()))

    def check_stop(self, rows_active: Tensor) -> None:
        """At an evaluation step or a model's last step: evaluate, then stop the models that are done."""
        ids_np = self.ids.numpy()
        at_end = (self.total[ids_np] == self.t) & ~self.done[ids_np]
        if not ((self.eval_every and self.t % self.eval_every == 0) or at_end.any()):
            return
        rows = torch.nonzero(rows_active).flatten()
        acc = self.evaluate_rows(rows)
        stop_rows, early = [], []
        for r in rows.tolist():
            hit = self.early_stop_acc is not None and acc[r] >= self.early_stop_acc - 1e-6
            if at_end[r] or hit:
                stop_rows.append(r)
                early.append(bool(hit and not at_end[r]))
        if stop_rows:
            self.finish(stop_rows, early)

    def run(self) -> list[dict]:
        zero = [r for r in range(self.G) if self.total[r] == 0]       # models with zero steps are done at once
        if zero:
            self.evaluate_rows(torch.tensor(zero))
            self.finish(zero, [False] * len(zero))
        while not self.done.all():
            rows_active = self.compact(~torch.from_numpy(self.done[self.ids.numpy()]))
            self.step(rows_active)
            self.check_stop(rows_active)
        return self.res


def _empty_result(seed: int) -> dict:
    nan = float("nan")
    return {"seed": seed, "steps": 0, "stopped_early": False, "final_loss": nan, "final_acc": nan,
            "best_loss": float("inf"), "best_acc": nan, "best_step": -1, "running_acc": nan, "eval_loss": nan,
            "eval_acc": nan, "history": []}


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
    return _FamilyRun(fam, data, seeds=seeds, batch_seeds=batch_seeds, steps=steps, lr=lr, lr_end=lr_end,
                      per_epoch=per_epoch, schedule=schedule, batch_size=batch_size, betas=betas, eps=eps,
                      early_stop_acc=early_stop_acc, eval_every=eval_every, eval_data=eval_data,
                      keep_best=keep_best, running_window=running_window, params=params, dtype=dtype,
                      device=device, compact=compact, return_params=return_params,
                      on_model_done=on_model_done, progress=progress, chunk_steps=chunk_steps).run()
