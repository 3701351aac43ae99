"""Softmax vs linear attention: every part of the lemmas' closed forms (reconstructed), compared with the
constructed networks (:func:`closed_form_errors`), with D0 and D1 swapped as the negative control.
"""
from __future__ import annotations

import math

import torch
from torch import Tensor

from lib.chapters.softmax_vs_linear.model import DT, attend
from lib.chapters.softmax_vs_linear.theory.closed_forms import pq, row_norms
from lib.chapters.softmax_vs_linear.theory.constructions import X_cross, X_self, cross_pair, self_pair, toy_pair
from lib.core import attention as att


# ----------------------------------------------------------------------------------------------
# the lemmas' closed forms (reconstructed), compared with the constructed networks
# ----------------------------------------------------------------------------------------------
class _Err(dict):
    """Largest absolute difference per named closed form (a lemma part)."""

    def __call__(self, name: str, got: Tensor, want) -> None:
        want = torch.as_tensor(want, dtype=DT).expand_as(got)
        diff = float((got - want).abs().max()) if got.numel() else 0.0      # an empty case (e.g. k = 1) holds
        self[name] = max(self.get(name, 0.0), diff)


def _toy_forms(e: _Err, n: int, b: float, gen: torch.Generator, swap: bool) -> None:
    x0, x1, j = toy_pair(1, n, b, gen)
    if swap:
        x0, x1 = x1, x0
    j = int(j[0])
    p, q = pq(n, b)
    others = [i for i in range(n) if i != j]
    for kind in ("softmax", "linear"):
        e("D0: f = 1/n (both maps)", att.normalize(x0, kind)[0], 1.0 / n)
    fe, fl = att.normalize(x1, "softmax")[0], att.normalize(x1, "linear")[0]
    e("D1 softmax: f_j = p_b", fe[j], p)
    e("D1 softmax: f_i = q_b (i != j)", fe[others], q)
    e("D1 linear: f_j = 2/(n+1)", fl[j], 2.0 / (n + 1))
    e("D1 linear: f_i = 1/(n+1)", fl[others], 1.0 / (n + 1))


def _self_rows(n: int, k: int, g: int, j_w: float, group_w: float, other_w: float, flag_rest: Tensor,
               grp_rest: Tensor) -> tuple[Tensor, Tensor]:
    """Aggregated rows ``c = f A`` of a self-attention instance: the needle row from its weights, and the
    other rows from their flag weight and per-group weights (helpers for the closed forms below)."""
    cj = torch.full((k + 2,), other_w, dtype=DT)
    cj[0], cj[1 + g], cj[-1] = j_w, group_w, 1.0
    rows = torch.cat([flag_rest.unsqueeze(-1), grp_rest, torch.ones(n - 1, 1, dtype=DT)], -1)
    return cj, rows


