"""Stored paper-scale evidence (lib.book.evidence, lib.book.migrate): consistent with today's code, re-trainable.

* every stored sweep is checked without training: not stale (else the refresh command is printed), no point
  edited by hand (each point's digest), no point outside the declared grid;
* a deterministic sample of work units is re-trained in full with today's code and compared within each sweep's
  stated tolerance (``verify`` in its declaration: the aot-memorization sweeps of small units and one cheap
  depth-width LM point); every stored sweep's recorded trajectory prefix is replayed in
  ``tests/test_evidence_replay.py``;
* on a temporary copy of the store: a hand-edited number, a resealed (consistently edited) number, a changed
  recipe and a changed code fingerprint each make the checks fail with a clear message.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lib.book import evidence as EV
from lib.book import migrate as MG
from lib.engine import sweep

STORED = [(c, n) for c in EV.chapters() for n in EV.sweeps(c) if EV.read_manifest(c, n) is not None]


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "evidence"
    shutil.copytree(EV.ROOT, root, ignore=shutil.ignore_patterns(".progress", ".tmp-*"))
    return root


def _point_files(root: Path, chapter: str, name: str) -> list[Path]:
    return sorted(EV.points_dir(chapter, name, root).glob("*.json"))


@pytest.mark.parametrize("chapter,name", STORED, ids=[f"{c}/{n}" for c, n in STORED])
def test_stored_evidence_is_current_and_unedited(chapter, name):
    probs = EV.check(chapter, name)
    assert not probs, "\n".join(probs)


VERIFIED = [(c, n) for c, n in STORED if (EV.sweeps(c)[n].get("verify") or {}).get("units")]


@pytest.mark.parametrize("chapter,name", VERIFIED, ids=[f"{c}/{n}" for c, n in VERIFIED])
def test_stored_evidence_retrains(chapter, name):
    ev = EV.load(chapter, name)
    if ev.stale:
        pytest.fail(f"{chapter}/{name} is stale ({ev.reason}): refresh with `{ev.command}`")
    diffs = MG.retrain(chapter, name)
    tol = EV.sweeps(chapter)[name]["verify"]["fields"]
    for f in tol:
        print(f"{chapter}/{name} {f}: largest |stored - re-trained| = "
              f"{max(abs(float(n) - float(o)) for _, g, o, n in diffs if g == f):.2e}")
    probs = [f"point {p}: stored {f} = {o:.4f}, re-trained today {n:.4f} (tolerance {t:.3g}); if the code changed "
             f"on purpose, rerun `{ev.command}`" for p, f, o, n, t in MG.beyond_tolerance(chapter, name, diffs)]
    if EV.sweeps(chapter)[name]["verify"].get("exact"):          # an exact computation: every field but timing equal
        probs += [f"point {p}: stored {f} = {o!r}, recomputed today {n!r}" for p, f, o, n in diffs
                  if f not in MG.LABELS and not MG._equal(o, n)]
    assert not probs, "\n".join(probs)


def _need(chapter: str, name: str) -> None:
    if (chapter, name) not in STORED:
        pytest.skip(f"no stored {chapter}/{name}: run `{EV.command(chapter, name)}`")


def test_hand_edit_is_found(tmp_path):
    _need("aot-memorization", "exp6")
    root = _copy(tmp_path)
    f = _point_files(root, "aot-memorization", "exp6")[0]
    rec = json.loads(f.read_text())
    rec["result"]["running_acc"] += 0.01
    f.write_text(json.dumps(rec))
    probs = EV.check("aot-memorization", "exp6", root)
    assert any("was edited after it was trained" in p for p in probs), probs


def test_consistent_edit_is_found_by_retraining(tmp_path):
    """A number changed and resealed (digest recomputed) is caught by re-training the sample."""
    _need("aot-memorization", "exp6")
    root = _copy(tmp_path)
    sw = EV.sweeps("aot-memorization")["exp6"]
    ev = EV.load("aot-memorization", "exp6", root)
    unit = MG.sample_units(sw, ev.points, 1)[0]
    folder = EV.points_dir("aot-memorization", "exp6", root)
    p = unit[0]
    f = folder / f"{sweep.point_key(p)}.json"
    rec = json.loads(f.read_text())
    rec["result"] = EV.seal(rec["point"], dict(rec["result"], running_acc=rec["result"]["running_acc"] + 0.2))
    f.write_text(json.dumps(rec))
    assert EV.check("aot-memorization", "exp6", root) == EV.check("aot-memorization", "exp6")
    probs = MG.verify("aot-memorization", "exp6", root)
    assert len(probs) == 1 and "running_acc" in probs[0] and "re-trained today" in probs[0], probs


def test_recipe_change_is_stale(tmp_path, monkeypatch):
    _need("aot-memorization", "exp6")
    from lib.chapters.aot_memorization import evidence as A
    changed = dict(A.SWEEPS["exp6"], config=dict(A.SWEEPS["exp6"]["config"], recipe=dict(A.OFFICIAL, lr=2e-2)))
    monkeypatch.setitem(A.SWEEPS, "exp6", changed)
    ev = EV.load("aot-memorization", "exp6")
    assert ev.stale and "recipe changed" in ev.reason
    assert "python -m lib evidence aot-memorization exp6" in ev.label
    probs = EV.check("aot-memorization", "exp6")
    assert probs and "stale" in probs[0] and "refresh with `python -m lib evidence aot-memorization exp6`" in probs[0]


def test_code_change_is_stale_and_names_the_definition(tmp_path):
    _need("aot-memorization", "exp6")
    root = _copy(tmp_path)
    man = EV.read_manifest("aot-memorization", "exp6", root)
    man["fingerprint"] = "0" * 12
    key = "lib.chapters.aot_memorization.train:member_seed"
    man["definitions"][key] = "0" * 16
    EV._write_manifest(man, "aot-memorization", "exp6", root)
    ev = EV.load("aot-memorization", "exp6", root)
    assert ev.stale and f"{key} (edited)" in ev.reason and "STALE" in ev.label
    assert not ev.complete                       # pages then record the claims as not run, never mixed


def test_unknown_sweep_and_listing():
    with pytest.raises(RuntimeError, match="no evidence sweep"):
        EV.run("aot-memorization", ["nope"])
    lines = EV.listing()
    assert any("fig2a" in s and "CPU-hours" in s for s in lines)


def test_stored_claim_layer(monkeypatch):
    """lib.book.stored_claims: a complete sweep is judged (with its control); a partial or stale one makes the claim
    not run with its criterion, what is stored, the CPU-hours to go and the command."""
    from lib.book import stored_claims as SC
    from lib.core import claims
    pts = [dict(x=1, y=2.0), dict(x=2, y=4.0)]
    judge = lambda p: SC.Judged(ok=p["exp6"][1]["y"] == 2 * p["exp6"][1]["x"], ours="y = 2x",
                                control=claims.Control("y = 3x", passed=False))
    claim = SC.StoredClaim("c", "y doubles x", paper="y = 2x", criterion="y == 2x at every point", sweeps=("exp6",),
                           judge=judge)
    cases = [(EV.Evidence("aot-memorization", "exp6", points=pts, manifest={}, total=2), claims.HOLDS, ""),
             (EV.Evidence("aot-memorization", "exp6", points=pts[:1], manifest={}, total=2), claims.NOT_RUN,
              "`exp6` 1 of 2 points stored; run `python -m lib evidence aot-memorization exp6` (about 0.00 CPU-hours"),
             (EV.Evidence("aot-memorization", "exp6", points=pts, manifest={}, total=2, stale=True, reason="the grid "
                          "changed"), claims.NOT_RUN, "`exp6` stale (the grid changed)")]
    for ev, verdict, text in cases:
        monkeypatch.setattr(EV, "load", lambda *a, ev=ev, **k: ev)
        C = claims.Claims("aot-memorization", "book")
        SC.record(C, "aot-memorization", claim)
        assert C.claims["c"].verdict == verdict and text in C.claims["c"].criterion, C.claims["c"].criterion
        assert verdict != claims.NOT_RUN or C.claims["c"].criterion.startswith("criterion (declared): y == 2x")


def test_the_evidence_role_is_a_module_or_a_package(tmp_path):
    """Like every role (tests/test_package_roles.py), ``evidence`` is ``evidence.py`` or a package ``evidence/``."""
    from lib.book.evidence import _modules
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "evidence.py").write_text("SWEEPS = {}\n")
    (tmp_path / "a" / "evidence_extra.py").write_text("SWEEPS = {}\n")         # not a role: not read
    assert [f.name for f in _modules(tmp_path / "a")] == ["evidence.py"]
    sub = tmp_path / "b" / "evidence"
    sub.mkdir(parents=True)
    for f in ("__init__.py", "ranks.py", "lm.py"):
        (sub / f).write_text("SWEEPS = {}\n")
    assert [f.name for f in _modules(tmp_path / "b")] == ["lm.py", "ranks.py"]
    assert _modules(tmp_path) == []


def test_tolerance_is_the_seed_spread_on_another_cpu_kind(monkeypatch):
    """A full re-training is compared within the declared tolerance on the CPU kind the run was made on, and
    within the spread of the stored seeds of that point on another kind (a diverging training is another draw)."""
    _need("aot-memorization", "exp6")
    man = EV.read_manifest("aot-memorization", "exp6")
    ev = EV.load("aot-memorization", "exp6")
    p = next(r for r in ev.points if r["H"] == 13 and r["variant"] == "official")
    p = {k: p[k] for k in EV.sweeps("aot-memorization")["exp6"]["points"][0]}
    row = [(p, "table_acc", 0.5, 0.5)]
    declared = EV.sweeps("aot-memorization")["exp6"]["verify"]["fields"]["table_acc"]
    monkeypatch.setattr(MG, "_same_kind", lambda m, kind: m == man)              # the stored run's kind
    assert MG.tolerances("aot-memorization", "exp6", row) == [declared]
    monkeypatch.setattr(MG, "_same_kind", lambda m, kind: False)                  # another kind, or not recorded
    others = [r["table_acc"] for r in ev.points if r["H"] == 13 and r["variant"] == "official" and r["rep"] != p["rep"]]
    assert MG.tolerances("aot-memorization", "exp6", row) == [max(declared, max(others) - min(others))]
    assert max(others) - min(others) > declared                     # the case that made the rule: H = 13 diverges


def test_uncommitted_evidence_is_named_before_pages_read_it(tmp_path, monkeypatch, capsys):
    """``provenance.uncommitted_evidence`` lists new or edited stored runs (git status) and ``lib results`` warns
    with their paths; a committed store gives no warning."""
    import subprocess

    from lib.book import cli, pages, provenance
    from lib.core import codehash
    git = lambda *a: subprocess.run(["git", *a], cwd=tmp_path, check=True, capture_output=True)  # noqa: E731
    git("init", "-q")
    (tmp_path / "book" / "evidence" / "ch" / "sw").mkdir(parents=True)
    (tmp_path / "book" / "evidence" / "ch" / "sw" / "manifest.json").write_text("{}")
    monkeypatch.setattr(codehash, "ROOT", tmp_path)
    monkeypatch.setattr(pages, "write_results", lambda: [])
    assert provenance.uncommitted_evidence() == ["book/evidence/"]
    assert provenance.uncommitted_evidence(["ch"]) == ["book/evidence/ch/"] and provenance.uncommitted_evidence(["x"]) == []
    cli.main(["results"])
    assert "uncommitted path(s) under book/evidence/" in capsys.readouterr().err
    git("add", "-A")
    git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x")
    assert provenance.uncommitted_evidence() == []
    cli.main(["results"])
    assert "warning" not in capsys.readouterr().err
