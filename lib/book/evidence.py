"""Paper-scale evidence: long CPU runs, stored with provenance, read by the pages, re-verified by the tests.

A chapter declares its evidence sweeps in ``lib/chapters/<pkg>/evidence.py`` as data, ``SWEEPS = {name:
dict(...)}`` with keys ``fn`` (the training function of :func:`lib.engine.sweep.run`), ``points`` (the grid),
``group_by``, ``config`` (the recipe: passed to ``fn`` as keyword arguments and hashed into the fingerprint),
``cost_s`` (measured CPU-seconds per point, for ``--list``), ``budget_h`` (CPU-hours allowed), ``claims`` (the
claim ids it feeds), ``what`` (one line), ``paper`` (the paper's scale) and ``verify`` (``fields``: {result
key: absolute tolerance}, ``units``: how many work units the test re-trains in full, ``points``: optionally,
which (cheap) points, ``prefix``: the optimiser steps a trajectory check replays). Only ``fn``, ``config``
and ``points`` make the evidence what it is; the rest can change without touching the stored run.

``python -m lib evidence <chapter> [<name> ...]`` runs them on :func:`lib.engine.sweep.run` into
``book/evidence/<chapter>/<name>/points/`` (one sealed JSON file per finished point, written as it finishes:
an interrupted run resumes and never recomputes a stored point), next to ``manifest.json``: the grid, the
recipe, the fingerprint with one hash per definition the training function reaches
(:func:`lib.core.reachable.definitions`), per session the git commit, torch/numpy versions, CPU model and date,
the trajectory digests of a sample of work units (:mod:`lib.book.migrate`), the migrations the run went
through, and at the end the CPU-seconds per point and, per model family, the model-steps/s and the fraction
of this machine's float32 GEMM peak.

Each stored result carries a ``digest`` (:func:`lib.engine.sweep.seal`): a hand-edited number is found by
:func:`check`. When a definition the run executed changes, :func:`load` and :func:`check` say the evidence is
stale, name the definitions, and print the command that refreshes it; ``python -m lib evidence migrate``
(:mod:`lib.book.migrate`) moves it to the new code when a re-trained sample reproduces it bitwise.
"""
from __future__ import annotations

import importlib
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lib.book import provenance
from lib.core import codehash, reachable
from lib.engine import sweep

ROOT = codehash.ROOT / "book" / "evidence"


# ----------------------------------------------------------------------------------------------
# declarations
# ----------------------------------------------------------------------------------------------
def _modules(pkg: Path) -> list[Path]:
    """The package's evidence modules: the role ``evidence`` as a module (``evidence.py``) or as a package
    (``evidence/*.py``), like every role (tests/test_package_roles.py)."""
    sub = pkg / "evidence"
    return sorted(pkg.glob("evidence.py")) + (sorted(f for f in sub.glob("*.py") if f.stem != "__init__")
                                              if (sub / "__init__.py").exists() else [])


def chapters() -> list[str]:
    """The chapters whose package declares evidence sweeps."""
    pk = codehash.ROOT / "lib" / "chapters"
    return sorted(p.name.replace("_", "-") for p in pk.iterdir() if p.is_dir() and _modules(p))


def sweeps(chapter: str) -> dict[str, dict]:
    """The chapter's declared sweeps (from every evidence module of its package), each with ``chapter`` and
    ``name`` added."""
    pkg = chapter.replace("-", "_")
    files = _modules(codehash.ROOT / "lib" / "chapters" / pkg)
    if not files:
        raise RuntimeError(f"chapter {chapter!r} declares no evidence sweeps (choose one of "
                           f"{', '.join(chapters())})")
    out: dict[str, dict] = {}
    for f in files:
        mod = importlib.import_module(f"lib.chapters.{pkg}." + (f.stem if f.parent.name != "evidence" else
                                                                f"evidence.{f.stem}"))
        for k, v in mod.SWEEPS.items():
            if k in out:
                raise RuntimeError(f"evidence sweep {chapter}/{k} is declared twice ({f.name})")
            out[k] = dict(v, chapter=chapter, name=k)
    return out


def command(chapter: str, name: str | None = None) -> str:
    return f"python -m lib evidence {chapter}" + (f" {name}" if name else "")


