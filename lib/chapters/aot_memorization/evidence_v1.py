"""v1's protocol for Exp. 1 / Fig. 1a (issue 15, item 4): the first version's recipe on the v2 code's model.

v1 (arXiv v1, the official repository at commit 3c9981c) trains with Adam at a constant learning rate 1e-3 for 10
epochs of a fixed set of 1000 batches of 1024 sequences (10k steps), 2 seeds; the chapter elsewhere follows v2's
recipe (:data:`lib.chapters.aot_memorization.evidence.OFFICIAL`). This sweep trains Fig. 1a's grid (N = 50,
d = d_h = 3..13, H = 1, 6, ..., 31) with v1's recipe, one seed, on the official (v2) model, with the training
function of :mod:`~lib.chapters.aot_memorization.evidence` (so this module is outside the stored runs'
fingerprint). v1's code also compressed at d = d_h (a d x d linear map the v2 code drops), so the sweep isolates
v1's *recipe*. A work unit is one (seed, d): seven head counts, one zero-padded family.

Cost, measured (``benchmarks/aot-memorization.py --costs``, grid "v1 Fig. 1a"): 1.0 CPU-hour for the 77 models,
47 CPU-seconds per model on average (one torch thread on the project's 2-core EPYC).
"""
from __future__ import annotations

from dataclasses import asdict

from lib.chapters.aot_memorization import train as AT
from lib.chapters.aot_memorization.evidence import DATA_SEED, train_points

V1 = asdict(AT.Recipe(batch=1024, batches_per_epoch=1000, epochs=10, lr=1e-3, lr_end=1e-3))
V1_GRID = [(d, d, H) for d in range(3, 14) for H in range(1, 32, 5)]
CLAIMS = ["v1-protocol", "v1-exponent", "v1-cubic", "v1-above-bound"]

SWEEPS = {
    "v1": dict(fn=train_points, points=[dict(variant="official", N=50, d=d, dh=dh, H=H, rep=0) for d, dh, H in V1_GRID],
               group_by=["variant", "rep", "d"], config=dict(recipe=V1, data_seed=DATA_SEED), cost_s=47.0, budget_h=1.2,
               claims=CLAIMS, verify=dict(fields={"running_acc": 0.03, "table_acc": 0.03}, units=None),
               what="v1's protocol for Exp. 1 / Fig. 1a: N = 50, d = d_h = 3..13, H = 1..31 step 5, Adam at a constant "
                    "1e-3, 10 epochs of 1000 batches of 1024 (10k steps), 1 seed, official (v2) model",
               paper="v1: N = 50, d = d_h = 3..13, H = 1..26 (31 for d >= 11), 10k steps of batch 1024 at lr 1e-3, 2 seeds"),
}
