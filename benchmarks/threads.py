"""1 vs 2 torch intra-op threads for the book's small models (sets lib.core.repro.DEFAULT_THREADS).

Times training steps of lib.engine.train.train_family (wall clock: threads only help wall time) for small
and large families of the two memorization chapters, alternating the thread count between repetitions
so that both see the same background load, and prints the median step time for each. The load
average is printed before and after: on a shared 2-core machine other jobs compete for the second core.

    .venv/bin/python benchmarks/threads.py [--reps 3] [--steps 30]
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

from lib.chapters.aot_memorization import model as aot_model
from lib.chapters.mha_memorization import model as mha_model
from lib.engine import train as T


def step_time(fam, data, seeds, steps: int, B: int) -> float:
    T._PROGRESS_EVERY = 1
    ts = []
    T.train_family(fam, data, seeds=seeds, steps=steps + 3, batch_size=B, progress=lambda n: ts.append(time.perf_counter()))
    return statistics.median(b - a for a, b in zip(ts[2:], ts[3:], strict=False))


def cases():
    out = []
    for G in (1, 8):
        fam = mha_model.MHAMemorization(d=32, n=16, H=4, n_classes=100)
        out.append((f"MHA d=32 n=16 H=4 (book-size), G={G}", fam, mha_model.mha_data(fam, [600] * G, list(range(G))), G))
    fam = mha_model.MHAMemorization(d=64, n=32, H=20)
    out.append(("MHA d=64 n=32 H=20 (paper-size), G=8", fam, mha_model.mha_data(fam, [2000] * 8, list(range(8))), 8))
    for G in (1, 32):
        fam = aot_model.AoTMemorization(N=50, S=2, d=10, dh=10, H=16, variant="official")
        out.append((f"AoT N=50 d=dh=10 H=16, G={G}", fam, aot_model.aot_data(fam, 16384, list(range(G))), G))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--steps", type=int, default=20)
    a = ap.parse_args(argv)
    l0 = os.getloadavg()
    print(f"# torch {torch.__version__}, {os.cpu_count()} cores; load average before: {l0[0]:.2f} {l0[1]:.2f} {l0[2]:.2f}")
    for name, fam, data, G in cases():
        res = {1: [], 2: []}
        for _ in range(a.reps):
            for th in (1, 2):
                torch.set_num_threads(th)
                res[th].append(step_time(fam, data, list(range(G)), a.steps, 256))
        t1, t2 = min(res[1]), min(res[2])
        print(f"{name}: 1 thread {t1 * 1e3:.2f} ms/step, 2 threads {t2 * 1e3:.2f} ms/step "
              f"-> 2 threads are x{t1 / t2:.2f} as fast", flush=True)
    l1 = os.getloadavg()
    print(f"load average after: {l1[0]:.2f} {l1[1]:.2f} {l1[2]:.2f}")


if __name__ == "__main__":
    main()
