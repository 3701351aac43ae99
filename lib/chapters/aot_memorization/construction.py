"""Memorization in attention-only transformers (Dana, Pydi, Chevaleyre, AISTATS 2025): the theory side.

Notation (the paper's, eqs. 1-2). Vocabulary ``[N]``, context ``S``, embedding ``e: [N] -> R^d`` and
positions ``pos_s``; ``x(t, s) = e(t_s) + pos_s``. One layer of ``H`` heads of inner dimension ``d_h``;
the AoT reads only the last position::

    T(t) = W_U ( x(t,S) + sum_h W_O^h W_V^h sum_s softmax_s(x(t,S)^T W_QK^h x(t,s)) x(t,s) )   in R^N

In :mod:`lib.core.attention` (row convention) this is ``attention(X[:, -1:], X, W_Q, W_K, W_V, W_O, skip=True)``
with ``W_QK^h = W_Q^h (W_K^h)^T`` and the row-form ``W_V^h`` / ``W_O^h`` being the transposes of the paper's.

Everything here is float64 and exact up to round-off: the constructions of Lemma 2 / Theorem 1 /
Corollaries 1-2, the sequence-encoder optimum of Props. 1-2, the closed form of Prop. 3, Theorem 2's
bound (sign-corrected) and Lemma 4's growth rate. The training side (Experiments 1-6) is in
:mod:`lib.chapters.aot_memorization.train`; the paper's reported numbers are in :data:`PAPER`.

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
# The paper's reported numbers. Experiments 1-3 and 6: the official repository's CSV files
# (leodana2000/Transformer_Attentional_Memory, "Scaling laws/Data_exp_*.csv", the v2/AISTATS runs:
# N = 50, 5 seeds, 4096 Adam steps; Exp 6: N = 10, d = d_h = 2, 20 seeds). The accuracy is the
# running training-batch accuracy of the last 100 batches. Exp 5: v2, N = 70 (same source).
# ---------------------------------------------------------------------------------------------
PAPER = {
    "exp1_H": [1, 6, 11, 16, 21, 26, 31],
    "exp1": {  # d = d_h -> accuracy at each H of exp1_H (N = 50)
        3: [0.0586, 0.0652, 0.0758, 0.0856, 0.0879, 0.0950, 0.0973],
        4: [0.0678, 0.0904, 0.1143, 0.1257, 0.1463, 0.1596, 0.1737],
        5: [0.0738, 0.1193, 0.1582, 0.1922, 0.2248, 0.2572, 0.2936],
        6: [0.0856, 0.1536, 0.2103, 0.2659, 0.3138, 0.3753, 0.4232],
        7: [0.1005, 0.1887, 0.2634, 0.3443, 0.4313, 0.5125, 0.5913],
        8: [0.1121, 0.2311, 0.3348, 0.4450, 0.5596, 0.6628, 0.7833],
        9: [0.1217, 0.2758, 0.4133, 0.5523, 0.6960, 0.8337, 0.9384],
        10: [0.1298, 0.3243, 0.5063, 0.6852, 0.8608, 0.9634, 0.9974],
        11: [0.1401, 0.3710, 0.5866, 0.8020, 0.9618, 0.9986, 0.9998],
        12: [0.1471, 0.4359, 0.6792, 0.9174, 0.9966, 0.9999, 0.9999],
        13: [0.1626, 0.4820, 0.7745, 0.9882, 0.9998, 1.0000, 0.9999],
    },
    "exp2_dh": list(range(1, 11)),   # d = 10, H = 20
    "exp2": [0.0815, 0.1096, 0.1554, 0.2094, 0.2879, 0.3567, 0.4534, 0.5457, 0.6391, 0.8044],
    "exp3_d": list(range(5, 16)),    # d_h = 10, H = 20
    "exp3": [0.2639, 0.3621, 0.4600, 0.5782, 0.6972, 0.8087, 0.7769, 0.7890, 0.7855, 0.8118, 0.8136],
    "exp5_H": [1, 6, 11, 16, 21, 26, 31],  # N = 70; MLP width w = 2d(H-1)
    "exp5": {7: {"aot": [0.054, 0.098, 0.128, 0.164, 0.200, 0.238, 0.270],
                 "mlp": [0.054, 0.122, 0.169, 0.185, 0.206, 0.228, 0.239]},
             10: {"aot": [0.068, 0.151, 0.230, 0.301, 0.389, 0.490, 0.594],
                  "mlp": [0.070, 0.236, 0.374, 0.498, 0.578, 0.590, 0.693]},
             13: {"aot": [0.085, 0.219, 0.363, 0.511, 0.686, 0.911, 0.999],
                  "mlp": [0.084, 0.395, 0.779, 0.944, 0.977, 0.986, 0.998]}},
    "exp6_H": [1, 5, 9, 13, 17, 21],       # N = 10, d = d_h = 2 (v2)
    "exp6": [0.3305, 0.4969, 0.6334, 0.7340, 0.8567, 0.8578],
    # statements in the text
    "exp6_ratio_v1": 1.7, "exp6_ratio_v2": 1.3,
    "exp4_exponent_v1": 3.0, "exp4_exponent_v2": "between 2 and 3",
    # v1 (the same repository at commit 3c9981c, "version finale"; 2 seeds, Adam at a constant 1e-3, 10 epochs of a
    # fixed set of 1000 batches of 1024): Exp. 1 / Fig. 1a, d = d_h -> accuracy at H = 1, 6, 11, ... (6 or 7 values)
    "exp1_v1": {
        3: [0.0472, 0.0536, 0.0564, 0.0550, 0.0557, 0.0584],
        4: [0.0566, 0.0673, 0.0717, 0.0783, 0.0954, 0.0862],
        5: [0.0642, 0.0876, 0.1088, 0.1029, 0.1368, 0.1473],
        6: [0.0711, 0.1090, 0.1396, 0.1645, 0.1794, 0.2262],
        7: [0.0840, 0.1256, 0.1703, 0.2281, 0.2525, 0.2931],
        8: [0.0806, 0.1530, 0.2154, 0.2979, 0.3658, 0.4209],
        9: [0.0912, 0.1838, 0.2704, 0.3748, 0.5223, 0.6683],
        10: [0.0980, 0.2332, 0.3503, 0.5028, 0.7072, 0.8050],
        11: [0.1000, 0.2653, 0.4375, 0.6703, 0.9334, 0.9941, 0.9999],
        12: [0.1091, 0.3112, 0.5417, 0.9265, 0.9941, 0.9998, 1.0000],
        13: [0.1151, 0.3630, 0.6744, 0.9910, 1.0000, 1.0000, 1.0000],
    },
    # v2 Appendix B.1 (Data_exp_1_{40,50,60}_dim.csv, Data_exp_2_dim.csv): N = 200, 4096 steps of batch 1024
    "b1_exp1_H": [1, 3, 5, 7, 9, 11],      # Fig. 5: d = d_h -> accuracy at each H
    "b1_exp1": {40: [0.0768, 0.1478, 0.2144, 0.2776, 0.3346, 0.3947],
                50: [0.0937, 0.2032, 0.2989, 0.3930, 0.4781, 0.5591],
                60: [0.1104, 0.2587, 0.3935, 0.5155, 0.6241, 0.7266]},
    "b1_exp2_dh": [1, *range(5, 51, 5)],   # Fig. 6: d = 50, H = 11
    "b1_exp2": [0.0334, 0.0569, 0.0915, 0.1303, 0.1753, 0.2233, 0.2747, 0.3301, 0.3883, 0.4453, 0.5603],
}


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


# ---------------------------------------------------------------------------------------------
# Distributions: KL, sequence encoders (Props. 1-3), Theorem 1's distribution form
# ---------------------------------------------------------------------------------------------
def kl_rows(P: np.ndarray, logits: np.ndarray) -> np.ndarray:
    """KL(P_t || softmax(logits_t)) per row, for P with full support or zeros (0 log 0 = 0)."""
    L = logits - logits.max(1, keepdims=True)
    logq = L - np.log(np.exp(L).sum(1, keepdims=True))
    with np.errstate(divide="ignore", invalid="ignore"):
        term = np.where(P > 0, P * (np.log(np.where(P > 0, P, 1.0)) - logq), 0.0)
    return term.sum(1)


def d_kl(prior: np.ndarray, P: np.ndarray, logits: np.ndarray) -> float:
    """The paper's objective E_{t ~ prior} KL(pi_t || softmax T(t))."""
    return float(prior @ kl_rows(P, logits))


