"""Claims: one sentence of a paper made checkable, with our measured value and a verdict.

A chapter keeps one :class:`Claims` ledger and records each claim next to the check that tests it::

    C = Claims("mha-memorization", preset=P["preset"])
    C.close("thm1-T", "Theorem 1: T = H(n-1)+1 examples are memorized", paper=41, ours=41.0, atol=0)
    C.check("prop2-rank", "rank(Z) <= H(n-1)+1 for any weights", paper="<= 41", ours="41 (max over 200 draws)",
            ok=max_rank <= 41)
    C.not_run("fig2-paper", "Fig 2 at d = 64", paper="...", reason="paper preset only")
    C.table()    # the reader's table (last cell of the chapter)
    C.digest()   # the regression digest: verdicts, and values only where they are machine-stable

A claim that does not hold is recorded as such; nothing raises, the notebook completes. The table's
display carries the claims as JSON in its output metadata (key ``attention_claims``); ``python -m lib
claims`` and the results page read them from the executed chapters in ``book/``.
"""
from __future__ import annotations

import html
import math
from dataclasses import asdict, dataclass
from typing import Any

HOLDS, FAILS, NOT_RUN = "holds", "does not hold", "not run at this preset"
META_KEY = "attention_claims"


@dataclass
class Claim:
    id: str
    statement: str   # the paper's sentence, made checkable
    paper: str       # the paper's statement or number
    ours: str        # our measured value, formatted
    criterion: str   # the tolerance or the inequality that decides the verdict
    verdict: str     # HOLDS | FAILS | NOT_RUN
    stable: bool     # True when `ours` is the same on any x86 CPU (exact results, integers)

    def __repr__(self) -> str:
        """One line shown under the check that recorded it; the value only when it is machine-stable."""
        mark = {HOLDS: "✓", FAILS: "✗", NOT_RUN: "–"}[self.verdict]
        return f"{mark} claim {self.id}: {self.verdict}" + (f" (ours: {self.ours})" if self.stable else "")


class Claims:
    """The ledger of one chapter's claims."""

    def __init__(self, chapter: str, preset: str = "book") -> None:
        self.chapter, self.preset = chapter, preset
        self.claims: dict[str, Claim] = {}

    def _add(self, claim: Claim) -> Claim:
        if claim.id in self.claims:
            raise ValueError(f"claim id '{claim.id}' recorded twice")
        self.claims[claim.id] = claim
        return claim

    def check(self, id: str, statement: str, *, paper: Any, ours: Any, ok: bool,
              criterion: str = "", stable: bool = True) -> Claim:
        """A claim decided by a computed boolean ``ok`` (e.g. ``rank == T`` or ``err < 1e-10``)."""
        if not isinstance(ok, (bool,)) and type(ok).__name__ not in ("bool_", "bool"):
            raise TypeError(f"claim '{id}': ok must be a bool computed from a measurement, got {type(ok)}")
        return self._add(Claim(id, statement, str(paper), str(ours), criterion,
                               HOLDS if bool(ok) else FAILS, stable))

    def close(self, id: str, statement: str, *, paper: float, ours: float, rtol: float = 0.0,
              atol: float = 0.0, fmt: str = ".4g", stable: bool = False, paper_text: str | None = None) -> Claim:
        """A number that should match the paper's: holds when |ours - paper| <= atol + rtol*|paper|."""
        ok = math.isfinite(ours) and abs(ours - paper) <= atol + rtol * abs(paper)
        crit = " + ".join(s for s in (f"{atol:g}" if atol else "", f"{rtol:g}·|paper|" if rtol else "") if s)
        return self._add(Claim(id, statement, paper_text or format(paper, fmt), format(ours, fmt),
                               f"|ours − paper| ≤ {crit or '0'}", HOLDS if ok else FAILS, stable))

    def bound(self, id: str, statement: str, *, ours: float, upper: float | None = None,
              lower: float | None = None, paper: str = "", fmt: str = ".4g", stable: bool = False) -> Claim:
        """A measured value that must lie inside [lower, upper]."""
        ok = math.isfinite(ours) and (upper is None or ours <= upper) and (lower is None or ours >= lower)
        crit = " ≤ ".join(s for s in (format(lower, fmt) if lower is not None else "", "ours",
                                      format(upper, fmt) if upper is not None else "") if s)
        return self._add(Claim(id, statement, paper or crit, format(ours, fmt), crit,
                               HOLDS if ok else FAILS, stable))

    def not_run(self, id: str, statement: str, *, paper: Any, reason: str) -> Claim:
        """A claim this preset does not test (e.g. one that needs the paper's scale)."""
        return self._add(Claim(id, statement, str(paper), "—", reason, NOT_RUN, True))

    # ---- display -------------------------------------------------------------------------
    def records(self) -> list[dict[str, Any]]:
        return [dict(asdict(c), chapter=self.chapter, preset=self.preset) for c in self.claims.values()]

    def counts(self) -> dict[str, int]:
        out = {HOLDS: 0, FAILS: 0, NOT_RUN: 0}
        for c in self.claims.values():
            out[c.verdict] += 1
        return out

    def table(self) -> None:
        """Display the reader's claims table; its output metadata carries the claims as JSON."""
        from IPython.display import display
        display({"text/html": to_html(self.records()), "text/plain": self.summary()},
                metadata={META_KEY: self.records()}, raw=True)

    def summary(self) -> str:
        c = self.counts()
        return (f"{len(self.claims)} claims: {c[HOLDS]} hold, {c[FAILS]} do not hold, "
                f"{c[NOT_RUN]} not run at preset '{self.preset}'")

    def digest(self) -> None:
        """Print the machine-stable part of the ledger (for the nbval regression)."""
        print(self.summary())
        for c in self.claims.values():
            print(f"{c.id}: {c.verdict}" + (f" | ours = {c.ours}" if c.stable else ""))


_BADGE = {HOLDS: ("✓ holds", "#1a7f37"), FAILS: ("✗ does not hold", "#cf222e"),
          NOT_RUN: ("– not run at this preset", "#6e7781")}


def to_html(records: list[dict[str, Any]], with_chapter: bool = False) -> str:
    """Render claim records as an HTML table (used in chapters and on the results page)."""
    e = html.escape
    head = ("<th>chapter</th>" if with_chapter else "") + \
        "<th>claim</th><th>statement</th><th>paper</th><th>ours</th><th>criterion</th><th>verdict</th>"
    rows = []
    for r in records:
        label, colour = _BADGE[r["verdict"]]
        rows.append("<tr>" + (f"<td>{e(r['chapter'])}</td>" if with_chapter else "") +
                    f"<td><code>{e(r['id'])}</code></td><td>{e(r['statement'])}</td><td>{e(r['paper'])}</td>"
                    f"<td>{e(r['ours'])}</td><td>{e(r['criterion'])}</td>"
                    f"<td style='color:{colour};font-weight:600;white-space:nowrap'>{label}</td></tr>")
    return f"<table class='table claims-table'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def from_notebook(path: str) -> list[dict[str, Any]]:
    """All claim records found in the output metadata of an executed notebook."""
    import nbformat
    nb = nbformat.read(path, as_version=4)
    out: list[dict[str, Any]] = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            out.extend(o.get("metadata", {}).get(META_KEY, []))
    return out
