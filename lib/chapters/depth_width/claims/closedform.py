"""The closed form for the separation rank at H = 1 (ours, :mod:`lib.chapters.depth_width.theory.closedform`) on the
page: its upper-bound argument measured step by step, the generic exact ranks it must reproduce (the rank grid, the
stored series, the stored ``rank-generic`` sweep), the decisive point d_x = 4, L = 3, and where it would cross the
paper's upper bounds (Theorems 4 and 2), a conjecture beyond the verified points.
"""
from __future__ import annotations

import math
from pathlib import Path

from lib.book import evidence
from lib.chapters.depth_width.theory import closedform as cf
from lib.chapters.depth_width.theory import seprank
from lib.chapters.depth_width.theory.bounds import C as C_of
from lib.core.claims import FINDING, Claims, Variant
from lib.core.robust import each

CHAPTER = "depth-width"
D4_SWEEPS = ("rank-generic", "rank-generic-d4")   # the stored draws at generic N, in the order declared
SPLIT_CASES = [(1, 3, 4, 20), (2, 2, 6, 30), (3, 2, 8, 60)]     # (d_x, L, N, K): K above the formula's rank


def generic(d_x: int, L: int, N: int) -> bool:
    """The points at which an exact rank is compared with the closed form: N/2 ≥ d_x (S_Q ranges over all symmetric
    matrices), or L ≤ 2 with N ≥ 4 (the L = 2 ranks agree from N = 4 on, ``ours-N4-generic``)."""
    return N // 2 >= d_x or (L <= 2 and N >= 4)


def verified_points(rows: list[dict], pts: dict, big: list[dict]) -> list[dict]:
    """The generic H = 1 exact ranks ``closed-form-verified`` compares, one per (d_x, L, N, source): the rank grid
    (measured on the page), the stored series at N = 4 and N = 6, the width points, and the stored points of the sweeps
    ``rank-generic`` and ``rank-generic-d4`` with d_x < 4 (their d_x = 4 draws are judged by ``closed-form-d4``)."""
    out = [dict(d_x=r["case"].d_x, L=r["case"].L, N=r["case"].N, rank=r["rank"], ranks=r["ranks"], src="grid")
           for r in rows if r["case"].H == 1 and not r["case"].residual]
    for key, src in (("series", "series N = 4"), ("series_n6", "series N = 6"), ("width_points", "width points")):
        out += [dict(d_x=q["d_x"], L=q["L"], N=q["N"], rank=q["rank"], ranks=q["ranks"], src=src) for q in pts[key]]
    out += [dict(d_x=q["d_x"], L=q["L"], N=q["N"], rank=q["rank"], ranks=[q["rank"]], src=q.get("src", "rank-generic"))
            for q in big if q["d_x"] < 4]
    return [q for q in out if generic(q["d_x"], q["L"], q["N"])]


def _matches(points: list[dict], formula=cf.sep_formula_fast, which: str = "rank") -> tuple[bool, str]:
    """The criterion: the formula equals every exact rank (``which``: 'rank' the first draw, 'ranks' every draw)."""
    bad = [q for q in points if any(r != formula(q["d_x"], q["L"]) for r in
                                    ([q["rank"]] if which == "rank" else q["ranks"]))]
    top = max(points, key=lambda q: q["rank"])
    return (bool(points) and not bad,
            f"{len(points) - len(bad)}/{len(points)} equal, largest {top['rank']} (d_x = {top['d_x']}, L = {top['L']}, "
            f"N = {top['N']})" + (f"; first mismatch {bad[0]}" if bad else ""))


