"""Softmax vs linear attention: Monte-Carlo success counts over families of random networks, and panels of them.

A panel sweeps one parameter (n, k, d, m, τ or b), counts how many of R random networks separate the two
datasets, and sets the count against the closed-form probability of :mod:`lib.chapters.softmax_vs_linear.theory`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch
from torch import Tensor

from lib.chapters.softmax_vs_linear.model import DT, network, rademacher
from lib.chapters.softmax_vs_linear.theory.closed_forms import p_success, toy_theory, window
from lib.chapters.softmax_vs_linear.theory.constructions import X_cross, X_self, cross_pair, self_pair, toy_pair
from lib.core import attention as att


# ----------------------------------------------------------------------------------------------
# Monte Carlo: the paper's event E counted over R random models
# ----------------------------------------------------------------------------------------------
@dataclass
class Counts:
    """Per random model: E (the four-way event), and the four network outputs' firing indicators."""
    E: int
    exp1: int     # F_exp(D1) > 0
    exp0: int     # F_exp(D0) > 0
    lin1: int     # F_lin(D1) > 0
    lin0: int     # F_lin(D0) > 0
    sep: int      # F_exp(D1) > 0 and F_exp(D0) = 0: the 'exp' network alone separates
    R: int
    E_models: np.ndarray | None = None     # per model: E (bool [R]), for re-judging on a subset of the models
    sep_models: np.ndarray | None = None   # per model: sep

    def half(self, which: int) -> int:
        """E counted over the first (``which`` 0) or second (1) half of the models."""
        h = self.R // 2
        return int(self.E_models[:h].sum() if which == 0 else self.E_models[h:2 * h].sum())

    def sep_half(self, which: int) -> int:
        """sep counted over the first (0) or second (1) half of the models."""
        h = self.R // 2
        return int(self.sep_models[:h].sum() if which == 0 else self.sep_models[h:2 * h].sum())


def _count(F: dict[str, Tensor]) -> Counts:
    fire = {k: v > 0 for k, v in F.items()}
    E = fire["exp1"] & ~fire["exp0"] & ~fire["lin1"] & ~fire["lin0"]
    sep = fire["exp1"] & ~fire["exp0"]
    return Counts(int(E.sum()), *(int(fire[k].sum()) for k in ("exp1", "exp0", "lin1", "lin0")),
                  sep=int(sep.sum()), R=len(E), E_models=E.numpy().astype(bool), sep_models=sep.numpy().astype(bool))


