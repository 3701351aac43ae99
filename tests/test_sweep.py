"""Sweeps: grids, the atomic store, resume after a kill, executors (inline, processes, submitit local).

The training functions used here are top-level functions of this module, so that worker processes
(spawned, or started by submitit) can import them.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from lib.chapters.mha_memorization import model as mha_model
from lib.engine import sweep, train

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def train_points(points, report, steps=60, sleep=0.0):
    """A real (tiny) MHA family per unit; points share H, differ in T and seed."""
    torch.set_num_threads(1)
    fam = mha_model.MHAMemorization(d=8, n=4, H=points[0]["H"], n_classes=5)
    data = mha_model.mha_data(fam, [p["T"] for p in points], [p["data_seed"] for p in points])
    def done(g, r):
        time.sleep(sleep)
        report(points[g], r)
    train.train_family(fam, data, seeds=[p["seed"] for p in points], steps=steps, lr=1e-2, batch_size=8,
                       schedule="warmup_cosine", eval_every=20, early_stop_acc=1.0,
                       on_model_done=done, progress=report.progress)


def returns_results(points, report):
    """A training function may return its results instead of reporting them."""
    return [{"value": p["a"] * 10 + p["b"]} for p in points]


def fails(points, report):
    raise RuntimeError("boom")


POINTS = sweep.grid(H=[1, 2], T=[10, 20], seed=[0, 1], data_seed=3)


def test_grid_and_keys():
    pts = sweep.grid(a=[1, 2], b=["x", "y", "z"], c=0.5)
    assert len(pts) == 6 and pts[0] == {"a": 1, "b": "x", "c": 0.5} and pts[-1] == {"a": 2, "b": "z", "c": 0.5}
    assert sweep.point_key({"a": 1, "b": 2}) == sweep.point_key({"b": 2, "a": 1})
    assert sweep.point_key({"a": 1}) != sweep.point_key({"a": 1.5})
    us = sweep.units(POINTS, ["H"], max_family=3)
    assert [len(u) for u in us] == [2, 2, 2, 2]          # 4 per H, at most 3 per unit -> 2 + 2
    assert all(len({p["H"] for p in u}) == 1 for u in us)
    assert [len(u) for u in sweep.units(POINTS, ["H"], max_family=64, min_units=4)] == [2, 2, 2, 2]


def test_store_atomic(tmp_path):
    st = sweep.Store(tmp_path)
    p = {"a": 1}
    assert st.get(p) is None
    st.put(p, {"acc": torch.tensor(0.5), "hist": [1, 2]})
    assert st.get(p)["result"] == {"acc": 0.5, "hist": [1, 2]}
    assert not list(tmp_path.glob(".tmp-*"))
    st.path({"a": 2}).write_text('{"point": {"a": 2}, "res')        # a torn file is not a result
    assert st.get({"a": 2}) is None


def test_run_inline_then_resume_skips(tmp_path):
    rows = sweep.run(train_points, POINTS, name="t", group_by=["H"], run_dir=tmp_path, executor="inline",
                     quiet=True)
    assert [(r["H"], r["T"], r["seed"]) for r in rows] == [(p["H"], p["T"], p["seed"]) for p in POINTS]
    assert all(0 <= r["best_acc"] <= 1 and r["steps"] > 0 for r in rows)
    folder = next(tmp_path.iterdir())
    stamps = {f.name: f.stat().st_mtime_ns for f in folder.glob("*.json")}
    assert len(stamps) == len(POINTS)
    rows2 = sweep.run(train_points, POINTS, name="t", group_by=["H"], run_dir=tmp_path, executor="inline",
                      quiet=True)
    assert rows2 == rows
    assert stamps == {f.name: f.stat().st_mtime_ns for f in folder.glob("*.json")}     # nothing rewritten
    # other settings (config) -> another folder, never the old results
    sweep.run(returns_results, sweep.grid(a=[1], b=[2]), name="t", run_dir=tmp_path, executor="inline",
              config={"x": 1}, quiet=True)
    assert len(list(tmp_path.iterdir())) == 2


def test_returned_results_and_errors(tmp_path):
    rows = sweep.run(returns_results, sweep.grid(a=[1, 2], b=[3]), run_dir=tmp_path, executor="inline", quiet=True)
    assert [r["value"] for r in rows] == [13, 23]
    with pytest.raises(RuntimeError, match="boom"):
        sweep.run(fails, [{"a": 1}], run_dir=tmp_path, name="f", executor="inline", quiet=True)
    with pytest.raises(ValueError, match="duplicate"):
        sweep.run(returns_results, [{"a": 1, "b": 1}] * 2, run_dir=tmp_path, executor="inline", quiet=True)
    with pytest.raises(ValueError, match="top-level"):
        sweep.run(lambda pts, rep: None, [{"a": 1}], run_dir=tmp_path, executor="inline", quiet=True)


def test_process_and_submitit_equal_inline(tmp_path):
    ref = sweep.run(train_points, POINTS, name="i", group_by=["H"], run_dir=tmp_path / "i", executor="inline",
                    quiet=True)
    for ex in ("process", "submitit"):
        rows = sweep.run(train_points, POINTS, name=ex, group_by=["H"], run_dir=tmp_path / ex, executor=ex,
                         workers=2, cluster="local", quiet=True)
        for a, b in zip(rows, ref, strict=False):
            assert a["steps"] == b["steps"] and a["best_loss"] == pytest.approx(b["best_loss"], rel=1e-5), ex


_DRIVER = """
import sys
sys.path.insert(0, {here!r})
import test_sweep
from lib.engine import sweep
if __name__ == "__main__":
    pts = sweep.grid(H=[1, 2, 3], T=[10, 20, 30], seed=[0, 1], data_seed=3)
    sweep.run(test_sweep.train_points, pts, name="k", group_by=["H"], run_dir={out!r}, executor={ex!r},
              workers=2, quiet=True, fn_kwargs={{"sleep": {sleep}}})
