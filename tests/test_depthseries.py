"""Tests of lib.chapters.depth_width.theory.depthseries: Lemma 6's construction at a tiny size, and the stored exact sweeps
(lemma6, rank-series, width-points): every point under a CPU-second recomputed with today's code (exact equality),
the page reader's claims, and a stale sweep making them not run. A hand-edited stored number is caught by its digest
(tests/test_evidence.py)."""
import shutil

import pytest

from lib.book import evidence as EV
from lib.chapters.depth_width.theory import bounds
from lib.chapters.depth_width.theory import depthseries as ds
from lib.chapters.depth_width.claims import generic
from lib.chapters.depth_width.claims import series as dr
from lib.chapters.depth_width.theory.closedform import sep_formula_fast as closed_form
from lib.chapters.depth_width.theory.bounds import multiset
from lib.core.claims import FAILS, FRAGILE, HOLDS, NOT_DISCRIMINATING, NOT_RUN, Claims
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
    assert "width-to-match" not in C.claims          # judged at generic N by claims.generic (section 3)
    generic.claims(C, stored[0], measure=False)
    w = C.claims["width-to-match"]          # Corollary 2's polynomial factor also asks for a wider network
    assert w.verdict == NOT_DISCRIMINATING and w.control["passed"] is True and w.flips == []
    assert "(d_x=3, L=3) → L=2 needs d_x=11" in w.variants[0]["value"]      # the N = 4 reading
    assert "(d_x=3, L=3) → L=2 needs d_x=12" in w.variants[1]["value"]      # generic N, L = 2 closed form
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
    generic.claims(C2, dr.load(root)[0], measure=False)        # width-to-match stays not run, recorded once
    assert C2.claims["width-to-match"].verdict == NOT_RUN


# ---------------------------------------------------------------------------------------------
# generic N (claims.generic): the width to match, Corollary 2 at every N, Theorem 4's gap at N = 4
# ---------------------------------------------------------------------------------------------
def test_l2_lower_is_the_closed_form_at_small_width():
    """A draw at d_x = 3, L = 2 (N = 6) above the closed form's 49 stops there; below it the matrix is full rank."""
    assert generic.l2_lower(3, 60)["rank"] == 49 == closed_form(3, 2)
    assert generic.l2_lower(3, 30)["rank"] == 30


def test_width_to_match_at_generic_n_with_a_measured_width(stored, monkeypatch):
    """With the d_x = 12 draw (faked here at its full rank), (3, 3) needs 12 at generic N: 11 reaches at most 3015."""
    monkeypatch.setattr(generic, "l2_lower", lambda w, K, N=6, seed=0: dict(d_x=w, L=2, N=N, K=K, rank=K, cpu_s=0.0))
    C = Claims("depth-width")
    out = generic.claims(C, stored[0], measure=True)
    assert [m["d_x"] for m in out["measured"]] == [12]                    # 4538's width 13 is not drawn (cost)
    w = C.claims["width-to-match"]
    assert "(d_x=3, L=3) → L=2 needs d_x=12" in w.ours and "d_x=11 reaches at most 3015 < 3102" in w.ours
    assert w.verdict == NOT_DISCRIMINATING and "needs d_x=15" in w.control["value"]
    rows = generic.width_rows(generic.deep_ranks(stored[0]), {6: 385, 12: 3110})
    assert [(t["d_deep"], t["L_deep"], t["width"]) for t in rows] == [(2, 3, 6), (3, 3, 12), (2, 4, None)]


def test_cor2_generic_and_thm4_n4_with_their_controls():
    C = Claims("depth-width")
    generic.thm4_n4(C)
    t = C.claims["thm4-gap-N4"]
    assert t.verdict == HOLDS and t.control["passed"] is False
    assert generic.even_count(3, 3, 2) == sum(multiset(6, 2 * j) for j in range(14))
    assert [generic.cor2_sufficient(4, L) for L in (4, 8, 16)] == [218, 52, 26]
    assert generic._bounded(4, (4, 6, 8, 10, 12, 16))[0] and not generic._edge()[0]
    # sufficiency is certified: the shallower N = 2 rank exceeds the deep closed form, one width less does not
    from math import comb
    w = generic.cor2_sufficient(3, 4)                       # depth 4 against depth 2: C(2) = 4
    assert comb(w + 4, 4) > closed_form(3, 4) >= comb(w + 3, 4)


