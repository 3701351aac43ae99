"""Show the function behind a construction on the page where it is used (used by every chapter).

:func:`show` displays each function's source in a collapsed HTML ``<details>`` block headed by its module
path, so the reader can open the code the check runs without the page turning into code. Plain HTML
renders the same in Jupyter and in the offline Jupyter Book site."""
from __future__ import annotations

import html
import inspect
from pathlib import Path
from typing import Callable

ROOT = Path(__file__).resolve().parents[2]


def details(*fns: Callable, summary: str = "") -> str:
    """The HTML of one collapsed block holding the sources of ``fns``."""
    parts, where = [], []
    for fn in map(inspect.unwrap, fns):          # a decorated function: the file and line of its own definition
        path = Path(inspect.getsourcefile(fn)).resolve().relative_to(ROOT).as_posix()
        line = inspect.getsourcelines(fn)[1]
        where.append(f"<code>{html.escape(path)}:{line}</code> · <code>{html.escape(fn.__name__)}</code>")
        parts.append(f"<pre><code class='language-python'>{html.escape(inspect.getsource(fn))}</code></pre>")
    head = html.escape(summary) or "Source"
    return (f"<details class='source-block'><summary>{head}: {', '.join(where)}</summary>"
            f"{''.join(parts)}</details>")


def show(*fns: Callable, summary: str = "") -> None:
    """Display :func:`details` (an HTML output; its text/plain form names the functions)."""
    from IPython.display import display
    names = ", ".join(f.__name__ for f in fns)
    display({"text/html": details(*fns, summary=summary), "text/plain": f"source of {names}"}, raw=True)
