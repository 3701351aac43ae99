"""Re-verify stored evidence with today's code, and move it across a refactor instead of re-training it.

Two checks re-train a deterministic sample of a sweep's work units (:func:`sample_units`) with today's code:

* **the full unit** (:func:`retrain`): every point of the unit trained to the end and compared field by field,
  for sweeps whose units cost a CPU-minute or two (``verify["units"]``; ``verify["points"]`` names cheap
  points of a costly sweep). The fields with a declared tolerance (``verify["fields"]``) are compared within
  it: a stored run may have batched its units differently (two workers split them), and a zero-padded family
  of other shapes rounds differently; on another CPU kind, within the spread of the point's stored seeds where
  that is larger (:func:`tolerances`); every other field must be equal;
* **the trajectory prefix** (:func:`replay`), for every sweep, however costly its units: the unit is trained
  for the first ``verify["prefix"]`` optimiser steps (default 256) and stopped there. At steps 1, 16, 64, ...
  and the last, the parameters of every model in the family are digested (their bytes, and the sum of their
  absolute values for a machine of another kind), and every evaluation on the way is digested the same way.
  The digests recorded when the run was made (:func:`record`) and the replayed ones must agree.

A sweep of an exact computation (``verify["exact"]``: integers over GF(p), say), which takes no optimiser step,
has no trajectory: it is checked by recomputing its declared cheap units, every field equal.

The prefix is observed, not built into the training code: :func:`trajectory` wraps the engine's
``adam_step`` and ``evaluate`` (``lib.engine.train``) and registers a global post-step hook on
``torch.optim`` optimisers (the depth-width LM's AdamW), so the code under test is exactly the code that ran.
What a prefix does not reach (what a unit computes after its last step: the final evaluation, statistics
of the trained weights) is checked by the full unit where a sweep declares one.

``python -m lib evidence migrate <chapter> [<sweep> ...]`` (:func:`migrate`): for a sweep whose fingerprint
changed while its recipe and grid did not, replay the recorded prefixes (and re-train the full units the
sweep declares). If every digest and every result field but timing is bitwise equal on this machine (within
the stated tolerance on a machine of another CPU model, recorded as such), rewrite the manifest's
fingerprint and definitions and append a migration record (old and new fingerprint, the definitions that
changed, commit, units, checks, date): one file changes, no point is touched. Otherwise name the step or the
field that differs and leave the store as it was: the change is real, and the sweep is rerun.
"""
from __future__ import annotations

import contextlib
import datetime
import hashlib
import math
import tempfile
from pathlib import Path
from typing import Iterator

import torch
from torch.optim.optimizer import register_optimizer_step_post_hook

from lib.book import evidence as E
from lib.core import reachable
from lib.engine import sweep
from lib.engine import train as engine_train

TIMING = {"cpu_s", "wall_s", "seconds", "digest", "written"}  # result fields that may differ between two trainings,
                                                          # with the phase timings ``t_<phase>`` (:func:`_timing`)
LABELS = {"family", "device"}                           # how and where the unit was batched, not what it computed
MARKS = (1, 16, 64, 256, 1024)                          # steps whose parameters a trajectory digests
RTOL_OTHER_CPU = 1e-3                                   # parameter sums on a machine of another CPU kind
RTOL_FIELDS = 1e-6                                      # undeclared float results of a full unit, idem


class _PrefixDone(Exception):
    """Raised by the trajectory hook at the last step of the prefix: the unit stops there."""


def _digest(tensors: list[torch.Tensor]) -> dict:
    """The tensors' bytes (sha256) and the sum of their absolute values (float64)."""
    h = hashlib.sha256()
    total = 0.0
    for t in tensors:
        a = t.detach().cpu().contiguous()
        h.update(a.numpy().tobytes())
        total += float(a.double().abs().sum())
    return {"sha": h.hexdigest()[:16], "abs_sum": total}