# ---------------------------------------------------------------------------------------------
# the blocked GF(p) elimination (theory.gfrank) against FLINT, and the closed form (theory.closedform)
# ---------------------------------------------------------------------------------------------
def _low_rank(rng, m: int, n: int, r: int, p: int):
    import numpy as np
    if r == 0:
        return np.zeros((m, n), np.int64)
    A = rng.integers(0, p, (m, r)).astype(object) @ rng.integers(0, p, (r, n)).astype(object)
    return np.array(A % p, dtype=np.int64)


@pytest.mark.parametrize("b, inner", [(128, 16), (32, 8), (7, 3), (16, 0)])
def test_rank_blocked_equals_flint(b, inner):
    """Random, rank-deficient and structured matrices of a few hundred rows: the blocked elimination's rank equals
    FLINT's nmod_mat.rank, for several panel widths (panels spanning pivots and zero columns)."""
    import numpy as np
    import torch

    from lib.chapters.depth_width.theory import gfrank, seprank
    p, rng = seprank.PRIME, np.random.default_rng(b)
    mats = [rng.integers(0, p, (300, 300)), rng.integers(0, p, (173, 290)), rng.integers(0, p, (290, 64))]
    for m, n, r in [(300, 300, 137), (250, 310, 249), (310, 200, 0), (200, 200, 1), (260, 260, 200)]:
        mats.append(_low_rank(rng, m, n, r, p))
    A = _low_rank(rng, 280, 280, 120, p)
    A[:, :50] = 0                                         # a panel of zero columns, then duplicated rows
    A[100:150] = A[0]
    mats.append(A)
    B = np.full((257, 257), p - 1, np.int64)              # the largest entries: the exactness limit of the GEMMs
    B[np.arange(257), np.arange(257)] = rng.integers(0, p, 257)
    mats.append(B)
    for M in mats:
        want = seprank.rank_modp(M)
        got = gfrank.rank_blocked(torch.from_numpy(M.astype(np.float64)), p, b=b, inner=inner, chunk_rows=61)
        assert got == want


def test_rank_blocked_refuses_inexact_panels_and_a_wrong_prime_changes_the_rank():
    import numpy as np
    import torch

    from lib.chapters.depth_width.theory import gfrank
    with pytest.raises(ValueError):
        gfrank.rank_blocked(torch.zeros(4, 4, dtype=torch.float64), b=129)
    M = np.array([[1, 2], [3, 6 + 7]], np.int64)          # det = 7: full rank mod 11, rank 1 mod 7
    assert gfrank.rank_blocked(torch.from_numpy(M.astype(np.float64)), 11) == 2
    assert gfrank.rank_blocked(torch.from_numpy((M % 7).astype(np.float64)), 7) == 1


def test_big_rank_point_small_case_and_sweep_declaration():
    """The sweep's function at a small generic point (d_x = 2, L = 3, N = 6: 232, the stored N = 6 rank); the sweep
    declares d_x + 1 positions a side and K above the closed form."""
    from lib.chapters.depth_width import evidence as dw_evidence
    from lib.chapters.depth_width.theory import closedform as cf
    from lib.chapters.depth_width.theory import gfrank
    q = gfrank.big_rank_point(2, 3, 6, 240)
    assert q["rank"] == 232 == cf.sep_formula(2, 3) and q["below_K"]
    for p in dw_evidence.RANK_POINTS:
        assert p["N"] == 2 * (p["d_x"] + 1) and p["K"] > cf.sep_formula(p["d_x"], p["L"])


