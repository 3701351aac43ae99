"""Parameter specs, presets and validation: bad input fails before any compute, naming the parameter."""
import os
import subprocess
import sys

import nbformat
import pytest

from lib.core import params
from lib.core.params import ParameterError

CHAPTERS = params.chapters()


def cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", "lib", *args], capture_output=True, text=True,
                          cwd=params.ROOT, env=env, timeout=120)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_spec_is_valid_and_matches_the_notebook(chapter):
    spec = params.load(chapter)  # every preset resolves and validates
    nb = nbformat.read(spec.notebook, as_version=4)
    cells = [c for c in nb.cells if "parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(cells) == 1, "exactly one cell tagged 'parameters'"
    assert cells[0].source.strip() == spec.parameters_cell().strip(), \
        f"the parameters cell differs from the spec: run `python -m lib params-cell {chapter}`"
    assert all(not c.get("outputs") for c in nb.cells if c.cell_type == "code"), "sources are committed without outputs"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_parameters_cell_executes_to_the_book_preset(chapter):
    """The kernel evaluates the cell's annotations: every one must name a type that exists (list[record] did not)."""
    spec = params.load(chapter)
    ns: dict = {}
    exec(spec.parameters_cell(), ns)
    book = spec.resolve("book")
    assert spec.validate({k: ns[k] for k in book}) == book


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_help_texts_parse_in_papermill(chapter):
    """`papermill --help-notebook` cannot parse a parameter line whose comment contains '='."""
    spec = params.load(chapter)
    bad = [p.name for p in spec.params.values() if "=" in p.help or "=" in repr(p.default)]
    assert not bad, f"the parameter lines of {bad} contain '=' in their help or default"
    r = subprocess.run([sys.executable, "-m", "papermill", "--help-notebook", str(spec.notebook)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "Unable to parse" not in r.stdout + r.stderr, (r.stdout + r.stderr)[-1000:]
    assert all(f"{name}:" in r.stdout for name in spec.params), r.stdout[-1000:]


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_presets_exist(chapter):
    assert {"smoke", "book", "paper"} <= set(params.load(chapter).presets)


def test_validation_messages_name_the_parameter():
    spec = params.load("notation")
    cases = [({"nonexistent": 1}, "unknown parameter 'nonexistent'"),
             ({"H": 0}, "parameter 'H' = 0 is invalid"),
             ({"H": -3}, "parameter 'H'"),
             ({"H": 2.5}, "parameter 'H' = 2.5 is invalid: expected an integer"),
             ({"H": True}, "parameter 'H'"),
             ({"tol": "small"}, "parameter 'tol'"),
             ({"device": "tpu"}, "parameter 'device' = 'tpu' is invalid: expected one of 'auto', 'cpu', 'cuda'"),
             ({"d_h": 100, "d": 10}, "d=10, d_h=100 violate 'd_h <= d'")]
    for overrides, message in cases:
        with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
            spec.resolve("book", overrides)
    with pytest.raises(ParameterError, match="unknown preset 'huge'"):
        spec.resolve("huge")
    with pytest.raises(ParameterError, match="unknown chapter 'nope'"):
        params.load("nope")


def test_string_overrides_are_parsed_by_type():
    spec = params.load("notation")
    v = spec.resolve("smoke", {"H": "2", "tol": "1e-10", "device": "cpu"}, parse_strings=True)
    assert (v["H"], v["tol"], v["device"], v["trials"]) == (2, 1e-10, "cpu", 3)
    with pytest.raises(ParameterError, match="parameter 'H' = 'two'"):
        spec.resolve("book", {"H": "two"}, parse_strings=True)


def test_list_parameters():
    p = params.Param("Hs", "list[int]", [1, 2], "heads", min=1)
    assert p.parse("1,2,4") == [1, 2, 4] and p.parse("[3, 5]") == [3, 5]
    for bad in ("1,0", "a,b", ""):
        with pytest.raises(ParameterError, match="parameter 'Hs'"):
            p.parse(bad)


def test_record_parameters(tmp_path):
    """A grid as a list of records: fields typed and bounded, a rule per record, errors name the record."""
    (tmp_path / "x.params.toml").write_text("""
[chapter]
title = "x"
[params.preset]
type = "str"
default = "book"
help = "preset"
[params.seed]
type = "int"
default = 0
help = "seed"
[params.device]
type = "str"
default = "cpu"
help = "device"
[params.cases]
type = "list[record]"
default = [{L = 2, N = 4, dx = 3}]
help = "grid"
fields.L = {type = "int", min = 1, max = 4, help = "depth"}
fields.N = {type = "int", min = 2, help = "length"}
fields.dx = {type = "int", min = 1, help = "width"}
fields.res = {type = "bool", default = false, help = "residual"}
checks = [{check = "dx <= 13", message = "too wide for exact ranks"}]
[presets.smoke]
[presets.book]
[presets.paper]
cases = [{L = 3, N = 4, dx = 2, res = true}]
""")
    old = params.NOTEBOOKS
    params.NOTEBOOKS = tmp_path
    try:
        spec = params.load("x")
    finally:
        params.NOTEBOOKS = old
    assert spec.resolve("book")["cases"] == [{"L": 2, "N": 4, "dx": 3, "res": False}]
    assert spec.resolve("paper")["cases"][0]["res"] is True
    p = spec.params["cases"]
    assert p.parse('[{"L": 1, "N": 2, "dx": 13}]') == [{"L": 1, "N": 2, "dx": 13, "res": False}]
    for bad, needle in [('[{"L": 5, "N": 4, "dx": 3}]', r"cases\[0\]\.L"),
                        ('[{"L": 2, "N": 4, "dx": 3}, {"L": 2, "N": 4, "dx": 14}]', r"cases\[1\].*too wide"),
                        ('[{"L": 2, "N": 4}]', "lacks the field 'dx'"),
                        ('[{"L": 2, "N": 4, "dx": 3, "H": 1}]', "unknown field 'H'"),
                        ("L:2 N:4", "expected JSON"), ("[]", "parameter 'cases'")]:
        with pytest.raises(ParameterError, match=needle):
            p.parse(bad)


@pytest.mark.parametrize("args,needle", [
    (["run", "notation", "--preset", "smoke", "--set", "nonexistent=1"], "unknown parameter 'nonexistent'"),
    (["run", "notation", "--set", "H=0"], "parameter 'H' = 0"),
    (["run", "notation", "--set", "H=four"], "parameter 'H' = 'four'"),
    (["run", "notation", "--set", "n=-2"], "parameter 'n' = -2"),
    (["run", "notation", "--device", "tpu"], "parameter 'device' = 'tpu'"),
    (["run", "notation", "--preset", "huge"], "unknown preset 'huge'"),
    (["run", "nochapter"], "unknown chapter 'nochapter'"),
    (["run", "notation", "--set", "H"], "expected NAME=VALUE"),
])
def test_cli_rejects_bad_input_before_running(args, needle, tmp_path):
    book_files = {p: p.stat().st_mtime_ns for p in (params.ROOT / "book").glob("*.ipynb")}
    env = dict(os.environ, ATR_RUNS=str(tmp_path / "runs"))
    r = cli(*args, env=env)
    assert r.returncode == 2, r.stderr
    assert needle in r.stderr and r.stderr.count("\n") == 1, r.stderr   # one line
    assert not (tmp_path / "runs").exists(), "nothing executed"
    assert {p: p.stat().st_mtime_ns for p in (params.ROOT / "book").glob("*.ipynb")} == book_files


def test_cli_list():
    r = cli("run", "--list")
    assert r.returncode == 0 and "notation" in r.stdout and "presets: smoke, book, paper" in r.stdout


@pytest.mark.parametrize("chapter,name,value,needle", [
    ("aot-memorization", "construct_grid", '[{"N": 10, "S": 2, "d": 4, "d_h": 5, "H": 24}]',
     "parameter 'construct_grid[0]'"),                                                                # d_h > d
    ("aot-memorization", "construct_grid", '[{"N": 10, "S": 2, "d": 4, "d_h": 4, "H": 23}]',
     "H*d_h + d >= N^S"),                                                                             # one head short
    ("aot-memorization", "construct_grid", '[{"N": 10, "S": 2, "d": 4, "d_h": 4}]',
     "parameter 'construct_grid[0]' lacks the field 'H'"),
    ("aot-memorization", "construct_grid", "10,2,4,4,24", "parameter 'construct_grid'"),             # the old comma form
    ("depth-width", "rank_cases", '[{"L": 2, "N": 4, "H": 1, "dx_min": 5, "dx_max": 3}]',
     "parameter 'rank_cases[0]'"),                                                                    # dx_min > dx_max
    ("depth-width", "rank_cases", '[{"L": 2, "N": 3, "H": 1, "dx_min": 2, "dx_max": 3}]', "N must be even"),
    ("depth-width", "rank_cases", '[{"L": 2, "N": 4, "H": 1, "dx_min": 2, "dx_max": 99}]',
     "parameter 'rank_cases[0].dx_max' = 99"),
    ("depth-width", "rank_cases", "L:2 N:4 H:1 dx:1..7", "parameter 'rank_cases'"),                 # the old string form
])
def test_grid_records_are_checked_before_running(chapter, name, value, needle, tmp_path):
    """aot-memorization's construction grid and depth-width's rank grid: a bad record is rejected by
    `python -m lib run`, naming it, before papermill starts."""
    env = dict(os.environ, ATR_RUNS=str(tmp_path / "runs"))
    r = cli("run", chapter, "--preset", "smoke", "--set", f"{name}={value}", env=env)
    assert r.returncode == 2 and needle in r.stderr, r.stderr
    assert not (tmp_path / "runs").exists(), "nothing executed"


def test_aot_grid_record_rules():
    spec = params.load("aot-memorization")
    for name, value, needle in [
            ("negative_grid", [{"N": 10, "S": 2, "d": 3, "d_h": 3, "H": 12}], r"negative_grid\[0\].*d_h > d"),
            ("construct_grid", [{"N": 3, "S": 2, "d": 4, "d_h": 4, "H": 2}], r"construct_grid\[0\].*d <= N"),
            ("lemma2_grid", [{"N": 20, "S": 3, "d": 4, "H": 25}], r"lemma2_grid\[0\].*N \*\* S <= 4000"),
            ("thm2_grid", [{"N": 20, "d": 200, "T": 400, "eta": 0.7}], r"thm2_grid\[0\].*0 < eta < 2 / 3"),
            ("thm2_grid", [{"N": 20, "d": 1, "T": 400, "eta": 0.1}], r"thm2_grid\[0\]\.d")]:
        with pytest.raises(ParameterError, match=needle):
            spec.resolve("smoke", {name: value})
    ok = spec.resolve("smoke", {"construct_grid": '[{"N": 10, "S": 2, "d": 4, "d_h": 4, "H": 24}]'}, parse_strings=True)
    assert ok["construct_grid"] == [{"N": 10, "S": 2, "d": 4, "d_h": 4, "H": 24}]
