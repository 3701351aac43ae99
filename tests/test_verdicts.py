"""lib.book.verdicts: the verdict box at the top of a chapter and the anchors between its table and its text."""
import nbformat

from lib.book import verdicts
from lib.core.claims import EXPERIMENT, FINDING, META_KEY, THEOREM, Claims


def test_ref_of_names_the_papers_statement():
    assert verdicts.ref_of("thm1-exact") == "Theorem 1"
    assert verdicts.ref_of("fig2a-linear-paper-scale") == "Fig. 2(a)"
    assert verdicts.ref_of("appB1-exp2-linear") == "App. B.1"
    assert verdicts.ref_of("appj-A2-random") == "App. J"
    assert verdicts.ref_of("table4b") == "Table 4b"
    assert verdicts.ref_of("param-count") is None and verdicts.ref_of("exp-foo") is None
    assert verdicts.ref_of("thm11-softmax", {"thm11": "Theorem 1.1"}) == "Theorem 1.1"
    assert "Figs. 4–5(f)" in verdicts.box([{"id": "fig45f-x", "verdict": "holds", "kind": "experiment"},
                                           {"id": "thm1-x", "verdict": "holds", "kind": "theorem"}], set(),
                                          {"fig45f": "Figs. 4–5(f)"})       # a name outside the default kinds


def _chapter() -> nbformat.NotebookNode:
    C = Claims("x")
    out1 = repr(C.check("thm1-exact", "s", paper=1, ours=1, ok=True, kind=THEOREM, control=("T+1", False)))
    C.bound("fig2a-linear", "s", ours=0.9, lower=0.98, kind=EXPERIMENT, control=("H²", 0.5),
            variants=[("drop H = 1", 0.99)])
    C.check("param-count", "s", paper=1, ours=2, ok=True, kind=FINDING, variants=[("other reading", True)])
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Title"), nbformat.v4.new_code_cell("check()"),
                nbformat.v4.new_code_cell("C.table()")]
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text=out1 + "\n")]
    nb.cells[2].outputs = [nbformat.v4.new_output("display_data", data={"text/html": "<code>thm1-exact</code>"},
                                                  metadata={META_KEY: C.records()})]
    return nb


def test_annotate_writes_the_box_after_the_title_and_links_table_and_text():
    nb = _chapter()
    verdicts.annotate(nb)
    verdicts.annotate(nb)                       # idempotent: one box, one set of anchors
    tags = [c.metadata.get("tags", []) for c in nb.cells]
    assert tags[1] == [verdicts.BOX_TAG] and sum(verdicts.BOX_TAG in t for t in tags) == 1
    assert sum("claim-anchors" in t for t in tags) == 1
    box = nb.cells[1].source
    assert "Theorem 1" in box and "Fig. 2(a)" in box and "Findings" in box
    assert 'href="#claim-thm1-exact"' in box and 'href="#row-fig2a-linear"' in box   # text line, else table row
    assert "⚠&nbsp;fig2a-linear" in box and "fragile" in box
    assert '<a id="claim-thm1-exact"></a>' in nb.cells[2].source                       # before the checking cell
    assert "href='#claim-thm1-exact'" in nb.cells[-1].outputs[0]["data"]["text/html"]


def test_a_page_without_a_ledger_is_left_alone():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# Intro")]
    verdicts.annotate(nb)
    assert len(nb.cells) == 1


def test_a_figure_shown_with_a_caption_becomes_a_numbered_figure(monkeypatch):
    import matplotlib
    matplotlib.use("Agg")
    import pytest

    from lib.book import captions
    from lib.core import plots
    shown = []
    monkeypatch.setattr("IPython.display.display", lambda data, metadata, raw: shown.append((data, metadata)))
    fig, ax = plots.subplots()
    ax[0].plot([0, 1], [0, 1])
    plots.show(fig, "The line y = x: ours on the diagonal.", "fig-line")
    data, meta = shown[0]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("plot()")]
    nb.cells[0].outputs = [nbformat.v4.new_output("display_data", data=data, metadata=meta)]
    assert captions.caption_cells(nb) == 1
    assert nb.cells[0].metadata["mystnb"]["figure"] == {"caption": "The line y = x: ours on the diagonal.",
                                                       "name": "fig-line"}
    nb.cells[0].outputs.append(nbformat.v4.new_output("display_data", data={"text/plain": "x"}))
    with pytest.raises(ValueError, match="only display output"):
        captions.caption_cells(nb)
    with pytest.raises(ValueError, match="caption"):
        plots.show(fig, "", "fig-x")
