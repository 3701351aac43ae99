"""What happens at the edges of Assumption 2 (Dana, Pydi & Chevaleyre, App. A.3-A.5), float64:

* **Lemma 1** (A.5): under full support the infimum of d_KL(pi, L(N, S, d)) is attained, because the centred logits
  of any minimising sequence stay bounded. :func:`centred_norm_probe` runs Adam on the rank-d encoder f = W E and
  records ||f - mean_j f||_F per step; :func:`last_half_growth` is the probe's statistic.
* **Theorem 3** (A.4, eq. (17)): d_KL(pi, T*) <= d_KL(pi, M) + O(eps log 1/eps). :func:`theorem3_gap` builds it for a
  look-up table (so d_KL(pi, M) = 0) with Prop. 3's circle encoder f_delta, delta = eps, fitted exactly by
  Theorem 1's construction on the T_eps = H d_h + d sequences that carry 1 - eps of the prior.
* **Theorem 2** (A.3) on adversarial W: :func:`block_gram` gives Gram matrices with max|W W^T - I| = C for any
  C < 1/2, and :func:`~.encoders.theorem2_terms` evaluates the encoder and the bound on any (G, g, pi).

Nothing here is reached by the training of the stored sweeps."""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.aot_memorization.theory.construction import all_sequences, construct
from lib.chapters.aot_memorization.theory.encoders import (
    circle, d_kl, lambda_for_delta)


