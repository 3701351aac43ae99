"""Exp. 1 / Fig. 1a's full grid at the paper's scale (issue 15): N = 50, d = d_h = 3..13, H = 1..31 step 5, the
official v2 recipe, the official model, trained by :func:`lib.chapters.aot_memorization.evidence.train_points`.

Declared apart from :mod:`~lib.chapters.aot_memorization.evidence` so that the grid (more seeds, the eq. (2)
model) can grow without changing the training code's fingerprint: the stored points stay valid and a rerun of
``python -m lib evidence aot-memorization exp1`` adds only the new ones. A work unit is one (model, seed, d):
the seven head counts of one curve, one zero-padded family.

Cost, measured (CPU-seconds per model, 4096 steps of batch 256, one torch thread on the project's 2-core EPYC,
extrapolated from 256 steps): 3.2 at d = 3, 4.0 at d = 8, 6.7 at d = 13, about 4.5 on average, so 0.10
CPU-hours per seed and model; the paper's 5 seeds cost 0.48 CPU-hours for the official model, twice that
with the eq. (2) model.
"""
from __future__ import annotations

from lib.chapters.aot_memorization.evidence import _sweep

SEEDS = 1

SWEEPS = {
    "exp1": _sweep("exp1", SEEDS, 4.5, ["exp1-vs-paper-paper-scale", "exp1-linear-paper-scale", "exp1-above-bound-paper-scale",
                                        "exp1-slope-ratio-paper-scale", "exp4-exponent-paper-scale", "exp4-cubic-v1-paper-scale"],
                   "Exp. 1 / Fig. 1a and Exp. 4 / Fig. 2b: N = 50, d = d_h = 3..13, H = 1..31 step 5, official v2 "
                   f"recipe, {SEEDS} seed{'s' if SEEDS > 1 else ''}, official model", variants=("official",), group_by=("variant", "rep", "d")),
}
