"""Claims: one sentence of a paper made checkable, with our measured value and a verdict.

A chapter keeps one :class:`Claims` ledger and records each claim next to the check that tests it::

    C = Claims("mha-memorization", preset=P["preset"])
    C.close("thm1-T", "Theorem 1: T = H(n-1)+1 examples are memorized", paper=41, ours=41.0, atol=0)
    C.check("prop2-rank", "rank(Z) <= H(n-1)+1 for any weights", paper="<= 41", ours="41 (max over 200 draws)",
            ok=max_rank <= 41)
    C.not_run("fig2-paper", "Fig 2 at d = 64", paper="...", reason="paper preset only")
    C.check("thm1-rank", "rank Z = T for T = H(n-1)+1", kind=THEOREM, paper=41, ours=rank, ok=rank == T,
            control=Control("T+1 examples (one past capacity)", passed=rank_plus == T + 1, value=rank_plus))
    C.table()    # the reader's table (last cell of the chapter)
    C.digest()   # the regression digest: verdicts, and values only where they are machine-stable

**Kinds.** ``theorem`` (a statement of the paper checked by a construction, an exact computation or a
randomized test), ``experiment`` (trained or measured; it records its :class:`Scale`, ours next to the
paper's), ``finding`` (an error or gap in the paper, or an observation of ours) and ``sanity`` (an identity,
a parameter count, a check of our own code: shown, never counted as evidence).

**Controls.** A theorem or experiment claim runs the same criterion, through the same code, on the closest
wrong alternative a skeptic would raise (one example past capacity, the rival curve, the other model, a
perturbed construction) and records it as its :class:`Control`. The control must fail: a claim that holds
while its control passes too gets the verdict **not discriminating**, never "holds". For :meth:`Claims.close`
and :meth:`Claims.bound` a control given as ``(description, alternative value)`` is judged by the very same
tolerance; for :meth:`Claims.check` the caller computes ``passed`` with the same expression as ``ok``.

**Variants.** An experiment claim or a finding is also re-judged under the analysis choices a skeptic would vary
(leave one point out, drop the chance floor or saturation, each reading of an undefined threshold, each seed
alone, the paper's own rule, a tuned hyperparameter's grid extended past its edge), each recorded as a
:class:`Variant` with the criterion's outcome under it (:mod:`lib.core.robust` builds them). A claim whose outcome
flips under any variant gets the verdict **fragile**, never holds or does not hold; the record keeps the verdict
of our own analysis (``base``) and names the variants that flip it (``flips``).

**Scale.** An experiment whose preset is below the smallest scale at which it means anything
(``Scale(..., enough=False, why=...)``) is "not run at this preset" with that reason, never "does not hold".

A claim that does not hold is recorded as such; nothing raises, the notebook completes. The table's
display carries the claims as JSON in its output metadata (key ``attention_claims``); ``python -m lib
claims`` and the results page read them from the executed chapters in ``book/``.
"""
from __future__ import annotations

import math
import textwrap
from dataclasses import asdict, dataclass
from os import PathLike
from typing import Any

HOLDS, FAILS, NOT_RUN = "holds", "does not hold", "not run at this preset"
NOT_DISCRIMINATING, FRAGILE = "not discriminating", "fragile"
VERDICTS = (HOLDS, FAILS, NOT_DISCRIMINATING, FRAGILE, NOT_RUN)
THEOREM, EXPERIMENT, FINDING, SANITY = "theorem", "experiment", "finding", "sanity"
UNCLASSIFIED = "unclassified"          # a claim recorded without a kind (older chapters; to be classified)
KINDS = (THEOREM, EXPERIMENT, FINDING, SANITY)
EVIDENCE = (THEOREM, EXPERIMENT)       # the kinds that count as evidence; each needs a control
JUDGED = (EXPERIMENT, FINDING)         # the kinds re-judged under a skeptic's variants
META_KEY = "attention_claims"


@dataclass
class Control:
    """The claim's criterion applied to the closest wrong alternative. ``passed`` must be False."""
    description: str   # the alternative, e.g. "T+1 examples (one past capacity)", "the rival fit y = a H^2"
    passed: bool       # did the alternative pass the same criterion?
    value: str = ""    # the alternative's measured value, formatted

    def as_dict(self) -> dict[str, Any]:
        return {"description": self.description, "passed": bool(self.passed), "value": str(self.value)}


@dataclass
class Variant:
    """The claim's criterion under one analysis choice a skeptic would vary; ``ok`` is its outcome there."""
    choice: str        # e.g. "drop H = 1 (the chance floor)", "seed 2 alone", "lr grid extended to 0.5"
    ok: bool           # does the claim's criterion hold under this choice?
    value: str = ""    # ours under this choice, formatted

    def as_dict(self) -> dict[str, Any]:
        return {"choice": self.choice, "ok": bool(self.ok), "value": str(self.value)}


