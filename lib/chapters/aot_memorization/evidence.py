"""The chapter's stored paper-scale sweeps, declared as data (issues 12, 15): grids, recipes, measured costs, CPU
budgets, the claims each feeds and the re-training tolerance. ``python -m lib evidence aot-memorization`` trains
them on the CPU into ``book/evidence/aot-memorization/`` (:mod:`lib.book.evidence`); the page reads them through
:mod:`~lib.chapters.aot_memorization.stored`.

A point is one trained model, ``dict(variant, N, d, dh, H, rep)`` (plus ``mlp=True, width=w`` for Exp. 5's MLP
Transformer); points with equal ``group_by`` values form one work unit, trained as zero-padded families by the
chapter's one training function :func:`~lib.chapters.aot_memorization.train.train_points` (the live grids use it
too) with the config ``dict(recipe, data_seed)``. Initialisation seeds hash (data seed, model, configuration,
repetition) (:func:`~lib.chapters.aot_memorization.train.member_seed`), so a model does not depend on its grid.

Costs are measured CPU-seconds per model, one torch thread on the project's 2-core EPYC
(``benchmarks/aot-memorization.py --costs``, ``benchmarks/results/aot-memorization-costs.json``):

* ``exp6``, ``exp2``, ``exp3``: Exps. 6, 2 (Fig. 1b) and 3 (Fig. 2a) at the official v2 recipe, both models.
  exp6's tolerance: one model of its sample unit re-trained on another 2-core EPYC host moved by 0.041 (running
  accuracy) and 0.04 (table accuracy); on one host the re-training is bitwise reproducible.
* ``exp1``: Exp. 1 / Fig. 1a's full grid (N = 50, d = d_h = 3..13, H = 1..31 step 5), both models, 3 seeds (the
  paper: 5, official model); a unit is one (model, seed, d). 3.2 CPU-s per model at d = 3, 6.7 at d = 13; the
  eq. (2) model costs about 1.25x the official one: 4.6 on average.
* ``b1-fig6``, ``b1-fig5``: App. B.1 (v2), N = 200, 4096 steps of batch 1024, one seed (the paper: 5). Fig. 6
  (Exp. 2 at d = 50, H = 11; v2: "the scaling here is linear", against Fig. 1b's "quadratic"): a unit is one model
  (unpadded, the eleven cost less than one family padded to d_h = 45), 70 CPU-s each, probed by
  :func:`~lib.chapters.aot_memorization.costs.family_seconds`. Fig. 5 (Exp. 1 at d = d_h = 40, 50, 60; v2: "the
  scaling remains linear"): a unit is one d, 2.83 CPU-hours for 5 seeds, 113 CPU-s per model.
* ``exp5-n70``, ``exp5-n70-mlp``, ``exp5-n70-eq2``: Exp. 5 / Fig. 3 (v2) at N = 70, d = d_h = 7, 10, 13,
  H = 1, 6, ..., 31, 16384 steps of batch 1024, one seed: the official AoT, the official MLP Transformer (one head,
  a GELU MLP of width 2d(H - 1), the same parameter count 4d^2 H + d(2N + 1); its learning rate decays to 1e-4, so
  a sweep of its own) and the eq. (2) AoT; 75, 222 and 94 CPU-s per model.
* ``v1``: v1's protocol for Fig. 1a (arXiv v1, the official repository at commit 3c9981c): Adam at a constant 1e-3,
  10 epochs of a fixed set of 1000 batches of 1024, on the official (v2) model (v1's code also compressed at
  d = d_h, which v2 drops: the sweep isolates v1's recipe), one seed; 47 CPU-s per model.
"""
from __future__ import annotations

from dataclasses import asdict

from lib.chapters.aot_memorization import train as AT

