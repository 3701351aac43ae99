"""Chapter ``aot-memorization``: Dana, Pydi & Chevaleyre, *Memorization in Attention-only Transformers*
(AISTATS 2025).

:mod:`~.construction`   the AoT (eqs. 1-2), capacities, Lemma 2, Theorem 1's construction, Theorem 2 and Prop. 3;
:mod:`~.model`          the trained models (the official code's and eq. (2)'s), as engine families;
:mod:`~.train`          the one training function of every grid (live and stored), recipes, fits, slope ratios;
:mod:`~.deep`           Appendix B.2's deeper AoTs, an engine family defined in the chapter;
:mod:`~.checks`         Prop. 1 against trained AoTs, the literal eq. (2), the Fig. 1a spot check, Exp. 5's trend;
:mod:`~.evidence`       the stored paper-scale sweeps of Exps. 2, 3 and 6 (``python -m lib evidence``);
:mod:`~.evidence_exp1`  the stored sweep of Exp. 1 / Fig. 1a's full grid (3 seeds, both models);
:mod:`~.evidence_v1`    the stored sweep of v1's protocol (lr 1e-3, 10k steps of batch 1024) for Fig. 1a;
:mod:`~.evidence_b1`    the stored sweeps of Appendix B.1 (N = 200): Figs. 6 and 5;
:mod:`~.evidence_exp5`  the stored sweeps of Exp. 5 at N = 70 (official AoT, MLP Transformer, eq. (2) AoT);
:mod:`~.stored`         the stored sweeps read, drawn and judged on the page (no recompute);
:mod:`~.costs`          measured costs of the long grids (Exp. 5 at N = 70, App. B, v1), quoted by the sweeps;
:mod:`~.plots`          the chapter's figures.
"""
