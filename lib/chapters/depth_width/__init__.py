"""Chapter ``depth-width``: Levine, Wies, Sharir, Bata & Shashua, *The Depth-to-Width Interplay in
Self-Attention* (NeurIPS 2020).

:mod:`~.network`        the analysed network (eq. 3) and its S-form, in float64;
:mod:`~.seprank`        exact separation ranks over GF(p);
:mod:`~.bounds`         the paper's bounds (Theorems 1-6) and our closed forms;
:mod:`~.checks`         the rank grid and the checks beside it;
:mod:`~.depthseries`    Lemma 6 on the network, the N = 4 depth series, the width to match (exact sweeps);
:mod:`~.series_report`  those stored sweeps read back onto the page (tables and claims, no recomputation);
:mod:`~.lemmas`         Lemma 3 and Claims 1-2 of the appendix, checked exactly or by a randomized test;
:mod:`~.fit`            Table 4's fit, eq. 10 and Table 1;
:mod:`~.lm`             the offline language-model ablation (corpus, GPT, training on the sweep engine);
:mod:`~.evidence`       the evidence sweeps: CPU-scale LM transition (depth pairs, seeds, curves), exact ranks;
:mod:`~.transition`     those sweeps read back: the paper's transition procedure, controls, claims, figure;
:mod:`~.ledger`         the claims of the theory sections (network, rank grid, bounds, lemmas, Theorem 4);
:mod:`~.ledger_fit`     the claims of the fit, Tables 1-4, the projections and the language models;
:mod:`~.figures`        the chapter's figures.
"""
