"""The fingerprint of stored evidence follows what a run executes (lib.core.reachable.definitions).

* On a copy of ``lib``: an unused constant in ``lib/core/attention.py`` or ``lib/core/claims.py``, a docstring,
  or an edit to a page-only function stales no stored sweep; one changed line in a training step stales
  exactly the sweeps that run it, and the reason names the function.
* No dependency hides: one work unit per training function, trained to its end on a tiny recipe under a
  profiler, calls only ``lib`` functions that are in the static set.
* ``migrate`` moves a stored sweep across a change of its fingerprint when its sample reproduces, and
  refuses a numeric change, leaving the store untouched.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from lib.book import evidence as EV
from lib.book import migrate as MG
from lib.core import codehash, reachable

ROOT = codehash.ROOT
STORED = [(c, n) for c in EV.chapters() for n in EV.sweeps(c) if EV.read_manifest(c, n) is not None]
REPORT = """
import json, lib
from lib.book import evidence as E
assert lib.__file__.startswith({root!r}), lib.__file__
print(json.dumps({{f"{{c}}/{{n}}": E.stale_reason(sw, E.read_manifest(c, n) or {{}})
                  for c in E.chapters() for n, sw in E.sweeps(c).items() if E.read_manifest(c, n)}}))
"""


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """A copy of ``lib`` and of the stored manifests (not the points)."""
    t = tmp_path_factory.mktemp("tree")
    shutil.copytree(ROOT / "lib", t / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    for m in (ROOT / "book" / "evidence").glob("*/*/manifest.json"):
        (t / m.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(m, t / m.relative_to(ROOT))
    return t


def _stale_after(tree: Path, edits: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Apply ``{file: (old, new)}`` in the copy, return {sweep: stale reason}, then undo the edits."""
    saved = {}
    for f, (old, new) in edits.items():
        p = tree / f
        saved[p] = p.read_text()
        assert old in saved[p], f"{old!r} not in {f}"
        p.write_text(saved[p].replace(old, new, 1))
    try:
        out = subprocess.run([sys.executable, "-c", REPORT.format(root=str(tree))], cwd=tree, capture_output=True,
                             text=True, timeout=300, env={"PATH": "", "PYTHONPATH": str(tree)})
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)
    finally:
        for p, text in saved.items():
            p.write_text(text)


def test_harmless_edits_stale_nothing(tree):
    stale = _stale_after(tree, {
        "lib/core/attention.py": ("\ndef ", "\nUNUSED_CONSTANT = 1\n\n\ndef "),
        "lib/core/claims.py": ("\ndef ", "\nUNUSED_CONSTANT = 2\n\n\ndef "),
        "lib/engine/train.py": ('    """Train the family\'s G models', '    """Train, in one batch, the family\'s G models'),
        "lib/chapters/aot_memorization/train.py": ("return slope * T0 /", "return 1.0 * slope * T0 /"),
    })
    assert stale and not any(stale.values()), {k: v for k, v in stale.items() if v}


def test_a_training_step_edit_stales_exactly_its_sweeps(tree):
    stale = _stale_after(tree, {"lib/chapters/aot_memorization/train.py": ("def member_seed(", "def member_seed(*_, ")})
    hit = {k for k, v in stale.items() if v}
    assert hit == {k for k in stale if k.startswith("aot-memorization/")}
    assert all("lib.chapters.aot_memorization.train:member_seed (edited)" in stale[k] for k in hit)
    stale = _stale_after(tree, {"lib/engine/train.py": ("        self.t += 1\n", "        self.t += 1  # a comment\n        self.t += 0\n")})
    hit = {k for k, v in stale.items() if v}              # every sweep on the engine; the depth-width LM is not
    assert hit == {k for k in stale if not k.startswith("depth-width/")}
    assert all("lib.engine.train:_FamilyRun (edited)" in stale[k] for k in hit)


def _tiny(sw: dict, unit: list[dict]) -> tuple[list[dict], dict]:
    """The unit and recipe shrunk to a few optimiser steps, every code path of the training function kept."""
    cfg = MG._config_here(sw)             # a GPU sweep's device is the CPU where no GPU is present
    cfg.update({k: v for k, v in dict(min_steps=3, epochs=0, steps=3, eval_every=2, curve_every=2, eval_batches=2,
                                      curve_batches=2).items() if k in cfg})
    if "recipe" in cfg:
        cfg["recipe"] = dict(cfg["recipe"], epochs=2, batches_per_epoch=2)
    return [dict(p, steps=3) if "steps" in p else p for p in unit], cfg


