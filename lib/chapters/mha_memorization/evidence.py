"""The stored paper-scale sweeps of Mahdavi et al. 2024 (declarations only: grids, recipes, costs, budgets, the
claims each feeds), all trained by :func:`~lib.chapters.mha_memorization.train.train_points` on the CPU by
``python -m lib evidence mha-memorization [<sweep>]`` and stored under ``book/evidence/mha-memorization/``
(:mod:`lib.book.evidence`). The official grids are those of the authors' ``reproduce.sh``; each sweep takes the
largest subset that fits about one to two CPU-hours, one seed.

* ``fig2a``, ``fig2a-seed1`` (Sec. 5.2, Fig. 2(a)): d = 64, n = 32, d_h = 64, H in {1, 5, ..., 60},
  T in {10k, ..., 40k}, max(50k, 500 epochs) steps; seeds 0 and 1 (the whole official grid).
* ``fig2b`` (Fig. 2(b)): H = 20, n in {1, 5, ..., 60}, T in {6k, 10k, 18k}; ``fig2b-14k``: the official T = 14k
  it left out.
* ``fig2c`` (Fig. 2(c), App. A): H = 30, n = 32, d_h in {10, 32, 64} (of 10..64), T = 20k (the least saturated
  T of the grid), 300k steps ("since the optimization is more challenging").
* ``fig3`` (Fig. 3 / App. H): H = 4 and 8, T on a grid around the paper's capacities 550 and 1300, 300k steps
  with no early stop; each point keeps App. H's saturation statistics. The paper does not say how it searched
  T: the largest T of the grid at 100% is the located capacity, the next one is one step past it.
* ``fig3-long``: the paper's T at each H (550, 1300) trained 2.5x longer (750k steps), to see whether the 300k
  protocol stops before the accuracy does (its learning curves still rise when the rate has decayed);
  ``fig3-long-seed1``: the same two runs on seed 1.
* ``fig4``, ``fig4-context`` (App. I.1, general position: every example has its own context): the head panel at
  H in {1, 5, 10, 20, 30}, T = 30k, and the context panel at H = 20, n = 1..60, the same T, so that the two
  panels are judged by one criterion at one T.
* ``fig5`` (App. A, regression, MSE): every H at T = 30k and every n at T = 25k; ``fig5-rest``: the rest of the
  official grid (every H at T = 10k..25k, every n at T = 10k..20k).

Costs: probes of 300 to 1000 steps at one thread, evaluation included, in ms per model-step (``MS_STEP_*``, scaled
by 1.07, the stored Fig. 2(a) run's throughput at H = 20 over the same probe there), times the step budget.
"""
from __future__ import annotations

from lib.chapters.mha_memorization.train import train_points

