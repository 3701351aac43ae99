"""The analysis choices a skeptic would vary, as :class:`~lib.core.claims.Variant`s of a claim's criterion.

A claim's criterion is written once as a judge, ``judge(data) -> (ok, value)``; each function here re-applies it
to the data as a skeptic would change it, and the ledger (:mod:`lib.core.claims`) calls the claim **fragile**
when any outcome differs from ours::

    def line_beats_parabola(pts):                  # pts: [(H, memorized)]
        r2_line, r2_quad = fits(pts)
        return r2_line >= r2_quad, f"{r2_line:.3f} vs {r2_quad:.3f}"
    ok, ours = line_beats_parabola(pts)
    C.check("fig2a-linear", ..., ok=ok, ours=ours, kind=EXPERIMENT,
            variants=leave_one_out(line_beats_parabola, pts, label=lambda p: f"H = {p[0]}")
                     + rejudge(line_beats_parabola, {"drop the chance floor": above_chance(pts)}))
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence, TypeVar

from lib.core.claims import Variant

T = TypeVar("T")
Judge = Callable[[Any], "tuple[bool, Any]"]


def variant(choice: str, judged: tuple[bool, Any] | bool) -> Variant:
    """One variant from a judge's result ``(ok, value)`` (or a bare ``ok``)."""
    ok, value = judged if isinstance(judged, tuple) else (judged, "")
    return Variant(choice, bool(ok), str(value))


def rejudge(judge: Judge, choices: Mapping[str, Any]) -> list[Variant]:
    """The criterion ``judge`` applied to each choice's data: ``{choice: data}`` → one variant each."""
    return [variant(name, judge(data)) for name, data in choices.items()]


def leave_one_out(judge: Judge, points: Sequence[T], label: Callable[[T], str] = str,
                  min_left: int = 2) -> list[Variant]:
    """The criterion with each single point dropped (while at least ``min_left`` points remain)."""
    if len(points) - 1 < min_left:
        return []
    return [variant(f"drop {label(p)}", judge([q for j, q in enumerate(points) if j != i]))
            for i, p in enumerate(points)]


def drop_where(judge: Judge, points: Sequence[T], keep: Callable[[T], bool], choice: str,
               min_left: int = 2) -> list[Variant]:
    """The criterion on the points ``keep`` retains (e.g. above the chance floor, below saturation); no variant
    when nothing is dropped or fewer than ``min_left`` points would remain."""
    kept = [p for p in points if keep(p)]
    if len(kept) == len(points) or len(kept) < min_left:
        return []
    return [variant(choice, judge(kept))]


def each(judge: Judge, groups: Mapping[Any, Any], name: str = "seed") -> list[Variant]:
    """The criterion on each group alone (each seed, each width, ...): ``{key: data}``."""
    return [variant(f"{name} {k} alone", judge(v)) for k, v in groups.items()]


def thresholds(test: Callable[[float], tuple[bool, Any] | bool], readings: Iterable[float],
               name: str = "threshold") -> list[Variant]:
    """The criterion under each reading of a threshold the paper leaves undefined."""
    return [variant(f"{name} = {r:g}", test(r)) for r in readings]
