"""Softmax vs linear attention: the needle task (how large a parameter each attention needs), and a learned comparison.
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import Tensor

from lib.chapters.softmax_vs_linear.constructions import DT, X_cross, attend, cross_pair
from lib.chapters.softmax_vs_linear.theory import row_norms
from lib.core import attention as att


def cross_needle_value(n: int, k: int, kind: str, scale: float) -> tuple[float, float]:
    """Cross-attention: the worst-case firing value of a good neuron on D1's needle row, and the largest
    row norm on D0, for softmax with ``X = b I`` (``scale`` = b) or linear attention with
    ``X_ε = diag(1, ε I_k)`` (``scale`` = 1/ε). Deterministic (one instance; symmetry)."""
    gen = torch.Generator().manual_seed(0)
    Q, K0, K1, j1, j2, g = cross_pair(1, n, k + 1, gen)
    if kind == "softmax":
        X = X_cross(k + 1, scale)
    else:
        X = torch.diag(torch.tensor([1.0] + [1.0 / scale] * k, dtype=DT))
    c1, _ = attend(Q, K1, X, kind)
    c0, _ = attend(Q, K0, X, kind)
    cn = c1[0, int(j1[0])].numpy()
    sign = -np.ones_like(cn)
    sign[[0, 1 + int(g[0])]] = 1
    others = torch.cat([row_norms(c1[0])[:int(j1[0])], row_norms(c1[0])[int(j1[0]) + 1:]])
    return float(sign @ cn), float(max(row_norms(c0[0]).max(), others.max()))


def min_scale(n: int, k: int, kind: str, tau: float, lo: float, hi: float, log: bool) -> float:
    """Smallest scale (b for softmax, 1/ε for linear) at which cross-attention *provably* separates
    (every good neuron fires on D1, nothing fires on D0), by bisection (geometric when ``log``)."""
    def good(s: float) -> bool:
        v, rest = cross_needle_value(n, k, kind, s)
        return v > tau and rest < tau
    if not good(hi):
        return float("nan")
    for _ in range(60):
        mid = math.sqrt(lo * hi) if log else 0.5 * (lo + hi)
        lo, hi = (lo, mid) if good(mid) else (mid, hi)
    return hi


# ----------------------------------------------------------------------------------------------
# beyond the paper: a learned comparison on a needle task
# ----------------------------------------------------------------------------------------------
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
    training loss, and whether the model's parameters stayed finite."""
    dt = torch.float32
    gen = torch.Generator().manual_seed(seed)
    G = seeds
    W = att.init_weights(1, K, d_k, K, family=(G, 1), generator=gen, dtype=dt)
    q = torch.randn(G, 1, 1, K, generator=gen, dtype=dt)
    r = torch.randn(G, 1, K, 1, generator=gen, dtype=dt) / K ** 0.5
    beta = torch.zeros(G, 1, dtype=dt)
    params = [W["W_Q"], W["W_K"], W["W_V"], q, r, beta]
    params = [p.to(device).requires_grad_(True) for p in params]
    WQ, WK, WV, q, r, beta = params
    if not select:
        WQ.data.zero_()
    opt = torch.optim.Adam(params if select else [p for p in params if p is not WQ], lr=lr)

    def logits(x: Tensor) -> Tensor:
        o = att.attention(q.expand(G, x.shape[1], 1, K), x, WQ, WK, WV, None, score_map=kind)
        return (o @ r).squeeze(-1).squeeze(-1) + beta

    loss = torch.zeros(G)
    for _ in range(steps):
        x, y = needle_batch(G, batch, n, K, sigma, gen, dt)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(
            logits(x.to(device)), y.to(device), reduction="none").mean(1)
        opt.zero_grad()
        loss.nan_to_num(0.0).sum().backward()
        for p in params:          # a diverged model (non-finite) stays diverged; it must not poison the rest
            if p.grad is not None:
                p.grad.nan_to_num_(0.0, 0.0, 0.0)
        opt.step()
    with torch.no_grad():
        x, y = needle_batch(G, test, n, K, sigma, gen, dt)
        z = logits(x.to(device)).cpu()
        acc = ((z > 0).to(dt) == y).to(dt).mean(1)
        finite = torch.stack([torch.isfinite(p.detach().cpu()).reshape(G, -1).all(1) for p in params]).all(0)
    return {"acc": acc.numpy().astype(float), "loss": loss.detach().cpu().numpy().astype(float),
            "finite": finite.numpy()}