CHAPTER = "mha-memorization"
HEADS = [1, 5, 10, 20, 30, 40, 50, 60]
CONTEXTS = [1, 5, 10, 20, 30, 40, 50, 60]
SIZES = [10_000, 20_000, 30_000, 40_000]
SEED1 = 1
RECIPE = dict(d=64, n=32, classes=100, lr=1e-3, batch=256, eval_every=500, min_steps=50_000, epochs=500)
RECIPE_B = dict(d=64, classes=100, lr=1e-3, batch=256, eval_every=500, min_steps=50_000, epochs=500)
RECIPE_C = dict(RECIPE_B, min_steps=300_000)
RECIPE_3 = dict(d=64, n=32, classes=100, lr=1e-3, batch=256, steps=300_000, eval_every=1000)
RECIPE_4 = dict(RECIPE_B, task="classification", shared=False)
RECIPE_5 = dict(RECIPE_4, task="regression", shared=True)
SIZES_B = [6_000, 10_000, 18_000]                    # of the official 6k, 10k, 14k, 18k
HEAD_DIMS = [10, 32, 64]                            # of the official 10, 15, ..., 60, 64; n = 32
SIZES_C = [20_000]                                  # of the official 10k, 15k, 20k
GRID_3 = {4: [300, 450, 550, 700], 8: [800, 1100, 1300, 1700]}      # T around the paper's 550 and 1300
# Fig. 3 trained longer: the paper's T at each H, 2.5x App. H's 300k steps, learning curve kept (``history``). The
# stored fig3 points cost 1.237 (H = 4) and 1.697 (H = 8) CPU-ms per model-step in families of four; a model trained
# alone costs ALONE times that (measured: H = 4, T = 550 alone against T in {300, 450, 550, 700}, the marginal cost of
# 4000 steps at one thread). The steps are those at which a point would cost 0.3 CPU-h at the stored rates.
STEPS_3L, ALONE, MS_STEP_3 = 750_000, 1.96, {4: 1.237, 8: 1.697}
RECIPE_3L = dict(RECIPE_3, steps=STEPS_3L)
POINTS_3L = [dict(H=4, T=550, seed=0), dict(H=8, T=1300, seed=0)]
VERIFY_3L = [dict(H=4, T=550, seed=0)]               # the cheaper unit, whose first 1001 steps a re-training replays
POINTS_3L1 = [dict(p, seed=SEED1) for p in POINTS_3L]                   # the same runs on a second seed
VERIFY_3L1 = [dict(VERIFY_3L[0], seed=SEED1)]
COST_3L = sum(MS_STEP_3.values()) / len(MS_STEP_3) * ALONE * STEPS_3L / 1000     # CPU-s per point, estimated
COST_3L1 = 4825.6                                   # CPU-s per point, measured by the stored fig3-long (Intel Xeon)
HEADS_4, T_4 = [1, 5, 10, 20, 30], 30_000            # of the official H = 1..60, T = 30k..130k
H_4N = 20                                           # the context panel at the head panel's H = 20 point
T_5H, T_5N = 30_000, 25_000                         # of the official 10k..30k and 10k..25k
T_B14 = 14_000                                      # the official T that ``fig2b`` left out
T_5H_REST, T_5N_REST = [10_000, 15_000, 20_000, 25_000], [10_000, 15_000, 20_000]      # the rest of Fig. 5's grid
PAPER_2A = "d = 64, n = 32, H = 1..60, T = 10k-40k, max(50k, 500 epochs) steps"
PAPER_B = dict(H=20, n=CONTEXTS, T=[6_000, 10_000, 14_000, 18_000], steps="max(50k, 500 epochs)")
PAPER_C = dict(H=30, n=32, dh=[10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 64], T=[10_000, 15_000, 20_000],
               steps=300_000)
PAPER_4 = "d = 64, n = 32, H = 1..60, T = 30k-130k (heads); H = 20, n = 1..60, T = 20k-60k (context); ≥ 50k steps"
PAPER_5 = "d = 64, n = 32, H = 1..60, T = 10k-30k (heads); H = 20, n = 1..60, T = 10k-25k (context); ≥ 50k steps"
# measured ms per model-step (one thread, evaluation included, x 1.07)
MS_STEP_B = {1: 1.30, 5: 2.50, 10: 3.23, 20: 2.97, 30: 3.22, 40: 4.06, 50: 4.80, 60: 5.02}   # by n, H = 20
MS_STEP_C = {10: 4.00, 32: 4.35, 64: 5.26}                                                  # by d_h, H = 30
MS_STEP_4 = {1: 5.34, 5: 7.72, 10: 10.11, 20: 12.31, 30: 18.32, 40: 21.16, 60: 29.93}      # by H, n = 32
MS_STEP_4N = {1: 5.89, 32: 12.31, 60: 18.35}                                          # by n, H = 20
MS_STEP_5H = {1: 1.08, 5: 1.74, 10: 2.23, 20: 3.23, 40: 6.28, 60: 7.69}                  # by H, n = 32
MS_STEP_5N = {1: 1.74, 10: 3.55, 32: 3.23, 60: 5.44}                                     # by n, H = 20


def ms_step(table: dict[int, float], x: int) -> float:
    """Linear interpolation of a measured ms-per-step table."""
    xs = sorted(table)
    lo = max([k for k in xs if k <= x], default=xs[0])
    hi = min([k for k in xs if k >= x], default=xs[-1])
    return table[lo] if hi == lo else table[lo] + (table[hi] - table[lo]) * (x - lo) / (hi - lo)


