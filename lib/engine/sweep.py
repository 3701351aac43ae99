"""Sweeps: a grid of small-model trainings, run in batched families, stored point by point, resumable.

A chapter declares its grid, writes one *training function* in its own lib module, and calls
:func:`run`. Points are grouped into *work units* (points that share an architecture, so that one
:func:`lib.engine.train.train_family` call trains them together), the units go through an executor, and
every finished point is written to disk atomically as soon as it finishes. Rerunning the same sweep
after an interruption skips the finished points and loses nothing.

Example (in a chapter package, e.g. ``lib/chapters/mha_memorization/``; the training function must live in an importable module, not in the
notebook, because worker processes import it)::

    from lib.chapters.mha_memorization import model as mha_model
    from lib.engine import sweep
    from lib.engine import train

    def train_points(points, report):
        '''All points share H (group_by); they differ in T and seed.'''
        fam = mha_model.MHAMemorization(d=64, n=32, H=points[0]["H"])
        sizes = [p["T"] for p in points]
        seeds = [p["seed"] for p in points]
        data = mha_model.mha_data(fam, sizes, seeds=[p["data_seed"] for p in points])
        steps = [max(500 * T // 256, 50_000) for T in sizes]
        train.train_family(fam, data, seeds=seeds, steps=steps, lr=1e-3, schedule="warmup_cosine",
                           early_stop_acc=1.0, eval_every=500,
                           on_model_done=lambda g, r: report(points[g], r),   # written at once
                           progress=report.progress)                         # live steps/s

    # in the notebook
    points = sweep.grid(H=[1, 5, 10, 20], T=[1000, 2000], seed=[0, 1], data_seed=[42])
    rows = sweep.run(mha.train_points, points, name="fig2a", group_by=["H"],
                     config={"steps": "official"}, workers=2)
    # rows[i] is {**result, **points[i]}: e.g. rows[i]["best_acc"], rows[i]["H"]

Where results go: ``run_dir`` if given, else ``$ATR_RUN_DIR/sweeps`` (``python -m lib run`` sets it
to the run's folder, so a rerun of the same folder resumes), else a temporary folder that is deleted
at exit (a plain execution, e.g. the regression tests, always recomputes). Inside it, a sweep lives
in ``<name>-<fingerprint>/``, the fingerprint (:func:`fingerprint`) hashing ``config`` and every definition
reachable from the training function (docstrings and comments left out): results of other code or settings
are never reused.
Each point is one JSON file ``<key>.json`` (``key`` = hash of the point's canonical JSON), written
to a temporary name and renamed (``os.replace``), so a killed run leaves only whole files.

Executors (the ``executor`` argument; :mod:`lib.engine.executors`): ``"process"`` (default: ``concurrent.futures``
``ProcessPoolExecutor`` with ``workers`` processes, spawn start method, one torch thread each),
``"inline"`` (this process, sequentially, with ``threads`` torch threads during the sweep: simplest,
and what ``workers=1`` means),
``"submitit"`` (`submitit <https://github.com/facebookincubator/submitit>`_, the SLURM launcher used
in ML research; ``cluster="local"`` runs the jobs as local subprocesses, ``cluster="debug"`` in this
process, ``cluster=None`` auto-detects SLURM; ``executor_params`` go to ``update_parameters``, e.g.
``{"slurm_partition": "gpu", "gpus_per_node": 1, "timeout_min": 120}``), or any object with a
``submit(fn, *args)`` method returning futures/jobs with ``result()`` and ``done()`` (a Dask
``distributed.Client``, a Ray pool wrapper, ...). All units write into the same store, so the file
system must be shared (as on any SLURM cluster).

Progress: a bar with points done / total, model-steps per second and ETA, on stderr; quiet when
``quiet=True`` or when the environment has ``ATR_QUIET=1``, ``NBVAL`` or ``PYTEST_CURRENT_TEST``
(regression tests).

Work units: points with equal ``group_by`` values, at most ``max_family`` per unit. Models of
different sizes go in different units: grouping measured faster than zero-padding to the largest size
for large models (``benchmarks/sweep.py``: MHA d=64 H ∈ {1,5,10,20} × 8 seeds, one grid step 61.0 ms
grouped vs 108.5 ms padded); for tiny models the two are within 5% (AoT d=10
H ∈ {1,6,11,16} × 8 seeds: 22.8 vs 23.9 ms), so a chapter may zero-pad those into one family
(``lib/chapters/aot_memorization/train.py`` does). To keep ``workers`` processes busy, units are also split so that there are at
least ``workers`` of them when possible.
"""
from __future__ import annotations

