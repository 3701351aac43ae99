"""Chapter ``depth-width``: Levine, Wies, Sharir, Bata & Shashua, *The Depth-to-Width Interplay in
Self-Attention* (NeurIPS 2020).

:mod:`~.theory`    exact separation ranks over GF(p) (``seprank``), the paper's bounds and our closed forms (``bounds``),
                   the rank grid and the checks beside it (``rankgrid``), Lemma 6 on the network and the N = 4 depth
                   series (``depthseries``, the exact sweeps), Lemma 3 and Claims 1-2 of the appendix (``lemmas``);
:mod:`~.model`     the analysed network (eq. 3) and its S-form in float64; the language model of the ablation (GPT);
:mod:`~.train`     the language model's corpus, tokenizer and training (the page's grid and the stored sweeps' unit);
:mod:`~.evidence`  the evidence sweeps: CPU-scale LM transition (depth pairs, seeds, curves), exact ranks;
:mod:`~.claims`    every claim, its criterion, control and variants, and the functions the page calls to record them;
:mod:`~.figures`   the chapter's figures and tables.
"""

# The verdict box's names for the claim-id heads its default parsing misnames or leaves unnamed.
REFS = {
    "lemma78": "Lemmas 7–8",
    "thm12": "Theorems 1–2",
    "series": "Theorems 2–3",
    "width": "Corollary 1",
    "residual": "App. A.4",
    "gridtensor": "App. B.2",
    "fit": "App. D.1",
    "ntr96": "Eq. 10",
    "ntr80": "Eq. 10",
    "dntr96": "Eq. 10",
    "dntr80": "Eq. 10",
    "rel100": "Eq. 10",
    "gpt3": "Table 1",
    "one": "Table 1",
    "errorbars": "Table 4(a)",
    "table4b": "Table 4(b)",
    "lm": "Fig. 2",
}

# The findings that say the paper is wrong (book/errata.md): claim id -> (category, what is wrong).
ERRATA = {
    "thm4-proof-step": ("gap", "Theorem 4's proof counts one function χ_n per power vector, but the grouped products "
                               "of Gram entries span more functions once the Gram matrix holds two or more vectors "
                               "(already at N = 2); N = 2 is rescued by a per-side count and N = 4 by a count over "
                               "the Q side's two vectors (thm4-gap-N4); N ≥ 6 is not."),
    "thm4-gap-consequence": ("gap", "For N ≥ 6 and d_x ≥ 4, Theorem 2's upper bound (the depth-inefficiency side of the "
                                    "threshold) rests on that step and is unproven; no measured rank contradicts it. "
                                    "Corollary 2 at depth ratio 2 is certified separately, at every N (cor2-generic)."),
    "cor1-typo": ("misprint", "Corollary 1 prints d_x^shallow = w·d_x^shallow (w ∝ exp(exp(d))), satisfiable only at "
                              "w = 1; d_x^shallow = w·d_x^deep is meant."),
    "lemma6-multihead": ("gap", "Lemma 6's construction, on which the lower bounds of Theorems 1–2 rest, works for "
                                "H = 1 only: for H > 1 the step from eq. 49 to eq. 50 fails and the sub-block is not a "
                                "Hadamard power of VVᵀ."),
    "errorbars-half": ("misprint", "Sec. 5.2.2's sentence calls the error of a transition width the distance between "
                                   "the two trained widths; Table 4's Δd_x is half that distance (the conventional ± "
                                   "half-width), so the slip is in the sentence, not in the numbers."),
    "fit-R2-eq59": ("misprint", "Eq. 59's ȳ = (1/n) Σ y_i/σ_i² does not give the reported R² = 0.998; the standard "
                                "weighted mean does."),
    "table1-rounding": ("imprecise", "Table 1 prints depth 38 for GPT-3 Large, where the fit on the non-embedding size "
                                     "used for every other row gives L* = 37.40 (the printed total 760M gives 38.2): one "
                                     "row computed on another size convention, 0.6 of a layer off, in a table whose "
                                     "caption points to the fit's statistical uncertainty (Fig. 4)."),
    "table1-width-rounding": ("misprint", "Table 1 prints d_x = 886 for GPT-3 Medium, where √(N/12L) = 886.8 (every "
                                          "other width is rounded)."),
    "table2-anomalies": ("misprint", "Three rows of Table 2 mix networks of very different sizes (spread 21–101%, "
                                     "against ≤ 5% in the rows that span every depth): entries most likely misplaced."),
    "table3-width": ("misprint", "Table 3 reports a standard deviation for L = 6, d_x = 800, a width Table 2 does not "
                                 "list (nearest trained width 816)."),
}