def test_d4_rule_separates_the_three_explanations():
    """The judging rule of closed-form-d4 on made-up draws: a draw at the formula certifies it (whatever the others);
    one draw below refutes nothing; two independent draws agreeing below refute it, as does one above; two that
    disagree below, or two sharing a prime, do not."""
    from lib.chapters.depth_width.claims import closedform as ccf
    pred = 31460
    d = lambda r, N, seed, p: dict(rank=r, below_K=True, N=N, seed=seed, p=p)
    a, b = d(31456, 10, 0, 8388593), d(31460, 12, 1, 8388587)
    assert ccf.d4_rule([a, b], pred)[0] and not ccf.d4_rule([a], pred)[0]
    assert not ccf.d4_refuted([a], pred) and not ccf.d4_refuted([a, b], pred)
    assert ccf.d4_refuted([a, d(31456, 12, 1, 8388587)], pred)                  # (c): a structural deficit
    assert not ccf.d4_refuted([a, d(31450, 12, 1, 8388587)], pred)              # disagreeing draws: unsettled
    assert not ccf.d4_refuted([a, d(31456, 12, 1, 8388593)], pred)              # same prime: not independent
    assert ccf.d4_refuted([d(31461, 12, 1, 8388587)], pred)                     # above the upper bound
    assert not ccf.d4_rule([dict(b, below_K=False)], pred)[0]                   # K too small: no certificate
    assert not ccf.d4_rule([a, b], 31456 + 100)[0]                              # another formula is not attained


@pytest.mark.parametrize("r2, d4, n12", [(31460, HOLDS, FRAGILE), (31456, FAILS, FAILS), (31450, FRAGILE, FAILS),
                                         (None, FRAGILE, NOT_RUN)])
def test_d4_claims_under_each_outcome_of_the_second_draw(monkeypatch, r2, d4, n12):
    """closed-form-d4 and closed-form-d4-n12 for every outcome of the second draw, the first draw being 31,456: the
    formula reached (certified; the N = 12 draw alone is fragile under the first draw), the deficit reproduced
    (refuted), a different deficit (unsettled), not run."""
    from lib.chapters.depth_width.claims import closedform as ccf
    first = dict(rank=31456, below_K=True, N=10, K=31500, seed=0, p=8388593, cpu_s=2506.5, sweep="rank-generic")
    second = dict(first, rank=r2, N=12, seed=1, p=8388587, sweep="rank-generic-d4")
    ev = EV.Evidence("depth-width", "rank-generic-d4")
    monkeypatch.setattr(ccf, "d4_draws", lambda root=None: ([first] + ([second] if r2 else []),
                                                            [] if r2 else [(dict(second, d_x=4), ev)]))
    C = Claims("depth-width")
    ccf.decisive(C)
    assert (C.claims["closed-form-d4"].verdict, C.claims["closed-form-d4-n12"].verdict) == (d4, n12)
    assert C.claims["closed-form-d4"].control["passed"] is False


def test_second_draw_sweep_function_and_declaration():
    """rank-generic-d4's function at small generic points with its other prime (232 at d_x = 2, 18 at L = 2), and its
    declaration: generic N, K above the formula, another seed and another prime below 2^23."""
    import flint

    from lib.chapters.depth_width import evidence as dw_evidence
    from lib.chapters.depth_width.theory import closedform as cf
    from lib.chapters.depth_width.theory import gfrank, seprank
    out = []
    gfrank.draw_points([dict(d_x=2, L=3, N=6, K=240), dict(d_x=2, L=2, N=6, K=60)], lambda q, r: out.append(r),
                       seed=1, p=dw_evidence.PRIME_2)
    assert [r["rank"] for r in out] == [232, 18] and all(r["below_K"] for r in out)
    with pytest.raises(ValueError):
        gfrank.draw_point(2, 2, 6, 60, seed=1, p=2 ** 23 + 9)
    sw = dw_evidence.SWEEPS["rank-generic-d4"]
    assert sw["config"]["p"] != seprank.PRIME and flint.fmpz(sw["config"]["p"]).is_prime()
    assert sw["config"]["seed"] != dw_evidence.SWEEPS["rank-generic"]["config"]["seed"]
    for p in sw["points"]:
        assert p["N"] >= 2 * (p["d_x"] + 1) and p["K"] > cf.sep_formula(p["d_x"], p["L"])


