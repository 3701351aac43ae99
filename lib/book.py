"""Executing chapters: papermill runs, the executed baseline in ``book/``, staleness, the results page.

``notebooks/<id>.ipynb`` (source) --papermill--> ``book/<id>.ipynb`` (the published page and the nbval
baseline) or ``runs/<id>/<run-id>/<id>.ipynb`` (a reader's rerun). An executed chapter records in its
metadata (key ``attention_book``) the fingerprint of what produced it: the source notebook's cells, the
parameter spec, the preset and overrides, and the ``lib`` modules it imports. The build re-executes a chapter
whose fingerprint no longer matches. A chapter lands in ``book/`` only after its execution succeeded:
a failing run never overwrites a good page.
"""
from __future__ import annotations

import ast
import contextlib
import datetime as _dt
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator, Mapping

from . import params as _params
from .claims import FAILS, HOLDS, NOT_RUN, from_notebook, to_html

ROOT = _params.ROOT
BOOK = ROOT / "book"
RUNS = Path(os.environ.get("ATR_RUNS", ROOT / "runs"))
META = "attention_book"


def lib_modules(sources: list[str]) -> set[str]:
    """The ``lib`` modules that code ``sources`` import, followed transitively through ``lib`` itself
    (``from lib import x``, ``from lib.x import y``, ``import lib.x``, and ``from . import x`` inside lib)."""
    lib_dir = ROOT / "lib"
    found: set[str] = {"__init__"}
    todo = list(sources)
    while todo:
        try:
            tree = ast.parse(todo.pop())
        except SyntaxError:   # IPython magics in a cell: skip that cell's imports
            continue
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "lib" and node.level == 0:
                rest = node.module.split(".")[1:]
                names = [rest[0]] if rest else [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 1:
                names = [node.module.split(".")[0]] if node.module else [a.name for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name.split(".")[1] for a in node.names if a.name.startswith("lib.")]
            for m in names:
                if m not in found and (lib_dir / f"{m}.py").exists():
                    found.add(m)
                    todo.append((lib_dir / f"{m}.py").read_text())
    return found


def fingerprint(chapter: str, values: Mapping[str, Any]) -> str:
    """Hash of everything that decides a chapter's outputs: its source cells, its spec, the parameter
    values, and the files of every ``lib`` module the chapter imports (directly or through lib)."""
    import nbformat
    h = hashlib.sha256()
    nb = nbformat.read(_params.NOTEBOOKS / f"{chapter}.ipynb", as_version=4)
    for cell in nb.cells:
        h.update(cell.cell_type.encode() + b"\0" + cell.source.encode() + b"\0")
        h.update(json.dumps(sorted(cell.get("metadata", {}).get("tags", []))).encode())
    h.update((_params.NOTEBOOKS / f"{chapter}.params.toml").read_bytes())
    h.update(json.dumps(dict(values), sort_keys=True).encode())
    for m in sorted(lib_modules([c.source for c in nb.cells if c.cell_type == "code"]) | {"params"}):
        h.update(m.encode() + b"\0" + (ROOT / "lib" / f"{m}.py").read_bytes())
    return h.hexdigest()[:16]


def executed_meta(path: Path) -> dict[str, Any]:
    """The ``attention_book`` record of an executed chapter ({} when missing or unreadable)."""
    try:
        return json.loads(path.read_text()).get("metadata", {}).get(META, {})
    except (OSError, ValueError):
        return {}


def is_stale(chapter: str) -> bool:
    """True when ``book/<id>.ipynb`` is missing or was made from other sources than today's."""
    spec = _params.load(chapter)
    meta = executed_meta(BOOK / f"{chapter}.ipynb")
    return meta.get("fingerprint") != fingerprint(chapter, spec.resolve("book"))


def execute(chapter: str, out: Path, values: dict[str, Any], *, progress: bool = True,
            run_dir: Path | None = None) -> dict[str, Any]:
    """Execute the chapter with papermill into ``out`` (atomically: a temp file, then a rename).

    ``values`` must already be validated. Returns the record written into the notebook's metadata.
    Raises ``RuntimeError`` if a cell fails (``out`` is then left untouched)."""
    import nbformat
    import papermill as pm
    from . import repro

    out.parent.mkdir(parents=True, exist_ok=True)
    scratch = ROOT / ".cache" / "executing"       # same filesystem as book/ and runs/: the rename is atomic
    scratch.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".ipynb", prefix=f"{chapter}-", dir=scratch)
    os.close(fd)
    t0 = time.perf_counter()
    try:
        with _environ(ATR_RUN_DIR=str(run_dir or out.parent)):   # where the chapter's sweeps store results
            pm.execute_notebook(str(_params.NOTEBOOKS / f"{chapter}.ipynb"), tmp, parameters=dict(values),
                                kernel_name="python3", progress_bar=progress, cwd=str(out.parent),
                                log_output=False)
    except Exception as exc:  # papermill raises PapermillExecutionError on any failing cell
        os.unlink(tmp)
        raise RuntimeError(f"chapter '{chapter}' failed while executing: {exc}") from None
    wall = time.perf_counter() - t0
    nb = nbformat.read(tmp, as_version=4)
    record = {"chapter": chapter, "preset": values["preset"], "parameters": dict(values),
              "fingerprint": fingerprint(chapter, values), "wall_s": round(wall, 1),
              "executed": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
              "versions": repro.versions(), "device": repro.resolve_device(values["device"]).type}
    nb.metadata[META] = record
    for cell in nb.cells:   # the parameter cells are reference material: collapsed on the page
        tags = cell.metadata.setdefault("tags", [])
        if ("parameters" in tags or "injected-parameters" in tags) and "hide-input" not in tags:
            tags.append("hide-input")
    nbformat.write(nb, tmp)
    os.replace(tmp, out)
    return record


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
    from .sweep import Store
    sweeps = folder / "sweeps"
    stored = sum(len(Store(d).keys()) for d in sweeps.iterdir() if d.is_dir()) if sweeps.is_dir() else 0
    print(f"[lib] resuming '{chapter}' at preset '{preset}' in {_show(folder)} ({stored} sweep points stored)",
          file=sys.stderr)
    (folder / "FAILED.txt").unlink(missing_ok=True)
    return _run_in(folder, chapter, preset, overrides, values, progress)


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


