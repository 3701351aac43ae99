"""A small preset never makes a paper look wrong (issue 11, scale-aware verdicts).

Each chapter is rerun at its ``smoke`` preset (seconds: a test of the machinery) through ``python -m lib run``,
exactly as a reader would. A claim whose preset is below the scale at which it means anything must say "not run
at this preset"; so every claim that does not hold at ``smoke`` must also not hold in the published chapter
(``book/<id>.ipynb``, the ``book`` preset), where it is a finding about the paper, not an artefact of size.
"""
import os
import subprocess
import sys

import pytest

from lib.book import pages as bk_pages
from lib.core import params
from lib.core.claims import FAILS, FRAGILE, from_notebook


@pytest.mark.parametrize("chapter", bk_pages.toc_chapters())
def test_smoke_fails_only_where_the_book_fails(chapter, tmp_path):
    env = dict(os.environ, ATR_RUNS=str(tmp_path), ATR_QUIET="1")
    r = subprocess.run([sys.executable, "-m", "lib", "run", chapter, "--preset", "smoke", "--quiet"],
                       cwd=params.ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    (folder,) = (tmp_path / chapter).iterdir()
    smoke = from_notebook(str(folder / f"{chapter}.ipynb"))
    assert smoke, "the smoke run recorded no claims"
    book = {c["id"]: c["verdict"] for c in bk_pages.all_claims([chapter])}
    bad = {c["id"]: f"smoke: {c['ours']} (book: {book.get(c['id'], 'absent')})"
           for c in smoke if c["verdict"] == FAILS and book.get(c["id"]) not in (FAILS, FRAGILE)}
    assert not bad, ("claims that do not hold only because the smoke preset is small; give them a Scale with "
                     f"enough=False below their meaningful size: {bad}")
