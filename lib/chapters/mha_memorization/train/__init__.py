"""The training function of every stored mha-memorization sweep (Mahdavi et al. 2024, Sec. 5.2, App. A, G-I).

One family of :class:`~lib.chapters.mha_memorization.model.MHAMemorization` models per work unit (points that
share H, n and d_h and differ in T and seed), trained by :func:`lib.engine.train.train_family` with the official
recipe: Adam, batch ``batch``, learning rate ``lr`` with 5% linear warm-up from 0.01x then cosine decay, the
training set evaluated every ``eval_every`` steps and the best-loss evaluation reported.

* **Figs. 2, 4, 5** (``min_steps``, ``epochs``): max(min_steps, epochs · T / batch) steps, early stop at 100%
  training accuracy for classification (the official early stop tests an accuracy of 1, so regression never
  stops early).
* **Fig. 3 / App. H** (``steps``): a fixed budget with no early stop, and App. H's saturation statistic of the
  trained and the initial model: the largest softmax weight of the query per (example, head), ``[T, H]``.

A point's CPU-seconds are its share of its family's CPU time (:class:`CpuShares`); on a GPU (``device="cuda"``)
the CPU time is the host's, and the run's wall-clock seconds are kept too (``wall_s``, the same even split).
"""
from __future__ import annotations

import time

import numpy as np
import torch

from lib.chapters.mha_memorization import model as mha_model
from lib.engine import family, train


class CpuShares:
    """CPU-seconds per model of a family trained together: the CPU time between two finishing models is split
    evenly among the models still training."""

    def __init__(self, n: int, clock=time.process_time):
        self.clock = clock
        self.active, self.share, self.last = set(range(n)), [0.0] * n, clock()

    def finish(self, g: int) -> float:
        """Model ``g`` has finished: book the time since the last event and return ``g``'s share."""
        now = self.clock()
        for a in self.active:
            self.share[a] += (now - self.last) / len(self.active)
        self.last = now
        self.active.discard(g)
        return self.share[g]


def max_attention(fam: mha_model.MHAMemorization, params: dict, data: family.FamilyData, g: int) -> np.ndarray:
    """``[T, H]``: the largest of the query's softmax weights θ_h^(t) over the n context tokens (shared context),
    in float64, for model ``g``'s data and one model's parameters ``params`` (no model axis)."""
    p = {k: v.detach().double().cpu() for k, v in params.items()}
    T = int(data.sizes[g])
    x, E = data.examples["x"][g, :T].double().cpu(), data.shared["E"][g].double().cpu()
    pe = family.sinusoidal_pe(fam.n + 1, fam.d).double()
    q = x @ p["emb_W"] + p["emb_b"] + pe[0]                                    # [T, d]
    c = E @ p["emb_W"] + p["emb_b"] + pe[1:]                                   # [n, d]
    S = (q @ p["W_Q"]) @ (c @ p["W_K"]).transpose(-1, -2) * fam.scale          # [H, T, n]
    return torch.softmax(S, -1).amax(-1).T.numpy()


def first_full(history: list) -> int | None:
    """The first evaluated step at 100% training accuracy (None: never)."""
    return next((int(s) for s, _, a in history if a >= 1.0), None)


def _saturation(fam, r: dict, data, g: int, seed: int) -> dict:
    """App. H's statistics of model ``g``: its evaluation history and ``[T, H]`` largest softmax weights after
    training and at initialisation."""
    return dict(first_full=first_full(r["history"]),
                history=[[int(s), round(float(lo), 6), round(float(a), 6)] for s, lo, a in r["history"]],
                max_weight=np.round(max_attention(fam, r["params"]["final"], data, g), 6).tolist(),
                max_weight_init=np.round(max_attention(fam, fam.init_one(seed), data, g), 6).tolist())


def train_points(points: list[dict], report, *, d: int, classes: int, lr: float, batch: int, eval_every: int,
                 n: int | None = None, min_steps: int = 0, epochs: int = 0, steps: int | None = None,
                 task: str = "classification", shared: bool = True, device: str = "cpu") -> None:
    """One family: the points' H (and n, d_h when a point gives them; else ``n`` and d_h = d), differing in T and
    seed. ``steps`` set: App. H's fixed budget (module docstring); else max(min_steps, epochs · T / batch).
    ``device``: where the family trains (the data are drawn on the CPU either way). Each point is reported as its
    model finishes."""
    p0 = points[0]
    fam = mha_model.MHAMemorization(d=d, n=p0.get("n", n), H=p0["H"], dh=p0.get("dh", d), n_classes=classes,
                                    task=task, shared=shared)
    sizes, seeds = [p["T"] for p in points], [p["seed"] for p in points]
    data = mha_model.mha_data(fam, sizes, seeds)
    fixed = steps is not None
    budget = [steps if fixed else max(min_steps, epochs * T // batch) for T in sizes]
    clf = task == "classification"
    cpu = CpuShares(len(points))
    wall = CpuShares(len(points), time.perf_counter) if device != "cpu" else None

    def done(g: int, r: dict) -> None:
        out = {k: r[k] for k in ("steps", "stopped_early", "final_loss", "best_loss", "best_step")}
        if clf:
            out.update(final_acc=r["final_acc"], best_acc=r["best_acc"], memorized=float(r["best_acc"]) * sizes[g])
        if fixed:
            out.update(_saturation(fam, r, data, g, seeds[g]))
        if wall is not None:
            out.update(wall_s=wall.finish(g), device=torch.cuda.get_device_name() if device == "cuda" else device)
        out.update(flops_per_step=float(fam.flops(batch)), cpu_s=cpu.finish(g),
                   family=f"MHA d={d} n={fam.n} H={fam.H} dh={fam.dh} {task} {'shared' if shared else 'per-example'}")
        report(points[g], out)

    train.train_family(fam, data, seeds=seeds, steps=budget, lr=lr, schedule="warmup_cosine", batch_size=batch,
                       early_stop_acc=1.0 if clf and not fixed else None, eval_every=eval_every,
                       return_params=fixed, device=device, on_model_done=done, progress=report.progress)
