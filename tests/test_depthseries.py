"""Tests of lib.chapters.depth_width.depthseries: Lemma 6's construction at a tiny size, and the stored run's
cheapest points recomputed with today's code (exact equality)."""
import json
import shutil

import pytest

from lib.chapters.depth_width import depthseries as ds
from lib.chapters.depth_width import series_report as dr
from lib.chapters.depth_width.bounds import multiset
from lib.core.claims import HOLDS, Claims


def test_sqrt_mod_and_unit():
    p = ds.P
    assert ds.I_UNIT * ds.I_UNIT % p == p - 1
    for a in (2, 3, 5, 12345, p - 7):
        r = ds.sqrt_mod(a)
        assert r is None or r * r % p == a % p
    assert ds.sqrt_mod(0) == 0


def test_lemma6_tiny():
    """d_x = 7 (d = 3), L = 3 (λ = 3): the network's sub-block is Const·(VVᵀ)^⊙3 with rank ((3, 3)) = 10 on a
    26 × 26 block; unnormalised rows break it; the wrong power λ − 1 gives ((3, 2)) = 6."""
    q = ds.lemma6_point(7, 3, N=4)
    assert q.proportional and q.rank == q.predicted == multiset(3, 3) == 10 and q.size == 26
    assert q.rank_unnormalised != 10 and q.rank_lambda_minus_1 == multiset(3, 2)
    q2 = ds.lemma6_point(7, 3, N=2, seed=1)            # any N, any V with unit rows
    assert q2.proportional and q2.rank == 10


def test_lemma6_templates_unit_rows():
    import numpy as np
    V = ds.unit_rows(5, 3, np.random.default_rng(0))
    assert all(sum(int(x) * int(x) for x in row) % ds.P == 1 for row in V)
    rows, cols, pin = ds.lemma6_templates(V, 7, 1)
    assert rows.shape == (5, 7) and pin.tolist() == [0] * 6 + [1]
    assert rows[:, 3:6].abs().sum() == 0 and cols[:, :3].abs().sum() == 0


def test_lemma6_multihead_is_not_a_hadamard_power():
    q = ds.lemma6_point(14, 2, N=4, H=2)                # m = 3: rank m + 2 = 5 < d = 6
    assert not q.proportional and q.rank == 5 < q.predicted == 6


def test_min_width_row():
    ranks = {(5, 2): 216, (6, 2): 385, (2, 3): 232, (3, 3): 2640}
    row = ds.min_width_row(232, 3, 2, 2, ranks)
    assert (row["width"], row["rank_below"], row["source"]) == (6, 216, "measured")
    assert ds.min_width_row(232, 3, 2, 1, ranks)["width"] == 231
    assert ds.min_width_row(300, 4, 2, 3, ranks)["width"] == 3
    assert ds.min_width_row(5000, 4, 2, 3, ranks)["width"] is None
    assert ds.width_candidates(232) == [5, 6]


@pytest.fixture(scope="module")
def stored():
    if not (ds.STORE / "points.json").exists():
        pytest.skip("no stored run (python -m lib.chapters.depth_width.depthseries)")
    return dr.load()


def test_stored_cheapest_points_recomputed(stored):
    """The cheapest stored series points and the tiny Lemma 6 points, recomputed now: identical."""
    pts, _ = stored
    cheap = sorted(pts["series"], key=lambda q: q["cpu_s"])[:4]
    for q in cheap:
        now = ds.series_point(q["d_x"], q["L"], q["N"], K0=ds._k0(q["d_x"], q["L"]))
        assert {k: v for k, v in now.items() if k != "cpu_s"} == {k: v for k, v in q.items() if k != "cpu_s"}
    for q in pts["lemma6"]:
        if q["size"] <= 80 and q["H"] == 1:
            now = ds.lemma6_point(q["d_x"], q["L"], q["N"], q["H"], d_used=q["d"])
            assert {k: v for k, v in now.__dict__.items() if k != "cpu_s"} == \
                {k: v for k, v in q.items() if k != "cpu_s"}


def test_report_claims_and_stale_warning(stored, tmp_path, capsys):
    C = Claims("depth-width")
    dr.report(C)
    out = capsys.readouterr().out
    assert "stored run of" in out and ds.COMMAND in out
    assert C.missing_controls() == []
    for cid in ("lemma6-network-L3", "lemma6-network-L4", "series-thm3"):
        assert C.claims[cid].verdict == HOLDS and C.claims[cid].control["passed"] is False
    shutil.copy(ds.STORE / "points.json", tmp_path / "points.json")
    man = json.loads((ds.STORE / "manifest.json").read_text())
    man["definitions"]["lib.chapters.depth_width.seprank:rank_modp"] = "0" * 16
    man["code_hash"] = "0" * 16
    (tmp_path / "manifest.json").write_text(json.dumps(man))
    dr.report(Claims("depth-width"), tmp_path)
    out = capsys.readouterr().out
    assert "stale" in out and "seprank:rank_modp (edited)" in out


def test_stored_fingerprint_is_current(stored):
    """The stored run's fingerprint is the definitions compute() reaches today: nothing it executes changed."""
    _, man = stored
    assert man["code_hash"] == ds.reachable.definitions_hash(ds.definitions())
    assert man["definitions"] == ds.definitions()
