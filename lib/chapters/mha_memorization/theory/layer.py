"""Mahdavi, Liao & Thrampoulidis (ICLR 2024), *Memorization capacity of multi-head attention*: the layer.

The paper's layer (eqs. 1-6), for a context ``E ∈ R^{n×d}`` (tokens are rows) and one query ``e ∈ R^d``::

    α_h = E W_{K,h} W_{Q,h}^T e     θ_h = softmax(α_h)     z_h = E^T θ_h     p_h = W_{V,h}^T z_h
    o = W_O^T [p_1; …; p_H]         ŷ = W_D^T o

is :func:`lib.core.attention.attention` with one query row ``X_q = e^T``, keys/values ``X_kv = E``, no scale,
per-head output blocks ``W_O^h = W_O[h d_v:(h+1) d_v, :]``, followed by ``@ W_D`` (:func:`forward`; :func:`paper_layer`
is eqs. (1)-(6) written out literally, for one example). The feature matrix ``Z`` (eq. 7: row t = [z_1^(t); …;
z_H^(t)]) is the same call with ``W_V = I_d`` and no output projection (:func:`features`).

Everything here works in float64: the construction of Theorem 1 uses key/query scales c ~ 1e2…1e6,
and in float32 the residual logits ``c·E W^+ e ≈ c·1e-7`` would spoil exact interpolation.

Contents: the layer and its features, the parameter count (and its other readings), assumption checkers
(context rank, exact Kruskal rank for small sets, the paper's randomized Kruskal test), the uniform data of
Sec. 5.2, and random key/query weights (Propositions 2 and 5).
"""
from __future__ import annotations

import itertools
import math

import numpy as np
import torch

from lib.core import attention as att

DT = torch.float64



def limit_blas_threads(n: int = 1):
    """NumPy/SciPy's OpenBLAS starts one thread per core; on a shared 2-core machine the small SVDs and
    QRs of this chapter run ~15x faster with one. (lib.core.repro.setup limits torch's threads only.)"""
    from threadpoolctl import threadpool_limits
    return threadpool_limits(n)


# ---------------------------------------------------------------------------------------------
# The layer in the paper's notation, mapped onto lib.core.attention
# ---------------------------------------------------------------------------------------------
def _t(x) -> torch.Tensor:
    return torch.as_tensor(np.asarray(x), dtype=DT)


def forward(E, e, W_K, W_Q, W_V, W_O, W_D, skip: bool = False) -> np.ndarray:
    """Eqs. (1)-(6) for a batch: ``E [T,n,d]``, ``e [T,d]``, ``W_K, W_Q [H,d,d_h]``, ``W_V [H,d,d_v]``,
    ``W_O [H·d_v, d]`` (the paper's stacked matrix), ``W_D [d, d_out]``. Returns ``ŷ [T, d_out]``.
    With ``skip`` the layer output is ``o + e`` (Appendix C)."""
    W_V = _t(W_V)
    H, _, d_v = W_V.shape
    W_O = _t(W_O).reshape(H, d_v, -1)                       # per-head blocks of the stacked W_O
    o = att.attention(_t(e)[:, None, :], _t(E), _t(W_Q), _t(W_K), W_V, W_O, skip=skip)[:, 0, :]
    return (o @ _t(W_D)).numpy()


def features(E, e, W_K, W_Q) -> np.ndarray:
    """The feature matrix Z (eq. 7), ``[T, H·d]``: row t is ``[E^T θ_1; …; E^T θ_H]``."""
    E = _t(E)
    H, d = _t(W_K).shape[0], E.shape[-1]
    I = torch.eye(d, dtype=DT).expand(H, d, d)
    return att.attention(_t(e)[:, None, :], E, _t(W_Q), _t(W_K), I, None)[:, 0, :].numpy()