def _chunks(R: int, per: int) -> list[int]:
    out = [per] * (R // per)
    return out + ([R % per] if R % per else [])


def mc_toy(n: int, b: float, m: int, tau: float, R: int, seed: int) -> Counts:
    """Toy model (Sections 3-5): ``F(x) = Σ_r φ_τ(<w_r, f(x)>)``, W ∈ {±1}^{n×m}, R random models."""
    gen = torch.Generator().manual_seed(seed)
    F: dict[str, list[Tensor]] = {k: [] for k in ("exp1", "exp0", "lin1", "lin0")}
    for Rc in _chunks(R, max(1, 2_000_000 // (n * m))):
        x0, x1, _ = toy_pair(Rc, n, b, gen)
        W = rademacher((Rc, n, m), gen)
        for name, x in (("0", x0), ("1", x1)):
            for kind, tag in (("softmax", "exp"), ("linear", "lin")):
                f = att.normalize(x.unsqueeze(-2), kind)              # [Rc, 1, n]: one attention row
                F[tag + name].append(network(f, W, tau))
    return _count({k: torch.cat(v) for k, v in F.items()})


def mc_pairs(construction: str, n: int, k: int, b: float, m: int, tau: float, R: int, seed: int,
             X: Tensor | None = None, kinds: tuple[str, str] = ("softmax", "linear")) -> Counts:
    """Self-attention ('self-D', 'self-E') or cross-attention ('cross') with k groups: R random models
    (random W, needle position and group assignment each), counted as in the paper's Section 7.
    ``X`` overrides the construction's combined parameter (for the counter-check); ``kinds`` names the
    maps used for the 'exp' and 'lin' networks (``("linear",)``: one linear network, counted as 'exp')."""
    gen = torch.Generator().manual_seed(seed)
    d = k + 1 if construction == "cross" else k + 2
    if X is None:
        X = X_cross(d, b) if construction == "cross" else X_self(k, b, construction[-1])
    F: dict[str, list[Tensor]] = {k_: [] for k_ in ("exp1", "exp0", "lin1", "lin0")}
    for Rc in _chunks(R, max(1, 4_000_000 // (n * n))):
        if construction == "cross":
            Q, K0, K1, *_ = cross_pair(Rc, n, d, gen)
            data = {"0": (Q, K0), "1": (Q, K1)}
        else:
            A0, A1, *_ = self_pair(Rc, n, k, gen)
            data = {"0": (A0, A0), "1": (A1, A1)}
        W = rademacher((Rc, d, m), gen)
        eye = torch.eye(d, dtype=DT).unsqueeze(0)
        for name, (a1, a2) in data.items():
            S = att.scores(a1, a2, X.unsqueeze(-3), eye)            # shared by both maps
            for kind, tag in zip(kinds, ("exp", "lin"), strict=False):
                c = att.normalize(S, kind).squeeze(-3) @ a2          # = attend(a1, a2, X, kind)[0]
                F[tag + name].append(network(c, W, tau))
            if len(kinds) == 1:                                      # one map only: 'lin' repeats 'exp'
                F["lin" + name].append(F["exp" + name][-1])
    return _count({k_: torch.cat(v) for k_, v in F.items()})


def binom_ok(count: int, R: int, p: float, z: float = 4.0) -> bool:
    """``count`` within ``z`` binomial standard deviations of ``R p`` (plus 1 for the integer grid)."""
    return abs(count - R * p) <= z * math.sqrt(R * p * (1 - p)) + 1.0


def sweep(fn: Callable[..., Counts], grid: Sequence, key: str, base: dict, seed: int) -> list[Counts]:
    """Run ``fn(**base, key=v)`` for each v of ``grid`` with the seed ``seed + 1000·i`` (reproducible)."""
    return [fn(**{**base, key: v}, seed=seed + 1000 * i) for i, v in enumerate(grid)]


# ----------------------------------------------------------------------------------------------
# the figure analogues: one panel = one swept parameter, counted over R random models per point
# ----------------------------------------------------------------------------------------------
@dataclass
class Panel:
    """One swept parameter of a Fig 3/4/5/7 analogue, with the exact theory at every point."""
    construction: str
    key: str                   # the swept parameter: 'n', 'k' (self) / 'd' (cross), 'b', 'm', 'tau'
    xs: list
    counts: list[Counts]
    theory: np.ndarray         # exact P(E) where it is known (tau > tau_rest), NaN elsewhere
    zero: np.ndarray           # the needle row cannot reach tau at all (P(E) = 0 exactly)
    in_window: np.ndarray      # tau_lo < tau < tau_hi: the theorem's regime, P(E) = 1 - (1 - 2^-s)^m
    rest_silent: np.ndarray    # tau > tau_rest: linear and D0 can never fire
    R: int
    theory_alt: np.ndarray | None = None   # the control: P(E) with the per-neuron firing chance halved

    @property
    def E(self) -> np.ndarray:
        return np.array([c.E for c in self.counts])

    @property
    def lin_fires(self) -> np.ndarray:
        """Models in which the linear network fired on D0 or D1 (at most the sum of the two counts)."""
        return np.array([max(c.lin0, c.lin1) for c in self.counts])

    @property
    def tested(self) -> np.ndarray:
        """Points with a prediction: an exact probability, or P(E) = 0 exactly. Elsewhere (τ below the
        largest silent row norm) the count is shown but not tested."""
        return self.zero | ~np.isnan(self.theory)

    def agree(self, z: float = 4.0, theory: np.ndarray | None = None, half: int | None = None) -> np.ndarray:
        """Per tested point (see :attr:`tested`): the count matches the theory (binomial, z sd; exactly 0
        where P = 0). ``theory`` replaces the exact P(E) (a control). Untested points are False: use
        ``agree()[tested]``."""
        theory = self.theory if theory is None else theory
        out = np.zeros(len(self.xs), bool)
        for i, (c, p) in enumerate(zip(self.counts, theory, strict=True)):
            E, R = (c.E, self.R) if half is None else (c.half(half), self.R // 2)
            if self.zero[i]:
                out[i] = E == 0
            elif not np.isnan(p):
                out[i] = binom_ok(E, R, float(p), z)
        return out

    def verdict(self, theory: np.ndarray | None = None, z: float = 4.0, half: int | None = None) -> tuple[bool, str]:
        """``(ok, text)``: every tested point agrees, and at least one of them has ``P(E) > 0``. The points
        with ``P(E) = 0`` are reported apart: their zero count follows from the row norms (no neuron can
        exceed ``||c||_1 ≤ τ``), so they check the code, not the theory."""
        t, a = self.tested, self.agree(z=z, theory=theory, half=half)
        pos, z = t & ~self.zero, self.zero
        text = f"{int(a[pos].sum())}/{int(pos.sum())} tested points with P(E) > 0 agree"
        if z.any():
            text += f"; {int(a[z].sum())}/{int(z.sum())} with P(E) = 0 counted 0 (implied by the row norms)"
        if (~t).any():
            text += f" ({int((~t).sum())} untested: no exact theory below τ_rest)"
        return bool(pos.any() and a[t].all()), text

    def needed_R(self, theory: np.ndarray | None = None, z: float = 4.0) -> float:
        """The smallest number of models per point at which the count test tells ``theory`` (a control's
        rival probabilities; default :attr:`theory_alt`) from the exact P(E) at some tested point: the
        expected count ``R P`` lies 2 of its own sd outside the rival's band ``R P' ± (z sd' + 1)``, i.e.
        ``R δ ≥ √R (z σ' + 2σ) + 1`` with ``δ = |P − P'|``. Infinite where the two agree at every point."""
        alt = self.theory_alt if theory is None else theory
        best = math.inf
        for P, Pa, t in zip(self.theory, alt, self.tested, strict=True):
            if not t or np.isnan(P) or np.isnan(Pa) or abs(P - Pa) < 1e-15:
                continue
            d, a = abs(P - Pa), z * math.sqrt(Pa * (1 - Pa)) + 2 * math.sqrt(P * (1 - P))
            best = min(best, ((a + math.sqrt(a * a + 4 * d)) / (2 * d)) ** 2)
        return best

    def linear_silent(self) -> bool:
        """Linear attention never fired (on D0 or D1) at any point where the window says it cannot."""
        return bool(all(c.lin0 == 0 and c.lin1 == 0 for c, s in zip(self.counts, self.rest_silent, strict=False) if s))


def run_panel(construction: str, key: str, grid: Sequence, base: dict, R: int, seed: int) -> Panel:
    """Sweep ``key`` over ``grid`` with the other parameters in ``base`` (n, k, m, tau, b_offset; b is
    ``ln n + b_offset`` unless swept). For cross-attention the swept dimension is d = k + 1."""
    counts, theory, alt, zero, inwin, silent = [], [], [], [], [], []
    for i, v in enumerate(grid):
        p = dict(base)
        if key == "d":
            p["k"] = int(v) - 1
        else:
            p[key] = v
        n, k, m, tau = int(p["n"]), int(p["k"]), int(p["m"]), float(p["tau"])
        b = float(p["b"]) if key == "b" else math.log(n) + float(p["b_offset"])
        counts.append(mc_pairs(construction, n, k, b, m, tau, R, seed + 1000 * i))
        w = window(construction, n, k, b)
        p1 = w.p1(tau)
        silent.append(tau > w.tau_rest)
        theory.append(p_success(p1, m) if tau > w.tau_rest else np.nan)
        alt.append(p_success(p1 / 2, m) if tau > w.tau_rest else np.nan)
        zero.append(tau >= w.tau_top)
        inwin.append(w.tau_lo < tau < w.tau_hi)
    return Panel(construction, key, list(grid), counts, np.array(theory), np.array(zero), np.array(inwin),
                 np.array(silent), R, np.array(alt))


def toy_panel(key: str, grid: Sequence, base: dict, R: int, seed: int) -> Panel:
    """Fig 3 analogue: sweep n or m of the toy model; the theory is :func:`toy_theory` (exact)."""
    counts, theory, alt = [], [], []
    for i, v in enumerate(grid):
        p = {**base, key: v}
        n, m, tau = int(p["n"]), int(p["m"]), float(p["tau"])
        b = math.log(n) + float(p["b_offset"])
        counts.append(mc_toy(n, b, m, tau, R, seed + 1000 * i))
        theory.append(toy_theory(n, b, m, tau))
        alt.append(toy_theory(n, b, m, tau, fire_scale=0.5))
    z = np.zeros(len(grid), bool)
    return Panel("toy", key, list(grid), counts, np.array(theory), z, ~z, z, R, np.array(alt))


def sampled_fire_rate(c_row: np.ndarray, tau: float, N: int, seed: int) -> float:
    """Frequency of ``<w, c_row> > τ`` over N random sign vectors (the '1/8' and '1/4' of D.4 and F.4)."""
    gen = torch.Generator().manual_seed(seed)
    w = rademacher((N, len(c_row)), gen)
    return float(((w @ torch.as_tensor(c_row, dtype=DT)) > tau).to(DT).mean())


# ----------------------------------------------------------------------------------------------
# the theorem's probabilistic half, judged where the sweep can discriminate
# ----------------------------------------------------------------------------------------------
def window_points(panels: Sequence[Panel], m0: int) -> list[tuple[int, int]]:
    """``(count of E, m)`` at every point of ``panels`` inside the theorem's window (m is ``m0`` unless
    the panel sweeps m)."""
    return [(c.E, int(pn.xs[i]) if pn.key == "m" else int(m0))
            for pn in panels for i, (c, w) in enumerate(zip(pn.counts, pn.in_window, strict=True)) if w]


def window_agree(points: Sequence[tuple[int, int]], p1: float, R: int) -> int:
    """How many in-window counts lie within 4 sd + 1 of ``R (1 - (1 - p1)^m)``: the test of the firing
    probability p1 (the claim's 2^-s, or a control's alternative)."""
    return sum(binom_ok(E, R, p_success(p1, m)) for E, m in points)


def fit_p1(points: Sequence[tuple[int, int]], R: int) -> float:
    """Maximum-likelihood per-neuron firing probability from in-window counts (grid of step 1e-4)."""
    grid = np.arange(1, 10000) / 10000.0
    E = np.array([e for e, _ in points], float)[:, None]
    P = 1 - (1 - grid[None, :]) ** np.array([m for _, m in points], float)[:, None]
    ll = (E * np.log(P) + (R - E) * np.log(np.clip(1 - P, 1e-300, None))).sum(0)
    return float(grid[int(ll.argmax())])


# ----------------------------------------------------------------------------------------------
# the page's sweeps: the five panels of one construction, and the cost estimate of a run
# ----------------------------------------------------------------------------------------------
# Seed offset of each family's draws. Panel i of a family seeds its point j with ``seed + offset + 100 i + 1000 j``.
# Fig 5 (X_E) runs on the same datasets as Fig 4 (X_D), so with one shared offset its counts would repeat Fig 4's
# wherever both are inside the window. Its offset 50 gives seeds ≡ 50 (mod 100), which no other sweep of the
# chapter uses, so Fig 5 is independent evidence.
FAMILY_SEED_OFFSET = {"self-D": 0, "self-E": 50, "cross": 0}


def family_seeds(P: dict, construction: str, n_panels: int = 5) -> list[int]:
    """The base seed of each panel of one family (point j of panel i adds ``1000 j``): see :data:`FAMILY_SEED_OFFSET`."""
    return [P["seed"] + FAMILY_SEED_OFFSET[construction] + 100 * i for i in range(n_panels)]


def run_family(P: dict, construction: str, pre: str, size_key: str) -> list[Panel]:
    """The five sweeps of one construction (the Fig 4, 5 or 7 analogue): n, the size (k or d), b, m and τ, each around
    the base point of the params ``P`` (prefix ``pre``: "self" or "cross"), R = ``P["reps"]`` models per point, on the
    family's own draws (:func:`family_seeds`)."""
    base = dict(n=P[f"{pre}_n0"], k=(P["self_k0"] if pre == "self" else P["cross_d0"] - 1),
                m=P[f"{pre}_m0"], tau=P[f"{pre}_tau0"], b_offset=P[f"{pre}_b_offset"])
    sweeps = [("n", P[f"{pre}_n"]), (size_key, P[f"{pre}_{size_key}"]), ("b", P[f"{pre}_b"]),
              ("m", P[f"{pre}_m"]), ("tau", P[f"{pre}_tau"])]
    seeds = family_seeds(P, construction, len(sweeps))
    return [run_panel(construction, key, grid, base, P["reps"], s) for s, (key, grid) in zip(seeds, sweeps, strict=True)]


def estimate_cost(P: dict) -> float:
    """This run's Monte-Carlo cost in seconds, estimated from one timed point (seconds per model per n^2, two
    datasets, two maps) times the sum of n^2 over every point of the preset. Prints it with the learned comparison's size."""
    import time
    t0 = time.perf_counter()
    mc_pairs("cross", 120, 6, math.log(120) + 3, 20, 1.5, 20, seed=12345)
    unit = (time.perf_counter() - t0) / (20 * 120 ** 2)
    points = ([P["self_n0"]] * (len(P["self_k"]) + len(P["self_b"]) + len(P["self_m"]) + len(P["self_tau"])) + P["self_n"]) * 2 \
        + [P["cross_n0"]] * (len(P["cross_d"]) + len(P["cross_b"]) + len(P["cross_m"]) + len(P["cross_tau"])) + P["cross_n"] \
        + [n for n in P["counter_n"] for _ in P["counter_inv_eps"]] + P["signed_n"] * 8
    est = unit * P["reps"] * sum(n ** 2 for n in points)
    print(f"{len(points)} Monte-Carlo points with {P['reps']} random models each: about {est:.0f} s on this machine")
    print(f"plus the learned comparison: {len(P['learn_n'])} lengths x 2 maps x {len(P['learn_lrs'])} learning rates x {P['learn_seeds']} models "
          f"x {P['learn_steps']} steps,\n  and one more softmax family per length for its control")
    return est