def argument(C: Claims, seed: int) -> list[dict]:
    """Steps 1-4 of the module's argument measured on the network (:func:`~lib.chapters.depth_width.theory.closedform.
    degree_split`): the degree in S_Q is exactly C(L) (sanity; control: a degree-(C − 1) interpolant), and every
    degree-j block has rank ≤ min(d_x h(C − j), h(j)), with rank M ≤ Σ_j rank M_j (finding; control: the same
    bound with D = d_x, the count of a vector's entries)."""
    res = [cf.degree_split(d, L, N, K, seed) for d, L, N, K in SPLIT_CASES]
    C.sanity("cf-degree", "Steps 1-2: y(S_P + t S_Q, x^i) is a polynomial of degree exactly C(L) in t: C(L) + 1 nodes "
             "interpolate it, an extra node agrees, and its degree-C(L) part is non-zero",
             paper="—", ours=", ".join(f"(d_x={r['d_x']}, L={r['L']}): C = {r['C']}" for r in res),
             ok=all(r["extra_node_ok"] and r["top_nonzero"] for r in res), criterion="every case, exactly over GF(p)",
             control=("a polynomial of degree ≤ C(L) − 1 (C(L) nodes) also agrees at the extra node",
                      any(r["lower_degree_ok"] for r in res)))

    def step3(rs: list[dict], D_of=cf.D_of) -> tuple[bool, str]:
        ok = all(rk <= min(d * cf.h(C_of(r["L"]) - j, D_of(d)), cf.h(j, D_of(d)))
                 for r in rs for d in [r["d_x"]] for j, rk in enumerate(r["ranks"])) \
            and all(r["rank"] <= sum(r["ranks"]) for r in rs)
        return ok, "; ".join(f"(d_x={r['d_x']}, L={r['L']}): rank M = {r['rank']}, Σ_j rank M_j = {sum(r['ranks'])}, "
                             f"{sum(a == b for a, b in zip(r['ranks'], r['bounds'], strict=True))} of {r['C'] + 1} "
                             "degrees at the bound" for r in rs)
    ok, val = step3(res)
    C.check("cf-step3", "Steps 3-4 of the upper bound: the degree-j part of y in S_Q has rank ≤ min(d_x h(C − j), "
            "h(j)) as a matrix over P × Q configurations, and rank M ≤ Σ_j rank M_j",
            kind=FINDING, paper="— (ours)", ours=val, ok=ok, criterion="every degree j of every case",
            control=("the same bound counting D = d_x variables (a vector's entries) instead of d_x(d_x+1)/2",
                     step3(res, D_of=lambda d: d)[0]),
            variants=each(step3, {f"(d_x={r['d_x']}, L={r['L']})": [r] for r in res}, name="case")
            + [Variant("attained: rank M_j equals the bound for every j, rank M = Σ_j rank M_j",
                       all(r["ranks"] == r["bounds"] and r["rank"] == sum(r["ranks"]) for r in res))])
    C.lines()
    return res


def verified(C: Claims, rows: list[dict], pts: dict, root: Path | None = None) -> list[dict]:
    """``closed-form-verified``: the formula against the generic exact ranks of :func:`verified_points` (control: the
    sum without the min, the monomial count binom(D + C, C)); variants: every draw's rank, each source alone, L ≥ 3
    only. Its statement names what it covers and the generic ranks at d_x ≥ 4 it leaves out, with their values."""
    big = [dict(q, src=name) for name in D4_SWEEPS for ev in [evidence.load(CHAPTER, name, root)] if not ev.stale
           for q in ev.points]
    pts_v = verified_points(rows, pts, big)
    ok, val = _matches(pts_v)
    no_min = lambda d, L: math.comb(cf.D_of(d) + C_of(L), C_of(L))
    by_src: dict[str, list[dict]] = {}
    for q in pts_v:
        by_src.setdefault(q["src"], []).append(q)
    deep = [q for q in pts_v if q["L"] >= 3]
    # what the check covers (largest width per depth), and the generic ranks the page holds outside it (d_x ≥ 4)
    cover = {L: max(q["d_x"] for q in pts_v if q["L"] == L) for L in sorted({q["L"] for q in pts_v})}
    out_of = [q for q in big if q["d_x"] >= 4 and generic(q["d_x"], q["L"], q["N"])]
    off = [q for q in out_of if q["rank"] != cf.sep_formula_fast(q["d_x"], q["L"])]
    where = "; ".join(f"L = {L}: d_x ≤ {d}" for L, d in cover.items())
    outside = ""
    if out_of:
        by_dl: dict[tuple, list[dict]] = {}
        for q in out_of:
            by_dl.setdefault((q["d_x"], q["L"]), []).append(q)
        parts = []
        for (d, L), qs in by_dl.items():
            ns, rks = ", ".join(str(q["N"]) for q in qs), ", ".join(f"{q['rank']:,}" for q in qs)
            parts.append(f"d_x = {d}, L = {L} (N = {ns}): {rks} against the formula's {cf.sep_formula_fast(d, L):,}")
        outside = (". Not covered: the page's generic ranks at d_x ≥ 4, " + "; ".join(parts)
                   + (", so the formula is not attained there (closed-form-d4)" if off else ""))
    C.check("closed-form-verified", "Ours: for H = 1 the separation rank at generic N is Σ_j min(d_x h(C − j), h(j)) "
            "(D = d_x(d_x+1)/2, h(k) = binom(k + D − 1, D − 1)) at the generic exact ranks this check covers (largest "
            f"width per depth: {where}){outside}",
            kind=FINDING, paper="bounds only", ours=f"{val}; largest width per depth: {where}", ok=ok,
            criterion="equal at every point, N/2 ≥ d_x or (L ≤ 2, N ≥ 4)",
            control=("the sum without the min, binom(D + C, C) (our monomial bound)", _matches(pts_v, no_min)[0],
                     _matches(pts_v, no_min)[1]),
            variants=[Variant("every independent draw's rank, not only the first", *_matches(pts_v, which="ranks"))]
            + each(_matches, by_src, name="source") + ([Variant("L ≥ 3 only", *_matches(deep))] if deep else []))
    C.lines()
    return pts_v


