"""The core every chapter uses: the one attention layer (:mod:`lib.core.attention`), parameter specs
(:mod:`lib.core.params`), the claims ledger (:mod:`lib.core.claims`), plots, reproducibility, fits and the
code fingerprint. Nothing here imports the engine, the chapters or the book."""
