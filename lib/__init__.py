"""The shared library of *Attention Theory, Reproduced*: models, data, training, checks and plots that
the chapters import. One concept per module; see README.md for the map. Importing ``lib`` itself is
cheap (no torch), so ``python -m lib`` can validate parameters before any heavy import."""
