"""Softmax vs linear attention, the train role: the learned comparison on a needle task (beyond the paper), one
batched family of one-layer attention classifiers per (map, n, learning rate).
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import torch
from torch import Tensor

from lib.core import attention as att


def needle_batch(G: int, B: int, n: int, K: int, sigma: float, gen: torch.Generator,
                 dtype: torch.dtype = torch.float32) -> tuple[Tensor, Tensor]:
    """The needle task: n tokens, each the one-hot of a symbol drawn uniformly from {1..K-1} plus
    Gaussian noise of std ``sigma``; with probability 1/2 one random token is replaced by the needle
    symbol 0 (label 1), otherwise there is no needle (label 0). Shapes ``x [G, B, n, K]``, ``y [G, B]``."""
    sym = torch.randint(1, K, (G, B, n), generator=gen)
    y = torch.randint(0, 2, (G, B), generator=gen)
    pos = torch.randint(0, n, (G, B, 1), generator=gen)
    with_needle = sym.scatter(2, pos, 0)
    sym = torch.where(y.bool().unsqueeze(-1), with_needle, sym)
    x = torch.nn.functional.one_hot(sym, K).to(dtype)
    x = x + sigma * torch.randn(x.shape, generator=gen, dtype=dtype)
    return x, y.to(dtype)


def train_needle(kind: str, n: int, *, seeds: int, steps: int, batch: int, lr: float, K: int = 8,
                 d_k: int = 8, sigma: float = 0.1, test: int = 1000, seed: int = 0, select: bool = True,
                 device: torch.device | str = "cpu") -> dict[str, np.ndarray]:
    """Train ``seeds`` independent one-layer attention classifiers at once (a family: leading dim G).

    Model: a learned query ``q`` attends over the n tokens with ``lib.core.attention`` (one head,
    ``W_Q, W_K ∈ R^{K×d_k}``, ``W_V ∈ R^{K×K}``, score map ``kind``); the output goes through a linear
    readout ``logit = <r, o> + β``. Adam on the binary cross-entropy, fresh batches every step, the
    same data stream and initialisation for both maps (same ``seed``). ``select=False`` fixes ``W_Q = 0``:
    every score is 0, the weights are uniform and the model is a linear readout of the mean token (the
    rival that finds the needle without selecting it). Returns the test accuracy per model, the final
    training loss, and whether the model's parameters stayed finite. (One family of :func:`train_needle_grid`.)"""
    return train_needle_grid([(kind, lr)], n, seeds=seeds, steps=steps, batch=batch, K=K, d_k=d_k, sigma=sigma,
                             test=test, seed=seed, select=select, device=device)[0]


def train_needle_grid(runs: Sequence[tuple[str, float]], n: int, *, seeds: int, steps: int, batch: int, K: int = 8,
                      d_k: int = 8, sigma: float = 0.1, test: int = 1000, seed: int = 0, select: bool = True,
                      device: torch.device | str = "cpu") -> list[dict[str, np.ndarray]]:
    """:func:`train_needle` for every ``(kind, lr)`` of ``runs``, with the same ``seed``: every family starts from the
    same initialisation and sees the same data stream, so each batch (and the test set) is drawn once and fed to
    every family in turn. Each family's result is the one ``train_needle(kind, n, lr=lr, ...)`` returns (the same
    operations on the same tensors); sharing the data only saves drawing it once per family."""
    dt = torch.float32
    gen = torch.Generator().manual_seed(seed)
    G = seeds
    W = att.init_weights(1, K, d_k, K, family=(G, 1), generator=gen, dtype=dt)
    q = torch.randn(G, 1, 1, K, generator=gen, dtype=dt)
    r = torch.randn(G, 1, K, 1, generator=gen, dtype=dt) / K ** 0.5
    beta = torch.zeros(G, 1, dtype=dt)
    init = [W["W_Q"], W["W_K"], W["W_V"], q, r, beta]
    fams = []
    for kind, lr in runs:
        params = [p.detach().clone().to(device).requires_grad_(True) for p in init]
        if not select:
            params[0].data.zero_()
        opt = torch.optim.Adam(params if select else params[1:], lr=lr)
        fams.append({"kind": kind, "params": params, "opt": opt, "loss": torch.zeros(G)})

    def logits(f: dict, x: Tensor) -> Tensor:
        WQ, WK, WV, q, r, beta = f["params"]
        o = att.attention(q.expand(G, x.shape[1], 1, K), x, WQ, WK, WV, None, score_map=f["kind"])
        return (o @ r).squeeze(-1).squeeze(-1) + beta

    for _ in range(steps):
        x, y = needle_batch(G, batch, n, K, sigma, gen, dt)
        x, y = x.to(device), y.to(device)
        for f in fams:
            f["loss"] = loss = torch.nn.functional.binary_cross_entropy_with_logits(logits(f, x), y, reduction="none").mean(1)
            f["opt"].zero_grad()
            loss.nan_to_num(0.0).sum().backward()
            for p in f["params"]:     # a diverged model (non-finite) stays diverged; it must not poison the rest
                if p.grad is not None:
                    p.grad.nan_to_num_(0.0, 0.0, 0.0)
            f["opt"].step()
    out = []
    with torch.no_grad():
        x, y = needle_batch(G, test, n, K, sigma, gen, dt)
        x = x.to(device)
        for f in fams:
            z = logits(f, x).cpu()
            acc = ((z > 0).to(dt) == y).to(dt).mean(1)
            finite = torch.stack([torch.isfinite(p.detach().cpu()).reshape(G, -1).all(1) for p in f["params"]]).all(0)
            out.append({"acc": acc.numpy().astype(float), "loss": f["loss"].detach().cpu().numpy().astype(float),
                        "finite": finite.numpy()})
    return out


