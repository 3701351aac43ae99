"""The appendices' side constructions (Mahdavi et al. 2024): the averaging layer of Proposition 4 and its
ViT-like data (App. C-D), the two-layer ReLU comparison of Proposition 3 (App. F), and Proposition 5's rank cap
under other weight scales and tolerances (App. I).
"""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.chapters.mha_memorization.theory.layer import DT, _t, features, num_rank, random_heads, uniform_data
from lib.core import attention as att

# ---------------------------------------------------------------------------------------------
# Proposition 4: one averaging self-attention layer with a skip connection
# ---------------------------------------------------------------------------------------------
def averaging_layer(X: np.ndarray) -> np.ndarray:
    """A_0 of Proposition 4 applied to every token of every example (self-attention): one head,
    W_K = W_Q = 0, W_V = W_O = I, skip. ``X [T, n, d]`` -> ``[T, n, d]``."""
    X = _t(X)
    d = X.shape[-1]
    Z0 = torch.zeros(1, d, d, dtype=DT)
    I = torch.eye(d, dtype=DT)[None]
    return att.attention(X, X, Z0, Z0, I, I, skip=True).numpy()


def vit_like_tokens(T: int, n_patch: int, d: int, rng: np.random.Generator, shuffle_bag: bool = False):
    """ViT-shaped synthetic examples: token 0 is a [CLS] token (the same vector in every example), the
    others are patch embeddings, plus fixed random position embeddings. ``shuffle_bag``: every example's
    patches are a permutation of ONE shared bag of patches (Assumption 3 fails)."""
    cls = rng.standard_normal(d)
    pos = 0.5 * rng.standard_normal((n_patch + 1, d))
    if shuffle_bag:
        bag = rng.standard_normal((n_patch, d))
        patches = np.stack([bag[rng.permutation(n_patch)] for _ in range(T)])
    else:
        patches = rng.standard_normal((T, n_patch, d))
    X = np.concatenate([np.broadcast_to(cls, (T, 1, d)), patches], axis=1) + pos
    return X


# ---------------------------------------------------------------------------------------------
# Proposition 3: two-layer ReLU networks (Appendix F)
# ---------------------------------------------------------------------------------------------
def appF_dataset(T: int, n: int, d: int, rng: np.random.Generator):
    """The hard dataset of Appendix F: every context is the first n standard basis vectors (shared),
    queries are [0_{d-n}; x^(t)] with x^(t) ∈ R^n generic."""
    E = np.broadcast_to(np.eye(n, d), (T, n, d)).copy()
    x = rng.standard_normal((T, n))
    e = np.concatenate([np.zeros((T, d - n)), x], axis=1)
    return E, e, x


def fcn(x: torch.Tensor, W1, b1, W2, b2) -> torch.Tensor:
    """f(x) = W_2^T ReLU(W_1^T x + b_1) + b_2 with W_1 [in, m], W_2 [m, d_out] (App. F, shapes fixed)."""
    return torch.relu(x @ W1 + b1) @ W2 + b2


def fcn_reduction(E, e, x, m: int, d_out: int, rng: np.random.Generator):
    """On the Appendix-F dataset a width-m FCN on the flattened (n+1)d input equals a width-m FCN on x:
    returns (max |difference|, rank of the Jacobian of the T·d_out outputs w.r.t. ALL parameters, the
    number of all parameters, the reduced network's parameter count (n+1)m + (m+1)d_out)."""
    T, n, d = E.shape
    xin = torch.as_tensor(np.concatenate([E.reshape(T, -1), e], axis=1), dtype=DT)
    D = xin.shape[1]
    W1 = torch.as_tensor(rng.standard_normal((D, m)) / math.sqrt(n + 1), dtype=DT)
    b1 = torch.as_tensor(rng.standard_normal(m), dtype=DT)
    W2 = torch.as_tensor(rng.standard_normal((m, d_out)), dtype=DT)
    b2 = torch.as_tensor(rng.standard_normal(d_out), dtype=DT)
    full = fcn(xin, W1, b1, W2, b2)
    # reduced network: the constant part of the input folds into the bias; only the last n input rows act
    const = xin[0].clone()
    const[-n:] = 0.0
    b1r = b1 + const @ W1
    red = fcn(torch.as_tensor(x, dtype=DT), W1[-n:], b1r, W2, b2)
    diff = float((full - red).abs().max())
    J = torch.func.jacrev(lambda *p: fcn(xin, *p).reshape(-1), argnums=(0, 1, 2, 3))(W1, b1, W2, b2)
    Jm = torch.cat([j.reshape(T * d_out, -1) for j in J], dim=1).numpy()
    return diff, num_rank(Jm, 1e-9), Jm.shape[1], (n + 1) * m + (m + 1) * d_out


def fcn_bound(n: int, m: int, d_out: int) -> float:
    """Proposition 3: T ≤ (n+1)m/d_out + (m+1)."""
    return (n + 1) * m / d_out + (m + 1)


def fcn_params(n: int, d: int, m: int, d_out: int) -> int:
    return ((n + 1) * d + 1) * m + (m + 1) * d_out



def prop5_variants(Hs, n: int, d: int, rng: np.random.Generator) -> list[tuple[str, bool, str]]:
    """Proposition 5's reached cap under other weight scales and rank tolerances: (choice, whether rank Z =
    H(d−1)+1 with the sum constraint and min(T, Hd) without it at every H, the ranks)."""
    out = []
    for name, sc, tol in (("weight scale 0.1", 0.1, 1e-10), ("weight scale 10", 10.0, 1e-10),
                          ("rank tolerance 1e-8", 1.0, 1e-8), ("rank tolerance 1e-12", 1.0, 1e-12)):
        ok, vals = True, []
        for H in Hs:
            T = H * d + 10
            E, e = uniform_data(T, n, d, rng, shared=False)
            W = random_heads(H, d, d, sc, rng)
            rf = num_rank(features(E, e, *W), tol)
            rs = num_rank(features(2 * E / E.sum(-1, keepdims=True), e, *W), tol)
            ok &= rf == min(T, H * d) and rs == H * (d - 1) + 1
            vals.append(f"H={H}: {rf}/{rs}")
        out.append((name, bool(ok), "; ".join(vals)))
    return out
