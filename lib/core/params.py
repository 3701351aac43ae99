"""Chapter parameters: a declared spec, named presets, and validation before any compute.

Each chapter ``notebooks/<id>.ipynb`` has a spec ``notebooks/<id>.params.toml``::

    [chapter]
    title = "One attention layer, four notations"

    [params.heads]
    type = "int"            # int | float | bool | str | list[int] | list[float] | list[str]
    default = 4
    min = 1                 # optional bounds (for lists: on every element)
    max = 64
    help = "number of attention heads"

    [params.device]
    type = "str"
    default = "auto"
    choices = ["auto", "cpu", "cuda"]
    help = "where to run"

    [params.cases]          # a grid: a list of records with named, typed fields
    type = "list[record]"
    default = [{L = 2, N = 4, dx = 3}]
    help = "the exact-rank grid"
    fields.L = {type = "int", min = 1, max = 4, help = "depth"}
    fields.N = {type = "int", min = 2, help = "sequence length"}
    fields.dx = {type = "int", min = 1, help = "embedding dimension"}
    checks = [{check = "dx <= 13", message = "exact ranks above d_x = 13 do not fit in memory"}]

    [[constraints]]         # relations between parameters, a Python expression over their names
    check = "d_h <= d"
    message = "the head dimension d_h cannot exceed the model dimension d"

    [presets.smoke]         # overrides of the defaults; `book` is the published page
    heads = 2

The notebook's cell tagged ``parameters`` holds exactly these names with these defaults (a test
checks it); the next cell calls :func:`from_namespace`, which validates whatever papermill injected.
Every chapter has the three standard parameters ``preset``, ``seed`` and ``device``.
"""
from __future__ import annotations

import ast
import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
TYPES = ("int", "float", "bool", "str", "list[int]", "list[float]", "list[str]", "list[record]")
FIELD_TYPES = ("int", "float", "bool", "str")
REQUIRED_PRESETS = ("smoke", "book", "paper")
STANDARD = ("preset", "seed", "device")


class ParameterError(ValueError):
    """A bad parameter: the message names it and says what is allowed."""


