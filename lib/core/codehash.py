"""Code fingerprints: what a page imports, and what a stored run executed.

* **Pages** (:mod:`lib.book.fingerprint`): the bytes of every ``lib`` module a chapter's cells import, followed
  transitively with the ``__init__`` of every package on the way (:func:`module_closure`, :func:`code_hash`):
  a page shows its functions' source and docstrings, so any edit re-executes it.
* **Stored results** (sweeps, evidence): the definitions reachable from the training function
  (:mod:`lib.core.reachable`), each hashed by :func:`semantic_source`: its source without docstrings and comments.
"""
from __future__ import annotations

import ast
import hashlib
import io
import tokenize
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


def _docstring_lines(tree: ast.AST, lines: list[str]) -> set[int]:
    """0-based lines that hold only a docstring (of the module, a class or a function)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str) and first.end_lineno is not None:
                span = range(first.lineno - 1, first.end_lineno)
                alone = (lines[span[0]].strip().startswith(("'", '"', "r'", 'r"'))
                         and lines[span[-1]].rstrip().endswith(("'", '"')))
                if alone and not any(isinstance(n, ast.stmt) and n is not first and n.lineno - 1 in span
                                     for n in ast.walk(node)):
                    out |= set(span)
    return out


def semantic_source(src: bytes) -> bytes:
    """What a module *computes*, as text: its source without docstrings, comments, trailing spaces and blank
    lines. (Text, not an AST dump: ``ast.dump`` changes between Python versions; these positions do not.)"""
    try:
        text = src.decode()
        tree = ast.parse(text)
        lines = text.splitlines()
        comments = [t.start for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT]
    except (SyntaxError, UnicodeDecodeError, tokenize.TokenError):
        return src
    for row, col in comments:
        lines[row - 1] = lines[row - 1][:col]
    drop = _docstring_lines(tree, lines)
    return "\n".join(ln.rstrip() for i, ln in enumerate(lines) if i not in drop and ln.strip()).encode()


def code_hash(modules: Iterable[str], h: "hashlib._Hash | None" = None, *, semantic: bool = False) -> str:
    """sha256 over the named modules' sources (name, then bytes), in sorted order; 16 hex digits.

    ``semantic=True`` hashes :func:`semantic_source` instead of the bytes: the identity of *stored results*
    (sweeps, evidence), which a docstring or a comment cannot change. A page's staleness hashes the bytes,
    because pages show their functions' source and docstrings."""
    h = h or hashlib.sha256()
    for m in sorted(set(modules)):
        f = module_file(m)
        body = (semantic_source(f.read_bytes()) if semantic else f.read_bytes()) if f else b"<missing>"
        h.update(m.encode() + b"\0" + body + b"\0")
    return h.hexdigest()[:16]
