"""Claims of the appendix's lemmas (depth-width): Lemmas 2-4 and Claims 1-2, each with its control.
"""
from __future__ import annotations

import math

from lib.chapters.depth_width.theory import bounds as B
from lib.core.claims import THEOREM, Claims, Control

EPS = 1e-9


# ---------------------------------------------------------------------------------------------
# the appendix's lemmas
# ---------------------------------------------------------------------------------------------
def lemma2_claim(C: Claims, rows: list[dict]) -> list[tuple]:
    """Lemma 2 on the grid: sep(depth L) ≤ N d_x⁴/H · K³ with K = the measured rank at depth L − 1 (generic weights
    give every coordinate the same rank, so K bounds every entry of the layer's input). Control: K in place of
    K³ (one copy of the input instead of the layer's three)."""
    plain = {(r["case"].d_x, r["case"].L, r["case"].H, r["case"].N): r["rank"] for r in rows if not r["case"].residual}
    pairs = [(d, L, H, N, rk, plain[(d, L - 1, H, N)]) for (d, L, H, N), rk in plain.items()
             if L >= 2 and (d, L - 1, H, N) in plain]
    if not pairs:
        C.not_run("lemma2-layer", "Lemma 2", paper="sep ≤ N d_x⁴ K³ / H", reason="no (L, L − 1) pair in this preset",
                  kind=THEOREM)
        return []
    ok = all(rk <= N * d ** 4 * K ** 3 / H for d, L, H, N, rk, K in pairs)
    alt = all(rk <= N * d ** 4 * K / H for d, L, H, N, rk, K in pairs)
    C.check("lemma2-layer", "Lemma 2: one layer maps inputs of separation rank ≤ K to outputs of rank ≤ N d_x⁴ K³ / H "
            "(K = the measured rank one layer down)", kind=THEOREM, paper="sep(y) ≤ N d_x⁴ K³ / H",
            ours=f"{len(pairs)} (L − 1 → L) pairs; largest ratio sep / bound = "
                 f"{max(rk / (N * d ** 4 * K ** 3 / H) for d, L, H, N, rk, K in pairs):.2g}",
            ok=ok, criterion="every measured rank ≤ the bound",
            control=Control("K in place of K³ (one copy of the input)", alt,
                            f"violated by {sum(rk > N * d ** 4 * K / H for d, L, H, N, rk, K in pairs)}/{len(pairs)}"))
    return pairs


def lemma4_claim(C: Claims, n_max: int = 60, k_max: int = 200) -> None:
    """Lemma 4, ((n, k)) ≤ (2e(n + k)/n)^n, exactly over a grid; control: the bound without 2e."""
    grid = [(n, k) for n in range(1, n_max + 1) for k in range(0, k_max + 1)]
    ok = all(B.log3(B.multiset(n, k)) <= n * B.log3(2 * math.e * (n + k) / n) for n, k in grid)
    bad = [(n, k) for n, k in grid if B.multiset(n, k) > ((n + k) / n) ** n]
    C.check("lemma4-multiset", "Lemma 4: ((n, k)) ≤ (2e(n+k)/n)^n (the step from Theorem 4 to Theorem 2)", kind=THEOREM,
            paper="((n, k)) ≤ (2e(n+k)/n)^n", ours=f"{len(grid)} pairs (n ≤ {n_max}, k ≤ {k_max}) inside", ok=ok,
            criterion="exact multiset numbers against the bound (log3, 1e-12)",
            control=Control("the bound without the factor 2e", not bad, f"violated by {len(bad)}/{len(grid)}"))


