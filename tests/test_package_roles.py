"""Every chapter package has the same roles under the same names (DESIGN.md, "Layout"; README, "Adding a paper"):
``theory`` (constructions, exact checks), ``model``, ``train`` (one parameterised function per model family),
``evidence`` (sweep declarations: data), ``claims`` (statements, criteria, controls, variants, the judges of stored
runs) and ``figures``. A role is a module ``<role>.py`` or a package ``<role>/``; nothing else sits at a package's
top level. No ``lib`` module passes ~400 lines, and no notebook records a claim itself (the ``claims`` role does)."""
import ast
import json
from pathlib import Path

import pytest

from lib.book import evidence as E
from lib.chapters import ROLES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p for p in (ROOT / "lib" / "chapters").iterdir() if (p / "__init__.py").exists())
MAX_LINES = 400
LONG_OK = {   # the modules allowed past MAX_LINES, and why
    "lib/engine/sweep.py": "403 lines, one concept (the sweep and its atomic store); stored runs execute it",
    "lib/chapters/depth_width/theory/seprank.py": "411 lines, almost all reachable from stored sweeps: a split moves "
                                                  "~11 lines at the price of another migration",
    "lib/chapters/aot_memorization/train.py": "423 lines: the stored sweeps' training function and the page's trained "
                                              "runs, one model family; tests/test_fingerprint.py edits it by path",
}


def _entries(pkg: Path) -> set[str]:
    return {p.stem if p.suffix == ".py" else p.name for p in pkg.iterdir()
            if p.name != "__pycache__" and (p.suffix == ".py" or (p / "__init__.py").exists())} - {"__init__"}


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.name)
def test_only_roles_at_the_top(pkg: Path):
    assert _entries(pkg) <= set(ROLES), f"{pkg.name}: not a role: {sorted(_entries(pkg) - set(ROLES))}"


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.name)
def test_required_roles(pkg: Path):
    have, need = _entries(pkg), {"theory", "model", "claims"}
    if pkg.name.replace("_", "-") in E.chapters():        # a chapter with stored sweeps trains what it stores
        need |= {"train", "evidence"}
    assert need <= have, f"{pkg.name}: missing roles {sorted(need - have)}"


def test_modules_stay_short():
    long = {str(f.relative_to(ROOT)): n for f in (ROOT / "lib").rglob("*.py")
            if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert set(long) <= set(LONG_OK), f"modules over {MAX_LINES} lines: {long}"


CLAIM_CALLS = {"check", "close", "bound", "not_run", "sanity"}


@pytest.mark.parametrize("nb", sorted((ROOT / "notebooks").glob("*.ipynb")), ids=lambda p: p.stem)
def test_notebooks_record_no_claims(nb: Path):
    """A claim is recorded by a function of the chapter's ``claims`` role, never by a notebook cell."""
    calls = []
    for cell in json.loads(nb.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        try:
            tree = ast.parse("\n".join(l for l in src.splitlines() if not l.lstrip().startswith(("%", "!"))))
        except SyntaxError:
            continue
        calls += [n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call)
                  and isinstance(n.func, ast.Attribute) and n.func.attr in CLAIM_CALLS
                  and isinstance(n.func.value, ast.Name) and n.func.value.id == "C"]
    assert not calls, f"{nb.name} records claims in its cells: {calls}"
