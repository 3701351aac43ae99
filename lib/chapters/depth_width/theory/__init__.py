"""Levine et al. (2020), the theory: exact separation ranks of the analysed network over GF(p)
(:mod:`~.seprank`), the paper's bounds (Theorems 1-6) and our closed forms (:mod:`~.bounds`), the rank grid and
the checks beside it (:mod:`~.rankgrid`), Lemma 6's construction run on the network and the exact depth series
(:mod:`~.depthseries`, the training functions of the exact sweeps), and the appendix's Lemma 3 and Claims 1-2
(:mod:`~.lemmas`).
"""
from lib.chapters.depth_width.theory import bounds, seprank  # noqa: I001  (seprank and bounds first: the others use them)
from lib.chapters.depth_width.theory import depthseries, lemmas, rankgrid

__all__ = ["bounds", "depthseries", "lemmas", "rankgrid", "seprank"]
