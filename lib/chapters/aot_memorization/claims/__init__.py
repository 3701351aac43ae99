"""The claims of the chapter: every statement of the paper with its criterion, control and robustness variants
(:mod:`~.skeptic`, on :mod:`lib.core.robust`), the judge of each stored run (:mod:`~.stored` reads the points), and
the functions the page calls to record them. Each such function records its claims and prints their verdict lines
(:func:`~.common.prints_verdicts`, :meth:`lib.core.claims.Claims.lines`).

:mod:`~.theorem1`   the model, Lemma 2, Corollary 1, Theorem 1 (eps = 0 and eps > 0), Corollary 2;
:mod:`~.encoders`   Props. 1-3, Theorem 2, Lemma 4, the skip connection against Cabannes et al.;
:mod:`~.limits`     Lemma 1 (probe), Theorem 3 (rate), Theorem 2 on adversarial W;
:mod:`~.exp1` ... :mod:`~.exp6`   Experiments 1-6: ``live(C, ...)`` on the page's grids, ``stored(C, evs)`` on the
                    paper-scale sweeps (Exp. 4's exponent test in :mod:`~.exp4`; the spot check in :mod:`~.exp1`);
:mod:`~.v1`         v1's training protocol (stored sweep); :mod:`~.b1` Appendix B.1 (stored sweeps);
:mod:`~.depth`      Appendix B.2 (small scale live; paper scale not run);
:mod:`~.findings`   the Findings' sentences generated from the ledger and the sweeps' states;
:mod:`~.stored`     the stored sweeps read (states, curves, seed rows, costs); :mod:`~.common` what they share.
"""
from lib.chapters.aot_memorization.claims import (  # noqa: F401
    b1,
    common,
    depth,
    encoders,
    exp1,
    exp2,
    exp3,
    exp4,
    exp5,
    exp6,
    findings,
    limits,
    skeptic,
    stored,
    theorem1,
    v1,
)
