"""Chapter ``notation``: one attention layer, four notations. :mod:`~lib.chapters.notation.layers` writes each
paper's layer literally, in its own notation, to be checked against :mod:`lib.core.attention`."""
