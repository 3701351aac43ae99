"""The pipeline: reruns land under runs/ with their record; book/ is fresh; the regression bites."""
import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest

from lib.book import fingerprint as bk_fp
from lib.book import pages as bk_pages
from lib.core import codehash, params

ROOT = params.ROOT


def test_rerun_with_changed_parameter_lands_in_runs(tmp_path):
    env = dict(os.environ, ATR_RUNS=str(tmp_path))
    r = subprocess.run([sys.executable, "-m", "lib", "run", "notation", "--preset", "smoke", "--set", "n=5",
                        "--quiet"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    (folder,) = (tmp_path / "notation").iterdir()
    rec = json.loads((folder / "run.json").read_text())
    assert rec["parameters"]["n"] == 5 and rec["preset"] == "smoke" and rec["overrides"] == {"n": "5"}
    assert {"versions", "device", "wall_s", "fingerprint", "git_commit"} <= set(rec)
    nb = nbformat.read(folder / "notation.ipynb", as_version=4)
    injected = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected and "n = 5" in injected[0].source
    # an interrupted run (no run.json, no notebook) is finished in its own folder with its own request
    (folder / "run.json").unlink()
    (folder / "notation.ipynb").unlink()
    r = subprocess.run([sys.executable, "-m", "lib", "run", "--resume", str(folder), "--quiet"], cwd=ROOT, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in (tmp_path / "notation").iterdir()] == [folder.name]
    rec = json.loads((folder / "run.json").read_text())
    assert rec["parameters"]["n"] == 5 and rec["overrides"] == {"n": "5"}


def test_resume_rejects_a_folder_that_is_not_a_run(tmp_path):
    r = subprocess.run([sys.executable, "-m", "lib", "run", "--resume", str(tmp_path)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "request.json" in r.stderr
    r = subprocess.run([sys.executable, "-m", "lib", "run", "notation", "--resume", str(tmp_path)], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--resume" in r.stderr


@pytest.mark.parametrize("chapter", bk_pages.toc_chapters())
def test_book_chapter_is_executed_and_fresh(chapter):
    path = ROOT / "book" / f"{chapter}.ipynb"
    assert path.exists(), f"book/{chapter}.ipynb is missing: run `make baseline CHAPTERS={chapter}`"
    assert not bk_fp.is_stale(chapter), \
        f"book/{chapter}.ipynb is stale (its source, spec or lib changed): run `make baseline CHAPTERS={chapter}`"
    nb = nbformat.read(path, as_version=4)
    assert all(c.get("execution_count") for c in nb.cells if c.cell_type == "code"), "every cell executed"


def test_generated_pages_are_up_to_date():
    assert (ROOT / "book" / "results.md").read_text() == bk_pages.results_page(), "run `python -m lib results`"
    assert (ROOT / "book" / "library.md").read_text() == bk_pages.library_page(), "run `python -m lib results`"
    assert (ROOT / "book" / "errata.md").read_text() == bk_pages.errata_page(), "run `python -m lib results`"
    assert (ROOT / "book" / "statistics.md").read_text() == bk_pages.statistics_page(), "run `python -m lib results`"


def test_errata_entries_name_their_evidence_and_sureness(monkeypatch):
    from lib.core.claims import FINDING, Claims
    C = Claims("mha-memorization")
    C.check("param-count", "the count omits W_O", paper="2Hdd_h", ours="504 vs 408", ok=True, kind=FINDING,
            variants=[("W_O counted with W_V", True)])
    monkeypatch.setattr(bk_pages, "all_claims", lambda chapters=None: C.records())
    monkeypatch.setattr(bk_pages, "errata", lambda c: {"param-count": ("error", "omits W_O")}
                        if c == "mha-memorization" else {})
    page = bk_pages.errata_page(["mha-memorization"])
    assert "| error | 2Hdd_h | omits W_O |" in page and "#row-param-count" in page and "survives 1 variant " in page


def test_claims_json_command():
    r = subprocess.run([sys.executable, "-m", "lib", "claims", "--chapter", "notation"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    records = json.loads(r.stdout)
    assert records and {"id", "statement", "paper", "ours", "criterion", "verdict"} <= set(records[0])


def test_fingerprint_follows_lib_and_parameters(tmp_path, monkeypatch):
    spec = params.load("notation")
    v = spec.resolve("book")
    f0 = bk_fp.fingerprint("notation", v)
    assert bk_fp.fingerprint("notation", spec.resolve("smoke")) != f0
    fake_root = tmp_path / "root"
    shutil.copytree(ROOT / "lib", fake_root / "lib")
    shutil.copytree(ROOT / "notebooks", fake_root / "notebooks")
    monkeypatch.setattr(codehash, "ROOT", fake_root)
    monkeypatch.setattr(params, "NOTEBOOKS", fake_root / "notebooks")
    assert bk_fp.fingerprint("notation", v) == f0
    (fake_root / "lib" / "core" / "attention.py").write_text((fake_root / "lib" / "core" / "attention.py").read_text() + "\n# edit\n")
    assert bk_fp.fingerprint("notation", v) != f0



def test_stored_results_fingerprint_ignores_docs_but_follows_code(tmp_path, monkeypatch):
    """Stored results hash what the code computes (codehash semantic=True): a docstring or a comment of a module
    they cover leaves the fingerprint unchanged, a code edit changes it; a page's fingerprint changes on both."""
    fake_root = tmp_path / "root"
    shutil.copytree(ROOT / "lib", fake_root / "lib")
    monkeypatch.setattr(codehash, "ROOT", fake_root)
    mods = codehash.module_closure([], ["lib.core.attention"])
    f0, b0 = codehash.code_hash(mods, semantic=True), codehash.code_hash(mods)
    att = fake_root / "lib" / "core" / "attention.py"
    src = att.read_text()
    att.write_text(src.replace('"""', '"""Edited. ', 1) + "\n# a comment\n")
    assert codehash.code_hash(mods, semantic=True) == f0 and codehash.code_hash(mods) != b0
    att.write_text(src + "\nX_NEW = 1\n")
    assert codehash.code_hash(mods, semantic=True) != f0


def test_semantic_source_keeps_strings_that_are_not_docstrings():
    src = b'def f():\n    """doc"""\n    s = "# kept"  # dropped\n    return s\n'
    assert codehash.semantic_source(src) == b'def f():\n    s = "# kept"\n    return s'
    one_line = b'def f(): """doc"""\n'                   # a docstring on the def line stays (no line to drop)
    assert codehash.semantic_source(one_line) == b'def f(): """doc"""'

def test_regression_fails_when_a_checked_number_changes(tmp_path):
    """Tamper with one checked output of the executed chapter: nbval must report the mismatch."""
    nb = nbformat.read(ROOT / "book" / "notation.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code" and cell.source.startswith("# NBVAL_CHECK_OUTPUT") and "param" in cell.source:
            out = next(o for o in cell.outputs if o.get("output_type") == "stream")
            out["text"] = out["text"].replace("difference: ", "difference: 1")
            break
    else:
        pytest.fail("no checked cell found")
    nbformat.write(nb, tmp_path / "tampered.ipynb")
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--nbval-lax",
                        "--nbval-current-env", str(tmp_path / "tampered.ipynb")], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and "1 failed" in r.stdout, r.stdout[-2000:]


@pytest.mark.parametrize("chapter", bk_pages.toc_chapters())
def test_sources_have_no_control_characters(chapter):
    """A ``\\b`` written into a notebook's JSON by hand is a backspace, not ``\\big``: MathJax then fails on the page."""
    nb = nbformat.read(ROOT / "notebooks" / f"{chapter}.ipynb", as_version=4)
    bad = [(i, repr(ch)) for i, c in enumerate(nb.cells) for ch in set(c.source) if ord(ch) < 32 and ch not in "\n\t"]
    assert not bad, f"control characters in notebooks/{chapter}.ipynb (cell, character): {bad}"


def test_a_device_this_machine_lacks_is_refused_before_anything_runs(tmp_path):
    import torch
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    r = subprocess.run([sys.executable, "-m", "lib", "run", "notation", "--device", "cuda"], cwd=params.ROOT,
                       env=dict(os.environ, ATR_RUNS=str(tmp_path)), capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "parameter 'device'" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not any(tmp_path.iterdir())


@pytest.mark.parametrize("chapter", bk_pages.toc_chapters())
def test_no_absolute_path_of_this_machine_in_a_page(chapter):
    import re
    text = (params.ROOT / "book" / f"{chapter}.ipynb").read_text()
    found = re.findall(r'"(/(?:home|work|tmp|root|Users|builds|runner)/[^"]{0,60})', text)
    assert str(params.ROOT) not in text and not found, f"book/{chapter}.ipynb holds absolute paths: {found[:3]}"


@pytest.mark.parametrize("chapter", bk_pages.toc_chapters())
def test_every_judged_claim_survives_or_names_its_variants(chapter):
    """Issue 30: every experiment claim and finding that a page judges records the analysis variants a skeptic would
    try; a fragile one names the choices that flip it."""
    from lib.core.claims import FRAGILE, JUDGED, NOT_RUN, from_notebook
    recs = from_notebook(str(params.ROOT / "book" / f"{chapter}.ipynb"))
    bare = [r["id"] for r in recs if r.get("kind") in JUDGED and r["verdict"] != NOT_RUN and not r.get("variants")]
    assert not bare, f"judged without variants: {bare}"
    assert all(r.get("flips") for r in recs if r["verdict"] == FRAGILE)


def test_source_block_of_a_decorated_function_names_its_own_file_and_line():
    import inspect

    from lib.chapters.aot_memorization.claims.common import prints_verdicts   # a decorator defined in another file
    from lib.core import source

    @prints_verdicts
    def decorated(C):
        return C

    html = source.details(decorated)
    line = inspect.getsourcelines(inspect.unwrap(decorated))[1]
    assert f"<code>tests/test_core_book.py:{line}</code> · <code>decorated</code>" in html
    assert "common.py" not in html.split("</summary>")[0]
