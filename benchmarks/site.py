"""Measure the built site as a reader meets it: headless Chromium at 1280×900 (and 390×844 for overflow).

Per page: screens (document height / 900, the window's height), screens before the claims table, horizontal overflow in px at 1280
and 390 px, figures with a numbered caption out of all figures (every image in a cell output counts),
output blocks wider than their box, and verdict lines in place (the ``claim-<id>`` anchors in the text, out of the
non-sanity rows of the claims table). The numbers of issue 28's closing notes.

    .venv/bin/python benchmarks/site.py                       # build into .cache/site, measure every page
    .venv/bin/python benchmarks/site.py --out .cache/site-x mha-memorization
    .venv/bin/python benchmarks/site.py --no-build            # measure the last build in --out
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from lib.book import browser  # noqa: E402


# Appended to a copy of the page; once MathJax has typeset it, writes the measurements into an element's attribute.
MEASURE = """<script>
window.addEventListener("load", function () {
  var mj = window.MathJax && MathJax.startup && MathJax.startup.promise;
  (mj || Promise.resolve()).then(function () {
    var d = document.documentElement, H = SCREEN_H;
    var table = document.querySelector("table.claims-table");
    var top = table ? table.getBoundingClientRect().top + window.scrollY : null;
    var imgs = Array.from(document.querySelectorAll("article img"));
    var captioned = imgs.filter(function (i) {
      var f = i.closest("figure");
      return f && f.querySelector("figcaption .caption-number") && f.querySelector("figcaption .caption-text");
    }).length;
    var pres = Array.from(document.querySelectorAll("article div.cell_output pre"));
    var over = pres.filter(function (p) { return p.scrollWidth > p.clientWidth + 1; }).length;
    var judged = new Set(Array.from(table ? table.querySelectorAll("tr[id^='row-']") : []).filter(function (r) {
      return r.getAttribute("data-kind") !== "sanity";
    }).map(function (r) { return r.id.slice(4); }));
    var anchors = Array.from(document.querySelectorAll('article [id^="claim-"]')).filter(function (a) {
      return !a.closest("table") && judged.has(a.id.slice(6));
    }).length;
    var rows = judged.size;
    var out = {height: d.scrollHeight, screens: d.scrollHeight / H, before: top === null ? null : top / H,
               overflow: d.scrollWidth - d.clientWidth, images: imgs.length, captioned: captioned,
               outputs: pres.length, outputs_over: over, anchors: anchors, rows: rows};
    var el = document.createElement("div");
    el.id = "atr-site-measure";
    el.setAttribute("data-m", JSON.stringify(out));
    document.body.appendChild(el);
  });
});
</script>"""


def measure(page: Path, width: int, height: int) -> dict:
    """The measurements of ``page`` rendered at ``width``×``height`` with no network."""
    dom = browser.render_with(page, MEASURE.replace("SCREEN_H", str(height)), width, height, budget_ms=20_000,
                              timeout=300)
    m = re.search(r'id="atr-site-measure" data-m="([^"]*)"', dom)
    if not m:
        raise RuntimeError(f"{page.name}: the measuring script did not run")
    return json.loads(m.group(1).replace("&quot;", '"'))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pages", nargs="*", help="page names (default: every page of book/)")
    ap.add_argument("--out", default=".cache/site", help="build folder (default .cache/site)")
    ap.add_argument("--no-build", action="store_true", help="measure the existing build in --out")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    a = ap.parse_args()
    if browser.CHROMIUM is None:
        sys.exit("chromium is not installed (bash scripts/ensure-chromium.sh)")
    out = (ROOT / a.out).resolve()
    html = out / "_build" / "html" if a.no_build else browser.build(out, strict=False)[0]
    pages = [html / "book" / f"{p}.html" for p in a.pages] or sorted((html / "book").glob("*.html"))
    rows = {}
    for p in pages:
        m = measure(p, 1280, 900)
        m["overflow_390"] = measure(p, 390, 844)["overflow"]
        rows[p.stem] = m
    if a.json:
        print(json.dumps(rows, indent=1))
        return
    print(f"{'page':20} {'screens':>8} {'before':>7} {'over1280':>8} {'over390':>7} {'captioned':>10} "
          f"{'out-over':>9} {'anchors/rows':>12}")
    for name, m in rows.items():
        before = "-" if m["before"] is None else f"{m['before']:.1f}"
        print(f"{name:20} {m['screens']:8.1f} {before:>7} {m['overflow']:8d} {m['overflow_390']:7d} "
              f"{m['captioned']:>4}/{m['images']:<5} {m['outputs_over']:>4}/{m['outputs']:<4} "
              f"{m['anchors']:>5}/{m['rows']:<6}")


if __name__ == "__main__":
    main()
