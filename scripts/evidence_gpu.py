"""Run GPU evidence sweeps inside a lease of limited length (the device machine's commands stop at 10 minutes).

    python scripts/evidence_gpu.py --deadline 500 --out DIR CHAPTER SWEEP[:PARAM=V1,V2[;PARAM=...]] ...

Each sweep runs as its own ``python -m lib evidence CHAPTER SWEEP --where ...`` process (``--workers`` one-thread
processes each, all sharing the GPU); at the deadline the runs are stopped (a stored point is never lost; a model
still training is). Then, for each sweep, the trajectory prefix of its declared verification units is recorded
on this machine (the reference the CPU replays, :mod:`lib.book.migrate`), and the sweep's folder is packed into
``DIR/<sweep>.tgz`` to be unpacked into ``book/evidence/<chapter>/`` on the machine that commits it.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tarfile
import time


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("chapter")
    ap.add_argument("sweeps", nargs="+")
    ap.add_argument("--deadline", type=float, default=500)
    ap.add_argument("--workers", default="16", help="workers per sweep, comma-separated in the sweeps' order")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    from lib.book import evidence as EV
    from lib.book import migrate
    workers = a.workers.split(",")
    procs = []
    for i, spec in enumerate(a.sweeps):
        name, _, where = spec.partition(":")
        cmd = [sys.executable, "-m", "lib", "evidence", a.chapter, name, "--quiet",
               "--workers", workers[min(i, len(workers) - 1)]]
        for w in filter(None, where.split(";")):
            cmd += ["--where", w]
        procs.append((name, subprocess.Popen(cmd, start_new_session=True)))
    t0 = time.time()
    while any(p.poll() is None for _, p in procs) and time.time() - t0 < a.deadline:
        time.sleep(2)
    for name, p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            print(f"{name}: stopped at the deadline", flush=True)
    os.makedirs(a.out, exist_ok=True)
    for name, _ in procs:
        sw, man = EV.sweeps(a.chapter)[name], EV.read_manifest(a.chapter, name)
        if man is not None and "trajectories" not in man:
            recs = migrate.record(sw)
            if recs:
                man["trajectories"] = recs
                EV._write_manifest(man, a.chapter, name)
        n = len(list(EV.points_dir(a.chapter, name).glob("*.json")))
        print(f"{name}: {n} points stored, trajectories: {len((man or {}).get('trajectories', []))}", flush=True)
        with tarfile.open(os.path.join(a.out, f"{name}.tgz"), "w:gz") as tar:
            tar.add(EV.folder(a.chapter, name), arcname=name, filter=lambda t: None if ".progress" in t.name else t)


if __name__ == "__main__":
    main()
