"""The paper's own layer, eqs. (1)-(6), trained by gradient descent on random real labels around its bound.

Theorem 1 says T = H(n-1)+1 examples can be memorized; Proposition 2 says that with a shared context the
feature matrix Z has rank at most B = H(n-1)+1 *for any fixed key/query weights*. The output is linear in
Z's rows (``ŷ^(t) = Σ_h z_h^(t)ᵀ W_V,h (W_O W_D)_h``), so with key/query weights held fixed no choice of
values fits generic real labels on T > B examples: B is then a hard ceiling. When the key/query weights
are trained too they may depend on the labels, Proposition 2 no longer binds, and the only ceiling left is
the count of the layer's effective parameters on a shared context: the logits of head h are
``E W_h e`` with ``E W_h ∈ R^{n×d}`` (softmax ignores a common shift: (n-1)d numbers) and its values reach
the n-vector ``E u_h``, so ``T ≤ H((n-1)d + n)`` (:func:`effective_params`; Sard's theorem: a smooth map
from fewer parameters cannot cover an open set of labels).

:func:`train` trains G copies of the layer at once (one batched call of :func:`lib.core.attention.attention`
per step, float64, full batch, Adam with cosine decay), each on its own T examples (padded and masked),
with the key/query weights trained or frozen at their random initialisation per copy. A copy has
*memorized* its data when ``max_t |ŷ^(t) − y^(t)| ≤ tol`` (labels ~ N(0, 1)).

:func:`capacity_scan` runs the chapter's experiment: frozen and trained key/query weights at T from
B−1 to a few B; :func:`dh_speed` runs Appendix A's remark that d_h > n speeds up optimization (the number of
steps to memorize a fixed T, for d_h below, at and above n). Their claims: :mod:`~lib.chapters.mha_memorization.claims.capacity`;
their figure: :func:`~lib.chapters.mha_memorization.figures.capacity_figure`.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from lib.core import attention as att

DT = torch.float64
TOL = 1e-3            # "memorized": max_t |ŷ^(t) − y^(t)| ≤ TOL, labels ~ N(0, 1)


def bound(H: int, n: int) -> int:
    """Proposition 2's rank bound (= Theorem 1's count with d_h ≥ n): ``H(n-1)+1``."""
    return H * (n - 1) + 1


def effective_params(H: int, n: int, d: int) -> int:
    """The layer's effective parameters on a shared full-rank context (module docstring): ``H((n-1)d + n)``."""
    return H * ((n - 1) * d + n)


def _data(T_max: int, n: int, d: int, G: int, seeds: list[int], shared: bool):
    E = torch.empty(G, T_max, n, d, dtype=DT)
    e = torch.empty(G, T_max, d, dtype=DT)
    y = torch.empty(G, T_max, dtype=DT)
    for g, s in enumerate(seeds):
        gen = torch.Generator().manual_seed(int(s))
        E[g] = torch.rand(1 if shared else T_max, n, d, generator=gen, dtype=DT).expand(T_max, n, d)
        e[g] = torch.rand(T_max, d, generator=gen, dtype=DT)
        y[g] = torch.randn(T_max, generator=gen, dtype=DT)
    return E, e, y


def _setup(runs: list[dict], H: int, n: int, d: int, shared: bool):
    """Data (padded to the largest T, with a 0/1 mask) and the random initial weights of every copy."""
    G, T_max, dh_max = len(runs), max(r["T"] for r in runs), max(r["dh"] for r in runs)
    E, e, y = _data(T_max, n, d, G, [r["seed"] for r in runs], shared)
    valid = torch.zeros(G, T_max, dtype=DT)
    dh_mask = torch.zeros(G, 1, 1, 1, dh_max, dtype=DT)
    for g, r in enumerate(runs):
        valid[g, : r["T"]] = 1.0
        dh_mask[g, ..., : r["dh"]] = 1.0
    W: dict[str, list] = {k: [] for k in ("W_Q", "W_K", "W_V", "W_O", "W_D")}
    for r in runs:        # per copy: its seed and init draw fix the weights (d_h = k copies share the first k columns)
        gen = torch.Generator().manual_seed(10_007 * (1 + r["seed"]) + 101 * r.get("init", 0))
        W["W_Q"].append(torch.randn(1, H, d, dh_max, generator=gen, dtype=DT) / math.sqrt(d))
        W["W_K"].append(torch.randn(1, H, d, dh_max, generator=gen, dtype=DT) / math.sqrt(d))
        W["W_V"].append(torch.randn(1, H, d, 1, generator=gen, dtype=DT) / math.sqrt(d))
        W["W_O"].append(torch.randn(1, H, 1, d, generator=gen, dtype=DT) / math.sqrt(H))
        W["W_D"].append(torch.randn(1, d, 1, generator=gen, dtype=DT) / math.sqrt(d))
    W = {k: torch.stack(v) for k, v in W.items()}
    W["W_Q"], W["W_K"] = W["W_Q"] * dh_mask, W["W_K"] * dh_mask
    return E, e, y, valid, dh_mask, W


