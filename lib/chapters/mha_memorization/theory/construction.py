"""Theorem 1 / Proposition 1's head-by-head construction (App. B of Mahdavi et al. 2024), with Remark 1 and the
skip-connection variant of Appendix C; the value step; one example past capacity; and the rivals the construction
is compared with: generic (Gaussian) key/query weights and a data-adapted rival, on uniform and clustered queries.
The layer, its features and the ranks are in :mod:`~lib.chapters.mha_memorization.theory.layer`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg

from lib.chapters.mha_memorization.theory.layer import features, forward, num_rank, random_heads, singular_values

# ---------------------------------------------------------------------------------------------
# Theorem 1 / Proposition 1: the head-by-head construction (Appendix B)
# ---------------------------------------------------------------------------------------------
def _softmax(a: np.ndarray) -> np.ndarray:
    a = a - a.max(axis=-1, keepdims=True)
    w = np.exp(a)
    return w / w.sum(axis=-1, keepdims=True)


def _factor(W: np.ndarray, d_h: int, rtol: float = 1e-12):
    """Write W ≈ W_K W_Q^T with d_h columns each: exact when rank W ≤ d_h; otherwise the best rank-d_h
    truncation, so that a head matrix of too high a rank shows up as a factorization error (and a failed
    fit), not as an exception. Returns (W_K, W_Q, rank of W)."""
    U, s, Vt = np.linalg.svd(W)
    k = int((s > rtol * max(s[0], 1e-300)).sum())
    d, kk = W.shape[0], min(k, d_h)
    W_K, W_Q = np.zeros((d, d_h)), np.zeros((d, d_h))
    W_K[:, :kk] = U[:, :kk] * np.sqrt(s[:kk])
    W_Q[:, :kk] = Vt[:kk].T * np.sqrt(s[:kk])
    return W_K, W_Q, k


@dataclass
class Construction:
    """The output of :func:`construct`: the weights, and what the proof promised along the way."""
    W_K: np.ndarray                 # [H, d, d_h]
    W_Q: np.ndarray                 # [H, d, d_h]
    W_V: np.ndarray                 # [H, d, d_v]
    W_O: np.ndarray                 # [H d_v, d]   stacked rectangular identities
    W_D: np.ndarray                 # [d, d_out]   rectangular identity
    r: int                          # min(n or Q, d_h)
    c: list[float] = field(default_factory=list)            # saturation scale c_h of heads 2..H
    responsible: list[list[int]] = field(default_factory=list)   # examples each head fits exactly
    factor_err: float = 0.0         # max_h ||W_K W_Q^T - W_h|| / ||W_h||
    head_ranks: list[int] = field(default_factory=list)
    sat_err: list[float] = field(default_factory=list)      # max l1 distance to one-hot on R^c, per head
    sat_delta: list[float] = field(default_factory=list)    # the δ the proof needs, per head
    rank_after_head: list[int] = field(default_factory=list)
    c_grid: list[float] = field(default_factory=list)       # smallest c in C_GRID (chosen without δ) reaching δ
    sat_err_c0: list[float] = field(default_factory=list)   # saturation error with c = 0 (no separator)


C_GRID = tuple(10.0 ** k for k in range(13))   # c = 1, 10, ..., 1e12: a fixed grid, independent of the proof's δ


def _sat_error(E, e, W, Rc, istar) -> float:
    """Largest l1 distance between θ_h and the one-hot vector of token istar, over the examples Rc."""
    th = _softmax(np.einsum("tnd,de,te->tn", E[Rc], W, e[Rc]))
    return float(2 * (1 - th[np.arange(len(Rc)), istar]).max())


def _grid_c(E, e, Wstar, Wp, Rc, istar, delta) -> float:
    """The smallest c of C_GRID with saturation error ≤ δ (inf if none): Lemma 4's 'finite c', searched on a
    grid fixed in advance instead of read off the proof's formula."""
    return next((c for c in C_GRID if _sat_error(E, e, Wstar + c * Wp, Rc, istar) <= delta), math.inf)


def _lemma3_separator(E, e, zero_set, rng):
    """Lemma 3: a rank-one W^+ = g u^T with E^(t) W^+ e^(t) = 0 on ``zero_set`` and distinct entries
    elsewhere: u is orthogonal to the queries of ``zero_set``, g is Gaussian."""
    d = e.shape[1]
    xi = rng.standard_normal(d)
    if len(zero_set):
        Qz, _ = np.linalg.qr(e[zero_set].T)
        xi = xi - Qz @ (Qz.T @ xi)
    u = xi / np.linalg.norm(xi)
    g = rng.standard_normal(d)
    return np.outer(g, u)


