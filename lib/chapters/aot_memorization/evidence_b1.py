"""Appendix B.1 of the revised paper (v2, issue 15 item 2): N = 200, the official model, 4096 steps of batch 1024
(64 epochs of a fixed set of 64 batches, the v2 learning-rate schedule), one seed each (the paper: 5).

* ``b1-fig6``: Fig. 6 (Exp. 2 at large dimension): d = 50, H = 11, d_h = 1, 5, 10, ..., 50. v2's caption: "the
  scaling here is linear", against Fig. 1b's "quadratic" at d = 10. A work unit is one model: unpadded, the
  eleven models cost less than as one zero-padded family (padded to d_h = 45), and two workers share them.
* ``b1-fig5``: Fig. 5 (Exp. 1 at large dimension): d = d_h = 40, 50, 60, H = 1, 3, ..., 11. v2: "the scaling
  remains linear". A work unit is one d: six head counts.

Trained by :func:`lib.chapters.aot_memorization.evidence.train_points` (this module is outside the stored runs'
fingerprint). Cost, measured (one torch thread on the project's 2-core EPYC, shared with another run):
``benchmarks/aot-memorization.py --costs`` gives 2.83 CPU-hours for Fig. 5's 5 seeds (one padded family per d),
so 0.57 for one seed, 113 CPU-seconds per model; Fig. 6, probed by :func:`~lib.chapters.aot_memorization.costs.
family_seconds` (4 and 8 steps) one model at a time, 0.21 CPU-hours for its 11 models, 70 CPU-seconds each (as one
padded family 0.33 in the same probe, 0.45 in the benchmark's).
"""
from __future__ import annotations

from dataclasses import asdict

from lib.chapters.aot_memorization import train as AT
from lib.chapters.aot_memorization.evidence import DATA_SEED, train_points

B1 = asdict(AT.Recipe(batch=1024, batches_per_epoch=64, epochs=64))
FIG6_DH = [1, *range(5, 51, 5)]
FIG5_D, FIG5_H = [40, 50, 60], list(range(1, 12, 2))
PAPER_B1 = "v2 App. B.1: N = 200, 4096 steps of batch 1024, 5 seeds, official code"


def _sweep(cfg: list[tuple], group_by: list[str], cost_s: float, claims: list[str], what: str) -> dict:
    return dict(fn=train_points, points=[dict(variant="official", N=200, d=d, dh=dh, H=H, rep=0) for d, dh, H in cfg],
                group_by=group_by, config=dict(recipe=B1, data_seed=DATA_SEED), cost_s=cost_s, budget_h=0.8,
                claims=claims, what=what, paper=PAPER_B1,
                verify=dict(fields={"running_acc": 0.03, "table_acc": 0.03}, units=None))


SWEEPS = {
    "b1-fig6": _sweep([(50, dh, 11) for dh in FIG6_DH], ["variant", "rep", "dh"], 70.0,
                      ["appB1-exp2-linear", "appB1-exp2-vs-paper"],
                      "App. B.1 / Fig. 6 (Exp. 2): N = 200, d = 50, H = 11, d_h = 1, 5, ..., 50, 4096 steps of batch "
                      "1024, 1 seed, official model"),
    "b1-fig5": _sweep([(d, d, H) for d in FIG5_D for H in FIG5_H], ["variant", "rep", "d"], 113.0,
                      ["appB1-exp1-linear", "appB1-exp1-vs-paper", "appB1-exp4-exponent", "appB1-exp4-quadratic"],
                      "App. B.1 / Fig. 5 (Exp. 1): N = 200, d = d_h = 40, 50, 60, H = 1, 3, ..., 11, 4096 steps of batch "
                      "1024, 1 seed, official model"),
}
