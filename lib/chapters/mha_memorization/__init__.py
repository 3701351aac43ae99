"""Chapter ``mha-memorization``: Mahdavi, Liao & Thrampoulidis, *Memorization Capacity of Multi-Head Attention
in Transformers* (ICLR 2024).

:mod:`~.construction`   the layer (eqs. 1-8), ranks, Theorem 1's construction (App. B), Props 2-5, App. F;
:mod:`~.capacity`       the paper's own layer (eqs. 1-6) trained near its bound H(n-1)+1, and App. A's d_h > n;
:mod:`~.model`          the trained model of the official code, as an engine family, and its data;
:mod:`~.gd`             the gradient-descent sweeps of Sec. 5 (Figs 2-5) on the sweep engine;
:mod:`~.vit`            the offline ViT substitute of Sec. 5 (Assumptions 1-2 on real tokens);
:mod:`~.appj`           Appendix J / Table 3: randomly initialised BERT-base and GPT-2-small shapes on Zipf tokens;
:mod:`~.train`          the training function of every stored paper-scale sweep (Figs. 2-5, App. H's protocol);
:mod:`~.evidence`       the stored sweeps' declarations: grids, recipes, costs (``python -m lib evidence``);
:mod:`~.stored`         the stored Fig. 2(a) and Fig. 3 runs read, drawn and judged on the page (no recompute);
:mod:`~.stored_fig245`  the stored Fig. 2(b), 2(c), 4, 5 subsets and Fig. 2(a)'s second seed, read and judged;
:mod:`~.paper_scale`    those claims' statements, the paper's words and criteria (declared before any run);
:mod:`~.plots`          the chapter's figures;
:mod:`~.ledger`         claim bookkeeping: Theorem 1's grid and the trained claims, with kinds, scales, controls.
"""
