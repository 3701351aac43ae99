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