# ---------------------------------------------------------------------------------------------
# Lemma 1: the optimiser's centred logits, bounded under full support, unbounded on a look-up table
# ---------------------------------------------------------------------------------------------
def lookup_task(N: int, S: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Assumption 1 (violating Assumption 2): a uniformly random look-up table g, pi_t = delta_{g(t)}, uniform prior.
    Returns (prior [T], P [T, N])."""
    T = N ** S
    P = np.zeros((T, N))
    P[np.arange(T), rng.integers(0, N, size=T)] = 1.0
    return np.full(T, 1.0 / T), P


def centred_norm_probe(tasks: list[tuple[np.ndarray, np.ndarray]], d: int, lrs: list[float], steps: int,
                       seed: int = 0, init: float = 0.5) -> np.ndarray:
    """Adam (beta = 0.9, 0.999, eps = 1e-8; no schedule) on d_KL(pi, W E) over W [N, d], E [T, d], all (task, lr)
    pairs at once from the same Gaussian start (std ``init``). Returns the centred-logit norms
    ||W E - mean_j (W E)_j||_F before each step, ``[len(tasks), len(lrs), steps]``. Without a schedule a run of k
    steps is the first k steps of a longer one."""
    B = len(tasks) * len(lrs)
    (T, N) = tasks[0][1].shape
    g = np.random.default_rng(seed)
    W0, E0 = g.standard_normal((N, d)) * init, g.standard_normal((T, d)) * init
    X = [np.repeat(W0[None], B, 0), np.repeat(E0[None], B, 0)]
    P = np.repeat(np.stack([p for _, p in tasks]), len(lrs), 0)                       # [B, T, N]
    w = np.repeat(np.stack([pr for pr, _ in tasks]), len(lrs), 0)[:, :, None]         # [B, T, 1]
    lr = np.tile(np.asarray(lrs, float), len(tasks))[:, None, None]
    m, v = [np.zeros_like(x) for x in X], [np.zeros_like(x) for x in X]
    norms = np.empty((B, steps))
    for k in range(1, steps + 1):
        W, E = X
        Z = E @ W.transpose(0, 2, 1)                                                  # [B, T, N]
        norms[:, k - 1] = np.linalg.norm(Z - Z.mean(2, keepdims=True), axis=(1, 2))
        q = np.exp(Z - Z.max(2, keepdims=True))
        G = w * (q / q.sum(2, keepdims=True) - P)                                      # d loss / d Z
        grads = (G.transpose(0, 2, 1) @ E, G @ W)
        for i in range(2):
            m[i] = 0.9 * m[i] + 0.1 * grads[i]
            v[i] = 0.999 * v[i] + 0.001 * grads[i] ** 2
            X[i] = X[i] - lr * (m[i] / (1 - 0.9 ** k)) / (np.sqrt(v[i] / (1 - 0.999 ** k)) + 1e-8)
    return norms.reshape(len(tasks), len(lrs), steps)


def last_half_growth(norms: np.ndarray, steps: int | None = None) -> float:
    """(||f_k|| - ||f_{k/2}||) / ||f_{k/2}|| after k = ``steps`` (all by default): ~0 for a convergent run, about
    log 2 / log k or more for one whose logits diverge."""
    n = norms[: steps or len(norms)]
    a = n[len(n) // 2]
    return float((n[-1] - a) / a)


# ---------------------------------------------------------------------------------------------
# Theorem 3: the KL gap of the AoT built on Prop. 3's encoder f_delta, delta = eps
# ---------------------------------------------------------------------------------------------
def theorem3_gap(N: int, S: int, d: int, d_h: int, H: int, epss, seed: int) -> list[dict]:
    """For each eps: a random look-up table (fixed by ``seed``), a prior with mass 1 - eps spread evenly on
    T_eps = H d_h + d random sequences and eps on the rest, Prop. 3's circle encoder f = lambda(eps) W E
    (W on the circle in R^2 padded with zeros to R^d, E(t) = W_{g(t)}), and Theorem 1's AoT fitted to f exactly on
    the T_eps sequences (the same random construction for every eps). Returns eps, lambda, KL(pi, f_delta)
    (= (1 - eps) delta + eps delta = delta), KL(pi, T*), the rank of the features and the largest logit error on the
    fitted sequences."""
    T, K = N ** S, H * d_h + d
    g0 = np.random.default_rng([seed, 0])
    table, order = g0.integers(0, N, size=T), g0.permutation(T)
    head, tail = np.sort(order[:K]), np.sort(order[K:])
    W = np.zeros((N, d))
    W[:, :2] = circle(N)
    P = np.zeros((T, N))
    P[np.arange(T), table] = 1.0
    seqs = all_sequences(N, S)
    out = []
    for eps in epss:
        prior = np.empty(T)
        prior[head], prior[tail] = (1 - eps) / K, eps / (T - K)
        lam = lambda_for_delta(N, eps)
        E = lam * W[table]
        c = construct(N, S, d, d_h, H, W, E, np.random.default_rng([seed, 1]), head)
        logits = c.model.logits(seqs).numpy()
        out.append(dict(eps=eps, lam=lam, kl_f=d_kl(prior, P, E @ W.T), kl_aot=d_kl(prior, P, logits), rank=c.rank,
                        fit_err=float(np.abs(logits[head] - (E @ W.T)[head]).max())))
    return out


def rate_spread(rows: list[dict], rate) -> float:
    """max / min over the rows of KL(pi, T*) / rate(eps): 1 for a gap exactly proportional to ``rate``."""
    r = np.array([x["kl_aot"] / rate(x["eps"]) for x in rows])
    return float(r.max() / r.min())


def eps_log(eps: float) -> float:
    """Theorem 3's rate eps log(1/eps)."""
    return eps * math.log(1 / eps)


# ---------------------------------------------------------------------------------------------
# Theorem 2 on adversarial W: the distortion C pushed towards 1/2
# ---------------------------------------------------------------------------------------------
def block_gram(N: int, c: float, shrink: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """A Gram matrix G = W W^T (positive semi-definite for 0 <= c < 1/2) with max|G - I| = c exactly: two halves of
    the tokens (signs v), inner products +c within a half and -c across; the diagonal 1 - c (``shrink``, every row at
    the hypothesis' shortest norm) or 1. Returns (G, v)."""
    v = np.where(np.arange(N) < N // 2, 1.0, -1.0)
    return (1 - (2 * c if shrink else c)) * np.eye(N) + c * np.outer(v, v), v


def adversarial_table(N: int, T: int, eta: float, v: np.ndarray, rng: np.random.Generator,
                      noise: str = "across") -> tuple[np.ndarray, np.ndarray]:
    """A noisy look-up table as in :func:`~.encoders.noisy_table` (pi(g(t)|t) = 1 - eta_t, eta_t ~ U[eta/2, 3eta/2])
    whose noise sits where the encoder puts the least mass: spread evenly over the tokens of the other half
    (``across``), on one of them (``one``), or Dirichlet(1) over all other tokens (``dirichlet``). Returns (g, P)."""
    g = rng.integers(0, N, size=T)
    et = rng.uniform(0.5 * eta, 1.5 * eta, size=T)
    P = np.zeros((T, N))
    for t in range(T):
        other = np.flatnonzero(v != v[g[t]])
        if noise == "across":
            P[t, other] = et[t] / len(other)
        elif noise == "one":
            P[t, other[0]] = et[t]
        else:
            rest = np.flatnonzero(np.arange(N) != g[t])
            P[t, rest] = rng.dirichlet(np.ones(N - 1)) * et[t]
        P[t, g[t]] = 1 - et[t]
    return g, P
