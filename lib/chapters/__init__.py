"""One package per paper: ``lib.chapters.<chapter_id>`` (the chapter id with ``_`` for ``-``) holds everything
the chapter ``notebooks/<chapter_id>.ipynb`` needs beyond :mod:`lib.core` and :mod:`lib.engine`. No chapter
package imports another.

Every package has the same roles under the same names (:data:`ROLES`), each a module ``<role>.py`` or a package
``<role>/`` whose modules are named after the paper's objects; nothing else sits at its top level
(``tests/test_package_roles.py``)."""

ROLES = {
    "theory": "the constructions from the proofs and the exact checks (closed forms, ranks, bounds)",
    "model": "the models, in the paper's notation",
    "train": "training: one parameterised function per model family",
    "evidence": "the stored sweeps' declarations (grids, recipes, budgets): data, no code",
    "claims": "every statement, its criterion, control and variants, the judge of each stored run; "
              "the functions a page calls to record them",
    "figures": "figures and tables",
}
