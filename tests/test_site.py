"""The static site builds strictly (warnings are errors) and renders its math offline.

Builds the book into a temporary folder from the executed chapters (nothing is re-executed), then
loads a page with math in headless Chromium, with no network, and checks that MathJax (vendored in
_vendor/mathjax) typeset it. Skipped when Chromium is not installed (scripts/ensure-chromium.sh
installs it where it can).
"""
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from lib.core.params import ROOT

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
JB = Path(__file__).resolve().parents[1] / ".venv" / "bin" / "jupyter-book"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site")
    r = subprocess.run([str(JB), "build", str(ROOT), "--path-output", str(out), "-W", "-n", "--keep-going", "--all"],
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    return out / "_build" / "html"


def test_pages_exist_and_load_no_cdn(site):
    for page in ("book/intro.html", "book/notation.html", "book/results.html", "book/references.html"):
        html = (site / page).read_text()
        assert "cdn.jsdelivr.net/npm/mathjax" not in html, page
    assert (site / "_static" / "mathjax" / "tex-chtml-full.js").exists()


def _render(pages: list[Path]) -> dict[Path, str]:
    """The DOM of each page after MathJax ran, in headless Chromium with no network (if allowed)."""
    cmd = ["unshare", "-n"] if shutil.which("unshare") and subprocess.run(
        ["unshare", "-n", "true"], capture_output=True).returncode == 0 else []
    out = {}
    for page in pages:
        r = subprocess.run(cmd + [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                                  "--virtual-time-budget=15000", "--dump-dom", page.as_uri()],
                           capture_output=True, text=True, timeout=180)
        assert r.stdout, r.stderr[-2000:]
        out[page] = r.stdout
    return out


def math_errors(dom: str) -> list[str]:
    """MathJax's error boxes on a rendered page (``<mjx-merror data-mjx-error="...">``), as messages."""
    return re.findall(r'<mjx-merror[^>]*data-mjx-error="([^"]*)"', dom) + \
        (["<mjx-merror> without a message"] if "<mjx-merror" in dom and 'data-mjx-error="' not in dom else [])


@pytest.fixture(scope="module")
def rendered(site):
    pages = sorted((site / "book").glob("*.html"))
    return _render(pages)


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