def train(runs: list[dict], H: int, n: int, d: int, steps: int, lr: float = 1e-2, tol: float = TOL,
          shared: bool = True, check_every: int = 50) -> list[dict]:
    """Train every weight of one copy of eqs. (1)-(6) (d_v = d_out = 1) per run ``{T, dh, seed}`` by full-batch
    Adam on the MSE (module docstring). The copies share H, n, d and the step count; ``dh`` may differ (the
    key/query weights are zero-padded to the largest d_h and the padding stays zero). Returns per run:
    ``max_err`` (the final largest absolute residual), ``rel_mse`` (final MSE / mean y²), ``memorized``
    (max_err ≤ tol) and ``steps_to_fit`` (the first multiple of ``check_every`` with max_err ≤ tol, NaN if
    never)."""
    torch.set_num_threads(1)
    G = len(runs)
    E, e, y, valid, dh_mask, W = _setup(runs, H, n, d, shared)
    for v in W.values():
        v.requires_grad_(True)
    opt = torch.optim.Adam(W.values(), lr=lr)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, steps) / steps)))
    count = valid.sum(1)
    fit_at = [float("nan")] * G
    with torch.no_grad():                 # the largest softmax weight of every (example, head): App. H's statistic
        top0 = att.attention(e[:, :, None, :], E, W["W_Q"], W["W_K"], W["W_V"], W["W_O"],
                             return_weights=True)[1][..., 0, :].amax(-1)                  # [G, T, H], untrained
    for s in range(steps + 1):
        o = att.attention(e[:, :, None, :], E, W["W_Q"], W["W_K"], W["W_V"], W["W_O"])     # [G, T, 1, d]
        res = ((o @ W["W_D"])[:, :, 0, 0] - y) * valid                                   # [G, T]
        if s % check_every == 0 or s == steps:
            err = res.detach().abs().amax(1)
            for g in range(G):
                if math.isnan(fit_at[g]) and float(err[g]) <= tol:
                    fit_at[g] = float(s)
        if s == steps:
            break
        opt.zero_grad()
        ((res ** 2).sum(1) / count).sum().backward()
        W["W_Q"].grad.mul_(dh_mask)
        W["W_K"].grad.mul_(dh_mask)
        opt.step()
        sched.step()
    res = res.detach()
    var = (y ** 2 * valid).sum(1) / count
    with torch.no_grad():
        _, A = att.attention(e[:, :, None, :], E, W["W_Q"], W["W_K"], W["W_V"], W["W_O"], return_weights=True)
        top = A[..., 0, :].amax(-1)                                                     # [G, T, H]
    return [dict(r, max_err=float(res[g].abs().max()), rel_mse=float((res[g] ** 2).sum() / count[g] / var[g]),
                 memorized=bool(float(res[g].abs().max()) <= tol), steps_to_fit=fit_at[g],
                 max_weight=top[g, : r["T"]].numpy(), max_weight_init=top0[g, : r["T"]].numpy())
            for g, r in enumerate(runs)]


