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

# the paper's names of the claim-id heads the default parsing misnames or leaves out (the verdict box)
REFS = {"t1": "Table 1", "appj": "App. J (Table 3)", "eq16": "Eq. (16)", "model": "Eq. (1)–(8) (the layer)",
        "kruskal": "Definition 1", "claim2": "Claim 2", "lemma2": "Lemma 2"}

# the findings and claims that say the paper is wrong (the errata page); the other findings are our observations
ERRATA = {
    "param-count": ("error", "Sec. 4's parameter count 2Hdd_h + Hdd_v + dd_out omits one H·d·d_v block (W_V or W_O): "
                             "the layer has 2Hdd_h + 2Hdd_v + dd_out parameters."),
    "appj-bert-positions": ("error", "App. J credits Assumption 2 in BERT to 'sinusoidal positional encodings', but "
                                     "BERT's position embeddings are learned (an nn.Embedding)."),
    "appj-GP-test": ("gap", "The general-position test of Tables 1 and 3 (k = d subsets, float32 rank tolerance, 99% "
                            "rule) also rejects i.i.d. Gaussian vectors, so a ✗ by that rule alone does not show a lack "
                            "of general position (the official Table 1 ranks, 472/717/313 of 768, do show it there)."),
    "fig3-paper-capacity": ("error", "By App. H's own protocol (300k steps, one seed) the paper's T = 550 (H = 4) and "
                                     "T = 1300 (H = 8) are not memorized perfectly; the largest memorized T of the "
                                     "grid is lower."),
}
