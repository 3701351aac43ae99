"""Exp. 1 / Fig. 1a's full grid at the paper's scale (issue 15): N = 50, d = d_h = 3..13, H = 1..31 step 5, the
official v2 recipe, the official model and the eq. (2) model, 3 seeds (the paper: 5, official model), trained by :func:`lib.chapters.aot_memorization.evidence.train_points`.

Declared apart from :mod:`~lib.chapters.aot_memorization.evidence` so that the grid (more seeds, the eq. (2)
model) can grow without changing the training code's fingerprint: the stored points stay valid and a rerun of
``python -m lib evidence aot-memorization exp1`` adds only the new ones. A work unit is one (model, seed, d):
the seven head counts of one curve, one zero-padded family.

Cost, measured (CPU-seconds per model, 4096 steps of batch 256, one torch thread on the project's 2-core EPYC,
extrapolated from 256 steps): 3.2 at d = 3, 4.0 at d = 8, 6.7 at d = 13, about 4.5 on average, so 0.10
CPU-hours per seed and model; the paper's 5 seeds cost 0.48 CPU-hours for the official model, twice that
with the eq. (2) model. The stored first seed of the official model took 4.1 CPU-seconds per model; the eq. (2)
model costs about 1.25x the official one (``benchmarks/results/aot-memorization-costs.json``, Exp. 5's AoTs), so
3 seeds of both models are 462 points, about 4.6 CPU-seconds each on average: 0.59 CPU-hours, of which 0.50 are
the points not stored yet.
"""
from __future__ import annotations

from lib.chapters.aot_memorization.evidence import _sweep

SEEDS = 3
CLAIMS_EQ2 = ["exp1-linear-eq2-paper-scale", "exp4-exponent-eq2-paper-scale", "exp1-models-agree-paper-scale"]

SWEEPS = {
    "exp1": _sweep("exp1", SEEDS, 4.6, ["exp1-vs-paper-paper-scale", "exp1-linear-paper-scale", "exp1-above-bound-paper-scale",
                                        "exp1-slope-ratio-paper-scale", "exp4-exponent-paper-scale", "exp4-cubic-v1-paper-scale",
                                        *CLAIMS_EQ2],
                   "Exp. 1 / Fig. 1a and Exp. 4 / Fig. 2b: N = 50, d = d_h = 3..13, H = 1..31 step 5, official v2 "
                   f"recipe, {SEEDS} seed{'s' if SEEDS > 1 else ''}, both models", variants=("official", "paper"),
                   group_by=("variant", "rep", "d"), budget_h=0.7),
}