@contextlib.contextmanager
def trajectory(steps: int) -> Iterator[list[dict]]:
    """Within the block, the engine's and torch's optimiser steps are observed: after step t in :data:`MARKS`
    or t = ``steps`` the parameters are digested, every evaluation's losses and accuracies too, and at step
    ``steps`` :class:`_PrefixDone` stops the unit. Yields the list of records."""
    rec: list[dict] = []
    adam, evaluate = engine_train.adam_step, engine_train.evaluate
    count: dict[int, int] = {}

    def mark(t: int, params: list[torch.Tensor]) -> None:
        if t in MARKS or t == steps:
            rec.append(dict(step=t, what="params", **_digest(params)))
        if t >= steps:
            raise _PrefixDone

    def adam_step(params, grads, m, v, t, *a, **k):
        adam(params, grads, m, v, t, *a, **k)
        mark(t, params)

    def evaluate_(fam, params, data, *a, **k):
        loss, acc = evaluate(fam, params, data, *a, **k)
        rec.append(dict(step=-1, what="evaluate", **_digest([loss, acc])))
        return loss, acc

    def post_hook(opt, args, kwargs):
        count[id(opt)] = count.get(id(opt), 0) + 1
        mark(count[id(opt)], [p for g in opt.param_groups for p in g["params"]])

    engine_train.adam_step, engine_train.evaluate = adam_step, evaluate_
    handle = register_optimizer_step_post_hook(post_hook)
    try:
        yield rec
    finally:
        engine_train.adam_step, engine_train.evaluate = adam, evaluate
        handle.remove()


class _Quiet:
    """The reporter a replayed unit writes to: nothing is stored."""

    def __call__(self, point, result) -> None:
        pass

    def progress(self, n: int) -> None:
        pass


def _config_here(sw: dict) -> dict:
    """The sweep's recipe, with a GPU sweep's ``device`` set to the CPU where no GPU is present (its replay is then
    compared at the other-machine tolerance: :func:`_where` records the GPU as the machine's kind)."""
    cfg = dict(sw["config"])
    if cfg.get("device", "cpu") != "cpu" and not torch.cuda.is_available():
        cfg["device"] = "cpu"
    return cfg


def run_prefix(sw: dict, unit: list[dict], steps: int) -> list[dict]:
    """Train ``unit`` of sweep ``sw`` for its first ``steps`` optimiser steps (one torch thread); the records."""
    old = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with trajectory(steps) as rec:
            try:
                sw["fn"](unit, _Quiet(), **_config_here(sw))
            except _PrefixDone:
                pass
    finally:
        torch.set_num_threads(old)
    if not any(r["what"] == "params" for r in rec):
        raise RuntimeError(f"{sw['chapter']}/{sw['name']}: the training function took no optimiser step that "
                           "lib.book.migrate.trajectory can observe")
    return rec


def sample_units(sw: dict, rows: list[dict], k: int) -> list[list[dict]]:
    """``k`` work units of stored points, chosen deterministically (hash of the sweep's name), or the stored ones
    among the points the declaration names (``verify["points"]``: cheap units of a costly sweep), one unit each."""
    pts = [{k_: r[k_] for k_ in sw["points"][0]} for r in rows]
    pick = (sw.get("verify") or {}).get("points")
    if pick:
        have = {sweep.point_key(p) for p in pts}
        return [[p] for p in pick if sweep.point_key(p) in have][:k]
    keys = set(sweep.point_key(p) for p in sw["points"])
    pts = [p for p in pts if sweep.point_key(p) in keys]
    us = sorted(sweep.units(pts, sw["group_by"]), key=lambda u: sweep.point_key(u[0]))
    if not us:
        return []
    start = int(hashlib.sha256(f"{sw['chapter']}/{sw['name']}".encode()).hexdigest(), 16) % len(us)
    return [us[(start + i) % len(us)] for i in range(min(k, len(us)))]


def prefix_steps(sw: dict) -> int:
    return int((sw.get("verify") or {}).get("prefix", 256))


