"""Levine et al. (2020), the claims: every statement of the page, its criterion, control and variants, and the
functions the page calls to record them, each printing the verdict lines of the claims it recorded
(:meth:`lib.core.claims.Claims.lines`).

Kinds: a statement of the paper checked by an exact computation is a ``theorem`` with its criterion run on the
closest wrong alternative as its control (:mod:`~.network` lists the controls); conjectures of ours and the paper's
gaps are ``finding``; the paper's fit recomputed from its own data and the language models are ``experiment``;
identities of our own code are ``sanity``.

:mod:`~.network`     section 1 and the exact method: the S-form, float against exact ranks, Proposition 1;
:mod:`~.grid`        section 2: the rank grid against every bound, our closed forms, the Hadamard powers;
:mod:`~.lemmas`      the appendix's Lemmas 2-4 and Claims 1-2;
:mod:`~.series`      section 2b: the stored exact sweeps read back (Lemma 6 on the network, the depth series);
:mod:`~.closedform`  section 2c: our closed form for the separation rank, its argument, its test at d_x = 4, L = 3;
:mod:`~.generic`     sections 3 and 7 at generic N: the width to match, Corollary 2, Theorem 4's gap scoped to N ≥ 6;
:mod:`~.regimes`     sections 3, 4 and 7: the two regimes, Corollaries 1-2, equal budgets, Theorem 4's proof step;
:mod:`~.fit`         the paper's Tables 1-4 as data, the weighted fit of Table 4 and eq. 10;
:mod:`~.tables`      section 5: the fit's, the projections' and Tables 1-3's claims;
:mod:`~.lm`          section 6: the page's language models (Fig. 2 scaled down) and a paper-scale grid's cost;
:mod:`~.procedure`   section 6b: the paper's transition procedure on the stored CPU-scale sweeps;
:mod:`~.transition`  section 6b: its claims, variants and controls;
:mod:`~.bestdepth`   section 6b: Fig. 3(c) from the stored sweep and what a CPU-scale transition would cost;
:mod:`~.findings`    section 8: the findings, generated from the claims.
"""
from lib.chapters.depth_width.claims import fit  # noqa: I001  (the paper's tables and Table 4's fit, read by the page)
from lib.chapters.depth_width.claims.bestdepth import claim as best_depth, fig3c, scale_line, transition_cost
from lib.chapters.depth_width.claims.closedform import closed_form
from lib.chapters.depth_width.claims.findings import findings
from lib.chapters.depth_width.claims.generic import claims as generic_n, thm4_n4
from lib.chapters.depth_width.claims.grid import closed_forms, grid, hadamard
from lib.chapters.depth_width.claims.lemmas import appendix, lemmas_2_4
from lib.chapters.depth_width.claims.lm import fig2
from lib.chapters.depth_width.claims.network import float_ranks, methods, network, prop1
from lib.chapters.depth_width.claims.regimes import budget, corollaries, extrapolation, thm4
from lib.chapters.depth_width.claims.series import readback, section2b
from lib.chapters.depth_width.claims.tables import table1, table4, tables23
from lib.chapters.depth_width.claims.transition import fig2_cpu

__all__ = ["appendix", "best_depth", "budget", "fig3c", "generic_n", "scale_line", "thm4_n4", "transition_cost", "fit", "closed_form", "closed_forms", "corollaries", "extrapolation", "fig2", "fig2_cpu", "findings",
           "float_ranks", "grid", "hadamard", "lemmas_2_4", "methods", "network", "prop1", "readback", "section2b",
           "table1", "table4", "tables23", "thm4"]