def d4_draws(root: Path | None = None) -> tuple[list[dict], list[tuple[dict, evidence.Evidence]]]:
    """The stored draws at d_x = 4, L = 3 (rank, N, seed, prime, sweep) and the declared points not stored yet
    (with their sweep's evidence, for the command and the cost)."""
    got, missing = [], []
    for name in D4_SWEEPS:
        ev, sw = evidence.load(CHAPTER, name, root), evidence.sweeps(CHAPTER)[name]
        for pt in (p for p in sw["points"] if p["d_x"] == 4):
            q = None if ev.stale else next((r for r in ev.points if r["d_x"] == 4 and r["N"] == pt["N"]), None)
            if q is None:
                missing.append((dict(pt, sweep=name, **sw["config"]), ev))
            else:
                got.append(dict(rank=q["rank"], below_K=q["below_K"], N=q["N"], K=q["K"], seed=q["seed"],
                                p=q.get("p", seprank.PRIME), cpu_s=q["cpu_s"], sweep=name))
    return got, missing


def d4_rule(draws: list[dict], pred: int) -> tuple[bool, str]:
    """The rule, fixed before the second draw was run: a draw's rank over GF(p) can only fall below the generic rank,
    and the closed form bounds it from above (``cf-step3``), so the generic rank is estimated by the largest rank over
    the draws; the formula is attained iff that maximum equals it (below K, so the matrix was large enough)."""
    if not draws:
        return False, "no draw"
    top = max(draws, key=lambda q: q["rank"])
    return (top["rank"] == pred and top["below_K"],
            f"{top['rank']}, the largest of {len(draws)} draw(s) at N = " + ", ".join(str(q["N"]) for q in draws))


def d4_refuted(draws: list[dict], pred: int) -> bool:
    """What refutes the formula at this point: a draw above it (the upper bound would be wrong), or at least two
    independent draws (distinct seed, prime and N) below it that agree. One draw below it refutes nothing."""
    below = [q for q in draws if q["rank"] < pred]
    indep = len({q["seed"] for q in below}) == len({q["p"] for q in below}) == len({q["N"] for q in below}) == len(below)
    return any(q["rank"] > pred for q in draws) or (len(below) >= 2 and indep and len({q["rank"] for q in below}) == 1)


