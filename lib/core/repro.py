"""Determinism, threads and devices: one call at the top of every chapter.

``setup(seed, device)`` seeds Python, NumPy and PyTorch, turns on deterministic algorithms, sets the
number of intra-op threads explicitly, and resolves ``device`` ('cpu' | 'cuda' | 'auto'), saying what
it picked. ``run_info()`` at the end of a chapter prints where and how long it ran.

Threads: the models in this book are tiny (matrices of a few dozen rows). On the 2-core build machines
one intra-op thread runs them several times faster than two (thread start-up and synchronisation cost
more than the arithmetic), so the default is 1 for PyTorch and for NumPy's BLAS alike;
``benchmarks/threads.py`` measures it (1 thread was 2-5x faster than 2 on every case tried).
"""
from __future__ import annotations

import os
import platform
import random
import time
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:      # torch is imported lazily: `python -m lib` validates parameters without it
    import torch

DEFAULT_THREADS = 1
_STARTED: dict[str, Any] = {}


def seed_everything(seed: int) -> None:
    """Seed python's ``random``, NumPy's global generator and PyTorch (CPU and CUDA)."""
    import torch
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def resolve_device(device: str = "auto") -> "torch.device":
    """'cpu' | 'cuda' | 'auto' (cuda when available) -> torch.device; errors name the parameter."""
    import torch
    if device not in ("cpu", "cuda", "auto"):
        raise ValueError(f"parameter 'device' = {device!r} is invalid: expected one of 'cpu', 'cuda', 'auto'")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("parameter 'device' = 'cuda' but no CUDA device is available: use 'cpu' or 'auto'")
    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    return torch.device(device)


def setup(seed: int = 0, device: str = "auto", threads: int | None = None, quiet: bool = False) -> "torch.device":
    """Seed everything, make algorithms deterministic, set threads, pick the device; return it."""
    import torch
    threads = int(os.environ.get("ATR_THREADS", threads or DEFAULT_THREADS))
    torch.set_num_threads(threads)
    from threadpoolctl import threadpool_limits
    threadpool_limits(limits=threads)      # NumPy/SciPy BLAS too: small SVDs/QRs were ~18x faster on 1 thread
    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.use_deterministic_algorithms(True, warn_only=True)
    seed_everything(seed)
    dev = resolve_device(device)
    _STARTED.update(t0=time.perf_counter(), device=dev, threads=threads, seed=seed)
    if not quiet:
        print(f"device: {describe(dev)}; torch threads: {threads}; seed: {seed}")
    return dev


def describe(dev: "torch.device") -> str:
    """A one-line description of a device (GPU name, or CPU model)."""
    import torch
    if dev.type == "cuda":
        return f"cuda ({torch.cuda.get_device_name(dev)})"
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return f"cpu ({cpu}, {os.cpu_count()} cores)"


def versions() -> dict[str, str]:
    """Versions of the packages that decide the numbers."""
    import matplotlib
    import torch
    return {"python": platform.python_version(), "torch": torch.__version__, "numpy": np.__version__,
            "matplotlib": matplotlib.__version__}


def run_info() -> None:
    """Print where the chapter ran and how long it took (an unchecked cell: it varies by machine)."""
    dev = _STARTED.get("device")
    elapsed = time.perf_counter() - _STARTED["t0"] if "t0" in _STARTED else float("nan")
    v = ", ".join(f"{k} {x}" for k, x in versions().items())
    print(f"ran on {describe(dev) if dev is not None else 'unknown device'} with "
          f"{_STARTED.get('threads')} torch thread(s) in {elapsed:.1f} s; {v}")


def seed_hash(*parts: object) -> int:
    """A stable 31-bit seed from any printable parts (Python's ``hash()`` of strings is salted per process):
    the CRC-32 of their ``repr``. The one seed hash of the project."""
    import zlib
    return zlib.crc32(repr(parts).encode()) & 0x7FFFFFFF
