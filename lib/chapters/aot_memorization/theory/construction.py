"""Memorization in attention-only transformers (Dana, Pydi, Chevaleyre, AISTATS 2025): the AoT of eqs. (1)-(2),
capacities, Lemma 2 and Theorem 1's construction (the sequence encoders, Props. 1-3, Theorem 2 and Lemma 4 are in
:mod:`~lib.chapters.aot_memorization.theory.encoders`).

Notation (the paper's, eqs. 1-2). Vocabulary ``[N]``, context ``S``, embedding ``e: [N] -> R^d`` and
positions ``pos_s``; ``x(t, s) = e(t_s) + pos_s``. One layer of ``H`` heads of inner dimension ``d_h``;
the AoT reads only the last position::

    T(t) = W_U ( x(t,S) + sum_h W_O^h W_V^h sum_s softmax_s(x(t,S)^T W_QK^h x(t,s)) x(t,s) )   in R^N

In :mod:`lib.core.attention` (row convention) this is ``attention(X[:, -1:], X, W_Q, W_K, W_V, W_O, skip=True)``
with ``W_QK^h = W_Q^h (W_K^h)^T`` and the row-form ``W_V^h`` / ``W_O^h`` being the transposes of the paper's.

Everything here is float64 and exact up to round-off: the constructions of Lemma 2 / Theorem 1 /
Corollaries 1-2, the sequence-encoder optimum of Props. 1-2, the closed form of Prop. 3, Theorem 2's
bound (sign-corrected) and Lemma 4's growth rate. The training side (Experiments 1-6) is in
:mod:`lib.chapters.aot_memorization.train`; the paper's reported numbers are in
:data:`~lib.chapters.aot_memorization.theory.paper.PAPER`.

The construction of Theorem 1 used here removes the paper's ``lambda -> infinity`` limit: the skip
connection is linear in the embeddings, so with features ``F = [x'(t,S) ; W_V'^h A'^h(t)]`` we solve
``F M = E`` for ``M = [W_OV ; W_O]`` and absorb the invertible ``W_OV`` into ``e, pos, W_Q, W_K, W_V``
(``e = e' W_OV``, ``W_Q = W_OV^{-1} W_Q'``, ...). The result is an AoT with an identity skip whose logits
equal the target sequence encoder's exactly whenever ``rank F`` equals the number of sequences.
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import torch

from lib.core import attention as att

DT = torch.float64


# ---------------------------------------------------------------------------------------------
# Counting
# ---------------------------------------------------------------------------------------------
def phi(X, N: int, T0: int):
    """Corollary 2's map from a number of memorized associations to an expected accuracy (capped at 1)."""
    return np.minimum(1.0, 1.0 / N + (1.0 - 1.0 / N) * np.asarray(X, dtype=float) / T0)


def capacity_paper(H: int, d_h: int, d: int) -> int:
    """The paper's capacity H d_h + d (Theorem 1 / Corollary 1, stated for d_h <= d)."""
    return H * d_h + d


def capacity_corrected(H: int, d_h: int, d: int) -> int:
    """The capacity the construction reaches for any d_h: H min(d_h, d) + d (each head's value map has rank <= d)."""
    return H * min(d_h, d) + d


def capacity_mahdavi(H: int, d_h: int) -> int:
    """Mahdavi et al. (2024), Theorem 1: H (d_h - 1) + 1, valid for context length S <= d."""
    return H * (d_h - 1) + 1


def n_params_paper(N: int, S: int, d: int, d_h: int, H: int) -> int:
    """Theorem 1's parameter count d (S + 2N + 4 d_h H)."""
    return d * (S + 2 * N + 4 * d_h * H)


def n_params_rank1(N: int, S: int, d: int, d_h: int, H: int) -> int:
    """v2's Remark 2: rank-one W_QK (W_Q, W_K in R^d) gives d (S + 2N + 2 (d_h + 1) H)."""
    return d * (S + 2 * N + 2 * (d_h + 1) * H)


# ---------------------------------------------------------------------------------------------
# Sequences, embeddings and the AoT forward pass (through lib.core.attention)
# ---------------------------------------------------------------------------------------------
def all_sequences(N: int, S: int) -> np.ndarray:
    """All N^S token sequences as an integer array [N^S, S] (lexicographic)."""
    return np.array(list(itertools.product(range(N), repeat=S)), dtype=np.int64).reshape(-1, S)