def lemma3_claim(C: Claims, grid: list[dict]) -> None:
    """Lemma 3 exactly (rationals) on every (n, k, r) of the grid, with equality at r_j = M/k; control: the
    integer multiset number at the rounded-down mean, ((n, ⌊M/k⌋))^k, under the same criterion."""
    def holds(key: str) -> bool:
        return all(g["lhs"] <= g[key] for g in grid) and all(g["lhs"] == g[key] for g in grid if g["balanced"])
    bad = sum(g["lhs"] > g["floor_alt"] for g in grid)
    nb = sum(g["balanced"] for g in grid)
    C.check("lemma3-amgm", "Lemma 3: Π_j ((n, r_j)) ≤ Π_{t<n} (M/k + t)^k / ((n−1)!)^k for r_1 + … + r_k = M, with "
            "equality when every r_j = M/k (the last step of Theorem 4)", kind=THEOREM,
            paper="≤, equality at the mean", ours=f"{len(grid)} tuples (n ≤ {max(g['n'] for g in grid)}, k ≤ "
            f"{max(g['k'] for g in grid)}, r_j ≤ {max(max(g['r']) for g in grid)}) inside; equality at all {nb} balanced",
            ok=holds("rhs"), criterion="exact rationals: every product ≤ the bound, equal at every balanced tuple",
            control=Control("((n, ⌊M/k⌋))^k, the integer multiset number at the rounded-down mean", holds("floor_alt"),
                            f"violated by {bad}/{len(grid)}"))


def claim1_claims(C: Claims, cases: list[dict]) -> None:
    """Claim 1 (grid-tensor rank ≤ sep for any templates), with sep from the coefficient matrix (the definition);
    control: sep − 1 in place of sep. And the page's measurement against the definition (sanity)."""
    top = [max(c["grids"].values()) for c in cases]
    C.check("claim1-gridtensor", "Claim 1: for any templates, the rank of the grid tensor's matricization is at most "
            "the separation rank", kind=THEOREM, paper="rank ⟦𝒜(y)⟧ ≤ sep",
            ours="; ".join(f"d_x={c['d_x']},L={c['L']},N={c['N']}: sep {c['sep']}, grids ≤ {t} ({len(c['grids'])} grids)"
                           for c, t in zip(cases, top, strict=True)),
            ok=all(t <= c["sep"] for c, t in zip(cases, top, strict=True)),
            criterion="sep = exact rank of the expanded polynomial's coefficient matrix (GF(p)); every grid rank "
                      "(random, collinear, repeated, 0/1 templates; M = 2 and large M) ≤ sep",
            control=Control("sep − 1 in place of sep (a strictly stronger inequality)",
                            all(t <= c["sep"] - 1 for c, t in zip(cases, top, strict=True)),
                            f"reached by the random grid in {sum(t == c['sep'] for c, t in zip(cases, top, strict=True))}/{len(cases)}"))
    C.sanity("sep-method-definition", "Our measurement (rank of an evaluation matrix on random configurations, K = sep "
             "+ 8) equals the separation rank from its definition (the coefficient matrix), same weights",
             paper="—", ours=", ".join(f"{c['page_rank']} = {c['sep']}" for c in cases),
             ok=all(c["page_rank"] == c["sep"] for c in cases), criterion="equal integers in every case")


def claim2_claim(C: Claims, c2: dict) -> None:
    """Claim 2 by a randomized test on Lemma 6's sub-block as a polynomial in the weights; control: the same block
    times ReLU(θ₁) (the hypothesis 'polynomial entries' removed), under the same criterion."""
    r0 = c2["rank0"]
    C.check("claim2-generic", "Claim 2: a rank reached by a polynomial matrix at one (complex) point is reached at "
            "almost every real point (why Lemma 6's single complex construction bounds the rank for almost all "
            "weights)", kind=THEOREM, paper="rank ≥ r almost everywhere",
            ours=f"Lemma 6 block ({c2['size']} × {c2['size']}, d_x={c2['d_x']}, L={c2['L']}): rank {r0} = "
                 f"(({c2['d']},{c2['lam']})) at the proof's point; {', '.join(map(str, c2['ranks']))} at "
                 f"{len(c2['ranks'])} random integer weights",
            ok=r0 == c2["predicted"] and all(r >= r0 for r in c2["ranks"]),
            criterion="exact GF(p) ranks: every random draw ≥ the rank at the proof's point",
            control=Control("the same block times ReLU(θ₁) for one signed weight θ₁ (piecewise polynomial; θ₁ = 1 at "
                            "the proof's point)", all(r >= r0 for r in c2["gated"]),
                            f"rank < {r0} in {sum(r < r0 for r in c2['gated'])}/{len(c2['gated'])} draws"))


