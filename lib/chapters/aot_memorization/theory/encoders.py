"""Distributions (Dana, Pydi & Chevaleyre, AISTATS 2025): the KL of a sequence encoder, the best rank-d encoder of
Props. 1-2, the closed form of Prop. 3, Theorem 1's distribution form (:func:`distribution_check`), Theorem 2's
bound (sign-corrected) and Lemma 4's growth rate; float64, exact up to round-off."""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.chapters.aot_memorization.theory.construction import (
    DT, all_sequences, construct, random_table, unit_rows)


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


def theorem2_terms(G: np.ndarray, g: np.ndarray, P: np.ndarray) -> dict:
    """Theorem 2's encoder and bound for a given Gram matrix G = W W^T (C = max|G - I|), table g and conditionals P,
    uniform prior: KL(f) with the entropy-matched lambda(t), the bound, the bound with C = 0 (``bound_c0``) and the
    bound without its factor 1/(1 - 2C) (``bound_nofactor``). :func:`theorem2_check` applies it to random unit rows."""
    T, N = P.shape
    C = float(np.abs(G - np.eye(N)).max())
    Hs, prior = entropy(P), np.full(T, 1.0 / T)
    kl_f = d_kl(prior, P, entropy_matched_logits(G, g, Hs))
    p_g = P[np.arange(T), g]
    tilde = P.copy()
    tilde[np.arange(T), g] = 0
    tilde /= (1 - p_g)[:, None]
    unif = np.full((T, N), 1.0 / (N - 1))
    unif[np.arange(T), g] = 0
    tv = np.abs(tilde - unif).sum(1)               # L1 convention (d_TV <= 2), as the "1 + 4C" step needs
    # the bound with C = 0 (exactly orthonormal W): the control, the tightest rival bound of the same form
    base = (1 - p_g) * np.log((N - 1) / (np.exp(Hs) - 1))
    num = base * (1 + 2 * C + C * tv)
    return dict(C=C, kl_f=kl_f, bound=float(np.mean(num) / (1 - 2 * C)), bound_c0=float(np.mean(base)),
                bound_nofactor=float(np.mean(num)))


def theorem2_check(N: int, d: int, T: int, eta: float, rng: np.random.Generator) -> dict:
    """Theorem 2 with Shannon entropy H(pi_t) (the corrected sign): E(t) = lambda(t) W_{g(t)} with
    lambda(t) solving H(pi_t) = log sum_j exp(lambda (W_j - W_g)^T W_g); compares KL(f) with the bound
    using the empirical C = max_{i,j} |W_i^T W_j - delta_ij| of random unit vectors, and with the same
    encoder built on exactly orthonormal W (``kl_orth``, the case C = 0)."""
    g, P = noisy_table(N, T, eta, rng)
    W = unit_rows(N, d, rng)                       # [N, d] unit rows: the Gram W W^T has unit diagonal
    t = theorem2_terms(W @ W.T, g, P)
    C_emp, kl_f, bound, bound_c0 = t["C"], t["kl_f"], t["bound"], t["bound_c0"]
    C_jl = math.sqrt(32 * math.log(N + 1) / d)
    Hs, prior, p_g = entropy(P), np.full(T, 1.0 / T), P[np.arange(T), g]
    kl_orth = d_kl(prior, P, entropy_matched_logits(np.eye(N), g, Hs))
    simple = float((1 + 4 * C_emp) / (1 - 2 * C_emp) * np.mean(1 - p_g)
                   * np.log((N - 1) / (np.exp(Hs.mean()) - 1)))
    kl_uniform = d_kl(prior, P, np.zeros((T, N)))  # lambda = 0: the encoder without the tuning
    return dict(N=N, d=d, T=T, eta=eta, C_emp=C_emp, C_jl=C_jl, kl_f=kl_f, kl_orth=kl_orth, bound=bound, simple=simple,
                kl_uniform=kl_uniform, bound_c0=bound_c0, mean_entropy=float(Hs.mean()))


def lemma4_ratio(N: int, deltas) -> np.ndarray:
    """Lemma 4 on Prop. 3's circle encoder for a look-up table: choose lambda(delta) so that
    |log(pi/softmax)| = delta exactly (Definition 2 with c = 1, alpha = 1); return the logit range
    max f - min f = lambda (1 - min_j cos(2 pi j / N)) divided by log(1/delta)."""
    spread = 1 - np.cos(2 * np.pi * np.arange(N) / N).min()
    return np.array([lambda_for_delta(N, dl) * spread / math.log(1 / dl) for dl in deltas])


def lambda_for_delta(N: int, delta: float) -> float:
    """Prop. 3's scale lambda with -log softmax(f_lambda)_g = delta exactly (Definition 2 with c = alpha = 1), by
    bisection on :func:`prop3_kl` (decreasing in lambda)."""
    lo, hi = 0.0, 1.0
    while prop3_kl(N, hi) > delta:
        hi *= 2
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if prop3_kl(N, mid) > delta else (lo, mid)
    return 0.5 * (lo + hi)
