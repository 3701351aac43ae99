"""Chapter ``depth-width``: Levine, Wies, Sharir, Bata & Shashua, *The Depth-to-Width Interplay in
Self-Attention* (NeurIPS 2020).

:mod:`~.network`   the analysed network (eq. 3) and its S-form, in float64;
:mod:`~.seprank`   exact separation ranks over GF(p);
:mod:`~.bounds`    the paper's bounds (Theorems 1-6) and our closed forms;
:mod:`~.checks`    the rank grid and the checks beside it;
:mod:`~.fit`       Table 4's fit, eq. 10 and Table 1;
:mod:`~.lm`        the offline language-model ablation (corpus, GPT, training on the sweep engine);
:mod:`~.figures`   the chapter's figures.
"""