def _called(sw: dict) -> set[str]:
    """``module:name`` of every ``lib`` definition that one stored unit, trained to its end on a tiny recipe,
    calls (a profiler's view)."""
    seen: set[str] = set()
    lib_dir = str(ROOT / "lib") + "/"

    def prof(frame, event, arg):
        if event == "call" and frame.f_code.co_filename.startswith(lib_dir):
            rel = frame.f_code.co_filename[len(str(ROOT)) + 1:-3].replace("/", ".").removesuffix(".__init__")
            top = frame.f_code.co_qualname.split(".")[0]
            if not top.startswith("<"):
                seen.add(f"{rel}:{top}")

    unit, cfg = _tiny(sw, MG.sample_units(sw, EV.load(sw["chapter"], sw["name"]).points, 1)[0])
    reported = []

    class Collect(MG._Quiet):
        def __call__(self, point, result) -> None:
            reported.append(point)

    report = Collect()
    sys.setprofile(prof)
    try:
        sw["fn"](unit, report, **cfg)
    finally:
        sys.setprofile(None)
    assert len(reported) == len(unit)                     # every point ran to its end
    return {k for k in seen if not k.startswith("lib.book.migrate:")}


FNS = {}
for _c, _n in STORED:
    FNS.setdefault(EV.sweeps(_c)[_n]["fn"], (_c, _n))


@pytest.mark.parametrize("chapter,name", list(FNS.values()), ids=[f"{c}/{n}" for c, n in FNS.values()])
def test_no_dependency_hides(chapter, name):
    sw = EV.sweeps(chapter)[name]
    hidden = _called(sw) - set(reachable.definitions(sw["fn"]))
    assert not hidden, f"called by {chapter}/{name}'s training function but not in its fingerprint: {sorted(hidden)}"


def _copy_store(tmp_path: Path, chapter: str, name: str) -> Path:
    root = tmp_path / "evidence"
    shutil.copytree(EV.folder(chapter, name), root / chapter / name)
    return root


def test_migrate_moves_a_refactor_and_refuses_a_numeric_change(tmp_path, monkeypatch):
    if ("aot-memorization", "exp6") not in STORED:
        pytest.skip("no stored aot-memorization/exp6")
    root = _copy_store(tmp_path, "aot-memorization", "exp6")
    man = EV.read_manifest("aot-memorization", "exp6", root)
    key = "lib.chapters.aot_memorization.train:train_points"
    man.update(fingerprint="0" * 12, definitions=dict(man["definitions"], **{key: "0" * 16}))
    EV._write_manifest(man, "aot-memorization", "exp6", root)           # as if train_points had been refactored
    points = sorted(p.read_bytes() for p in EV.points_dir("aot-memorization", "exp6", root).glob("*.json"))

    from lib.chapters.aot_memorization import train as AT
    seed = AT.member_seed
    monkeypatch.setattr(AT, "member_seed", lambda *a, **k: seed(*a, **k) + 1)      # a real numeric change
    log: list[str] = []
    assert not MG.migrate("aot-memorization", "exp6", root, log=log.append)
    assert "NOT migrated" in log[0] and "params digest at step 1 differs" in log[0], log
    assert EV.read_manifest("aot-memorization", "exp6", root) == man               # untouched

    monkeypatch.setattr(AT, "member_seed", seed)                                    # the refactor proper
    assert MG.migrate("aot-memorization", "exp6", root, log=log.append), log
    new = EV.read_manifest("aot-memorization", "exp6", root)
    rec = new["migrations"][-1]
    assert new["fingerprint"] == EV.fingerprint(EV.sweeps("aot-memorization")["exp6"]) == rec["to"]
    assert rec["from"] == "0" * 12 and f"{key} (edited)" in rec["changed"]
    # bitwise on the CPU kind the run was made on; within the stated tolerance on another kind
    assert any("bitwise equal" in c or "within rtol" in c for c in rec["checks"]), rec
    assert any("full unit" in c for c in rec["checks"]), rec
    assert not EV.load("aot-memorization", "exp6", root).stale
    assert sorted(p.read_bytes() for p in EV.points_dir("aot-memorization", "exp6", root).glob("*.json")) == points


def test_migrate_refuses_a_recipe_change(tmp_path):
    if ("aot-memorization", "exp6") not in STORED:
        pytest.skip("no stored aot-memorization/exp6")
    root = _copy_store(tmp_path, "aot-memorization", "exp6")
    man = EV.read_manifest("aot-memorization", "exp6", root)
    EV._write_manifest(dict(man, config=dict(man["config"], data_seed=1)), "aot-memorization", "exp6", root)
    log: list[str] = []
    assert not MG.migrate("aot-memorization", "exp6", root, log=log.append)
    assert "recipe changed" in log[0] and "rerun" in log[0]
