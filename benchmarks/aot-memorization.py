"""Time the hot parts of the aot-memorization chapter at a preset (default: book).

    .venv/bin/python benchmarks/aot-memorization.py [--preset book] [--paper-point] [--skip-training]
    .venv/bin/python benchmarks/aot-memorization.py --costs benchmarks/results/aot-memorization-costs.json

Prints the wall time of the float64 constructions and of each pooled training grid, the engine's
measured FLOP rate, and (with --paper-point) the cost of one paper-preset sweep point (N = 50,
d = d_h = 10, H = 31, 4096 Adam steps of batch 256, official model, one seed), extrapolated to
the whole paper preset by the FLOP count of its grids. With --costs, it measures instead the CPU-hours of
the grids the chapter does not train (:mod:`lib.chapters.aot_memorization.evidence`: Exp. 5 at N = 70, v1's protocol,
Appendix B.2, Appendix B.1) with one torch thread and writes them, with the machine and the date, to a JSON file that
the page reads (about 6 minutes).
"""
from __future__ import annotations

import argparse
import dataclasses
import time

import numpy as np

from lib.chapters.aot_memorization import theory as aot
from lib.chapters.aot_memorization.theory import assoc
from lib.chapters.aot_memorization import train as AT
from lib.core import params, repro


def timed(label, fn):
    t0 = time.perf_counter()
    out = fn()
    print(f"{label:45s} {time.perf_counter() - t0:7.2f} s")
    return out


def measure_costs(path: str) -> None:
    """The CPU-hours of every grid of :mod:`lib.chapters.aot_memorization.evidence`, written to ``path``."""
    import datetime
    import json
    import platform

    import torch

    from lib.chapters.aot_memorization import evidence as costs
    torch.set_num_threads(1)
    grids = (costs.exp5_grids(params.load("aot-memorization").resolve("paper")) + [costs.v1_grid()]
             + costs.appendix_b2_grids() + costs.appendix_b1_grids())
    out = {"date": datetime.date.today().isoformat(), "machine": platform.processor() or platform.machine(),
           "torch": torch.__version__, "threads": 1, "grids": {}}
    for g in grids:
        h = timed(f"cost of {g.name}", lambda g=g: costs.grid_hours(g))
        out["grids"][g.name] = dict(N=g.N, models=len(g.configs) * g.reps, seeds=g.reps, steps=g.recipe.steps,
                                    batch=g.recipe.batch, cpu_hours=h)
        print(f"  {g.name}: {h:.2f} CPU-hours")
        with open(path, "w") as fh:                  # after every grid: an interrupted run keeps what it measured
            json.dump(out, fh, indent=1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="book")
    ap.add_argument("--paper-point", action="store_true")
    ap.add_argument("--skip-training", action="store_true")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--costs", default=None, help="measure the grids of lib.chapters.aot_memorization.evidence into this JSON")
    a = ap.parse_args()
    if a.costs:
        measure_costs(a.costs)
        return
    repro.setup(0, a.device, quiet=True)
    P = params.load("aot-memorization").resolve(a.preset)
    rng = np.random.default_rng(0)
    cfg = lambda g: list(g.values())            # a record of the grid, its fields in the spec's order
    t_all = time.perf_counter()
    timed("Lemma 2 ranks", lambda: [aot.lemma2_rank(*cfg(s), rng) for s in P["lemma2_grid"] for _ in range(P["lemma2_draws"])])
    timed("Corollary 1 constructions", lambda: [aot.association_check(*cfg(s), rng) for s in P["construct_grid"] + P["negative_grid"]])
    N0, S0, d0, dh0, _ = cfg(P["construct_grid"][0])
    timed("controls (one head short; W_QK = 0)", lambda: (
        aot.association_check(N0, S0, d0, dh0, aot.heads_short_of(N0, S0, d0, dh0), rng),
        [aot.lemma2_rank(*cfg(s), rng, qk_scale=0.0) for s in P["lemma2_grid"]]))
    w, Pm = aot.full_support_task(P["dist_N"], 2, rng)
    timed("Prop. 2 encoders (all d)", lambda: [aot.best_encoder(w, Pm, d, restarts=P["dist_restarts"]) for d in range(1, P["dist_N"] - 1)])
    timed("Theorem 2", lambda: [aot.theorem2_check(*cfg(s), rng) for s in P["thm2_grid"]])
    rate = timed("engine calibration", lambda: AT.calibrate(a.device))
    print(f"engine rate: {rate / 1e9:.2f} GFLOP/s")
    timed("H = 0 circle vs associative memory", lambda: [assoc.last_token_accuracy(assoc.circle_skip_aot(g), g)
                                                        for g in rng.integers(0, 50, (5, 50))])
    if not a.skip_training:
        timed(f"all training at preset {a.preset}", lambda: AT.run_plan(P, device=a.device))
        timed("App. B.2 at a small scale (depth grid)", lambda: AT.depth_grid(
            P["train_N"], P["depth_d"], P["depth_H"], (1, P["depth_L"]), P["reps"],
            dataclasses.asdict(AT.plan(P)["exp1"]["recipe"]), P["data_seed"], device=a.device))
    print(f"{'total':45s} {time.perf_counter() - t_all:7.2f} s")
    if a.paper_point:
        R = AT.Recipe()   # the official v2 recipe: 4096 steps of batch 256
        t0 = time.perf_counter()
        AT.train_points([dict(variant="official", N=50, d=10, dh=10, H=31, rep=0)], lambda p, r: None,
                        dataclasses.asdict(R), 2222, device=a.device)
        dt = time.perf_counter() - t0
        g = dict(N=50, configs=[(10, 10, 31)], reps=1, recipe=R, variant="official", mlp=False)
        Pp = params.load("aot-memorization").resolve("paper")
        tot = sum(AT.plan_flops(x) for x in AT.plan(Pp).values())
        print(f"one paper sweep point (N=50, d=d_h=10, H=31, 4096 steps): {dt:.1f} s; "
              f"paper preset ~{tot / AT.plan_flops(g) * dt / 3600:.1f} h at the same rate (by FLOPs)")


if __name__ == "__main__":
    main()
