"""One layer for the claims judged on stored evidence, shared by every chapter.

A stored claim declares its id, statement, the paper's value, kind, criterion, the sweeps it needs and a judge,
``judge(points) -> Judged`` (``points``: each needed sweep's stored points, by name). :func:`record` loads the
sweeps (:func:`lib.book.evidence.load`, no recompute); while one of them is missing, partial or stale the claim is
recorded *not run* with its declared criterion, what is stored, the CPU-hours still to go at the measured cost per
point, and the command that produces it (:func:`pending_reason`); otherwise the judge decides and the claim is
recorded with its control, variants and scale.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from lib.book import evidence as E
from lib.core.claims import EXPERIMENT, Claims, Control, Scale, Variant


@dataclass
class Judged:
    """A judge's decision: the verdict's parts."""
    ok: bool
    ours: Any
    control: Control | None = None
    stable: bool = False
    variants: list[Variant] | None = None   # the criterion under a skeptic's analysis choices (lib.core.robust)


@dataclass
class StoredClaim:
    id: str
    statement: str
    paper: Any
    criterion: str
    sweeps: tuple[str, ...]
    judge: Callable[[dict[str, list[dict]]], Judged]
    kind: str = EXPERIMENT
    scale: Scale | None = None


def state(ev: E.Evidence) -> str:
    """One sweep's state and what is left to run."""
    sw = E.sweeps(ev.chapter)[ev.name]
    left = ev.total if ev.stale else ev.total - len(ev.points)
    have = f"stale ({ev.reason})" if ev.stale else f"{len(ev.points)} of {ev.total} points stored"
    return (f"`{ev.name}` {have}; run `{ev.command}` (about {left * sw['cost_s'] / 3600:.2f} CPU-hours to go: "
            f"{left} points × {sw['cost_s']:.0f} CPU-s measured)")


def pending_reason(evs: list[E.Evidence], criterion: str) -> str | None:
    """None when every sweep is complete and current; else why the claim is not run, with its declared criterion."""
    todo = [ev for ev in evs if not ev.complete]
    if not todo:
        return None
    return f"criterion (declared): {criterion}; not run: " + "; ".join(state(ev) for ev in todo)


def pending(C: Claims, evs: list[E.Evidence], claims: list[tuple[str, str, Any, str, str]]) -> bool:
    """Record every ``(id, statement, paper, criterion, kind)`` as not run unless all of ``evs`` are complete and
    current. True when they were recorded as not run."""
    if pending_reason(evs, "") is None:
        return False
    for id_, statement, paper, criterion, kind in claims:
        C.not_run(id_, statement, paper=paper, kind=kind, reason=pending_reason(evs, criterion))
    return True


def record(C: Claims, chapter: str, claim: StoredClaim) -> Judged | None:
    """Judge ``claim`` on its stored sweeps, or record it as not run (module docstring)."""
    evs = [E.load(chapter, s) for s in claim.sweeps]
    why = pending_reason(evs, claim.criterion)
    if why is not None:
        C.not_run(claim.id, claim.statement, paper=claim.paper, kind=claim.kind, reason=why)
        return None
    j = claim.judge({ev.name: ev.points for ev in evs})
    C.check(claim.id, claim.statement, paper=claim.paper, ours=j.ours, ok=j.ok, criterion=claim.criterion,
            kind=claim.kind, scale=claim.scale, control=j.control, stable=j.stable, variants=j.variants)
    return j
