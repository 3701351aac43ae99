"""The engine: G models of one architecture trained as one batched family (:mod:`lib.engine.family`,
:mod:`lib.engine.train`), fused kernels (:mod:`lib.engine.kernels`), and sweeps whose every finished point is
stored atomically and never recomputed (:mod:`lib.engine.sweep`). It imports :mod:`lib.core` only; the
families themselves live in the chapters that train them."""
