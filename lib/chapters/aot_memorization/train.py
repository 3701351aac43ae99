"""Experiments 1-6 of Dana et al. on the shared sweep engine (:mod:`lib.engine.family`, :mod:`lib.engine.train`).

The engine trains a *family* of G models of one shape in one batched computation. The paper's grids
vary H, d_h, d and the MLP width, so :class:`PaddedAoT` puts models of different sizes in one family
by zero-padding each to the largest shapes (exact: padding stays zero under training, see the class).
All configurations of one experiment pool therefore train together, two families at most.

Recipe (the official v2 code as it really runs, read from its training script): Adam (0.9, 0.999, 1e-8), a fixed
training set of ``batches_per_epoch × batch`` sequences sampled once, reshuffled every epoch, the
learning rate linear *per epoch* from 1e-2 to 5e-4 (the code passes learning rates as LinearLR's
factors: 0.1 × 0.1 → 0.1 × 0.005); one look-up table and data set per experiment, shared by every
configuration and repetition, repetitions differing by initialisation and batch order. Reported:
the running accuracy over the last 100 training batches (the official metric) and the full-table
accuracy under the uniform prior (the paper's definition, Corollary 2).
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F

from lib.chapters.aot_memorization import model as aot_model
from lib.chapters.aot_memorization import theory
from lib.chapters.aot_memorization.theory.paper import PAPER
from lib.core.claims import Scale
from lib.core.fit import linear_fit, power_fit
from lib.core.repro import seed_hash
from lib.engine import family, sweep, train


class PaddedAoT(aot_model.AoTMemorization):
    """A family of AoTs of *different* sizes (d, d_h, H, MLP width) in one batched computation.

    Every member is initialised at its own size (``AoTMemorization(...).init_one(seed)``) and
    zero-padded to the family's largest shapes. Zero padding is preserved by training: a padded
    coordinate, head or hidden unit multiplies only zeros, so its gradient is exactly 0 and Adam leaves
    it at 0 (m = v = 0). The padded member therefore computes and trains exactly as its unpadded self
    (tests/test_aot.py checks both). The score scale is per member (``batch["qscale"]`` ``[G]``, folded
    into W_Q in the forward pass only, so the gradients are those of the member's own model): the
    official model's 1/sqrt(d_h), the paper's 1. ``width > 0`` adds the MLP of Experiment 5 after the
    attention: ``r + W_2 GELU(W_1 r + b_1)`` (the official code's W_1 has a bias, W_2 none)."""

    def __init__(self, N, S, d, dh, H, variant, compress=None, width: int = 0):
        super().__init__(N=N, S=S, d=d, dh=dh, H=H, variant=variant, scale=None, compress=compress)
        self.width = width

    def member_params(self, d, dh, H, width, seed) -> dict[str, torch.Tensor]:
        """One member's own initialisation, zero-padded to this family's shapes."""
        own = aot_model.AoTMemorization(N=self.N, S=self.S, d=d, dh=dh, H=H, variant=self.variant,
                                     compress=self.compress if self.variant == "official" else None)
        p = own.init_one(seed)
        if self.width:
            g = torch.Generator().manual_seed(int(seed) + 7919)
            u = lambda shape, b: (torch.rand(*shape, generator=g, dtype=torch.float64) * 2 - 1) * b
            p.update(W1=u((d, width), 1 / math.sqrt(d)), b1=u((width,), 1 / math.sqrt(d)),
                     W2=u((width, d), 1 / math.sqrt(max(width, 1))))
        full = self.init_one(0)
        if self.width:
            full.update(W1=torch.zeros(self.d, self.width, dtype=torch.float64), b1=torch.zeros(self.width, dtype=torch.float64),
                        W2=torch.zeros(self.width, self.d, dtype=torch.float64))
        out = {}
        for k, big in full.items():
            z = torch.zeros_like(big)
            z[tuple(slice(0, n) for n in p[k].shape)] = p[k]
            out[k] = z
        return out

    def logits(self, p, batch):
        q = dict(p)
        q["W_Q"] = p["W_Q"] * batch["qscale"].to(p["W_Q"].dtype)[:, None, None, None]
        if not self.width:
            return super().logits(q, batch)
        G = p["U"].shape[0]
        q["U"] = torch.eye(self.d, dtype=p["U"].dtype, device=p["U"].device).expand(G, self.d, self.d)
        r = super().logits(q, batch)                                          # residual [G, B, d]
        h = F.gelu(torch.bmm(r, p["W1"]) + p["b1"][:, None, :])
        return torch.bmm(r + torch.bmm(h, p["W2"]), p["U"])


@dataclass(frozen=True)
class Recipe:
    """Training hyper-parameters (defaults: the official v2 recipe; ``steps = epochs × batches``)."""
    batch: int = 256
    batches_per_epoch: int = 64
    epochs: int = 64
    lr: float = 1e-2
    lr_end: float = 5e-4
    running_window: int = 100

    @property
    def steps(self) -> int:
        return self.batches_per_epoch * self.epochs


def member_seed(p: dict, data_seed: int) -> int:
    """The initialisation seed of one model (a sweep point): the hash of (data seed, model, MLP or not,
    configuration, repetition), so that a model's initialisation does not depend on the grid it trains in."""
    mlp = bool(p.get("mlp", False))
    c = (p["d"], p["dh"], p["H"], p["width"]) if mlp else (p["d"], p["dh"], p["H"])
    return seed_hash(data_seed, p["variant"], mlp, c, p["rep"])


def train_points(points: list[dict], report, recipe: dict, data_seed: int, device="cpu") -> None:
    """The chapter's one training function (:func:`lib.engine.sweep.run`'s ``fn``, for the live grids of
    :func:`run_plan` and the evidence sweeps of :mod:`~lib.chapters.aot_memorization.evidence`).

    A point is one model: ``dict(variant, N, d, dh, H, rep)``, plus ``mlp=True, width=w`` for Exp. 5's MLP
    Transformer. The unit's points train on one random look-up table over ``[N]^2`` (seed ``data_seed``) in
    zero-padded families (:class:`PaddedAoT`), one per (model, N, MLP, compression): the official model
    compresses iff d != d_h, so a unit of it makes two families at most. ``report(point, result)`` receives
    running_acc, table_acc, steps, flops_per_step, family and cpu_s of each point."""
    R = Recipe(**recipe)
    groups: dict[tuple, list[dict]] = {}
    for p in points:
        compress = p["variant"] == "official" and p["d"] != p["dh"]
        groups.setdefault((p["variant"], p["N"], bool(p.get("mlp", False)), compress), []).append(p)
    for (_, _, _, compress), ps in groups.items():
        for p, r in zip(ps, _train_family(ps, R, compress, data_seed, device, getattr(report, "progress", None)),
                        strict=True):
            report(p, r)


def _train_family(ps: list[dict], R: Recipe, compress: bool, data_seed: int, device="cpu", progress=None) -> list[dict]:
    """Train the points ``ps`` (one model, N, MLP or not, compression) as one zero-padded family."""
    N, variant, mlp = ps[0]["N"], ps[0]["variant"], bool(ps[0].get("mlp", False))
    dmax, dhmax, Hmax = (max(p[k] for p in ps) for k in ("d", "dh", "H"))
    if variant == "official" and not compress:
        dmax = dhmax = max(dmax, dhmax)
    width = max(1, max(p["width"] for p in ps)) if mlp else 0
    fam = PaddedAoT(N, 2, dmax, dhmax, Hmax, variant, compress=compress if variant == "official" else None, width=width)
    seeds = [member_seed(p, data_seed) for p in ps]
    params = family.stack([fam.member_params(p["d"], p["dh"], p["H"], p.get("width", 0), s)
                           for p, s in zip(ps, seeds, strict=True)])
    G = len(ps)
    data = aot_model.aot_data(fam, R.batch * R.batches_per_epoch, [data_seed] * G)
    qs = torch.tensor([1 / math.sqrt(p["dh"]) if variant == "official" else 1.0 for p in ps])
    data = family.FamilyData(data.examples, dict(data.shared, qscale=qs), data.sizes)
    tab = aot_model.aot_table(fam, data)
    table = family.FamilyData(tab.examples, {"qscale": qs}, tab.sizes)
    c0 = time.process_time()
    res = train.train_family(fam, data, seeds=seeds, steps=R.steps, lr=R.lr, schedule="linear", lr_end=R.lr_end,
                             per_epoch=R.batches_per_epoch, batch_size=R.batch, running_window=R.running_window,
                             eval_data=table, params=params, device=device, progress=progress)
    cpu = time.process_time() - c0
    name = f"AoT {variant}{' + MLP' if mlp else ''} N={N} padded to d={dmax} d_h={dhmax} H={Hmax}"
    return [dict(running_acc=float(r["running_acc"]), table_acc=float(r["eval_acc"]), steps=R.steps,
                 flops_per_step=float(fam.flops(R.batch)), family=name, cpu_s=cpu / G) for r in res]


def mean_over_reps(records: list[dict], key: str, by: Sequence[str]) -> dict[tuple, tuple[float, float]]:
    """{config key: (mean, std over repetitions)} of ``key``."""
    acc: dict[tuple, list] = {}
    for r in records:
        acc.setdefault(tuple(r[b] for b in by), []).append(r[key])
    return {k: (float(np.mean(v)), float(np.std(v))) for k, v in acc.items()}


# ---------------------------------------------------------------------------------------------
# fits (the authors' rules, as their plotting code applies them; the line fit itself is lib.core.fit's)
# ---------------------------------------------------------------------------------------------
def truncate_saturated(x, y, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """The points before saturation, by the official fitting scripts' rule (``EXP_1_and_4.py``, ``EXP_6.py``,
    ``EXP_dim.py``, v1 and v2): every point up to *and including* the first with accuracy > ``level``; all
    points when none exceeds it."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    over = np.nonzero(y > level)[0]
    n = over[0] + 1 if len(over) else len(y)
    return x[:n], y[:n]


def per_head_slopes(recs: list[dict], d_list, H_list, N: int, key: str = "running_acc") -> tuple[dict, dict]:
    """{d: slope of accuracy vs H} over the pre-saturation points (the official rule), and R^2."""
    m = mean_over_reps(recs, key, ["d", "H"])
    out, r2 = {}, {}
    for d in d_list:
        x, y = truncate_saturated(H_list, [m[(d, H)][0] for H in H_list])
        if len(x) >= 2:
            a, b, r = linear_fit(x, y)
            out[d], r2[d] = a, (r if len(x) >= 3 else float("nan"))
    return out, r2


def pooled_r2(recs: list[dict], d_list, H_list, k: float, key: str = "running_acc") -> float:
    """R^2 of the curves accuracy = a_d H^k + b_d (one fit per d, through lib.core.fit.power_fit), pooled over
    every d with >= 3 pre-saturation points: 1 - sum SS_res / sum SS_tot. NaN when no d qualifies."""
    m = mean_over_reps(recs, key, ["d", "H"])
    res = tot = 0.0
    for d in d_list:
        x, y = truncate_saturated(H_list, [m[(d, H)][0] for H in H_list])
        if len(x) >= 3:
            ss = float(((y - y.mean()) ** 2).sum())
            r2 = power_fit(x, y, k).r2
            res, tot = res + (1 - r2) * ss if ss > 0 else res, tot + ss
    return 1 - res / tot if tot > 0 else float("nan")


def csv_slopes(table: dict, Hs: list[int]) -> dict[int, float]:
    """{d: slope of accuracy vs H} of a published table {d: accuracies at Hs[:len]} (pre-saturation points)."""
    out = {}
    for d, y in table.items():
        x, yy = truncate_saturated(Hs[: len(y)], y)
        out[d] = linear_fit(x, yy).slope
    return out


def paper_slopes() -> dict[int, float]:
    """:func:`csv_slopes` of Fig. 1a's v2 CSV (N = 50)."""
    return csv_slopes(PAPER["exp1"], PAPER["exp1_H"])


def slope_ratio(slope: float, N: int, T0: int, d_h: int) -> float:
    """Empirical associations per head over the bound's d_h per head: slope T0 / ((1 - 1/N) d_h)."""
    return slope * T0 / ((1 - 1 / N) * d_h)


# ---------------------------------------------------------------------------------------------
# The chapter's experiment plan (one place that turns parameters into grids, for the notebook,
# the cost estimate and the benchmark)
# ---------------------------------------------------------------------------------------------
def plan(P: dict) -> dict[str, dict]:
    """Every training grid of the chapter from its parameters: name -> dict(N, configs, reps, recipe,
    variant, mlp). Experiment 4 reuses Experiment 1; Experiment 5 reuses Experiment 1's AoT runs when
    its vocabulary and recipe are the same."""
    R = Recipe(batch=P["batch"], batches_per_epoch=P["batches_per_epoch"], epochs=P["epochs"],
               lr=P["lr"], lr_end=P["lr_end"])
    out = {}
    for i, v in enumerate(P["exp1_variants"]):
        out["exp1" if i == 0 else f"exp1_{v}"] = dict(N=P["train_N"], configs=[(d, d, H) for d in P["exp1_d"] for H in P["exp1_H"]],
                                                      reps=P["reps"], recipe=R, variant=v, mlp=False)
    for v in P["variants"]:
        out[f"exp2_{v}"] = dict(N=P["train_N"], configs=[(P["exp2_d"], dh, P["exp2_H"]) for dh in P["exp2_dh"]],
                                reps=P["reps"], recipe=R, variant=v, mlp=False)
        out[f"exp3_{v}"] = dict(N=P["train_N"], configs=[(d, P["exp3_dh"], P["exp3_H"]) for d in P["exp3_d"]],
                                reps=P["reps"], recipe=R, variant=v, mlp=False)
    R5 = Recipe(batch=P["exp5_batch"], batches_per_epoch=P["exp5_batches_per_epoch"], epochs=P["epochs"],
                lr=P["lr"], lr_end=P["lr_end"])
    R5m = Recipe(batch=P["exp5_batch"], batches_per_epoch=P["exp5_batches_per_epoch"], epochs=P["epochs"],
                 lr=P["lr"], lr_end=P["exp5_lr_end_mlp"])
    reuse = (P["exp5_N"] == P["train_N"] and R5 == R and P["exp1_variants"][0] == "official"
             and all(d in P["exp1_d"] for d in P["exp5_d"]) and all(H in P["exp1_H"] for H in P["exp5_H"]))
    if not reuse:
        out["exp5_aot"] = dict(N=P["exp5_N"], configs=[(d, d, H) for d in P["exp5_d"] for H in P["exp5_H"]],
                               reps=P["reps"], recipe=R5, variant="official", mlp=False)
    out["exp5_mlp"] = dict(N=P["exp5_N"], configs=[(d, d, 1, 2 * d * (H - 1)) for d in P["exp5_d"] for H in P["exp5_H"]],
                           reps=P["reps"], recipe=R5m, variant="official", mlp=True)
    R6 = Recipe(batch=P["exp6_batch"], batches_per_epoch=P["batches_per_epoch"], epochs=P["exp6_epochs"],
                lr=P["lr"], lr_end=P["lr_end"])
    out["exp6"] = dict(N=P["exp6_N"], configs=[(2, 2, H) for H in P["exp6_H"]], reps=P["exp6_reps"],
                       recipe=R6, variant="official", mlp=False)
    for v in P["variants"]:   # the other models of Figs 3-4 (the MLP baseline exists in the official code only)
        if v != "official":
            out[f"exp5_aot_{v}"] = dict(N=P["exp5_N"], configs=[(d, d, H) for d in P["exp5_d"] for H in P["exp5_H"]],
                                        reps=P["reps"], recipe=R5, variant=v, mlp=False)
            out[f"exp6_{v}"] = dict(out["exp6"], variant=v)
    return out


# the paper's scale of each experiment (v2 code and CSVs), shown next to ours in every experiment claim
PAPER_SCALE = {"exp1": "N = 50, d = d_h = 3..13, H = 1..31, 4096 steps of batch 256, 5 seeds",
               "exp2": "N = 50, d = 10, H = 20, d_h = 1..10, 4096 steps of batch 256, 5 seeds",
               "exp3": "N = 50, d_h = 10, H = 20, d = 5..15, 4096 steps of batch 256, 5 seeds",
               "exp5": "N = 70, d = 7, 10, 13, H = 1..31, 16384 steps of batch 1024, 5 seeds",
               "exp6": "N = 10, d = d_h = 2, H = 1..21, 4096 steps of batch 256, 20 seeds"}


def scale(P: dict, name: str, min_N: int = 10, min_steps: int = 512, min_reps: int = 1,
          extra: tuple[bool, str] = (True, "")) -> Scale:
    """The :class:`Scale` of the training grid ``name`` of :func:`plan`: ours next to the paper's, and
    whether it reaches the smallest scale at which the claim means anything (vocabulary, steps, seeds,
    and an ``extra`` (condition, reason) such as a minimum number of grid points)."""
    g = plan(P)[name]
    R = g["recipe"]
    ours = f"N = {g['N']}, {R.steps} steps of batch {R.batch}, {g['reps']} seed(s)"
    enough = g["N"] >= min_N and R.steps >= min_steps and g["reps"] >= min_reps and bool(extra[0])
    why = f"needs N >= {min_N}, >= {min_steps} steps and >= {min_reps} seed(s){'; ' + extra[1] if extra[1] else ''}"
    return Scale(ours=ours, paper=PAPER_SCALE[name.split("_")[0]], enough=enough, why=why)


def rep_values(records: list[dict], key: str, by: str, at) -> list[float]:
    """``key`` of every repetition at ``records[by] == at`` (the seed-to-seed spread of one model)."""
    return [r[key] for r in sorted(records, key=lambda r: r["rep"]) if r[by] == at]


def plan_flops(grid: dict) -> float:
    """Matmul FLOPs of a grid as the engine runs it (families padded to their largest H and width)."""
    groups: dict[tuple, list] = {}
    for c in grid["configs"]:
        groups.setdefault(tuple(c[:2]), []).append(c)
    tot = 0.0
    R = grid["recipe"]
    for (d, dh), cs in groups.items():
        fam = aot_model.AoTMemorization(N=grid["N"], d=d, dh=dh, H=max(c[2] for c in cs), variant=grid["variant"])
        f = fam.flops(R.batch)
        if grid["mlp"]:
            f += 3 * 2 * R.batch * 2 * d * max(c[3] for c in cs)
        tot += f * len(cs) * grid["reps"] * R.steps
    return tot


def calibrate(device="cpu", steps: int = 32) -> float:
    """Measured FLOP/s of the engine on a mid-sized AoT family (for the cost estimate)."""
    R = Recipe(batch=128, batches_per_epoch=steps, epochs=1)
    pts = [dict(variant="official", N=20, d=6, dh=6, H=5, rep=r) for r in range(4)]
    t0 = time.perf_counter()
    train_points(pts, lambda p, r: None, asdict(R), 2222, device=device)
    dt = time.perf_counter() - t0
    return plan_flops(dict(N=20, configs=[(6, 6, 5)], reps=4, recipe=R, variant="official", mlp=False)) / dt


def grid_points(g: dict) -> list[dict]:
    """The sweep points of one grid of :func:`plan` (its configurations, each repeated ``reps`` times)."""
    out = []
    for c in g["configs"]:
        for r in range(g["reps"]):
            p = dict(variant=g["variant"], N=g["N"], d=c[0], dh=c[1], H=c[2], rep=r)
            out.append(dict(p, mlp=True, width=c[3]) if g["mlp"] else p)
    return out


def run_plan(P: dict, device="cpu", only: Sequence[str] | None = None, log=print) -> dict[str, list[dict]]:
    """Train every grid of :func:`plan` (or those named in ``only``); returns name -> records (d, d_h, H,
    width, rep, variant, mlp, running_acc, table_acc, seconds). Grids that share the vocabulary, recipe,
    model and repetitions are pooled and every distinct configuration is trained once (Exp. 2 and 3 share a
    point, and both share points with Exp. 1). Each pool is one :func:`lib.engine.sweep.run` of
    :func:`train_points` (one unit, so one zero-padded family per compression): under ``python -m lib run``
    (which sets ``ATR_RUN_DIR``) its finished models are stored and an interrupted rerun resumes."""
    pl = {k: g for k, g in plan(P).items() if only is None or k in only}
    pools: dict[tuple, list] = {}
    for g in pl.values():
        key = (g["N"], g["recipe"], g["variant"], g["mlp"], g["reps"])
        lst = pools.setdefault(key, [])
        lst.extend(tuple(c) for c in g["configs"] if tuple(c) not in lst)
    trained: dict[tuple, dict] = {}
    for key, cfgs in pools.items():
        N, R, variant, mlp, reps = key
        pts = grid_points(dict(N=N, configs=cfgs, reps=reps, variant=variant, mlp=mlp))
        cfg = dict(recipe=asdict(R), data_seed=P["data_seed"])
        t0 = time.perf_counter()
        rows = sweep.run(train_points, pts, name=f"aot-{variant}{'-mlp' if mlp else ''}-N{N}", config=cfg,
                         fn_kwargs=dict(cfg, device=device), workers=1, max_family=len(pts), threads=None, quiet=True)
        for r in rows:
            c = (r["d"], r["dh"], r["H"], r["width"]) if mlp else (r["d"], r["dh"], r["H"])
            trained[(key, c, r["rep"])] = dict(d=r["d"], d_h=r["dh"], H=r["H"], width=r.get("width", 0), rep=r["rep"],
                                               variant=variant, mlp=mlp, running_acc=r["running_acc"],
                                               table_acc=r["table_acc"], seconds=r["cpu_s"])
        log(f"{variant} {'MLP ' if mlp else ''}models, N = {N}, {R.steps} steps: {len(rows)} runs in "
            f"{time.perf_counter() - t0:.1f} s")
    return {name: [trained[((g["N"], g["recipe"], g["variant"], g["mlp"], g["reps"]), tuple(c), rep)]
                   for c in g["configs"] for rep in range(g["reps"])] for name, g in pl.items()}


# ---- the live checks' other trainings: the spot check, Prop. 1's trained AoTs, App. B.2's deeper AoTs ----
def spot_check(P: dict, device="cpu") -> list[dict]:
    """Fig. 1a at the paper's scale, live: N = 50, d = d_h = 10, the official v2 recipe (4096 steps of batch
    256), the official model, one seed, at the head counts ``P["spot_H"]``: one family, by :func:`train_points`
    (resumes under ``python -m lib run``). Records as :func:`lib.engine.sweep.run` returns them."""
    pts = grid_points(dict(N=50, configs=[(10, 10, H) for H in P["spot_H"]], reps=1, variant="official", mlp=False))
    cfg = dict(recipe=asdict(Recipe()), data_seed=P["data_seed"])
    return sweep.run(train_points, pts, name="aot-spot", config=cfg, fn_kwargs=dict(cfg, device=device), workers=1,
                     max_family=len(pts), threads=None, quiet=True)


def train_aot_kl(prior: np.ndarray, P: np.ndarray, N: int, S: int, d: int, d_h: int, H: int, seed: int,
                 steps: int = 1500, lr: float = 0.03) -> float:
    """Train an AoT of eq. (2) (all its weights, float64, Adam) on the distribution task's objective
    d_KL(pi, T) over all N^S sequences, and return the d_KL it reaches (Prop. 1 says: never below the best
    rank-d sequence encoder's)."""
    g = torch.Generator().manual_seed(seed)
    shapes = dict(e=(N, d), pos=(S, d), W_Q=(H, d, d_h), W_K=(H, d, d_h), W_V=(H, d, d_h), W_O=(H, d_h, d), W_U=(N, d))
    W = {k: (torch.randn(*s, generator=g, dtype=torch.float64) / np.sqrt(s[-2] if len(s) == 3 else 1)).requires_grad_(True)
         for k, s in shapes.items()}
    seqs = theory.all_sequences(N, S)
    Pt, wt = torch.as_tensor(P), torch.as_tensor(prior)
    opt = torch.optim.Adam(list(W.values()), lr=lr)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, steps)
    for _ in range(steps):
        opt.zero_grad()
        logq = torch.log_softmax(theory.AoT(**W).logits(seqs), dim=1)
        (-(wt * (Pt * logq).sum(1)).sum()).backward()
        opt.step()
        sched.step()
    with torch.no_grad():
        return theory.d_kl(prior, P, theory.AoT(**W).logits(seqs).numpy())


def train_deep(points: list[dict], report, recipe: dict, data_seed: int, device="cpu") -> None:
    """:func:`lib.engine.sweep.run`'s training function for :class:`~.model.DeepAoT`: a unit's points
    ``dict(N, d, H, L, rep)`` (optionally ``dh``, the head dimension; d_h = d without it) share (N, d, H, L, dh)
    (``group_by``) and train as one family on the chapter's task (:func:`~lib.chapters.aot_memorization.model.aot_data`,
    one look-up table of seed ``data_seed``) with the recipe of :class:`Recipe`'s fields."""
    p0, R = points[0], Recipe(**recipe)
    fam = aot_model.DeepAoT(N=p0["N"], d=p0["d"], dh=p0.get("dh"), H=p0["H"], L=p0["L"])
    seeds = [seed_hash(data_seed, "deep", p["L"], p["d"], p["H"], p["rep"], *(() if p.get("dh") is None else (p["dh"],)))
             for p in points]
    data = aot_model.aot_data(fam, R.batch * R.batches_per_epoch, [data_seed] * len(points))
    table = aot_model.aot_table(fam, data)
    res = train.train_family(fam, data, seeds=seeds, steps=R.steps, lr=R.lr, schedule="linear", lr_end=R.lr_end,
                             per_epoch=R.batches_per_epoch, batch_size=R.batch, running_window=R.running_window,
                             eval_data=table, device=device, progress=getattr(report, "progress", None))
    for p, r in zip(points, res, strict=True):
        report(p, dict(running_acc=float(r["running_acc"]), table_acc=float(r["eval_acc"])))


def depth_grid(N: int, ds: Sequence[int], Hs: Sequence[int], Ls: Sequence[int], reps: int, recipe: dict,
               data_seed: int, device="cpu", dhs: Sequence[int] | None = None) -> list[dict]:
    """Train :class:`~.model.DeepAoT` at every (d, H, L) (and every head dimension of ``dhs``; d_h = d when None) with
    ``reps`` seeds each, by :func:`train_deep` (one family per (d, H, L, d_h)) on the chapter's task of vocabulary
    ``N``. One record per model: ``dict(N, d, H, L, rep, running_acc, table_acc, cpu_s)`` (and ``dh`` with ``dhs``),
    ``cpu_s`` the process CPU time of its family divided by ``reps``."""
    out: list[dict] = []
    for L in Ls:
        for d in ds:
            for H in Hs:
                for dh in dhs or (None,):
                    got: list[dict] = []
                    c0 = time.process_time()
                    extra = {} if dh is None else {"dh": dh}
                    train_deep([dict(N=N, d=d, H=H, L=L, rep=r, **extra) for r in range(reps)],
                               lambda p, r, got=got: got.append(dict(p, **r)), recipe, data_seed, device=device)
                    cpu = (time.process_time() - c0) / reps
                    out.extend(dict(g, cpu_s=cpu) for g in got)
    return out
