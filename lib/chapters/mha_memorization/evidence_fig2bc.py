"""Fig. 2(b) and 2(c) of Mahdavi et al. (Sec. 5.2, App. A) at the paper's scale, as stored evidence (issue 14,
item 3): the largest subsets of the official grids that fit about one CPU-hour each, one seed.

* **Fig. 2(b)** (memorization against the context size n): official grid d = 64, H = 20, d_h = d = 64,
  n in {1, 5, 10, 20, 30, 40, 50, 60}, T in {6k, 10k, 14k, 18k}, max(50k, 500 epochs) steps (50k for every
  T of the grid). Stored: every n at T in {6k, 10k, 18k} (24 of 32 points; 14k left out).
* **Fig. 2(c)** (memorization against the key/query dimension d_h): official grid d = 64, n = 32, H = 30,
  d_h in {10, 15, ..., 60, 64}, T in {10k, 15k, 20k}, 300k steps ("since the optimization is more
  challenging", App. A). Stored: d_h in {10, 32, 64} (below, at and above n = 32) at T = 20k, the grid's least
  saturated size (Fig. 2(a)'s H = 30 reached 0.67 at T = 20k after 50k steps; 3 of 36 points).

The recipe is the official one (Adam, lr 1e-3, batch 256, 5% linear warm-up from 0.01x then cosine decay,
evaluation every 500 steps on the training set, early stop at 100%, the best-loss evaluation's accuracy
reported), as in :func:`lib.chapters.mha_memorization.evidence.train_points`; this module has its own training
function because n and d_h vary across points. Its fingerprint covers the model, the engine and this file.
Costs: probes of 500 steps at one thread (:func:`~.budget.ms_step`), scaled by the ratio of the stored Fig. 2(a) run's
throughput at H = 20 to the same probe there (1.07).
"""
from __future__ import annotations

import importlib

from lib.chapters.mha_memorization import model as mha_model
from lib.chapters.mha_memorization.budget import CpuShares, cpu_s
from lib.engine import train

CHAPTER = "mha-memorization"
RECIPE_B = dict(d=64, classes=100, lr=1e-3, batch=256, eval_every=500, min_steps=50_000, epochs=500)
RECIPE_C = dict(RECIPE_B, min_steps=300_000)
CONTEXTS = [1, 5, 10, 20, 30, 40, 50, 60]
SIZES_B = [6_000, 10_000, 18_000]           # of the official 6k, 10k, 14k, 18k
HEAD_DIMS = [10, 32, 64]                    # of the official 10, 15, ..., 60, 64; n = 32
SIZES_C = [20_000]                          # of the official 10k, 15k, 20k
PAPER_B = dict(H=20, n=CONTEXTS, T=[6_000, 10_000, 14_000, 18_000], steps="max(50k, 500 epochs)")
PAPER_C = dict(H=30, n=32, dh=[10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 64], T=[10_000, 15_000, 20_000],
               steps=300_000)
# measured ms per model-step (500-step probes, one thread, evaluation included, x 1.07), by n at H = 20 and
# by d_h at H = 30, n = 32
MS_STEP_B = {1: 1.30, 5: 2.50, 10: 3.23, 20: 2.97, 30: 3.22, 40: 4.06, 50: 4.80, 60: 5.02}
MS_STEP_C = {10: 4.00, 32: 4.35, 64: 5.26}


def train_points(points: list[dict], report, d: int, classes: int, lr: float, batch: int, eval_every: int,
                 min_steps: int, epochs: int) -> None:
    """One family (points of one (H, n, d_h), differing in T): the official recipe, max(min_steps, epochs·T/batch)
    steps, early stop at 100%; each point is reported, sealed, as its model finishes."""
    p0 = points[0]
    fam = mha_model.MHAMemorization(d=d, n=p0["n"], H=p0["H"], dh=p0["dh"], n_classes=classes)
    sizes, seeds = [p["T"] for p in points], [p["seed"] for p in points]
    data = mha_model.mha_data(fam, sizes, seeds)
    steps = [max(min_steps, epochs * T // batch) for T in sizes]
    seal = importlib.import_module("lib.book.evidence").seal
    cpu = CpuShares(len(points))

    def done(g: int, r: dict) -> None:
        cpu_g = cpu.finish(g)
        out = {k: r[k] for k in ("steps", "stopped_early", "final_acc", "best_acc", "best_loss", "best_step")}
        out.update(memorized=float(r["best_acc"]) * points[g]["T"], flops_per_step=float(fam.flops(batch)),
                   family=f"MHA d={d} n={fam.n} H={fam.H} dh={fam.dh} shared", cpu_s=cpu_g)
        report(points[g], seal(points[g], out))

    train.train_family(fam, data, seeds=seeds, steps=steps, lr=lr, schedule="warmup_cosine", batch_size=batch,
                       early_stop_acc=1.0, eval_every=eval_every, on_model_done=done, progress=report.progress)


POINTS_B = [dict(H=20, n=n, dh=64, T=T, seed=0) for n in CONTEXTS for T in SIZES_B]
POINTS_C = [dict(H=30, n=32, dh=k, T=T, seed=0) for k in HEAD_DIMS for T in SIZES_C]

SWEEPS = {
    "fig2b": dict(fn=train_points, points=POINTS_B, group_by=["H", "n", "dh"], config=RECIPE_B,
                  cost_s=round(cpu_s(POINTS_B, MS_STEP_B, "n", RECIPE_B) / len(POINTS_B), 1), budget_h=1.2,
                  claims=["fig2b-monotone-paper-scale", "fig2b-n1-paper-scale"],
                  what="Fig. 2(b): d = 64, H = 20, d_h = 64, n = 1..60, T = 6k, 10k, 18k (of 6k..18k), official "
                       "recipe (50k steps), one seed",
                  paper="d = 64, H = 20, n = 1..60, T = 6k, 10k, 14k, 18k, max(50k, 500 epochs) steps", verify=dict(prefix=501)),
    "fig2c": dict(fn=train_points, points=POINTS_C, group_by=["H", "n", "dh"], config=RECIPE_C,
                  cost_s=round(cpu_s(POINTS_C, MS_STEP_C, "dh", RECIPE_C) / len(POINTS_C), 1), budget_h=1.3,
                  claims=["fig2c-up-to-n-paper-scale", "fig2c-no-gain-paper-scale"],
                  what="Fig. 2(c): d = 64, n = 32, H = 30, d_h = 10, 32, 64 (of 10..64), T = 20k (of 10k..20k), "
                       "300k steps, one seed",
                  paper="d = 64, n = 32, H = 30, d_h = 10, 15, ..., 60, 64, T = 10k, 15k, 20k, 300k steps",
                  verify=dict(prefix=501)),
}
