"""The chapter's stored paper-scale sweeps, declared as data (issues 12, 15): grids, recipes, measured costs, CPU
budgets, the claims each feeds and the re-training tolerance. ``python -m lib evidence aot-memorization`` trains
them on the CPU into ``book/evidence/aot-memorization/`` (:mod:`lib.book.evidence`); the page reads them through
:mod:`~lib.chapters.aot_memorization.claims.stored`.

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
  :func:`family_seconds`. Fig. 5 (Exp. 1 at d = d_h = 40, 50, 60; v2: "the
  scaling remains linear"): a unit is one d, 2.83 CPU-hours for 5 seeds, 113 CPU-s per model.
* ``exp5-n70``, ``exp5-n70-mlp``, ``exp5-n70-eq2``: Exp. 5 / Fig. 3 (v2) at N = 70, d = d_h = 7, 10, 13,
  H = 1, 6, ..., 31, 16384 steps of batch 1024, one seed: the official AoT, the official MLP Transformer (one head,
  a GELU MLP of width 2d(H - 1), the same parameter count 4d^2 H + d(2N + 1); its learning rate decays to 1e-4, so
  a sweep of its own) and the eq. (2) AoT; 75, 222 and 94 CPU-s per model.
* ``exp6-seeds``, ``exp1-seeds``, ``exp2-seeds``, ``exp3-seeds``: the same grids and recipe with more seeds (Exp. 6
  to the paper's 20, Exps. 1-3 to its 5), declared apart (:data:`EXTENDS`) because a grown grid stales its stored
  run until the new points are trained; once complete, the page pools them with their base sweep.
* ``v1-short``: the same grid and model with the schedule of the code in the commit that first added v1's CSVs
  (2024-08-27): a single pass over 5000 batches of 1024 at a constant 1e-3, half of the 10k steps v1 states; the
  shorter-run hypothesis for the CSV's lower accuracies; 24 CPU-s per model.
* ``v1``: v1's protocol for Fig. 1a (arXiv v1, the official repository at commit 3c9981c): Adam at a constant 1e-3,
  10 epochs of a fixed set of 1000 batches of 1024, on the official (v2) model (v1's code also compressed at
  d = d_h, which v2 drops: the sweep isolates v1's recipe), one seed; 47 CPU-s per model.

The costs of the grids the chapter does not train (:class:`Grid`, the measurement :func:`grid_hours`, the stored
measurement :func:`load_costs` and the not-run reasons quoting it) follow the sweeps (issue 15): Exp. 5 at the
revised paper's N = 70, Appendix B.1 at N = 200, Appendix B.2's depth-3 models and v1's protocol. Each is measured by
``benchmarks/aot-memorization.py --costs`` (stored in ``benchmarks/results/aot-memorization-costs.json``, which
the page reads) with the chapter's own training functions (:func:`~lib.chapters.aot_memorization.train.train_points`,
:func:`~lib.chapters.aot_memorization.train.train_deep`): each family of one seed (one per value of d; per
(d, H) for the deep models) is trained for k and for 2k steps, and the difference gives the CPU-seconds per
step (the data set and the full-table evaluation, paid once, are the rest). The result is the grid's CPU-hours
at its recipe's steps and seeds.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace

from lib.chapters.aot_memorization import train as AT

CHAPTER = "aot-memorization"
DATA_SEED = 2222                                    # the official code's seed
OFFICIAL = asdict(AT.Recipe())                      # the official v2 recipe: 4096 steps of batch 256
B1 = asdict(AT.Recipe(batch=1024, batches_per_epoch=64, epochs=64))
AOT5 = asdict(AT.Recipe(batch=1024, batches_per_epoch=256, epochs=64))
MLP5 = asdict(AT.Recipe(batch=1024, batches_per_epoch=256, epochs=64, lr_end=1e-4))
MLP_B1 = asdict(AT.Recipe(batch=1024, batches_per_epoch=64, epochs=64, lr_end=1e-4))   # the v2 code's lr_low = lr * 0.01
V1 = asdict(AT.Recipe(batch=1024, batches_per_epoch=1000, epochs=10, lr=1e-3, lr_end=1e-3))
V1_SHORT = asdict(AT.Recipe(batch=1024, batches_per_epoch=5000, epochs=1, lr=1e-3, lr_end=1e-3))
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


def points(grid: str, variants: tuple[str, ...] = ("official",), reps: int = 1, first: int = 0) -> list[dict]:
    """The sweep points of ``GRIDS[grid]``: every model, seed ``first .. reps - 1`` and configuration, in that order."""
    N, cfg = GRIDS[grid]
    return [dict(variant=v, N=N, d=d, dh=dh, H=H, rep=r) for v in variants for r in range(first, reps)
            for d, dh, H in cfg]


def mlp_points(grid: str = "exp5") -> list[dict]:
    """Exp. 5's MLP Transformers (N = 70; ``grid="b1-fig5"``: App. B.1's Fig. 7 at N = 200): one head, width
    2d(H - 1) for each (d, d, H) of the AoT grid."""
    N, cfg = GRIDS[grid]
    return AT.grid_points(dict(N=N, configs=[(d, dh, 1, 2 * d * (H - 1)) for d, dh, H in cfg], reps=1,
                               variant="official", mlp=True))


def sweep(pts: list[dict], group_by: list[str], recipe: dict, cost_s: float, budget_h: float, claims: list[str],
          what: str, paper: str, tol: dict = TOL, units: int | None = None, cheap: list[dict] | None = None) -> dict:
    """One sweep's declaration (:mod:`lib.book.evidence`), trained by :func:`~.train.train_points`; ``cheap``: the
    points the re-training test trains alone (one model, instead of a whole family of the grid)."""
    verify = dict(fields=tol, units=units, **({"points": cheap} if cheap else {}))
    return dict(fn=AT.train_points, points=pts, group_by=group_by, config=dict(recipe=recipe, data_seed=DATA_SEED),
                cost_s=cost_s, budget_h=budget_h, claims=claims, what=what, paper=paper, verify=verify)


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
                  AT.PAPER_SCALE["exp2"], units=1, cheap=[dict(variant="official", N=50, d=10, dh=1, H=20, rep=1)]),
    "exp3": sweep(points("exp3", BOTH, 3), BY_SEED, OFFICIAL, 5.3, 0.5, ["exp3-paper-scale"],
                  "Exp. 3 / Fig. 2a: N = 50, d_h = 10, H = 20, d = 5..15, official v2 recipe, 3 seeds, both models",
                  AT.PAPER_SCALE["exp3"], units=1, cheap=[dict(variant="paper", N=50, d=5, dh=10, H=20, rep=1)]),
    "b1-fig6": sweep(points("b1-fig6"), ["variant", "rep", "dh"], B1, 70.0, 0.8,
                     ["appB1-exp2-linear-paper-scale", "appB1-exp2-vs-paper-paper-scale"],
                     "App. B.1 / Fig. 6 (Exp. 2): N = 200, d = 50, H = 11, d_h = 1, 5, ..., 50, 4096 steps of batch "
                     "1024, 1 seed, official model", PAPER_B1),
    "b1-fig5": sweep(points("b1-fig5"), BY_D, B1, 113.0, 0.8,
                     ["appB1-exp1-linear-paper-scale", "appB1-exp1-vs-paper-paper-scale", "appB1-exp4-exponent-paper-scale", "appB1-exp4-quadratic-paper-scale"],
                     "App. B.1 / Fig. 5 (Exp. 1): N = 200, d = d_h = 40, 50, 60, H = 1, 3, ..., 11, 4096 steps of "
                     "batch 1024, 1 seed, official model", PAPER_B1),
    "exp1": sweep(points("exp1", BOTH, 3), BY_D, OFFICIAL, 4.6, 0.7, CLAIMS_EXP1,
                  "Exp. 1 / Fig. 1a and Exp. 4 / Fig. 2b: N = 50, d = d_h = 3..13, H = 1..31 step 5, official v2 "
                  "recipe, 3 seeds, both models", AT.PAPER_SCALE["exp1"], units=1,
                  cheap=[dict(variant="official", N=50, d=3, dh=3, H=1, rep=0)]),
    "exp5-n70": sweep(points("exp5"), BY_D, AOT5, 75.0, 1.5, CLAIMS_EXP5,
                      "Exp. 5 / Fig. 3, AoT: N = 70, d = d_h = 7, 10, 13, H = 1..31 step 5, 16384 steps of batch 1024, "
                      "1 seed, official model", PAPER5),
    "exp5-n70-mlp": sweep(mlp_points(), BY_D, MLP5, 222.0, 1.5, CLAIMS_EXP5[:2],
                          "Exp. 5 / Fig. 3, MLP Transformer: N = 70, d = 7, 10, 13, one head, width 2d(H - 1) for "
                          "H = 1..31 step 5, 16384 steps of batch 1024 (lr to 1e-4), 1 seed, official code", PAPER5),
    "exp5-n70-eq2": sweep(points("exp5", ("paper",)), BY_D, AOT5, 94.0, 1.5, ["exp5-mlp-better-eq2-paper-scale"],
                          "Exp. 5 / Fig. 3, AoT: N = 70, d = d_h = 7, 10, 13, H = 1..31 step 5, 16384 steps of batch "
                          "1024, 1 seed, eq. (2) model", PAPER5),
    # App. B.1 / Fig. 7 (Exp. 5 at N = 200): the MLP side; the AoT side is b1-fig5 (the same models as the v2 code's)
    "b1-fig7": sweep(mlp_points("b1-fig5"), BY_D, MLP_B1, 62.0, 0.6,
                     ["appB1-exp5-mlp-better-paper-scale", "appB1-exp5-harder-paper-scale",
                      "appB1-exp5-vs-paper-paper-scale"],
                     "App. B.1 / Fig. 7 (Exp. 5), MLP Transformer: N = 200, d = 40, 50, 60, one head, width 2d(H - 1) "
                     "for H = 1, 3, ..., 11, 4096 steps of batch 1024 (lr to 1e-4), 1 seed, official code (the AoT side: "
                     "b1-fig5)", PAPER_B1),
    # more seeds toward the paper's (issue 26 item 5): each its own sweep, so that the stored seeds stay current while
    # these train; the page pools them into the base sweep once complete (EXTENDS, claims.stored.load)
    "exp6-seeds": sweep(points("exp6", BOTH, 20, first=6), BY_SEED, OFFICIAL, 2.25, 0.3,
                        ["exp6-ratio-paper-scale", "exp6-above-bound-paper-scale", "exp6-ratio-eq2-paper-scale"],
                        "Exp. 6 / Fig. 4, seeds 6-19 (with exp6: the paper's 20): N = 10, d = d_h = 2, H = 1..21, "
                        "official v2 recipe, 14 seeds, both models", AT.PAPER_SCALE["exp6"],
                        tol={"running_acc": 0.06, "table_acc": 0.06}, units=1),
    "exp1-seeds": sweep(points("exp1", BOTH, 5, first=3), BY_D, OFFICIAL, 3.79, 0.6, CLAIMS_EXP1,
                        "Exp. 1 / Fig. 1a and Exp. 4 / Fig. 2b, seeds 3-4 (with exp1: the paper's 5): N = 50, "
                        "d = d_h = 3..13, H = 1..31 step 5, official v2 recipe, 2 seeds, both models",
                        AT.PAPER_SCALE["exp1"], units=1, cheap=[dict(variant="official", N=50, d=3, dh=3, H=1, rep=3)]),
    "exp2-seeds": sweep(points("exp2", BOTH, 5, first=3), BY_SEED, OFFICIAL, 4.16, 0.2, ["exp2-paper-scale"],
                        "Exp. 2 / Fig. 1b, seeds 3-4 (with exp2: the paper's 5): N = 50, d = 10, H = 20, d_h = 1..10, "
                        "official v2 recipe, 2 seeds, both models", AT.PAPER_SCALE["exp2"], units=1,
                        cheap=[dict(variant="official", N=50, d=10, dh=1, H=20, rep=3)]),
    "exp3-seeds": sweep(points("exp3", BOTH, 5, first=3), BY_SEED, OFFICIAL, 4.9, 0.2, ["exp3-paper-scale"],
                        "Exp. 3 / Fig. 2a, seeds 3-4 (with exp3: the paper's 5): N = 50, d_h = 10, H = 20, d = 5..15, "
                        "official v2 recipe, 2 seeds, both models", AT.PAPER_SCALE["exp3"], units=1,
                        cheap=[dict(variant="paper", N=50, d=5, dh=10, H=20, rep=3)]),
    "v1": sweep(points("exp1"), BY_D, V1, 47.0, 1.2, ["v1-protocol-paper-scale", "v1-exponent-paper-scale", "v1-cubic-paper-scale", "v1-above-bound-paper-scale"],
                "v1's protocol for Exp. 1 / Fig. 1a: N = 50, d = d_h = 3..13, H = 1..31 step 5, Adam at a constant "
                "1e-3, 10 epochs of 1000 batches of 1024 (10k steps), 1 seed, official (v2) model", PAPER_V1),
    "v1-short": sweep(points("exp1"), BY_D, V1_SHORT, 24.0, 0.7, ["v1-short-run-paper-scale"],
                      "v1's grid for Exp. 1 / Fig. 1a with the model code of the commit that added v1's CSVs (one pass "
                      "over 5000 batches of 1024 at a constant 1e-3: half of v1's stated 10k steps), 1 seed, official "
                      "(v2) model", PAPER_V1),
}

EXTENDS = {"exp6-seeds": "exp6", "exp1-seeds": "exp1", "exp2-seeds": "exp2", "exp3-seeds": "exp3"}   # sweep -> its base


# ----------------------------------------------------------------------------------------------
# Measured costs of the grids the chapter does not train
# ----------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Grid:
    """A training grid to cost: ``configs`` (d, d_h, H) or (d, d_h, H, width) with ``mlp``, ``reps`` seeds."""
    name: str
    N: int
    configs: tuple
    recipe: AT.Recipe
    variant: str = "official"
    mlp: bool = False
    reps: int = 5
    L: int = 0                   # > 0: DeepAoT of L layers (configs (d, d, H), H heads per layer)


def _cpu(points: list[dict], recipe: AT.Recipe, steps: int, fn) -> float:
    probe = replace(recipe, batches_per_epoch=steps, epochs=1)
    c0 = time.process_time()
    fn(points, lambda p, r: None, asdict(probe), 2222)
    return time.process_time() - c0


def family_seconds(points: list[dict], recipe: AT.Recipe, k: int = 4, fn=AT.train_points) -> float:
    """CPU-seconds to train the family ``points`` for ``recipe.steps`` steps, from probes of k and 2k steps."""
    a, b = _cpu(points, recipe, k, fn), _cpu(points, recipe, 2 * k, fn)
    per_step = max(b - a, 0.0) / k
    return max(a - k * per_step, 0.0) + per_step * recipe.steps


def grid_hours(g: Grid, k: int = 4) -> float:
    """CPU-hours of the grid ``g``, one family per (d, seed) as the evidence sweeps group it (per (d, H, seed)
    for the deep models); one seed is probed."""
    if g.L:
        secs = {c: family_seconds([dict(N=g.N, d=c[0], H=c[2], L=g.L, rep=0)], g.recipe, k, AT.train_deep)
                for c in dict.fromkeys(g.configs)}           # each distinct configuration probed once
        return sum(secs[c] for c in g.configs) * g.reps / 3600
    by_d: dict[int, list] = {}
    for c in g.configs:
        by_d.setdefault(c[0], []).append(c)
    tot = 0.0
    for cs in by_d.values():
        pts = AT.grid_points(dict(N=g.N, configs=cs, reps=1, variant=g.variant, mlp=g.mlp))
        tot += family_seconds(pts, g.recipe, k)
    return tot * g.reps / 3600


def exp5_grids(P: dict) -> list[Grid]:
    """Exp. 5 / Fig. 3 as the v2 code runs it (``P`` = the ``paper`` preset): the official AoT, the eq. (2) AoT
    and the official MLP Transformer (one head, width 2d(H - 1)), N = 70, d = 7, 10, 13."""
    R = AT.Recipe(batch=P["exp5_batch"], batches_per_epoch=P["exp5_batches_per_epoch"], epochs=P["epochs"],
                  lr=P["lr"], lr_end=P["lr_end"])
    aot = tuple((d, d, H) for d in P["exp5_d"] for H in P["exp5_H"])
    mlp = tuple((d, d, 1, 2 * d * (H - 1)) for d in P["exp5_d"] for H in P["exp5_H"])
    return [Grid("AoT, official model", P["exp5_N"], aot, R, reps=P["reps"]),
            Grid("AoT, eq. (2) model", P["exp5_N"], aot, R, variant="paper", reps=P["reps"]),
            Grid("MLP Transformer", P["exp5_N"], mlp, replace(R, lr_end=P["exp5_lr_end_mlp"]), mlp=True, reps=P["reps"])]


def appendix_b1_grids() -> list[Grid]:
    """Appendix B.1 (v2 code): N = 200, 4096 steps of batch 1024, 5 seeds, official model; Fig. 5 (Exp. 1:
    d = d_h = 40, 50, 60, H = 1, 3, ..., 11) and Fig. 6 (Exp. 2: d = 50, H = 11, d_h = 1, 5, 10, ..., 50)."""
    R = AT.Recipe(batch=1024, batches_per_epoch=64, epochs=64)
    return [Grid("Fig. 5 (Exp. 1)", 200, tuple((d, d, H) for d in (40, 50, 60) for H in range(1, 12, 2)), R),
            Grid("Fig. 6 (Exp. 2)", 200, tuple((50, dh, 11) for dh in (1, *range(5, 51, 5))), R)]


def appendix_b2_grids() -> list[Grid]:
    """Appendix B.2 (v2 code): 3 layers, N = 70, 8192 steps of batch 512 at a constant learning rate 2.5e-3,
    5 seeds; Fig. 8 (Exp. 1: d = d_h = 7, 10, 13, H = 1, 5, ..., 21 heads per layer) and Fig. 9 (Exp. 2:
    d = 10, H = 21, d_h = 1..10: costed at d_h = d, the largest)."""
    R = AT.Recipe(batch=512, batches_per_epoch=128, epochs=64, lr=2.5e-3, lr_end=2.5e-3)
    return [Grid("Fig. 8 (depth, Exp. 1)", 70, tuple((d, d, H) for d in (7, 10, 13) for H in range(1, 22, 4)), R, L=3),
            Grid("Fig. 9 (depth, Exp. 2)", 70, tuple((10, 10, 21) for _ in range(10)), R, L=3)]


def v1_grid() -> Grid:
    """v1's protocol for Fig. 1a: Adam at a constant 1e-3, 10 epochs of a fixed set of 1000 batches of 1024 (10k
    steps; the v1 code's), N = 50, d = d_h = 3..13, H = 1, 6, ..., 31, one seed, official model (the sweep ``v1`` of
    :mod:`~lib.chapters.aot_memorization.evidence`)."""
    R = AT.Recipe(batch=1024, batches_per_epoch=1000, epochs=10, lr=1e-3, lr_end=1e-3)
    return Grid("v1 Fig. 1a", 50, tuple((d, d, H) for d in range(3, 14) for H in range(1, 32, 5)), R, reps=1)


STORED = AT.__file__.rsplit("/lib/", 1)[0] + "/benchmarks/results/aot-memorization-costs.json"


def load_costs(path: str = STORED) -> dict | None:
    """The measurement written by ``benchmarks/aot-memorization.py --costs`` (None if it was never run)."""
    import json
    try:
        with open(path) as fh:
            return json.load(fh)
    except OSError:
        return None


def reason(costs: dict | None, names: list[str], what: str, extra: str = "") -> str:
    """A not-run reason quoting the measured CPU-hours of the grids ``names`` (and ``extra``, e.g. an estimate)."""
    if not costs:
        return f"{what}; its cost is not measured (run benchmarks/aot-memorization.py --costs)" + (f"; {extra}" if extra else "")
    gs = costs["grids"]
    parts = ", ".join(f"{n}: {gs[n]['cpu_hours']:.1f} ({gs[n]['models']} models)" for n in names)
    total = sum(gs[n]["cpu_hours"] for n in names)
    return (f"{what}: {total:.1f} CPU-hours at one torch thread ({parts}; measured {costs['date']} by "
            "benchmarks/aot-memorization.py --costs from probes of 4 and 8 steps of the chapter's training functions, "
            "an estimate that varies by tens of percent on a shared CPU)" + (f"; {extra}" if extra else ""))


# ----------------------------------------------------------------------------------------------
# Grids nobody has probed: scaled estimates from the measured ones (stated as estimates on the page)
# ----------------------------------------------------------------------------------------------
def mlp_over_aot(costs: dict) -> float:
    """The MLP Transformer's cost over the official AoT's on the same Exp. 5 grid (N = 70, measured): the factor by
    which the estimates below scale an AoT grid's measured cost to its MLP counterpart."""
    gs = costs["grids"]
    return gs["MLP Transformer"]["cpu_hours"] / gs["AoT, official model"]["cpu_hours"]


