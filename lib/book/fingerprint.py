"""Staleness of the executed chapters: what decides a chapter's outputs, hashed.

An executed chapter records in its metadata (key ``attention_book``) the fingerprint of what produced it:
the source notebook's cells, the parameter spec, the preset and overrides, and the ``lib`` modules it
imports (:func:`lib.core.codehash.module_closure`). The build re-executes a chapter whose fingerprint no
longer matches.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Mapping
from lib.core import codehash
from lib.core import params as _params

ROOT = _params.ROOT
BOOK = ROOT / "book"
RUNS = Path(os.environ.get("ATR_RUNS", ROOT / "runs"))
META = "attention_book"


def lib_modules(sources: list[str]) -> list[str]:
    """The ``lib`` modules (dotted names) that code ``sources`` import, transitively (one rule for the whole
    project: :func:`lib.core.codehash.module_closure`)."""
    return codehash.module_closure(sources)


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
    mods = codehash.module_closure([c.source for c in nb.cells if c.cell_type == "code"], ["lib.core.params"])
    return codehash.code_hash(mods, h)


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
