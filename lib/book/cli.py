"""Command line: ``python -m lib <command>``.

    run <chapter> --preset P [--set name=value ...] [--device cpu|cuda|auto]   a rerun into runs/
    run --resume runs/<chapter>/<stamp>-<preset>        finish an interrupted rerun in its folder: its
                                                        sweeps skip every point already stored there
    run --list | list [<chapter>]                       chapters, presets, parameters with their help
    baseline [<chapter> ...]                            re-execute chapters at the book preset into book/
    build-chapters                                      re-execute only the stale chapters in book/
    stale                                               list the chapters whose book/ page is stale
    results                                             write the generated pages (results, errata, statistics, library)
    claims [--chapter C]                                every claim of the executed chapters, as JSON
    params-cell <chapter>                               the source of the chapter's `parameters` cell
    evidence <chapter> [<name> ...] [--workers N]       run or resume paper-scale evidence sweeps into
                                                        book/evidence/ (resumable; lib.book.evidence)
    evidence --list [<chapter>] | <chapter> --check     the sweeps with their CPU-hours | stale or edited points
    evidence migrate <chapter> [<name> ...] [--full]    move stale stored sweeps to today's code when a re-trained
                                                        sample reproduces them bitwise (lib.book.migrate)

Bad input (unknown chapter, preset or parameter; a wrong type; an impossible value) prints one line
naming the parameter and what is allowed, exits with status 2, and executes nothing.
"""
from __future__ import annotations

import argparse
import json
import sys

from lib.core import params as P


def _list(chapter: str | None) -> None:
    for c in [chapter] if chapter else P.chapters():
        spec = P.load(c)
        print(f"{c}: {spec.title}")
        print(f"  presets: {', '.join(spec.presets)}")
        for p in spec.params.values():
            overrides = {k: v[p.name] for k, v in spec.presets.items() if p.name in v}
            extra = "".join(f"; {k}: {v!r}" for k, v in overrides.items())
            print(f"  {p.name} ({p.type}, default {p.default!r}{extra}): {p.help} [{p.allowed()}]")
        for expr, msg in spec.constraints:
            print(f"  constraint: {expr} ({msg})")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m lib", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="rerun a chapter with a preset and overrides into runs/")
    r.add_argument("chapter", nargs="?")
    r.add_argument("--preset", default=None)
    r.add_argument("--resume", default=None, metavar="FOLDER",
                   help="an interrupted run's folder: rerun it there with its own preset and overrides")
    r.add_argument("--set", dest="sets", action="append", default=[], metavar="NAME=VALUE")
    r.add_argument("--device", choices=None)
    r.add_argument("--list", action="store_true", help="list chapters, presets and parameters")
    r.add_argument("--quiet", action="store_true", help="no progress bar")
    lp = sub.add_parser("list")
    lp.add_argument("chapter", nargs="?")
    b = sub.add_parser("baseline")
    b.add_argument("chapters", nargs="*")
    sub.add_parser("build-chapters")
    sub.add_parser("stale")
    sub.add_parser("results")
    cl = sub.add_parser("claims")
    cl.add_argument("--chapter")
    pc = sub.add_parser("params-cell")
    pc.add_argument("chapter")
    ev = sub.add_parser("evidence", help="run (or resume) a chapter's paper-scale evidence sweeps into book/evidence/")
    ev.add_argument("chapter", nargs="?")
    ev.add_argument("names", nargs="*")
    ev.add_argument("--list", action="store_true", help="each sweep with its estimated CPU-hours; runs nothing")
    ev.add_argument("--workers", type=int, default=2, help="one-thread worker processes (default 2)")
    ev.add_argument("--check", action="store_true", help="check the stored evidence (staleness, edits); runs nothing")
    ev.add_argument("--quiet", action="store_true", help="no progress bar")
    ev.add_argument("--full", action="store_true", help="migrate: also re-train one full unit of each sweep")
    ev.add_argument("--where", action="append", default=[], metavar="PARAM=V1,V2",
                    help="train only the grid's points with these values (repeatable), e.g. --where T=30000,50000")
    return ap


def _run(a) -> None:
    if a.resume:
        from lib.book.execute import resume
        if a.chapter or a.preset or a.sets or a.device:
            raise P.ParameterError("--resume takes the chapter, preset and overrides from the run's "
                                   "request.json: give no chapter, --preset, --set or --device with it")
        resume(a.resume, progress=not a.quiet)
        return
    a.preset = a.preset or "book"
    if not a.chapter:
        raise P.ParameterError("missing chapter: choose one of " + ", ".join(P.chapters()))
    overrides: dict[str, str] = {}
    for s in a.sets:
        if "=" not in s:
            raise P.ParameterError(f"--set {s!r}: expected NAME=VALUE")
        k, v = s.split("=", 1)
        overrides[k.strip()] = v
    if a.device is not None:
        overrides["device"] = a.device
    P.load(a.chapter).resolve(a.preset, overrides, parse_strings=True)  # fail before importing torch
    from lib.book.execute import rerun
    rerun(a.chapter, a.preset, overrides, progress=not a.quiet)


def _warn_uncommitted(chapters: list[str] | None = None) -> None:
    """Say when the pages about to be written (of ``chapters``; default every page) read stored runs that are not
    committed (they would differ from those a clean clone generates)."""
    from lib.book.provenance import uncommitted_evidence
    if paths := uncommitted_evidence(chapters):
        print(f"[lib] warning: {len(paths)} uncommitted path(s) under book/evidence/ are read into these pages "
              f"({', '.join(paths[:3])}{', ...' if len(paths) > 3 else ''}); a clean clone generates them without "
              "those runs", file=sys.stderr)