@dataclass(frozen=True)
class Param:
    name: str
    type: str
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple | None = None
    fields: tuple[Param, ...] | None = None           # list[record]: the records' named, typed fields
    checks: tuple[tuple[str, str], ...] = ()          # list[record]: rules on each record, over its field names

    def allowed(self) -> str:
        """Human-readable description of the allowed values."""
        if self.type == "list[record]":
            inner = ", ".join(f"{f.name}: {f.allowed()}" for f in self.fields or ())
            rules = "".join(f"; {expr} ({msg})" for expr, msg in self.checks)
            return f"a non-empty list of records {{{inner}}}{rules}"
        if self.choices is not None:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        what = {"int": "an integer", "float": "a number", "bool": "true or false", "str": "a string",
                "list[int]": "a list of integers", "list[float]": "a list of numbers",
                "list[str]": "a list of strings"}[self.type]
        lo = "" if self.min is None else f" >= {self.min:g}"
        hi = "" if self.max is None else f" <= {self.max:g}"
        bounds = (lo + (" and" if lo and hi else "") + hi) if (lo or hi) else ""
        if bounds and self.type.startswith("list"):
            bounds = ", each" + bounds
        return what + bounds

    def check(self, value: Any) -> Any:
        """Return ``value`` coerced to this parameter's type, or raise :class:`ParameterError`."""
        bad = ParameterError(f"parameter '{self.name}' = {value!r} is invalid: expected {self.allowed()}")
        base = self.type.removeprefix("list[").removesuffix("]")
        if self.type == "list[record]":
            if not isinstance(value, (list, tuple)) or len(value) == 0:
                raise bad
            return [self._record(i, r) for i, r in enumerate(value)]
        if self.type.startswith("list"):
            if not isinstance(value, (list, tuple)) or len(value) == 0:
                raise bad
            return [self._scalar(v, base, bad) for v in value]
        return self._scalar(value, base, bad)

    def _scalar(self, v: Any, base: str, bad: ParameterError) -> Any:
        if base == "bool":
            if not isinstance(v, bool):
                raise bad
        elif base == "int":
            if isinstance(v, bool) or not isinstance(v, int):
                raise bad
        elif base == "float":
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise bad
            v = float(v)
        elif base == "str":
            if not isinstance(v, str):
                raise bad
        if self.choices is not None and v not in self.choices:
            raise bad
        if base in ("int", "float"):
            if (self.min is not None and v < self.min) or (self.max is not None and v > self.max):
                raise bad
        return v

    def _record(self, i: int, r: Any) -> dict[str, Any]:
        """One record of a ``list[record]`` checked field by field, then against the record rules."""
        where = f"{self.name}[{i}]"
        if not isinstance(r, Mapping):
            raise ParameterError(f"parameter '{where}' = {r!r} is invalid: expected a record {{field: value}}")
        names = [f.name for f in self.fields or ()]
        extra = [k for k in r if k not in names]
        if extra:
            raise ParameterError(f"parameter '{where}' has an unknown field '{extra[0]}': fields are {', '.join(names)}")
        out = {}
        for f in self.fields or ():
            if f.name not in r and f.default is None:
                raise ParameterError(f"parameter '{where}' lacks the field '{f.name}' ({f.help})")
            sub = Param(f"{where}.{f.name}", f.type, f.default, f.help, f.min, f.max, f.choices)
            out[f.name] = sub.check(r.get(f.name, f.default))
        for expr, message in self.checks:
            if not eval(compile(expr, "<record check>", "eval"), {"__builtins__": _SAFE}, dict(out)):
                raise ParameterError(f"parameter '{where}' = {out!r} violates '{expr}': {message}")
        return out

    def parse(self, text: str) -> Any:
        """Parse a command-line string (``--set name=text``) into this parameter's type (records: JSON,
        e.g. ``--set cases='[{"L": 2, "N": 4, "dx": 3}]'``)."""
        base = self.type.removeprefix("list[").removesuffix("]")
        if self.type == "list[record]":
            try:
                return self.check(json.loads(text))
            except json.JSONDecodeError:
                raise ParameterError(f"parameter '{self.name}' = {text!r} is invalid: expected JSON, "
                                     f"{self.allowed()}") from None
        if self.type.startswith("list"):
            t = text.strip()
            items = json.loads(t) if t.startswith("[") else [s for s in t.split(",") if s.strip()]
            return self.check([self._parse_scalar(str(s) if not isinstance(s, str) else s, base)
                               for s in items])
        return self.check(self._parse_scalar(text, base))

    def _parse_scalar(self, s: str, base: str) -> Any:
        s = s.strip()
        try:
            if base == "int":
                return int(s)
            if base == "float":
                return float(s)
            if base == "bool":
                low = s.lower()
                if low in ("true", "1", "yes"):
                    return True
                if low in ("false", "0", "no"):
                    return False
                raise ValueError
        except ValueError:
            raise ParameterError(
                f"parameter '{self.name}' = {s!r} is invalid: expected {self.allowed()}") from None
        return s


