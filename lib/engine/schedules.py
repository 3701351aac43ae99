"""Learning-rate schedules of :func:`lib.engine.train.train_family`, per model of a family.

* "constant";
* "warmup_cosine" (the official MHA code): ``LinearLR`` from ``warmup_start`` × lr over ``steps // 20`` steps, then
  cosine to 0;
* "linear" (the official AoT code): linear from ``lr`` to ``lr_end`` across ``steps``, held per epoch when
  ``per_epoch`` is given (its per-epoch ``LinearLR``);
* a callable ``f(step: ndarray[G], total: ndarray[G]) -> factor ndarray[G]``.
"""
from __future__ import annotations

from typing import Callable

import numpy as np


def lr_factors(schedule: str | Callable, step: np.ndarray, total: np.ndarray, *, lr: np.ndarray,
               lr_end: np.ndarray | None = None, warmup_frac: float = 0.05, warmup_start: float = 0.01,
               per_epoch: np.ndarray | None = None) -> np.ndarray:
    """Learning rates ``[..., G]`` at 0-based optimiser steps ``step`` (broadcast against ``total``)."""
    step = np.asarray(step, dtype=np.float64)
    total = np.asarray(total, dtype=np.float64)
    if callable(schedule):
        return lr * np.asarray(schedule(step, total), dtype=np.float64)
    if schedule == "constant":
        return lr * np.ones_like(step * total)
    if schedule == "warmup_cosine":
        w = np.floor(total * warmup_frac) if warmup_frac != 0.05 else np.floor(total / 20)
        wsafe = np.maximum(w, 1)
        warm = warmup_start + (1 - warmup_start) * step / wsafe
        T = np.maximum(total - w, 1)
        cos = 0.5 * (1 + np.cos(np.pi * np.clip(step - w, 0, None) / T))
        return lr * np.where(step < w, warm, cos)
    if schedule == "linear":
        end = lr if lr_end is None else lr_end
        if per_epoch is not None:
            pe = np.asarray(per_epoch, dtype=np.float64)
            epochs = np.maximum(np.ceil(total / pe), 1)
            frac = np.minimum(np.floor(step / pe) / epochs, 1.0)
        else:
            frac = np.minimum(step / np.maximum(total, 1), 1.0)
        return lr + (end - lr) * frac
    raise ValueError(f"schedule = {schedule!r}: expected 'constant', 'warmup_cosine', 'linear' or a callable")
