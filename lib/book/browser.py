"""The built site as a reader's browser shows it: the site built into a folder (:func:`build`, without executing
a chapter), and a page's DOM in headless Chromium after MathJax ran, with no network where the machine allows it,
optionally with a measuring script appended to a copy of the page. Used by the site test (``tests/test_site.py``)
and the reader's measurements (``benchmarks/site.py``); ``scripts/ensure-chromium.sh`` installs the browser where
it can.
"""
from __future__ import annotations

import functools
import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ROOT = Path(__file__).resolve().parents[2]
JB = ROOT / ".venv" / "bin" / "jupyter-book"


def build(out: Path, strict: bool = True, timeout: int = 900) -> tuple[Path, str]:
    """Build the book from the executed notebooks into ``out`` (``strict``: warnings are errors, every page
    rebuilt, as ``make book`` on CI); returns the html folder and the build's log, or raises with its tail."""
    flags = ["-W", "-n", "--keep-going", "--all"] if strict else ["-n", "--keep-going"]
    r = subprocess.run([str(JB), "build", str(ROOT), "--path-output", str(out), *flags], capture_output=True,
                       text=True, timeout=timeout)
    if r.returncode:
        raise RuntimeError("jupyter-book build failed:\n" + (r.stdout + r.stderr)[-4000:])
    return out / "_build" / "html", r.stdout + r.stderr


@functools.cache
def offline() -> list[str]:
    """The command prefix that runs the browser without a network (``unshare -n``), or [] where that is refused."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    return []


def render(page: Path, width: int = 1280, height: int = 900, budget_ms: int = 15_000, timeout: int = 180) -> str:
    """The DOM of ``page`` at ``width``×``height`` once its scripts ran (``budget_ms`` of virtual time)."""
    if CHROMIUM is None:
        raise RuntimeError("chromium is not installed (bash scripts/ensure-chromium.sh)")
    r = subprocess.run([*offline(), CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--window-size={width},{height}", f"--virtual-time-budget={budget_ms}", "--dump-dom",
                        page.as_uri()], capture_output=True, text=True, timeout=timeout)
    if not r.stdout:
        raise RuntimeError(f"{page.name}: chromium returned no DOM\n{r.stderr[-2000:]}")
    return r.stdout


def render_with(page: Path, script: str, width: int = 1280, height: int = 900, **kw) -> str:
    """:func:`render` of a copy of ``page`` with ``script`` appended to its body (the copy is removed)."""
    copy = page.with_name(page.stem + "-measured.html")
    copy.write_text(page.read_text().replace("</body>", script + "</body>", 1))
    try:
        return render(copy, width, height, **kw)
    finally:
        copy.unlink()
