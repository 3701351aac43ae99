"""lib.core.claims: verdicts follow the measurement; failures are recorded, not raised."""
import pytest

from lib.core.claims import (EXPERIMENT, FAILS, FRAGILE, HOLDS, NOT_DISCRIMINATING, NOT_RUN, SANITY, THEOREM, Claims, Control,
                             Scale)
from lib.core.claimtable import summary_html, to_html


def test_verdicts():
    C = Claims("x")
    assert C.close("a", "s", paper=1.0, ours=1.05, rtol=0.1).verdict == HOLDS
    assert C.close("b", "s", paper=1.0, ours=1.2, rtol=0.1).verdict == FAILS
    assert C.close("nan", "s", paper=1.0, ours=float("nan"), atol=1).verdict == FAILS
    assert C.bound("c", "s", ours=3, upper=4, lower=2).verdict == HOLDS
    assert C.bound("d", "s", ours=5, upper=4).verdict == FAILS
    assert C.check("e", "s", paper="p", ours="o", ok=False).verdict == FAILS
    assert C.not_run("f", "s", paper="p", reason="paper preset").verdict == NOT_RUN
    assert C.counts() == {HOLDS: 2, FAILS: 4, NOT_RUN: 1, NOT_DISCRIMINATING: 0, FRAGILE: 0}


def test_duplicate_id_and_non_bool():
    C = Claims("x")
    C.check("a", "s", paper=1, ours=1, ok=True)
    with pytest.raises(ValueError, match="twice"):
        C.check("a", "s", paper=1, ours=1, ok=True)
    with pytest.raises(TypeError, match="must be a bool"):
        C.check("b", "s", paper=1, ours=1, ok="True")


def test_digest_prints_only_stable_values(capsys):
    C = Claims("x")
    C.check("exact", "s", paper=3, ours=3, ok=True)
    C.check("trained", "s", paper=0.9, ours=0.912345, ok=True, stable=False)
    C.digest()
    out = capsys.readouterr().out
    assert "exact [unclassified]: holds | ours = 3" in out and "0.912345" not in out and "trained [unclassified]: holds" in out


def test_html_escapes_and_marks_failures():
    C = Claims("x")
    C.check("a", "<b>", paper=1, ours=2, ok=False)
    html = to_html(C.records())
    assert "&lt;b&gt;" in html and "does not hold" in html


def test_a_control_that_passes_makes_the_claim_not_discriminating():
    C = Claims("x")
    # close/bound judge a control value by the claim's own tolerance
    assert C.close("a", "s", paper=1.0, ours=1.0, rtol=0.1, kind=THEOREM, control=("rival", 2.0)).verdict == HOLDS
    assert C.close("b", "s", paper=1.0, ours=1.0, rtol=0.1, kind=THEOREM, control=("rival", 1.05)).verdict \
        == NOT_DISCRIMINATING
    assert C.bound("c", "s", ours=3, lower=2, kind=EXPERIMENT, control=("T+1", 1)).verdict == HOLDS
    assert C.bound("d", "s", ours=3, lower=2, kind=EXPERIMENT, control=("T+1", 2.5)).verdict == NOT_DISCRIMINATING
    # a failing claim fails whatever its control did
    assert C.check("e", "s", paper=1, ours=0, ok=False, kind=THEOREM, control=("alt", True)).verdict == FAILS
    rec = C.check("f", "s", paper=1, ours=1, ok=True, kind=THEOREM, control=Control("alt", False, "0"))
    assert rec.verdict == HOLDS and rec.control == {"description": "alt", "passed": False, "value": "0"}
    assert C.missing_controls() == []
    C.check("g", "s", paper=1, ours=1, ok=True, kind=THEOREM)
    C.sanity("h", "s", paper=1, ours=1, ok=True)
    assert C.missing_controls() == ["g"] and C.claims["h"].kind == SANITY
    with pytest.raises(ValueError, match="kind"):
        C.check("i", "s", paper=1, ours=1, ok=True, kind="lemma")