def _saturating_head(E, e, Zp, R, emax, claim1, rng, out: Construction) -> np.ndarray:
    """One head after the first (Claim 2): Claim-1 weights W* fitting generic attention on the examples R,
    plus c times Lemma 3's separator W+ that saturates the head on every other example. Records c, δ and
    the saturation errors (at the proof's c, at c = 0, the smallest c of C_GRID) on ``out``."""
    T, n, _ = E.shape
    Rc = [t for t in range(T) if t not in set(R)]
    C = Zp[R] @ np.linalg.pinv(Zp[Rc])                    # Z'_b = C Z'_a
    Wp = _lemma3_separator(E, e, R, rng)
    ap = np.einsum("tnd,de,te->tn", E[Rc], Wp, e[Rc])      # α^+ on R^c
    srt = np.sort(ap, axis=1)
    gap = srt[:, -1] - srt[:, -2]
    istar = ap.argmax(axis=1)
    A_plus = -C @ E[Rc, istar]                            # saturated rows of Z: the selected tokens
    for _ in range(20):                                   # generic targets; redraw if unlucky
        alphas = [rng.standard_normal(n) for _ in R]
        Zb = np.stack([E[t].T @ _softmax(a) for t, a in zip(R, alphas, strict=False)])
        sv = np.linalg.svd(Zb + A_plus, compute_uv=False)
        if sv[-1] > 1e-8 * max(sv[0], 1.0):
            break
    Wstar = claim1(R, alphas)
    delta = 0.5 * sv[-1] / (math.sqrt(len(Rc)) * emax * max(np.linalg.norm(C, 2), 1e-300))
    astar = np.einsum("tnd,de,te->tn", E[Rc], Wstar, e[Rc])
    spread = (astar - astar[np.arange(len(Rc)), istar][:, None]).max(axis=1)
    with np.errstate(divide="ignore"):     # gap = 0 only outside the hypotheses: c = inf, then a Breakdown
        c = float(max(0.0, ((spread + math.log(2 * max(n - 1, 1) / delta)) / gap).max()))
    W = Wstar + c * Wp
    out.sat_err.append(_sat_error(E, e, W, Rc, istar))
    out.sat_err_c0.append(_sat_error(E, e, Wstar, Rc, istar))
    out.c_grid.append(_grid_c(E, e, Wstar, Wp, Rc, istar, delta))
    out.sat_delta.append(float(delta))
    out.c.append(c)
    out.responsible.append(R)
    return W


def _factor_heads(out: Construction, Ws: list, d_h: int) -> None:
    """Factor each head, W_h = W_K W_Q^T with d_h columns; record the ranks and the factorization error."""
    WK, WQ = [], []
    for W in Ws:
        a, b, kk = _factor(W, d_h)
        WK.append(a), WQ.append(b), out.head_ranks.append(kk)
        nrm = np.linalg.norm(W)
        if nrm > 0:
            out.factor_err = max(out.factor_err, float(np.linalg.norm(a @ b.T - W) / nrm))
    out.W_K, out.W_Q = np.stack(WK), np.stack(WQ)


def _value_step(out: Construction, E, e, Y, H: int, d_v: int, shift_for_skip: bool) -> None:
    """Step 2 of Theorem 1: solve Z W_V = [Y | 0], W_O = stacked I_{d_v×d}, W_D = I_{d×d_out}."""
    T, _, d = E.shape
    d_out = Y.shape[1]
    Z = features(E, e, out.W_K, out.W_Q)
    target = Y - e[:, :d_out] if shift_for_skip else Y
    rhs = np.concatenate([target, np.zeros((T, d_v - d_out))], axis=1)
    out.W_V = np.linalg.lstsq(Z, rhs, rcond=None)[0].reshape(H, d, d_v)     # [H d, d_v] -> per head
    out.W_O = np.concatenate([np.eye(d_v, d)] * H, axis=0)
    out.W_D = np.eye(d, d_out)


class Breakdown(ValueError):
    """The construction left the floating-point range (attention features not finite) after ``heads`` heads, with
    rank ``rank`` reached: it happens only outside the hypotheses (e.g. Remark 1's control, r = Q + 1)."""

    def __init__(self, heads: int, rank: int):
        super().__init__(f"the construction's features overflowed after {heads} heads (rank {rank} reached)")
        self.heads, self.rank = heads, rank


