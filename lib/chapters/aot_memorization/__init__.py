"""Chapter ``aot-memorization``: Dana, Pydi & Chevaleyre, *Memorization in Attention-only Transformers*
(AISTATS 2025).

:mod:`~.theory`         the AoT (eqs. 1-2), capacities, Lemma 2, Theorem 1's construction, the sequence encoders
                        (Props. 1-3), Theorem 2, Lemma 4, the H = 0 AoT against an associative memory, the paper's
                        numbers (``theory.PAPER``);
:mod:`~.model`          the trained models (the official code's and eq. (2)'s, App. B.2's deeper AoT), as engine families;
:mod:`~.train`          the one training function of every grid (live and stored), recipes, fits, slope ratios, and the
                        page's other trainings (the spot check, Prop. 1's trained AoTs, the depth grid);
:mod:`~.evidence`       the stored paper-scale sweeps, declared as data: Exps. 1, 2, 3, 5 (N = 70), 6, v1's
                        protocol, App. B.1 (``python -m lib evidence``), and the measured costs of the grids not trained;
:mod:`~.claims`         every claim: statements, criteria, controls, variants, the judges of the stored sweeps;
:mod:`~.figures`        the chapter's figures and tables.
"""

# The verdict box's names for the claim-id heads its default parsing leaves unnamed.
REFS = {
    "v1": "Fig. 1a (arXiv v1's training protocol)",
    "metric": "Exp. 1 (the plotted accuracy metric)",
    "cabannes": "Exp. 2 (its intercept, read through Cabannes et al.)",
}

# The findings and claims that say the paper is wrong (book/errata.md): claim id -> (category, what is wrong).
ERRATA = {
    "lemma2-proof-gap": ("gap", "Lemma 2's proof step 'the image of W -> A^h lies in no hyperplane' (det N X(t) != 0) "
                                "fails when S < d, the regime of every experiment but Exp. 6 (S = 2 throughout; Exp. 6 has "
                                "d = S = 2); "
                                "the statement still holds numerically."),
    "exp6-H20-claim": ("error", "v2's Exp. 6 text (App. B) says 'We train an AoT with d = 2, d_h = 5' and that Corollary 2 "
                                "gives exactly accuracy 1 at H = 20. That count (H d_h + d = 102 >= T0 = 100) uses "
                                "d_h = 5 > d, outside the d_h <= d the paper assumes throughout (its setup, footnote 1, and "
                                "A.1), where the proof's construction reaches only rank H min(d_h, d) + d; and v2's "
                                "Fig. 4 caption and CSV use d = d_h = 2, where Corollary 2 gives phi(2H + 2) < 1 at "
                                "H = 20."),
    "exp6-ratio-text-fit": ("imprecise", "v2 gives Exp. 6's slope ratio as 1.3 without saying which points it fits. "
                                         "The official EXP_6.py fits its CSV from H = 1 and gets another value; 1.3 is "
                                         "what a fit over H >= 5 gives (the values are in the paper column)."),
    "thm2-simpler": ("gap", "Theorem 2's 'simpler bound' swaps an expectation of a product for a product of "
                            "expectations without proof (it holds on our tables)."),
    "metric-running-vs-table": ("error", "Figs. 1-2 and App. B.1 plot the official code's running accuracy over the "
                                         "last 100 training batches, which in our stored runs of those experiments "
                                         "(the official v2 recipe) lies above the full-table accuracy that the paper "
                                         "defines and Corollary 2 bounds. In those of Exps. 5-6 and v1's protocol the "
                                         "two agree."),
    "exp2-model-dependence-paper-scale": ("error", "Fig. 1b's convexity in d_h belongs to the official code's model, "
                                                   "not to the AoT of eqs. (1)-(2), which is concave in d_h on the same "
                                                   "data and recipe. The official model differs from eq. (2) in several "
                                                   "ways at once (a shared rank-d_h compression when d != d_h, 1/sqrt(d_h) "
                                                   "score scaling, the positional embedding left out of the skip "
                                                   "connection, d_h x d_h projections and their initialisation); no "
                                                   "stored ablation isolates which of them causes it."),
    "exp3-model-dependence-paper-scale": ("error", "Fig. 2a's plateau past d = d_h belongs to the official code's model; "
                                                   "the AoT of eqs. (1)-(2) keeps improving to accuracy 1 on the same "
                                                   "data and recipe. Which of the official model's differences from "
                                                   "eq. (2) causes it is not isolated (no stored ablation)."),
}