@dataclass
class Learned:
    """The learned comparison's trained families: ``learn[kind, n, lr]`` (the grid), each map's best learning rate per n,
    the grid points where a best rate sits on the grid's edge, and the two control families (a second softmax family
    with other seeds, ``ctl[n]``; the model that cannot select, W_Q = 0, ``pool[n]`` with ``pool_seeds`` models)."""
    P: dict
    learn: dict
    best: dict
    grid_edge: list
    ctl: dict
    pool: dict
    pool_seeds: int

    def best_lr(self, kind: str, n: int, lrs: Sequence[float] | None = None, models=slice(None)) -> float:
        """Each map's best learning rate per n: the largest median accuracy over the models, ties broken by the mean."""
        lrs = tuple(self.P["learn_lrs"]) if lrs is None else lrs
        return max(lrs, key=lambda lr: (float(np.median(self.learn[kind, n, lr]["acc"][models])),
                                        float(self.learn[kind, n, lr]["acc"][models].mean())))


def learned_comparison(P: dict, device: torch.device | str) -> Learned:
    """Train the learned comparison: both maps at every n and learning rate of the grid (the same data and
    initialisation for both maps and every rate: seed + n, one :func:`train_needle_grid` per n), then, at softmax's
    best rate per n, the two control families. Prints the median accuracies per learning rate, the best rates and the
    time taken."""
    kw = dict(seeds=P["learn_seeds"], steps=P["learn_steps"], batch=P["learn_batch"], sigma=P["learn_sigma"], device=device)
    learn, t_learn = {}, time.perf_counter()
    for n in P["learn_n"]:
        runs = [(kind, lr) for kind in ("softmax", "linear") for lr in P["learn_lrs"]]
        fams = train_needle_grid(runs, n, seed=P["seed"] + n, **kw)      # same data and init for both maps and every lr
        learn.update({(kind, n, lr): f for (kind, lr), f in zip(runs, fams, strict=True)})
    print(f"median test accuracy per learning rate {P['learn_lrs']}:")
    for kind in ("softmax", "linear"):
        for n in P["learn_n"]:
            fin = sum(int(learn[kind, n, lr]["finite"].sum()) for lr in P["learn_lrs"])
            print(f"  {kind:8s} n = {n:4d}: {[round(float(np.median(learn[kind, n, lr]['acc'])), 3) for lr in P['learn_lrs']]}"
                  f" (finite runs {fin}/{len(P['learn_lrs']) * P['learn_seeds']})")
    L = Learned(P, learn, {}, [], {}, {}, max(4, P["learn_seeds"] // 2))
    L.best = {(kind, n): L.best_lr(kind, n) for kind in ("softmax", "linear") for n in P["learn_n"]}
    L.grid_edge = sorted({(kind, n, lr) for (kind, n), lr in L.best.items() if lr in (min(P["learn_lrs"]), max(P["learn_lrs"]))})
    print("best learning rates:", "; ".join(f"{kind} {[L.best[kind, n] for n in P['learn_n']]}" for kind in ("softmax", "linear")),
          f"at n = {P['learn_n']};\n  at the edge of the grid: {L.grid_edge or 'none'}")
    # the control of learn-gap: a second softmax family, other seeds
    L.ctl = {n: train_needle("softmax", n, lr=L.best["softmax", n], seed=P["seed"] + n + 7919, **kw) for n in P["learn_n"]}
    # the rival of learn-softmax: W_Q = 0 (uniform weights, a readout of the mean token), same data, init and lr;
    # half the models: its failure is one of information, not of noise
    kw_pool = {**kw, "seeds": L.pool_seeds}
    L.pool = {n: train_needle("softmax", n, lr=L.best["softmax", n], seed=P["seed"] + n, select=False, **kw_pool) for n in P["learn_n"]}
    print(f"no selection (W_Q = 0), {kw_pool['seeds']} models: test accuracy median", {n: round(float(np.median(o["acc"])), 3) for n, o in L.pool.items()})
    print(f"learned comparison: {time.perf_counter() - t_learn:.0f} s")
    return L