@dataclass
class AoT:
    """A one-layer attention-only transformer in the paper's form (eq. 2), row convention, float64.

    ``e [N, d]``, ``pos [S, d]``, ``W_Q, W_K [H, d, r]`` (r = rank of W_QK^h), ``W_V [H, d, d_h]``,
    ``W_O [H, d_h, d]``, ``W_U [N, d]``."""
    e: torch.Tensor
    pos: torch.Tensor
    W_Q: torch.Tensor
    W_K: torch.Tensor
    W_V: torch.Tensor
    W_O: torch.Tensor
    W_U: torch.Tensor

    def inputs(self, seqs: np.ndarray) -> torch.Tensor:
        t = torch.as_tensor(seqs)
        return self.e[t] + self.pos                       # [T, S, d]

    def residual(self, seqs: np.ndarray) -> torch.Tensor:
        """The sequence embedding E(t) = x(t,S) + sum_h W_O^h W_V^h A^h(t)  (the AoT is W_U E)."""
        X = self.inputs(seqs)
        out = att.attention(X[:, -1:, :], X, self.W_Q, self.W_K, self.W_V, self.W_O, skip=True)
        return out[:, 0, :]

    def logits(self, seqs: np.ndarray) -> torch.Tensor:
        return self.residual(seqs) @ self.W_U.T

    def n_params(self) -> int:
        return sum(int(p.numel()) for p in (self.e, self.pos, self.W_Q, self.W_K, self.W_V, self.W_O, self.W_U))


def head_features(X: torch.Tensor, W_Q: torch.Tensor, W_K: torch.Tensor) -> torch.Tensor:
    """The attention before output A(t) = [A^1(t); ...; A^H(t)] in R^{Hd}, for inputs X [T, S, d]."""
    d = X.shape[-1]
    eye = torch.eye(d, dtype=X.dtype).expand(W_Q.shape[0], d, d)
    out = att.attention(X[:, -1:, :], X, W_Q, W_K, eye, W_O=None)   # heads concatenated: [T, 1, H d]
    return out[:, 0, :]


def random_embeddings(N: int, S: int, d: int, rng: np.random.Generator, pos_scale: float = 1.0):
    """Generic (Gaussian) token and positional embeddings: Lemma 3's algebraically independent numbers
    are almost surely what a continuous draw gives."""
    e = torch.as_tensor(rng.standard_normal((N, d)))
    pos = torch.as_tensor(pos_scale * rng.standard_normal((S, d)))
    return e, pos


def random_rank1_qk(H: int, d: int, rng: np.random.Generator, scale: float = 1.0):
    """Rank-one W_QK^h = q_h k_h^T (Lemma 2 needs no more): W_Q, W_K of shape [H, d, 1]."""
    return (torch.as_tensor(scale * rng.standard_normal((H, d, 1))),
            torch.as_tensor(scale * rng.standard_normal((H, d, 1))))


def lemma2_rival(T0: int, H: int, d: int) -> int:
    """Lemma 2's closest wrong count: min(T0, H (d-1) + 1), as if each head lost one dimension to an affine
    hull (Mahdavi et al.'s count with d_h = d); it differs from min(T0, H d) only when H > 1 and T0 > H(d-1)+1."""
    return min(T0, H * (d - 1) + 1)


def lemma2_rank(N: int, S: int, d: int, H: int, rng: np.random.Generator, T0: int | None = None,
                qk_scale: float = 1.0) -> tuple[int, int]:
    """rank of {A(t)} over T0 random distinct sequences (all N^S by default); returns (rank, min(T0, H d)).
    ``qk_scale = 0`` gives W_QK = 0 (uniform attention, every head the same average)."""
    seqs = all_sequences(N, S)
    if T0 is not None and T0 < len(seqs):
        seqs = seqs[rng.choice(len(seqs), T0, replace=False)]
    e, pos = random_embeddings(N, S, d, rng)
    W_Q, W_K = random_rank1_qk(H, d, rng, scale=qk_scale)
    A = head_features(e[torch.as_tensor(seqs)] + pos, W_Q, W_K)      # [T0, H d]
    return int(np.linalg.matrix_rank(A.numpy())), min(len(seqs), H * d)


# ---------------------------------------------------------------------------------------------
# Theorem 1's construction (epsilon = 0 and epsilon > 0)
# ---------------------------------------------------------------------------------------------
@dataclass
class Construction:
    model: AoT
    features: np.ndarray      # F [T, d + H d_h]  (rows: sequences)
    rank: int                 # rank F
    fitted: np.ndarray        # indices of the sequences solved for exactly


