"""Fig. 4 (App. I.1) and Fig. 5 (App. A) of Mahdavi et al. at the paper's scale, as stored evidence (issue 14,
item 3): the largest subsets of the official grids (``reproduce.sh``) that fit about one CPU-hour each, one seed.

* **Fig. 4** (general position: every example has its own context, ``x_1^(t), ..., x_n^(t), x^(t) ~ U(0,1)^64``
  i.i.d.; 100-class labels): official grids d = 64, n = 32, d_h = 64, H in {1, 5, 10, ..., 60},
  T in {30k, 50k, ..., 130k} for the head panel, and H = 20, n in {1, 5, ..., 60}, T in {20k, 30k, ..., 60k} for
  the context panel; max(50k, 500 epochs) steps. Stored: the head panel at H in {1, 5, 10, 20, 30} and
  T = 30k (58,593 steps; 5 of 48 points). Per-example contexts cost 3 to 6 times a shared context per step.
* **Fig. 5** (regression: labels ``y ~ U(0, 1)``, MSE, shared context): official grids H in {1, 5, ..., 60} at
  n = 32, T in {10k, 15k, ..., 30k}, and n in {1, 5, ..., 60} at H = 20, T in {10k, 15k, 20k, 25k}; the same
  step rule. Stored: every H at T = 30k (58,593 steps) and every n at T = 25k (50k steps; 16 of 72 points).

The recipe is the official one (Adam, lr 1e-3, batch 256, 5% linear warm-up from 0.01x then cosine decay,
evaluation of the training set every 500 steps, the best-loss evaluation reported); classification stops at
100% training accuracy, regression never stops early (the official early stop tests an accuracy of 1). The
training function is this module's own (task and context kind differ from
:func:`lib.chapters.mha_memorization.evidence.train_points`); its fingerprint covers the model, the engine and
this file. Costs: probes of 300 to 500 steps at one thread, evaluation included (``MS_STEP_*``, ms per
model-step, scaled by 1.07, the stored Fig. 2(a) run's throughput at H = 20 over the same probe there).
"""
from __future__ import annotations

import importlib

from lib.chapters.mha_memorization import model as mha_model
from lib.chapters.mha_memorization.budget import CpuShares, cpu_s
from lib.engine import train

CHAPTER = "mha-memorization"
HEADS = [1, 5, 10, 20, 30, 40, 50, 60]
CONTEXTS = [1, 5, 10, 20, 30, 40, 50, 60]
RECIPE_4 = dict(d=64, classes=100, lr=1e-3, batch=256, eval_every=500, min_steps=50_000, epochs=500,
                task="classification", shared=False)
RECIPE_5 = dict(RECIPE_4, task="regression", shared=True)
HEADS_4, T_4 = [1, 5, 10, 20, 30], 30_000              # of the official H = 1..60, T = 30k..130k
T_5H, T_5N = 30_000, 25_000                                # of the official 10k..30k and 10k..25k
PAPER_4 = "d = 64, n = 32, H = 1..60, T = 30k-130k (heads); H = 20, n = 1..60, T = 20k-60k (context); ≥ 50k steps"
PAPER_5 = "d = 64, n = 32, H = 1..60, T = 10k-30k (heads); H = 20, n = 1..60, T = 10k-25k (context); ≥ 50k steps"
# measured ms per model-step (one thread, evaluation included, x 1.07)
MS_STEP_4 = {1: 5.34, 5: 7.72, 10: 10.11, 20: 12.31, 30: 18.32, 40: 21.16, 60: 29.93}      # by H, n = 32, T = 30k
MS_STEP_4N = {1: 5.89, 32: 12.31, 60: 18.35}                                          # by n, H = 20, T = 20k
MS_STEP_5H = {1: 1.08, 5: 1.74, 10: 2.23, 20: 3.23, 40: 6.28, 60: 7.69}                  # by H, n = 32
MS_STEP_5N = {1: 1.74, 10: 3.55, 32: 3.23, 60: 5.44}                                     # by n, H = 20