CHAPTER = "aot-memorization"
DATA_SEED = 2222                                    # the official code's seed
OFFICIAL = asdict(AT.Recipe())                      # the official v2 recipe: 4096 steps of batch 256
B1 = asdict(AT.Recipe(batch=1024, batches_per_epoch=64, epochs=64))
AOT5 = asdict(AT.Recipe(batch=1024, batches_per_epoch=256, epochs=64))
MLP5 = asdict(AT.Recipe(batch=1024, batches_per_epoch=256, epochs=64, lr_end=1e-4))
V1 = asdict(AT.Recipe(batch=1024, batches_per_epoch=1000, epochs=10, lr=1e-3, lr_end=1e-3))
TOL = {"running_acc": 0.03, "table_acc": 0.03}

GRIDS = {                                           # (N, [(d, d_h, H)]) of each experiment
    "exp6": (10, [(2, 2, H) for H in (1, 5, 9, 13, 17, 21)]),       # the v2 grid (PAPER["exp6_H"])
    "exp2": (50, [(10, dh, 20) for dh in range(1, 11)]),
    "exp3": (50, [(d, 10, 20) for d in range(5, 16)]),
    "exp1": (50, [(d, d, H) for d in range(3, 14) for H in range(1, 32, 5)]),   # Fig. 1a's v2 grid; v1's too
    "b1-fig6": (200, [(50, dh, 11) for dh in (1, *range(5, 51, 5))]),
    "b1-fig5": (200, [(d, d, H) for d in (40, 50, 60) for H in range(1, 12, 2)]),
    "exp5": (70, [(d, d, H) for d in (7, 10, 13) for H in range(1, 32, 5)]),
}
PAPER_B1 = "v2 App. B.1: N = 200, 4096 steps of batch 1024, 5 seeds, official code"
PAPER5 = AT.PAPER_SCALE["exp5"] + " (v2 code and CSV)"
PAPER_V1 = "v1: N = 50, d = d_h = 3..13, H = 1..26 (31 for d >= 11), 10k steps of batch 1024 at lr 1e-3, 2 seeds"


def points(grid: str, variants: tuple[str, ...] = ("official",), reps: int = 1) -> list[dict]:
    """The sweep points of ``GRIDS[grid]``: every model, seed and configuration, in that order."""
    N, cfg = GRIDS[grid]
    return [dict(variant=v, N=N, d=d, dh=dh, H=H, rep=r) for v in variants for r in range(reps) for d, dh, H in cfg]


def mlp_points() -> list[dict]:
    """Exp. 5's MLP Transformers at N = 70: one head, width 2d(H - 1) for each (d, d, H) of the AoT grid."""
    N, cfg = GRIDS["exp5"]
    return AT.grid_points(dict(N=N, configs=[(d, dh, 1, 2 * d * (H - 1)) for d, dh, H in cfg], reps=1,
                               variant="official", mlp=True))


def sweep(pts: list[dict], group_by: list[str], recipe: dict, cost_s: float, budget_h: float, claims: list[str],
          what: str, paper: str, tol: dict = TOL, units: int | None = None) -> dict:
    """One sweep's declaration (:mod:`lib.book.evidence`), trained by :func:`~.train.train_points`."""
    return dict(fn=AT.train_points, points=pts, group_by=group_by, config=dict(recipe=recipe, data_seed=DATA_SEED),
                cost_s=cost_s, budget_h=budget_h, claims=claims, what=what, paper=paper,
                verify=dict(fields=tol, units=units))


BOTH, BY_SEED, BY_D = ("official", "paper"), ["variant", "rep"], ["variant", "rep", "d"]
CLAIMS_EXP1 = ["exp1-vs-paper-paper-scale", "exp1-linear-paper-scale", "exp1-above-bound-paper-scale",
               "exp1-slope-ratio-paper-scale", "exp4-exponent-paper-scale", "exp4-cubic-v1-paper-scale",
               "exp1-linear-eq2-paper-scale", "exp4-exponent-eq2-paper-scale", "exp1-models-agree-paper-scale"]
CLAIMS_EXP5 = ["exp5-mlp-better-v2-paper-scale", "exp5-same-scaling-v1-paper-scale", "exp5-aot-vs-paper-paper-scale"]

