"""Time the hot parts of the softmax-vs-linear chapter at a preset (default: book).

    .venv/bin/python benchmarks/softmax-vs-linear.py [--preset book] [--threads 1 2]

Reports, per thread count: the Monte-Carlo sweeps of Figs 3/4/5/7 (every point of the preset), the
counter-check, the signed-X counterexample, the dynamic-range bisections and the learned comparison. The research note found two
BLAS/intra-op threads about 10x slower than one at large n on the 2-core build machines (oversubscription
on small matmuls); this script measures it on the machine at hand (one n = 480 point per thread count).
"""
from __future__ import annotations

import argparse
import math
import time

import torch

from lib.chapters.softmax_vs_linear import theory as sl_theory
from lib.chapters.softmax_vs_linear import train as sl_train
from lib.chapters.softmax_vs_linear.theory import montecarlo as sl_mc
from lib.core import params


def timed(label: str, fn) -> float:
    t0 = time.perf_counter()
    fn()
    dt = time.perf_counter() - t0
    print(f"  {label:44s} {dt:7.1f} s", flush=True)
    return dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--preset", default="book")
    ap.add_argument("--threads", type=int, nargs="+", default=[1])
    a = ap.parse_args()
    P = params.load("softmax-vs-linear").resolve(a.preset)
    sl_theory.check_params(P)
    R = P["reps"]

    for th in a.threads:
        torch.set_num_threads(th)
        print(f"threads = {th}, preset = {a.preset}, reps = {R}")
        timed("one self-D point at n = 480 (thread check)",
              lambda: sl_mc.mc_pairs("self-D", 480, 6, math.log(480) + 3, 40, 2.5, R, 0))
    torch.set_num_threads(a.threads[0])
    total = 0.0
    toy = dict(n=P["toy_n0"], m=P["toy_m0"], tau=P["toy_tau"], b_offset=P["toy_b_offset"])
    total += timed("Fig 3 (toy, two sweeps)", lambda: [sl_mc.toy_panel("n", P["toy_n"], toy, R, 0),
                                                       sl_mc.toy_panel("m", P["toy_m"], toy, R, 1)])
    for construction, pre, size in (("self-D", "self", "k"), ("self-E", "self", "k"), ("cross", "cross", "d")):
        base = dict(n=P[f"{pre}_n0"], k=(P["self_k0"] if pre == "self" else P["cross_d0"] - 1), m=P[f"{pre}_m0"],
                    tau=P[f"{pre}_tau0"], b_offset=P[f"{pre}_b_offset"])
        sweeps = [("n", P[f"{pre}_n"]), (size, P[f"{pre}_{size}"]), ("b", P[f"{pre}_b"]), ("m", P[f"{pre}_m"]),
                  ("tau", P[f"{pre}_tau"])]
        total += timed(f"{construction} (five sweeps)",
                       lambda: [sl_mc.run_panel(construction, k, g, base, R, 0) for k, g in sweeps])
    kc = P["cross_d0"] - 1

    def counter():
        for n in P["counter_n"]:
            for inv in P["counter_inv_eps"]:
                X = torch.diag(torch.tensor([1.0] + [1.0 / inv] * kc, dtype=torch.float64))
                sl_mc.mc_pairs("cross", n, kc, 0.0, P["cross_m0"], P["cross_tau0"], R, 0, X=X, kinds=("linear", "linear"))
    total += timed("counter-check", counter)

    def signed():
        for con, k, m, tau in (("self-D", P["self_k0"], P["self_m0"], P["self_tau0"]),
                               ("cross", kc, P["cross_m0"], P["cross_tau0"])):
            for X in (sl_theory.X_signed(con, k), None):     # the signed X, and the control (the paper's X)
                for n in P["signed_n"]:
                    sl_mc.mc_pairs(con, n, k, 1.0, m, tau, R, 0, X=X, kinds=("linear",))
    total += timed("signed-X counterexample (with its control)", signed)
    total += timed("dynamic range (bisections)", lambda: [
        (sl_theory.min_scale(n, kc, "softmax", P["cross_tau0"], 0.0, 60.0, log=False),
         sl_theory.min_scale(n, kc, "linear", P["cross_tau0"], 1.0, 1e12, log=True)) for n in P["dyn_n"]])
    total += timed("learned comparison (the grid, one train_needle_grid per n)", lambda: [
        sl_train.train_needle_grid([(kind, lr) for kind in ("softmax", "linear") for lr in P["learn_lrs"]], n,
                                   seeds=P["learn_seeds"], steps=P["learn_steps"], batch=P["learn_batch"],
                                   sigma=P["learn_sigma"], seed=n)
        for n in P["learn_n"]])
    print(f"  {'total of the hot parts':44s} {total:7.1f} s")


if __name__ == "__main__":
    main()
