"""Softmax vs linear attention: the measured cost and verdicts of the ``paper`` preset, stored once with its provenance.

``python -m lib run softmax-vs-linear --preset paper`` writes ``run.json`` (wall and CPU seconds, commit,
machine) beside the executed notebook. :func:`store_paper_run` copies that record, with the run's verdict
counts, to ``book/evidence/softmax-vs-linear/paper-run.json``; the page reads it with
:func:`paper_run_markdown`, so the cost it states is the recorded measurement, never retyped::

    ATR_THREADS=1 .venv/bin/python -m lib run softmax-vs-linear --preset paper
    .venv/bin/python -m lib.chapters.softmax_vs_linear.claims.paper_run runs/softmax-vs-linear/<stamp>-paper [note]
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[4]
RECORD = ROOT / "book" / "evidence" / "softmax-vs-linear" / "paper-run.json"
CHAPTER = "softmax-vs-linear"
# the learning rates of the learned comparison in the stored paper-preset run (commit 6fea906, `learn_lrs` of its paper
# preset): the record does not store them; the page needs them to say where linear attention's best rate fell
PAPER_RUN_LRS = (0.05, 0.2)


def store_paper_run(folder: str | Path, threads: int = 1, note: str = "") -> dict[str, Any]:
    """Write :data:`RECORD` from a finished run folder of the ``paper`` preset (its ``run.json`` and the
    claims of its executed notebook). ``threads``: the intra-op threads the run was started with; ``note``:
    what the commit alone does not say (e.g. uncommitted changes in the working tree)."""
    from lib.core.claims import from_notebook
    folder = Path(folder).resolve()
    run = json.loads((folder / "run.json").read_text())
    if run.get("preset") != "paper" or run.get("chapter") != CHAPTER:
        raise ValueError(f"{folder}: not a '{CHAPTER}' run of the paper preset")
    claims = from_notebook(str(folder / f"{CHAPTER}.ipynb"))
    rec = {"chapter": CHAPTER, "preset": "paper", "executed": run["executed"], "commit": run.get("commit"),
           "wall_s": run["wall_s"], "cpu_s": run["cpu_s"], "threads": threads, "machine": run.get("machine"),
           "torch": run.get("versions", {}).get("torch"), "note": note, "run_folder": str(folder.relative_to(ROOT))
           if folder.is_relative_to(ROOT) else str(folder),
           "fingerprint": run.get("fingerprint"), "claims": len(claims),
           "verdicts": dict(Counter(c["verdict"] for c in claims)),
           "not_holding": [{"id": c["id"], "verdict": c["verdict"], "ours": c["ours"]} for c in claims
                           if c["verdict"] != "holds"]}
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(json.dumps(rec, indent=2, ensure_ascii=False) + "\n")
    return rec


def current_fingerprint() -> str:
    """The fingerprint the chapter's code and spec give the ``paper`` preset today (as in ``run.json``)."""
    from lib.book.fingerprint import fingerprint
    from lib.core.params import load
    return fingerprint(CHAPTER, load(CHAPTER).resolve("paper"))


def paper_claim(cid: str, path: Path = RECORD) -> str:
    """The recorded paper-preset verdict of one claim that did not hold there, or '' (it held, or no record)."""
    if not path.exists():
        return ""
    rec = json.loads(path.read_text())
    hit = [c for c in rec.get("not_holding", []) if c["id"] == cid]
    return f"{hit[0]['verdict']} ({hit[0]['ours']})" if hit else ""


def recorded_lrs(record: str, kind: str = "linear") -> list[float]:
    """The best learning rates per n that a recorded ``learn-gap`` value names for ``kind`` ("linear's lr [...]"),
    or [] when the record does not name them."""
    import re
    hit = re.search(rf"{kind}'s lr \[([^\]]*)\]", record)
    return [float(x) for x in hit.group(1).split(",")] if hit else []


def recorded_gaps(record: str) -> tuple[list[int], list[float]]:
    """The lengths n and the gaps a recorded ``learn-gap`` value names ("per n = [...]: [...]"), or ([], [])."""
    import re
    hit = re.search(r"per n = \[([^\]]*)\]: \[([^\]]*)\]", record)
    return ([int(x) for x in hit.group(1).split(",")], [float(x) for x in hit.group(2).split(",")]) if hit else ([], [])


