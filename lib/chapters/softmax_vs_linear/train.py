"""Softmax vs linear attention, the train role: the learned comparison on a needle task (beyond the paper), one
batched family of one-layer attention classifiers per (map, n, learning rate), every (map, learning rate) of one n
trained as one stack.
"""
from __future__ import annotations

import itertools
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


def contract(params: Sequence[Tensor]) -> tuple[Tensor, Tensor]:
    """The single learned query's head as two vectors per model: ``a = W_K (q W_Q)^T`` and ``v = W_V r``
    (``[..., K, 1]``; leading dims: the families and the models). With ``S = (q W_Q)(X W_K)^T`` and ``o = φ(S) X W_V``
    (:mod:`lib.core.attention`, one head), the scores are ``S = X a`` and the logit ``<r, o> + β = φ(S)(X v) + β``:
    the same function, with the product of ``X`` by two columns in place of its products by ``W_K`` and ``W_V``."""
    WQ, WK, WV, q, r, _ = params
    a = WK[..., 0, 0, :, :] @ (q[..., 0, :, :] @ WQ[..., 0, 0, :, :]).transpose(-1, -2)
    return a, WV[..., 0, 0, :, :] @ r[..., 0, :, :]


def logits_core(params: Sequence[Tensor], kind: str, x: Tensor) -> Tensor:
    """One family's logits through :func:`lib.core.attention.attention` (``x [G, B, n, K]`` → ``[G, B]``): the
    reference that :func:`logits_stack` computes with fewer operations (tests/test_softlin.py checks they agree)."""
    WQ, WK, WV, q, r, beta = params
    G, K = x.shape[0], x.shape[-1]
    o = att.attention(q.expand(G, x.shape[1], 1, K), x, WQ, WK, WV, None, score_map=kind)
    return (o @ r).squeeze(-1).squeeze(-1) + beta


def logits_stack(params: Sequence[Tensor], kinds: Sequence[str], x: Tensor) -> Tensor:
    """The logits of F families on the same batch ``x [G, B, n, K]``, as ``[G, F, B]``. ``params``: the six parameter
    tensors with a leading family dim F (family f, model g has the shapes of :func:`logits_core`'s models). One
    product of ``x`` by the 2F contracted columns (:func:`contract`), then each run of families with the same score
    map normalised at once (``att.normalize``)."""
    G, B, n, K = x.shape
    F = len(kinds)
    a, v = contract(params)                                                    # [F, G, K, 1] each
    Wc = torch.cat([a, v], 0)[..., 0].transpose(0, 1)                          # [G, 2F, K]
    Z = (Wc @ x.reshape(G, B * n, K).transpose(-1, -2)).reshape(G, 2 * F, B, n)
    S, Vx = Z.split(F, dim=1)                                                  # [G, F, B, n] each
    runs = [(kind, len(list(grp))) for kind, grp in itertools.groupby(kinds)]
    A = torch.cat([att.normalize(s_, kind) for s_, (kind, _) in zip(S.split([c for _, c in runs], dim=1), runs, strict=True)], 1)
    return (A * Vx).sum(-1) + params[5].transpose(0, 1)                         # beta [F, G, 1] -> [G, F, 1]


def adam_step(params: Sequence[Tensor], state: dict, lr: Tensor, step: int, frozen: int | None = None,
              betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8) -> None:
    """One Adam step (torch.optim.Adam's update, no weight decay) on stacked parameters with a learning rate per
    family (``lr [F]``); a non-finite gradient entry counts as 0. ``frozen``: the index of a parameter that stays
    fixed (W_Q = 0 of the model that cannot select)."""
    b1, b2 = betas
    bc1, bc2 = 1 - b1 ** step, (1 - b2 ** step) ** 0.5
    for i, p in enumerate(params):
        if i == frozen or p.grad is None:
            continue
        g = p.grad.nan_to_num_(0.0, 0.0, 0.0)     # a diverged model (non-finite) stays diverged; it must not poison the rest
        m, v = state.setdefault(i, (torch.zeros_like(p), torch.zeros_like(p)))
        m.lerp_(g, 1 - b1)
        v.mul_(b2).addcmul_(g, g, value=1 - b2)
        with torch.no_grad():
            p.sub_(lr.reshape(-1, *[1] * (p.dim() - 1)) / bc1 * m / (v.sqrt() / bc2 + eps))


def train_needle_grid(runs: Sequence[tuple[str, float]], n: int, *, seeds: int, steps: int, batch: int, K: int = 8,
                      d_k: int = 8, sigma: float = 0.1, test: int = 1000, seed: int = 0, select: bool = True,
                      device: torch.device | str = "cpu") -> list[dict[str, np.ndarray]]:
    """:func:`train_needle` for every ``(kind, lr)`` of ``runs``, trained together: every family starts from the same
    initialisation and sees the same data stream (each batch, and the test set, is drawn once). The parameters of
    all families are stacked on a leading family dim, the forward pass of all of them is one product of the batch by
    their contracted heads (:func:`logits_stack`), and Adam steps them with a learning rate per family. The loss of a
    family depends on its own parameters only, so the summed loss gives each family its own gradient: each result is
    the one ``train_needle(kind, n, lr=lr, ...)`` returns."""
    dt = torch.float32
    gen = torch.Generator().manual_seed(seed)
    G, F = seeds, len(runs)
    W = att.init_weights(1, K, d_k, K, family=(G, 1), generator=gen, dtype=dt)
    q = torch.randn(G, 1, 1, K, generator=gen, dtype=dt)
    r = torch.randn(G, 1, K, 1, generator=gen, dtype=dt) / K ** 0.5
    beta = torch.zeros(G, 1, dtype=dt)
    params = [p.expand(F, *p.shape).clone().to(device).requires_grad_(True) for p in (W["W_Q"], W["W_K"], W["W_V"], q, r, beta)]
    if not select:
        params[0].data.zero_()
    kinds = [kind for kind, _ in runs]
    lr = torch.tensor([lr for _, lr in runs], dtype=dt, device=device)
    state: dict = {}
    loss = torch.zeros(G, F)
    for step in range(1, steps + 1):
        x, y = needle_batch(G, batch, n, K, sigma, gen, dt)
        x, y = x.to(device), y.to(device)
        z = logits_stack(params, kinds, x)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y.unsqueeze(1).expand_as(z), reduction="none").mean(-1)
        for p in params:
            p.grad = None
        loss.nan_to_num(0.0).sum().backward()
        adam_step(params, state, lr, step, frozen=None if select else 0)
    with torch.no_grad():
        x, y = needle_batch(G, test, n, K, sigma, gen, dt)
        z = torch.cat([logits_stack(params, kinds, xc.to(device)).cpu() for xc in x.split(250, dim=1)], -1)   # [G, F, test]
        acc = ((z > 0).to(dt) == y.unsqueeze(1)).to(dt).mean(-1)
        finite = torch.stack([torch.isfinite(p.detach().cpu()).reshape(F, G, -1).all(-1) for p in params]).all(0)
        loss = loss.detach().cpu()
    return [{"acc": acc[:, f].numpy().astype(float), "loss": loss[:, f].numpy().astype(float), "finite": finite[f].numpy()}
            for f in range(F)]


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
