"""Executing chapters with papermill: the baseline in ``book/`` and a reader's reruns in ``runs/``.

``notebooks/<id>.ipynb`` (source) --papermill--> ``book/<id>.ipynb`` (the published page and the nbval
baseline) or ``runs/<id>/<run-id>/<id>.ipynb`` (a reader's rerun). A chapter lands in ``book/`` only after
its execution succeeded: a failing run never overwrites a good page.
"""
from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Mapping
from lib.core import params as _params
from lib.book import captions, verdicts
from lib.book.fingerprint import BOOK, META, ROOT, RUNS, fingerprint


def execute(chapter: str, out: Path, values: dict[str, Any], *, progress: bool = True,
            run_dir: Path | None = None) -> dict[str, Any]:
    """Execute the chapter with papermill into ``out`` (atomically: a temp file, then a rename).

    ``values`` must already be validated. Returns the record written into the notebook's metadata.
    Raises ``RuntimeError`` if a cell fails (``out`` is then left untouched)."""
    import nbformat
    import papermill as pm
    from lib.core import repro

    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = ROOT / ".cache" / "executing"       # same filesystem as book/ and runs/: the rename is atomic
    scratch.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".ipynb", prefix=f"{chapter}-", dir=scratch)
    os.close(fd)
    t0, cpu0 = time.perf_counter(), _children_cpu()
    try:
        with _environ(ATR_RUN_DIR=str(run_dir or out.parent)):   # where the chapter's sweeps store results
            pm.execute_notebook(str(_params.NOTEBOOKS / f"{chapter}.ipynb"), tmp, parameters=dict(values),
                                kernel_name="python3", progress_bar=progress, cwd=str(out.parent),
                                log_output=False)
    except Exception as exc:  # papermill raises PapermillExecutionError on any failing cell
        os.unlink(tmp)
        raise RuntimeError(f"chapter '{chapter}' failed while executing: {exc}") from None
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    nb = nbformat.read(tmp, as_version=4)
    dev = repro.resolve_device(values["device"])
    record = {"chapter": chapter, "preset": values["preset"], "parameters": dict(values),
              "fingerprint": fingerprint(chapter, values), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
              "executed": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
              "commit": _git_commit(), "machine": repro.describe(dev),
              "versions": repro.versions(), "device": dev.type}
    nb.metadata[META] = record
    pmeta = nb.metadata.get("papermill", {})   # papermill records absolute paths of this machine: keep them relative
    pmeta.update(input_path=f"notebooks/{chapter}.ipynb", output_path=_show(out))
    verdicts.annotate(nb, verdicts.declared(chapter, "REFS"))   # the verdict box, and anchors between the claims table and the text
    captions.caption_cells(nb)             # figures shown with lib.core.plots.show: numbered and captioned
    for cell in nb.cells:   # the parameter cells are reference material: collapsed on the page
        tags = cell.metadata.setdefault("tags", [])
        if ("parameters" in tags or "injected-parameters" in tags) and "hide-input" not in tags:
            tags.append("hide-input")
    nbformat.write(nb, tmp)
    os.replace(tmp, out)
    return record


def _children_cpu() -> float:
    """CPU seconds (user + system) used so far by this process's finished children (the kernel, its workers)."""
    import resource
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


@contextlib.contextmanager
def _environ(**variables: str) -> Iterator[None]:
    """Set environment variables (inherited by the kernel papermill starts) and restore them after."""
    before = {k: os.environ.get(k) for k in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def baseline(chapter: str, progress: bool = True) -> dict[str, Any]:
    """Execute ``chapter`` at the book preset into ``book/<id>.ipynb`` (the regression baseline)."""
    spec = _params.load(chapter)
    run_dir = ROOT / ".cache" / "baseline" / chapter
    shutil.rmtree(run_dir, ignore_errors=True)   # the baseline computes everything afresh: no resumed sweeps
    with _environ(ATR_QUIET="1"):                 # no sweep progress bars inside the published page
        return execute(chapter, BOOK / f"{chapter}.ipynb", spec.resolve("book"), progress=progress, run_dir=run_dir)


def rerun(chapter: str, preset: str, overrides: Mapping[str, str], progress: bool = True,
          out_root: Path = RUNS) -> Path:
    """A reader's rerun: validate, execute into a fresh ``runs/<id>/<stamp>-<preset>/``, record it."""
    spec = _params.load(chapter)
    values = spec.resolve(preset, overrides, parse_strings=True)
    _check_device(values["device"])
    stamp = _dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    folder = out_root / chapter / f"{stamp}-{preset}"
    i = 1
    while folder.exists():
        folder = out_root / chapter / f"{stamp}-{preset}-{i}"
        i += 1
    folder.mkdir(parents=True)
    (folder / "request.json").write_text(json.dumps({"chapter": chapter, "preset": preset,
                                                      "overrides": dict(overrides)}, indent=2) + "\n")
    return _run_in(folder, chapter, preset, overrides, values, progress)


def resume(folder: str | Path, progress: bool = True) -> Path:
    """Finish an interrupted rerun in its own folder (``python -m lib run --resume FOLDER``): the chapter
    is executed again with the preset and overrides of the folder's ``request.json``; its sweeps find
    their stores in ``FOLDER/sweeps`` and train only the points not yet written there."""
    folder = Path(folder).resolve()
    req_file = folder / "request.json"
    if not req_file.is_file():
        raise _params.ParameterError(f"--resume {_show(folder)}: no request.json there (not a run folder)")
    req = json.loads(req_file.read_text())
    chapter, preset, overrides = req["chapter"], req["preset"], req["overrides"]
    values = _params.load(chapter).resolve(preset, overrides, parse_strings=True)
    _check_device(values["device"])
    from lib.engine.sweep import Store
    sweeps = folder / "sweeps"
    stored = sum(len(Store(d).keys()) for d in sweeps.iterdir() if d.is_dir()) if sweeps.is_dir() else 0
    print(f"[lib] resuming '{chapter}' at preset '{preset}' in {_show(folder)} ({stored} sweep points stored)",
          file=sys.stderr)
    (folder / "FAILED.txt").unlink(missing_ok=True)
    return _run_in(folder, chapter, preset, overrides, values, progress)


def _check_device(device: str) -> None:
    """A device this machine lacks is a parameter error, raised before anything executes."""
    from lib.core import repro
    try:
        repro.resolve_device(device)
    except ValueError as exc:
        raise _params.ParameterError(str(exc)) from None


def _run_in(folder: Path, chapter: str, preset: str, overrides: Mapping[str, str], values: dict,
            progress: bool) -> Path:
    print(f"[lib] running chapter '{chapter}' at preset '{preset}' into {_show(folder)}",
          file=sys.stderr)
    try:
        record = execute(chapter, folder / f"{chapter}.ipynb", values, progress=progress)
    except RuntimeError as exc:
        (folder / "FAILED.txt").write_text(str(exc) + "\n")
        raise
    record["command"] = "python -m lib " + " ".join(sys.argv[1:])
    record["overrides"] = dict(overrides)
    record["git_commit"] = _git_commit()
    (folder / "run.json").write_text(json.dumps(record, indent=2) + "\n")
    print(f"[lib] done in {record['wall_s']} s on {record['device']}: {_show(folder)}",
          file=sys.stderr)
    return folder


def _show(path: Path) -> str:
    """A path relative to the repository when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def _git_commit() -> str:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
