"""Chapter ``notation``: one attention layer, four notations. :mod:`~lib.chapters.notation.layers` writes each
paper's layer literally, in its own notation; :mod:`~lib.chapters.notation.checks` checks them against
:mod:`lib.core.attention` and records the claims with their kinds and controls;
:mod:`~lib.chapters.notation.source` shows a function's source on the page that uses it."""
