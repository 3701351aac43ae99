"""Every claim of the mha-memorization chapter: its statement, criterion, control and robustness variants, the judge
of each stored run, and the functions the notebook calls to record them (each prints the verdict lines of the claims
it recorded, :meth:`lib.core.claims.Claims.lines`).

:mod:`~.layer`        the layer (eqs. 1-8), the parameter count, Definition 1 and Lemma 2;
:mod:`~.theorem1`     Theorem 1 / Proposition 1: the grid of constructions, generic weights, the paper's sizes, Remark 1;
:mod:`~.props`        Propositions 2-5 and Appendix C;
:mod:`~.table1`       Sec. 5.1 / Table 1 offline (the ViT substitute);
:mod:`~.appj`         Appendix J / Table 3 offline;
:mod:`~.gd`           Sec. 5.2 at book scale (Figs. 2, 4, 5);
:mod:`~.fig2a`        Fig. 2(a) at the paper's scale, from stored evidence (both seeds once the second is complete);
:mod:`~.fig2a_seeds`  Fig. 2(a) seed by seed: the line on each seed, the onset-then-line shape on both;
:mod:`~.paper_scale`  the declared statements and criteria of the other stored subsets, and their readers;
:mod:`~.fig2bc`, :mod:`~.fig45`, :mod:`~.fig245`  Figs. 2(b), 2(c), 4, 5 and Fig. 2(a)'s second seed, stored;
:mod:`~.capacity`     eq. (16) on the paper's own layer trained near its bound, App. A's d_h speed;
:mod:`~.fig3`         Appendix H / Fig. 3, at book scale and by the paper's protocol (stored);
:mod:`~.fig3_notes`   App. H's notes: the paper's T beside ours, our re-run's differences, the cause of the verdicts;
:mod:`~.fig3_converged`  whether App. H's training converged (learning curves of ``fig3``; the longer ``fig3-long``);
:mod:`~.reconcile`    book scale beside the paper's scale, per figure, from the verdicts;
:mod:`~.printout`     the stored runs' labels that the readers print, folded into one <details>.

"""
from lib.chapters.mha_memorization.claims import (appj, capacity, fig2a, fig2a_seeds, fig2bc, fig3,  # noqa: E402
                                                  fig3_converged, fig3_notes, fig45, fig245, gd, layer, paper_scale, printout,
                                                  props, reconcile, table1, theorem1)

__all__ = ["appj", "capacity", "fig2a", "fig2a_seeds", "fig2bc", "fig3", "fig3_converged", "fig3_notes", "fig45", "fig245", "gd", "layer", "paper_scale", "printout", "props",
           "reconcile", "table1", "theorem1"]
