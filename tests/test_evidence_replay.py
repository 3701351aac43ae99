"""Every stored sweep is re-trained in part with today's code: the trajectory prefix recorded with the run (the
parameters at a few early optimiser steps and every evaluation on the way, :mod:`lib.book.migrate`) is
replayed (its first 64 steps; ``migrate`` replays the whole prefix) and must match bitwise (within a stated
tolerance on a machine of another CPU kind). This covers
the sweeps whose units cost too much to re-train in full (mha-memorization's Fig. 2-5, the depth-width LM)."""
from __future__ import annotations

import pytest

from lib.book import evidence as EV
from lib.book import migrate as MG

STORED = [(c, n) for c in EV.chapters() for n in EV.sweeps(c) if EV.read_manifest(c, n) is not None]
PREFIX = 64              # the tests replay the first 64 steps of each recorded prefix (migrate replays all of it)
TRAINED = [(c, n) for c, n in STORED if not (EV.sweeps(c)[n].get("verify") or {}).get("exact")]


def test_every_stored_sweep_has_a_trajectory():
    exact = {(c, n) for c, n in STORED if (EV.sweeps(c)[n].get("verify") or {}).get("exact")}
    assert all(EV.sweeps(c)[n]["verify"].get("units") for c, n in exact)      # checked by recomputing cheap units
    missing = [f"{c}/{n}" for c, n in STORED if (c, n) not in exact and not EV.read_manifest(c, n).get("trajectories")]
    assert not missing, f"stored sweeps without a re-training check: {missing}"


@pytest.mark.parametrize("chapter,name", TRAINED, ids=[f"{c}/{n}" for c, n in TRAINED])
def test_stored_trajectory_replays(chapter, name):
    sw, man = EV.sweeps(chapter)[name], EV.read_manifest(chapter, name)
    if EV.stale_reason(sw, man):
        pytest.fail(f"{chapter}/{name} is stale ({EV.stale_reason(sw, man)}): `python -m lib evidence migrate "
                    f"{chapter} {name}`, or rerun `{EV.command(chapter, name)}`")
    probs, done = MG.replay(sw, man, upto=PREFIX)
    print(f"{chapter}/{name}: " + "; ".join(done))
    assert done and not probs, "\n".join(probs)
