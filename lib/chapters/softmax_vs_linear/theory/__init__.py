"""Softmax vs linear attention, the theory role: the constructions of the proofs and every exact check.

:mod:`.constructions`  the reconstructed datasets D0/D1 and the combined parameters X;
:mod:`.closed_forms`   scores, firing probabilities, P(E), the τ window, the separation thresholds;
:mod:`.lemmas`         every part of the lemmas' closed forms against the built networks;
:mod:`.toy_lemmas`     Lemmas 4.1 and 4.2 (the toy), part by part, as exact probabilities;
:mod:`.silent`         the theorems' deterministic half, the other readings of D0, the readout-free margins;
:mod:`.counter`        linear attention with other X (signed, 0/1, floored) and the dynamic range of X_ε;
:mod:`.montecarlo`     the success event E counted over R random models, the figure panels, their exact theory.

The names of the submodules are re-exported here (``theory.window``, ``theory.run_panel``, ...).
"""
from __future__ import annotations

from lib.chapters.softmax_vs_linear.theory.closed_forms import (  # noqa: F401
    Window,
    b_star,
    fire_prob,
    inv_eps_star,
    separates,
    p_success,
    pq,
    row_norms,
    toy_hoeffding,
    toy_theory,
    window,
)
from lib.chapters.softmax_vs_linear.theory.constructions import (  # noqa: F401
    X_cross,
    X_self,
    cross_pair,
    self_pair,
    toy_pair,
)
from lib.chapters.softmax_vs_linear.theory.counter import (  # noqa: F401
    X_positive,
    X_signed,
    cross_needle_value,
    min_scale,
    positive_rows,
    signed_needle_row,
)
from lib.chapters.softmax_vs_linear.theory.toy_lemmas import lemma_parts as toy_lemma_parts  # noqa: F401
from lib.chapters.softmax_vs_linear.theory.lemmas import (  # noqa: F401
    closed_form_errors,
)
from lib.chapters.softmax_vs_linear.theory.montecarlo import (  # noqa: F401
    estimate_cost,
    run_family,
    family_seeds,
    FAMILY_SEED_OFFSET,
    Counts,
    Panel,
    binom_ok,
    fit_p1,
    mc_pairs,
    mc_toy,
    run_panel,
    sampled_fire_rate,
    sweep,
    toy_panel,
    window_agree,
    window_points,
)
from lib.chapters.softmax_vs_linear.theory.silent import (  # noqa: F401
    D0_READINGS,
    OPEN_READINGS,
    d0_instance,
    d0_max_norm,
    margin_closed_form,
    margins,
    silent_bound,
    silent_rows,
    worst_neuron_output,
)


def check_params(P: dict) -> None:
    """The n = k t divisibility rules are constraints of the chapter's params spec (so ``python -m lib run``
    rejects bad values before papermill starts); this re-checks them for callers holding a plain dict
    (the benchmark). Raises ParameterError naming the rule."""
    from lib.core.params import load
    load("softmax-vs-linear").validate(P)