def test_below_its_scale_an_experiment_is_not_run_not_failed():
    C = Claims("x")
    small = Scale(ours="N = 20, 1 seed", paper="N = 50, 20 seeds", enough=False, why="needs 4 seeds")
    c = C.bound("a", "s", ours=0.1, lower=0.9, kind=EXPERIMENT, scale=small, control=("alt", 0.0))
    assert c.verdict == NOT_RUN and "needs 4 seeds" in c.criterion
    html = to_html(C.records())
    assert "data-kind='experiment'" in html and "N = 50, 20 seeds" in html


def test_a_claim_that_flips_under_a_variant_is_fragile_and_names_it():
    import numpy as np

    from lib.core.claims import FINDING, FRAGILE, Variant
    from lib.core.fit import linear_fit
    from lib.core.robust import drop_where, leave_one_out, rejudge

    def linear(pts):                                   # the criterion: the line explains y (R² ≥ 0.98)
        r2 = linear_fit([p[0] for p in pts], [p[1] for p in pts]).r2
        return r2 >= 0.98, f"R² = {r2:.3f}"
    label = lambda p: f"x = {p[0]}"                    # noqa: E731
    line = [(x, 2.0 * x + 1) for x in range(1, 8)]
    fragile = [(1, 40.0)] + line[1:]                   # one outlier makes the line fail; dropping it, it holds
    C = Claims("x")
    ok, ours = linear(fragile)
    c = C.check("fragile", "y is linear in x", paper="R² ≥ 0.98", ours=ours, ok=ok, kind=EXPERIMENT,
                control=("y = x²", False), variants=leave_one_out(linear, fragile, label))
    assert c.verdict == FRAGILE and c.base == FAILS and c.flips == ["drop x = 1"]
    assert "flips under: drop x = 1)" in repr(c)                     # one flip: named, nothing more
    many = C.check("many", "s", paper=1, ours=1, ok=True, kind=EXPERIMENT, control=("c", False),
                   variants=[("a choice described in far more words than a verdict line can hold " * 2, False),
                             ("b", False), ("c", True)])
    shown = repr(many)
    assert "flips under: a choice described in far more words" in shown and " …, +1 more of 3 variants" in shown
    assert many.flips[1] == "b" and "; b" not in shown and ", b" not in shown   # the rest are in the table
    ok, ours = linear(line)
    c = C.check("robust", "y is linear in x", paper="R² ≥ 0.98", ours=ours, ok=ok, kind=EXPERIMENT,
                control=("y = x²", False), variants=leave_one_out(linear, line, label)
                + drop_where(linear, line, lambda p: p[0] > 1, "drop the floor x = 1"))
    assert c.verdict == HOLDS and len(c.variants) == 8 and c.flips == []
    assert "survives 8 variants" in repr(c) and "⚠ fragile" in to_html(C.records())
    # close/bound judge a variant's value by the claim's own tolerance; check takes the outcome
    assert C.close("a", "s", paper=1.0, ours=1.0, rtol=0.1, kind=EXPERIMENT, variants=[("seed 1", 1.5)]).verdict \
        == FRAGILE
    assert C.bound("b", "s", ours=3, lower=2, kind=FINDING, variants=[("seed 1", 2.5)]).verdict == HOLDS
    assert C.check("c", "s", paper=1, ours=1, ok=True, kind=FINDING,
                   variants=rejudge(lambda d: (d > 0, d), {"reading B": np.float64(-1.0)})).verdict == FRAGILE
    with pytest.raises(TypeError, match="variant"):
        C.check("d", "s", paper=1, ours=1, ok=True, variants=[Variant("x", "yes")])
    assert C.counts()[FRAGILE] == 4 and "4 fragile" in C.summary()      # with "many" above
    assert C.missing_variants() == []
    C.check("e", "s", paper=1, ours=1, ok=True, kind=FINDING)
    assert C.missing_variants() == ["e"]


