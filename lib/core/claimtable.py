"""The claims tables: a chapter's (:func:`to_html`, one row per statement of the paper, verdict first, its paper-scale
twin in a column of its own) and the results page's compact summary (:func:`summary_html`). Both read the records
of :mod:`lib.core.claims` and give each row the same ``id`` and ``data-*`` attributes, so one filter serves both."""
from __future__ import annotations

import html
from typing import Any

from lib.core.claims import EVIDENCE, FAILS, FRAGILE, HOLDS, NOT_DISCRIMINATING, NOT_RUN, UNCLASSIFIED

_BADGE = {HOLDS: ("✓ holds", "#1a7f37"), FAILS: ("✗ does not hold", "#cf222e"),
          NOT_DISCRIMINATING: ("≈ not discriminating", "#8c959f"), NOT_RUN: ("– not run at this preset", "#6e7781"),
          FRAGILE: ("⚠ fragile", "#9a6700")}


def _badge(r: dict[str, Any]) -> str:
    """The coloured verdict label of a record."""
    label, colour = _BADGE[r["verdict"]]
    return f"<span style='color:{colour};font-weight:600;white-space:nowrap'>{label}</span>"


def _verdict_html(r: dict[str, Any]) -> str:
    """The verdict badge; a fragile claim says what our analysis gives and which variants flip it."""
    out = _badge(r)
    if r["verdict"] == FRAGILE:
        out += (f"<br><small>{html.escape(r.get('base', ''))} under our analysis; flips under: "
                f"{html.escape('; '.join(r.get('flips') or []))}</small>")
    elif r.get("variants"):
        out += f"<br><small>survives {len(r['variants'])} variants</small>"
    return out


def _control_html(r: dict[str, Any]) -> str:
    c = r.get("control")
    if not c:
        return "—" if r.get("kind", UNCLASSIFIED) in EVIDENCE else ""
    res = "passes (!)" if c["passed"] else "fails, as it must"
    val = f" ({html.escape(c['value'])})" if c.get("value") else ""
    return f"{html.escape(c['description'])}{val}: <b>{res}</b>"


def _scale_html(r: dict[str, Any]) -> str:
    s = r.get("scale")
    return "" if not s else f"ours: {html.escape(s['ours'])}<br>paper: {html.escape(s['paper'])}"


def _details_html(r: dict[str, Any]) -> str:
    """Criterion, control, scale and variants, folded (the table fits the text column)."""
    e = html.escape
    parts = [f"<b>criterion</b>: {e(r['criterion'])}"] if r.get("criterion") else []
    ctl = _control_html(r)
    parts += [f"<b>control</b>: {ctl}"] if ctl else []
    sc = _scale_html(r)
    parts += [f"<b>scale</b>: {sc}"] if sc else []
    if r.get("variants"):
        vs = "".join(f"<li>{'✓' if v['ok'] else '✗'} {e(v['choice'])}" + (f" ({e(v['value'])})" if v.get("value") else "")
                     + "</li>" for v in r["variants"])
        parts.append(f"<b>variants</b> (the criterion under a skeptic's analysis choices):<ul>{vs}</ul>")
    return f"<details><summary>details</summary>{'<br>'.join(parts)}</details>" if parts else ""


PAPER_SCALE = "-paper-scale"   # the id suffix of a statement's claim at the paper's scale (stored evidence)