def record(sw: dict, root: Path | None = None, units: int = 1) -> list[dict]:
    """Trajectory digests of ``units`` sample units of the stored sweep, made with today's code (by ``python -m lib
    evidence`` when a sweep completes, or once for a run stored before trajectories existed while its code is
    unchanged)."""
    ev = E.load(sw["chapter"], sw["name"], root)
    steps = prefix_steps(sw)
    return [{"unit": u, "steps": steps, "records": run_prefix(sw, u, steps), **_where(sw)}
            for u in sample_units(sw, ev.points, units)]


def _where(sw: dict | None = None) -> dict:
    """Where a trajectory was recorded; for a sweep run on a GPU, the GPU is the machine's kind."""
    m = E.machine()
    kind = m["cpu_kind"]
    if sw is not None and _config_here(sw).get("device", "cpu") != "cpu":
        kind = f"{sw['config']['device']}:{m.get('gpu', '')}"
    return {"cpu": m["cpu"], "cpu_kind": kind, "torch": m["torch"], "date": m["date"], "commit": m["commit"],
            **({"gpu": m["gpu"]} if "gpu" in m else {})}


def _same(a: dict, b: dict, exact: bool) -> bool:
    if exact:
        return a["sha"] == b["sha"]
    return math.isclose(a["abs_sum"], b["abs_sum"], rel_tol=RTOL_OTHER_CPU, abs_tol=1e-12)


def _upto(records: list[dict], steps: int) -> list[dict]:
    """The records of the first ``steps`` steps (an evaluation belongs to the step of the parameters after it)."""
    out = []
    for r in records:
        if r["what"] == "params" and r["step"] > steps:
            break
        out.append(r)
    return out if out and out[-1]["what"] == "params" else out[:-1]


def replay(sw: dict, man: dict, upto: int | None = None, kind: str | None = None) -> tuple[list[str], list[str]]:
    """Replay every recorded trajectory with today's code (its first ``upto`` steps only, if given) on this machine,
    of CPU kind ``kind`` (default: read here): (differences, what was checked)."""
    probs, done = [], []
    kind = kind or E.machine()["cpu_kind"]
    for tr in man.get("trajectories", []):
        exact = tr.get("cpu_kind") == kind
        steps = tr["steps"] if upto is None else min(upto, tr["steps"])
        old = _upto(tr["records"], steps)
        steps = old[-1]["step"]
        now = run_prefix(sw, tr["unit"], steps)
        if len(now) != len(old):
            probs.append(f"unit {tr['unit'][0]}: {len(old)} recorded digests, {len(now)} today (the training "
                         f"took another path within its first {steps} steps)")
            continue
        for a, b in zip(old, now, strict=True):
            if (a["step"], a["what"]) != (b["step"], b["what"]) or not _same(a, b, exact):
                where = f"step {a['step']}" if a["what"] == "params" else "an evaluation"
                probs.append(f"unit {tr['unit'][0]}: the {a['what']} digest at {where} differs ("
                             f"{'sha ' + a['sha'] + ' -> ' + b['sha'] if exact else 'abs sum %r -> %r' % (a['abs_sum'], b['abs_sum'])})")
                break
        done.append(f"{len(tr['unit'])}-point unit {tr['unit'][0]}: {len(old)} digests over {steps} steps "
                    + ("bitwise equal" if exact else f"within rtol {RTOL_OTHER_CPU} (recorded on {tr.get('cpu_kind')})"))
    return probs, done


def retrain(chapter: str, name: str, root: Path | None = None, units: int | None = None) -> list[tuple]:
    """Re-train a deterministic sample of stored work units in full with today's code: (point, field, stored,
    today) for every result field but timing of every re-trained point."""
    sw = E.sweeps(chapter)[name]
    ev = E.load(chapter, name, root)
    k = (sw.get("verify") or {}).get("units", 0) if units is None else units
    if not ev.points or not k:
        return []
    stored = {sweep.point_key({k_: r[k_] for k_ in sw["points"][0]}): r for r in ev.points}
    out = []
    with tempfile.TemporaryDirectory(prefix="atr-verify-") as tmp:
        for u in sample_units(sw, ev.points, k):
            rows = sweep.run(sw["fn"], u, name="verify", group_by=sw["group_by"], config=sw["config"],
                             fn_kwargs=sw["config"], run_dir=tmp, workers=1, quiet=True)
            for p, new in zip(u, rows, strict=True):
                old = stored[sweep.point_key(p)]
                out += [(p, f, old.get(f), new.get(f)) for f in sorted(set(old) | set(new))
                        if not _timing(f) and f not in p]
    return out