"""


@pytest.mark.parametrize("ex", ["inline", "process"])
def test_kill_midway_and_resume(tmp_path, ex):
    """Kill a running sweep (SIGKILL to its process group) once some points are on disk; the rerun
    keeps them untouched, computes only the rest, and gives the same results as an uninterrupted run."""
    out = tmp_path / "run"
    script = tmp_path / "driver.py"
    script.write_text(_DRIVER.format(here=str(HERE), out=str(out), ex=ex, sleep=0.4))
    proc = subprocess.Popen([sys.executable, str(script)], cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t0 = time.time()
    done_files: list[Path] = []
    while time.time() - t0 < 120:
        done_files = [f for f in out.glob("k-*/*.json") if not f.name.startswith(".")]
        if len(done_files) >= 3 or proc.poll() is not None:
            break
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # a write cut by the kill leaves at most a hidden temp file, which the store ignores
    partial = {f.name: f.read_text() for f in out.glob("k-*/*.json") if not f.name.startswith(".")}
    assert 3 <= len(partial) < 18, f"kill came too late or too early: {len(partial)} points"
    assert all(json.loads(v)["point"] for v in partial.values())                 # whole files only
    # resume in this process
    import test_sweep
    pts = sweep.grid(H=[1, 2, 3], T=[10, 20, 30], seed=[0, 1], data_seed=3)
    rows = sweep.run(test_sweep.train_points, pts, name="k", group_by=["H"], run_dir=out, executor="inline",
                     quiet=True, fn_kwargs={"sleep": 0.0})
    after = {f.name: f.read_text() for f in out.glob("k-*/*.json") if not f.name.startswith(".")}
    assert len(after) == 18
    assert all(after[k] == v for k, v in partial.items())                        # finished points kept as they were
    ref = sweep.run(test_sweep.train_points, pts, name="k", group_by=["H"], run_dir=tmp_path / "ref",
                    executor="inline", quiet=True)
    for a, b in zip(rows, ref, strict=False):
        assert a["steps"] == b["steps"] and a["best_loss"] == pytest.approx(b["best_loss"], rel=1e-5)


def test_quiet_from_environment(monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    monkeypatch.delenv("NBVAL", raising=False)
    monkeypatch.setenv("ATR_QUIET", "1")
    assert sweep.is_quiet()
    monkeypatch.setenv("ATR_QUIET", "0")
    assert not sweep.is_quiet()
    assert sweep.is_quiet(True)


def test_default_folder_uses_run_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("ATR_RUN_DIR", str(tmp_path))
    d = sweep.sweep_dir("fig", returns_results, {"a": 1})
    assert d.parent == tmp_path / "sweeps" and d.name.startswith("fig-")
    assert sweep.sweep_dir("fig", returns_results, {"a": 2}) != d
    monkeypatch.delenv("ATR_RUN_DIR")
    assert "atr-sweep-" in str(sweep.sweep_dir("fig", returns_results))


def test_store_ignores_a_temp_file_left_by_a_killed_write(tmp_path):
    st = sweep.Store(tmp_path)
    st.put({"a": 1}, {"x": 2.0})
    (tmp_path / ".tmp-cut.json").write_text('{"point": {"a"')          # a write cut by SIGKILL
    assert st.keys() == {sweep.point_key({"a": 1})}
    assert [r["result"] for r in st.records()] == [{"x": 2.0}]
    assert st.get({"a": 1})["result"] == {"x": 2.0}
