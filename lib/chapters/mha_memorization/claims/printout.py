"""Presentation of a cell's printout: the stored-evidence readers' labels (:class:`StoredLabels`), or every line
but the verdict lines (:class:`Printout`), folded into one <details>."""
from __future__ import annotations

import html
import re
import sys

VERDICT = re.compile(r"^\S+ (theorem|experiment|finding|sanity) claim ")     # lib.core.claims' verdict line


class StoredLabels:
    """``with StoredLabels(summary):`` folds the lines a stored-evidence reader prints first (the stored runs' labels,
    "stored run of …; reproduce with …", the state of a sweep not yet judged, and lines starting with one of
    ``also``) into one <details>, shown where the first other line is printed; a STALE label stays in the text."""

    def __init__(self, summary: str, also: tuple[str, ...] = ()):
        self.summary, self.lines, self.buf = summary, [], ""
        self.starts = ("stored run of", "no stored run", "not yet judged") + also

    def __enter__(self):
        self.out, sys.stdout = sys.stdout, self
        return self

    def write(self, s: str) -> int:
        self.buf += s
        while "\n" in self.buf:
            line, self.buf = self.buf.split("\n", 1)
            if self.lines is not None and self._folds(line):
                self.lines.append(line)
            else:
                self._show()
                self.out.write(line + "\n")
        return len(s)

    def flush(self) -> None:
        self.out.flush()

    def __getattr__(self, name: str):
        if name == "out":
            raise AttributeError(name)
        return getattr(self.out, name)      # encoding, isatty, ... of the stream it wraps

    def _folds(self, line: str) -> bool:
        return line.startswith(self.starts) and "STALE" not in line

    def _body(self) -> str:
        return "\n".join(f"* {t}" for t in self.lines)

    def _show(self) -> None:
        from IPython.display import Markdown, display
        if self.lines:
            display(Markdown(f"<details><summary>{html.escape(self.summary)}</summary>\n\n{self._body()}\n\n</details>"))
        self.lines = None

    def __exit__(self, *exc) -> None:
        self.write("\n" if self.buf else "")
        self._show()
        sys.stdout = self.out


class Printout(StoredLabels):
    """``with Printout(summary):`` folds every line printed before the first verdict line (a claim's
    :meth:`~lib.core.claims.Claims.lines`) into one <details>, as preformatted text; the verdict lines and what
    follows them stay in the text."""

    def _folds(self, line: str) -> bool:
        return not VERDICT.match(line)

    def _body(self) -> str:
        return "```text\n" + "\n".join(self.lines) + "\n```"