import atexit
import concurrent.futures as cf
import hashlib
import importlib
import inspect
import itertools
import json
import math
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from lib.core import reachable
from lib.engine.executors import Bar, is_quiet, make_executor

__all__ = ["grid", "point_key", "Store", "Reporter", "run", "sweep_dir", "is_quiet", "units"]



# ----------------------------------------------------------------------------------------------
# grids and keys
# ----------------------------------------------------------------------------------------------
def grid(**lists: Iterable) -> list[dict]:
    """The Cartesian product of parameter lists, as a list of point dicts (last key varies fastest).
    A scalar is a one-value list. ``grid(H=[1, 2], seed=[0, 1])`` -> 4 points."""
    keys = list(lists)
    vals = [list(v) if isinstance(v, (list, tuple, range)) else [v] for v in lists.values()]
    return [dict(zip(keys, combo, strict=False)) for combo in itertools.product(*vals)]


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def point_key(point: Mapping[str, Any]) -> str:
    """A stable file-name-safe key of a point (hash of its canonical JSON)."""
    return hashlib.sha1(_canon(dict(point)).encode()).hexdigest()[:20]


def _fn_ref(fn: Callable) -> tuple[str, str, str]:
    """(module, qualname, the folder to put on sys.path so that a fresh process can import it)."""
    mod, name = fn.__module__, fn.__qualname__
    if mod in ("__main__", "__mp_main__") or "<locals>" in name or "<lambda>" in name:
        raise ValueError(f"the training function {name!r} must be a top-level function of an importable "
                         f"module (e.g. lib/<chapter>.py), not defined in a notebook or script")
    try:
        root = str(Path(inspect.getsourcefile(fn)).resolve().parents[mod.count(".")])
    except (TypeError, IndexError):
        root = ""
    return mod, name, root


def _resolve(ref: tuple[str, str, str]) -> Callable:
    if ref[2] and ref[2] not in sys.path:
        sys.path.append(ref[2])
    obj: Any = importlib.import_module(ref[0])
    for part in ref[1].split("."):
        obj = getattr(obj, part)
    return obj


def fingerprint(fn: Callable | None, config: Mapping[str, Any] | None) -> str:
    """Hash of the sweep's settings and code: ``config``, and the hash of every definition reachable from ``fn``
    (:func:`lib.core.reachable.definitions`: the functions, classes and constants it runs, without docstrings
    and comments)."""
    h = hashlib.sha256(_canon(dict(config or {})).encode())
    if fn is not None:
        h.update(reachable.definitions_hash(reachable.definitions(fn)).encode())
    return h.hexdigest()[:12]


def seal(point: Mapping, result: Mapping) -> dict:
    """``result`` with a ``digest`` of the point and the result (a hand edit then shows)."""
    body = _jsonable({k: v for k, v in result.items() if k != "digest"})
    d = hashlib.sha256(json.dumps({"point": dict(point), "result": body}, sort_keys=True,
                                  separators=(",", ":")).encode()).hexdigest()[:16]
    return dict(body, digest=d)


# ----------------------------------------------------------------------------------------------
# the results store
# ----------------------------------------------------------------------------------------------
class Store:
    """One JSON file per finished point under ``folder``; writes are atomic (temp file + rename)."""

    def __init__(self, folder: str | os.PathLike, sealed: bool = False):
        self.folder, self.sealed = Path(folder), sealed         # sealed: each result carries its digest
        self.folder.mkdir(parents=True, exist_ok=True)

    def path(self, point: Mapping) -> Path:
        return self.folder / f"{point_key(point)}.json"

    def put(self, point: Mapping, result: Mapping) -> None:
        result = seal(point, result) if self.sealed else _jsonable(result)
        rec = {"point": dict(point), "result": result, "written": time.time(), "pid": os.getpid()}
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=self.folder)
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(rec, f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self.path(point))
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def get(self, point: Mapping) -> dict | None:
        try:
            rec = json.loads(self.path(point).read_text())
        except (OSError, ValueError):
            return None
        return rec if rec.get("point") == json.loads(_canon(dict(point))) else None

    def has(self, point: Mapping) -> bool:
        return self.get(point) is not None

    def keys(self) -> set[str]:
        return {p.stem for p in self.folder.glob("*.json") if not p.name.startswith(".")}

    def records(self) -> list[dict]:
        out = []
        for p in sorted(self.folder.glob("*.json")):
            if not p.name.startswith("."):
                try:
                    out.append(json.loads(p.read_text()))
                except (OSError, ValueError):
                    pass
        return out