def cpu_s(points: list[dict], table: dict[int, float], key: str, recipe: dict) -> float:
    """Estimated CPU-seconds of ``points`` (no early stop): the measured ms per step times the official step budget
    max(min_steps, epochs · T / batch)."""
    return sum(ms_step(table, p[key]) * max(recipe["min_steps"], recipe["epochs"] * p["T"] // recipe["batch"]) / 1000
               for p in points)


POINTS_2A = [dict(H=H, T=T, seed=0) for H in HEADS for T in SIZES]
POINTS_2A1 = [dict(H=H, T=T, seed=SEED1) for H in HEADS for T in SIZES]
POINTS_B = [dict(H=20, n=n, dh=64, T=T, seed=0) for n in CONTEXTS for T in SIZES_B]
POINTS_C = [dict(H=30, n=32, dh=k, T=T, seed=0) for k in HEAD_DIMS for T in SIZES_C]
POINTS_3 = [dict(H=H, T=T, seed=0) for H, Ts in GRID_3.items() for T in Ts]
POINTS_4 = [dict(panel="H", H=H, n=32, T=T_4, seed=0) for H in HEADS_4]
POINTS_4N = [dict(panel="n", H=H_4N, n=n, T=T_4, seed=0) for n in CONTEXTS]
POINTS_5H = [dict(panel="H", H=H, n=32, T=T_5H, seed=0) for H in HEADS]
POINTS_5N = [dict(panel="n", H=20, n=n, T=T_5N, seed=0) for n in CONTEXTS]
POINTS_B14 = [dict(H=20, n=n, dh=64, T=T_B14, seed=0) for n in CONTEXTS]
POINTS_5H_REST = [dict(panel="H", H=H, n=32, T=T, seed=0) for H in HEADS for T in T_5H_REST]
POINTS_5N_REST = [dict(panel="n", H=20, n=n, T=T, seed=0) for n in CONTEXTS for T in T_5N_REST]
VERIFY_5_REST = [POINTS_5H_REST[0]]                 # the first (and cheapest) unit: a reference once it is stored
COST_4 = cpu_s(POINTS_4, MS_STEP_4, "H", RECIPE_4)
COST_4N = cpu_s(POINTS_4N, MS_STEP_4N, "n", RECIPE_4)
COST_5 = cpu_s(POINTS_5H, MS_STEP_5H, "H", RECIPE_5) + cpu_s(POINTS_5N, MS_STEP_5N, "n", RECIPE_5)
COST_5_REST = (cpu_s(POINTS_5H_REST, MS_STEP_5H, "H", RECIPE_5) + cpu_s(POINTS_5N_REST, MS_STEP_5N, "n", RECIPE_5))
# what is left of the official grid of Fig. 4 at the same measured rates (the GPU sweeps below; `paper` preset)
LEFT_4 = (cpu_s([dict(H=H, T=T) for H in HEADS for T in range(30_000, 130_001, 20_000)], MS_STEP_4, "H", RECIPE_4)
          - COST_4 + cpu_s([dict(n=n, T=T) for n in CONTEXTS for T in range(20_000, 60_001, 10_000)], MS_STEP_4N, "n",
                           RECIPE_4) - COST_4N)


# the official grids of Fig. 4 in full, on a GPU (`python -m lib evidence mha-memorization <name> --workers 16` on a
# machine with CUDA; `--where T=...` for the part a lease reaches): what the CPU sweeps above sample. The engine runs
# one model at 3-8 ms per step there (launch-bound; benchmarks/gpu_sweeps.py), so a unit of 254k steps (T = 130k)
# outlasts a 10-minute command; Fig. 2(c)'s 300k-step units likewise.
T_4_ALL = list(range(30_000, 130_001, 20_000))       # the head panel's T, official
T_4N_ALL = list(range(20_000, 60_001, 10_000))       # the context panel's T, official
POINTS_4_GPU = [dict(panel="H", H=H, n=32, T=T, seed=0) for H in HEADS for T in T_4_ALL]
POINTS_4N_GPU = [dict(panel="n", H=H_4N, n=n, T=T, seed=0) for n in CONTEXTS for T in T_4N_ALL]
GPU = dict(device="cuda")
VERIFY_4_GPU = [dict(panel="H", H=1, n=32, T=30_000, seed=0)]     # cheap one-model units whose prefix CI replays
VERIFY_4N_GPU = [dict(panel="n", H=H_4N, n=1, T=20_000, seed=0)]


def _sweep(points: list[dict], group_by: list[str], recipe: dict, cost_s: float, budget_h: float, claims: list[str],
           what: str, paper, prefix: int = 501) -> dict:
    """A declaration; ``prefix``: the optimiser steps a re-training check replays (one evaluation on the way)."""
    return dict(fn=train_points, points=points, group_by=group_by, config=recipe, cost_s=round(cost_s, 1),
                budget_h=budget_h, claims=claims, what=what, paper=paper, verify=dict(prefix=prefix))


def _gpu_sweep(points: list[dict], group_by: list[str], recipe: dict, claims: list[str], what: str, paper,
               verify: list[dict]) -> dict:
    """A declaration of a sweep trained on a GPU; ``verify``: the one-model units whose trajectory prefix is
    replayed on the CPU (within the other-machine tolerance of :mod:`lib.book.migrate`)."""
    sw = _sweep(points, group_by, dict(recipe, **GPU), 0.0, 0.0, claims, what, paper)
    sw["verify"].update(points=verify)
    return dict(sw, device="cuda")


SWEEPS = {
    "fig2a": _sweep(POINTS_2A, ["H"], RECIPE, 272.0, 3.0, ["fig2a-linear-paper-scale", "fig2a-monotone-paper-scale"],
                    "Fig. 2(a): d = 64, n = 32, d_h = 64, H = 1..60, T = 10k..40k, official recipe, seed 0", PAPER_2A),
    "fig2a-seed1": _sweep(POINTS_2A1, ["H"], RECIPE, 244.0, 2.5, ["fig2a-seeds-paper-scale"],
                          "Fig. 2(a), second seed: d = 64, n = 32, d_h = 64, H = 1..60, T = 10k..40k, official "
                          "recipe, seed 1", PAPER_2A),
    "fig2b": _sweep(POINTS_B, ["H", "n", "dh"], RECIPE_B, cpu_s(POINTS_B, MS_STEP_B, "n", RECIPE_B) / len(POINTS_B),
                    1.2, ["fig2b-monotone-paper-scale", "fig2b-n1-paper-scale"],
                    "Fig. 2(b): d = 64, H = 20, d_h = 64, n = 1..60, T = 6k, 10k, 18k (of 6k..18k), official recipe "
                    "(50k steps), one seed",
                    "d = 64, H = 20, n = 1..60, T = 6k, 10k, 14k, 18k, max(50k, 500 epochs) steps"),
    "fig2c": _sweep(POINTS_C, ["H", "n", "dh"], RECIPE_C, cpu_s(POINTS_C, MS_STEP_C, "dh", RECIPE_C) / len(POINTS_C),
                    1.3, ["fig2c-up-to-n-paper-scale", "fig2c-no-gain-paper-scale"],
                    "Fig. 2(c): d = 64, n = 32, H = 30, d_h = 10, 32, 64 (of 10..64), T = 20k (of 10k..20k), 300k "
                    "steps, one seed", "d = 64, n = 32, H = 30, d_h = 10, 15, ..., 60, 64, T = 10k, 15k, 20k, 300k steps"),
    "fig3": _sweep(POINTS_3, ["H"], RECIPE_3, 540.0, 1.2,
                   ["fig3-paper-capacity", "fig3-paper-majority", "fig3-paper-one-free"],
                   "Fig. 3 / App. H: d = 64, n = 32, d_h = 64, H = 4 and 8, T on a grid around 550 and 1300, 300k Adam "
                   "steps of batch 256 each, one seed; largest softmax weights per (example, head)",
                   "d = 64, n = 32, H = 4 (T ≈ 550) and 8 (T ≈ 1300), 300k steps", prefix=1001),
    "fig3-long": dict(_sweep(POINTS_3L, ["H"], RECIPE_3L, COST_3L, 1.5, ["fig3-long-plateau", "fig3-long-memorized"],
                             "Fig. 3 / App. H trained longer: d = 64, n = 32, d_h = 64, H = 4 at T = 550 and H = 8 at "
                             "T = 1300 (the paper's T), 750k Adam steps of batch 256 (2.5x App. H's 300k), one seed; "
                             "learning curve and largest softmax weights kept", "d = 64, n = 32, H = 4 (T ≈ 550) and "
                             "8 (T ≈ 1300), 300k steps", prefix=1001), verify=dict(prefix=1001, points=VERIFY_3L)),
    "fig3-long-seed1": dict(_sweep(POINTS_3L1, ["H"], RECIPE_3L, COST_3L1, 3.0,
                                   ["fig3-long-plateau", "fig3-long-memorized"],
                                   "Fig. 3 / App. H trained longer, second seed: d = 64, n = 32, d_h = 64, H = 4 at "
                                   "T = 550 and H = 8 at T = 1300, 750k Adam steps of batch 256, seed 1; learning curve "
                                   "and largest softmax weights kept", "d = 64, n = 32, H = 4 (T ≈ 550) and 8 "
                                   "(T ≈ 1300), 300k steps", prefix=1001), verify=dict(prefix=1001, points=VERIFY_3L1)),
    "fig2b-14k": _sweep(POINTS_B14, ["H", "n", "dh"], RECIPE_B,
                        cpu_s(POINTS_B14, MS_STEP_B, "n", RECIPE_B) / len(POINTS_B14), 0.5,
                        ["fig2b-monotone-paper-scale", "fig2b-n1-paper-scale"],
                        "Fig. 2(b) at the official T that fig2b left out: d = 64, H = 20, d_h = 64, n = 1..60, "
                        "T = 14k, official recipe (50k steps), one seed",
                        "d = 64, H = 20, n = 1..60, T = 6k, 10k, 14k, 18k, max(50k, 500 epochs) steps"),
    "fig5-rest": dict(_sweep(POINTS_5H_REST + POINTS_5N_REST, ["H", "n"], RECIPE_5,
                             COST_5_REST / (len(POINTS_5H_REST) + len(POINTS_5N_REST)), 3.5,
                             ["fig5a-monotone-paper-scale", "fig5b-monotone-paper-scale", "fig5b-n1-paper-scale"],
                             "Fig. 5, the rest of the official grid (regression, shared context): d = 64, H = 1..60 at "
                             "n = 32, T = 10k..25k; n = 1..60 at H = 20, T = 10k..20k; official recipe, one seed",
                             PAPER_5), verify=dict(prefix=501, points=VERIFY_5_REST)),
    "fig4": _sweep(POINTS_4, ["H", "n"], RECIPE_4, COST_4 / len(POINTS_4), 1.3, ["fig4-linear-paper-scale"],
                   "Fig. 4 (per-example contexts, 100 classes): d = 64, n = 32, d_h = 64, H = 1, 5, 10, 20, 30 (of "
                   "1..60), T = 30k (of 30k..130k), 58,593 steps, one seed", PAPER_4),
    "fig5": _sweep(POINTS_5H + POINTS_5N, ["H", "n"], RECIPE_5, COST_5 / (len(POINTS_5H) + len(POINTS_5N)), 1.2,
                   ["fig5a-monotone-paper-scale", "fig5b-monotone-paper-scale", "fig5b-n1-paper-scale"],
                   "Fig. 5 (regression, shared context): d = 64, H = 1..60 at n = 32, T = 30k; n = 1..60 at H = 20, "
                   "T = 25k; official recipe, one seed", PAPER_5),
    "fig4-context": _sweep(POINTS_4N, ["H", "n"], RECIPE_4, COST_4N / len(POINTS_4N), 1.7,
                           ["fig4-context-paper-scale", "fig4-context-plateau-paper-scale"],
                           "Fig. 4's context panel (per-example contexts, 100 classes): d = 64, H = 20, d_h = 64, "
                           "n = 1..60, T = 30k (of 20k..60k), 58,593 steps, one seed", PAPER_4),
    "fig4-gpu": _gpu_sweep(POINTS_4_GPU, ["H", "n"], RECIPE_4, ["fig4-linear-gpu"],
                           "Fig. 4's head panel, the official grid (per-example contexts, 100 classes): d = 64, n = 32, "
                           "d_h = 64, H = 1..60, T = 30k..130k, max(50k, 500 epochs) steps, one seed, on a GPU",
                           PAPER_4, VERIFY_4_GPU),
    "fig4-context-gpu": _gpu_sweep(POINTS_4N_GPU, ["H", "n"], RECIPE_4, ["fig4-context-gpu"],
                                   "Fig. 4's context panel, the official grid: d = 64, H = 20, d_h = 64, n = 1..60, "
                                   "T = 20k..60k, max(50k, 500 epochs) steps, one seed, on a GPU", PAPER_4,
                                   VERIFY_4N_GPU),
}
