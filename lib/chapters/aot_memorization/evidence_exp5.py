"""Experiment 5 / Fig. 3 at the revised paper's scale (v2, issue 15 item 3): N = 70, d = d_h = 7, 10, 13,
H = 1, 6, ..., 31, 16384 steps of batch 1024 (64 epochs of a fixed set of 256 batches), one seed (the paper: 5).

Three sweeps, because the MLP Transformer's learning rate decays to 1e-4 where the AoT's decays to 5e-4 (one
recipe per sweep), and so that the comparison of v1 and v2 (official AoT against the MLP) does not wait for the
eq. (2) model:

* ``exp5-n70``: the official code's AoT (H heads, d_h = d);
* ``exp5-n70-mlp``: the official code's MLP Transformer (one head, a GELU MLP of width w = 2d(H - 1), the same
  parameter count 4d^2 H + d(2N + 1));
* ``exp5-n70-eq2``: the AoT of eqs. (1)-(2), same grid and recipe as ``exp5-n70``.

Trained by :func:`lib.chapters.aot_memorization.evidence.train_points` (this module is outside the stored runs'
fingerprint); a work unit is one (model, seed, d): seven configurations, one zero-padded family. Cost, measured
(``benchmarks/aot-memorization.py --costs``, 5 seeds: 2.20, 6.49 and 2.74 CPU-hours), so for one seed 0.44, 1.30
and 0.55 CPU-hours: 75, 222 and 94 CPU-seconds per model (one torch thread on the project's 2-core EPYC).
"""
from __future__ import annotations

from dataclasses import asdict

from lib.chapters.aot_memorization import train as AT
from lib.chapters.aot_memorization.evidence import DATA_SEED, train_points

N5, D5, H5 = 70, [7, 10, 13], list(range(1, 32, 5))
AOT = asdict(AT.Recipe(batch=1024, batches_per_epoch=256, epochs=64))
MLP = asdict(AT.Recipe(batch=1024, batches_per_epoch=256, epochs=64, lr_end=1e-4))
CLAIMS = ["exp5-mlp-better-v2-paper-scale", "exp5-same-scaling-v1-paper-scale", "exp5-aot-vs-paper-paper-scale"]
PAPER5 = AT.PAPER_SCALE["exp5"] + " (v2 code and CSV)"


def points(variant: str, mlp: bool) -> list[dict]:
    """One seed of Fig. 3's grid: the AoT's (d, d, H) or the MLP Transformer's (d, d, 1, width 2d(H - 1))."""
    cfg = [(d, d, 1, 2 * d * (H - 1)) if mlp else (d, d, H) for d in D5 for H in H5]
    return AT.grid_points(dict(N=N5, configs=cfg, reps=1, variant=variant, mlp=mlp))


def _sweep(variant: str, mlp: bool, recipe: dict, cost_s: float, claims: list[str], what: str) -> dict:
    return dict(fn=train_points, points=points(variant, mlp), group_by=["variant", "rep", "d"],
                config=dict(recipe=recipe, data_seed=DATA_SEED), cost_s=cost_s, budget_h=1.5, claims=claims,
                what=what, paper=PAPER5, verify=dict(fields={"running_acc": 0.03, "table_acc": 0.03}, units=None))


SWEEPS = {
    "exp5-n70": _sweep("official", False, AOT, 75.0, CLAIMS,
                       "Exp. 5 / Fig. 3, AoT: N = 70, d = d_h = 7, 10, 13, H = 1..31 step 5, 16384 steps of batch 1024, "
                       "1 seed, official model"),
    "exp5-n70-mlp": _sweep("official", True, MLP, 222.0, CLAIMS[:2],
                           "Exp. 5 / Fig. 3, MLP Transformer: N = 70, d = 7, 10, 13, one head, width 2d(H - 1) for "
                           "H = 1..31 step 5, 16384 steps of batch 1024 (lr to 1e-4), 1 seed, official code"),
    "exp5-n70-eq2": _sweep("paper", False, AOT, 94.0, ["exp5-mlp-better-eq2-paper-scale"],
                           "Exp. 5 / Fig. 3, AoT: N = 70, d = d_h = 7, 10, 13, H = 1..31 step 5, 16384 steps of batch "
                           "1024, 1 seed, eq. (2) model"),
}