def _jsonable(x: Any) -> Any:
    """Results to JSON: tensors and arrays become lists, non-finite floats stay (JSON NaN/Infinity)."""
    try:
        import numpy as np
        import torch
        if isinstance(x, torch.Tensor):
            return x.detach().cpu().tolist()
        if isinstance(x, np.ndarray):
            return x.tolist()
        if isinstance(x, np.generic):
            return x.item()
    except ImportError:
        pass
    if isinstance(x, Mapping):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    return x


# ----------------------------------------------------------------------------------------------
# the worker side
# ----------------------------------------------------------------------------------------------
class Reporter:
    """What a training function receives: ``report(point, result)`` writes a finished point;
    ``report.progress(n)`` counts ``n`` model-steps done (for the bar's steps/s; pass it to
    ``train_family(progress=...)``)."""

    def __init__(self, store: Store, unit_id: str, heartbeat: Path | None, beat_cb: Callable | None = None):
        self.store, self.unit_id, self.heartbeat, self.beat_cb = store, unit_id, heartbeat, beat_cb
        self.written: set[str] = set()
        self.steps = 0
        self._last = 0.0

    def __call__(self, point: Mapping, result: Mapping) -> None:
        self.store.put(point, result)
        self.written.add(point_key(point))
        self._beat(force=True)

    def progress(self, n: int) -> None:
        self.steps += int(n)
        self._beat()

    def _beat(self, force: bool = False) -> None:
        now = time.time()
        if self.heartbeat is None or (not force and now - self._last < 1.0):
            return
        self._last = now
        tmp = self.heartbeat.with_suffix(f".tmp{os.getpid()}")
        try:
            tmp.write_text(json.dumps({"steps": self.steps, "t": now}))
            os.replace(tmp, self.heartbeat)
        except OSError:
            pass
        if self.beat_cb is not None:
            self.beat_cb()


def _run_unit(ref: tuple[str, str, str], points: list[dict], folder: str, unit_id: str,
              threads: int | None = 1, kwargs: dict | None = None, beat_cb: Callable | None = None,
              sealed: bool = False) -> int:
    """Execute one work unit (in a worker): train its points, write each as it finishes."""
    if threads:
        import torch
        torch.set_num_threads(int(threads))
    fn = _resolve(ref)
    store = Store(folder, sealed)
    hb = Path(folder) / ".progress"
    hb.mkdir(exist_ok=True)
    rep = Reporter(store, unit_id, hb / f"{unit_id}.json", beat_cb)
    out = fn(points, rep, **(kwargs or {}))
    if out is not None:                       # a training function may also return results in order
        for p, r in zip(points, out, strict=False):
            if point_key(p) not in rep.written:
                rep(p, r)
    missing = [p for p in points if not store.has(p)]
    if missing:
        raise RuntimeError(f"unit {unit_id}: the training function reported no result for {len(missing)} "
                           f"point(s), e.g. {missing[0]}")
    return len(points)


# ----------------------------------------------------------------------------------------------
# the driver side
# ----------------------------------------------------------------------------------------------
_TEMP_DIRS: list[str] = []


def _cleanup_temp() -> None:
    for d in _TEMP_DIRS:
        shutil.rmtree(d, ignore_errors=True)


atexit.register(_cleanup_temp)


def sweep_dir(name: str, fn: Callable | None = None, config: Mapping | None = None,
              run_dir: str | os.PathLike | None = None) -> Path:
    """The folder of sweep ``name`` (module docstring: ``run_dir``, ``$ATR_RUN_DIR/sweeps`` or temp)."""
    if run_dir is None:
        env = os.environ.get("ATR_RUN_DIR")
        if env:
            run_dir = Path(env) / "sweeps"
        else:
            run_dir = tempfile.mkdtemp(prefix="atr-sweep-")
            _TEMP_DIRS.append(str(run_dir))
    return Path(run_dir) / f"{name}-{fingerprint(fn, config)}"