def _twins(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """``{id: record at the paper's scale}`` for every claim whose id + :data:`PAPER_SCALE` is also a claim of the
    same chapter: the same statement of the paper at two scales, shown in one row."""
    by = {(r.get("chapter", ""), r["id"]): r for r in records}
    return {r["id"] + "@" + r.get("chapter", ""): by[(r.get("chapter", ""), r["id"] + PAPER_SCALE)]
            for r in records if (r.get("chapter", ""), r["id"] + PAPER_SCALE) in by}


def _row(r: dict[str, Any], twin: dict[str, Any] | None, scales: bool) -> str:
    """One statement's row; with ``scales``, the paper-scale verdict in a column of its own."""
    e, kind = html.escape, r.get("kind", UNCLASSIFIED)
    at_paper = r["id"].endswith(PAPER_SCALE) and twin is None
    book, paper = (None, r) if at_paper else (r, twin)
    verdicts = " ".join(x["verdict"] for x in (book, paper) if x)
    cells = (f"<td>{_verdict_html(book) if book else '—'}</td>" +
             (f"<td>{_verdict_html(paper) + '<br><small>ours: ' + e(paper['ours']) + '</small>' if paper else '—'}"
              "</td>" if scales else ""))
    anchor = f"<span id='row-{e(twin['id'])}'></span>" if twin else ""
    more = (f"<details><summary>at the paper's scale: <code>{e(twin['id'])}</code></summary>{e(twin['statement'])}"
            f"{_details_html(twin)}</details>") if twin else ""
    return (f"<tr id='row-{e(r['id'])}' data-kind='{e(kind)}' data-verdict='{e(verdicts)}' "
            f"data-chapter='{e(r.get('chapter', ''))}'>{cells}" +
            f"<td>{anchor}<code>{e(r['id'])}</code> <small>({e(kind)})</small><br>{e(r['statement'])}"
            f"{_details_html(r)}{more}</td><td>{e(r['paper'])}</td><td>{e(r['ours']) if book else '—'}</td></tr>")


def _summary_row(r: dict[str, Any], twin: dict[str, Any] | None) -> str:
    """One statement's row of the results page: the verdict(s), the chapter, the id linked to the chapter's row,
    and the statement folded behind its first words (paper, ours, criterion, control and variants inside)."""
    e, kind = html.escape, r.get("kind", UNCLASSIFIED)
    verdict = _badge(r) + (f"<br><small>paper scale:</small> {_badge(twin)}" if twin else "")
    words = r["statement"] if len(r["statement"]) <= 64 else r["statement"][:r["statement"].rfind(" ", 0, 62)] + " …"
    body = (f"{e(r['statement'])}<br><b>paper</b>: {e(r['paper'])}<br><b>ours</b>: {e(r['ours'])}"
            + (f"<br><b>at the paper's scale</b> (<code>{e(twin['id'])}</code>): {e(twin['ours'])}" if twin else "")
            + _details_html(r))
    ch = r.get("chapter", "")
    return (f"<tr id='row-{e(ch)}-{e(r['id'])}' data-kind='{e(kind)}' data-verdict='{e(' '.join(x['verdict'] for x in (r, twin) if x))}' "
            f"data-chapter='{e(ch)}'><td>{verdict}</td><td>{e(ch)}</td><td><a href='{e(ch)}.html#row-{e(r['id'])}'>"
            f"<code>{e(r['id'])}</code></a> <small>({e(kind)})</small> <details><summary>{e(words)}</summary>{body}"
            "</details></td></tr>")


def _statements(records: list[dict[str, Any]]) -> list[tuple[dict[str, Any], dict[str, Any] | None]]:
    """``(record, its paper-scale twin or None)`` per statement, in the ledger's order; a twin is not a statement
    of its own (:func:`_twins`)."""
    twins = _twins(records)
    shown = {(t.get("chapter", ""), t["id"]) for t in twins.values()}
    return [(r, twins.get(r["id"] + "@" + r.get("chapter", ""))) for r in records
            if (r.get("chapter", ""), r["id"]) not in shown]


def summary_html(records: list[dict[str, Any]]) -> str:
    """The results page's table: one compact row per statement of every chapter (:func:`_summary_row`), the same
    row ids and data attributes as :func:`to_html` so that one filter serves both."""
    rows = [_summary_row(r, twin) for r, twin in _statements(records)]
    return ("<table class='table claims-table claims-summary'><thead><tr><th>verdict</th><th>chapter</th><th>claim"
            f"</th></tr></thead><tbody>{''.join(rows)}</tbody></table>")


def to_html(records: list[dict[str, Any]]) -> str:
    """Render claim records as a chapter's claims table (the results page has :func:`summary_html`): one row per statement,
    verdict first (when some statement is also judged at the paper's scale, from stored evidence, that verdict
    in a column of its own), then the claim, the paper's value and ours; criterion, control, scale and variants
    folded. Each row carries ``id`` (``row-<claim id>``; the paper-scale twin's id as an anchor inside),
    ``data-kind``, ``data-verdict`` (the verdicts of the row, space-separated) and ``data-chapter``."""
    scales = any(r["id"].endswith(PAPER_SCALE) for r in records)
    head = ("<th>verdict</th>" + ("<th>at the paper's scale (stored runs)</th>" if scales else "") +
            "<th>claim</th><th>paper</th><th>ours</th>")
    rows = [_row(r, twin, scales) for r, twin in _statements(records)]
    cls = "table claims-table" + (" with-scale" if scales else "")
    return f"<table class='{cls}'><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
