"""The theory of Mahdavi et al. 2024: the layer of eqs. (1)-(8) with its ranks and assumption checkers
(:mod:`~.layer`), Theorem 1's construction from App. B and its rivals (:mod:`~.construction`), and the appendices'
side constructions, Propositions 3-5 (:mod:`~.appendices`)."""
