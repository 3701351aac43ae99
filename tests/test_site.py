"""The static site builds strictly (warnings are errors), renders its math offline, and fits the screen.

Builds the book into a temporary folder from the executed chapters (nothing is re-executed), then loads every
page in headless Chromium, with no network, and checks: MathJax (vendored in _vendor/mathjax) typeset the math
with no error; no TeX is left unrendered or mis-delimited in the text (a literal ``$``, or ``\\le`` outside math);
no page overflows horizontally at 1280 px or on a 390 px phone; no display equation is clipped. Each check is
shown to fail on a page with the defect injected. Skipped when Chromium is not installed
(scripts/ensure-chromium.sh installs it where it can).
"""
import html
import re
from pathlib import Path

import pytest

from lib.book import browser

CHROMIUM = browser.CHROMIUM


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    return browser.build(out)[0]


def test_pages_exist_and_load_no_cdn(site):
    for page in ("book/intro.html", "book/notation.html", "book/results.html", "book/references.html",
                 "book/errata.html"):
        html = (site / page).read_text()
        assert "cdn.jsdelivr.net/npm/mathjax" not in html, page
        assert "executablebooks/jupyter-book" not in html, f"{page} points at Jupyter Book's own repository"
    assert (site / "_static" / "mathjax" / "tex-chtml-full.js").exists()


# Appended to a copy of a page: once MathJax has typeset it, record the page's horizontal overflow (px) and the
# display equations wider than their box, in an element that --dump-dom shows.
MEASURE = """<script>
window.addEventListener("load", function () {
  var mj = window.MathJax && MathJax.startup && MathJax.startup.promise;
  (mj || Promise.resolve()).then(function () {
    var d = document.documentElement, clipped = 0, unscrollable = 0;
    document.querySelectorAll('mjx-container[display="true"]').forEach(function (m) {
      var box = m.parentElement.getBoundingClientRect(), r = m.getBoundingClientRect();
      if (r.width > box.width + 1 || m.scrollWidth > m.clientWidth + 1) {
        clipped++;
        var scrolls = [m, m.parentElement].some(function (e) {
          var ox = getComputedStyle(e).overflowX;
          return ox === "auto" || ox === "scroll";
        });
        if (!scrolls) unscrollable++;
      }
    });
    var out = document.createElement("div");
    out.id = "atr-measure";
    out.setAttribute("data-overflow", String(d.scrollWidth - d.clientWidth));
    out.setAttribute("data-clipped", String(clipped));
    out.setAttribute("data-unscrollable", String(unscrollable));
    document.body.appendChild(out);
  });
});
</script>"""


def _render(pages: list[Path], width: int = 1280, height: int = 900) -> dict[Path, str]:
    """The DOM of each page after MathJax ran, in headless Chromium at ``width``×``height`` with no network
    (if allowed)."""
    return {page: browser.render(page, width, height) for page in pages}


def math_errors(dom: str) -> list[str]:
    """MathJax's error boxes on a rendered page (``<mjx-merror data-mjx-error="...">``), as messages."""
    return re.findall(r'<mjx-merror[^>]*data-mjx-error="([^"]*)"', dom) + \
        (["<mjx-merror> without a message"] if "<mjx-merror" in dom and 'data-mjx-error="' not in dom else [])


