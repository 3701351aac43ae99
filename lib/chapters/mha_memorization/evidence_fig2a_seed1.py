"""A second seed of Fig. 2(a) at the paper's scale (Mahdavi et al. 2024, Sec. 5.2; issue 14, item 3), as stored
evidence: the grid and recipe of :mod:`~lib.chapters.mha_memorization.evidence` (d = 64, n = 32, d_h = 64,
H in {1, 5, 10, 20, 30, 40, 50, 60}, T in {10k, 20k, 30k, 40k}, max(50k, 500 epochs) Adam steps of batch 256)
with the data and weights of seed 1.

The sweep reuses :func:`~lib.chapters.mha_memorization.evidence.train_points` and its ``RECIPE`` unchanged, so
its code fingerprint is that of the stored seed-0 run (a change to that training code stales both). It is
declared in its own module so that declaring it edits no stored sweep's module. The cost per point is the
seed-0 run's measured 244 CPU-seconds (about 2.2 CPU-hours for the 32 points).
"""
from __future__ import annotations

from lib.chapters.mha_memorization import evidence as EV

SEED = 1

SWEEPS = {
    "fig2a-seed1": dict(fn=EV.train_points, points=[dict(H=H, T=T, seed=SEED) for H in EV.HEADS for T in EV.SIZES],
                        group_by=["H"], config=EV.RECIPE, cost_s=244.0, budget_h=2.5,
                        claims=["fig2a-seeds-paper-scale"],
                        what="Fig. 2(a), second seed: d = 64, n = 32, d_h = 64, H = 1..60, T = 10k..40k, official "
                             "recipe, seed 1",
                        paper="d = 64, n = 32, H = 1..60, T = 10k-40k, max(50k, 500 epochs) steps", verify=dict(prefix=501)),
}