def softmax_weights(E, e, W_K, W_Q) -> np.ndarray:
    """θ_h^(t) for every example and head: ``[T, H, n]``."""
    S = att.scores(_t(e)[:, None, :], _t(E), _t(W_Q), _t(W_K))         # [T, H, 1, n]
    return att.normalize(S)[:, :, 0, :].numpy()


def param_count(H: int, d: int, d_h: int, d_v: int, d_out: int) -> dict[str, int]:
    """Parameters of the layer: the paper's formula (which omits W_O) and the true count."""
    true = 2 * H * d * d_h + H * d * d_v + H * d_v * d + d * d_out
    return {"paper": 2 * H * d * d_h + H * d * d_v + d * d_out, "true": true}


def count_module_params(H: int, d: int, d_h: int, d_v: int, d_out: int) -> int:
    """Count the parameters of the layer built as torch tensors of the paper's shapes (independent of
    the formula above)."""
    shapes = [(d, d_h), (d, d_h), (d, d_v)] * H + [(H * d_v, d), (d, d_out)]
    return sum(torch.empty(s).numel() for s in shapes)


# ---------------------------------------------------------------------------------------------
# Ranks and the assumptions
# ---------------------------------------------------------------------------------------------
def num_rank(M: np.ndarray, rtol: float = 1e-10) -> int:
    """Numerical rank: singular values above ``rtol · σ_max``."""
    s = np.linalg.svd(np.atleast_2d(M), compute_uv=False)
    return int((s > rtol * s[0]).sum()) if s.size and s[0] > 0 else 0


def context_ranks(E: np.ndarray, rtol: float = 1e-10) -> np.ndarray:
    """rank(E^(t)) for every example (Assumption 2 asks for n): :func:`num_rank` of each ``E^(t)``."""
    if rtol < GRAM_RTOL:
        s = np.linalg.svd(E, compute_uv=False)                            # [T, n]
        return (s > rtol * s[:, :1]).sum(axis=1)
    G = E @ E.swapaxes(-1, -2) if E.shape[-2] <= E.shape[-1] else E.swapaxes(-1, -2) @ E
    return _settle(_gram_ranks(G, rtol, sum(E.shape[-2:])), lambda i: num_rank(E[i], rtol))


# Ranks from Gram matrices. At a tolerance rtol ≥ GRAM_RTOL (torch's float32 rule is ~1e-4) the test
# σ_i > rtol·σ_1 is λ_i > rtol²·λ_1 for the eigenvalues λ_i = σ_i² of M M^T (k × k for k rows), which is several
# times cheaper than an SVD. Float64 rounding moves each λ_i by at most about (k + d)·ε_64·tr(M M^T)
# (the product and the symmetric eigensolver); an eigenvalue that close to the threshold is not trusted,
# and that matrix's rank is taken from its SVD (:func:`num_rank`): the ranks are num_rank's.
GRAM_RTOL = 1e-5
_EPS64 = float(np.finfo(np.float64).eps)


def _gram_ranks(G: np.ndarray, rtol: float, length: int) -> np.ndarray:
    """Numerical ranks of the matrices whose Gram matrices are ``G [..., k, k]`` (inner length + k =
    ``length``); -1 where an eigenvalue lies within the rounding bound of the threshold."""
    lam = np.linalg.eigvalsh(G)                                           # ascending
    thr = rtol ** 2 * lam[..., -1:]
    err = 4 * length * _EPS64 * np.trace(G, axis1=-2, axis2=-1)[..., None]
    sure = (np.abs(lam - thr) > 2 * err).all(axis=-1) & (lam[..., -1] > 4 * err[..., 0])
    return np.where(sure, (lam > thr).sum(axis=-1), -1)


def _settle(ranks: np.ndarray, exact) -> np.ndarray:
    """``ranks`` with every -1 (undecided by the Gram route) replaced by ``exact(i)``."""
    for i in np.flatnonzero(ranks < 0):
        ranks[i] = exact(i)
    return ranks


