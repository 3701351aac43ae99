"""Claims of section 6 (depth-width): the page's small language-model ablation (Fig. 2 scaled down) and the cost of
a trained transition grid at the paper's depths. The stored CPU-scale transition: :mod:`~.transition`.
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.depth_width import model, train
from lib.chapters.depth_width.claims import fit as F
from lib.core.claims import EXPERIMENT, Claims, Scale, Variant


MIN_LM_STEPS = 200     # below this the models have not left the unigram phase: no LM comparison means anything


# ---------------------------------------------------------------------------------------------
# the language-model ablation
# ---------------------------------------------------------------------------------------------
def lm_scale(P: dict) -> Scale:
    ours = (f"L ∈ {sorted(P['lm_depths'])}, 12Ld² ∈ {[f'{s:.0e}' for s in P['lm_sizes']]}, {P['lm_steps']} steps × "
            f"{P['lm_batch']}×{P['lm_seq']} tokens, one seed")
    return Scale(ours=ours, paper="L = 6–48, 1e6–6e8 parameters, 1M steps × 512×128 tokens, 3 seeds on 11 models",
                 enough=P["lm_steps"] >= MIN_LM_STEPS,
                 why=f"{P['lm_steps']} training steps (< {MIN_LM_STEPS}: the models have not left the unigram phase)")


def lm_claims(C: Claims, res: list, P: dict, H_uni: float, bigram: float) -> list[tuple]:
    """The LM pair: learning (sanity), beating the unigram entropy (control: the bigram predictor, which sees
    only the current token: if it too beats the unigram entropy the criterion cannot show use of context),
    size helps (a decrease beyond 0.02 nats; control: sizes swapped), width-efficiency (control: the two models
    swapped; not run unless every model beats the bigram predictor). Returns per-size differences."""
    sc = lm_scale(P)
    V = P["lm_vocab"]
    worst = max(r.test_loss for r in res)
    finite = all(math.isfinite(r.test_loss) for r in res)
    C.sanity("lm-learns", "Every model trains: finite test loss below ln V (the uniform predictor)", paper="—",
             ours=f"max test loss {worst:.2f} vs ln V = {math.log(V):.2f}", ok=finite and worst < math.log(V),
             criterion="loss < ln V", stable=False)
    C.check("lm-beats-unigram", "Every model uses context: test loss below the unigram entropy of the corpus",
            paper="—", ours=f"max test loss {worst:.2f} vs unigram {H_uni:.2f} (bigram predictor {bigram:.2f})",
            ok=finite and worst < H_uni, criterion="loss < unigram entropy", stable=False, kind=EXPERIMENT, scale=sc,
            control=("the bigram predictor p(next | current token), counted on the training split and scored on the "
                     "same held-out windows: it sees no earlier position, so attention is not needed to pass",
                     bigram < H_uni, f"{bigram:.2f}"),
            variants=[Variant("training loss in place of held-out loss", max(r.train_loss for r in res) < H_uni,
                              f"{max(r.train_loss for r in res):.2f}"),
                      Variant("below the unigram entropy by more than 0.1 nats", worst < H_uni - 0.1, f"{worst:.2f}")])
    depths = sorted(P["lm_depths"])

    def size_steps(m: float, key: str = "test_loss") -> tuple[list[bool], list[bool]]:
        up, rev = [], []
        for L in depths:
            rs = sorted([r for r in res if r.L == L], key=lambda r: r.size)
            up += [getattr(b, key) < getattr(a, key) - m for a, b in zip(rs, rs[1:], strict=False)]
            rev += [getattr(a, key) < getattr(b, key) - m for a, b in zip(rs, rs[1:], strict=False)]
        return up, rev
    steps, steps_rev = size_steps(0.02)
    var_size = [Variant(f"noise floor {m:g} nats", all(size_steps(m)[0]), f"{sum(size_steps(m)[0])}/{len(steps)}")
                for m in (0.0, 0.05)] + [Variant("training loss in place of held-out loss",
                                                 all(size_steps(0.02, "train_loss")[0]),
                                                 f"{sum(size_steps(0.02, 'train_loss')[0])}/{len(steps)}")]
    if steps:
        C.check("lm-size-helps", "For each depth, a larger model reaches a lower loss", paper="loss decreases with size",
                ours=f"{sum(steps)}/{len(steps)} steps in size lower by > 0.02 nats", ok=all(steps), kind=EXPERIMENT,
                scale=sc, criterion="every step up in size lowers the test loss by more than 0.02 nats (one seed; "
                "0.02 nats is a guessed noise floor)", stable=False,
                control=("the same criterion with the sizes swapped", all(steps_rev), f"{sum(steps_rev)}/{len(steps_rev)}"),
                variants=var_size)
    diffs = []
    for Ls, Ld in zip(depths, depths[1:], strict=False):
        n_tr = float(F.n_transition(Ls, F.PAPER_FIT["a"], F.PAPER_FIT["b"]))    # eq. 10: 'small' means below it
        for rs in sorted((r for r in res if r.L == Ls and r.size < n_tr), key=lambda r: r.size):
            rd = min((r for r in res if r.L == Ld), key=lambda r: abs(math.log(r.size / rs.size)))
            diffs.append((Ls, Ld, rs.size, rd.test_loss - rs.test_loss))
    m = 0.02
    # Meaningful only for models that have learned at least what the current token says: a model worse than the
    # bigram predictor has not yet used its capacity, so ranking depth against width there measures training speed.
    sc_we = sc if not sc.enough or worst < bigram else Scale(
        sc.ours, sc.paper, enough=False, why=f"every compared model must beat the bigram predictor ({bigram:.2f} "
        f"nats) before depth and width can be compared; the worst reached {worst:.2f}")
    C.check("lm-width-efficiency", "At small sizes (below eq. 10's transition size of the shallower depth, "
            "extrapolated below the depths 6–30 it was fitted on) the shallower, wider network beats the deeper one (Sec. 5.2.3, 'width-efficiency'). Confound: at a fixed step budget deeper models also train more slowly, so a win of "
            "the shallower model here does not separate expressivity from optimisation speed",
            paper="width-efficiency at small sizes (Fig. 2b,c)",
            ours=", ".join(f"N≈{n:.1g}: loss(L={d}) − loss(L={s}) = {x:+.3f}" for s, d, n, x in diffs),
            ok=bool(diffs) and all(x > m for *_, x in diffs), kind=EXPERIMENT, scale=sc_we, stable=False,
            criterion=f"deeper − shallower > {m} nats at every size (one seed; {m} nats is a guessed noise floor)",
            control=("the two models swapped (the deeper one as the winner)", bool(diffs) and all(-x > m for *_, x in diffs),
                     ", ".join(f"{-x:+.3f}" for *_, x in diffs)),
            variants=[Variant(f"noise floor {mm:g} nats", bool(diffs) and all(x > mm for *_, x in diffs)) for mm in (0.0, 0.05)])
    return diffs


def transition_cost(timing: dict | None, depths=(6, 12), sizes=8, seeds_near=3, near=3, steps=20000, batch=256,
                    T=128, vocab=2000) -> dict:
    """CPU-hours of issue item 3's grid (pairs (L, 2L) at ``sizes`` sizes around the paper's first transition,
    ``seeds_near`` seeds at the ``near`` sizes nearest it, ``steps`` steps of batch × T tokens) from a measured
    FLOP rate. Sizes: geometric from 1.2e6 to 1.2e7 (the paper's L = 6 transition is at 12·6·214² = 3.3e6); the
    extra seeds are costed at their own sizes."""
    grid = list(np.geomspace(1.2e6, 1.2e7, sizes))
    n_tr = 12 * depths[0] * 214 ** 2
    mid = sorted(grid, key=lambda s: abs(math.log(s / n_tr)))[:near]
    models = len(depths) * (sizes + (seeds_near - 1) * near)
    flops = (train.estimated_flops(list(depths), grid, T, batch, steps, vocab)
             + (seeds_near - 1) * train.estimated_flops(list(depths), mid, T, batch, steps, vocab))
    out = dict(models=models, flops=flops, steps=steps, batch=batch, T=T, grid=grid, mid=mid,
               token_share=steps * batch / (1_000_000 * 512))      # of the paper's 1M steps × 512 sequences
    if timing:
        out["cpu_hours"] = flops / timing["flops_per_second"] / 3600
    return out


def transition_claim(C: Claims, P: dict, timing: dict | None, res: list, peak: float | None = None) -> dict:
    """Issue item 3's trained transition: at the ``paper`` preset the sign change of deeper − shallower across the
    sizes (control: the sizes in reverse order); below it 'not run', with the CPU cost of the grid it needs at the
    measured rate and, with ``peak`` (FLOP/s of one core's float32 GEMM), the load-independent floor at that peak."""
    cost = transition_cost(timing)
    depths = sorted(P["lm_depths"])
    if P["preset"] == "paper":
        signs, signs_rev = [], []
        for Ls, Ld in zip(depths, depths[1:], strict=False):
            diffs = [min((r for r in res if r.L == Ld), key=lambda r: abs(math.log(r.size / s.size))).test_loss - s.test_loss
                     for s in sorted((r for r in res if r.L == Ls), key=lambda r: r.size)]
            signs.append(diffs[0] > 0 > diffs[-1])
            signs_rev.append(diffs[-1] > 0 > diffs[0])
        C.check("lm-transition", "A depth-efficiency transition: the deeper model starts to win as size grows (Fig. 2)",
                paper="transition at d_x = 214 ± 6 for L = 6", ours="sign change" if all(signs) else "no sign change",
                ok=all(signs), criterion="deeper − shallower goes from > 0 to < 0 across the sizes", stable=False,
                kind=EXPERIMENT, scale=lm_scale(P),
                control=("the sizes in reverse order", all(signs_rev), "sign change" if all(signs_rev) else "none"))
        return cost
    if timing:
        meas = (f"measured: one L = {timing['L']}, d_x = {timing['d']} model, {timing['batch']}×{timing['T']} tokens per "
                f"step, {timing['seconds_per_step']:.2f} s/step on {timing['threads']} thread(s) "
                f"= {timing['flops_per_second'] / 1e9:.0f} GFLOP/s")
        hours = f"≈ {cost['cpu_hours']:,.0f} CPU-hours"
    else:
        meas, hours = "no timing at this preset", "CPU-hours not estimated"
    reason = (f"a trained transition needs pairs (6, 12) at 8 sizes 1.2e6–1.2e7 (the paper's L = 6 transition: 3.3e6), "
              f"3 seeds at the 3 sizes nearest it ({', '.join(f'{s:.2g}' for s in sorted(cost['mid']))}; "
              f"{cost['models']} models), {cost['steps']:,} steps of {cost['batch']}×{cost['T']} tokens each "
              f"({cost['token_share']:.0%} of the paper's 1M × 512 × 128 tokens per model; whether the ranking is stable "
              f"after so few is unknown): {cost['flops']:.2e} FLOPs (6 × parameters × tokens + the attention term), "
              f"{hours} ({meas}; the rate varies with the machine's load, the FLOP count does not)"
              + (f", and ≥ {cost['flops'] / peak / 3600:,.0f} CPU-hours even at one core's float32 GEMM peak of "
                 f"{peak / 1e9:.1f} GFLOP/s" if peak else "")
              + "; this is the grid alone: the compute-matched control and any training beyond "
              f"{cost['steps']:,} steps that a stable ranking needs come on top; not run in this book")
    C.not_run("lm-transition", "A depth-efficiency transition in trained models: the deeper model starts to win as size "
              "grows (Fig. 2), with its transition width per depth (Table 4)",
              paper="transition at d_x = 214 ± 6 for L = 6 (N ≈ 3.3e6)", reason=reason, kind=EXPERIMENT,
              scale=Scale(ours=lm_scale(P).ours, paper="L = 6–48 pairs, 1e6–6e8 parameters, 1M steps", enough=False,
                          why=reason))
    return cost


# ---------------------------------------------------------------------------------------------
# what the page calls: computes the criterion's inputs, records the claims, prints their verdict lines
# ---------------------------------------------------------------------------------------------
def fig2(C: Claims, res: list, P: dict, H_uni: float, ids: np.ndarray) -> tuple[list, float, dict]:
    """Section 6, the page's language models (Fig. 2 scaled down): their table, the bigram predictor's held-out loss
    (the floor the claims need, computed here), :func:`lm_claims`, the measured step time of a paper-scale model and
    :func:`transition_claim` (the cost of a trained transition grid at the paper's depths), and the verdict at this
    preset. Returns (the per-size differences, the bigram loss, the cost)."""
    import json

    from IPython.display import Markdown, display

    from lib.chapters.depth_width.figures import md_table
    from lib.core import params
    md_table([(r.L, r.d, f"{r.size:.2g}".replace("e+0", "e"), f"{r.params_nonemb:,}", f"{r.train_loss:.3f}",
               f"{r.test_loss:.3f}") for r in sorted(res, key=lambda r: (r.size, r.L))],
             ["L", "d_x", "12Ld²", "non-embedding parameters", "train loss", "test loss"])
    bigram = train.bigram_loss(ids, P["lm_vocab"], T=P["lm_seq"], batch=P["lm_batch"], eval_batches=P["lm_eval_batches"])
    diffs = lm_claims(C, res, P, H_uni, bigram)
    timing = None if P["preset"] == "smoke" else train.time_steps(2000, 6, model.width_for(3.3e6, 6), T=128, batch=8, steps=2)
    peak = json.loads((params.ROOT / "benchmarks" / "results" / "sweep-cpu-grids.json").read_text())["peak_gflops"] * 1e9
    cost = transition_claim(C, P, timing, res, peak=peak)
    verdicts = [f"N ≈ {n:.2g}: " + (f"L = {s} (shallower, wider) wins" if x > 0 else f"L = {d} (deeper) wins")
                + f" by {abs(x):.3f} nats" for s, d, n, x in diffs]
    display(Markdown("**LM verdict at this preset**: " + "; ".join(verdicts) + ". "
                     + (f"A trained transition grid at the paper's depths (`lm-transition`) would cost ≈ "
                        f"{cost['cpu_hours']:,.0f} CPU-hours at the measured rate ({cost['flops']:.2e} FLOPs for "
                        f"{cost['models']} models; its row in the claims table gives the grid)." if "cpu_hours" in cost else "")))
    C.lines()
    return diffs, bigram, cost
