"""Provenance of a stored evidence run (:mod:`lib.book.evidence`): the machine (commit, library versions, CPU model
and a hash of its instruction-set flags, the GPU where one is present), its float32 GEMM peak, and the throughput of
each model family against it.
"""
from __future__ import annotations

import datetime
import hashlib
import json
import os
import platform
import subprocess
import time
from pathlib import Path

from lib.core import codehash


def machine() -> dict:
    """git commit, library versions, CPU model, date; the GPU and CUDA version where one is present."""
    import numpy
    import torch
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=codehash.ROOT, capture_output=True,
                                text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    gpu = {"gpu": torch.cuda.get_device_name(), "cuda": torch.version.cuda} if torch.cuda.is_available() else {}
    return {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), "commit": commit,
            "torch": torch.__version__, "numpy": numpy.__version__, "cpu": cpu, "cpu_kind": cpu_kind(cpu),
            "cores": os.cpu_count(), "python": platform.python_version(), **gpu}


def uncommitted_evidence(chapters: list[str] | None = None) -> list[str]:
    """The paths under ``book/evidence/`` (of ``chapters``; default all) that git does not have as committed (new or
    edited stored runs, e.g. a sweep in progress): a page or statistics generated here reads them, one generated
    from a clean clone does not. [] outside a git checkout."""
    where = [f"book/evidence/{c}" for c in chapters] if chapters is not None else ["book/evidence"]
    try:
        r = subprocess.run(["git", "status", "--porcelain", "--untracked-files=normal", "--", *where],
                           cwd=codehash.ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return []
    return [line[3:] for line in r.stdout.splitlines()] if r.returncode == 0 else []


def cpu_kind(cpu: str) -> str:
    """The CPU model and a hash of its instruction-set flags: two machines of one kind round alike (a model name
    alone does not tell: two "AMD EPYC" hosts here re-train the same small model differently)."""
    flags = ""
    try:
        flags = next((ln.split(":", 1)[1] for ln in Path("/proc/cpuinfo").read_text().splitlines()
                      if ln.startswith("flags")), "")
    except OSError:
        pass
    return f"{cpu} [{hashlib.sha256(' '.join(sorted(flags.split())).encode()).hexdigest()[:8]}]"


def gemm_peak(n: int = 1024, reps: int = 5) -> dict:
    """This machine's float32 GEMM rate on one torch thread (best of ``reps`` n×n×n products)."""
    import torch
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    a, b = torch.randn(n, n), torch.randn(n, n)
    a @ b
    best = min(_timed(lambda: a @ b) for _ in range(reps))
    torch.set_num_threads(old)
    return {"gflops": 2 * n ** 3 / best / 1e9, "what": f"{n}x{n}x{n} float32 GEMM, one thread, best of {reps}"}


def reference_peak() -> dict | None:
    """The float32 GEMM peak measured on a quiet machine by ``benchmarks/sweep.py`` (its provenance kept)."""
    f = codehash.ROOT / "benchmarks" / "results" / "sweep-cpu-grids.json"
    try:
        d = json.loads(f.read_text())
    except (OSError, ValueError):
        return None
    return {"gflops": d["peak_gflops"], "what": d.get("peak_what", ""), "source": str(f.relative_to(codehash.ROOT)),
            "load_before": d.get("load_before")}


def _timed(f) -> float:
    t0 = time.perf_counter()
    f()
    return time.perf_counter() - t0


def throughput(rows: list[dict], peak_gflops: float | None) -> dict[str, dict]:
    """Per model family: model-steps/s and GFLOP/s per CPU-second, and the fraction of the CPU's GEMM peak (the
    reference peak measured on a quiet machine when there is one: the run's own is measured under load). Points
    trained on a GPU are timed by their wall-clock share (``wall_s``) and have no CPU peak fraction."""
    fams: dict[str, list[float]] = {}
    for r in rows:
        f = fams.setdefault(r.get("family", "?"), [0.0, 0.0, 0.0, 0.0])
        f[0] += r.get("steps", 0)
        f[1] += r.get("steps", 0) * r.get("flops_per_step", 0.0)
        f[2] += r.get("wall_s", r.get("cpu_s", 0.0))
        f[3] += "wall_s" in r
    out = {}
    for k, (steps, fl, sec, on_gpu) in sorted(fams.items()):
        g = fl / max(sec, 1e-12) / 1e9
        out[k] = {"model_steps_per_s": round(steps / max(sec, 1e-12), 1), "gflops": round(g, 2),
                  "peak_fraction": round(g / peak_gflops, 3) if peak_gflops and not on_gpu else None,
                  ("wall_s" if on_gpu else "cpu_s"): round(sec, 1)}
    return out
