"""The verdict box at the top of a chapter, and the anchors between its claims table and its text.

After a chapter executes, :func:`annotate` reads its claims ledger (the table's output metadata) and

1. puts an anchor ``claim-<id>`` before each cell that prints a claim's verdict line, so that the box and the
   table link to the check in the text;
2. links each id in the claims table to that anchor (or, without a verdict line in the text, leaves the row's own
   anchor ``row-<id>``);
3. writes the verdict box, a markdown cell right after the title: one line per theorem, proposition, lemma,
   figure, table and experiment of the paper (parsed from the claim ids, e.g. ``thm1-exact`` → Theorem 1,
   ``fig2a-linear-paper-scale`` → Fig. 2(a)), each claim with its verdict mark and scale, then the findings.

Nothing here changes a checked output: anchors go into markdown cells and into the table's HTML.
"""
from __future__ import annotations

import html
import re
from collections import defaultdict
from typing import Any

from lib.core.claims import FINDING, FRAGILE, MARK, META_KEY, SANITY, VERDICTS, from_notebook

BOX_TAG = "verdict-box"
_ANCHOR = "<a id=\"claim-{}\"></a>"
_LINE = re.compile(r"^[✓✗–≈⚠] \w+ claim (\S+): ", re.M)
_KINDS = [("thm", "Theorem"), ("prop", "Proposition"), ("lemma", "Lemma"), ("cor", "Corollary"),
          ("claim", "Claim"), ("remark", "Remark"), ("def", "Definition"), ("fact", "Fact"), ("eq", "Eq."),
          ("fig", "Fig."), ("table", "Table"), ("exp", "Exp."), ("app", "App.")]
_REF = re.compile(r"^(thm|prop|lemma|cor|claim|remark|def|fact|eq|fig|table|exp|app)([0-9]*)([a-zA-Z]?)([0-9]*)(?=-|$)")


def declared(chapter: str, name: str) -> dict:
    """A chapter package's declared table ``name`` (``REFS``: claim-id head → the paper's name for it, where the
    default parsing misnames it; ``ERRATA``: claim id → (category, what is wrong)); empty when it declares none."""
    import importlib
    return getattr(importlib.import_module(f"lib.chapters.{chapter.replace('-', '_')}"), name, {})


def ref_of(claim_id: str, overrides: dict[str, str] | None = None) -> str | None:
    """The paper's statement a claim id names (``thm1-exact`` → "Theorem 1", ``fig2a`` → "Fig. 2(a)",
    ``appB1-exp2`` → "App. B.1"), or None (a finding or a check of ours)."""
    head = claim_id.split("-")[0]
    if overrides and head in overrides:
        return overrides[head]
    m = _REF.match(claim_id)
    if not m or not (m.group(2) or m.group(3)):
        return None
    kind, num, letter, sub = m.groups()
    name = dict(_KINDS)[kind]
    if kind == "app":
        return f"{name} {letter.upper()}" + (f".{sub}" if sub else "")
    if kind == "fig" and letter:
        return f"{name} {num}({letter})"
    return f"{name} {num}{letter}{sub}"


def _order(ref: str) -> tuple:
    kind = next((i for i, (_, name) in enumerate(_KINDS) if ref.startswith(name)), len(_KINDS))   # REFS may name anything
    return (kind, [int(t) if t.isdigit() else t for t in re.findall(r"\d+|\D+", ref)])


def _scale(r: dict[str, Any]) -> str:
    if "paper-scale" in r["id"]:
        return "paper scale"
    return ""


def _mark(r: dict[str, Any], anchors: set[str]) -> str:
    target = f"claim-{r['id']}" if r["id"] in anchors else f"row-{r['id']}"
    scale = _scale(r)
    title = r["verdict"] + (f" ({r.get('base', '')}; flips under: {'; '.join(r.get('flips') or [])})"
                            if r["verdict"] == FRAGILE else "")
    return (f"<a href=\"#{target}\" title=\"{html.escape(title)}\">{MARK[r['verdict']]}&nbsp;{html.escape(r['id'])}"
            f"</a>" + (f" <small>({scale})</small>" if scale else ""))