def decisive(C: Claims, root: Path | None = None) -> dict:
    """``closed-form-d4``: every stored exact rank at d_x = 4, L = 3 (sweeps ``rank-generic`` and ``rank-generic-d4``)
    against the closed form's 31,460 by :func:`d4_rule` (control: the count with D = d_x² = 16, the entries of a
    non-symmetric S; variants: one draw cannot refute, the draws at N ≥ 12 only); ``closed-form-d4-n12``: the second
    draw (N = 12, another seed and prime) alone, not run until stored."""
    pred, alt = cf.sep_formula(4, 3), cf.sep_formula(4, 3, D=16)
    draws, missing = d4_draws(root)
    desc = lambda q: f"N = {q['N']}, seed {q['seed']}, p = {q['p']:,}"
    print("d_x = 4, L = 3, closed form " + f"{pred:,}: " + "; ".join(
        [f"{desc(q)}: rank {q['rank']:,} ({q['cpu_s'] / 3600:.2f} CPU-h)" for q in draws]
        + [f"{desc(q)}: not run (`{ev.command}`)" for q, ev in missing]))
    stmt = ("Ours: at d_x = 4, L = 3, H = 1 and generic N (N ≥ 10) the exact separation rank equals the closed form: "
            "the largest rank over independent draws (K = 31,500) is the formula's")
    rule = ("largest rank over the stored draws = closed form (a draw is a lower bound of the generic rank, the closed "
            "form an upper bound); refuted by a draw above it or two independent draws agreeing below it")
    if not draws:
        C.not_run("closed-form-d4", stmt, paper=f"closed form: {pred}", kind=FINDING,
                  reason="; ".join(f"{ev.label}; about 0.7 CPU-hours and 8 GB" for _, ev in missing))
    else:
        ok, val = d4_rule(draws, pred)
        far = [q for q in draws if q["N"] >= 12]
        C.check("closed-form-d4", stmt, kind=FINDING, paper=f"closed form: {pred}", ok=ok, criterion=rule,
                ours=val + (f" ({len(missing)} declared draw(s) not run)" if missing else ""),
                control=(f"the count with D = d_x² = 16 (a non-symmetric S_Q): {alt}", d4_rule(draws, alt)[0]),
                variants=[Variant("one draw cannot refute: 'not attained' needs two independent draws agreeing below "
                                  "it (or one above it)", ok or not d4_refuted(draws, pred))]
                + ([Variant("the draws at N ≥ 12 only (in case N = 10 is not yet generic)", *d4_rule(far, pred))]
                   if far else []))
    n12 = next((q for q in draws if q["sweep"] == "rank-generic-d4"), None)
    stmt2 = ("Ours: a second, independent draw at d_x = 4, L = 3 (N = 12, seed 1, prime 8,388,587) alone reaches the "
             "closed form")
    if n12 is None:
        ev = next((e for q, e in missing if q["sweep"] == "rank-generic-d4"), None)
        C.not_run("closed-form-d4-n12", stmt2, paper=f"closed form: {pred}", kind=FINDING,
                  reason=f"{ev.label if ev else 'not declared'}; about 0.7 CPU-hours and 8 GB")
    else:
        first = [q for q in draws if q["sweep"] == "rank-generic"]
        C.check("closed-form-d4-n12", stmt2, kind=FINDING, paper=f"closed form: {pred}", ok=d4_rule([n12], pred)[0],
                ours=f"{n12['rank']} ({n12['cpu_s'] / 3600:.2f} CPU-h)", criterion="rank = closed form, below K",
                control=(f"the count with D = 16: {alt}", d4_rule([n12], alt)[0]),
                variants=[Variant(f"the first draw instead ({desc(q)})", *d4_rule([q], pred)) for q in first])
    C.lines()
    return dict(draws=draws, missing=[q for q, _ in missing], pred=pred)