def construct(E, e, Y, H: int, d_h: int, d_v: int, rng: np.random.Generator, Q: int | None = None,
              rtol: float = 1e-9, shift_for_skip: bool = False) -> Construction:
    """Build weights that memorize (E, e, Y) exactly, following the proof of Proposition 1 and Step 2
    of Theorem 1. ``E [T,n,d]``, ``e [T,d]``, ``Y [T,d_out]``; requires T ≤ H(r-1)+1, r = min(n, d_h)
    (or min(Q, d_h) when the queries have Kruskal rank Q < n, Remark 1). With ``shift_for_skip`` the
    labels are shifted by the first d_out coordinates of the query (Appendix C: the skip version)."""
    T, n, d = E.shape
    d_out = Y.shape[1]
    r = min(n if Q is None else Q, d_h)
    if T > H * (r - 1) + 1:
        raise ValueError(f"T = {T} > H(r-1)+1 = {H * (r - 1) + 1}")
    if not (d_out <= d_v and d_out <= d):
        raise ValueError("need d_out <= d_v and d_out <= d")
    pinvE = np.linalg.pinv(E)                                 # [T, d, n]: right inverses (Assumption 2)
    emax = float(np.linalg.norm(E, axis=2).max())
    out = Construction(None, None, None, None, None, r)
    Ws = []

    def claim1(S, alphas):
        """Claim 1: a W with E^(t) W e^(t) = α^(t) for t ∈ S (queries of S independent)."""
        B = np.stack([pinvE[t] @ a for t, a in zip(S, alphas, strict=False)], axis=1)      # [d, |S|]
        return B @ np.linalg.pinv(e[S].T)

    def Zof(W_list):
        return np.concatenate([np.einsum("tnd,tn->td", E, _softmax(np.einsum("tnd,de,te->tn", E, W, e)))
                               for W in W_list], axis=1)

    # Head 1: r examples with generic (random) attention, so their rows of Z are independent.
    S = list(range(min(r, T)))
    Ws.append(claim1(S, [rng.standard_normal(n) for _ in S]))
    out.responsible.append(S)
    out.sat_err.append(0.0), out.sat_delta.append(0.0)
    for _h in range(1, H):
        Zp = Zof(Ws)
        if not np.isfinite(Zp).all():        # outside the theorem's hypotheses the saturating weights can overflow
            raise Breakdown(_h, out.rank_after_head[-1] if out.rank_after_head else len(S))
        _, _, piv = scipy.linalg.qr(Zp.T, pivoting=True, mode="economic")
        k = num_rank(Zp, rtol)
        out.rank_after_head.append(k)
        dep = sorted(piv[k:].tolist())
        if not dep:                                           # rank(Z) = T already: the head idles
            Ws.append(np.zeros((d, d)))
            out.responsible.append([]), out.sat_err.append(0.0), out.sat_delta.append(0.0)
            continue
        R = dep[:min(r - 1, len(dep))]
        Ws.append(_saturating_head(E, e, Zp, R, emax, claim1, rng, out))
    _factor_heads(out, Ws, d_h)
    _value_step(out, E, e, Y, H, d_v, shift_for_skip)
    return out


def memorize_check(E, e, Y, H, d_h, d_v, rng, Q=None, skip=False) -> dict:
    """Construct, then run a fresh forward pass through lib.core.attention and measure everything. A construction
    that overflows (:class:`Breakdown`) memorizes nothing exactly: its rank reached and an infinite error."""
    try:
        con = construct(E, e, Y, H, d_h, d_v, rng, Q=Q, shift_for_skip=skip)
    except Breakdown as b:
        return dict(T=E.shape[0], rankZ=b.rank, err=math.inf, scale=float(max(1.0, np.abs(Y).max())), breakdown=str(b))
    Yhat = forward(E, e, con.W_K, con.W_Q, con.W_V, con.W_O, con.W_D, skip=skip)
    Z = features(E, e, con.W_K, con.W_Q)
    T, n, d = E.shape
    return dict(T=T, bound=H * (con.r - 1) + 1, rankZ=num_rank(Z), err=float(np.abs(Yhat - Y).max()),
                scale=float(max(1.0, np.abs(Y).max())), max_head_rank=max(con.head_ranks),
                factor_err=con.factor_err, c=con.c, con=con,
                sat_ok=all(s <= dl for s, dl in zip(con.sat_err[1:], con.sat_delta[1:], strict=False) if dl > 0),
                c_found=all(math.isfinite(c) for c in con.c_grid),
                c0_ok=all(s <= dl for s, dl in zip(con.sat_err_c0, [x for x in con.sat_delta[1:] if x > 0],
                                                   strict=False)))


