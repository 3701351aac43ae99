"""Generated pages: the results page (every claim of every chapter, with its kind, control and scale), the
library page (every module, by layer) and the execution statistics (each chapter's preset, time and commit).
"""
from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

from lib.book import verdicts
from lib.book.fingerprint import BOOK, ROOT, executed_meta, lib_modules
from lib.core import params as _params
from lib.core.claims import (EVIDENCE, FAILS, FRAGILE, HOLDS, JUDGED, KINDS, NOT_DISCRIMINATING, NOT_RUN, UNCLASSIFIED,
                             MARK, from_notebook)
from lib.core.claimtable import summary_html


def toc_chapters() -> list[str]:
    """Chapter ids that are in the table of contents (the published ones)."""
    toc = (ROOT / "_toc.yml").read_text()
    return [c for c in _params.chapters() if f"book/{c}" in toc]


def all_claims(chapters: list[str] | None = None) -> list[dict[str, Any]]:
    """Every claim recorded in the executed chapters in ``book/``."""
    out: list[dict[str, Any]] = []
    for c in chapters if chapters is not None else toc_chapters():
        path = BOOK / f"{c}.ipynb"
        if path.exists():
            out.extend(from_notebook(str(path)))
    return out


_FILTER = """<p class="claims-filter"><label><input type="checkbox" id="evidence-only"> evidence only (theorem and
experiment claims)</label> &nbsp; <label>verdict <select id="verdict-filter"><option value="">any</option>
<option>holds</option><option>does not hold</option><option>not discriminating</option><option>fragile</option>
<option>not run at this preset</option></select></label> &nbsp; <label>chapter <select id="chapter-filter">
<option value="">any</option>CHAPTER_OPTIONS</select></label></p>
<script>
function filterClaims() {
  var ev = document.getElementById("evidence-only").checked;
  var v = document.getElementById("verdict-filter").value, c = document.getElementById("chapter-filter").value;
  document.querySelectorAll("table.claims-table tr[data-kind]").forEach(function (row) {
    var k = row.getAttribute("data-kind");
    var hide = (ev && k !== "theorem" && k !== "experiment") || (v && row.getAttribute("data-verdict").indexOf(v) < 0) ||
               (c && row.getAttribute("data-chapter") !== c);
    row.style.display = hide ? "none" : "";
  });
}
["evidence-only", "verdict-filter", "chapter-filter"].forEach(function (id) {
  document.getElementById(id).addEventListener("change", filterClaims);
});
</script>"""


