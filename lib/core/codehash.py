"""One code fingerprint for the whole project: the ``lib`` modules a piece of code imports, hashed.

Both the staleness of an executed chapter (:mod:`lib.book.fingerprint`) and the identity of a sweep's stored
results (:mod:`lib.engine.sweep`) hash the same thing: the source of every ``lib`` module the code imports,
followed transitively through ``lib`` itself, with the ``__init__`` of every package on the way. An edit to
:mod:`lib.core.attention` therefore invalidates every chapter page and every stored point that depends on it,
and an edit to a chapter package invalidates that chapter's pages and sweeps only.
"""
from __future__ import annotations

import ast
import hashlib
from pathlib import Path
from typing import Iterable

LIB = Path(__file__).resolve().parents[1]    # the lib/ folder
ROOT = LIB.parent


def module_file(dotted: str) -> Path | None:
    """``lib.core.attention`` -> ``lib/core/attention.py`` (or a package's ``__init__.py``); None if absent."""
    parts = dotted.split(".")
    if not parts or parts[0] != "lib":
        return None
    base = ROOT.joinpath(*parts)
    for f in (base.with_suffix(".py"), base / "__init__.py"):
        if f.is_file():
            return f
    return None


def _package_of(dotted: str, is_package: bool) -> str:
    return dotted if is_package else dotted.rsplit(".", 1)[0]


def _imports(tree: ast.AST, package: str | None) -> set[str]:
    """Dotted names that an AST imports (absolute, or relative to ``package``), as candidates: each
    ``from X import y`` yields both ``X`` and ``X.y`` (y may be a module or a name)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if package is None:
                    continue
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out |= {f"{mod}.{a.name}" for a in node.names}
    return out


def module_closure(sources: Iterable[str], modules: Iterable[str] = ()) -> list[str]:
    """The ``lib`` modules that code ``sources`` (and the named ``modules``) import, transitively, with every
    enclosing package (``lib``, ``lib.core`` ...). Sorted dotted names."""
    found: set[str] = set()
    todo: list[tuple[str, str | None]] = [(s, None) for s in sources]

    def add(dotted: str) -> None:
        parts = dotted.split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            f = module_file(name)
            if f is not None and name not in found:
                found.add(name)
                todo.append((f.read_text(), _package_of(name, f.name == "__init__.py")))

    for m in modules:
        add(m)
    while todo:
        src, package = todo.pop()
        try:
            tree = ast.parse(src)
        except SyntaxError:      # IPython magics in a notebook cell: skip that cell's imports
            continue
        for dotted in _imports(tree, package):
            if dotted.split(".")[0] == "lib":
                add(dotted)
    return sorted(found)


def code_hash(modules: Iterable[str], h: "hashlib._Hash | None" = None) -> str:
    """sha256 over the named modules' sources (name, then bytes), in sorted order; 16 hex digits."""
    h = h or hashlib.sha256()
    for m in sorted(set(modules)):
        f = module_file(m)
        h.update(m.encode() + b"\0" + (f.read_bytes() if f else b"<missing>") + b"\0")
    return h.hexdigest()[:16]