def appendix_b1_fig7_grids() -> list[Grid]:
    """App. B.1 / Fig. 7 (Exp. 5 at N = 200, d = 50), one seed: the official AoT (H = 1, 3, ..., 11, the same
    models as Fig. 5's d = 50 row) and the MLP Transformer (one head, widths 0, 4d, ..., 20d = 2d(H - 1)), B.1's
    recipe (4096 steps of batch 1024), the MLP's learning rate decaying to 1e-4 as at N = 70 (an assumption)."""
    R = AT.Recipe(batch=1024, batches_per_epoch=64, epochs=64)
    return [Grid("Fig. 7 (Exp. 5), AoT", 200, tuple((50, 50, H) for H in range(1, 12, 2)), R, reps=1),
            Grid("Fig. 7 (Exp. 5), MLP Transformer", 200, tuple((50, 50, 1, 2 * 50 * (H - 1)) for H in range(1, 12, 2)),
                 replace(R, lr_end=1e-4), mlp=True, reps=1)]


# grid_hours(g) of appendix_b1_fig7_grids(), one seed each, measured once (2026-11-24, one torch thread on the
# project's 2-core EPYC, shared with an evidence run); benchmarks/aot-memorization.py --costs does not cover Fig. 7.
FIG7_MEASURED = {"Fig. 7 (Exp. 5), AoT": 0.219, "Fig. 7 (Exp. 5), MLP Transformer": 0.102}