def frozen_fit(runs: list[dict], H: int, n: int, d: int, tol: float = TOL, shared: bool = True) -> list[dict]:
    """The same copies as :func:`train` (same data, same initial key/query weights) with the key/query
    weights *frozen* and the best possible values: the least-squares fit of y by Z u over u ∈ R^{Hd} (for
    d_v = d_out = 1 the output is Σ_h z_h·(c_h W_V,h), any u is reachable). No trained value weights can do
    better. Returns per run ``max_err``, ``rank_Z`` and ``memorized``."""
    E, e, y, valid, _, W = _setup(runs, H, n, d, shared)
    out = []
    for g, r in enumerate(runs):
        T = r["T"]
        Z = att.attention(e[g, :T, None, :], E[g, :T], W["W_Q"][g, 0], W["W_K"][g, 0],
                          torch.eye(d, dtype=DT).expand(H, d, d), None)[:, 0, :].numpy()     # [T, H·d]
        yt = y[g, :T].numpy()
        res = Z @ np.linalg.lstsq(Z, yt, rcond=None)[0] - yt
        s = np.linalg.svd(Z, compute_uv=False)
        me = float(np.abs(res).max())
        out.append(dict(r, max_err=me, rank_Z=int((s > 1e-10 * s[0]).sum()), memorized=bool(me <= tol)))
    return out


def capacity_scan(H: int, n: int, d: int, multiples: list[float], steps: int, seeds: int = 1, seed: int = 0,
                  lr: float = 1e-2, tol: float = TOL, shared: bool = True) -> list[dict]:
    """T = B−1, B, B+1 and round(m·B) for m in ``multiples`` (d_h = d), ``seeds`` draws of data and weights
    each: every weight trained by :func:`train` (kind "trained K/Q", one batched training) and, on the same
    data from the same initial key/query weights, :func:`frozen_fit` (kind "frozen K/Q"). Rows plus ``B``,
    ``kind`` and ``draw``."""
    B = bound(H, n)
    Ts = sorted({B - 1, B, B + 1, *(int(round(m * B)) for m in multiples)} - {0})
    runs = [dict(T=T, dh=d, seed=1000 * seed + 37 * i + k, draw=k) for i, T in enumerate(Ts) for k in range(seeds)]
    rows = [dict(r, kind="trained K/Q") for r in train(runs, H, n, d, steps, lr=lr, tol=tol, shared=shared)]
    rows += [dict(r, kind="frozen K/Q") for r in frozen_fit(runs, H, n, d, tol=tol, shared=shared)]
    for r in rows:
        r["B"] = B
    return rows


def witnessed(rows: list[dict], kind: str) -> dict[int, int]:
    """{T: number of draws of ``kind`` that memorized T} (one success witnesses that T can be memorized)."""
    out: dict[int, int] = {}
    for r in sorted(rows, key=lambda r: r["T"]):
        if r["kind"] == kind:
            out[r["T"]] = out.get(r["T"], 0) + int(r["memorized"])
    return out


def dh_speed(H: int, n: int, d: int, T: int, dhs: list[int], seeds: int, steps: int, lr: float = 1e-2,
             tol: float = TOL) -> list[dict]:
    """Appendix A: steps to memorize T examples with every weight trained, for each d_h in ``dhs``, on
    ``seeds`` draws. Paired: a draw has the same data and the same initial weights at every d_h (a copy with
    d_h = k keeps the first k key/query columns). Also d_h = n from a second initial draw (``init`` = 1),
    the seed-noise control. One batched training."""
    runs = [dict(T=T, dh=k, seed=s, init=0) for k in dhs for s in range(seeds)]
    runs += [dict(T=T, dh=n, seed=s, init=1) for s in range(seeds)]
    return train(runs, H, n, d, steps, lr=lr, tol=tol)


def paired_ratio(rows: list[dict], a: tuple[int, int], b: tuple[int, int], steps: int) -> float:
    """Median over draws of steps(a) / steps(b), a and b = (d_h, init); no fit counts as ``2·steps``."""
    st = lambda r: r["steps_to_fit"] if r["steps_to_fit"] == r["steps_to_fit"] else 2 * steps   # noqa: E731
    pick = lambda k: {r["seed"]: st(r) for r in rows if (r["dh"], r.get("init", 0)) == k}    # noqa: E731
    A, Bv = pick(a), pick(b)
    return float(np.median([A[s] / max(Bv[s], 1.0) for s in A if s in Bv]))


# ----------------------------------------------------------------------------------------------
# the page: figure, table and claims
# ----------------------------------------------------------------------------------------------
def _censored_median(rows: list[dict], steps: int) -> float:
    """Median steps to memorize, a run that never memorized counting as ``2·steps`` (slower than any fit)."""
    return float(np.median([r["steps_to_fit"] if r["steps_to_fit"] == r["steps_to_fit"] else 2 * steps for r in rows]))
