"""Fig. 3 / Appendix H of Mahdavi et al. by the paper's protocol, as stored evidence (issue 14, item 4).

Appendix H: "We generate a dataset of size T with a shared context (as in Section 5.2) with d = 64, n = 32,
and discrete labels y ∈ U([100]) ... We test with two different head sizes H = 4 and H = 8. For each head
size, we first empirically find the maximal number of data points the model can perfectly memorize using
gradient-based optimization. We find for H = 4, this number is around T = 550, and for H = 8 around
T = 1300. We train both models for 300,000 optimization steps." App. G fixes the rest of the recipe: batch
256, Adam, lr 1e-3, linear warm-up and cosine decay ("for ... Figure 3 ... we train for a total of 300,000
optimization steps"); d_h = d = 64 (the official default).

The paper does not say how it searched T. Here every T of a small grid around its numbers is trained by the
full protocol (300k steps, no early stop): the largest T of the grid at 100% training accuracy is the
located capacity, the next T of the grid is one step past it, and the saturation statistics of every run
are stored, so the search and the saturation run are the same trainings. Each point stores the largest
softmax weight of the query, per (example, head), after training and at the initialisation (``[T, H]``,
float64 from the trained float32 weights): the page applies App. H's threshold (0.99) and its controls
(:mod:`~lib.chapters.mha_memorization.stored`), so the criteria can change without re-training.

The training function imports only the model and the engine (the stored run's fingerprint covers them
and this file); the store's ``seal`` is imported at run time for the same reason as in
:mod:`~lib.chapters.mha_memorization.evidence`.
"""
from __future__ import annotations

import importlib
import time

import numpy as np
import torch

from lib.chapters.mha_memorization import model as mha_model
from lib.engine import family, train

CHAPTER = "mha-memorization"
GRID = {4: [300, 450, 550, 700], 8: [800, 1100, 1300, 1700]}      # T around the paper's 550 and 1300
RECIPE = dict(d=64, n=32, classes=100, lr=1e-3, batch=256, steps=300_000, eval_every=1000)


def max_attention(fam: mha_model.MHAMemorization, params: dict, data: family.FamilyData, g: int) -> np.ndarray:
    """``[T, H]``: the largest of the query's softmax weights θ_h^(t) over the n context tokens (shared context),
    in float64, for model ``g``'s data and one model's parameters ``params`` (no model axis)."""
    p = {k: v.detach().double().cpu() for k, v in params.items()}
    T = int(data.sizes[g])
    x, E = data.examples["x"][g, :T].double().cpu(), data.shared["E"][g].double().cpu()
    pe = family.sinusoidal_pe(fam.n + 1, fam.d).double()
    q = x @ p["emb_W"] + p["emb_b"] + pe[0]                                    # [T, d]
    c = E @ p["emb_W"] + p["emb_b"] + pe[1:]                                   # [n, d]
    S = (q @ p["W_Q"]) @ (c @ p["W_K"]).transpose(-1, -2) * fam.scale          # [H, T, n]
    return torch.softmax(S, -1).amax(-1).T.numpy()


def _first_full(history: list) -> int | None:
    """The first evaluated step at 100% training accuracy (None: never)."""
    return next((int(s) for s, _, a in history if a >= 1.0), None)


def train_points(points: list[dict], report, d: int, n: int, classes: int, lr: float, batch: int, steps: int,
                 eval_every: int) -> None:
    """One family (the grid's T at one H), each model trained ``steps`` steps (no early stop); each point is
    reported, sealed, with its accuracies and its ``[T, H]`` largest softmax weights after training and at
    initialisation."""
    fam = mha_model.MHAMemorization(d=d, n=n, H=points[0]["H"], dh=d, n_classes=classes)
    seeds = [p["seed"] for p in points]
    data = mha_model.mha_data(fam, [p["T"] for p in points], seeds)
    seal = importlib.import_module("lib.book.evidence").seal
    active, share, last = set(range(len(points))), [0.0] * len(points), [time.process_time()]

    def done(g: int, r: dict) -> None:
        now = time.process_time()
        for a in active:
            share[a] += (now - last[0]) / len(active)
        last[0] = now
        active.discard(g)
        out = {k: r[k] for k in ("steps", "final_acc", "final_loss", "best_acc", "best_loss", "best_step")}
        out.update(first_full=_first_full(r["history"]),
                   history=[[int(s), round(float(lo), 6), round(float(a), 6)] for s, lo, a in r["history"]],
                   max_weight=np.round(max_attention(fam, r["params"]["final"], data, g), 6).tolist(),
                   max_weight_init=np.round(max_attention(fam, fam.init_one(seeds[g]), data, g), 6).tolist(),
                   flops_per_step=float(fam.flops(batch)), family=f"MHA d={d} n={n} H={fam.H} shared", cpu_s=share[g])
        report(points[g], seal(points[g], out))

    train.train_family(fam, data, seeds=seeds, steps=steps, lr=lr, schedule="warmup_cosine", batch_size=batch,
                       eval_every=eval_every, return_params=True, on_model_done=done, progress=report.progress)


SWEEPS = {
    "fig3": dict(fn=train_points, points=[dict(H=H, T=T, seed=0) for H, Ts in GRID.items() for T in Ts],
                 group_by=["H"], config=RECIPE, cost_s=540.0, budget_h=1.2, claims=["fig3-paper-capacity",
                 "fig3-paper-majority", "fig3-paper-one-free"],
                 what="Fig. 3 / App. H: d = 64, n = 32, d_h = 64, H = 4 and 8, T on a grid around 550 and 1300, "
                      "300k Adam steps of batch 256 each, one seed; largest softmax weights per (example, head)",
                 paper="d = 64, n = 32, H = 4 (T ≈ 550) and 8 (T ≈ 1300), 300k steps", verify=dict(prefix=1001)),
}
