"""Test configuration shared by every test file.

Hypothesis (the property-based tests of the theory, ``tests/test_properties_*.py``) runs under one fixed
profile: derandomized (the same examples on every run, so CI is deterministic), no per-example deadline
(the first call of a torch function is slow), and a bounded number of examples per test. Set
``HYPOTHESIS_PROFILE=explore`` to draw fresh, more numerous examples when hunting for counterexamples.
"""
import os
import sys

import pytest
from hypothesis import HealthCheck, settings

from lib.book.fingerprint import executed_meta

# the strategies draw a spec's records and keep those its constraints accept: rejections are by design, and on a
# loaded 2-core machine Hypothesis's filter and speed health checks failed a property test that passes
settings.register_profile("ci", derandomize=True, deadline=None, max_examples=25, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
settings.register_profile("explore", deadline=None, max_examples=300,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every matplotlib figure a test opened (claims that draw figures would otherwise accumulate them)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


# ---- scheduling on the test workers (scripts/test.sh: --dist loadfile --no-loadscope-reorder) -------------------
# One file goes to one worker (a notebook's cells run in order in one kernel, a file's tests share module fixtures).
# Files go to the workers in the order collected: longest first, so that the long notebook regressions start at once
# and the short files fill the gaps (a longest-first schedule on two workers).
# seconds on one thread, measured 2026-11-29 (a hint for the order only; a wrong hint costs time, never a failure)
COST_HINTS = {"test_evidence.py": 150, "test_smoke_verdicts.py": 330, "test_site.py": 100, "test_fingerprint.py": 75,
              "test_evidence_replay.py": 75, "test_core_book.py": 50, "test_sweep.py": 40, "test_depthwidth.py": 30}


def pytest_collection_modifyitems(config, items):
    if getattr(config.option, "dist", "no") != "loadfile":
        return
    cost: dict[str, float] = {}
    for item in items:
        if item.path not in cost:
            cost[item.path] = (executed_meta(item.path).get("wall_s", 0.0) if item.path.suffix == ".ipynb"
                               else COST_HINTS.get(item.path.name, 1.0))   # a chapter: its recorded run time
    items.sort(key=lambda it: -cost[it.path])          # stable: the order within a file is kept
