"""Command line: ``python -m lib <command>``.

    run <chapter> --preset P [--set name=value ...] [--device cpu|cuda|auto]   a rerun into runs/
    run --resume runs/<chapter>/<stamp>-<preset>        finish an interrupted rerun in its folder: its
                                                        sweeps skip every point already stored there
    run --list | list [<chapter>]                       chapters, presets, parameters with their help
    baseline [<chapter> ...]                            re-execute chapters at the book preset into book/
    build-chapters                                      re-execute only the stale chapters in book/
    stale                                               list the chapters whose book/ page is stale
    results                                             write book/results.md and book/library.md
    claims [--chapter C]                                every claim of the executed chapters, as JSON
    params-cell <chapter>                               the source of the chapter's `parameters` cell

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


def main(argv: list[str] | None = None) -> int:
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
    a = ap.parse_args(argv)

    try:
        if a.cmd == "list" or (a.cmd == "run" and a.list):
            _list(a.chapter)
            return 0
        if a.cmd == "params-cell":
            print(P.load(a.chapter).parameters_cell())
            return 0
        if a.cmd == "run" and a.resume:
            from lib.book.execute import resume
            if a.chapter or a.preset or a.sets or a.device:
                raise P.ParameterError("--resume takes the chapter, preset and overrides from the run's "
                                       "request.json: give no chapter, --preset, --set or --device with it")
            resume(a.resume, progress=not a.quiet)
            return 0
        if a.cmd == "run":
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
            return 0
        if a.cmd in ("baseline", "build-chapters", "stale"):
            from lib.book import execute
            from lib.book import fingerprint
            from lib.book import pages
            todo = a.chapters if a.cmd == "baseline" and a.chapters else pages.toc_chapters()
            for c in todo:
                P.load(c)  # unknown chapter -> error before any work
            if a.cmd != "baseline":
                todo = [c for c in todo if fingerprint.is_stale(c)]
            if a.cmd == "stale":
                print("\n".join(todo) if todo else "(no stale chapter)")
                return 0
            for c in todo:
                print(f"[lib] executing '{c}' at preset 'book' into book/{c}.ipynb", file=sys.stderr)
                rec = execute.baseline(c)
                print(f"[lib] '{c}' done in {rec['wall_s']} s", file=sys.stderr)
            if a.cmd == "build-chapters" and not todo:
                print("[lib] every chapter in book/ is up to date", file=sys.stderr)
            return 0
        if a.cmd == "results":
            from lib.book.pages import write_results
            print("\n".join(str(p) for p in write_results()))
            return 0
        if a.cmd == "claims":
            from lib.book.pages import all_claims
            chapters = [a.chapter] if a.chapter else None
            if a.chapter:
                P.load(a.chapter)
            json.dump(all_claims(chapters), sys.stdout, indent=1, ensure_ascii=False)
            print()
            return 0
    except P.ParameterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
