"""What every claim module of the chapter shares: a stored sweep's claims recorded as not run, the largest gap to
the paper's numbers, and the page's wrapped printing (:func:`say`, :func:`wrap`; verdict lines are printed by
:meth:`lib.core.claims.Claims.lines`)."""
from __future__ import annotations

import functools
import textwrap

from lib.chapters.aot_memorization.claims import stored as S
from lib.core.claims import EXPERIMENT, LINE_WIDTH, Claims

WIDTH = LINE_WIDTH           # characters of a printed line at the page's text width


def not_run(C: Claims, ids: list[str], ev, paper: str | dict, statements: dict, crit: dict) -> bool:
    """Record the sweep's claims as not run (no stored, stale or partial evidence): each with its statement and the
    criterion it will be judged by, then the sweep's state, the cost of what is missing and the command that
    produces it; True if so."""
    if ev.complete:
        return False
    why = S.why(ev)
    for i in ids:
        C.not_run(i, statements[i], reason=f"criterion: {crit[i]}. Not run: {why}", kind=EXPERIMENT,
                  paper=paper.get(i, "") if isinstance(paper, dict) else paper)
    return True


def _gap(xs, ys, paper: dict) -> float:
    """The largest |ours − paper| over the grid."""
    return max(abs(a - paper[v]) for v, a in zip(xs, ys, strict=True))


def wrap(text: str, width: int = WIDTH) -> str:
    """``text`` wrapped line by line at ``width`` (continuations indented)."""
    return "\n".join(textwrap.fill(t, width, subsequent_indent="    ", break_on_hyphens=False,
                                   break_long_words=False) if len(t) > width else t for t in text.splitlines())


def say(*args, **kw) -> None:
    """``print``, wrapped at :data:`WIDTH`."""
    print(wrap(" ".join(map(str, args))), **kw)


def tag(g: dict) -> str:
    """A grid record ``{N, S, d, ...}`` as the label ``"N,S,d,..."``."""
    return ",".join(str(v) for v in g.values())


def prints_verdicts(fn):
    """Decorate a function ``fn(C, ...)`` that records claims: after it, print the verdict line of every claim
    recorded since the last print (:meth:`lib.core.claims.Claims.lines`, sanity checks left out), the lines the
    page shows under the check and the verdict box links to."""
    @functools.wraps(fn)
    def run(C, *args, **kw):
        try:
            return fn(C, *args, **kw)
        finally:
            C.lines(sanity=False)
    return run