SWEEPS = {
    "exp6": sweep(points("exp6", BOTH, 6), BY_SEED, OFFICIAL, 1.9, 0.5,
                  ["exp6-ratio-paper-scale", "exp6-above-bound-paper-scale"],
                  "Exp. 6 / Fig. 4: N = 10, d = d_h = 2, H = 1..21, official v2 recipe, 6 seeds, both models",
                  AT.PAPER_SCALE["exp6"], tol={"running_acc": 0.06, "table_acc": 0.06}, units=1),
    "exp2": sweep(points("exp2", BOTH, 3), BY_SEED, OFFICIAL, 4.4, 0.5, ["exp2-paper-scale"],
                  "Exp. 2 / Fig. 1b: N = 50, d = 10, H = 20, d_h = 1..10, official v2 recipe, 3 seeds, both models",
                  AT.PAPER_SCALE["exp2"], units=1),
    "exp3": sweep(points("exp3", BOTH, 3), BY_SEED, OFFICIAL, 5.3, 0.5, ["exp3-paper-scale"],
                  "Exp. 3 / Fig. 2a: N = 50, d_h = 10, H = 20, d = 5..15, official v2 recipe, 3 seeds, both models",
                  AT.PAPER_SCALE["exp3"], units=1),
    "b1-fig6": sweep(points("b1-fig6"), ["variant", "rep", "dh"], B1, 70.0, 0.8,
                     ["appB1-exp2-linear", "appB1-exp2-vs-paper"],
                     "App. B.1 / Fig. 6 (Exp. 2): N = 200, d = 50, H = 11, d_h = 1, 5, ..., 50, 4096 steps of batch "
                     "1024, 1 seed, official model", PAPER_B1),
    "b1-fig5": sweep(points("b1-fig5"), BY_D, B1, 113.0, 0.8,
                     ["appB1-exp1-linear", "appB1-exp1-vs-paper", "appB1-exp4-exponent", "appB1-exp4-quadratic"],
                     "App. B.1 / Fig. 5 (Exp. 1): N = 200, d = d_h = 40, 50, 60, H = 1, 3, ..., 11, 4096 steps of "
                     "batch 1024, 1 seed, official model", PAPER_B1),
    "exp1": sweep(points("exp1", BOTH, 3), BY_D, OFFICIAL, 4.6, 0.7, CLAIMS_EXP1,
                  "Exp. 1 / Fig. 1a and Exp. 4 / Fig. 2b: N = 50, d = d_h = 3..13, H = 1..31 step 5, official v2 "
                  "recipe, 3 seeds, both models", AT.PAPER_SCALE["exp1"], units=1),
    "exp5-n70": sweep(points("exp5"), BY_D, AOT5, 75.0, 1.5, CLAIMS_EXP5,
                      "Exp. 5 / Fig. 3, AoT: N = 70, d = d_h = 7, 10, 13, H = 1..31 step 5, 16384 steps of batch 1024, "
                      "1 seed, official model", PAPER5),
    "exp5-n70-mlp": sweep(mlp_points(), BY_D, MLP5, 222.0, 1.5, CLAIMS_EXP5[:2],
                          "Exp. 5 / Fig. 3, MLP Transformer: N = 70, d = 7, 10, 13, one head, width 2d(H - 1) for "
                          "H = 1..31 step 5, 16384 steps of batch 1024 (lr to 1e-4), 1 seed, official code", PAPER5),
    "exp5-n70-eq2": sweep(points("exp5", ("paper",)), BY_D, AOT5, 94.0, 1.5, ["exp5-mlp-better-eq2-paper-scale"],
                          "Exp. 5 / Fig. 3, AoT: N = 70, d = d_h = 7, 10, 13, H = 1..31 step 5, 16384 steps of batch "
                          "1024, 1 seed, eq. (2) model", PAPER5),
    "v1": sweep(points("exp1"), BY_D, V1, 47.0, 1.2, ["v1-protocol", "v1-exponent", "v1-cubic", "v1-above-bound"],
                "v1's protocol for Exp. 1 / Fig. 1a: N = 50, d = d_h = 3..13, H = 1..31 step 5, Adam at a constant "
                "1e-3, 10 epochs of 1000 batches of 1024 (10k steps), 1 seed, official (v2) model", PAPER_V1),
}