def units(points: Sequence[dict], group_by: Sequence[str] = (), max_family: int = 64,
          min_units: int = 1) -> list[list[dict]]:
    """Group points by their ``group_by`` values (first-seen order), split into units of at most
    ``max_family`` points, and split further (evenly) until there are ``min_units`` units when the
    points allow it."""
    groups: dict[tuple, list[dict]] = {}
    for p in points:
        groups.setdefault(tuple(_canon(p.get(k)) for k in group_by), []).append(p)
    parts = []
    for g in groups.values():
        k = math.ceil(len(g) / max_family)
        parts.append([g, k])
    while sum(k for _, k in parts) < min_units:
        cand = [i for i, (g, k) in enumerate(parts) if k < len(g)]
        if not cand:
            break
        i = max(cand, key=lambda i: len(parts[i][0]) / parts[i][1])
        parts[i][1] += 1
    out = []
    for g, k in parts:
        size = math.ceil(len(g) / k)
        out.extend(g[i:i + size] for i in range(0, len(g), size))
    return out


def run(fn: Callable, points: Sequence[Mapping[str, Any]], *, name: str = "sweep", group_by: Sequence[str] = (),
        config: Mapping[str, Any] | None = None, run_dir: str | os.PathLike | None = None,
        executor: Any = "process", workers: int = 2, max_family: int = 64, threads: int | None = 1,
        cluster: str | None = "local", executor_params: Mapping | None = None, fn_kwargs: Mapping | None = None,
        quiet: bool | None = None, desc: str | None = None, poll_s: float = 0.5, folder: str | os.PathLike | None = None,
        sealed: bool = False) -> list[dict]:
    """Run ``fn`` over ``points`` (module docstring) and return, in the order of ``points``,
    ``{**result, **point}`` for every point. Already-finished points (same folder) are skipped.
    ``fn(points, report, **fn_kwargs)`` trains a unit; ``config`` is hashed into the folder name, unless
    ``folder`` names the store's folder itself (the evidence store, whose manifest keeps the fingerprint).
    ``sealed``: every result is written with its digest (:func:`seal`)."""
    points = [dict(p) for p in points]
    keys = [point_key(p) for p in points]
    if len(set(keys)) != len(keys):
        raise ValueError("the sweep has duplicate points: add a distinguishing parameter (e.g. seed)")
    ref = _fn_ref(fn)
    folder = Path(folder) if folder is not None else sweep_dir(name, fn, config, run_dir)
    store = Store(folder, sealed)
    shutil.rmtree(folder / ".progress", ignore_errors=True)
    (folder / ".progress").mkdir(exist_ok=True)
    todo = [p for p in points if not store.has(p)]
    us = units(todo, group_by, max_family, min_units=max(1, workers if executor == "process" else 1))
    kind, ex = make_executor(executor, workers, folder, cluster, executor_params)
    bar = Bar(set(keys), len(points) - len(todo), desc or name, quiet, folder)
    try:
        if kind == "inline":
            import torch
            old_threads = torch.get_num_threads()
            if threads:
                torch.set_num_threads(int(threads))
            for i, u in enumerate(us):
                uid = f"u{i:04d}-{point_key(u[0])[:8]}"
                _run_unit(ref, u, str(folder), uid, None, dict(fn_kwargs or {}), lambda: bar.update(store), sealed)
                bar.update(store)
            torch.set_num_threads(old_threads)
        else:
            futs = []
            for i, u in enumerate(us):
                uid = f"u{i:04d}-{point_key(u[0])[:8]}"
                futs.append(ex.submit(_run_unit, ref, u, str(folder), uid, threads, dict(fn_kwargs or {}), None,
                                      sealed))
            pending = list(futs)
            while pending:
                if kind == "futures":
                    _, nd = cf.wait(pending, timeout=poll_s, return_when=cf.FIRST_COMPLETED)
                    done_now = [f for f in pending if f not in nd]
                else:
                    time.sleep(poll_s)
                    done_now = [f for f in pending if f.done()]
                for f in done_now:
                    f.result()                     # re-raise a worker's error here
                    pending.remove(f)
                bar.update(store)
    finally:
        if kind == "futures":
            ex.shutdown(wait=True, cancel_futures=True)
        bar.close(store)
    out = []
    for p in points:
        rec = store.get(p)
        if rec is None:
            raise RuntimeError(f"point {p} has no result in {folder}")
        out.append({**rec["result"], **rec["point"]})
    return out
