"""Chapter ``mha-memorization``: Mahdavi, Liao & Thrampoulidis, *Memorization Capacity of Multi-Head Attention
in Transformers* (ICLR 2024).

Roles (the same in every chapter):

:mod:`~.theory`    the layer of eqs. (1)-(8), its ranks and assumption checkers (``theory.layer``), Theorem 1's
                   construction from App. B and its rivals (``theory.construction``), Props. 3-5 (``theory.appendices``);
:mod:`~.model`     the trained model of the official code as an engine family, and its data (``model``, a package so
                   that its definitions keep the names the stored sweeps' fingerprints use); the offline ViT substitute
                   of Sec. 5.1 (``model.vit``); App. J's BERT- and GPT-2-shaped layers (``model.appj``);
:mod:`~.train`     the training function of every stored paper-scale sweep (``train``, a package for the same reason),
                   the book-scale GD sweeps of Sec. 5.2 (``train.gd``), the paper's own layer trained near its bound
                   (``train.capacity``);
:mod:`~.evidence`  the stored sweeps' declarations: grids, recipes, costs (``python -m lib evidence``);
:mod:`~.claims`    every claim, its criterion, control and variants, the judges of the stored runs, and the functions
                   the notebook calls (one submodule per part of the paper: ``claims.layer``, ``claims.theorem1``,
                   ``claims.props``, ``claims.table1``, ``claims.appj``, ``claims.gd``, ``claims.fig2a``,
                   ``claims.fig245`` with ``claims.fig2bc``, ``claims.fig45``, ``claims.paper_scale``,
                   ``claims.capacity``, ``claims.fig3``);
:mod:`~.figures`   the chapter's figures and small tables.
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
}
# Not an erratum: fig3-paper-capacity (the paper's T not memorized within 300k steps by our one-seed re-run). Our
# batching and seed differ from the official code's (claims.fig3_notes.batching_note), and the same T is memorized given a
# longer schedule (fig3-long-memorized): a re-run that did not reproduce, not an error shown in the paper.