def full_support_task(N: int, S: int, rng: np.random.Generator, temperature: float = 2.0,
                      prior: str = "uniform", zipf: float = 1.2):
    """A distribution task satisfying Assumption 2: pi_t = softmax(temperature * Gaussian); the prior is
    uniform or a power law k^-zipf over a random order of the sequences. Returns (prior [T], P [T, N])."""
    T = N ** S
    P = np.exp(temperature * rng.standard_normal((T, N)))
    P /= P.sum(1, keepdims=True)
    if prior == "uniform":
        w = np.full(T, 1.0 / T)
    else:
        w = np.arange(1, T + 1, dtype=float) ** (-zipf)
        w = w[rng.permutation(T)]
        w /= w.sum()
    return w, P


def best_encoder(prior: np.ndarray, P: np.ndarray, d: int, restarts: int = 2, seed: int = 0,
                 iters: int = 300, init: tuple[np.ndarray, np.ndarray] | None = None):
    """An (approximately) optimal sequence encoder of rank d: min over W [N, d], E [T, d] of
    d_KL(pi, W E) by L-BFGS in float64, started from the rank-d SVD of the centered log-probabilities
    and from random points (and ``init`` when given). Returns (kl, W, E) of the best start.
    The value is an upper bound on the infimum d_KL(pi, L(N, S, d))."""
    T, N = P.shape
    logP = np.log(P)
    C = logP - logP.mean(1, keepdims=True)
    U, s, Vt = np.linalg.svd(C, full_matrices=False)
    starts = [(Vt[:d].T * np.sqrt(s[:d]), U[:, :d] * np.sqrt(s[:d]))]
    g = np.random.default_rng(seed)
    starts += [(g.standard_normal((N, d)), g.standard_normal((T, d))) for _ in range(restarts)]
    if init is not None:
        starts.append(init)
    Pt, wt = torch.as_tensor(P), torch.as_tensor(prior)
    best = (math.inf, None, None)
    for W0, E0 in starts:
        W = torch.tensor(np.ascontiguousarray(W0), dtype=DT).contiguous().requires_grad_(True)
        E = torch.tensor(np.ascontiguousarray(E0), dtype=DT).contiguous().requires_grad_(True)
        opt = torch.optim.LBFGS([W, E], lr=1.0, max_iter=iters, tolerance_grad=1e-12,
                                tolerance_change=1e-15, history_size=50, line_search_fn="strong_wolfe")

        def closure(opt=opt, E=E, W=W):
            opt.zero_grad()
            logq = torch.log_softmax(E @ W.T, dim=1)
            loss = -(wt * (Pt * logq).sum(1)).sum()
            loss.backward()
            return loss
        opt.step(closure)
        with torch.no_grad():
            kl = d_kl(prior, P, (E @ W.T).numpy())
        if kl < best[0]:
            best = (kl, W.detach().numpy().copy(), E.detach().numpy().copy())
    return best