def _execute(a) -> None:
    from lib.book import execute
    from lib.book import fingerprint
    from lib.book import pages
    todo = a.chapters if a.cmd == "baseline" and a.chapters else pages.toc_chapters()
    for c in todo:
        P.load(c)  # unknown chapter -> error before any work
    if a.cmd == "baseline":
        _warn_uncommitted(todo)
    else:
        todo = [c for c in todo if fingerprint.is_stale(c)]
    if a.cmd == "stale":
        print("\n".join(todo) if todo else "(no stale chapter)")
        return
    for c in todo:
        print(f"[lib] executing '{c}' at preset 'book' into book/{c}.ipynb", file=sys.stderr)
        rec = execute.baseline(c)
        print(f"[lib] '{c}' done in {rec['wall_s']} s", file=sys.stderr)
    if a.cmd == "build-chapters" and not todo:
        print("[lib] every chapter in book/ is up to date", file=sys.stderr)


def _where(items: list[str]) -> dict[str, list] | None:
    """``["T=30000,50000", ...]`` -> {"T": [30000, 50000]}; errors name the option."""
    out: dict[str, list] = {}
    for it in items:
        key, eq, vals = it.partition("=")
        if not eq or not key or not vals:
            raise P.ParameterError(f"--where {it!r}: expected PARAM=V1,V2,... (e.g. --where T=30000,50000)")
        out[key] = [int(v) if v.lstrip("-").isdigit() else v for v in vals.split(",")]
    return out or None


def _evidence(a) -> int:
    from lib.book import evidence as EV
    migrating = a.chapter == "migrate"
    if migrating:
        if not a.names:
            raise P.ParameterError("evidence migrate: name a chapter, e.g. `python -m lib evidence migrate "
                                   "mha-memorization fig2a`")
        a.chapter, a.names = a.names[0], a.names[1:]
    if a.chapter and a.chapter not in EV.chapters():
        raise P.ParameterError(f"chapter {a.chapter!r} declares no evidence sweeps: choose one of {', '.join(EV.chapters())}")
    unknown = [n for n in a.names if a.chapter and n not in EV.sweeps(a.chapter)]
    if unknown:
        raise P.ParameterError(f"{a.chapter} has no evidence sweep {unknown[0]!r}: choose among "
                               f"{', '.join(EV.sweeps(a.chapter))}")
    if a.list or not a.chapter:
        print("\n".join(EV.listing(a.chapter)))
        return 0
    if a.workers < 1:
        raise P.ParameterError(f"--workers {a.workers}: expected >= 1")
    if migrating:
        from lib.book import migrate
        ok = [migrate.migrate(a.chapter, n, full=a.full or None) for n in a.names or list(EV.sweeps(a.chapter))]
        return 0 if all(ok) else 1
    if a.check:
        probs = [p for n in a.names or list(EV.sweeps(a.chapter)) for p in EV.check(a.chapter, n)]
        print("\n".join(probs) if probs else "stored evidence consistent with today's code")
        return 1 if probs else 0
    from lib.book import migrate
    for n, man in EV.run(a.chapter, a.names or None, workers=a.workers, quiet=a.quiet or None,
                         where=_where(a.where)).items():
        sw = EV.sweeps(a.chapter)[n]
        ver = sw.get("verify") or {}
        if "trajectories" not in man and not ver.get("exact") and (man["complete"] or ver.get("points")):
            recs = migrate.record(sw)           # the re-training check's reference (once a verified unit is stored)
            if recs:
                man["trajectories"] = recs
                EV._write_manifest(man, a.chapter, n)
        print(f"[lib] {a.chapter}/{n}: {man['n_stored']}/{man['n_points']} points, {man['cpu_hours']:.3f} CPU-hours, "
              f"{man['cpu_s_per_point']:.1f} CPU-s per point", file=sys.stderr)
        for fam, t in man["throughput"].items():
            print(f"      {fam}: {t['model_steps_per_s']:,.0f} model-steps/s, {t['gflops']:.1f} GFLOP/s "
                  f"({100 * (t['peak_fraction'] or 0):.0f}% of the float32 GEMM peak in the manifest)", file=sys.stderr)
    return 0


def _claims(a) -> None:
    from lib.book.pages import all_claims
    if a.chapter:
        P.load(a.chapter)
    json.dump(all_claims([a.chapter] if a.chapter else None), sys.stdout, indent=1, ensure_ascii=False)
    print()


def _dispatch(a) -> int:
    if a.cmd == "list" or (a.cmd == "run" and a.list):
        _list(a.chapter)
    elif a.cmd == "params-cell":
        print(P.load(a.chapter).parameters_cell())
    elif a.cmd == "run":
        _run(a)
    elif a.cmd in ("baseline", "build-chapters", "stale"):
        _execute(a)
    elif a.cmd == "results":
        from lib.book.pages import write_results
        _warn_uncommitted()
        print("\n".join(str(p) for p in write_results()))
    elif a.cmd == "claims":
        _claims(a)
    elif a.cmd == "evidence":
        return _evidence(a)
    return 0


def main(argv: list[str] | None = None) -> int:
    a = _parser().parse_args(argv)
    try:
        return _dispatch(a)
    except P.ParameterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