def results_page(chapters: list[str] | None = None) -> str:
    """The Markdown of ``book/results.md``: every chapter's claims, counted by kind and verdict, in one table."""
    chapters = chapters if chapters is not None else toc_chapters()
    records = all_claims(chapters)
    verdicts = (HOLDS, FAILS, NOT_DISCRIMINATING, FRAGILE, NOT_RUN)
    kinds = KINDS + (UNCLASSIFIED,)
    lines = ["# Results: every claim, every chapter", "",
             "This page is generated from the executed chapters (`python -m lib results`). Each row is one "
             "sentence of a paper made checkable: our measured value, the criterion, the verdict at the preset "
             "the published chapter ran with (`book`), and the claim's **kind**: `theorem` and `experiment` "
             "claims are the evidence, and each runs the same criterion on the closest wrong alternative (its "
             "**control**), which must fail; a claim whose control passes too is *not discriminating*. `sanity` "
             "claims check identities and our own code, `finding`s are errors or gaps in a paper or observations "
             "of ours. Every experiment claim and finding is also re-judged under the analysis choices a skeptic "
             "would vary (one point left out, the chance floor or saturation dropped, each reading of an undefined "
             "threshold, each seed alone, the paper's own rule, a tuned grid extended past its edge); a claim whose "
             "outcome flips under any of them is **fragile**, and names the choice that flips it. A claim that does "
             "not hold is listed as such; the chapter explains why.", "",
             ""]
    kinds = [k for k in kinds if k != UNCLASSIFIED or any(r.get("kind", UNCLASSIFIED) == k for r in records)]
    presets = sorted({r["preset"] for r in records})
    lines += [f"Every chapter below ran at the preset `{presets[0]}`." if len(presets) == 1 else
              "The chapters ran at the presets " + ", ".join(f"`{p}`" for p in presets) + ".", "",
              "Columns: the claims, by kind (" + "; ".join(f"{k[:4]}: {k}" for k in kinds) + "), then by verdict (" +
              "; ".join(f"{MARK[v]} {v}" for v in verdicts) + ").", "",
              "| chapter | claims | " + " | ".join(k[:4] for k in kinds) + " | " + " | ".join(MARK[v] for v in verdicts)
              + " |",
              "|---|---|" + "---|" * (len(kinds) + len(verdicts))]
    for c in chapters:
        rs = [r for r in records if r["chapter"] == c]
        if not rs:
            continue
        nk = [sum(r.get("kind", UNCLASSIFIED) == k for r in rs) for k in kinds]
        nv = [sum(r["verdict"] == v for r in rs) for v in verdicts]
        lines.append(f"| [{c}]({c}.ipynb) | {len(rs)} | " +
                     " | ".join(map(str, nk)) + " | " + " | ".join(map(str, nv)) + " |")
    ev = [r for r in records if r.get("kind") in EVIDENCE]
    no_ctl = sum(1 for r in ev if not r.get("control") and r["verdict"] != NOT_RUN)
    judged = [r for r in records if r.get("kind") in JUDGED and r["verdict"] != NOT_RUN]
    no_var = sum(1 for r in judged if not r.get("variants"))
    lines += ["", f"Evidence claims: {len(ev)}; run without a control: {no_ctl}. Experiment claims and findings "
              f"judged: {len(judged)}; without variants: {no_var}.", ""]
    fragile = [r for r in records if r["verdict"] == FRAGILE]
    if fragile:
        lines += ["## Fragile verdicts", "", "| chapter | claim | our analysis | flips under |", "|---|---|---|---|"]
        lines += [f"| {r['chapter']} | `{r['id']}` | {r.get('base', '')} | {'; '.join(r.get('flips') or []).replace('|', '∣')} |"
                  for r in fragile]
        lines.append("")
    lines += ["## All claims", "", "```{raw} html",
              _FILTER.replace("CHAPTER_OPTIONS", "".join(f"<option>{c}</option>" for c in chapters)),
              summary_html(records), "```", ""]
    return "\n".join(lines)


def errata(chapter: str) -> dict[str, tuple[str, str]]:
    """The chapter package's ``ERRATA``: claim id → (category, what is wrong), for the findings that are errors,
    gaps or misprints of the paper (not observations of ours)."""
    return verdicts.declared(chapter, "ERRATA")


def _sureness(r: dict[str, Any]) -> str:
    if r["verdict"] == FRAGILE:
        return f"fragile: {r.get('base', '')} under our analysis, flips under {'; '.join(r.get('flips') or [])}"
    if r["verdict"] != HOLDS:
        return f"not established ({r['verdict']})"
    how = "exact computation" if r.get("stable") else "measured"
    n = len(r.get("variants") or [])
    return f"{how}; survives {n} variant{'s' * (n != 1)} of the analysis" if n else f"{how}; no variants declared"