def exact_encoder_full_rank(P: np.ndarray):
    """Prop. 2's construction for d = N - 1: W's columns span {1}^perp and E(t) are the coordinates of the
    centered log-probabilities, so W E(t) = log pi_t - mean: KL exactly 0 (up to round-off)."""
    T, N = P.shape
    Q, _ = np.linalg.qr(np.eye(N) - 1.0 / N)      # orthonormal basis; the first N-1 columns span 1^perp
    B = Q[:, : N - 1]
    logP = np.log(P)
    C = logP - logP.mean(1, keepdims=True)
    return B, C @ B                              # W [N, N-1], E [T, N-1]


def prop3_kl(N: int, lam: float) -> float:
    """Prop. 3's closed form: W_j = (cos 2 pi j / N, sin 2 pi j / N), E(t) = W_{g(t)}, f = lam W E gives
    d_KL = log(1 + sum_{j != 0} exp(-lam (1 - cos(2 pi j / N)))) for every sequence (any table g)."""
    j = np.arange(1, N)
    return float(np.log1p(np.exp(-lam * (1.0 - np.cos(2 * np.pi * j / N))).sum()))


def circle(N: int) -> np.ndarray:
    """Prop. 3's unembedding: the N points ``W_j = (cos 2 pi j / N, sin 2 pi j / N)`` of the unit circle, ``[N, 2]``."""
    ang = 2 * np.pi * np.arange(N) / N
    return np.stack([np.cos(ang), np.sin(ang)], 1)


def prop3_kl_direct(N: int, S: int, lam: float, rng: np.random.Generator, dim: int = 2) -> float:
    """The same encoder evaluated by brute force on a random look-up table (softmax of the logits).
    ``dim = 1`` keeps only the cosine coordinate (tokens on a line, d = 1: Prop. 3's d >= 2 violated)."""
    g = random_table(N, S, rng)
    W = circle(N)[:, :dim]
    logits = lam * W[g] @ W.T
    P = np.zeros((len(g), N))
    P[np.arange(len(g)), g] = 1.0
    return d_kl(np.full(len(g), 1.0 / len(g)), P, logits)


