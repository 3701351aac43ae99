"""Fig. 4's context panel (Mahdavi et al. 2024, App. I.1; issue 14, item 3) at the paper's scale, as stored
evidence: general position (every example has its own context ``x_1^(t), ..., x_n^(t), x^(t) ~ U(0,1)^64``,
100-class labels), H = 20, d = d_h = 64, n in {1, 5, 10, 20, 30, 40, 50, 60}, one T, one seed.

The official grid is n in {1, 5, ..., 60} by T in {20k, 30k, ..., 60k} (``reproduce.sh``); this sweep takes its
T = 30k column, the T of the stored head panel (``fig4``), so that the two panels are read through the same
criterion at the same T (``fig4-context-paper-scale`` and its control). The training function and recipe are
:func:`~lib.chapters.mha_memorization.evidence_fig45.train_points` and ``RECIPE_4`` unchanged (max(50k, 500
epochs) = 58,593 Adam steps of batch 256, early stop at 100% training accuracy), so the code fingerprint is the
head panel's; the sweep is declared in its own module so that declaring it edits no stored sweep's module.
Cost: the measured ms per model-step by n (``MS_STEP_4N``, one thread) times the step budget, no early stop.
"""
from __future__ import annotations

from lib.chapters.mha_memorization import evidence_fig45 as EV45
from lib.chapters.mha_memorization.budget import cpu_s

H, T = 20, EV45.T_4                                     # the head panel's H = 20 point and T = 30k
POINTS = [dict(panel="n", H=H, n=n, T=T, seed=0) for n in EV45.CONTEXTS]
COST = cpu_s(POINTS, EV45.MS_STEP_4N, "n", EV45.RECIPE_4)

SWEEPS = {
    "fig4-context": dict(fn=EV45.train_points, points=POINTS, group_by=["H", "n"], config=EV45.RECIPE_4,
                         cost_s=round(COST / len(POINTS), 1), budget_h=1.7,
                         claims=["fig4-context-paper-scale", "fig4-context-plateau-paper-scale"],
                         what="Fig. 4's context panel (per-example contexts, 100 classes): d = 64, H = 20, d_h = 64, "
                              "n = 1..60, T = 30k (of 20k..60k), 58,593 steps, one seed",
                         paper=EV45.PAPER_4, verify=dict(prefix=501)),
}