def _selfD_forms(e: _Err, n: int, k: int, b: float, gen: torch.Generator, swap: bool) -> None:
    A0, A1, j, g = self_pair(1, n, k, gen)
    if swap:
        A0, A1 = A1, A0
    j, g, t = int(j[0]), int(g[0]), n // k
    p, q = pq(n, b)
    X = X_self(k, b, "D")
    rest = [i for i in range(n) if i != j]
    eye = torch.eye(k + 2, dtype=DT).unsqueeze(0)
    lemmas = {("D1", "softmax"): ("D.2", "D.3"), ("D1", "linear"): ("D.10", "D.11"),
              ("D0", "softmax"): ("D.6", "D.7"), ("D0", "linear"): ("D.14", "D.15")}
    for tag, A in (("D1", A1), ("D0", A0)):
        S = att.scores(A, A, X.unsqueeze(0), eye)[0, 0]
        for kind, (fj, fi) in (("softmax", (p, q)), ("linear", (2 / (n + 1), 1 / (n + 1)))):
            lw, lc = lemmas[tag, kind]
            # the scores do not depend on the map: Parts 1-2 of the weight lemma of each map
            e(f"{lw} Part 1a ({tag}, {kind}): u_jj = 2b", S[j, j], 2 * b)
            e(f"{lw} Parts 1b/2 ({tag}, {kind}): u = b elsewhere", S[j, rest], b)
            e(f"{lw} Parts 1b/2 ({tag}, {kind}): u = b elsewhere", S[rest], b)
            c, f = attend(A, A, X, kind)
            e(f"{lw} Part 3a ({tag}, {kind}): f_jj", f[0, j, j], fj)
            e(f"{lw} Part 3b ({tag}, {kind}): f_ji", f[0, j, rest], fi)
            e(f"{lw} Part 4 ({tag}, {kind}): f_(j0,i) = 1/n", f[0, rest], 1.0 / n)
            # aggregated rows c = f A: the needle row from (fj, fi), every other row uniform
            gw = fj + (t - 1) * fi if tag == "D1" else (t - 1) * fi
            gr = torch.full((n - 1, k), t / n, dtype=DT)
            if tag == "D0":
                gr[:, g] = (t - 1) / n
            cj, rows = _self_rows(n, k, g, fj, gw, t * fi, torch.full((n - 1,), 1.0 / n, dtype=DT), gr)
            e(f"{lc} Parts 1-3 ({tag}, {kind}): needle row c_j", c[0, j], cj)
            e(f"{lc} Parts 4-6 ({tag}, {kind}): rows c_(j0), j0 != j", c[0, rest], rows)
    e("D.7: ||c_j(D0)||_1 = 2 (softmax)", row_norms(attend(A0, A0, X, "softmax")[0][0])[j], 2.0)
    cl = attend(A1, A1, X, "linear")[0]
    e("D.11: ||c_j(D1)||_1 = 2 + 2/(n+1) (linear)", row_norms(cl[0])[j], 2.0 + 2.0 / (n + 1))
    e("D.15: ||c_j(D0)||_1 = 2 (linear)", row_norms(attend(A0, A0, X, "linear")[0][0])[j], 2.0)
    e("linear is invariant to b: c(b) = c(2b+1)", attend(A1, A1, X_self(k, 2 * b + 1, "D"), "linear")[0][0], cl[0])


def _selfE_forms(e: _Err, n: int, k: int, b: float, gen: torch.Generator, swap: bool) -> None:
    """Lemmas E.1 (scores 3b / 2b / b and the softmax weights) and E.2 (the aggregated rows), X_E = b I."""
    A0, A1, j, g = self_pair(1, n, k, gen)
    if swap:
        A0, A1 = A1, A0
    j, g, t = int(j[0]), int(g[0]), n // k
    X = X_self(k, b, "E")
    grp = A1[0, :, 1:-1].argmax(-1)                       # every token's group in D1
    same = [i for i in range(n) if i != j and int(grp[i]) == g]
    diff = [i for i in range(n) if int(grp[i]) != g]
    rest = [i for i in range(n) if i != j]
    S = att.scores(A1, A1, X.unsqueeze(0), torch.eye(k + 2, dtype=DT).unsqueeze(0))[0, 0]
    e("E.1 Part 1a: u_jj = 3b", S[j, j], 3 * b)
    e("E.1 Part 1b: u_ji = 2b (t-1 indices of j's group)", S[j, same], 2 * b)
    e("E.1 Part 1b: u_ji = b (the n-t others)", S[j, diff], b)
    same_all = (grp[rest].unsqueeze(1) == grp.unsqueeze(0)).to(DT)       # [n-1, n]: same group as j0
    e("E.1 Part 2: u_(j0,i) = 2b (same group) or b", S[rest], b * (1 + same_all))
    r = math.exp(-b)
    a = 1 + (t - 1) * r + (n - t) * r * r                  # α_j / e^{3b}
    c, f = attend(A1, A1, X, "softmax")
    e("E.1 Part 3a: f_jj = e^3b/α_j", f[0, j, j], 1 / a)
    e("E.1 Part 3b: f_ji = e^2b/α_j (same group)", f[0, j, same], r / a)
    e("E.1 Part 3b: f_ji = e^b/α_j (other groups)", f[0, j, diff], r * r / a)
    a2 = t + (n - t) * r                                   # α_(j0) / e^{2b}
    e("E.1 Part 4: f_(j0,i) = e^2b/α or e^b/α", f[0, rest], (same_all + (1 - same_all) * r) / a2)
    cj, rows = _self_rows(n, k, g, 1 / a, (1 + (t - 1) * r) / a, t * r * r / a,
                          (same_all[:, j] + (1 - same_all[:, j]) * r) / a2,
                          (torch.nn.functional.one_hot(grp[rest], k).to(DT) * (1 - r) + r) * t / a2)
    e("E.2 Parts 1-3: needle row c_j", c[0, j], cj)
    e("E.2 Parts 4-6: rows c_(j0), j0 != j", c[0, rest], rows)