def kruskal_rank(V: np.ndarray, rtol: float = 1e-10, max_subsets: int = 200_000) -> int:
    """Exact Kruskal rank of the rows of ``V`` (Definition 1): the largest k such that EVERY k rows are
    independent. Enumerates subsets, so only for small sets (raises if more than ``max_subsets``)."""
    T = V.shape[0]
    k = 0
    for size in range(1, min(T, V.shape[1]) + 1):
        if math.comb(T, size) > max_subsets:
            raise ValueError(f"{math.comb(T, size)} subsets of size {size}: too many for the exact test")
        if all(num_rank(V[list(c)], rtol) == size for c in itertools.combinations(range(T), size)):
            k = size
        else:
            break
    return k


def kruskal_test(V: np.ndarray, k: int, trials: int, rng: np.random.Generator, rtol: float = 1e-10):
    """The paper's randomized test (Sec. 5.1): draw ``trials`` random k-subsets of the rows of ``V`` and
    return (fraction with rank k, the ranks seen). 'Holds' in the paper = fraction ≥ 0.99."""
    T = V.shape[0]
    subsets = np.array([rng.choice(T, size=k, replace=False) for _ in range(trials)]).reshape(trials, k)
    if rtol < GRAM_RTOL or k > V.shape[1] or T > 8192:
        ranks = np.array([num_rank(V[s], rtol) for s in subsets], dtype=int)
    else:                          # each subset's Gram matrix is a submatrix of the Gram matrix of all T rows
        G, ranks = V @ V.T, np.empty(trials, dtype=int)
        for c in range(0, trials, 16):
            s = subsets[c:c + 16]
            ranks[c:c + 16] = _gram_ranks(G[s[:, :, None], s[:, None, :]], rtol, k + V.shape[1])
        ranks = _settle(ranks, lambda i: num_rank(V[subsets[i]], rtol))
    return float((ranks == k).mean()), ranks


# ---------------------------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------------------------
def uniform_data(T: int, n: int, d: int, rng: np.random.Generator, shared: bool = True, Q: int | None = None):
    """Contexts and queries i.i.d. U[0,1) as in the paper's Sec. 5.2 (shared: one context for all).
    With ``Q`` the queries lie in a random Q-dimensional subspace (Kruskal rank Q, Remark 1)."""
    E = rng.random((1 if shared else T, n, d))
    E = np.broadcast_to(E, (T, n, d)).copy()
    if Q is None:
        e = rng.random((T, d))
    else:
        e = rng.random((T, Q)) @ rng.standard_normal((Q, d))
    return E, e



def paper_layer(E, e, W_K, W_Q, W_V, W_O, W_D) -> np.ndarray:
    """Eqs. (1)-(6), literally, for one example (numpy)."""
    p = []
    for h in range(len(W_K)):
        alpha = E @ W_K[h] @ W_Q[h].T @ e
        theta = np.exp(alpha - alpha.max())
        theta /= theta.sum()
        p.append(W_V[h].T @ (E.T @ theta))
    return W_D.T @ (W_O.T @ np.concatenate(p))


# ---------------------------------------------------------------------------------------------
# Propositions 2 and 5: rank of Z for arbitrary (random) weights
# ---------------------------------------------------------------------------------------------
def random_heads(H: int, d: int, d_h: int, scale: float, rng: np.random.Generator):
    """Gaussian key/query weights, entries N(0, scale²/d)."""
    g = lambda: rng.standard_normal((H, d, d_h)) * scale / math.sqrt(d)
    return g(), g()


def singular_values(Z: np.ndarray) -> np.ndarray:
    return np.linalg.svd(Z, compute_uv=False)


# the parameter count under other readings of the layer (for the finding that the paper's formula omits a block)
PARAM_READINGS = {
    "W_O merged into the read-out (one Hd_v×d_out map)": lambda H, d, dh, dv, do: 2 * H * d * dh + H * d * dv + H * dv * do,
    "W_V and W_O fused per head (one d×d map each)": lambda H, d, dh, dv, do: 2 * H * d * dh + H * d * d + d * do,
}

