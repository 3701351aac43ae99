"""Figures and tables of the aot-memorization chapter, the paper's numbers beside ours: the page's own runs
(:mod:`~.live`: the theory's probes, the live grids, the spot check, App. B.2's depth grid) and the stored
paper-scale runs (:mod:`~.stored`), each with its table."""
from lib.chapters.aot_memorization.figures.live import (depth_figure, fig1a, lemma1_probe, live_exp23, plot_depth,
                                                        slopes_panel, theorem3_rate)
from lib.chapters.aot_memorization.figures.stored import (panel_b1_fig7, panel_exp5, panel_exp6, stored_b1_fig7,
                                                          stored_b1_fig56, stored_exp1, stored_exp23, stored_v1,
                                                          table_b1_fig5, table_b1_fig6, table_exp2, table_exp3,
                                                          table_exp6)
from lib.chapters.aot_memorization.figures.live import _bounds  # noqa: F401  (the Exp. 6 cell draws the bounds)

__all__ = ["depth_figure", "fig1a", "lemma1_probe", "live_exp23", "plot_depth", "slopes_panel", "theorem3_rate",
           "panel_b1_fig7", "panel_exp5", "panel_exp6", "stored_b1_fig7", "stored_b1_fig56", "stored_exp1",
           "stored_exp23", "stored_v1", "table_b1_fig5", "table_b1_fig6", "table_exp2", "table_exp3", "table_exp6"]
