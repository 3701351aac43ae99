"""The library of *Attention Theory, Reproduced*, in four layers (each imports only the layers above it):

``lib.core``       what every chapter uses: the one attention layer, parameter specs, the claims ledger,
                   plots, reproducibility, fits, the code fingerprint;
``lib.engine``     batched training of model families, sweeps with an atomic store, fused kernels;
``lib.chapters``   one package per paper (``lib.chapters.<chapter_id>``, the id with ``_`` for ``-``):
                   its models, data, constructions, experiments and figures;
``lib.book``       papermill runs, staleness, the results and library pages, the command line.

Importing ``lib`` itself is cheap (no torch), so ``python -m lib`` validates parameters before any heavy import.
"""