def _cross_forms(e: _Err, n: int, k: int, b: float, gen: torch.Generator, swap: bool) -> None:
    Q, K0, K1, j1, j2, g = cross_pair(1, n, k + 1, gen)
    if swap:
        K0, K1 = K1, K0
    j1, j2, g, t = int(j1[0]), int(j2[0]), int(g[0]), n // k
    p, q = pq(n, b)
    X = X_cross(k + 1, b)
    rest_i = [i for i in range(n) if i != j2]
    rest_j = [i for i in range(n) if i != j1]
    eye = torch.eye(k + 1, dtype=DT).unsqueeze(0)
    S = att.scores(Q, K1, X.unsqueeze(0), eye)[0, 0]
    e("F.2/F.10 Part 1: u_(j1 j2) = 2b", S[j1, j2], 2 * b)
    e("F.2/F.10 Part 2: u = b if j0 != j1 or i != j2", S[j1, rest_i], b)
    e("F.2/F.10 Part 2: u = b if j0 != j1 or i != j2", S[rest_j], b)
    c1, f1 = attend(Q, K1, X, "softmax")
    e("F.2 Part 3a: f_(j1 j2) = p_b", f1[0, j1, j2], p)
    e("F.2 Part 3b: f_(j1 i) = q_b", f1[0, j1, rest_i], q)
    e("F.2 Part 4: f_(j0 i) = 1/n (j0 != j1)", f1[0, rest_j], 1.0 / n)
    uni = torch.full((n - 1, k + 1), t / n, dtype=DT)     # a uniform row of D1: (1/n | t/n, ..., t/n)
    uni[:, 0] = 1.0 / n
    want = torch.full((k + 1,), t * q, dtype=DT)
    want[0], want[1 + g] = p, p + (t - 1) * q
    e("F.3 Parts 1-2: c_(j1) = (p_b | p_b+(t-1)q_b, t q_b)", c1[0, j1], want)
    e("F.3 Parts 3-4: c_(j0) = (1/n | t/n) (j0 != j1)", c1[0, rest_j], uni)
    cl, fl = attend(Q, K1, X, "linear")
    e("F.10 Part 3: f_(j1 j2) = 2/(n+1)", fl[0, j1, j2], 2.0 / (n + 1))
    e("F.10 Part 4: f_(j1 i) = 1/(n+1)", fl[0, j1, rest_i], 1.0 / (n + 1))
    e("F.10 Part 5: f_(j0 i) = 1/n (j0 != j1)", fl[0, rest_j], 1.0 / n)
    want = torch.full((k + 1,), t / (n + 1), dtype=DT)
    want[0], want[1 + g] = 2.0 / (n + 1), (t + 1.0) / (n + 1)
    e("F.11 Parts 1-2: c_(j1) = (2 | t+1, t)/(n+1)", cl[0, j1], want)
    e("F.11 Parts 3-4: c_(j0) = (1/n | t/n) (j0 != j1)", cl[0, rest_j], uni)
    e("F.11: ||c_(j1)(D1)||_1 = 1 + 2/(n+1)", row_norms(cl[0])[j1], 1.0 + 2.0 / (n + 1))
    # D0 (our reading: key j2 in no group)
    S0 = att.scores(Q, K0, X.unsqueeze(0), eye)[0, 0]
    e("F.6/F.14 Parts 1-2 (D0): u_(j1 i) = b for every i", S0[j1], b)
    e("F.6/F.14 (D0, our reading): u_(j0 j2) = 0 (j0 != j1)", S0[rest_j, j2], 0.0)
    e("F.6/F.14 (D0, our reading): u_(j0 i) = b (j0 != j1, i != j2)", S0[rest_j][:, rest_i], b)
    c0, f0 = attend(Q, K0, X, "softmax")
    a0 = 1.0 + (n - 1) * math.exp(b)
    e("F.6 Part 3: row j1 of D0 is uniform, f = 1/n", f0[0, j1], 1.0 / n)
    e("F.6 Part 4: f_(j0 j2)(D0) = 1/(1+(n-1)e^b)", f0[0, rest_j, j2], 1.0 / a0)
    e("F.6 Part 4: f_(j0 i)(D0) = e^b/(1+(n-1)e^b)", f0[0][rest_j][:, rest_i], math.exp(b) / a0)
    row0 = torch.full((k + 1,), t / n, dtype=DT)          # D0's needle row: (1/n | (t-1)/n in g, t/n)
    row0[0], row0[1 + g] = 1.0 / n, (t - 1.0) / n
    e("F.7 Parts 1-2: c_(j1)(D0) = (1/n | (t-1)/n, t/n)", c0[0, j1], row0)
    rest0 = torch.full((n - 1, k + 1), t * math.exp(b) / a0, dtype=DT)
    rest0[:, 0], rest0[:, 1 + g] = 1.0 / a0, (t - 1) * math.exp(b) / a0
    e("F.7 Parts 4-5: c_(j0)(D0) = (1 | (t-1)e^b, t e^b)/(1+(n-1)e^b)", c0[0, rest_j], rest0)
    e("F.7: ||c_(j0)(D0)||_1 = 1", row_norms(c0[0]), 1.0)
    c0l, f0l = attend(Q, K0, X, "linear")
    e("F.14 Parts 3-4: f_(j1 i)(D0) = 1/n for every i", f0l[0, j1], 1.0 / n)
    e("F.14 Part 5: f_(j0 j2)(D0) = 0 (j0 != j1)", f0l[0, rest_j, j2], 0.0)
    e("F.14 Part 5: f_(j0 i)(D0) = 1/(n-1) (j0 != j1, i != j2)", f0l[0][rest_j][:, rest_i], 1.0 / (n - 1))
    e("F.15 Parts 1-2: c_(j1)(D0) = (1/n | (t-1)/n, t/n)", c0l[0, j1], row0)
    rest0l = torch.full((n - 1, k + 1), t / (n - 1.0), dtype=DT)
    rest0l[:, 0], rest0l[:, 1 + g] = 0.0, (t - 1.0) / (n - 1)
    e("F.15 Parts 3-4: c_(j0)(D0) = (0 | (t-1), t)/(n-1)", c0l[0, rest_j], rest0l)
    e("F.15: ||c_(j0)(D0)||_1 = 1", row_norms(c0l[0]), 1.0)


def closed_form_errors(construction: str, n: int, k: int, b: float, seed: int = 0,
                       swap: bool = False) -> dict[str, float]:
    """Largest absolute difference between the built attention and each closed form of the lemmas
    (one random instance). Keys name the lemma part they reconstruct. ``swap=True`` builds the two
    datasets the wrong way round (D0 where D1 is meant): the negative control of the closed forms."""
    gen = torch.Generator().manual_seed(seed)
    e = _Err()
    forms = {"toy": lambda: _toy_forms(e, n, b, gen, swap), "self-D": lambda: _selfD_forms(e, n, k, b, gen, swap),
             "self-E": lambda: _selfE_forms(e, n, k, b, gen, swap), "cross": lambda: _cross_forms(e, n, k, b, gen, swap)}
    if construction not in forms:
        raise ValueError(f"construction = {construction!r}: expected one of {sorted(forms)}")
    forms[construction]()
    return dict(e)
