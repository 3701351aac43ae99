"""CPU accounting of the evidence sweeps declared after Fig. 3 (:mod:`~.evidence_fig2bc`, :mod:`~.evidence_fig45`):
each model's share of its family's CPU time, and a grid's cost from a measured ms-per-step table.

(:mod:`~.evidence` and :mod:`~.evidence_fig3` keep their own copy of the share bookkeeping: their stored runs are
fingerprinted by their source.)
"""
from __future__ import annotations

import time


class CpuShares:
    """CPU-seconds per model of a family trained together: the CPU time between two finishing models is split
    evenly among the models still training."""

    def __init__(self, n: int):
        self.active, self.share, self.last = set(range(n)), [0.0] * n, time.process_time()

    def finish(self, g: int) -> float:
        """Model ``g`` has finished: book the time since the last event and return ``g``'s share."""
        now = time.process_time()
        for a in self.active:
            self.share[a] += (now - self.last) / len(self.active)
        self.last = now
        self.active.discard(g)
        return self.share[g]


def ms_step(table: dict[int, float], x: int) -> float:
    """Linear interpolation of a measured ms-per-step table."""
    xs = sorted(table)
    lo = max([k for k in xs if k <= x], default=xs[0])
    hi = min([k for k in xs if k >= x], default=xs[-1])
    return table[lo] if hi == lo else table[lo] + (table[hi] - table[lo]) * (x - lo) / (hi - lo)


def cpu_s(points: list[dict], table: dict[int, float], key: str, recipe: dict) -> float:
    """Estimated CPU-seconds of ``points`` (no early stop): the measured ms per step times the official step budget
    max(min_steps, epochs · T / batch)."""
    return sum(ms_step(table, p[key]) * max(recipe["min_steps"], recipe["epochs"] * p["T"] // recipe["batch"]) / 1000
               for p in points)