def toc_chapters() -> list[str]:
    """Chapter ids that are in the table of contents (the published ones)."""
    toc = (ROOT / "_toc.yml").read_text()
    return [c for c in _params.chapters() if f"book/{c}" in toc]


def all_claims(chapters: list[str] | None = None) -> list[dict[str, Any]]:
    """Every claim recorded in the executed chapters in ``book/``."""
    out: list[dict[str, Any]] = []
    for c in chapters if chapters is not None else toc_chapters():
        path = BOOK / f"{c}.ipynb"
        if path.exists():
            out.extend(from_notebook(str(path)))
    return out


def results_page(chapters: list[str] | None = None) -> str:
    """The Markdown of ``book/results.md``: every chapter's claims in one table."""
    chapters = chapters if chapters is not None else toc_chapters()
    records = all_claims(chapters)
    lines = ["# Results: every claim, every chapter", "",
             "This page is generated from the executed chapters (`python -m lib results`); each row is one "
             "sentence of a paper made checkable, our measured value, the criterion, and the verdict at the "
             "preset the published chapter ran with (`book`). A claim that does not hold is listed as such; "
             "the chapter explains why.", "",
             "| chapter | preset | claims | hold | do not hold | not run at this preset |",
             "|---|---|---|---|---|---|"]
    for c in chapters:
        rs = [r for r in records if r["chapter"] == c]
        if not rs:
            continue
        n = {v: sum(r["verdict"] == v for r in rs) for v in (HOLDS, FAILS, NOT_RUN)}
        title = _params.load(c).title
        lines.append(f"| [{title}]({c}.ipynb) | {rs[0]['preset']} | {len(rs)} | {n[HOLDS]} | {n[FAILS]} | "
                     f"{n[NOT_RUN]} |")
    lines += ["", "## All claims", "", "```{raw} html", to_html(records, with_chapter=True), "```", ""]
    return "\n".join(lines)


def library_page() -> str:
    """The Markdown of ``book/library.md``: every ``lib`` module, its summary, and the chapters using it."""
    import nbformat
    users: dict[str, list[str]] = {}
    for c in toc_chapters():
        nb = nbformat.read(_params.NOTEBOOKS / f"{c}.ipynb", as_version=4)
        for m in lib_modules([x.source for x in nb.cells if x.cell_type == "code"]):
            users.setdefault(m, []).append(c)
    lines = ["# The shared library", "",
             "The chapters import one small library, `lib` (in the repository's `lib/` folder). Each module "
             "holds one concept; its docstrings carry the equations and the shapes. This page is generated "
             "(`python -m lib results`) from the modules' docstrings and lists the chapters that use each one.", ""]
    for f in sorted((ROOT / "lib").glob("*.py")):
        m = f.stem
        if m.startswith("_"):
            continue
        doc = ast.get_docstring(ast.parse(f.read_text())) or ""
        summary = doc.split("\n\n")[0].replace("\n", " ").strip()
        summary = re.sub(r":(mod|func|class|meth|data):`", r"{py:\1}`", summary)   # reST roles -> MyST roles
        used = ", ".join(f"[{c}]({c}.ipynb)" for c in users.get(m, []))
        lines += [f"## `lib.{m}`", "", f"```{{py:module}} lib.{m}", "```", "",
                  summary or "(no docstring)", ""]
        if used:
            lines += [f"Used by: {used}.", ""]
    return "\n".join(lines)


def write_results() -> list[Path]:
    """Write the generated pages (results, library) when their text changed."""
    out = []
    for name, text in (("results.md", results_page()), ("library.md", library_page())):
        path = BOOK / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        out.append(path)
    return out