def box(records: list[dict[str, Any]], anchors: set[str], overrides: dict[str, str] | None = None) -> str:
    """The verdict box (HTML inside a markdown cell)."""
    counts = {v: sum(r["verdict"] == v for r in records) for v in VERDICTS}
    head = ", ".join(f"{MARK[v]} {n} {v}" for v, n in counts.items() if n)
    by_ref: dict[str, list] = defaultdict(list)
    other, findings = [], []
    for r in records:
        ref = ref_of(r["id"], overrides)
        if ref:
            by_ref[ref].append(r)
        elif r.get("kind") == FINDING:
            findings.append(r)
        elif r.get("kind") != SANITY:
            other.append(r)
    rows = [(ref, by_ref[ref]) for ref in sorted(by_ref, key=_order)]
    rows += [("Findings", findings)] if findings else []
    rows += [("Other claims", other)] if other else []
    body = "".join(f"<tr><th>{html.escape(ref)}</th><td>{' · '.join(_mark(r, anchors) for r in rs)}</td></tr>"
                   for ref, rs in rows)
    legend = ("✓ holds · ✗ does not hold · ≈ not discriminating (its control passes too) · ⚠ fragile (flips under "
              "an analysis choice a skeptic would vary; hover for which) · – not run at this preset. Each mark links "
              "to the check; the claims table at the end gives criterion, control and variants.")
    return (f"<div class=\"verdict-box\">\n<p><b>Verdicts.</b> {len(records)} claims: {head}. "
            f"<small>(sanity checks are counted, not listed)</small></p>\n"
            f"<table class=\"verdict-box-table\"><tbody>{body}</tbody></table>\n<p><small>{legend}</small></p>\n</div>")


def _text(cell: Any) -> str:
    out = []
    for o in cell.get("outputs", []):
        out.append(o.get("text", "") if o.get("output_type") == "stream" else o.get("data", {}).get("text/plain", ""))
    return "\n".join(x if isinstance(x, str) else "".join(x) for x in out)


def _place_anchors(nb: Any) -> set[str]:
    """Anchors ``claim-<id>`` before each cell that prints a verdict line; returns the ids anchored."""
    import nbformat
    cells, found = [], set()
    for cell in nb.cells:
        if cell.cell_type == "markdown" and "claim-anchors" in cell.metadata.get("tags", []):
            continue                                        # anchors of an earlier annotation: rebuilt
        ids = [i for i in _LINE.findall(_text(cell)) if i not in found] if cell.cell_type == "code" else []
        if ids:
            found.update(ids)
            cells.append(nbformat.v4.new_markdown_cell("".join(_ANCHOR.format(html.escape(i)) for i in ids),
                                                       metadata={"tags": ["claim-anchors"]}))
        cells.append(cell)
    nb.cells = cells
    return found


def _link_table(nb: Any, anchors: set[str]) -> None:
    for cell in nb.cells:
        for o in cell.get("outputs", []):
            if META_KEY in o.get("metadata", {}) and "text/html" in o.get("data", {}):
                o["data"]["text/html"] = re.sub(
                    r"<code>([^<]+)</code>",
                    lambda m: (f"<a href='#claim-{m.group(1)}'><code>{m.group(1)}</code></a>"
                               if html.unescape(m.group(1)) in anchors else m.group(0)), o["data"]["text/html"])


def annotate(nb: Any, overrides: dict[str, str] | None = None) -> None:
    """Anchors, table links and the verdict box (module docstring), in place; no-op without a ledger."""
    import nbformat
    records = [r for r in from_notebook(nb) if r["verdict"] in VERDICTS]
    if not records:
        return
    anchors = _place_anchors(nb)
    _link_table(nb, anchors)
    nb.cells = [c for c in nb.cells if BOX_TAG not in c.metadata.get("tags", [])]
    cell = nbformat.v4.new_markdown_cell(box(records, anchors, overrides), metadata={"tags": [BOX_TAG]})
    first = next((i for i, c in enumerate(nb.cells) if c.cell_type == "markdown"), 0)
    nb.cells.insert(first + 1, cell)

