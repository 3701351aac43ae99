"""The executors and the progress bar of :func:`lib.engine.sweep.run`: where work units run (this process, a pool
of spawned processes, submitit/SLURM or any object with ``submit``), and points done / total, model-steps/s and
ETA read from the workers' heartbeats."""
from __future__ import annotations

import concurrent.futures as cf
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path
import os
from typing import TYPE_CHECKING, Mapping

if TYPE_CHECKING:
    from lib.engine.sweep import Store


def is_quiet(quiet: bool | None = None) -> bool:
    """Quiet if asked, or under the regression tests (env ``ATR_QUIET=1``, ``NBVAL``, ``PYTEST_CURRENT_TEST``)."""
    if quiet is not None:
        return quiet
    if os.environ.get("ATR_QUIET", "").lower() in ("1", "true", "yes"):
        return True
    return "NBVAL" in os.environ or "PYTEST_CURRENT_TEST" in os.environ


def make_executor(executor, workers: int, folder: Path, cluster: str | None, executor_params: Mapping | None):
    if executor == "inline" or (executor == "process" and workers <= 1):
        return "inline", None
    if executor == "process":
        return "futures", cf.ProcessPoolExecutor(max_workers=workers, mp_context=mp.get_context("spawn"))
    if executor == "submitit":
        import submitit
        ex = submitit.AutoExecutor(folder=str(folder / ".submitit"), cluster=cluster)
        params = dict(executor_params or {})
        if cluster == "local":
            params.setdefault("timeout_min", 24 * 60)
        if params:
            ex.update_parameters(**params)
        return "jobs", ex
    if hasattr(executor, "submit"):
        return "jobs", executor
    raise ValueError(f"executor = {executor!r}: expected 'process', 'inline', 'submitit' or an object with submit()")


class Bar:
    """Points done / total, model-steps/s (from the workers' heartbeats) and ETA."""

    def __init__(self, wanted: set[str], done0: int, desc: str, quiet: bool | None, folder: Path):
        self.quiet = is_quiet(quiet)
        self.wanted = wanted
        total = len(wanted)
        self.total, self.done0, self.folder = total, done0, folder
        self.t0 = time.time()
        self.bar = None
        if not self.quiet and total > done0:
            from tqdm import tqdm
            self.bar = tqdm(total=total, initial=done0, desc=desc, unit="pt", file=sys.stderr,
                            mininterval=1.0, dynamic_ncols=True)

    def _steps(self) -> int:
        n = 0
        for f in (self.folder / ".progress").glob("*.json"):
            try:
                n += json.loads(f.read_text())["steps"]
            except (OSError, ValueError, KeyError):
                pass
        return n

    def update(self, store: Store) -> None:
        if self.bar is None:
            return
        done = len(store.keys() & self.wanted)
        self.bar.n = min(done, self.total)
        el = max(time.time() - self.t0, 1e-9)
        self.bar.set_postfix_str(f"{self._steps() / el:,.0f} model-steps/s", refresh=False)
        self.bar.refresh()

    def close(self, store: Store) -> None:
        if self.bar is not None:
            self.update(store)
            self.bar.close()