def grid_reason(record: str, lrs: tuple[float, ...] = PAPER_RUN_LRS) -> str:
    """Whether a recorded ``learn-gap`` verdict (``record``: "<verdict> (<ours>)") is conclusive, by the page's edge rule
    (:func:`~lib.chapters.softmax_vs_linear.claims.learned.overturning_edges`): a longer grid can only raise a map's best
    median, so an edge of softmax's grid can overturn a gap that does not hold and an edge of linear's one that holds. A
    grid of fewer than ``MIN_LRS`` rates puts every best rate on an edge. Empty when the record is conclusive or the
    record does not say (softmax's best rates are not recorded)."""
    from lib.chapters.softmax_vs_linear.claims.learned import MIN_LRS
    holds = record.startswith("holds")
    if not (holds or record.startswith("does not hold")) or len(lrs) >= MIN_LRS:
        return ""
    lin = recorded_lrs(record)
    lin_edge = sum(lr in (min(lrs), max(lrs)) for lr in lin)
    who, other = ("linear attention", "softmax") if holds else ("softmax", "linear attention")
    return (f", not conclusive: that run's grid {list(lrs)} has {len(lrs)} learning rate{'s' * (len(lrs) != 1)}, fewer than the "
            f"{MIN_LRS} the page needs, so every best rate sat on an edge of it, {who}'s included, and a longer grid could raise "
            f"{who}'s medians and overturn the verdict ({other}'s best rates on an edge"
            + (f", at {lin_edge} of its {len(lin)} lengths," if not holds and lin else "")
            + f" cannot overturn it: raising {other}'s medians only {'widens' if holds else 'narrows'} the gap)")


def gap_by_n(record: str, thr: float, shown: list[int] | None = None) -> str:
    """A sentence on a recorded ``learn-gap`` value's gaps per n: where they reach ``thr`` and where not; ``shown``: the
    lengths this page trains (a recorded length it does not is named)."""
    ns, gaps = recorded_gaps(record)
    if not ns:
        return ""
    above = [n for n, g in zip(ns, gaps, strict=True) if g >= thr]
    below = [n for n in ns if n not in above]
    new = [n for n in above if shown is not None and n not in shown]
    return (f". Its gaps were {gaps} at n = {ns}: at least {thr:g} at n = {above}"
            + (f" ({new} {'is a length' if len(new) == 1 else 'are lengths'} this page does not train)" if new else "")
            + f", below it at n = {below}")


def _grid_note(c: dict[str, Any]) -> str:
    """For the recorded ``learn-gap``: why its verdict is not conclusive (:func:`grid_reason`)."""
    return "" if c["id"] != "learn-gap" else grid_reason(f"{c['verdict']} ({c['ours']})")


def paper_run_markdown(path: Path = RECORD, fingerprint: str | None = None) -> str:
    """One paragraph for the page: the stored measurement, or a note that none is stored. ``fingerprint``:
    today's (see :func:`current_fingerprint`); when it differs from the run's, the page says so."""
    if not path.exists():
        return ("*No measured run of the `paper` preset is stored (`book/evidence/softmax-vs-linear/paper-run.json`); "
                "the estimate above is all this page can say about its cost.*")
    r = json.loads(path.read_text())
    verdicts = ", ".join(f"{v} {k}" for k, v in sorted(r["verdicts"].items(), key=lambda kv: -kv[1]))
    others = "; ".join(f"`{c['id']}` {c['verdict']}{_grid_note(c)}" for c in r.get("not_holding", []))
    stale = ("" if fingerprint is None or fingerprint == r.get("fingerprint") else
             " The chapter's code or spec has changed since that run, so these are the costs and verdicts of the code "
             "it ran, not necessarily of this page's.")
    return (f"**The `paper` preset, measured.** It ran once on {r['executed'][:10]} (commit `{r['commit']}`"
            f"{', ' + r['note'] if r.get('note') else ''}, {r['threads']} intra-op thread, {r['machine']}, torch "
            f"{r['torch']}): **{r['cpu_s']:.0f} s of CPU** ({r['cpu_s'] / 60:.1f} minutes on one core), "
            f"{r['wall_s']:.0f} s wall on a machine shared with other jobs. Its {r['claims']} claims: {verdicts}"
            f"{' (' + others + ')' if others else ''}.{stale} (Recorded in "
            f"`book/evidence/softmax-vs-linear/paper-run.json` from the run's own `run.json`.)")


if __name__ == "__main__":
    print(json.dumps(store_paper_run(sys.argv[1], note=" ".join(sys.argv[2:])), indent=2, ensure_ascii=False))
