"""Measured costs of the grids the chapter does not train (issue 15): Exp. 5 at the revised paper's N = 70,
Appendix B.1 at N = 200, Appendix B.2's depth-3 models and v1's protocol. Each is measured by
``benchmarks/aot-memorization.py --costs`` (stored in ``benchmarks/results/aot-memorization-costs.json``, which
the page reads) with the chapter's own training functions (:func:`~lib.chapters.aot_memorization.train.train_points`,
:func:`~lib.chapters.aot_memorization.deep.train_points`): each family of one seed (one per value of d; per
(d, H) for the deep models) is trained for k and for 2k steps, and the difference gives the CPU-seconds per
step (the data set and the full-table evaluation, paid once, are the rest). The result is the grid's CPU-hours
at its recipe's steps and seeds.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace

from lib.chapters.aot_memorization import train as AT


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
    from lib.chapters.aot_memorization import deep
    if g.L:
        secs = {c: family_seconds([dict(N=g.N, d=c[0], H=c[2], L=g.L, rep=0)], g.recipe, k, deep.train_points)
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


def load(path: str = STORED) -> dict | None:
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


def fig7_estimate(costs: dict | None = None, seeds: int = 5) -> str:
    """The not-run reason's cost and how-to for App. B.1 / Fig. 7 (``costs`` unused: Fig. 7 was probed apart)."""
    aot, mlp = FIG7_MEASURED["Fig. 7 (Exp. 5), AoT"], FIG7_MEASURED["Fig. 7 (Exp. 5), MLP Transformer"]
    return (f"{seeds * (aot + mlp):.1f} CPU-hours for the paper's {seeds} seeds ({aot + mlp:.2f} for one: the AoT side "
            f"{aot:.2f}, the MLP side {mlp:.2f}), measured once by costs.grid_hours on costs.appendix_b1_fig7_grids() "
            "(probes of 4 and 8 steps, one torch thread, a shared CPU: tens of percent); to run it, declare a sweep like "
            "exp5-n70-mlp at N = 200, d = 50 with B.1's recipe (4096 steps of batch 1024, the MLP's learning rate "
            "decaying to 1e-4 as at N = 70, an assumption) in an evidence module of the chapter, then `python -m lib "
            "evidence aot-memorization <sweep>`; the AoT side is the sweep b1-fig5's d = 50 row")


def fig10_estimate(costs: dict | None) -> str:
    """App. B.2 / Fig. 10 (Exp. 5 with 3 layers, N = 70, widths 0..40d in steps of 8d, i.e. H = 1, 5, ..., 21 heads
    per layer, d = 7, 10, 13 assumed as in Exp. 5): estimated from Fig. 8's measured grid (the same deep AoTs) and
    :func:`mlp_over_aot` for the deep MLP side."""
    how = ("the deep AoTs are Fig. 8's (declare DeepAoT points dict(N, d, H, L = 3, rep) with deep.train_points in an "
           "evidence module; Fig. 9 varies d_h, which deep.train_points does not pass yet); the deep MLP Transformer "
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