def value_step(Z: np.ndarray, Y: np.ndarray) -> tuple[np.ndarray, float]:
    """Step 2 of Theorem 1 for given key/query weights: the least-squares W_V of Z W_V = Y; returns the
    fitted outputs and the relative error max|ŷ − y| / max(1, max|y|)."""
    Yhat = Z @ np.linalg.lstsq(Z, Y, rcond=None)[0]
    return Yhat, float(np.abs(Yhat - Y).max() / max(1.0, np.abs(Y).max()))


def past_capacity(E, e, con: Construction, rng: np.random.Generator, d_out: int = 1) -> dict:
    """One example past capacity: append an example that shares the context of example 0 (new query,
    new label), keep the constructed key/query weights, redo the value step. With a shared context and
    T = H(n−1)+1, Proposition 2 caps rank Z at T, so the T+1 labels cannot all be fitted."""
    T, n, d = E.shape
    E1 = np.concatenate([E, E[:1]], axis=0)
    e1 = np.concatenate([e, rng.random((1, d))], axis=0)
    Z = features(E1, e1, con.W_K, con.W_Q)
    _, err = value_step(Z, rng.standard_normal((T + 1, d_out)))
    return dict(rankZ=num_rank(Z), err=err)


def generic_fit(E, e, Y, H: int, d_h: int, scales, draws: int, rng: np.random.Generator) -> dict:
    """Random key/query weights (entries N(0, s²/d), every s in ``scales``, ``draws`` each) followed by the
    construction's least-squares value step; returns the best draw (highest rank Z, then smallest error)."""
    best = None
    for s in scales:
        for _ in range(draws):
            Z = features(E, e, *random_heads(H, E.shape[2], d_h, s, rng))
            _, err = value_step(Z, Y)
            cand = dict(rankZ=num_rank(Z), err=err, scale=s)
            if best is None or (cand["rankZ"], -cand["err"]) > (best["rankZ"], -best["err"]):
                best = cand
    return best


def clustered_queries(T: int, d: int, eps: float, rng: np.random.Generator) -> np.ndarray:
    """Queries e^(t) = e_0 + ε u^(t), u^(t) ~ U[0,1)^d: Kruskal rank min(T, d) (Assumption 1 holds), but to
    first order in ε every smooth function of the query is affine in u, so rows of Z built by weights that do
    not adapt to the cluster span at most d+1 dimensions up to O(ε²)."""
    return rng.random(d) + eps * rng.random((T, d))



def adapted_heads(e: np.ndarray, H: int, d: int, d_h: int, rng: np.random.Generator):
    """A cheap data-adapted rival of the construction: Gaussian W_K, and a Gaussian W_Q projected orthogonally to the
    mean query and divided by the queries' spread (the mean distance to their mean), so the logits see the queries'
    differences at order 1 instead of their common part."""
    m = e.mean(0)
    P = np.eye(d) - np.outer(m, m) / (m @ m)
    spread = float(np.linalg.norm(e - m, axis=1).mean())
    W_K = rng.standard_normal((H, d, d_h)) / math.sqrt(d)
    W_Q = P @ rng.standard_normal((H, d, d_h)) / (math.sqrt(d) * spread)
    return W_K, W_Q


def conditioning(Z: np.ndarray, k: int) -> float:
    """σ_k(Z)/σ_1(Z): how far Z is from rank k − 1 (0 when its rank is below k)."""
    s = singular_values(Z)
    return float(s[k - 1] / s[0]) if len(s) >= k else 0.0


def adapted_fit(E, e, Y, H: int, d_h: int, draws: int, rng: np.random.Generator) -> dict:
    """The rival of :func:`adapted_heads` followed by the least-squares value step, ``draws`` draws: for each, its
    numerical rank, fit error and σ_T/σ_1."""
    out = []
    for _ in range(draws):
        Z = features(E, e, *adapted_heads(e, H, E.shape[2], d_h, rng))
        _, err = value_step(Z, Y)
        out.append(dict(rankZ=num_rank(Z), err=err, cond=conditioning(Z, len(Z))))
    return out