def _timing(field: str) -> bool:
    """Whether a result field is a timing (or a seal) that may differ between two runs of the same unit."""
    return field in TIMING or field.startswith("t_")


def _equal(a, b, rtol: float = 0.0) -> bool:
    """Equal, element by element; floats within ``rtol`` (0: bitwise; NaN equals NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or a == b or math.isclose(a, b, rel_tol=rtol, abs_tol=0.0)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y, rtol) for x, y in zip(a, b, strict=True))
    return a == b


def _same_kind(man: dict, kind: str) -> bool:
    """Whether every session of the stored run ran on CPU kind ``kind`` (recorded since trajectories)."""
    return {s.get("cpu_kind") for s in man.get("sessions", [])} == {kind}


REPLICATE_KEYS = ("rep", "seed")                          # point keys that only draw another replicate


def seed_spread(points: list[dict], p: dict, field: str) -> float:
    """max − min of ``field`` over the stored replicates of point ``p`` (the points equal to ``p`` but in a
    replicate key, :data:`REPLICATE_KEYS`), ``p`` itself left out; 0 with fewer than two of them."""
    keys = [k for k in p if k not in REPLICATE_KEYS]
    vals = [float(r[field]) for r in points if field in r and all(r.get(k) == p[k] for k in keys)
            and any(r.get(k) != p[k] for k in REPLICATE_KEYS if k in p)]
    return max(vals) - min(vals) if len(vals) >= 2 else 0.0


def declared(chapter: str, name: str) -> dict[str, float]:
    """The sweep's declared tolerances, {result field: absolute tolerance} (``verify["fields"]``)."""
    return (E.sweeps(chapter)[name].get("verify") or {}).get("fields", {})


def tolerances(chapter: str, name: str, rows: list[tuple], root: Path | None = None) -> list[float]:
    """The tolerance of each re-trained ``(point, field, stored, today)`` row of :func:`retrain` whose field has
    one. On the CPU kind every session of the stored run ran on, the sweep's declared tolerance. On another kind a
    long training is another draw of its rounding, and on a task where runs diverge (memorization by Adam) its
    result lands anywhere in the seeds' spread: the tolerance is the larger of the declared one and the spread of
    the stored replicates of that point (:func:`seed_spread`). The trajectory replay still compares the first
    steps within :data:`RTOL_OTHER_CPU`, so a change of code is caught there."""
    tol = declared(chapter, name)
    man = E.read_manifest(chapter, name, root) or {}
    if _same_kind(man, E.machine()["cpu_kind"]):
        return [tol[f] for _, f, _, _ in rows if f in tol]
    points = E.load(chapter, name, root).points
    return [max(tol[f], seed_spread(points, p, f)) for p, f, _, _ in rows if f in tol]


def beyond_tolerance(chapter: str, name: str, rows: list[tuple], root: Path | None = None) -> list[tuple]:
    """The rows of :func:`retrain` whose field has a tolerance (:func:`tolerances`) and exceeds it, each with it."""
    judged = [r for r in rows if r[1] in declared(chapter, name)]
    return [(*r, t) for r, t in zip(judged, tolerances(chapter, name, rows, root), strict=True)
            if abs(float(r[3]) - float(r[2])) > t]