def errata_page(chapters: list[str] | None = None) -> str:
    """The Markdown of ``book/errata.md``: every error, gap or misprint the chapters found in their papers, each
    with the paper's words, what is wrong, the evidence (claim id and our numbers) and how sure we are."""
    chapters = chapters if chapters is not None else toc_chapters()
    records = {(r["chapter"], r["id"]): r for r in all_claims(chapters)}
    lines = ["# Errata", "",
             "Every error, gap or misprint this book found in the papers it reproduces, generated from the chapters' "
             "claims ledgers (`python -m lib results`). Each entry gives the paper's words (or our reading of them, "
             "where the extracted text lost its symbols), what is wrong, the evidence (the claim that checks it, "
             "with our numbers; follow the link to the check) and how sure we are: an exact computation, or a "
             "measurement that survives the analysis variants a skeptic would try, or *fragile* when a variant "
             "flips it.", ""]
    for c in chapters:
        entries = [(records[(c, i)], cat, what) for i, (cat, what) in errata(c).items() if (c, i) in records]
        if not entries:
            continue
        lines += [f"## {_params.load(c).title}", "", "| | the paper | what is wrong | evidence | how sure |",
                  "|---|---|---|---|---|"]
        for r, cat, what in entries:
            cell = [cat, r["paper"], what or r["statement"], f"<a href=\"{c}.html#row-{r['id']}\"><code>{r['id']}</code></a>: {r['ours']}",
                    _sureness(r)]
            lines.append("| " + " | ".join(x.replace("|", "∣").replace("\n", " ") for x in cell) + " |")
        lines.append("")
    return "\n".join(lines)


_LAYERS = [("lib.core", "Core: what every chapter uses"), ("lib.engine", "Engine: batched training and sweeps"),
           ("lib.chapters", "Chapters: one package per paper"), ("lib.book", "Book: runs, pages, the command line")]


def _modules() -> list[tuple[str, Path]]:
    """Every module and package of ``lib`` (dotted name, file), sorted."""
    out = []
    for f in sorted((ROOT / "lib").rglob("*.py")):
        rel = f.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts[:-1]) if rel.name == "__init__" else list(rel.parts)
        if parts[-1].startswith("_") and parts[-1] != "__init__":
            continue
        out.append((".".join(parts), f))
    return sorted(out)


def _summary(f: Path, module: str = "", known: frozenset[str] = frozenset()) -> str:
    doc = ast.get_docstring(ast.parse(f.read_text())) or ""
    summary = doc.split("\n\n")[0].replace("\n", " ").strip()
    # modules are the page's only cross-reference targets: other roles become plain code (`name`)
    summary = re.sub(r":(?:func|class|meth|data|attr):`~?([^`]+)`", r"`\1`", summary)
    package = module if f.name == "__init__.py" else module.rpartition(".")[0]

    def absolute(m: re.Match) -> str:
        """A relative module reference (``.x``) made absolute from the docstring's own package: the page holds
        every chapter's modules, so ``.theory`` alone would be ambiguous."""
        tilde, ref = m.group(1), m.group(2)
        if ref.startswith("."):
            ref = package + ref
        return f"{{py:mod}}`{tilde}{ref}`" if not known or ref in known else f"`{ref}`"
    return re.sub(r":mod:`(~?)([^`]+)`", absolute, summary) or "(no docstring)"


def library_page() -> str:
    """The Markdown of ``book/library.md``: every ``lib`` module by layer, its summary, the chapters using it."""
    import nbformat
    users: dict[str, list[str]] = {}
    for c in toc_chapters():
        nb = nbformat.read(_params.NOTEBOOKS / f"{c}.ipynb", as_version=4)
        for m in lib_modules([x.source for x in nb.cells if x.cell_type == "code"]):
            users.setdefault(m, []).append(c)
    lines = ["# The library", "",
             "The chapters import one library, `lib` (the repository's `lib/` folder), in four layers: each imports "
             "only the layers listed before it. A chapter's own code lives in `lib/chapters/<chapter_id>/`. This page "
             "is generated (`python -m lib results`) from the modules' docstrings and lists the chapters that use "
             "each module.", ""]
    mods = _modules()
    known = frozenset(m for m, _ in mods)
    for prefix, title in _LAYERS:
        lines += [f"## {title}", ""]
        for m, f in mods:
            if m != prefix and not m.startswith(prefix + "."):
                continue
            used = ", ".join(f"[{c}]({c}.ipynb)" for c in users.get(m, []))
            lines += [f"### `{m}`", "", f"```{{py:module}} {m}", "```", "", _summary(f, m, known), ""]
            if used and m.count(".") >= 2:
                lines += [f"Used by: {used}.", ""]
    return "\n".join(lines)


HIDDEN_TAGS = ("remove-input", "remove-cell", "hide-input", "hide-cell")


