"""The definitions a stored run executed: the fingerprint of stored results (sweeps, evidence).

Follow every name the training function's source loads through its module's globals into ``lib`` functions and
classes (hashed by their source without docstrings and comments, :func:`lib.core.codehash.semantic_source`) and
module constants (by value; a module global that the module's own functions change, by the source of its
assignment), then do the same for each of those. A page-only function, an unused constant or a docstring is
outside this set, so editing it stales nothing; a changed line in a training step changes the hash of the
definition that holds it, and the manifest, which keeps one hash per definition, names it. Names bound locally
(arguments, assignments, comprehension variables) are not followed; ``tests/test_fingerprint.py`` runs one unit of
every training function under a profiler and checks that every ``lib`` function it calls is in the set.
"""
from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import json
import textwrap
import types
from pathlib import PurePath
from typing import Any, Callable

from lib.core.codehash import ROOT, code_hash, module_file, semantic_source

# What a stored run executed is the code reachable from its training function: follow every name the
# function's source uses through its module's globals into ``lib`` functions and classes (their source,
# without docstrings and comments) and module constants (by value), then do the same for each of those.
# A page-only function, an unused constant or a docstring is outside this set, so editing it stales
# nothing; a changed line in a training step changes the hash of the definition that holds it, and
# the manifest, which keeps one hash per definition, names it.

_AST: dict[str, tuple[ast.Module, str]] = {}


def _parsed(mod: str) -> tuple[ast.Module, str] | None:
    """``mod``'s AST and text (cached by file content)."""
    f = module_file(mod)
    if f is None:
        return None
    text = f.read_text()
    hit = _AST.get(mod)
    if hit is None or hit[1] != text:
        hit = _AST[mod] = (ast.parse(text), text)
    return hit


def _top_node(mod: str, name: str) -> ast.stmt | None:
    """The top-level statement of ``mod`` that defines ``name`` (def, class or assignment; the last wins)."""
    got = _parsed(mod)
    if got is None:
        return None
    found = None
    for node in got[0].body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            found = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                found = node
    return found


def _segment(mod: str, node: ast.stmt) -> str:
    """The node's source (decorators included), without docstrings and comments."""
    lines = _parsed(mod)[1].splitlines()
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return semantic_source("\n".join(lines[start - 1: node.end_lineno]).encode()).decode()


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_MUTATORS = {"append", "extend", "update", "setdefault", "pop", "popitem", "clear", "add", "insert", "remove",
             "discard", "sort"}


def _bound(body: list[ast.AST]) -> set[str]:
    """Names a scope binds (assigned, imported, defined, loop targets), not looking into nested scopes."""
    out: set[str] = set()
    todo = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            continue
        if isinstance(n, (ast.Lambda, *_COMPS)):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
            out.add(n.id)
        elif isinstance(n, (ast.Import, ast.ImportFrom)):
            out |= {(a.asname or a.name).split(".")[0] for a in n.names}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        todo.extend(ast.iter_child_nodes(n))
    return out


def _args(a: ast.arguments) -> set[str]:
    return {x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg] if x is not None}


def _chains(node: ast.AST) -> list[list[str]]:
    """Every global name the node loads, with the attributes read from it: ``a.b.c`` -> ["a", "b", "c"].
    Names bound in an enclosing function, lambda or comprehension (arguments, locals) are left out."""
    out: list[list[str]] = []

    def visit(n: ast.AST, bound: frozenset) -> None:
        if isinstance(n, _SCOPES):
            outer = ([] if isinstance(n, ast.Lambda) else n.decorator_list + [n.returns]) + n.args.defaults \
                + [d for d in n.args.kw_defaults if d is not None] \
                + [x.annotation for x in n.args.posonlyargs + n.args.args + n.args.kwonlyargs]
            for x in outer:
                if x is not None:
                    visit(x, bound)
            body = [n.body] if isinstance(n, ast.Lambda) else n.body
            glob = {g for b in body for s in ast.walk(b) if isinstance(s, ast.Global) for g in s.names}
            inner = bound | ((_args(n.args) | _bound(body)) - glob)
            for b in body:
                visit(b, frozenset(inner))
            return
        if isinstance(n, _COMPS):
            inner = bound | {x.id for g in n.generators for x in ast.walk(g.target) if isinstance(x, ast.Name)}
            for c in ast.iter_child_nodes(n):
                visit(c, frozenset(inner))
            return
        if isinstance(n, ast.Attribute):
            parts, cur = [], n
            while isinstance(cur, ast.Attribute):
                parts.append(cur.attr)
                cur = cur.value
            if isinstance(cur, ast.Name):
                if cur.id not in bound:
                    out.append([cur.id] + parts[::-1])
                return
            visit(cur, bound)
            return
        if isinstance(n, ast.Name):
            if isinstance(n.ctx, ast.Load) and n.id not in bound:
                out.append([n.id])
            return
        for c in ast.iter_child_nodes(n):
            visit(c, bound)

    visit(node, frozenset())
    return out