@dataclass(frozen=True)
class Spec:
    """The declared parameters, constraints and presets of one chapter."""
    chapter: str
    title: str
    params: dict[str, Param]
    constraints: tuple[tuple[str, str], ...]
    presets: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def notebook(self) -> Path:
        return NOTEBOOKS / f"{self.chapter}.ipynb"

    def resolve(self, preset: str = "book", overrides: Mapping[str, Any] | None = None,
                *, parse_strings: bool = False) -> dict[str, Any]:
        """Defaults, then the preset, then ``overrides``; validated. Raises ParameterError."""
        if preset not in self.presets:
            raise ParameterError(f"unknown preset '{preset}' for chapter '{self.chapter}': "
                                 f"choose one of {', '.join(self.presets)}")
        values = {k: p.default for k, p in self.params.items()}
        values.update(self.presets[preset])
        values["preset"] = preset
        for k, v in (overrides or {}).items():
            if k not in self.params:
                raise ParameterError(f"unknown parameter '{k}' for chapter '{self.chapter}': "
                                     f"known parameters are {', '.join(self.params)}")
            if k == "preset":
                raise ParameterError("parameter 'preset' cannot be overridden: use --preset")
            values[k] = self.params[k].parse(v) if parse_strings and isinstance(v, str) else v
        return self.validate(values)

    def validate(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Check every value's type and range and every constraint; return coerced values."""
        unknown = [k for k in values if k not in self.params]
        if unknown:
            raise ParameterError(f"unknown parameter '{unknown[0]}' for chapter '{self.chapter}': "
                                 f"known parameters are {', '.join(self.params)}")
        missing = [k for k in self.params if k not in values]
        if missing:
            raise ParameterError(f"parameter '{missing[0]}' is missing")
        out = {k: self.params[k].check(values[k]) for k in self.params}
        if out["preset"] not in self.presets:
            raise ParameterError(f"parameter 'preset' = {out['preset']!r} is invalid: "
                                 f"expected one of {', '.join(self.presets)}")
        for expr, message in self.constraints:
            names = sorted({n.id for n in ast.walk(ast.parse(expr, mode="eval"))
                            if isinstance(n, ast.Name) and n.id in out})
            if not eval(compile(expr, "<constraint>", "eval"), {"__builtins__": _SAFE}, dict(out)):
                shown = ", ".join(f"{n}={out[n]!r}" for n in names)
                raise ParameterError(f"parameters {shown} violate '{expr}': {message}")
        return out

    def parameters_cell(self) -> str:
        """The source of the notebook's ``parameters`` cell (defaults = the ``book`` preset). A ``list[record]``
        is annotated ``list[dict]``: the kernel evaluates annotations, and each record is a dict."""
        lines = []
        for p in self.params.values():
            ann = "list[dict]" if p.type == "list[record]" else p.type
            lines.append(f"{p.name}: {ann} = {p.default!r}  # {p.help}")
        return "\n".join(lines)


_SAFE = {"min": min, "max": max, "abs": abs, "len": len, "all": all, "any": any, "sum": sum,
         "sorted": sorted, "set": set, "int": int, "float": float}


def chapters() -> list[str]:
    """Ids of every chapter that has a spec, in the order of the book's table of contents."""
    ids = sorted(p.name.removesuffix(".params.toml") for p in NOTEBOOKS.glob("*.params.toml"))
    toc = (ROOT / "_toc.yml").read_text() if (ROOT / "_toc.yml").exists() else ""
    return sorted(ids, key=lambda c: (toc.find(f"book/{c}") if f"book/{c}" in toc else 10**9, c))


def _param(where: str, name: str, d: Mapping[str, Any]) -> Param:
    """A Param from its TOML table (a ``list[record]`` with its ``fields`` and ``checks``)."""
    fields = None
    if d["type"] == "list[record]":
        if not d.get("fields"):
            raise ValueError(f"{where}: parameter '{name}' of type list[record] declares no fields")
        fields = []
        for fname, fd in d["fields"].items():
            if fd.get("type") not in FIELD_TYPES:
                raise ValueError(f"{where}: field '{name}.{fname}' has type {fd.get('type')!r}; use one of {FIELD_TYPES}")
            fields.append(Param(fname, fd["type"], fd.get("default"), fd.get("help", fname), fd.get("min"),
                                fd.get("max"), tuple(fd["choices"]) if "choices" in fd else None))
        fields = tuple(fields)
    return Param(name=name, type=d["type"], default=d["default"], help=d["help"], min=d.get("min"), max=d.get("max"),
                 choices=tuple(d["choices"]) if "choices" in d else None, fields=fields,
                 checks=tuple((c["check"], c["message"]) for c in d.get("checks", [])))


def load(chapter: str) -> Spec:
    """Read and check the spec of ``chapter``; raise ParameterError for an unknown chapter."""
    path = NOTEBOOKS / f"{chapter}.params.toml"
    if not path.exists():
        raise ParameterError(f"unknown chapter '{chapter}': choose one of {', '.join(chapters())}")
    raw = tomllib.loads(path.read_text())
    params: dict[str, Param] = {}
    for name, d in raw.get("params", {}).items():
        if d.get("type") not in TYPES:
            raise ValueError(f"{path.name}: parameter '{name}' has type {d.get('type')!r}; use one of {TYPES}")
        params[name] = _param(path.name, name, d)
    for std in STANDARD:
        if std not in params:
            raise ValueError(f"{path.name}: the standard parameter '{std}' is missing")
    presets = {k: dict(v) for k, v in raw.get("presets", {}).items()}
    for req in REQUIRED_PRESETS:
        if req not in presets:
            raise ValueError(f"{path.name}: preset '{req}' is missing")
    params["preset"] = Param("preset", "str", "book", params["preset"].help, choices=tuple(presets))
    cons = tuple((c["check"], c["message"]) for c in raw.get("constraints", []))
    spec = Spec(chapter, raw.get("chapter", {}).get("title", chapter), params, cons, presets)
    for name in presets:  # every preset must itself be valid
        spec.resolve(name)
    return spec


def from_namespace(chapter: str, namespace: Mapping[str, Any]) -> dict[str, Any]:
    """Validate the chapter's parameters as they stand in a notebook's namespace (after papermill
    injected its values) and return them as a dict. Raises ParameterError before any compute."""
    spec = load(chapter)
    values = {k: namespace[k] for k in spec.params if k in namespace}
    return spec.validate(values)
