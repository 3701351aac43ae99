"""Softmax vs linear attention, the claims role: every statement of the page with its criterion, control and
variants, recorded by the functions the page calls (each prints its verdict lines under the cell that calls it).

:mod:`.theorems`   the definitions, lemmas and theorems (Sections 1-4), and one Fig panel;
:mod:`.readings`   the other readings of D0;
:mod:`.analysis`   our analysis of what the theorems say (Section 5: margins, other X, dynamic range);
:mod:`.learned`    the learned comparison (Section 6);
:mod:`.paper_run`  the stored measurement of the ``paper`` preset (its cost and its verdicts), read by the page.

The page's functions are re-exported here (``claims.theorem11(C, ...)``).
"""
from __future__ import annotations

from lib.chapters.softmax_vs_linear.claims.analysis import (  # noqa: F401
    counter,
    dynamic_range,
    margins,
    positive,
    signed,
)
from lib.chapters.softmax_vs_linear.claims.learned import learned  # noqa: F401
from lib.chapters.softmax_vs_linear.claims.readings import d0_readings  # noqa: F401
from lib.chapters.softmax_vs_linear.claims.theorems import (  # noqa: F401
    definitions,
    linear_claim,
    panel_claim,
    record_family,
    self_lemmas,
    softmax_claim,
    theorem11,
    theorem12,
    toy,
    toy_lemmas,
)