@dataclass
class Scale:
    """The scale an experiment ran at, next to the paper's; ``enough`` False means below the smallest scale
    at which the claim means anything (the verdict is then "not run at this preset", with ``why``)."""
    ours: str
    paper: str
    enough: bool = True
    why: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"ours": self.ours, "paper": self.paper, "enough": bool(self.enough), "why": self.why}


def _bool(x: Any, what: str) -> bool:
    if not isinstance(x, bool) and type(x).__name__ not in ("bool_", "bool"):
        raise TypeError(f"{what} must be a bool computed from a measurement, got {type(x)}")
    return bool(x)


@dataclass
class Claim:
    id: str
    statement: str   # the paper's sentence, made checkable
    paper: str       # the paper's statement or number
    ours: str        # our measured value, formatted
    criterion: str   # the tolerance or the inequality that decides the verdict
    verdict: str     # HOLDS | FAILS | NOT_RUN
    stable: bool     # True when `ours` is the same on any x86 CPU (exact results, integers)
    kind: str = UNCLASSIFIED
    control: dict | None = None   # Control.as_dict()
    scale: dict | None = None     # Scale.as_dict()
    variants: list | None = None  # [Variant.as_dict()], the criterion under each analysis choice
    base: str = ""                # the verdict under our own analysis, before the variants
    flips: list | None = None     # the choices of the variants whose outcome differs from ours

    def __repr__(self) -> str:
        """One line shown under the check that recorded it; the value only when it is machine-stable. Long parts
        (the value, the control, the first flipping choice) are cut at :data:`PART_CHARS`: the claims table's row
        has them whole."""
        line = f"{MARK[self.verdict]} {self.kind} claim {self.id}: {self.verdict}"
        if self.verdict == FRAGILE:
            line += f" ({self.base} under our analysis; {_first_flip(self.flips or [], len(self.variants or []))})"
        line += f" (ours: {_cut(self.ours)})" if self.stable else ""
        if self.control is not None:
            line += f"; control ({_cut(self.control['description'])}): " + \
                ("passes" if self.control["passed"] else "fails")
        if self.variants and self.verdict != FRAGILE:
            line += f"; survives {len(self.variants)} variants"
        return line


LINE_WIDTH = 76   # characters of a printed line: an output block holds ~78 at 1280 px (wider lines wrap twice)
PART_CHARS = 56   # a verdict line cuts a value, a control's description or a flipping choice at this many characters
MARK = {HOLDS: "✓", FAILS: "✗", NOT_RUN: "–", NOT_DISCRIMINATING: "≈", FRAGILE: "⚠"}


def _cut(text: str, n: int = PART_CHARS) -> str:
    """``text`` cut at a word boundary before ``n`` characters, with " …" appended when cut."""
    text = str(text)
    if len(text) <= n:
        return text
    cut = text.rfind(" ", 0, n - 2)
    return text[:cut if cut > 0 else n - 2] + " …"


def _first_flip(flips: list[str], n_variants: int) -> str:
    """"flips under: <first choice>[, +k more of n variants]": the rest are in the claims table's details."""
    more = f", +{len(flips) - 1} more of {n_variants} variants" if len(flips) > 1 else ""
    return f"flips under: {_cut(flips[0] if flips else '?')}{more}"


def _variants(id: str, variants: Any, judge: Any = None, fmt: str = ".4g") -> list[Variant] | None:
    """Variants given as :class:`Variant` or tuples: ``(choice, ok[, value])``, or for close/bound ``(choice,
    value)`` judged by the claim's own tolerance (``judge``)."""
    if variants is None:
        return None
    out = []
    for v in variants:
        if isinstance(v, Variant):
            out.append(Variant(v.choice, _bool(v.ok, f"claim '{id}': variant {v.choice!r}"), v.value))
        elif judge is not None and len(v) == 2 and not isinstance(v[1], bool) and \
                type(v[1]).__name__ not in ("bool_", "bool"):
            out.append(Variant(v[0], judge(float(v[1])), format(float(v[1]), fmt)))
        else:
            out.append(Variant(v[0], _bool(v[1], f"claim '{id}': variant {v[0]!r}"), str(v[2]) if len(v) > 2 else ""))
    if not out:
        raise ValueError(f"claim '{id}': variants given but empty")
    return out