def verify(chapter: str, name: str, root: Path | None = None, units: int | None = None) -> list[str]:
    """:func:`retrain`'s differences beyond their tolerances (:func:`tolerances`), as messages (empty: verified)."""
    return [f"{chapter}/{name}: point {p}: stored {f} = {old:.4f}, re-trained today {new:.4f} (tolerance "
            f"{t:.3g}); if the code changed on purpose, rerun `{E.command(chapter, name)}`"
            for p, f, old, new, t in beyond_tolerance(chapter, name, retrain(chapter, name, root, units), root)]


def migrate(chapter: str, name: str, root: Path | None = None, full: bool | None = None, log=print) -> bool:
    """Move a stale stored sweep to today's code if its sample reproduces (module docstring). ``full``: also
    re-train the declared full units (default: when the sweep declares them). True when migrated or current."""
    sw = E.sweeps(chapter)[name]
    man = E.read_manifest(chapter, name, root)
    where = f"{chapter}/{name}"
    if man is None:
        log(f"{where}: nothing stored")
        return False
    reason = E.stale_reason(sw, man)
    if not reason:
        log(f"{where}: current (fingerprint {man['fingerprint']}); nothing to migrate")
        return True
    if "training code" not in reason:
        log(f"{where}: {reason}: a new recipe or grid is a new experiment, not a refactor; rerun `{E.command(chapter, name)}`")
        return False
    if not man.get("trajectories") and not (sw.get("verify") or {}).get("exact"):
        log(f"{where}: no trajectory recorded; nothing to replay. Rerun `{E.command(chapter, name)}`")
        return False
    new_defs = E.definitions(sw)                 # the source on disk now: it must be what the replay runs
    here = E.machine()
    probs, done = replay(sw, man, kind=here["cpu_kind"])
    spec = sw.get("verify") or {}
    k = spec.get("units", 0) if full is None else (1 if full else 0)
    tol, exact = spec.get("fields", {}), bool(spec.get("exact"))
    if exact and not k:
        log(f"{where}: an exact computation is migrated by recomputing its declared cheap units; none is declared")
        return False
    same = exact or _same_kind(man, here["cpu_kind"])
    rows = retrain(chapter, name, root, k) if k and not probs else []
    diffs = [(p, f, a, b) for p, f, a, b in rows if f not in LABELS and (f not in tol or exact)
             and not _equal(a, b, 0 if same else RTOL_FIELDS)]
    diffs += [] if exact else [r[:4] for r in beyond_tolerance(chapter, name, rows, root)]
    probs += [f"point {p}: field {f!r} stored {a!r}, today {b!r}" for p, f, a, b in diffs[:5]]
    if probs:
        log(f"{where}: NOT migrated, today's code does not reproduce the stored run:\n  " + "\n  ".join(probs)
            + f"\n  the change is real: rerun `{E.command(chapter, name)}`")
        return False
    if k:
        worst = {f: max(abs(float(b) - float(a)) for _, g, a, b in rows if g == f) for f in tol if not exact}
        bound = {f: tol[f] if same else f"max({tol[f]}, the spread of the stored seeds)" for f in worst}
        done.append(f"{k} full unit(s) re-trained: " + "".join(f"{f} within {bound[f]} (largest |diff| {w:.2g}), "
                                                               for f, w in worst.items())
                    + ("every other result field but timing and the family label bitwise equal" if same else
                       f"every other result field but timing and the family label equal, floats within rtol "
                       f"{RTOL_FIELDS} (the stored run's CPU kind is not this machine's, or was not recorded)"))
    if E.definitions(sw) != new_defs:
        log(f"{where}: NOT migrated: the source changed while the sample was re-trained; run migrate again")
        return False
    rec = {"from": man["fingerprint"], "to": E.fingerprint(sw), "changed": reachable.changed(man.get("definitions", {}), new_defs),
           "checks": done, "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
           "commit": here["commit"]}
    man.update(fingerprint=rec["to"], definitions=new_defs, migrations=man.get("migrations", []) + [rec])
    E._write_manifest(man, chapter, name, root)
    log(f"{where}: migrated {rec['from']} -> {rec['to']} ({'; '.join(done)}); changed: {', '.join(rec['changed'])}")
    return True