def construct(N: int, S: int, d: int, d_h: int, H: int, W_U: np.ndarray, E: np.ndarray,
              rng: np.random.Generator, fit: np.ndarray | None = None) -> Construction:
    """An AoT with W_U given whose sequence embedding equals ``E [N^S, d]`` on the sequences ``fit``
    (all by default), built as in the module docstring. With ``len(fit) <= rank F`` the fitted rows
    are exact; the remaining sequences get whatever the interpolating W_O gives (Theorem 1, eps > 0)."""
    seqs = all_sequences(N, S)
    fit = np.arange(len(seqs)) if fit is None else np.asarray(fit)
    e1, pos1 = random_embeddings(N, S, d, rng)
    Wq1, Wk1 = random_rank1_qk(H, d, rng)
    Wv1 = torch.as_tensor(rng.standard_normal((H, d, d_h)) / math.sqrt(d))
    X1 = e1[torch.as_tensor(seqs)] + pos1
    eye_heads = att.attention(X1[:, -1:, :], X1, Wq1, Wk1, Wv1, W_O=None)[:, 0, :]   # [T, H d_h]
    F = torch.cat([X1[:, -1, :], eye_heads], dim=1).numpy()                          # [T, d + H d_h]
    rank = int(np.linalg.matrix_rank(F))
    M, *_ = np.linalg.lstsq(F[fit], E[fit], rcond=None)                             # [d + H d_h, d]
    W_OV = M[:d]
    if abs(np.linalg.det(W_OV)) < 1e-300 or np.linalg.cond(W_OV) > 1e12:   # generic W_OV is invertible
        W_OV = W_OV + 1e-6 * rng.standard_normal(W_OV.shape)
    Winv = torch.as_tensor(np.linalg.inv(W_OV))
    W_OVt = torch.as_tensor(W_OV)
    model = AoT(e=e1 @ W_OVt, pos=pos1 @ W_OVt, W_Q=Winv @ Wq1, W_K=Winv @ Wk1, W_V=Winv @ Wv1,
                W_O=torch.as_tensor(M[d:]).reshape(H, d_h, d), W_U=torch.as_tensor(W_U))
    return Construction(model, F, rank, fit)


def unit_rows(N: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """N random unit vectors of R^d (an unembedding whose rows are distinct directions)."""
    W = rng.standard_normal((N, d))
    return W / np.linalg.norm(W, axis=1, keepdims=True)


def random_table(N: int, S: int, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random look-up table g: [N]^S -> [N] (the experiments' task), as an array [N^S]."""
    return rng.integers(0, N, size=N ** S)


def association_check(N: int, S: int, d: int, d_h: int, H: int, rng: np.random.Generator,
                      subset: int | None = None) -> dict:
    """Corollary 1 (and Corollary 2 with ``subset``): build an AoT that memorizes a random look-up table
    on all N^S sequences (or on a random subset of that size). Target E(t) = 10 W_U[g(t)], unit rows."""
    T = N ** S
    g = random_table(N, S, rng)
    W_U = unit_rows(N, d, rng)
    E = 10.0 * W_U[g]
    fit = None if subset is None else np.sort(rng.choice(T, subset, replace=False))
    c = construct(N, S, d, d_h, H, W_U, E, rng, fit)
    seqs = all_sequences(N, S)
    logits = c.model.logits(seqs).numpy()
    target = E @ W_U.T
    pred = logits.argmax(1)
    idx = np.arange(T) if fit is None else fit
    err = float(np.abs(logits[idx] - target[idx]).max() / np.abs(target).max())
    return dict(T=T, rank=c.rank, capacity=capacity_paper(H, d_h, d), capacity_corrected=capacity_corrected(H, d_h, d),
                acc_fit=float((pred[idx] == g[idx]).mean()), acc_all=float((pred == g).mean()),
                rel_err=err, n_params=c.model.n_params())


def encoder_rank_of_aot(model: AoT, seqs: np.ndarray) -> int:
    """Prop. 1: an AoT's logit matrix [T, N] factors through R^d, so its rank is at most d."""
    return int(np.linalg.matrix_rank(model.logits(seqs).detach().numpy()))


def heads_short_of(N: int, S: int, d: int, d_h: int) -> int:
    """The largest head count H whose capacity H min(d_h, d) + d stays below T0 = N^S (the controls' "one head
    short": the same construction with fewer free columns than associations)."""
    return max(0, math.ceil((N ** S - d) / min(d_h, d)) - 1)


def eq2_literal(t, e, pos, W_QK, W_V, W_O, W_U) -> np.ndarray:
    """The paper's eqs. (1)-(2) for one sequence ``t``, literally, in its column convention: ``W_V^h`` is
    d_h x d, ``W_O^h`` is d x d_h; a loop over heads and positions, no shared code."""
    x = [e[ts] + pos[s] for s, ts in enumerate(t)]
    out = x[-1].copy()
    for h in range(len(W_QK)):
        sc = np.array([x[-1] @ W_QK[h] @ xs for xs in x])
        a = np.exp(sc - sc.max())
        a /= a.sum()
        out = out + W_O[h] @ W_V[h] @ sum(a_s * xs for a_s, xs in zip(a, x, strict=True))
    return W_U @ out