class Claims:
    """The ledger of one chapter's claims."""

    def __init__(self, chapter: str, preset: str = "book") -> None:
        self.chapter, self.preset = chapter, preset
        self.claims: dict[str, Claim] = {}
        self._seen = 0            # claims recorded before the last call of :meth:`lines` without ids
        self._shown: set[str] = set()   # ids whose verdict line :meth:`lines` has printed

    def _add(self, claim: Claim, ok: bool, kind: str | None, control: Control | None,
             scale: Scale | None, variants: list[Variant] | None = None) -> Claim:
        if claim.id in self.claims:
            raise ValueError(f"claim id '{claim.id}' recorded twice")
        kind = kind or UNCLASSIFIED
        if kind not in KINDS + (UNCLASSIFIED,):
            raise ValueError(f"claim '{claim.id}': kind must be one of {KINDS}, got {kind!r}")
        claim.kind = kind
        claim.control = None if control is None else control.as_dict()
        claim.scale = None if scale is None else scale.as_dict()
        if scale is not None and not scale.enough:
            claim.verdict = NOT_RUN
            claim.criterion = f"below this claim's meaningful scale: {scale.why} (criterion: {claim.criterion})"
        elif not ok:
            claim.verdict = FAILS
        elif control is not None and control.passed:
            claim.verdict = NOT_DISCRIMINATING
        else:
            claim.verdict = HOLDS
        claim.base = claim.verdict
        if variants is not None and claim.verdict != NOT_RUN:
            claim.variants = [v.as_dict() for v in variants]
            claim.flips = [v.choice for v in variants if v.ok != ok]
            if claim.flips:
                claim.verdict = FRAGILE
        self.claims[claim.id] = claim
        return claim

    def check(self, id: str, statement: str, *, paper: Any, ours: Any, ok: bool, criterion: str = "",
              stable: bool = True, kind: str | None = None, control: Control | tuple | None = None,
              scale: Scale | None = None, variants: list | None = None) -> Claim:
        """A claim decided by a computed boolean ``ok`` (e.g. ``rank == T`` or ``err < 1e-10``). ``control``:
        a :class:`Control`, or ``(description, passed[, value])`` computed by the same expression as ``ok``;
        ``variants``: :class:`Variant` or ``(choice, ok[, value])``, the same expression under each choice."""
        ok = _bool(ok, f"claim '{id}': ok")
        if isinstance(control, tuple):
            control = Control(control[0], _bool(control[1], f"claim '{id}': control"),
                              str(control[2]) if len(control) > 2 else "")
        return self._add(Claim(id, statement, str(paper), str(ours), criterion, "", stable), ok, kind,
                         control, scale, _variants(id, variants))

    def close(self, id: str, statement: str, *, paper: float, ours: float, rtol: float = 0.0,
              atol: float = 0.0, fmt: str = ".4g", stable: bool = False, paper_text: str | None = None,
              kind: str | None = None, control: Control | tuple | None = None, scale: Scale | None = None,
              variants: list | None = None) -> Claim:
        """A number that should match the paper's: holds when |ours - paper| <= atol + rtol*|paper|.
        ``control=(description, alternative value)`` and ``variants=[(choice, value)]`` are judged by the same
        tolerance."""
        def within(x: float) -> bool:
            return math.isfinite(x) and abs(x - paper) <= atol + rtol * abs(paper)
        crit = " + ".join(s for s in (f"{atol:g}" if atol else "", f"{rtol:g}·|paper|" if rtol else "") if s)
        if isinstance(control, tuple):
            control = Control(control[0], within(float(control[1])), format(float(control[1]), fmt))
        return self._add(Claim(id, statement, paper_text or format(paper, fmt), format(ours, fmt),
                               f"|ours − paper| ≤ {crit or '0'}", "", stable), within(ours), kind, control, scale,
                         _variants(id, variants, within, fmt))

    def bound(self, id: str, statement: str, *, ours: float, upper: float | None = None,
              lower: float | None = None, paper: str = "", fmt: str = ".4g", stable: bool = False,
              kind: str | None = None, control: Control | tuple | None = None, scale: Scale | None = None,
              variants: list | None = None) -> Claim:
        """A measured value that must lie inside [lower, upper]. ``control=(description, alternative
        value)`` and ``variants=[(choice, value)]`` are judged by the same interval."""
        def inside(x: float) -> bool:
            return math.isfinite(x) and (upper is None or x <= upper) and (lower is None or x >= lower)
        crit = " ≤ ".join(s for s in (format(lower, fmt) if lower is not None else "", "ours",
                                      format(upper, fmt) if upper is not None else "") if s)
        if isinstance(control, tuple):
            control = Control(control[0], inside(float(control[1])), format(float(control[1]), fmt))
        return self._add(Claim(id, statement, paper or crit, format(ours, fmt), crit, "", stable), inside(ours),
                         kind, control, scale, _variants(id, variants, inside, fmt))

    def not_run(self, id: str, statement: str, *, paper: Any, reason: str, kind: str | None = None,
                scale: Scale | None = None) -> Claim:
        """A claim this preset does not test (e.g. one that needs the paper's scale)."""
        c = self._add(Claim(id, statement, str(paper), "—", reason, "", True), True, kind, None, scale)
        c.verdict, c.criterion = NOT_RUN, reason
        return c

    def sanity(self, id: str, statement: str, **kw: Any) -> Claim:
        """A check of an identity, a count or our own code (:meth:`check` with ``kind=SANITY``)."""
        return self.check(id, statement, kind=SANITY, **kw)

    def missing_controls(self) -> list[str]:
        """Ids of theorem and experiment claims that were run without a control."""
        return [c.id for c in self.claims.values()
                if c.kind in EVIDENCE and c.control is None and c.verdict != NOT_RUN]

    def missing_variants(self) -> list[str]:
        """Ids of experiment claims and findings that were judged without a skeptic's variants."""
        return [c.id for c in self.claims.values()
                if c.kind in JUDGED and c.variants is None and c.verdict != NOT_RUN]

    # ---- display -------------------------------------------------------------------------
    def records(self) -> list[dict[str, Any]]:
        return [dict(asdict(c), chapter=self.chapter, preset=self.preset) for c in self.claims.values()]

    def counts(self) -> dict[str, int]:
        out = {v: 0 for v in VERDICTS}
        for c in self.claims.values():
            out[c.verdict] += 1
        return out

    def kinds(self) -> dict[str, int]:
        out = {k: 0 for k in KINDS + (UNCLASSIFIED,)}
        for c in self.claims.values():
            out[c.kind] += 1
        return {k: v for k, v in out.items() if v}

    def lines(self, *ids: str, sanity: bool = True, width: int = LINE_WIDTH) -> None:
        """Print the verdict line (the repr) of the claims ``ids``, or of every claim recorded since the last call
        without ids that no call has printed yet (sanity checks only when ``sanity``), wrapped at ``width`` with indented continuations: the line a page
        shows under the check that recorded the claim (the verdict box links to it, :mod:`lib.book.verdicts`)."""
        recs = [self.claims[i] for i in ids] if ids else \
            [c for c in list(self.claims.values())[self._seen:] if c.id not in self._shown]
        self._seen = self._seen if ids else len(self.claims)
        self._shown.update(c.id for c in recs)
        for c in recs:
            if sanity or c.kind != SANITY:
                print(textwrap.fill(repr(c), width, subsequent_indent="    ", break_on_hyphens=False,
                                    break_long_words=False))

    def table(self) -> None:
        """Display the reader's claims table; its output metadata carries the claims as JSON."""
        from IPython.display import display

        from lib.core.claimtable import to_html
        display({"text/html": to_html(self.records()), "text/plain": self.summary()},
                metadata={META_KEY: self.records()}, raw=True)

    def summary(self) -> str:
        c = self.counts()
        nd = f", {c[NOT_DISCRIMINATING]} not discriminating" if c[NOT_DISCRIMINATING] else ""
        nd += f", {c[FRAGILE]} fragile" if c[FRAGILE] else ""
        kinds = ", ".join(f"{v} {k}" for k, v in self.kinds().items())
        return (f"{len(self.claims)} claims ({kinds}): {c[HOLDS]} hold, {c[FAILS]} do not hold{nd}, "
                f"{c[NOT_RUN]} not run at preset '{self.preset}'")

    def digest(self) -> None:
        """Print the machine-stable part of the ledger (for the nbval regression)."""
        print(self.summary())
        for c in self.claims.values():
            ctl = "" if c.control is None else f" | control {'passes' if c.control['passed'] else 'fails'}"
            frag = f" ({c.base}; flips under: {'; '.join(c.flips or [])})" if c.verdict == FRAGILE else ""
            print(f"{c.id} [{c.kind}]: {c.verdict}{frag}" + (f" | ours = {c.ours}" if c.stable else "") + ctl)


def from_notebook(nb: Any) -> list[dict[str, Any]]:
    """All claim records found in the output metadata of an executed notebook (a path, or the notebook read)."""
    import nbformat
    nb = nbformat.read(nb, as_version=4) if isinstance(nb, (str, PathLike)) else nb
    out: list[dict[str, Any]] = []
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            out.extend(o.get("metadata", {}).get(META_KEY, []))
    return out
