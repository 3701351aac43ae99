"""Headless Chromium for the built site: a page's DOM after MathJax ran, with no network where the machine allows
it, optionally with a measuring script appended to a copy of the page. Used by the site test
(``tests/test_site.py``) and the reader's measurements (``benchmarks/site.py``); ``scripts/ensure-chromium.sh``
installs the browser where it can.
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def offline() -> list[str]:
    """The command prefix that runs the browser without a network (``unshare -n``), or [] where that is refused."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    return []


def render(page: Path, width: int = 1280, height: int = 900, budget_ms: int = 15_000, timeout: int = 180) -> str:
    """The DOM of ``page`` at ``width``×``height`` once its scripts ran (``budget_ms`` of virtual time)."""
    if CHROMIUM is None:
        raise RuntimeError("chromium is not installed (bash scripts/ensure-chromium.sh)")
    r = subprocess.run(offline() + [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                                    f"--window-size={width},{height}", f"--virtual-time-budget={budget_ms}",
                                    "--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=timeout)
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
