"""Theorem 1 and Proposition 1 (Mahdavi et al. 2024, App. B), checked: the grid of constructions (:func:`grid`) and
its claims (:func:`theorem1`: exact fit, rank, vector labels, head ranks and the saturation scale of Claim 2, each with
its control), the construction against generic and data-adapted weights (:func:`generic`), the paper's sizes
(:func:`paper_size`) and Remark 1 (:func:`remark1`).
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.mha_memorization.figures import folded, say
from lib.chapters.mha_memorization.theory import construction as con
from lib.chapters.mha_memorization.theory import layer as mha
from lib.core.claims import FINDING, SANITY, THEOREM, Claims

T1_PAST = "T+1 examples sharing the context (d_h ≥ n), the constructed W_K, W_Q and a least-squares W_V"


def theorem1_claims(C: Claims, runs: list[dict], d: int) -> None:
    """Theorem 1 / Proposition 1 on the grid of constructions (rows of
    :func:`~lib.chapters.mha_memorization.theory.construction.memorize_check`, with ``plus`` =
    :func:`~lib.chapters.mha_memorization.theory.construction.past_capacity` on the shared runs with d_h ≥ n): the
    exact fit, the rank, the vector case, each with one example past capacity as its control."""
    N, plus = len(runs), [x for x in runs if "plus" in x]
    fit = lambda x: x["err"] <= 1e-8 * x["scale"]
    n_exact, worst = sum(fit(x) for x in runs), max(x["err"] / x["scale"] for x in runs)
    n_rank = sum(x["rankZ"] == x["T"] == x["bound"] for x in runs)
    p_exact = sum(x["plus"]["err"] <= 1e-8 for x in plus)
    p_rank = sum(x["plus"]["rankZ"] == x["T"] + 1 for x in plus)
    C.check("thm1-exact", "Theorem 1: T = H(min(n,d_h)-1)+1 examples with arbitrary labels are memorized exactly",
            paper="exact memorization", ours=f"{n_exact}/{N} constructions, max rel. error {worst:.0e}", kind=THEOREM,
            ok=n_exact == N, stable=False,
            criterion="|ŷ−y| ≤ 1e-8·max(1,|y|) in float64, fresh forward pass through lib.core.attention",
            control=(f"one example past capacity: {T1_PAST}", p_exact == len(plus),
                     f"{p_exact}/{len(plus)} fitted, smallest error {min(x['plus']['err'] for x in plus):.0e}"))
    C.check("prop1-rank", "Proposition 1: rank Z ≥ min(H(r−1)+1, T)", paper="rank Z ≥ H(r−1)+1", kind=THEOREM,
            ours=f"{n_rank}/{N} with rank Z = T", ok=n_rank == N, stable=True,
            criterion="numerical rank (σ > 1e-10 σ_max) = number of examples",
            control=(f"one example past capacity: {T1_PAST}", p_rank == len(plus), f"{p_rank}/{len(plus)} of rank T+1"))
    vec = [x for x in runs if x["d_out"] == d]
    vplus = [x for x in vec if "plus" in x]
    C.check("thm1-vector", "Case 3: d_h = d_v = d_out = d memorizes H(n−1)+1 examples with d-dimensional labels",
            kind=THEOREM, paper="Θ(Hd²) params, Ω(Hnd) reals", ours=f"{sum(fit(x) for x in vec)}/{len(vec)}",
            ok=all(fit(x) for x in vec), criterion="exact fit of every coordinate", stable=True,
            control=(f"one example past capacity, d-dimensional labels: {T1_PAST}",
                     all(x["plus"]["err"] <= 1e-8 for x in vplus),
                     f"{sum(x['plus']['err'] <= 1e-8 for x in vplus)}/{len(vplus)} fitted"))


def head_claims(C: Claims, runs: list[dict]) -> None:
    """App. B's head ranks (sanity: rank ≤ r holds by construction; control: the bound minus one, i.e. is r
    attained) and Claim 2's saturation at the c of our completed proof (sanity: the softmax tail bound guarantees it;
    control: c = 0, the Claim-1 weights alone). The smallest sufficient c of a fixed grid is printed beside it."""
    N = len(runs)
    head_ok = lambda x, cap: x["max_head_rank"] <= cap and x["factor_err"] <= 1e-10
    n_ok = sum(head_ok(x, min(x["n"], x["d_h"])) for x in runs)
    n_m1 = sum(head_ok(x, min(x["n"], x["d_h"]) - 1) for x in runs)
    C.check("prop1-dh", "App. B: every head matrix W_h = W* + c W+ of the construction has rank ≤ r = min(n, d_h), "
            "so d_h ≥ r suffices (W* has rank ≤ r − 1 and W+ rank one by construction: a check of the code)",
            paper="rank W_h ≤ r ≤ d_h", ours=f"{n_ok}/{N}", ok=n_ok == N, kind=SANITY,
            criterion="numerical rank of the unfactored W_h ≤ r, and ‖W_K W_Q^T − W_h‖/‖W_h‖ ≤ 1e-10 with d_h columns "
                      "(a head of higher rank is truncated when factored and fails here)", stable=True,
            control=("the bound minus one (is r attained?): rank ≤ r − 1", n_m1 == N, f"{n_m1}/{N}"))
    multi = [x for x in runs if x["c"]]             # constructions with at least one saturating head
    n_proof, n_grid = sum(x["sat_ok"] for x in multi), sum(x["c_found"] for x in multi)
    n_c0 = sum(x["c0_ok"] for x in multi)
    cs = [c for x in multi for c in x["c"]]
    loose = [c / g for x in multi for c, g in zip(x["c"], x["con"].c_grid, strict=False) if math.isfinite(g) and g > 0]
    print(f"Claim 2 at the c of our completed proof: within the proof's delta in {n_proof}/{len(multi)} constructions; "
          f"a c on the fixed grid 1, 10, ..., 1e12 reaches it in {n_grid}/{len(multi)} (the proof's c over the smallest "
          f"sufficient grid c: {min(loose):.1e} to {max(loose):.1e}); c = 0 reaches it in {n_c0}/{len(multi)}")
    C.check("claim2-saturation", "Claim 2 / Lemma 4 with the c of our completed proof (the paper gives no formula): "
            "each new head is δ-close to one-hot on the other examples", paper="∃ finite c",
            ours=f"{n_proof}/{len(multi)} at c from {min(cs):.1e} to {max(cs):.1e} (proof's c / smallest sufficient c of "
                 f"the grid 10^0..10^12: {min(loose):.1e} to {max(loose):.1e})",
            ok=n_proof == len(multi), kind=SANITY, stable=False,
            criterion="‖θ_h − one-hot‖₁ ≤ δ_h (the Weyl bound of App. B.2) on every non-responsible example at c = max_t "
                      "(spread_t + log(2(n−1)/δ_h)) / gap_t; the softmax tail bound 2(n−1)e^(spread − c·gap) guarantees "
                      "it, so this checks our derivation and its float64 evaluation (the earlier grid search up to "
                      "1e12 could fail only on tied logits)",
            control=("c = 0: the Claim-1 weights W* alone, no separator", n_c0 == len(multi), f"{n_c0}/{len(multi)}"))


# ---- the notebook's checks of Theorem 1 ---------------------------------------------------------------------
def grid(P: dict, rng: np.random.Generator, d: int) -> tuple[list[dict], list[tuple[int, int, int]]]:
    """Theorem 1's construction on every (H, n, d_h) of the grid ``con_*``, shared and per-example contexts, scalar and
    d-dimensional labels, T = H(min(n, d_h)−1)+1, checked by a fresh forward pass; with one example past capacity where
    the context is shared and d_h ≥ n. Prints the counts; returns (the runs, the (H, r, rank Z) rows of the figure)."""
    runs, rank_rows = [], []
    for H, n_c, d_h in [(H, m, k) for H in P["con_H"] for m in P["con_n"] for k in P["con_dh"]]:
        r = min(n_c, d_h)
        for shared in (True, False):
            for (d_v, d_out) in ((1, 1), (d, d)):
                for trial in range(P["con_trials"]):
                    T = H * (r - 1) + 1
                    E, e = mha.uniform_data(T, n_c, d, rng, shared=shared)
                    Y = rng.standard_normal((T, d_out))
                    res = con.memorize_check(E, e, Y, H, d_h, d_v, rng)
                    res.update(H=H, n=n_c, d_h=d_h, shared=shared, d_out=d_out)
                    if shared and d_h >= n_c:                 # one past capacity: rank Z <= H(n-1)+1 = T (Prop. 2)
                        res["plus"] = con.past_capacity(E, e, res["con"], rng, d_out)
                    runs.append(res)
                    if shared and d_out == 1 and trial == 0 and n_c == P["n"]:
                        rank_rows.append((H, r, res["rankZ"]))
    n_exact = sum(x["err"] <= 1e-8 * x["scale"] for x in runs)
    n_rank = sum(x["rankZ"] == x["T"] == x["bound"] for x in runs)
    n_headrank = sum(x["max_head_rank"] <= min(x["n"], x["d_h"]) and x["factor_err"] <= 1e-10 for x in runs)
    n_sat = sum(x["sat_ok"] for x in runs)
    plus = [x for x in runs if "plus" in x]
    n_plus_exact = sum(x["plus"]["err"] <= 1e-8 for x in plus)
    n_plus_rank = sum(x["plus"]["rankZ"] == x["T"] + 1 for x in plus)
    say(f"{len(runs)} constructions (H in {P['con_H']}, n in {P['con_n']}, d_h in {P['con_dh']}, shared/per-example "
        f"contexts, d_out in {{1, {d}}}, {P['con_trials']} datasets each), T = H(min(n,d_h)-1)+1 from "
        f"{min(x['T'] for x in runs)} to {max(x['T'] for x in runs)}")
    print(f"  exact fit |y_hat - y| <= 1e-8 max(1,|y|):        {n_exact}/{len(runs)}")
    print(f"  rank Z = T = H(r-1)+1:                            {n_rank}/{len(runs)}")
    print(f"  every W_h of rank <= min(n, d_h), factored:       {n_headrank}/{len(runs)}")
    print(f"  saturation within the proof's delta (Claim 2):    {n_sat}/{len(runs)}")
    say(f"one example past capacity (T+1 sharing the context, d_h >= n): rank Z = T+1 in {n_plus_rank}/{len(plus)}, "
        f"exact fit in {n_plus_exact}/{len(plus)}")
    return runs, rank_rows


def theorem1(C: Claims, runs: list[dict], d: int) -> None:
    """The grid's claims: :func:`theorem1_claims` (exact fit, rank, vector labels; control: one example past capacity)
    and :func:`head_claims` (head ranks, control: the bound minus one; Claim 2, control: c = 0)."""
    worst_err = max(x["err"] / x["scale"] for x in runs)
    say(f"largest relative interpolation error: {worst_err:.1e}; saturation scales c_h from "
        f"{min(min(x['c']) for x in runs if x['c']):.1e} to {max(max(x['c']) for x in runs if x['c']):.1e}")
    theorem1_claims(C, runs, d)
    head_claims(C, runs)
    C.lines()


def _needed(rows: list[dict], tol: float = 1e-10) -> bool:
    """Blind Gaussian K/Q fall short of rank T; the construction and the data-adapted rival (every draw) reach it."""
    return bool(rows) and all(g["A1"] == 1 and g["con_ok"] and g["con_rank"] == g["T"] and not g["gen_ok"]
                              and g["gen_rank"] < g["T"] and g["con_cond"] > tol and all(g["ada_ok"])
                              and min(g["ada_cond"]) > tol for g in rows)


def generic(C: Claims, P: dict, rng: np.random.Generator, d: int, n: int) -> dict:
    """``thm1-generic-suffices`` (uniform data) and ``thm1-construction-needed`` (queries clustered within ``gen_eps``):
    the construction against the best generic draw and a data-adapted rival, for every H of ``con_H`` with d_h = n.
    Returns the singular values of one generic draw on clustered queries (``s``, ``T``, ``sigma_cut``), for
    :func:`tolerance_note`."""
    gen_rows, printout = [], []
    for H in P["con_H"]:
        T = H * (n - 1) + 1
        for family in ("uniform", "clustered"):
            E, e = mha.uniform_data(T, n, d, rng)
            if family == "clustered":
                e = con.clustered_queries(T, d, P["gen_eps"], rng)
            Y = rng.standard_normal((T, 1))
            cr = con.memorize_check(E, e, Y, H, n, 1, rng)
            gen = con.generic_fit(E, e, Y, H, n, P["gen_scales"], P["gen_draws"], rng)
            _r = np.random.default_rng([P["seed"], 15, H, family == "clustered"])   # the rivals' own draws
            ada = con.adapted_fit(E, e, Y, H, n, 5, _r)
            Zc = mha.features(E, e, cr["con"].W_K, cr["con"].W_Q)
            Zg = mha.features(E, e, *mha.random_heads(H, d, n, 1.0, _r))
            a1 = mha.kruskal_test(e, n, 100, rng)[0]
            g = dict(H=H, T=T, family=family, A1=a1, con_rank=cr["rankZ"], gen_rank=gen["rankZ"],
                     con_ok=cr["err"] <= 1e-8 * cr["scale"], gen_ok=gen["err"] <= 1e-8,
                     ada_rank=[a["rankZ"] for a in ada], ada_ok=[a["err"] <= 1e-8 for a in ada],
                     ada_cond=[a["cond"] for a in ada], con_cond=con.conditioning(Zc, T),
                     gen_tol={t: mha.num_rank(Zg, t) == T for t in (1e-8, 1e-6)})
            gen_rows.append(g)
            printout.append(f"{family:9s} H={H} T={T:3d}: A1 {a1:.2f}; construction rank {cr['rankZ']:3d}, exact fit "
                            f"{g['con_ok']}; best generic rank {gen['rankZ']:3d}, exact fit {g['gen_ok']}; data-adapted "
                            f"rival rank {min(g['ada_rank'])}–{max(g['ada_rank'])} in 5 draws (σ_T/σ_1 ≥ "
                            f"{min(g['ada_cond']):.0e}; construction {g['con_cond']:.0e})")
    folded("Each case: the construction, the best generic draw and the data-adapted rival", printout)
    uni = [g for g in gen_rows if g["family"] == "uniform"]
    C.check("thm1-generic-suffices", "Observation: on the uniform data of the grid, generic key/query weights plus the "
            "least-squares value step also memorize T = H(n−1)+1 exactly (so the grid cannot tell the construction from "
            "chance)", paper="(not discussed)", ours=f"{sum(g['gen_ok'] for g in uni)}/{len(uni)}",
            ok=all(g["gen_ok"] and g["con_ok"] for g in uni),
            kind=FINDING, criterion="|ŷ−y| ≤ 1e-8·max(1,|y|) for the best generic draw", stable=True,
            variants=[(f"numerical rank at relative tolerance {t:g} (generic rank = T)", all(g["gen_tol"][t] for g in uni),
                       f"{sum(g['gen_tol'][t] for g in uni)}/{len(uni)}") for t in (1e-8, 1e-6)])
    rng_tol = np.random.default_rng(P["seed"] + 15)      # its own generator: the chapter's rng stream is unchanged
    Et, _ = mha.uniform_data(max(P["con_H"]) * (n - 1) + 1, n, d, rng_tol)
    et = con.clustered_queries(len(Et), d, P["gen_eps"], rng_tol)
    s_tol = mha.singular_values(mha.features(Et, et, *mha.random_heads(max(P["con_H"]), d, n, 1.0, rng_tol)))
    sigma_cut = float(s_tol[d + 1] / s_tol[0]) if len(s_tol) > d + 1 else float("nan")
    clu = [g for g in gen_rows if g["family"] == "clustered"]
    far, near = [g for g in clu if g["T"] > d + 1], [g for g in clu if g["T"] <= d + 1]
    if far:
        C.check("thm1-construction-needed", f"Observation: with a shared context and queries clustered within ε = "
                f"{P['gen_eps']:g} (Assumptions 1–2 hold), data-blind Gaussian key/query weights at every scale tried "
                "fall short of rank T once T > d+1; what is needed is adapting to the query cluster, not the "
                "construction: a cheap rival (W_Q centred on the mean query, scaled by 1/spread) reaches rank T like "
                "the construction, with a smaller σ_T/σ_1", paper="(not discussed)", kind=FINDING, stable=False,
                ours="; ".join(f"H={g['H']}: generic rank {g['gen_rank']}, adapted rival {min(g['ada_rank'])} "
                               f"(σ_T/σ_1 ≥ {min(g['ada_cond']):.0e}), construction {g['con_rank']} = T "
                               f"(σ_T/σ_1 {g['con_cond']:.0e})" for g in far),
                ok=_needed(far), criterion="construction and every draw of the adapted rival: rank T, exact fit, "
                f"σ_T/σ_1 > 1e-10; best generic draw: rank < T and no exact fit; rank = numerical rank at relative "
                f"tolerance 1e-10 (a generic draw at scale 1 on clustered queries: σ_{d + 2}/σ_1 = {sigma_cut:.0e})",
                variants=[(f"rank read at relative tolerance {t:g}", _needed(far, t)) for t in (1e-8, 1e-6)],
                control=("the same comparison at T ≤ d+1 (first order in ε suffices)", _needed(near),
                         "; ".join(f"H={g['H']}: generic rank {g['gen_rank']}" for g in near) or "no such H"))
    else:
        C.not_run("thm1-construction-needed", "Observation: generic weights fall short on clustered queries once "
                  "T > d+1", paper="(not discussed)", kind=FINDING, reason="no H of con_H has H(n−1)+1 > d+1 at this "
                  "preset")
    C.lines()
    return dict(s=s_tol, T=len(Et), sigma_cut=sigma_cut)


def tolerance_note(tol: dict, P: dict, d: int) -> None:
    """Print where the rank tolerance 1e-10 cuts the spectrum of one generic draw on clustered queries."""
    s = tol["s"]
    if len(s) > d + 1:
        say(f"numerical rank at relative tolerance 1e-10, a generic draw at scale 1 on clustered queries (H = "
            f"{max(P['con_H'])}, T = {tol['T']}, eps = {P['gen_eps']:g}): sigma_{d + 1}/sigma_1 = {s[d] / s[0]:.0e}, "
            f"sigma_{d + 2}/sigma_1 = {tol['sigma_cut']:.0e}; rank counted {int((s > 1e-10 * s[0]).sum())} (d+1 = {d + 1})")
    else:
        print(f"T = {tol['T']} ≤ d + 1 at this preset: no singular value beyond σ_{d + 1} to show")


def paper_size(C: Claims, P: dict, rng: np.random.Generator) -> None:
    """``thm1-paper-size``: the construction at the paper's d = 64, n = d_h = 32 (``con_big_*``), T = H(n−1)+1; control:
    one example more sharing the context. Random K/Q ranks are printed beside it."""
    big, lines, (Db, nbig) = [], [], (P["con_big_d"], P["con_big_n"])
    for H in P["con_big_H"]:
        T = H * (nbig - 1) + 1
        E, e = mha.uniform_data(T, nbig, Db, rng)
        res = con.memorize_check(E, e, rng.standard_normal((T, 1)), H, nbig, 1, rng)
        pc = con.past_capacity(E, e, res["con"], rng)
        Zr = mha.features(E, e, *mha.random_heads(H, Db, nbig, 1.0, np.random.default_rng([P["seed"], 18, H])))
        big.append(dict(H=H, T=T, rank=res["rankZ"], ok=res["err"] <= 1e-8 * res["scale"], rank1=pc["rankZ"],
                        ok1=pc["err"] <= 1e-8, rank_rand=mha.num_rank(Zr)))
        lines.append(f"d={Db}, n=d_h={nbig}, H={H}: T={T}, rank Z = {res['rankZ']}, exact fit {big[-1]['ok']}; "
                     f"T+1 sharing the context: rank {pc['rankZ']}, exact fit {big[-1]['ok1']}; random K/Q (scale 1): "
                     f"rank {big[-1]['rank_rand']}")
    folded("Each H: the construction, one example more, and random key/query weights", lines)
    if all(b["rank_rand"] == b["T"] for b in big):
        say("random key/query weights reach rank T at every H too: at these sizes this check cannot tell the "
            "construction from chance; it checks the count H(n−1)+1 (its control: one example more)")
    C.check("thm1-paper-size", f"Theorem 1 at the paper's sizes (d = {Db}, n = d_h = {nbig}): T = H(n−1)+1 examples "
            "memorized exactly", paper="T = H(n−1)+1", kind=THEOREM, stable=True,
            ours="; ".join(f"H={b['H']}: rank {b['rank']} = T" for b in big),
            ok=all(b["rank"] == b["T"] and b["ok"] for b in big),
            criterion="rank Z = number of examples and |ŷ−y| ≤ 1e-8·max(1,|y|)",
            control=("one example past capacity: T+1 examples sharing the context",
                     all(b["rank1"] == b["T"] + 1 and b["ok1"] for b in big),
                     "; ".join(f"H={b['H']}: rank {b['rank1']}" for b in big)))
    C.lines()


def remark1(C: Claims, P: dict, rng: np.random.Generator, d: int, n: int) -> None:
    """``remark1``: queries of exact Kruskal rank Q < n, the construction with r = min(Q, d_h); control: r = Q + 1, one
    more than the remark allows (its own generator, so that the page's later draws stay put)."""
    rem_rows, rem_ctl = [], []
    rng_ctl = np.random.default_rng([P["seed"], 1])
    for Q in P["remark1_Q"]:
        H = max(P["con_H"])
        T = H * (min(Q, d) - 1) + 1
        E, e = mha.uniform_data(T, n, d, rng, Q=Q)
        kr = mha.kruskal_rank(e)
        res = con.memorize_check(E, e, rng.standard_normal((T, 1)), H, d, 1, rng, Q=Q)
        rem_rows.append((Q, kr, T, res["rankZ"], res["err"] <= 1e-8 * res["scale"]))
        T_ = H * Q + 1             # control: the construction with r = Q+1 on queries of Kruskal rank Q (rank checked)
        E_, e_ = mha.uniform_data(T_, n, d, rng_ctl, Q=Q)
        res_ = con.memorize_check(E_, e_, rng_ctl.standard_normal((T_, 1)), H, d, 1, rng_ctl, Q=Q + 1)
        rem_ctl.append((Q, mha.num_rank(e_), T_, res_["rankZ"], res_["err"] <= 1e-8 * res_["scale"]))
        print(f"Q={Q}: Kruskal rank of the {T} queries = {kr}; rank Z = {res['rankZ']}; exact fit: "
              f"{res['err'] <= 1e-8 * res['scale']}")
    C.check("remark1", "Remark 1: with query Kruskal rank Q < n, H(min(Q,d_h)−1)+1 examples are memorized",
            paper="T ≤ H(min(Q,d_h)−1)+1", ours="; ".join(f"Q={q}: T={t}" for q, _, t, _, _ in rem_rows),
            ok=all(kr == q and rz == t and ok for q, kr, t, rz, ok in rem_rows),
            criterion="exact Kruskal rank = Q, rank Z = T, |ŷ−y| ≤ 1e-8", stable=True, kind=THEOREM,
            control=("one more than Remark 1 allows: T = HQ + 1 (the construction run with r = Q+1)",
                     all(kr == q and rz == t and ok for q, kr, t, rz, ok in rem_ctl),
                     "; ".join(f"Q={q}: rank {rz} < T={t}" if rz < t else f"Q={q}: rank {rz}"
                               for q, _, t, rz, _ in rem_ctl)))
    C.lines()