def consequences(C: Claims, pts_v: list[dict], d4: dict | None = None, d_max: int = 12, L_max: int = 12) -> dict:
    """``closed-form-crossings`` (a conjecture beyond the verified points): the first depth at which the closed form
    exceeds Theorem 4's bound and Theorem 2's upper bound, per width, by integer search. Control: the closed form read
    as an upper bound only, which gives the same crossings (the criterion reads the formula's values, not ranks); it
    passes when every crossing lies at d_x ≥ 4 and the only test there (``d4``: :func:`decisive`'s draws at d_x = 4,
    L = 3) finds the formula not attained, so the claim is then not discriminating."""
    from lib.chapters.depth_width.theory.bounds import thm2_log3_bounds, thm4_upper

    def judge(rng: tuple[int, int], formula=cf.sep_formula_fast) -> tuple[bool, str]:
        x = cf.crossings(*rng, formula=formula)
        beyond = all(not (d == q["d_x"] and L <= q["L"]) for b in x.values() for d, L in b for q in pts_v)
        return (bool(x["thm4"]) and bool(x["thm2"]) and beyond,
                "; ".join(f"{b}: " + ", ".join(f"({d}, {L})" for d, L in v) for b, v in x.items()))
    ok, val = judge((d_max, L_max))
    x = cf.crossings(d_max, L_max)
    first = {b: min(v) for b, v in x.items() if v}          # the crossing at the smallest width, per bound
    bound_log3 = {"thm4": lambda d, L: cf._log3(thm4_upper(d, L)), "thm2": lambda d, L: thm2_log3_bounds(d, L, 1)[1]}
    margins = {b: (d, L, cf._log3(cf.sep_formula_fast(d, L)), bound_log3[b](d, L)) for b, (d, L) in first.items()}
    min_dx = min((d for v in x.values() for d, _ in v), default=None)
    refuted = bool(d4 and d4.get("draws")) and d4_refuted(d4["draws"], d4["pred"])
    upper_only = ok and min_dx is not None and min_dx >= 4 and refuted
    d4_txt = (f"the only test at d_x ≥ 4 (d_x = 4, L = 3) finds {max(q['rank'] for q in d4['draws']):,} < "
              f"{d4['pred']:,}, so the formula is not attained there" if refuted else
              "the formula is not tested at d_x ≥ 4 beyond d_x = 4, L = 3" if d4 and d4.get("draws") else
              "the formula is not tested at d_x ≥ 4")
    C.check("closed-form-crossings", "Conjecture (the closed form beyond its verified points): it exceeds Theorem 4's "
            "bound and Theorem 2's upper bound at the first depths listed, (d_x, L), none at a verified point; if it were "
            "the generic rank there, both bounds would be false at generic N. Every listed crossing has d_x ≥ "
            f"{min_dx}, where {d4_txt}; on present evidence these are crossings of an upper bound, which refute neither "
            "bound; first crossings, log3 of the closed form against the bound: " + "; ".join(
                f"{b} at ({d}, {L}): {v:.2f} vs {t:.2f}" for b, (d, L, v, t) in margins.items()),
            kind=FINDING, paper="Thm 4: sep ≤ d_x(C+1)((d_x, 2C))(2C/d_x "
            "+ 1)^d_x; Thm 2: log3 sep ≤ 2 d_x L + c1 + c2", ours=val, ok=ok,
            criterion=f"both crossings inside d_x ≤ {d_max}, L ≤ {L_max}, beyond every verified point",
            control=("the closed form as an upper bound only (not attained at d_x ≥ 4, as closed-form-d4 finds at d_x = 4, "
                     "L = 3): the same crossings, since the criterion reads the formula's values, not ranks",
                     upper_only, f"smallest crossing width {min_dx}; formula attained at d_x = 4, L = 3: "
                     + ("no" if refuted else "not refuted")),
            variants=[Variant(f"search extended to d_x, L ≤ {d_max + 4}", *judge((d_max + 4, L_max + 4)))])
    growth = {d: [round(cf._log3(cf.sep_formula_fast(d, L + 1)) - cf._log3(cf.sep_formula_fast(d, L)), 2)
                  for L in (3, 6, 9, 12)] for d in (2, 3, 4)}
    print("per-layer growth of log3 of the closed form at L = 3, 6, 9, 12 (tends to D = d_x(d_x+1)/2): "
          + "; ".join(f"d_x = {d} (D = {cf.D_of(d)}): {g}" for d, g in growth.items()))
    C.lines()
    return dict(growth=growth, crossings=x, margins=margins)


def closed_form(C: Claims, rows: list[dict], pts: dict, seed: int, root: Path | None = None) -> dict:
    """The section's four steps in page order; returns what the findings quote."""
    split = argument(C, seed)
    pts_v = verified(C, rows, pts, root)
    d4 = decisive(C, root)
    cons = consequences(C, pts_v, d4)
    return dict(split=split, verified=pts_v, d4=d4, **cons)
