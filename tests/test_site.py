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

from lib.params import ROOT

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


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed")
def test_math_renders_offline_in_chromium(site):
    page = site / "book" / "notation.html"
    cmd = ["unshare", "-n"] if shutil.which("unshare") and subprocess.run(
        ["unshare", "-n", "true"], capture_output=True).returncode == 0 else []   # no network at all, if allowed
    r = subprocess.run(cmd + [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=15000",
                              "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=180)
    dom = r.stdout
    assert dom, r.stderr[-2000:]
    n_math = len(re.findall(r"<mjx-container", dom))
    assert n_math >= 10, f"MathJax typeset only {n_math} formulas"
    assert "\\(" not in re.sub(r"<script.*?</script>", "", dom, flags=re.S), "raw TeX left on the page"
