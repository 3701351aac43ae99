"""Chapter ``aot-memorization``: Dana, Pydi & Chevaleyre, *Memorization in Attention-only Transformers*
(AISTATS 2025).

:mod:`~.construction`  the AoT (eqs. 1-2), capacities, Lemma 2, Theorem 1's construction, Theorem 2 and Prop. 3;
:mod:`~.model`         the trained models (the official code's and eq. (2)'s), as engine families;
:mod:`~.train`         the experiments' grids and recipes, fits and slope ratios;
:mod:`~.plots`         the chapter's figures.
"""
