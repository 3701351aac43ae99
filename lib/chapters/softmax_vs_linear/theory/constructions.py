"""Softmax vs linear attention: the reconstructed datasets (one pair D0/D1 per random model; batched over R models)
and the combined parameters X of the proofs. The paper's copy we have lost every formula, so these are a
*reconstruction* from the proofs' surviving structure; every function states which object it rebuilds.
"""
from __future__ import annotations

import torch
from torch import Tensor

from lib.chapters.softmax_vs_linear.model import DT


def _groups(R: int, n: int, k: int, gen: torch.Generator) -> Tensor:
    """Group one-hots ``B [R, n, k]``: each of the k columns is t = n/k sparse, rows in random order."""
    t = n // k
    base = torch.arange(k).repeat_interleave(t)
    g = torch.stack([base[torch.randperm(n, generator=gen)] for _ in range(R)])
    return torch.nn.functional.one_hot(g, k).to(DT)


def toy_pair(R: int, n: int, b: float, gen: torch.Generator) -> tuple[Tensor, Tensor, Tensor]:
    """Definition 3.8 (reconstructed): D0 has every score b, D1 has one index j with score 2b.
    Returns ``x0, x1 [R, n]`` and ``j [R]``."""
    j = torch.randint(0, n, (R,), generator=gen)
    x0 = torch.full((R, n), b, dtype=DT)
    x1 = x0.clone()
    x1[torch.arange(R), j] = 2 * b
    return x0, x1, j


def self_pair(R: int, n: int, k: int, gen: torch.Generator) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """Definition D.1 (reconstructed): ``A = [e_j | B | 1_n] ∈ R^{n×(k+2)}`` (Type I, II, III columns);
    in D0 the flagged token j belongs to no group (row j of B is zero). Returns ``A0, A1, j, g`` (g the
    flagged token's group in D1)."""
    B = _groups(R, n, k, gen)
    j = torch.randint(0, n, (R,), generator=gen)
    r = torch.arange(R)
    g = B[r, j].argmax(-1)
    flag = torch.nn.functional.one_hot(j, n).to(DT).unsqueeze(-1)
    ones = torch.ones(R, n, 1, dtype=DT)
    A1 = torch.cat([flag, B, ones], -1)
    B0 = B.clone()
    B0[r, j] = 0
    A0 = torch.cat([flag, B0, ones], -1)
    return A0, A1, j, g


def X_self(k: int, b: float, variant: str) -> Tensor:
    """Section D's ``X_D = b (e_1 e_1^T + e_d e_d^T)`` (flag and bias only) or Appendix E's ``X_E = b I_d``."""
    d = k + 2
    if variant == "D":
        X = torch.zeros(d, d, dtype=DT)
        X[0, 0] = X[-1, -1] = b
        return X
    if variant == "E":
        return b * torch.eye(d, dtype=DT)
    raise ValueError(f"variant = {variant!r}: expected 'D' or 'E'")


def cross_pair(R: int, n: int, d: int, gen: torch.Generator):
    """Definition F.1 (reconstructed): ``A1 = [e_{j1} | 1_{n×k}]``, ``A2 = [e_{j2} | B]`` with k = d-1 groups;
    in D0 the key j2 belongs to no group. Returns ``Q, K0, K1, j1, j2, g``."""
    k = d - 1
    B = _groups(R, n, k, gen)
    j1 = torch.randint(0, n, (R,), generator=gen)
    j2 = torch.randint(0, n, (R,), generator=gen)
    r = torch.arange(R)
    g = B[r, j2].argmax(-1)
    Q = torch.cat([torch.nn.functional.one_hot(j1, n).to(DT).unsqueeze(-1), torch.ones(R, n, k, dtype=DT)], -1)
    e2 = torch.nn.functional.one_hot(j2, n).to(DT).unsqueeze(-1)
    K1 = torch.cat([e2, B], -1)
    B0 = B.clone()
    B0[r, j2] = 0
    K0 = torch.cat([e2, B0], -1)
    return Q, K0, K1, j1, j2, g


def X_cross(d: int, b: float) -> Tensor:
    """Appendix F's combined parameter ``X = b I_d`` (reconstructed)."""
    return b * torch.eye(d, dtype=DT)