def distribution_check(N: int, S: int, d: int, d_h: int, H: int, prior: np.ndarray, P: np.ndarray,
                       rng: np.random.Generator, n_fit: int | None = None, restarts: int = 2) -> dict:
    """Theorem 1 for distributions: the best rank-d encoder f* = (W, E), then an AoT with W_U = W and
    sequence embedding E on the n_fit most likely sequences (all by default: eps = 0).
    Reports KL(f*), KL(AoT), eps, and the bound 2 C eps ||W E||_2 with v1's and v2's constant C."""
    T = len(prior)
    kl_star, W, E = best_encoder(prior, P, d, restarts=restarts)
    order = np.argsort(-prior, kind="stable")
    n_fit = T if n_fit is None else n_fit
    fit = np.sort(order[:n_fit])
    eps = float(1.0 - prior[fit].sum())
    c = construct(N, S, d, d_h, H, W, E, rng, fit)
    seqs = all_sequences(N, S)
    logits = c.model.logits(seqs).numpy()
    kl_aot = d_kl(prior, P, logits)
    out = dict(T=T, T_eps=n_fit, eps=eps, rank=c.rank, kl_star=kl_star, kl_aot=kl_aot,
               gap=abs(kl_aot - kl_star), max_logit_err_fit=float(np.abs(logits[fit] - (E @ W.T)[fit]).max()))
    if n_fit < T:
        rest = np.setdiff1d(np.arange(T), fit)
        F = c.features                                     # [T, r], r = d + H d_h = T_eps
        F1, F2 = F[fit].T, F[rest].T                        # [r, T_eps], [r, T - T_eps]
        # SVD of the (column-form) feature matrix W_V A' = U Sigma [P1 V] (V orthogonal, T x T, its
        # columns ordered as [fitted | rest]); P1 V P1^T = the r x T_eps block, P1 V P2^T = the rest.
        Fc = np.concatenate([F1, F2], axis=1)
        _, _, Vt = np.linalg.svd(Fc, full_matrices=True)
        r = F.shape[1]
        B1, B2 = Vt[:r, :n_fit], Vt[:r, n_fit:]
        C_v1 = math.sqrt(1 + np.linalg.norm(np.linalg.inv(B1), 2) ** 2)
        C_v2 = math.sqrt(1 + np.linalg.norm(np.linalg.solve(B1, B2), 2) ** 2)
        WE = np.linalg.norm(E @ W.T, 2)
        out.update(C_v1=C_v1, C_v2=C_v2, WE=WE, bound_v2=2 * C_v2 * eps * WE, bound_v1=2 * C_v1 * eps * WE,
                   bound_statement_v2=C_v2 * eps * WE)
    return out


# ---------------------------------------------------------------------------------------------
# Theorem 2 (upper bound on the best sequence encoder for near-look-up tables), sign-corrected
# ---------------------------------------------------------------------------------------------
def noisy_table(N: int, T: int, eta: float, rng: np.random.Generator):
    """pi(g(t)|t) = 1 - eta_t with eta_t ~ U[eta/2, 3 eta/2]; the rest Dirichlet(1) over the other tokens."""
    g = rng.integers(0, N, size=T)
    et = rng.uniform(0.5 * eta, 1.5 * eta, size=T)
    rest = rng.dirichlet(np.ones(N - 1), size=T) * et[:, None]
    P = np.zeros((T, N))
    for t in range(T):
        P[t, np.arange(N) != g[t]] = rest[t]
        P[t, g[t]] = 1 - et[t]
    return g, P