# ---------------------------------------------------------------------------------------------
# what the page calls: each computes the criterion's inputs, records the claims, prints their verdict lines
# ---------------------------------------------------------------------------------------------
def lemmas_2_4(C: Claims, rows: list[dict]) -> list[tuple]:
    """Lemma 2 on the grid's (L − 1 → L) pairs and Lemma 4 on n ≤ 60, k ≤ 200. Returns Lemma 2's pairs."""
    pairs = lemma2_claim(C, rows)
    lemma4_claim(C)
    print(f"Lemma 2 on {len(pairs)} (L - 1 -> L) pairs of the grid; Lemma 4 on n <= 60, k <= 200")
    C.lines()
    return pairs


def lemma8_claims(C: Claims, seed: int) -> None:
    """Lemma 8 by a randomized exact test (THEOREM; control: two equal vectors in each set, the hypothesis 'N different
    vectors' broken), and its non-negativity hypothesis, unnecessary (FINDING; variants: other entry ranges)."""
    from lib.chapters.depth_width.theory import lemmas as lem
    from lib.core.claims import FINDING, THEOREM, Variant
    ok8 = lambda r: r["tested"] > 0 and r["strict"] == r["tested"]
    base, ctl = lem.lemma8_random(seed), lem.lemma8_random(seed, repeat=True)
    C.check("lemma8", "Lemma 8: for N different non-negative vectors and every σ ≠ id, Σ_i <v_i, v_σ(i)> < Σ_i |v_i|²",
            kind=THEOREM, paper="strict inequality (App. B.2)", ours=f"{base['strict']} of {base['tested']} (set, σ) pairs "
            "strict", ok=ok8(base), criterion="every pair strict, exact integer arithmetic",
            control=("two equal vectors in each set", ok8(ctl), f"{ctl['strict']} of {ctl['tested']} strict"))
    signed = lem.lemma8_random(seed, lo=-4)
    C.check("lemma8-signs", "Ours: Lemma 8 needs no non-negativity: Σ|v_i|² − Σ<v_i, v_σ(i)> = ½ Σ|v_i − v_σ(i)|² > 0 "
            "for any N different real vectors", kind=FINDING, paper="hypothesis v_j ≥ 0",
            ours=f"{signed['strict']} of {signed['tested']} strict with entries in [−4, 4]", ok=ok8(signed),
            criterion="every pair strict", variants=[Variant(f"entries in [{a}, {b}]", ok8(r), f"{r['strict']}/{r['tested']}")
                                                     for a, b in ((-1, 1), (-50, 50)) for r in [lem.lemma8_random(seed, lo=a, hi=b)]])


def appendix(C: Claims, seed: int) -> tuple[list, list, dict]:
    """Lemma 3 on its grid, Claim 1 on five (d_x, L, N) and Claim 2 on Lemma 6's block (computed here by
    :mod:`lib.chapters.depth_width.theory.lemmas`), their claims and a summary. Returns (lemma 3, claim 1, claim 2)."""
    from IPython.display import Markdown, display

    from lib.chapters.depth_width.theory import lemmas as lem
    lemma3 = lem.lemma3_grid()
    lemma3_claim(C, lemma3)
    claim1 = [lem.claim1_case(d, L, N, seed=seed) for d, L, N in [(2, 1, 2), (3, 1, 4), (2, 2, 2), (2, 2, 4), (2, 3, 2)]]
    claim1_claims(C, claim1)
    claim2 = lem.claim2_ranks(seed=seed)
    claim2_claim(C, claim2)
    lemma8_claims(C, seed)
    display(Markdown(
        "<details><summary>The counts behind Lemma 3 and Claim 2</summary>\n\n"
        f"Lemma 3: {sum(g['lhs'] <= g['rhs'] for g in lemma3)} of {len(lemma3)} tuples inside the bound, equality at all "
        f"{sum(g['balanced'] for g in lemma3)} balanced ones; the rounded-down alternative fails at "
        f"{sum(g['lhs'] > g['floor_alt'] for g in lemma3)}. Claim 2: Lemma 6's {claim2['size']} × {claim2['size']} block "
        f"($d_x={claim2['d_x']}$, $L={claim2['L']}$) has rank {claim2['rank0']} at the proof's point and ranks "
        f"{', '.join(map(str, claim2['ranks']))} at {len(claim2['ranks'])} random integer weights; with the ReLU gate, "
        f"{sum(r < claim2['rank0'] for r in claim2['gated'])} of the {len(claim2['gated'])} draws fall below it."
        "\n\n</details>"))
    C.lines()
    return lemma3, claim1, claim2