def test_lines_prints_each_claim_once_wrapped(capsys):
    """``Claims.lines`` prints the verdict line of the claims recorded since its last call, wrapped, and the
    named claims on request; sanity lines only when asked."""
    from lib.core.claims import SANITY, THEOREM, Claims
    C = Claims("t")
    C.check("a", "x " * 80, paper=1, ours=1, ok=True, kind=THEOREM, control=("c", False))
    C.check("s", "s", paper=1, ours=1, ok=True, kind=SANITY)
    C.lines(sanity=False, width=60)
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("✓ theorem claim a: holds") and all(len(l) <= 60 for l in out)
    assert not any("claim s" in l for l in out)
    C.check("b", "b", paper=1, ours=2, ok=False, kind=THEOREM, control=("c", False))
    C.lines()
    assert capsys.readouterr().out.startswith("✗ theorem claim b: does not hold")
    C.lines("s")
    assert "sanity claim s" in capsys.readouterr().out
    C.check("c", "c", paper=1, ours=1, ok=True, kind=THEOREM, control=("c", False))
    C.check("d", "d", paper=1, ours=1, ok=True, kind=THEOREM, control=("c", False))
    C.lines("d")                                        # printed by id beside its check ...
    C.lines()                                           # ... is not printed again with the rest
    out = capsys.readouterr().out
    assert out.count("claim d:") == 1 and out.count("claim c:") == 1


def test_one_row_per_statement_with_the_paper_scale_as_a_column():
    """A statement judged at this preset and at the paper's scale (``<id>`` and ``<id>-paper-scale``) is one row
    with both verdicts; a paper-scale claim without a twin has its own row; both ids stay link targets."""
    C = Claims("x")
    C.check("fig1-a", "small", paper=1, ours=1, ok=True, kind=EXPERIMENT, control=("c", False), variants=[("v", True)])
    C.check("fig1-a-paper-scale", "big", paper=1, ours=2, ok=False, kind=EXPERIMENT, control=("c", False),
            variants=[("v", False)])
    C.check("fig1-b-paper-scale", "alone", paper=1, ours=2, ok=True, kind=EXPERIMENT, control=("c", False),
            variants=[("v", True)])
    html = to_html(C.records())
    assert html.count("<tr id=") == 2 and "at the paper's scale" in html
    assert "id='row-fig1-a'" in html and "id='row-fig1-a-paper-scale'" in html and "id='row-fig1-b-paper-scale'" in html
    assert "data-verdict='holds does not hold'" in html
    only_book = to_html([r for r in C.records() if not r["id"].endswith("paper-scale")])
    assert "at the paper's scale" not in only_book


def test_summary_rows_link_to_the_chapter_and_fold_the_statement():
    """The results page's table: one compact row per statement (a paper-scale twin in the same row), the id linked
    to the chapter's row, the statement folded behind its first words, the same data attributes as the chapter's."""
    C = Claims("ch")
    long = "a statement of the paper made checkable, long enough that the summary cuts it before the end"
    C.check("fig1-a", long, paper=1, ours=1, ok=True, kind=EXPERIMENT, control=("c", False), variants=[("v", True)])
    C.check("fig1-a-paper-scale", "big", paper=1, ours=2, ok=False, kind=EXPERIMENT, control=("c", False),
            variants=[("v", False)])
    recs = [dict(r, chapter="ch") for r in C.records()]
    html = summary_html(recs)
    assert html.count("<tr id=") == 1 and "id='row-ch-fig1-a'" in html
    assert "href='ch.html#row-fig1-a'" in html and "data-verdict='holds does not hold'" in html
    summary = html.split("<summary>", 1)[1].split("</summary>", 1)[0]
    assert summary.endswith("…") and len(summary) < len(long) and long in html
