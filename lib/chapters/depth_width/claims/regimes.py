"""Claims of sections 3, 4 and 7 (depth-width): the two regimes extrapolated, Corollaries 1-2, depth against width
at equal parameter count, Theorem 4's proof step and its consequence. Kinds and controls: :mod:`~.network`.
"""
from __future__ import annotations

import math

from lib.chapters.depth_width.theory import bounds as B
from lib.core.claims import FINDING, THEOREM, Claims, Control, Variant

EPS = 1e-9


# ---------------------------------------------------------------------------------------------
# sections 3–4: the two regimes, the corollaries, equal budgets
# ---------------------------------------------------------------------------------------------
def _inside_thm12(widths, L_max: int, eps: float = EPS) -> tuple[bool, str]:
    """Judge of thm12-extrapolated: the N = 2 closed form inside Theorem 1's or 2's sandwich at every (d_x, L)."""
    viol, checked = [], 0
    for d in widths:
        for L in range(1, L_max + 1):
            rg = B.regime(d, L)
            if rg == "boundary" or (rg == "thm1" and d <= 1):
                continue
            lo, hi = B.thm1_log3_bounds(d, L, 1) if rg == "thm1" else B.thm2_log3_bounds(d, L, 1)
            v = B.log3_sep_n2(d, L)
            checked += 1
            if not (lo - eps * abs(hi) <= v <= hi + eps * abs(hi)):
                viol.append((d, L, rg))
    return checked > 0 and not viol, f"{checked - len(viol)}/{checked} (d_x, L) inside"


def extrapolation_claims(C: Claims, extrap_dx: list[int], L_max: int) -> list[tuple[int, float]]:
    ok, val = _inside_thm12(extrap_dx, L_max)
    C.check("thm12-extrapolated", "Ours: the N = 2 closed form, extrapolated to large widths, lies inside Theorems 1–2",
            kind=FINDING, paper="Thm 1 / Thm 2 sandwiches", ours=val, ok=ok,
            criterion="inside both bounds (1e-9 relative slack)",
            variants=[Variant("grid extended: every d_x = 2 … 64 and 2^7 … 2^15, L up to 20",
                              *_inside_thm12(list(range(2, 65)) + [2 ** k for k in range(7, 16)], 20))])
    late = [(d, (B.log3_sep_n2(d, L) - B.log3_sep_n2(d, L - 1)) / d) for d in extrap_dx
            for L in [math.ceil(B.log3(2 * d)) + 5] if L <= 40]
    C.sanity("binomial-slope", "A property of binom(d_x + C, C) (our N = 2 closed form, not a measurement): five layers "
             "past L = log3 2d_x its per-layer increment of log3 is ≈ d_x, inside Theorem 2's window [d_x/2, 2d_x]",
             paper="Thm 2's slope window [d_x/2, 2 d_x]", ours=", ".join(f"{x:.2f} d_x" for d, x in late),
             ok=all(0.5 <= x <= 2 for d, x in late), criterion="increment/d_x in [0.5, 2]")
    return late


