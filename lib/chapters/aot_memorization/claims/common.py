"""What every claim module of the chapter shares: a stored sweep's claims recorded as not run, the largest gap to
the paper's numbers, and the page's wrapped printing (:func:`say`, :func:`wrap`; verdict lines are printed by
:meth:`lib.core.claims.Claims.lines`)."""
from __future__ import annotations

import contextlib
import functools
import html
import io
import textwrap

from lib.chapters.aot_memorization.claims import stored as S
from lib.core.claims import EXPERIMENT, LINE_WIDTH, Claims

WIDTH = LINE_WIDTH           # characters of a printed line at the page's text width


MODEL_ID = {"official": "", "paper": "-eq2"}            # the id suffix of each model's claims (eq. (2)'s: -eq2)
MODEL_NAME = {"official": "official", "paper": "eq. (2)"}  # the model's name in a statement: "[eq. (2) model]"


def model_id(v: str) -> str:
    """The claim-id suffix of the model ``v`` ("" for the official code's, "-eq2" for the AoT of eqs. (1)-(2)): a
    statement judged on the eq. (2) model is its own row of the claims table, never paired with a paper-scale id."""
    return MODEL_ID.get(v, f"-{v}")


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


FOLD_LINES = 3               # printouts of more lines than this are folded on the page (:func:`folded`)


@contextlib.contextmanager
def folded(summary: str = "the numbers behind the verdicts", lines: int = FOLD_LINES):
    """Capture what the block prints; print it as is when it is at most ``lines`` lines, else display it folded
    (an HTML ``<details>`` block headed ``summary``), so that the page shows the verdicts and figures and keeps the
    tables one click away (issue 28: the text before the claims table fits in 30 screens)."""
    buf = io.StringIO()
    try:
        with contextlib.redirect_stdout(buf):
            yield
    finally:
        text = buf.getvalue().rstrip("\n")
        if text.count("\n") < lines:
            print(text) if text else None
        else:
            from IPython.display import HTML, display
            display(HTML(f"<details class='printout'><summary>{html.escape(summary)} ({text.count(chr(10)) + 1} "
                         f"lines)</summary><pre>{html.escape(text)}</pre></details>"))


def details(md: str, summary: str) -> str:
    """The markdown ``md`` folded under ``summary`` (an HTML ``<details>`` block; the page renders the markdown inside)."""
    return f"<details><summary>{html.escape(summary)}</summary>\n\n{md}\n\n</details>"


def note(md: str, summary: str) -> None:
    """Display a generated prose note (markdown) folded under ``summary`` (:func:`details`): the page keeps it one
    click away (issue 28)."""
    from IPython.display import Markdown, display
    display(Markdown(details(md, summary)))


def prints_verdicts(fn):
    """Decorate a function ``fn(C, ...)`` that records claims: what it prints is folded (:func:`folded`); after it,
    the verdict line of every claim recorded since the last print (:meth:`lib.core.claims.Claims.lines`, sanity
    checks left out), the lines the page shows under the check and the verdict box links to."""
    @functools.wraps(fn)
    def run(C, *args, **kw):
        try:
            with folded():
                return fn(C, *args, **kw)
        finally:
            C.lines(sanity=False)
    return run
