"""lib.claims: verdicts follow the measurement; failures are recorded, not raised."""
import pytest

from lib.claims import FAILS, HOLDS, NOT_RUN, Claims, to_html


def test_verdicts():
    C = Claims("x")
    assert C.close("a", "s", paper=1.0, ours=1.05, rtol=0.1).verdict == HOLDS
    assert C.close("b", "s", paper=1.0, ours=1.2, rtol=0.1).verdict == FAILS
    assert C.close("nan", "s", paper=1.0, ours=float("nan"), atol=1).verdict == FAILS
    assert C.bound("c", "s", ours=3, upper=4, lower=2).verdict == HOLDS
    assert C.bound("d", "s", ours=5, upper=4).verdict == FAILS
    assert C.check("e", "s", paper="p", ours="o", ok=False).verdict == FAILS
    assert C.not_run("f", "s", paper="p", reason="paper preset").verdict == NOT_RUN
    assert C.counts() == {HOLDS: 2, FAILS: 4, NOT_RUN: 1}


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
    assert "exact: holds | ours = 3" in out and "0.912345" not in out and "trained: holds" in out


def test_html_escapes_and_marks_failures():
    C = Claims("x")
    C.check("a", "<b>", paper=1, ours=2, ok=False)
    html = to_html(C.records())
    assert "&lt;b&gt;" in html and "does not hold" in html
