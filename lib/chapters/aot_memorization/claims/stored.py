"""The chapter's stored paper-scale runs, read without recomputing anything: the sweeps of
:mod:`~lib.chapters.aot_memorization.evidence` (``python -m lib evidence aot-memorization``), their provenance, their
state (stored, partial, stale, not run), the cost and command of what they lack, and their points as curves and
seed rows. The page draws them with :mod:`~lib.chapters.aot_memorization.figures` and judges them with the
claims modules of each experiment (:mod:`~.exp1`, :mod:`~.exp2`, ..., :mod:`~.v1`, :mod:`~.b1`). The training code does not import these modules, so editing them
leaves the stored runs' fingerprint unchanged.
"""
from __future__ import annotations

import dataclasses
import re

import numpy as np

from lib.book import evidence as E
from lib.chapters.aot_memorization import evidence as EV
from lib.core import claims as K

MODELS = ("official", "paper")
LABEL = {"official": "official code's model", "paper": "eq. (2) model"}


def load() -> dict:
    """The chapter's stored sweeps (:class:`lib.book.evidence.Evidence`), and their provenance printed."""
    sws = E.sweeps(EV.CHAPTER)
    evs = {n: E.load(EV.CHAPTER, n) for n in sws}
    from lib.chapters.aot_memorization.claims.common import wrap
    for n, ev in evs.items():
        print(wrap(f"{n}: {sws[n]['what']}") + "\n" + wrap(f"    {ev.label}"))
    return pooled(evs)


def pooled(evs: dict) -> dict:
    """``evs`` with each complete seed extension (:data:`~lib.chapters.aot_memorization.evidence.EXTENDS`) pooled
    into its complete base sweep: the base's points and total grow by the extension's, the claims read every seed.
    An extension not (yet) complete leaves its base as stored."""
    out = dict(evs)
    for ext, base in EV.EXTENDS.items():
        e, b = evs.get(ext), evs.get(base)
        if e is not None and b is not None and e.complete and b.complete:
            out[base] = dataclasses.replace(b, points=b.points + e.points, total=b.total + e.total)
    return out


def seeds(ev) -> int:
    """The number of seeds (repetitions) among a sweep's stored points."""
    return len({p["rep"] for p in ev.points})


def state(ev) -> str:
    """A sweep's state today, in words: stored (complete), partial, stale, or not run."""
    if ev.complete:
        return f"stored ({len(ev.points)} trained models)"
    if ev.stale and ev.points:
        return f"stored but stale ({ev.reason})"
    if ev.points:
        return f"partly stored ({len(ev.points)} of {ev.total} models)"
    return "not run yet"


def curve(points: list[dict], variant: str, x: str, key: str) -> tuple[list[int], list[float], list[float]]:
    """(x values, mean and std over repetitions of ``key``) of one model."""
    by: dict[int, list[float]] = {}
    for p in points:
        if p["variant"] == variant:
            by.setdefault(p[x], []).append(p[key])
    xs = sorted(by)
    return xs, [float(np.mean(by[v])) for v in xs], [float(np.std(by[v])) for v in xs]


def by_seed(ev, variant: str, x: str, key: str = "running_acc") -> dict[int, dict]:
    """{repetition: {x: value}} of one model in a stored sweep."""
    out: dict[int, dict] = {}
    for p in ev.points:
        if p["variant"] == variant:
            out.setdefault(p["rep"], {})[p[x]] = p[key]
    return out


def seed_rows(ev, variant: str, x: str, key: str = "running_acc") -> tuple[list, np.ndarray]:
    """(the x values, one row of ``key`` per seed) of one model in a stored sweep (seeds with the full grid)."""
    bs = by_seed(ev, variant, x, key)
    xs = sorted({k for d in bs.values() for k in d})
    rows = [[d[k] for k in xs] for _, d in sorted(bs.items()) if all(k in d for k in xs)]
    return xs, np.array(rows, float).reshape(len(rows), len(xs))


def scale(ev, exp: str) -> K.Scale:
    """The scale of a stored sweep's claims: its trained models beside the paper's scale."""
    sw = E.sweeps(EV.CHAPTER)[exp]
    what = re.sub(r"\b\d+ seeds?\b", f"{seeds(ev)} seed" + ("s" if seeds(ev) != 1 else ""), sw["what"].split(": ", 1)[1])
    return K.Scale(ours=f"{len(ev.points)} trained models: " + what, paper=sw["paper"], enough=True)


def cost(ev) -> str:
    """The declared cost of the points a sweep still lacks (its measured CPU-seconds per point)."""
    sw = E.sweeps(EV.CHAPTER)[ev.name]
    same_code = (ev.manifest or {}).get("fingerprint") == E.fingerprint(sw)     # a grown grid keeps its points
    n = ev.total - len(ev.points) if same_code else ev.total
    return (f"{n} of {ev.total} points to train, {sw['cost_s']:g} CPU-s each (measured): about "
            f"{n * sw['cost_s'] / 3600:.2f} CPU-hours at one torch thread")


def why(ev) -> str:
    """Why a sweep's claims are not run: its state, the cost of what is missing, the command."""
    return (f"stored evidence is stale ({ev.reason})" if ev.stale else ev.reason if not ev.points else
            f"{len(ev.points)} of {ev.total} points stored") + f"; {cost(ev)}; run `{ev.command}`"
