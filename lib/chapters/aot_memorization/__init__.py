"""Chapter ``aot-memorization``: Dana, Pydi & Chevaleyre, *Memorization in Attention-only Transformers*
(AISTATS 2025).

:mod:`~.construction`   the AoT (eqs. 1-2), capacities, Lemma 2, Theorem 1's construction, Theorem 2 and Prop. 3;
:mod:`~.model`          the trained models (the official code's and eq. (2)'s), as engine families;
:mod:`~.train`          the one training function of every grid (live and stored), recipes, fits, slope ratios;
:mod:`~.deep`           Appendix B.2's deeper AoTs, an engine family defined in the chapter;
:mod:`~.checks`         Prop. 1 against trained AoTs, the literal eq. (2), the Fig. 1a spot check, Exp. 5's trend;
:mod:`~.evidence`       the stored paper-scale sweeps, declared as data: Exps. 1, 2, 3, 5 (N = 70), 6, v1's
                        protocol, App. B.1 (``python -m lib evidence``);
:mod:`~.stored`         the stored sweeps read, drawn and judged on the page (no recompute);
:mod:`~.costs`          measured costs of the long grids (Exp. 5 at N = 70, App. B, v1), quoted by the sweeps;
:mod:`~.plots`          the chapter's figures.
"""
