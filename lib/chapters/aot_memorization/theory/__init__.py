"""The theory of Dana, Pydi & Chevaleyre (AISTATS 2025), float64 and exact up to round-off: the constructions from
the proofs and their exact checks.

:mod:`~.construction`   the AoT of eqs. (1)-(2) (and eq. (2) literally), capacities, Lemma 2, Theorem 1's construction;
:mod:`~.encoders`       sequence encoders (Props. 1-3), Theorem 1's distribution form, Theorem 2, Lemma 4;
:mod:`~.assoc`          the skip connection alone (H = 0) against a linear associative memory (Cabannes et al.);
:mod:`~.paper`          the paper's reported numbers (the official CSVs), :data:`PAPER`.

Every name of :mod:`~.construction`, :mod:`~.encoders` and :data:`PAPER` is also reachable here
(``theory.association_check``, ``theory.best_encoder``, ``theory.PAPER``).
"""
from lib.chapters.aot_memorization.theory.construction import *  # noqa: F401,F403
from lib.chapters.aot_memorization.theory.encoders import *  # noqa: F401,F403
from lib.chapters.aot_memorization.theory.paper import PAPER  # noqa: F401
from lib.chapters.aot_memorization.theory import assoc  # noqa: F401