def fig10_estimate(costs: dict | None) -> str:
    """App. B.2 / Fig. 10 (Exp. 5 with 3 layers, N = 70, widths 0..40d in steps of 8d, i.e. H = 1, 5, ..., 21 heads
    per layer, d = 7, 10, 13 assumed as in Exp. 5): estimated from Fig. 8's measured grid (the same deep AoTs) and
    :func:`mlp_over_aot` for the deep MLP side."""
    how = ("the deep AoTs are Fig. 8's (declare DeepAoT points dict(N, d, H, L = 3, rep), with dh for Fig. 9, trained "
           "by train.train_deep; they stack eq. (2) layers, while the v2 code's deep model shares one compression "
           "across its layers and has no family in the chapter); the deep MLP Transformer "
           "has no family in the chapter and must be written first")
    if not costs:
        return f"Fig. 10 (depth, Exp. 5): cost neither measured nor estimated; {how}"
    g8 = costs["grids"]["Fig. 8 (depth, Exp. 1)"]["cpu_hours"]
    r70 = mlp_over_aot(costs)
    r200 = FIG7_MEASURED["Fig. 7 (Exp. 5), MLP Transformer"] / FIG7_MEASURED["Fig. 7 (Exp. 5), AoT"]
    lo, hi = sorted((g8 * r70, g8 * r200))
    return (f"Fig. 10 (depth, Exp. 5), estimated, not measured: {g8 + lo:.0f} to {g8 + hi:.0f} CPU-hours ({g8:.1f} for its "
            f"deep AoTs, Fig. 8's grid, plus {lo:.0f} to {hi:.0f} for the deep MLP Transformers: Fig. 8's cost times the "
            f"one-layer MLP/AoT cost ratio, measured as {r70:.1f}x on Exp. 5 at N = 70 and {r200:.2f}x on Fig. 7 at "
            f"N = 200); to run Figs. 8-10: {how}")