def _cor1_log3_w(d: int, Ld: int) -> float:
    """log3 of the width factor a network of depth L/2 needs (Thm 3's bound) to reach the N = 2 rank of (d, L)."""
    target = B.log3_sep_n2(d, Ld)
    log3_w = B.log3(3 ** min(target / B.C(Ld // 2), 600) - 1)
    return log3_w - B.log3(d)


def corollary_claims(C: Claims, depths=(2, 4, 6, 8)) -> tuple[list, list]:
    """Corollary 1 at depth ratio 2 (theorem; control: the same criterion at fixed width d_x = 4, Theorem 2's
    regime), the typo in Corollary 1's statement (finding, ``cor1-typo``) and Corollary 2 (theorem; control: the same
    criterion at the edge of Theorem 1's regime)."""
    lw = [_cor1_log3_w(3 ** L + 1, L) for L in depths]
    lw_ctl = [_cor1_log3_w(4, L) for L in depths]
    grows = lambda v: all(b > 2 * a > 0 for a, b in zip(v, v[1:], strict=False))
    cor1 = [(L, 3 ** L + 1, L // 2, f"3^{B.log3_sep_n2(3 ** L + 1, L):.4g}", f"3^{x + B.log3(3 ** L + 1):.1f}",
             f"3^{x:.1f}") for L, x in zip(depths, lw, strict=False)]
    C.check("cor1-depth2", "Corollary 1 at a fixed depth ratio of 2, as the deep depth grows along the edge of "
            "Theorem 1's regime (d_x = 3^L + 1): the width factor w a network of half the depth needs (Thm 3's bound vs "
            "our N = 2 closed form) has log w growing exponentially in L. The corollary's claim about the depth ratio "
            "itself (w ∝ exp(exp(ratio))) is not tested", kind=THEOREM, paper="w ∝ exp(exp(d))",
            ours="log3 w = " + ", ".join(f"{x:.1f}" for x in lw) + f" for deep L = {', '.join(map(str, depths))}",
            ok=grows(lw), criterion="log3 w positive and more than doubling per two layers",
            control=Control("the same halving at fixed width d_x = 4 (Theorem 2's regime)", grows(lw_ctl),
                            ", ".join(f"{x:.2f}" for x in lw_ctl)))

    # the printed statement, d_x^shallow = w·d_x^shallow, holds only at w = 1; the measured factor is > 1 at every depth
    C.check("cor1-typo", "Corollary 1 as printed, d_x^shallow = w·d_x^shallow, holds for a positive width only at w = 1, "
            "while the corollary itself requires w > 1 ('the shallow network is wider by a factor of w'): a typo for "
            "d_x^shallow = w·d_x^deep. Checked on the factor itself: cor1-depth2's w (shallow width over deep width) "
            "exceeds 1 at every deep depth, so the printed equation has no positive solution there", kind=FINDING,
            paper="d_x^shallow = w d_x^shallow, where d > 1, w > 1; w ∝ exp(exp(d))",
            ours="log3 w = " + ", ".join(f"{x:.1f}" for x in lw) + f" (deep L = {', '.join(map(str, depths))}), so w > 1",
            ok=all(x > 0 for x in lw), criterion="log3 w > 0 at every deep depth (the printed equation needs w = 1)",
            variants=[Variant(f"deep L = {L} alone", x > 0, f"log3 w = {x:.1f}") for L, x in zip(depths, lw, strict=True)])

    def factors(dfun, Ls):
        """Width factor w/d_x; math.inf where no width ≤ 2^62 reaches the target (min_width returns -1)."""
        ws = [(B.min_width(B.log3_sep_n2(dfun(L), L) + 1e-9, L // 2, upper=False), dfun(L)) for L in Ls]
        return [math.inf if w < 0 else w / d for w, d in ws]
    fmt = lambda x: "> 2^62/d_x (no width up to 2^62)" if math.isinf(x) else f"{x:.2f}"
    L2 = [4, 6, 8, 10, 12, 16]
    f2 = factors(lambda L: 4, L2)
    f2_ctl = factors(lambda L: 3 ** L + 1, [2, 4, 6])
    bounded = lambda f: all(b <= a for a, b in zip(f, f[1:], strict=False)) and f[-1] < 4
    cor2 = [(L, 4, L // 2, f"3^{B.log3_sep_n2(4, L):.4g}", round(f * 4), f"{f:.2f}") for L, f in zip(L2, f2, strict=False)]
    C.check("cor2-polynomial", "Corollary 2 (stated for any N), tested at N = 2 only: past the threshold a network of "
            "half the depth needs only a bounded width factor, with both ranks from our N = 2 closed form at d_x = 4. "
            "N = 2 is not the generic case (the ranks grow with N at L ≥ 2: claim ours-N-dependence), so this does "
            "not test the corollary at N ≥ 4 (cor2-generic does, at every N)", kind=THEOREM, paper="d_x^shallow = 3^β2 d_x^deep",
            ours="width factors " + ", ".join(f"{x:.2f}" for x in f2) + " (deep L = 4…16)", ok=bounded(f2),
            criterion="factor non-increasing in L and < 4 at the deepest",
            control=Control("the same halving at the edge of Theorem 1's regime (deep d_x = 3^L + 1, L = 2, 4, 6)",
                            bounded(f2_ctl), ", ".join(map(fmt, f2_ctl))))
    return cor1, cor2


def _deepest_best(budgets) -> tuple[bool, str]:
    """Judge of theory-no-optimum: at each budget the argmax of log3 sep over L is the largest admissible L."""
    best = [(max(r, key=lambda t: t[2])[0], len(r)) for r in (B.equal_budget(Pb) for Pb in budgets)]
    return all(b == n for b, n in best), "best L = " + ", ".join(str(b) for b, _ in best)


def _deepest_best_generic(budgets) -> tuple[bool, str]:
    """theory-no-optimum at every N (H = 1, integer widths): the deepest split, d_x = 1 at L = P/4, whose N = 2 rank
    C(L) + 1 bounds its rank from below at every N, against every other split d_x ≥ 2 at depth ceil(P/(4 d_x²)) (so
    each gets at least the budget), whose generic-N closed form (section 2c) bounds its rank from above at every N.
    Holds when the lower bound exceeds every upper bound: the deepest split then has the largest rank at every N."""
    from lib.chapters.depth_width.theory import closedform as cf
    out = []
    for Pb in budgets:
        L1 = math.floor(Pb / 4)
        lo = cf._log3(math.comb(1 + B.C(L1), B.C(L1)))             # d_x = 1: the N = 2 rank, a lower bound at every N
        ups, d = [], 2
        while True:
            L = math.ceil(Pb / (4 * d * d))
            ups.append((d, L, cf._log3(cf.sep_formula_fast(d, L))))
            if L == 1:
                break
            d += 1
        top = max(ups, key=lambda t: t[2])
        out.append((Pb, L1, lo, top))
    return (all(lo > top[2] for _, _, lo, top in out),
            "; ".join(f"{Pb:.0e}: log3 sep ≥ {lo:.1f} at L = {L1} vs ≤ {top[2]:.1f} (d_x = {top[0]}, L = {top[1]})"
                      for Pb, L1, lo, top in out))


def budget_claim(C: Claims, budgets=(1e2, 1e3, 1e4)) -> list[tuple]:
    eb = []
    for Pb in budgets:
        r = B.equal_budget(Pb)
        best = max(r, key=lambda t: t[2])
        eb.append((f"{Pb:.0e}", len(r), best[0], f"{best[1]:.2f}", f"{best[2]:.4g}", f"{r[0][2]:.4g}",
                   f"{r[len(r) // 2][2]:.4g}"))
    gen_ok, gen_val = _deepest_best_generic(budgets)
    C.check("theory-no-optimum", "Ours: at fixed 4Ld² the separation rank (N = 2 closed form) grows with depth all the "
            "way to d_x ≈ 1. This reads the N = 2 formula; at every N (H = 1, integer widths) the deepest split's N = 2 "
            "rank, a lower bound at every N, "
            + ("exceeds" if gen_ok else "does not exceed")
            + f" every other split's generic-N closed form, an upper bound at every N ({gen_val})",
            kind=FINDING, paper="the optimal depth is empirical (Sec. 5.2.3)",
            ours="best L = " + ", ".join(str(e[2]) for e in eb), ok=all(e[2] == e[1] for e in eb),
            criterion="argmax over L = the largest admissible L",
            variants=[Variant("budget 1e5", *_deepest_best((1e5,))),
                      Variant("the language models' count 12Ld² in place of 4Ld² (budgets / 3)",
                              *_deepest_best(tuple(b / 3 for b in budgets))),
                      Variant("at every N: the deepest split's N = 2 rank (a lower bound) against every other split's "
                              "generic-N closed form (an upper bound), integer widths", gen_ok, gen_val)])
    return eb


# ---------------------------------------------------------------------------------------------
# section 7: Theorem 4's proof step and its consequence
# ---------------------------------------------------------------------------------------------
def _first_weaker(widths, L_far: int, margin: float = 0.5) -> tuple[bool, str]:
    """Judge of thm4-gap-consequence: the replacement bound's per-layer slope exceeds 2 d_x + 1 (+ margin) first at 4."""
    rows = [(d, B.log3_sep_n2(d * (d + 1) // 2, L_far + 1) - B.log3_sep_n2(d * (d + 1) // 2, L_far), 2 * d + 1)
            for d in widths]
    first = next((d for d, s, t in rows if s > t + margin), None)
    return first == 4, f"first d_x = {first}"


def thm4_claims(C: Claims, g4: list[tuple], widths=range(2, 9), L_far: int = 40, g4_more: list[tuple] = ()) -> list[tuple]:
    """The grouping step (finding, measured) and its consequence for Theorem 2 (finding, exact arithmetic):
    the per-layer slope of our replacement bound log3 binom(D + C, C), D = d_x(d_x+1)/2, against Theorem 2's
    2 d_x + 1. Returns rows (d_x, D, measured slope of the replacement bound at L_far, 2 d_x + 1)."""
    one = [(d, c, dim, pv) for d, c, n, dim, pv, _ in g4 if n == 1]
    two = [(d, c, n, dim, pv) for d, c, n, dim, pv, _ in g4 if n > 1]
    C.check("thm4-proof-step", "Theorem 4's proof groups the monomials of the whole expression by power vector and "
            "treats each group as one function χ_n. The grouped factors are products of Gram entries; for a Gram "
            "matrix of one vector they span exactly the ((d_x, 2C)) power vectors, for two or more vectors more (from "
            "C = 2, i.e. every L ≥ 2, on). The "
            "whole Gram matrix has two vectors already at N = 2 (S = x¹x¹ᵀ + x²x²ᵀ), so the grouping undercounts at "
            "every N; N = 2 is rescued by a separate per-side count (each side is one vector), N = 4 by a count over the "
            "Q side's two vectors (thm4-gap-N4), N ≥ 6 by neither",
            kind=FINDING, paper="((d_x, 2C)) functions χ_n",
            ours="; ".join(f"d_x={d}, C={c}, {n} vectors: {dim} vs {pv}" for d, c, n, dim, pv in two),
            ok=bool(one and two) and all(dim == pv for *_, dim, pv in one) and all(dim > pv for *_, dim, pv in two),
            criterion="span = number of power vectors with one vector, > with two or more",
            variants=[Variant(f"the smallest degree C = {c} (d_x = {d}, {n} vector{'s' if n > 1 else ''})",
                              dim == pv if n == 1 else dim > pv, f"{dim} vs {pv}") for d, c, n, dim, pv, _ in g4_more]
            or None)
    rows = []
    for d in widths:
        D = d * (d + 1) // 2
        slope = B.log3_sep_n2(D, L_far + 1) - B.log3_sep_n2(D, L_far)     # log3 binom(D + C, C) per layer
        rows.append((d, D, slope, 2 * d + 1))
    first = next((d for d, D, s, t in rows if s > t + 0.5), None)
    C.check("thm4-gap-consequence", "Consequence of the gap: for N ≥ 6 the proved replacement bound binom(D + C, C), "
            "D = d_x(d_x+1)/2, grows by ≈ D per layer in log3 (exponent ≈ d_x(d_x+1)L/2), Theorem 2's upper bound by "
            "2d_x + 1; from d_x = 4 on the replacement is weaker, so Theorem 2's upper bound (the depth-inefficiency "
            "side) is unproven for N ≥ 6 there (Corollary 2 at ratio 2 is certified by cor2-generic instead)", kind=FINDING,
            paper="log3 sep ≤ 2 d_x L + L + c2 for every N",
            ours=f"per-layer slope at L = {L_far}: " + ", ".join(f"d_x={d}: {s:.2f} vs {t}" for d, D, s, t in rows),
            ok=first == 4, criterion="the replacement's slope exceeds 2 d_x + 1 first at d_x = 4",
            variants=[Variant(f"slope read at L = {Lf}", *_first_weaker(widths, Lf)) for Lf in (20, 80)]
            + [Variant("no margin (slope > 2 d_x + 1)", *_first_weaker(widths, L_far, 0.0))])
    return rows


# ---------------------------------------------------------------------------------------------
# what the page calls: each computes the criterion's inputs, records the claims, prints their verdict lines
# ---------------------------------------------------------------------------------------------
def extrapolation(C: Claims, extrap_dx: list[int], L_max: int) -> list[tuple[int, float]]:
    """Section 3: the two regimes on the N = 2 closed form (:func:`extrapolation_claims`)."""
    late = extrapolation_claims(C, extrap_dx, L_max)
    print("increment per layer / d_x at L = ceil(log3 2d_x) + 5:\n  " + ", ".join(f"d_x={d}: {x:.3f}" for d, x in late))
    C.lines()
    return late


def corollaries(C: Claims) -> tuple[list, list]:
    """Corollaries 1 and 2 (:func:`corollary_claims`); returns their two tables."""
    cor1, cor2 = corollary_claims(C)
    C.lines()
    return cor1, cor2


def budget(C: Claims) -> list[tuple]:
    """Section 4: depth against width at equal parameter count (:func:`budget_claim`), its table and the two
    growth rates per layer (the theory's threshold, the fit's transition width)."""
    from IPython.display import Markdown, display

    from lib.chapters.depth_width.claims.fit import table4_fit
    from lib.chapters.depth_width.figures import md_table
    eb = budget_claim(C)
    md_table(eb, ["budget 4Ld²", "depths with d_x ≥ 1", "best L", "its d_x", "log3 sep at best", "at L = 1",
                  "at the middle depth"])
    b_fit = table4_fit().b
    display(Markdown(f"Per added layer the theory's threshold width grows by a factor 3; the fit's transition width by "
                     f"$e^{{b}}={math.exp(b_fit):.3f}$ ($b={b_fit:.4f}$)."))
    C.lines()
    return eb


def thm4(C: Claims, seed: int) -> list[tuple]:
    """Section 7: Theorem 4's proof step, the span of the grouped Gram monomials against the power vectors
    (:func:`~lib.chapters.depth_width.theory.rankgrid.gram_monomial_rank`, computed here, and at N = 2 for the
    per-side rescue), and its consequence (:func:`thm4_claims`). Returns the slopes per width."""
    from lib.chapters.depth_width.figures import md_table
    from lib.chapters.depth_width.theory import rankgrid
    g4 = [(d, c, n, *rankgrid.gram_monomial_rank(d, c, n, seed=seed)) for d, c, n in
          [(2, 4, 1), (2, 4, 2), (3, 4, 1), (3, 4, 3), (2, 13, 1), (2, 13, 2)]]
    md_table([(d, c, n, dim, pv, allm) for d, c, n, dim, pv, allm in g4],
             ["d_x", "C", "vectors", "span (exact)", "power vectors", "all monomials"])
    g4_more = [(d, c, n, *rankgrid.gram_monomial_rank(d, c, n, seed=seed)) for d, c, n in [(2, 2, 1), (2, 2, 2), (3, 2, 2)]]
    slopes = thm4_claims(C, g4, g4_more=g4_more)
    C.lines()
    return slopes
