"""Presentation helpers of the page: the verdict line of every claim under the check that records it, wrapped to
the text column (the verdict box links to these lines, :mod:`lib.book.verdicts`)."""
from __future__ import annotations

import textwrap

from lib.core.claims import SANITY, Claims

WIDTH = 96                   # characters of a printed line at the page's text width
_printed: dict[int, int] = {}


def lines(C: Claims, *, sanity: bool = False) -> None:
    """Print the verdict line of each claim recorded since the last call (sanity checks only when ``sanity``),
    wrapped at :data:`WIDTH` with indented continuation lines."""
    recs = list(C.claims.values())
    start = _printed.get(id(C), 0)
    _printed[id(C)] = len(recs)
    for c in recs[start:]:
        if c.kind != SANITY or sanity:
            print(textwrap.fill(repr(c), WIDTH, subsequent_indent="    ", break_on_hyphens=False,
                                break_long_words=False))


def wrap(text: str, width: int = WIDTH) -> str:
    """``text`` wrapped line by line at ``width`` (continuations indented)."""
    return "\n".join(textwrap.fill(t, width, subsequent_indent="    ", break_on_hyphens=False,
                                   break_long_words=False) if len(t) > width else t for t in text.splitlines())


def say(*args, **kw) -> None:
    """``print``, wrapped at :data:`WIDTH`."""
    print(wrap(" ".join(map(str, args))), **kw)