def _state(mod: str) -> set[str]:
    """Module globals that its functions change (``global x``, ``x[k] = v``, ``x.append(...)``): state, hashed by
    the source of their top-level assignment, not by the value they hold at the moment."""
    got = _parsed(mod)
    out: set[str] = set()
    if got is None:
        return out
    for f in ast.walk(got[0]):
        if not isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for n in ast.walk(f):
            if isinstance(n, ast.Global):
                out |= set(n.names)
            elif isinstance(n, (ast.Subscript, ast.Attribute)) and isinstance(n.ctx, ast.Store) \
                    and isinstance(n.value, ast.Name):
                out.add(n.value.id)
            elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _MUTATORS \
                    and isinstance(n.func.value, ast.Name):
                out.add(n.func.value.id)
    return out


def _in_lib(obj: Any) -> bool:
    mod = obj.__name__ if isinstance(obj, types.ModuleType) else getattr(obj, "__module__", None)
    return isinstance(mod, str) and (mod == "lib" or mod.startswith("lib."))


def _home(obj: Any) -> tuple[str, str] | None:
    """(module, top-level name) of a ``lib`` function or class (a method's class; a nested function's outermost
    function); None for anything else."""
    obj = inspect.unwrap(obj) if callable(obj) else obj
    if not (isinstance(obj, (types.FunctionType, type)) and _in_lib(obj)):
        return None
    top = obj.__qualname__.split(".")[0]
    return (obj.__module__, top) if not top.startswith("<") else None


class _Walk:
    """The reachable set of definitions and their hashes."""

    def __init__(self) -> None:
        self.defs: dict[str, str] = {}

    def add_object(self, obj: Any) -> str | None:
        """Add a function or class (followed), a module (its whole source), or nothing. Returns its key."""
        if isinstance(obj, types.ModuleType):
            if not _in_lib(obj):
                return None
            key = f"{obj.__name__}:*"
            if key not in self.defs:
                self.defs[key] = code_hash([obj.__name__], semantic=True)
            return key
        home = _home(obj)
        if home is None:
            return None
        mod, name = home
        key = f"{mod}:{name}"
        if key in self.defs:
            return key
        node = _top_node(mod, name)
        if node is None:                             # defined by exec or generated: hash its compiled body
            self.defs[key] = _value_digest(getattr(obj, "__code__", None) and obj.__code__.co_code, self)
            return key
        self.defs[key] = hashlib.sha256(_segment(mod, node).encode()).hexdigest()[:16]
        self.follow(node, vars(importlib.import_module(mod)), mod)
        return key

    def follow(self, node: ast.AST, scope: dict, mod: str) -> None:
        """Follow every name that ``node`` loads through ``scope`` (a module's globals)."""
        for chain in _chains(node):
            if chain[0] not in scope:
                continue                             # a local, an argument or a builtin
            obj, where, key_name = scope[chain[0]], mod, chain[0]
            for attr in chain[1:]:                   # through lib modules: mod.func, pkg.mod.CONST
                if not (isinstance(obj, types.ModuleType) and _in_lib(obj) and hasattr(obj, attr)):
                    break
                where, key_name, obj = obj.__name__, attr, getattr(obj, attr)
            if isinstance(obj, types.ModuleType) or _home(obj) is not None:
                self.add_object(obj)
            elif not callable(obj):
                self.add_constant(where, key_name, obj)

    def add_constant(self, mod: str, name: str, value: Any) -> None:
        """A module constant, by value; a module global that the module's functions change, by its source."""
        key = f"{mod}:{name}"
        if key in self.defs:
            return
        self.defs[key] = "="                             # placeholder against cycles
        node = _top_node(mod, name) if name in _state(mod) else None
        if node is not None:
            self.defs[key] = hashlib.sha256(_segment(mod, node).encode()).hexdigest()[:16]
            self.follow(node, vars(importlib.import_module(mod)), mod)
        else:
            self.defs[key] = _value_digest(value, self)