def stray_tex(dom: str) -> list[str]:
    """TeX left in the rendered text: a literal ``$`` or a TeX command such as ``\\le`` outside math, code and
    scripts (the page's text after MathJax ran)."""
    body = dom.split("<body", 1)[-1]
    for tag in ("script", "style", "code", "pre", "mjx-container", "textarea", "mjx-assistive-mml"):
        body = re.sub(rf"<{tag}[\s>].*?</{tag}>", " ", body, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", body))
    return [m.group(0) for m in re.finditer(r".{0,30}(\$|\\[A-Za-z]+).{0,30}", text)]


def measured_dom(page: Path, width: int, height: int) -> tuple[str, dict[str, int]]:
    """The DOM of ``page`` rendered at ``width``×``height`` (as :func:`_render`) and its horizontal overflow (px)
    and clipped display equations, from one render."""
    dom = browser.render_with(page, MEASURE, width, height)
    m = re.search(r'id="atr-measure" data-overflow="(-?\d+)" data-clipped="(\d+)" data-unscrollable="(\d+)"', dom)
    assert m, "the measuring script did not run"
    return dom, {"overflow": int(m.group(1)), "clipped": int(m.group(2)), "unscrollable": int(m.group(3))}


def measure(page: Path, width: int, height: int) -> dict[str, int]:
    """Horizontal overflow (px) and clipped display equations of ``page`` at ``width``×``height``."""
    return measured_dom(page, width, height)[1]


def _inject(page: Path, name: str, snippet: str) -> Path:
    text = page.read_text()
    out = page.with_name(name)
    out.write_text(text.replace("</article>", snippet + "</article>", 1) if "</article>" in text else text + snippet)
    return out


@pytest.fixture(scope="module")
def at_1280(site):
    """Every page rendered once at 1280×900: its DOM and its measurements."""
    return {p: measured_dom(p, 1280, 900) for p in sorted((site / "book").glob("*.html"))}


@pytest.fixture(scope="module")
def rendered(at_1280):
    return {p: dom for p, (dom, _) in at_1280.items()}


@pytest.fixture(scope="module")
def measured(at_1280):
    return {**{(p.name, 1280): m for p, (_, m) in at_1280.items()},
            **{(p.name, 390): measure(p, 390, 844) for p in at_1280}}


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_math_renders_offline_in_chromium(rendered, site):
    dom = rendered[site / "book" / "notation.html"]
    n_math = len(re.findall(r"<mjx-container", dom))
    assert n_math >= 10, f"MathJax typeset only {n_math} formulas"
    assert "\\(" not in re.sub(r"<script.*?</script>", "", dom, flags=re.S), "raw TeX left on the page"


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_no_math_error_on_any_page(rendered):
    errors = {p.name: math_errors(d) for p, d in rendered.items()}
    assert len(rendered) >= 8, sorted(p.name for p in rendered)
    assert not any(errors.values()), {k: v for k, v in errors.items() if v}


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_an_injected_math_error_is_caught(site, tmp_path):
    """The check above can fail: a copy of a page with one broken equation (a \\tag inside a split
    environment, the error this book once shipped) shows a MathJax error box that math_errors finds."""
    page = site / "book" / "notation.html"
    html = page.read_text()
    bad = '<div class="math notranslate nohighlight">\\[\\begin{split}a\\\\ b \\tag{1}\\end{split}\\]</div>'
    broken = page.with_name("injected-error.html")
    broken.write_text(html.replace("</article>", bad + "</article>", 1) if "</article>" in html else html + bad)
    try:
        dom = _render([broken])[broken]
    finally:
        broken.unlink()
    assert math_errors(dom), "an injected MathJax error was not detected"


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_no_stray_tex_on_any_page(rendered):
    stray = {p.name: stray_tex(d)[:3] for p, d in rendered.items()}
    assert not any(stray.values()), {k: v for k, v in stray.items() if v}


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_no_page_overflows_and_no_equation_is_clipped(measured):
    over = {k: v["overflow"] for k, v in measured.items() if v["overflow"] > 0}
    clipped = {k: v["clipped"] for k, v in measured.items() if k[1] == 1280 and v["clipped"]}
    assert not over, f"pages wider than the screen (px): {over}"
    assert not clipped, f"display equations wider than their box at 1280 px: {clipped}"
    # on a phone a long display equation may be wider than the column, but then it scrolls (it is never cut off)
    hidden = {k: v["unscrollable"] for k, v in measured.items() if v["unscrollable"]}
    assert not hidden, f"display equations cut off (wider than their box and not scrollable): {hidden}"


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_injected_layout_and_tex_defects_are_caught(site):
    """Each check above can fail: a copy of a page with stray TeX, a block wider than the screen, a display
    equation wider than its box, and one that cannot scroll (cut off on a phone)."""
    page = site / "book" / "notation.html"
    tex = _inject(page, "injected-tex.html", "<p>Then $ x withd_{TV} \\le 1 in the L^1 convention</p>")
    wide = _inject(page, "injected-wide.html", '<div style="width:3000px;min-width:3000px">wide</div>')
    eq = _inject(page, "injected-eq.html", '<div class="math notranslate nohighlight">\\[' + " + ".join(
        f"x_{{{i}}}" for i in range(300)) + "\\]</div>")
    cut = _inject(page, "injected-cut.html", "<style>mjx-container, div.math { overflow: visible !important; }</style>"
                  '<div class="math notranslate nohighlight">\\[' + " + ".join(f"x_{{{i}}}" for i in range(300)) + "\\]</div>")
    try:
        assert stray_tex(_render([tex])[tex]), "stray TeX was not detected"
        assert measure(wide, 1280, 900)["overflow"] > 0, "a page wider than the screen was not detected"
        assert measure(eq, 1280, 900)["clipped"] > 0, "a clipped display equation was not detected"
        assert measure(cut, 390, 844)["unscrollable"] > 0, "a cut-off display equation was not detected"
    finally:
        for p in (tex, wide, eq, cut):
            p.unlink()