def folder(chapter: str, name: str, root: Path | None = None) -> Path:
    return Path(root or ROOT) / chapter / name


def definitions(sw: dict) -> dict[str, str]:
    """The hash of every definition the sweep's training function reaches (to name the changed ones)."""
    return reachable.definitions(sw["fn"])


def fingerprint(sw: dict) -> str:
    """The sweep's fingerprint: its recipe and the definitions its training function reaches
    (:func:`lib.engine.sweep.fingerprint`)."""
    return sweep.fingerprint(sw["fn"], sw["config"])


def _canon(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


seal = sweep.seal


# ----------------------------------------------------------------------------------------------
# provenance (lib.book.provenance)
# ----------------------------------------------------------------------------------------------
machine, cpu_kind, gemm_peak, reference_peak, throughput = (provenance.machine, provenance.cpu_kind,
                                                            provenance.gemm_peak, provenance.reference_peak,
                                                            provenance.throughput)


# ----------------------------------------------------------------------------------------------
# running
# ----------------------------------------------------------------------------------------------
def _manifest_path(chapter: str, name: str, root: Path | None = None) -> Path:
    return folder(chapter, name, root) / "manifest.json"


def read_manifest(chapter: str, name: str, root: Path | None = None) -> dict | None:
    try:
        return json.loads(_manifest_path(chapter, name, root).read_text())
    except (OSError, ValueError):
        return None


def _write_manifest(man: dict, chapter: str, name: str, root: Path | None = None) -> None:
    p = _manifest_path(chapter, name, root)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(".tmp")
    tmp.write_text(json.dumps(man, indent=1, sort_keys=True) + "\n")
    os.replace(tmp, p)


def points_dir(chapter: str, name: str, root: Path | None = None, man: dict | None = None) -> Path:
    """The folder of the sweep's stored points (``points/``; older manifests name their own)."""
    man = man if man is not None else read_manifest(chapter, name, root) or {}
    return folder(chapter, name, root) / man.get("points_folder", "points")


def _start_manifest(sw: dict, fp: str, root: Path | None) -> dict:
    old = read_manifest(sw["chapter"], sw["name"], root) or {}
    same = old.get("fingerprint") == fp
    pdir = points_dir(sw["chapter"], sw["name"], root, old)
    if old and not same and pdir.is_dir():      # another code version: never mixed in, moved aside, never deleted
        keep = codehash.ROOT / ".cache" / "evidence-old" / sw["chapter"] / sw["name"] / f"points-{old.get('fingerprint')}"
        keep.parent.mkdir(parents=True, exist_ok=True)
        shutil.rmtree(keep, ignore_errors=True)
        shutil.move(str(pdir), str(keep))
        print(f"[lib] {sw['chapter']}/{sw['name']}: the stored points of another code version "
              f"({stale_reason(sw, old) or 'other fingerprint'}) moved to {keep}; starting this version's run")
    pdir = folder(sw["chapter"], sw["name"], root) / "points"
    missing = len({sweep.point_key(p) for p in sw["points"]} - (sweep.Store(pdir).keys() if pdir.is_dir() else set()))
    keep_old = {k: old[k] for k in ("sessions", "migrations", "trajectories") if same and k in old}
    return {"chapter": sw["chapter"], "name": sw["name"], "what": sw["what"], "paper": sw.get("paper", ""),
            "fingerprint": fp, "points_folder": "points", "config": sw["config"],
            "group_by": list(sw["group_by"]), "grid": sw["points"], "n_points": len(sw["points"]),
            "definitions": definitions(sw), "claims": sw.get("claims", []), "budget_cpu_h": sw.get("budget_h"),
            "command": command(sw["chapter"], sw["name"]), **keep_old,
            "sessions": keep_old.get("sessions", []) + ([machine()] if missing or not keep_old.get("sessions") else []),
            "complete": False}


def run(chapter: str, names: list[str] | None = None, workers: int = 2, root: Path | None = None,
        quiet: bool | None = None, where: dict[str, list] | None = None) -> dict[str, dict]:
    """Run (or resume) the chapter's sweeps ``names`` (all if None); returns name -> manifest. ``where``
    ({parameter: values}): train only the points of the grid with those values (a lease too short for the whole
    grid); the manifest keeps the whole grid, and the sweep is complete when every point of it is stored."""
    sws = sweeps(chapter)
    unknown = [n for n in names or [] if n not in sws]
    if unknown:
        raise RuntimeError(f"{chapter} has no evidence sweep {unknown[0]!r} (choose among {', '.join(sws)})")
    peak, ref = gemm_peak(), reference_peak()
    out = {}
    for n in names or list(sws):
        sw = sws[n]
        todo = [p for p in sw["points"] if all(p.get(k) in vs for k, vs in (where or {}).items())]
        if not todo:
            raise RuntimeError(f"{chapter}/{n}: no point of the grid has {where}")
        fp = fingerprint(sw)
        man = _start_manifest(sw, fp, root)
        man["gemm_peak"], man["gemm_peak_reference"] = dict(peak, load=os.getloadavg()), ref
        _write_manifest(man, chapter, n, root)
        pdir = folder(chapter, n, root) / "points"
        sweep.run(sw["fn"], todo, group_by=sw["group_by"], config=sw["config"], fn_kwargs=sw["config"],
                  folder=pdir, sealed=True, workers=workers, quiet=quiet, desc=f"{chapter}/{n}")
        shutil.rmtree(pdir / ".progress", ignore_errors=True)
        rows = _rows(pdir)
        man.update(complete=len(rows) == len(sw["points"]), **_stats(rows, (ref or peak)["gflops"]))
        _write_manifest(man, chapter, n, root)
        out[n] = man
    return out


def _rows(points_dir: Path) -> list[dict]:
    return [{**r["result"], **r["point"]} for r in sweep.Store(points_dir).records()] if points_dir.is_dir() else []


def _stats(rows: list[dict], peak: float | None) -> dict:
    cpu = sum(r.get("cpu_s", 0.0) for r in rows if "wall_s" not in r)
    gpu = {"gpu_process_hours": round(sum(r["wall_s"] for r in rows if "wall_s" in r) / 3600, 4)} \
        if any("wall_s" in r for r in rows) else {}
    return {"n_stored": len(rows), "cpu_hours": round(cpu / 3600, 4), **gpu,
            "cpu_s_per_point": round(cpu / max(len(rows), 1), 2), "throughput": throughput(rows, peak)}


# ----------------------------------------------------------------------------------------------
# reading (pages)
# ----------------------------------------------------------------------------------------------
@dataclass
class Evidence:
    """A stored sweep as a page reads it."""
    chapter: str
    name: str
    points: list[dict] = field(default_factory=list)     # {**result, **point} of every stored point
    manifest: dict | None = None
    stale: bool = False
    reason: str = ""                                      # why stale, or why there is nothing
    total: int = 0                                        # points in the declared grid

    @property
    def command(self) -> str:
        return command(self.chapter, self.name)

    @property
    def refresh(self) -> str:
        """What to do about stale evidence: a code change may be a refactor (migrate), a recipe change is not."""
        how = f"refresh with `{self.command}`"
        if "training code" in self.reason:
            how = (f"if the change is a refactor, `python -m lib evidence migrate {self.chapter} {self.name}` moves "
                   f"the run across it; else {how}")
        return how

    @property
    def complete(self) -> bool:
        return bool(self.points) and len(self.points) >= self.total and not self.stale

    @property
    def cpu_hours(self) -> float:
        """CPU-hours of the points trained on a CPU (a GPU point's ``cpu_s`` is its host's time, not counted)."""
        return sum(r.get("cpu_s", 0.0) for r in self.points if "wall_s" not in r) / 3600

    @property
    def gpu(self) -> str:
        """The GPU the points were trained on ('' for a CPU sweep)."""
        return next((str(r["device"]) for r in self.points if "wall_s" in r), "")

    @property
    def gpu_hours(self) -> float:
        """Process-hours on a GPU: each point's share of its training process's wall-clock time (several processes
        shared one GPU, so this is more than the GPU's own occupied time)."""
        return sum(r.get("wall_s", 0.0) for r in self.points) / 3600

    @property
    def hours(self) -> str:
        """The cost as a reader reads it: CPU-hours, or process-hours on the GPU."""
        return (f"{self.gpu_hours:.2f} process-hours on one {self.gpu}" if self.gpu else
                f"{self.cpu_hours:.2f} CPU-hours")

    @property
    def label(self) -> str:
        if not self.points:
            return f"no stored run ({self.reason}); produce it with `{self.command}`"
        date = (self.manifest or {}).get("sessions", [{}])[-1].get("date", "?")[:10]
        part = "" if len(self.points) >= self.total else f" ({len(self.points)} of {self.total} points so far)"
        stale = f" — STALE: {self.reason}; {self.refresh}" if self.stale else ""
        where = " on a machine with CUDA" if self.gpu else ""
        return (f"stored run of {date}, {self.hours}{part}; reproduce with "
                f"`{self.command}`{where}{stale}")


def stale_reason(sw: dict, man: dict) -> str:
    """'' if the stored sweep matches today's recipe and code, else what changed."""
    if _canon(man.get("config")) != _canon(json.loads(_canon(sw["config"]))):
        return f"the recipe changed (stored {_canon(man.get('config'))}, declared {_canon(sw['config'])})"
    if _canon(man.get("grid")) != _canon(sw["points"]):
        return "the grid changed"
    if man.get("fingerprint") != fingerprint(sw):
        changed = reachable.changed(man.get("definitions", {}), definitions(sw))
        return "the training code changed since the run (" + (", ".join(changed) or "fingerprint differs") + ")"
    return ""


def load(chapter: str, name: str, root: Path | None = None) -> Evidence:
    """The stored points of one sweep, its manifest, and whether it is stale (no recompute)."""
    sw = sweeps(chapter)[name]
    man = read_manifest(chapter, name, root)
    ev = Evidence(chapter, name, manifest=man, total=len(sw["points"]))
    if man is None:
        ev.reason = "not run yet"
        return ev
    ev.points = _rows(points_dir(chapter, name, root, man))
    ev.reason = stale_reason(sw, man)
    ev.stale = bool(ev.reason)
    if not ev.points:
        ev.reason = ev.reason or "no point stored yet"
    return ev


# ----------------------------------------------------------------------------------------------
# checking (tests)
# ----------------------------------------------------------------------------------------------
def check(chapter: str, name: str, root: Path | None = None) -> list[str]:
    """Problems of a stored sweep without re-training: staleness, edited or foreign points."""
    ev = load(chapter, name, root)
    where = f"{chapter}/{name}"
    if ev.manifest is None:
        return []
    probs = []
    if ev.stale:
        probs.append(f"{where}: the stored evidence is stale: {ev.reason}; {ev.refresh}")
    grid = {_canon(p) for p in sweeps(chapter)[name]["points"]}
    pdir = points_dir(chapter, name, root, ev.manifest)
    for rec in sweep.Store(pdir).records():
        pt, res = rec["point"], rec["result"]
        if seal(pt, res)["digest"] != res.get("digest"):
            probs.append(f"{where}: point {pt} was edited after it was trained (its digest does not match "
                         f"its numbers); restore it from git or rerun `{ev.command}`")
        if _canon(pt) not in grid:
            probs.append(f"{where}: point {pt} is not in the declared grid")
    return probs


def listing(chapter: str | None = None, root: Path | None = None) -> list[str]:
    """One line per declared sweep: points, estimated CPU-hours (measured per-point cost), stored state."""
    out = []
    for c in [chapter] if chapter else chapters():
        for n, sw in sweeps(c).items():
            man = read_manifest(c, n, root) or {}
            per = man.get("cpu_s_per_point") or sw["cost_s"]
            src = "measured in the stored run" if man.get("cpu_s_per_point") else "measured per-point cost"
            ev = load(c, n, root)
            state = f"{len(ev.points)}/{ev.total} stored" + (", STALE" if ev.stale else "")
            out.append(f"{c} {n}: {len(sw['points'])} points × {per:.1f} CPU-s ({src}) = "
                       f"{len(sw['points']) * per / 3600:.2f} CPU-hours (budget {sw['budget_h']} h); {state}\n"
                       f"    {sw['what']}")
    return out