def code_share(path: Path) -> float:
    """The visible code's share of a page: characters of code-cell sources shown on the page (not tagged
    remove-input, remove-cell, hide-input or hide-cell) over those plus the markdown cells' characters."""
    import nbformat
    nb = nbformat.read(path, as_version=4)
    code = prose = 0
    for c in nb.cells:
        tags = c.get("metadata", {}).get("tags", [])
        if c.cell_type == "markdown":
            prose += len(c.source)
        elif c.cell_type == "code" and not any(t in tags for t in HIDDEN_TAGS):
            code += len(c.source)
    return code / max(code + prose, 1)


def statistics_page(chapters: list[str] | None = None) -> str:
    """The Markdown of ``book/statistics.md``: how each executed chapter was made (preset, wall and CPU
    time, date, commit, versions), read from the record in its metadata."""
    chapters = chapters if chapters is not None else toc_chapters()
    lines = ["# Execution statistics", "",
             "How each published chapter was executed: the preset, the wall-clock and CPU time of the run, when, "
             "from which commit, on what machine. Generated from each executed notebook's record "
             "(`python -m lib results`). *Visible code* is the share of the page's characters that are code shown to the "
             "reader (the rest is prose; code folded or removed from the page is not counted).", "",
             "| chapter | preset | wall time (s) | CPU time (s) | date | commit | machine | torch | visible code |",
             "|---|---|---|---|---|---|---|---|---|"]
    for c in chapters:
        m = executed_meta(BOOK / f"{c}.ipynb")
        if not m:
            continue
        torch = (m.get("versions") or {}).get("torch", "")
        lines.append(f"| [{c}]({c}.ipynb) | {m.get('preset', '')} | {m.get('wall_s', '—')} | "
                     f"{m.get('cpu_s', '—')} | {str(m.get('executed', ''))[:10]} | `{str(m.get('commit', '—'))[:10]}` | "
                     f"{m.get('machine', m.get('device', '—'))} | {torch} | "
                     f"{100 * code_share(BOOK / f'{c}.ipynb'):.0f}% |")
    return "\n".join(lines + _evidence_rows(chapters)) + "\n"


def _evidence_rows(chapters: list[str]) -> list[str]:
    """The stored paper-scale runs each chapter reads (``book/evidence/``): sweeps, points and CPU-hours."""
    from lib.book import evidence as E
    lines = ["", "## Stored evidence", "",
             "The paper-scale numbers of a chapter are not computed when its page executes: they are read from "
             "stored runs (`python -m lib evidence`, each point with its manifest: code fingerprint, commit, "
             "machine, CPU-seconds, date). The CPU-hours are those measured when the points were trained; a sweep "
             "trained on a GPU counts process-hours there (each point's share of its process's wall-clock time, "
             "several processes sharing the GPU), not CPU-hours.", "",
             "| chapter | sweeps | points stored / declared | CPU-hours | GPU process-hours | stale sweeps |",
             "|---|---|---|---|---|---|"]
    total = gpu = 0.0
    for c in chapters:
        if c not in E.chapters():
            continue
        evs = [E.load(c, name) for name in E.sweeps(c)]
        hours, g = sum(ev.cpu_hours for ev in evs), sum(ev.gpu_hours for ev in evs)
        total, gpu = total + hours, gpu + g
        lines.append(f"| [{c}]({c}.ipynb) | {len(evs)} | {sum(len(ev.points) for ev in evs)} / "
                     f"{sum(ev.total for ev in evs)} | {hours:.2f} | {g:.2f} | {sum(ev.stale for ev in evs)} |")
    lines += ["", f"In all: {total:.1f} CPU-hours and {gpu:.1f} GPU process-hours of stored training."]
    return lines


def write_results() -> list[Path]:
    """Write the generated pages (results, library) when their text changed."""
    out = []
    for name, text in (("results.md", results_page()), ("errata.md", errata_page()), ("library.md", library_page()),
                       ("statistics.md", statistics_page())):
        path = BOOK / name
        if not path.exists() or path.read_text() != text:
            path.write_text(text)
        out.append(path)
    return out