def entropy(P: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(P > 0, P * np.log(np.where(P > 0, P, 1.0)), 0.0).sum(1)


def entropy_matched_logits(G: np.ndarray, g: np.ndarray, Hs: np.ndarray) -> np.ndarray:
    """Theorem 2's encoder f(t) = lambda(t) W W_{g(t)} from the Gram matrix G = W W^T: lambda(t) solves
    H(pi_t) = log sum_j exp(lambda (W_j - W_g)^T W_g) (bisection); returns the logits [T, N]."""
    T = len(g)
    D = G[g] - G[g, g][:, None]                    # (W_j - W_g)^T W_g  [T, N], zero at j = g
    lo, hi = np.zeros(T), np.full(T, 1.0)
    fn = lambda lam: np.log(np.exp(lam[:, None] * D).sum(1))     # decreasing from log N to 0
    while np.any(fn(hi) > Hs):
        hi = np.where(fn(hi) > Hs, 2 * hi, hi)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        big = fn(mid) > Hs
        lo, hi = np.where(big, mid, lo), np.where(big, hi, mid)
    return 0.5 * (lo + hi)[:, None] * G[g]


def theorem2_check(N: int, d: int, T: int, eta: float, rng: np.random.Generator) -> dict:
    """Theorem 2 with Shannon entropy H(pi_t) (the corrected sign): E(t) = lambda(t) W_{g(t)} with
    lambda(t) solving H(pi_t) = log sum_j exp(lambda (W_j - W_g)^T W_g); compares KL(f) with the bound
    using the empirical C = max_{i,j} |W_i^T W_j - delta_ij| of random unit vectors, and with the same
    encoder built on exactly orthonormal W (``kl_orth``, the case C = 0)."""
    g, P = noisy_table(N, T, eta, rng)
    W = unit_rows(N, d, rng)                       # [N, d] unit rows: the Gram W W^T has unit diagonal
    G = W @ W.T
    C_emp = float(np.abs(G - np.eye(N)).max())
    C_jl = math.sqrt(32 * math.log(N + 1) / d)
    Hs = entropy(P)
    prior = np.full(T, 1.0 / T)
    kl_f = d_kl(prior, P, entropy_matched_logits(G, g, Hs))
    kl_orth = d_kl(prior, P, entropy_matched_logits(np.eye(N), g, Hs))
    p_g = P[np.arange(T), g]
    tilde = P.copy()
    tilde[np.arange(T), g] = 0
    tilde /= (1 - p_g)[:, None]
    unif = np.full((T, N), 1.0 / (N - 1))
    unif[np.arange(T), g] = 0
    tv = np.abs(tilde - unif).sum(1)               # L1 convention (d_TV <= 2), as the "1 + 4C" step needs
    logterm = np.log((N - 1) / (np.exp(Hs) - 1))
    bound = float(np.mean((1 - p_g) * logterm * (1 + 2 * C_emp + C_emp * tv) / (1 - 2 * C_emp)))
    simple = float((1 + 4 * C_emp) / (1 - 2 * C_emp) * np.mean(1 - p_g)
                   * np.log((N - 1) / (np.exp(Hs.mean()) - 1)))
    kl_uniform = d_kl(prior, P, np.zeros((T, N)))  # lambda = 0: the encoder without the tuning
    # the same bound with C = 0 (exactly orthonormal W): the control, the tightest rival bound of the same form
    bound_c0 = float(np.mean((1 - p_g) * logterm))
    return dict(N=N, d=d, T=T, eta=eta, C_emp=C_emp, C_jl=C_jl, kl_f=kl_f, kl_orth=kl_orth, bound=bound, simple=simple,
                kl_uniform=kl_uniform, bound_c0=bound_c0, mean_entropy=float(Hs.mean()))


def lemma4_ratio(N: int, deltas) -> np.ndarray:
    """Lemma 4 on Prop. 3's circle encoder for a look-up table: choose lambda(delta) so that
    |log(pi/softmax)| = delta exactly (Definition 2 with c = 1, alpha = 1); return the logit range
    max f - min f = lambda (1 - min_j cos(2 pi j / N)) divided by log(1/delta)."""
    out = []
    spread = 1 - np.cos(2 * np.pi * np.arange(N) / N).min()
    for dl in deltas:
        lo, hi = 0.0, 1.0
        while prop3_kl(N, hi) > dl:
            hi *= 2
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if prop3_kl(N, mid) > dl else (lo, mid)
        out.append(0.5 * (lo + hi) * spread / math.log(1 / dl))
    return np.array(out)


def encoder_rank_of_aot(model: AoT, seqs: np.ndarray) -> int:
    """Prop. 1: an AoT's logit matrix [T, N] factors through R^d, so its rank is at most d."""
    return int(np.linalg.matrix_rank(model.logits(seqs).detach().numpy()))


def heads_short_of(N: int, S: int, d: int, d_h: int) -> int:
    """The largest head count H whose capacity H min(d_h, d) + d stays below T0 = N^S (the controls' "one head
    short": the same construction with fewer free columns than associations)."""
    return max(0, math.ceil((N ** S - d) / min(d_h, d)) - 1)