def _value_digest(obj: Any, walk: _Walk | None = None) -> str:
    """A constant's hash by value: containers element by element, arrays and tensors by their bytes, a ``lib``
    function or class inside a constant by its definition (followed)."""
    def rep(x: Any) -> Any:
        if x is None or isinstance(x, (bool, int, float, str, bytes)):
            return repr(x)
        if isinstance(x, PurePath):                   # inside the project: relative, so any checkout agrees
            return ["path", str(x.relative_to(ROOT)) if x.is_relative_to(ROOT) else str(x)]
        if isinstance(x, (list, tuple)):
            return [type(x).__name__, [rep(v) for v in x]]
        if isinstance(x, (set, frozenset)):
            return ["set", sorted(json.dumps(rep(v)) for v in x)]
        if isinstance(x, dict):
            return ["dict", [[rep(k), rep(v)] for k, v in x.items()]]
        if hasattr(x, "tobytes") and hasattr(x, "dtype"):                  # numpy array
            return ["array", str(x.dtype), list(getattr(x, "shape", ())), hashlib.sha256(x.tobytes()).hexdigest()]
        if type(x).__module__.startswith("torch") and hasattr(x, "detach"):   # torch tensor
            a = x.detach().cpu().contiguous()
            return ["tensor", str(a.dtype), list(a.shape), hashlib.sha256(a.numpy().tobytes()).hexdigest()]
        if walk is not None and (isinstance(x, types.ModuleType) or _home(x) is not None):
            return ["def", walk.add_object(x)]
        if hasattr(x, "__dataclass_fields__"):
            cls = walk.add_object(type(x)) if walk is not None else type(x).__qualname__
            return ["dataclass", cls, [[f, rep(getattr(x, f))] for f in x.__dataclass_fields__]]
        r = repr(x)
        return ["object", type(x).__qualname__, "" if " at 0x" in r else r]
    return hashlib.sha256(json.dumps(rep(obj)).encode()).hexdigest()[:16]


def definitions(*roots: Callable) -> dict[str, str]:
    """``"module:name" -> hash`` for every ``lib`` definition reachable from ``roots`` (functions or classes),
    sorted. A root outside ``lib`` (a test's function) is hashed by its own source and followed likewise."""
    walk = _Walk()
    for fn in roots:
        if _home(fn) is not None:
            walk.add_object(fn)
            continue
        src = textwrap.dedent(inspect.getsource(fn))
        walk.defs[f"{fn.__module__}:{fn.__qualname__}"] = hashlib.sha256(semantic_source(src.encode())).hexdigest()[:16]
        walk.follow(ast.parse(src), fn.__globals__, fn.__module__)
    return dict(sorted(walk.defs.items()))


def definitions_hash(defs: dict[str, str]) -> str:
    """One hash of a set of definition hashes."""
    return hashlib.sha256(json.dumps(sorted(defs.items())).encode()).hexdigest()[:16]


def changed(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """The definitions added, removed or edited between two sets: ``"lib.engine.train:adam_step (edited)"``."""
    out = []
    for k in sorted(set(old) | set(new)):
        if k not in old:
            out.append(f"{k} (new)")
        elif k not in new:
            out.append(f"{k} (gone)")
        elif old[k] != new[k]:
            out.append(f"{k} (edited)")
    return out
