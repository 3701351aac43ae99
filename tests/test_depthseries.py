"""Tests of lib.chapters.depth_width.theory.depthseries: Lemma 6's construction at a tiny size, and the stored exact sweeps
(lemma6, rank-series, width-points): every point under a CPU-second recomputed with today's code (exact equality),
the page reader's claims, and a stale sweep making them not run. A hand-edited stored number is caught by its digest
(tests/test_evidence.py)."""
import shutil

import pytest

from lib.book import evidence as EV
from lib.chapters.depth_width.theory import bounds
from lib.chapters.depth_width.theory import depthseries as ds
from lib.chapters.depth_width.claims import series as dr
from lib.chapters.depth_width.theory.bounds import multiset
from lib.core.claims import HOLDS, NOT_DISCRIMINATING, NOT_RUN, Claims
from lib.engine import sweep


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
    pts, evs = dr.load()
    if not all(ev.points for ev in evs.values()):
        pytest.skip("no stored run (python -m lib evidence depth-width)")
    return pts, evs


def _cheap(name: str) -> list[dict]:
    """The stored points of sweep ``name`` that cost under a CPU-second."""
    return [r for r in dr.load()[1][name].points if r["cpu_s"] < 1.0]


@pytest.mark.parametrize("name", dr.SWEEPS)
def test_stored_cheap_points_recomputed(stored, name):
    """Every stored point under a CPU-second, recomputed now by the sweep's own function: every field but cpu_s
    identical."""
    sw = EV.sweeps(dr.CHAPTER)[name]
    rows = _cheap(name)
    got: dict[str, dict] = {}
    pts = [{k: r[k] for k in sw["points"][0]} for r in rows]
    sw["fn"](pts, lambda p, res: got.__setitem__(sweep.point_key(p), {**res, **p}), **sw["config"])
    assert len(rows) >= 2
    for r, p in zip(rows, pts, strict=True):
        now = got[sweep.point_key(p)]
        assert {k: v for k, v in now.items() if k != "cpu_s"} == \
            {k: v for k, v in r.items() if k not in ("cpu_s", "digest")}


def test_declared_widths_are_the_candidates(stored):
    """width-points holds the widths width_candidates names for the series' L ≥ 3 ranks, but those above a rank
    of 3100 (4538's, over two CPU-minutes each)."""
    pts, _ = stored
    want = [w for q in pts["series"] if q["L"] >= 3 for w in ds.width_candidates(q["rank"])
            if bounds.ours_closed_form(w, 2, 1, 4) <= 3100]
    assert sorted(want) == [p["d_x"] for p in EV.sweeps(dr.CHAPTER)["width-points"]["points"]]


def test_report_claims_and_stale(stored, tmp_path, capsys):
    C = Claims("depth-width")
    dr.section2b(C)
    out = capsys.readouterr().out
    assert "stored run of" in out and "python -m lib evidence depth-width rank-series" in out
    assert C.missing_controls() == []
    for cid in ("lemma6-network-L3", "lemma6-network-L4", "series-thm3"):
        assert C.claims[cid].verdict == HOLDS and C.claims[cid].control["passed"] is False
    assert [t["width"] for t in stored[0]["width_table"]] == [17, 231, 6, 4537, 13, None, 48, 2639, 11]
    assert C.missing_variants() == []
    assert C.claims["ours-N4-generic"].verdict == HOLDS and "2640 → 3102" in C.claims["ours-N4-generic"].ours
    w = C.claims["width-to-match"]          # Corollary 2's bounded factor also asks for a wider network
    assert w.verdict == NOT_DISCRIMINATING and w.control["passed"] is True and w.flips == []
    g = C.claims["series-growth"]            # re-judged at N = 6 (d_x = 3: 3.63 -> 3.78), it still holds
    assert g.verdict == HOLDS and "3.78" in g.variants[0]["value"] and not g.flips
    root = tmp_path / "evidence"
    for n in dr.SWEEPS:
        shutil.copytree(EV.folder(dr.CHAPTER, n), root / dr.CHAPTER / n)
    man = EV.read_manifest(dr.CHAPTER, "lemma6", root)
    man["definitions"]["lib.chapters.depth_width.theory.seprank:rank_modp"] = "0" * 16
    man["fingerprint"] = "0" * 12
    EV._write_manifest(man, dr.CHAPTER, "lemma6", root)
    C2 = Claims("depth-width")
    dr.section2b(C2, root)
    out = capsys.readouterr().out
    assert "STALE" in out and "seprank:rank_modp (edited)" in out
    assert {c.verdict for c in C2.claims.values()} == {NOT_RUN} and "series-growth" in C2.claims
