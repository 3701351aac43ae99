"""Chapter ``notation``: one attention layer, four notations. :mod:`~lib.chapters.notation.layers` writes each
paper's layer literally, in its own notation; :mod:`~lib.chapters.notation.checks` checks them against
:mod:`lib.core.attention` and records the claims with their kinds and controls;
The page shows each function's source with :mod:`lib.core.source`."""