def test_closed_form_values_and_fast_sum():
    from lib.chapters.depth_width.theory import closedform as cf
    assert [cf.sep_formula(1, L) for L in (1, 2, 3, 4)] == [2, 5, 14, 41]
    assert [cf.sep_formula(2, L) for L in (2, 3, 4)] == [18, 232, 4538]
    assert cf.sep_formula(3, 3) == 3102 and cf.sep_formula(4, 3) == 31460
    assert all(cf.sep_formula(d, 2) == bounds.ours_closed_form(d, 2, 1, 4) for d in range(1, 30))
    assert all(cf.sep_formula(d, 1) == d + 1 for d in range(1, 30))
    assert all(cf.sep_formula(d, L) == cf.sep_formula_fast(d, L) for d in range(1, 9) for L in range(1, 6))
    assert all(cf.sep_formula(d, L) <= bounds.monomial_upper(d, L) for d in range(1, 6) for L in range(1, 5))
    assert cf.sep_formula(3, 3, D=3) != 3102              # the wrong D


def test_degree_split_attains_each_degree_and_its_control_fails():
    from lib.chapters.depth_width.theory import closedform as cf
    r = cf.degree_split(2, 2, 6, 30)
    assert r["ranks"] == r["bounds"] == [1, 3, 6, 6, 2] and r["rank"] == 18
    assert r["extra_node_ok"] and r["top_nonzero"] and not r["lower_degree_ok"]


def test_crossings_and_control():
    import math

    from lib.chapters.depth_width.theory import closedform as cf
    x = cf.crossings(12, 12)
    assert (5, 7) in x["thm4"] and (4, 10) in x["thm4"]
    assert (5, 11) in x["thm2"] and (8, 7) in x["thm2"] and (10, 6) in x["thm2"]
    n2 = lambda d, L: math.comb(d + bounds.C(L), bounds.C(L))
    assert cf.crossings(12, 12, formula=n2) == {"thm4": [], "thm2": []}


def test_closed_form_claims_on_the_stored_ranks(stored):
    """The section's claims on the stored sweeps and a tiny grid: the argument's checks hold with failing controls,
    the formula matches every generic point, and a wrong formula (the wrong D) is caught by the same criterion."""
    from lib.chapters.depth_width.claims import closedform as ccf
    from lib.chapters.depth_width.theory import closedform as cf
    from lib.chapters.depth_width.theory import rankgrid
    rows = rankgrid.measure_grid(rankgrid.expand_cases([dict(L=2, N=4, H=1, dx_min=1, dx_max=3)]), log=lambda *a: None)
    C = Claims("depth-width")
    out = ccf.closed_form(C, rows, stored[0], seed=0)
    for cid in ("cf-degree", "cf-step3", "closed-form-verified"):
        assert C.claims[cid].verdict == HOLDS and C.claims[cid].control["passed"] is False
    d4, pred = C.claims["closed-form-d4"], cf.sep_formula(4, 3)   # judged by the stated rule on the stored draws
    draws = out["d4"]["draws"]
    # the crossings lie at d_x ≥ 4: with the formula refuted at d_x = 4, L = 3 they cross an upper bound only
    cx = C.claims["closed-form-crossings"]
    assert cx.base == (NOT_DISCRIMINATING if draws and ccf.d4_refuted(draws, pred) else HOLDS)
    assert cx.control["passed"] is (bool(draws) and ccf.d4_refuted(draws, pred))
    assert "74.87 vs 73.95" in cx.statement                                      # the first Theorem 4 crossing, (4, 10)
    if draws:                                            # the d_x = 4 draws are generic: named, not hidden
        assert "d_x = 4, L = 3" in C.claims["closed-form-verified"].statement
    if d4.verdict != NOT_RUN:
        top = max(q["rank"] for q in draws)
        assert (d4.verdict == HOLDS) == (top == pred)
        assert (d4.verdict == FAILS) == ccf.d4_refuted(draws, pred)
        assert d4.control["passed"] is False
    n12 = C.claims["closed-form-d4-n12"]
    assert (n12.verdict == NOT_RUN) == (not any(q["sweep"] == "rank-generic-d4" for q in draws))
    assert any(q["rank"] == 3102 for q in out["verified"])
    assert not all(q["L"] == 1 for q in out["verified"])
    assert not ccf._matches(out["verified"], lambda d, L: cf.sep_formula(d, L, D=d * d))[0]
    assert not ccf.generic(3, 3, 4) and ccf.generic(3, 3, 6) and ccf.generic(5, 2, 4)