def train_points(points: list[dict], report, d: int, classes: int, lr: float, batch: int, eval_every: int,
                 min_steps: int, epochs: int, task: str, shared: bool) -> None:
    """One family (points of one (H, n), differing in T): the official recipe, max(min_steps, epochs·T/batch)
    steps, early stop at 100% for classification only; each point is reported, sealed, as its model finishes."""
    p0 = points[0]
    fam = mha_model.MHAMemorization(d=d, n=p0["n"], H=p0["H"], dh=d, n_classes=classes, task=task, shared=shared)
    sizes, seeds = [p["T"] for p in points], [p["seed"] for p in points]
    data = mha_model.mha_data(fam, sizes, seeds)
    steps = [max(min_steps, epochs * T // batch) for T in sizes]
    seal = importlib.import_module("lib.book.evidence").seal
    cpu = CpuShares(len(points))
    clf = task == "classification"

    def done(g: int, r: dict) -> None:
        cpu_g = cpu.finish(g)
        out = {k: r[k] for k in ("steps", "stopped_early", "final_loss", "best_loss", "best_step")}
        if clf:
            out.update(final_acc=r["final_acc"], best_acc=r["best_acc"],
                       memorized=float(r["best_acc"]) * points[g]["T"])
        out.update(flops_per_step=float(fam.flops(batch)), cpu_s=cpu_g,
                   family=f"MHA d={d} n={fam.n} H={fam.H} {task} {'shared' if shared else 'per-example'}")
        report(points[g], seal(points[g], out))

    train.train_family(fam, data, seeds=seeds, steps=steps, lr=lr, schedule="warmup_cosine", batch_size=batch,
                       early_stop_acc=1.0 if clf else None, eval_every=eval_every, on_model_done=done,
                       progress=report.progress)


POINTS_4 = [dict(panel="H", H=H, n=32, T=T_4, seed=0) for H in HEADS_4]
POINTS_5H = [dict(panel="H", H=H, n=32, T=T_5H, seed=0) for H in HEADS]
POINTS_5N = [dict(panel="n", H=20, n=n, T=T_5N, seed=0) for n in CONTEXTS]
COST_4 = cpu_s(POINTS_4, MS_STEP_4, "H", RECIPE_4)
COST_5 = cpu_s(POINTS_5H, MS_STEP_5H, "H", RECIPE_5) + cpu_s(POINTS_5N, MS_STEP_5N, "n", RECIPE_5)
# what is left of the official grids, at the same measured rates (not declared: the `paper` preset runs them)
LEFT_4 = (cpu_s([dict(H=H, T=T) for H in HEADS for T in range(30_000, 130_001, 20_000)], MS_STEP_4, "H", RECIPE_4)
          - COST_4 + cpu_s([dict(n=n, T=T) for n in CONTEXTS for T in range(20_000, 60_001, 10_000)], MS_STEP_4N, "n",
                           RECIPE_4))
LEFT_5 = (cpu_s([dict(H=H, T=T) for H in HEADS for T in range(10_000, 30_001, 5_000)], MS_STEP_5H, "H", RECIPE_5)
          + cpu_s([dict(n=n, T=T) for n in CONTEXTS for T in range(10_000, 25_001, 5_000)], MS_STEP_5N, "n", RECIPE_5)
          - COST_5)

SWEEPS = {
    "fig4": dict(fn=train_points, points=POINTS_4, group_by=["H", "n"], config=RECIPE_4,
                 cost_s=round(COST_4 / len(POINTS_4), 1), budget_h=1.3, claims=["fig4-linear-paper-scale"],
                 what="Fig. 4 (per-example contexts, 100 classes): d = 64, n = 32, d_h = 64, H = 1, 5, 10, 20, 30 "
                      "(of 1..60), T = 30k (of 30k..130k), 58,593 steps, one seed",
                 paper=PAPER_4, verify=dict(prefix=501)),
    "fig5": dict(fn=train_points, points=POINTS_5H + POINTS_5N, group_by=["H", "n"], config=RECIPE_5,
                 cost_s=round(COST_5 / (len(POINTS_5H) + len(POINTS_5N)), 1), budget_h=1.2,
                 claims=["fig5a-monotone-paper-scale", "fig5b-monotone-paper-scale", "fig5b-n1-paper-scale"],
                 what="Fig. 5 (regression, shared context): d = 64, H = 1..60 at n = 32, T = 30k; n = 1..60 at H = 20, "
                      "T = 25k; official recipe, one seed",
                 paper=PAPER_5, verify=dict(prefix=501)),
}
