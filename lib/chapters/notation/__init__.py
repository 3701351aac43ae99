"""Chapter ``notation``: one attention layer, four notations.

:mod:`~lib.chapters.notation.model`    each paper's layer written literally, in its own notation;
:mod:`~lib.chapters.notation.theory`   the agreement checks' computations: the layers against :mod:`lib.core.attention`
                                       over random draws, and the wrong readings (the controls);
:mod:`~lib.chapters.notation.claims`   the claims, with their kinds and controls, and their verdict lines;
:mod:`~lib.chapters.notation.figures`  the score maps' figure.

The page shows each function's source with :mod:`lib.core.source`."""

# the findings that say a paper is wrong (the errata page): typos and misstatements in the papers' notation
ERRATA = {
    "mahdavi-param-count": ("error", "Mahdavi et al.'s parameter count 2Hdd_h + Hdd_v + dd_out leaves out the Hd_v×d entries of "
                                     "W_O (it holds only if W_O is fixed while W_D is trained, a reading their proof does not support)"),
    "dana-eq1-drops-WV": ("misprint", "Dana et al.'s eq. (1), second equality, W_O^h Σ_s a^h_s x_s, drops W_V^h (undefined "
                                      "unless d_h = d)"),
    "dana-WO-shape-typo": ("misprint", "Dana et al. §2 lists 'W_Q^h ∈ R^{d,d_h}' where W_O^h is meant (possibly an extraction "
                                       "artefact of our copy)"),
    "dana-QV-pair-typo": ("misprint", "Dana et al. §2 says 'W_Q, W_V are multiplied together' where W_Q, W_K is meant"),
}
