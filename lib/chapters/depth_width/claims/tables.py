"""Claims of section 5 (depth-width): the paper's fit of its transition widths (Table 4), eq. 10's projections,
Tables 1-3 (the fit and the paper's tables themselves: :mod:`~.fit`).

The fit and projections are the paper's experimental analysis recomputed from its own published data; they are
``experiment`` claims with the scale of the paper's data and a control: the closest wrong analysis a reader
might suspect the paper used (an unweighted fit, the full-distance error bars the text describes, the fit's
rounded coefficients under a tolerance of half a unit of the printed digit, error propagation without the
covariance). Table 1's rows are arithmetic from the paper's own fit (``sanity``); its inconsistencies are
``finding`` claims.
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.depth_width.claims import fit as F
from lib.chapters.depth_width.theory.bounds import log3
from lib.core.claims import EXPERIMENT, FINDING, Claims, Scale, Variant


DATA_SCALE = Scale(ours="recomputed from the paper's Table 4 (5 transition points)",
                   paper="≈190 trained LMs, depths 6–48, 1e6–6e8 parameters")
MIN_LM_STEPS = 200     # below this the models have not left the unigram phase: no LM comparison means anything


def printed(ours: float, paper: float, unit: float) -> list[Variant]:
    """The two conventions a printed number may follow, as variants: ours rounded, and ours truncated, to the
    paper's last printed digit (``unit``) must give the printed value."""
    r, t = round(ours / unit), math.trunc(ours / unit)
    p = round(paper / unit)
    return [Variant("ours rounded to the printed digits", r == p, f"{r * unit:.6g}"),
            Variant("ours truncated to the printed digits", t == p, f"{t * unit:.6g}")]


def _loo_table4() -> dict[str, F.Fit]:
    """The fit with each Table 4 row left out (4 points each)."""
    out = {}
    for i, (Li, _, _) in enumerate(F.TABLE4):
        rows = [r for j, r in enumerate(F.TABLE4) if j != i]
        out[f"drop Table 4's L = {Li}"] = F.weighted_fit([r[0] for r in rows], np.log([r[1] for r in rows]),
                                                          [r[2] / r[1] for r in rows])
    return out


def _half_unit(x: float) -> float:
    """Half a unit of the last digit of a number printed to 3 significant digits (1.17e12 → 5e9)."""
    return 0.5 * 10 ** (math.floor(math.log10(abs(x))) - 2)


def fit_claims(C: Claims, fit: F.Fit) -> None:
    """Eq. 11 recomputed (controls: the unweighted fit for a, b, R²; the full-distance errors for σ's and χ²)."""
    L = np.array([r[0] for r in F.TABLE4], float)
    y = np.log([r[1] for r in F.TABLE4])
    sig = np.array([r[2] / r[1] for r in F.TABLE4])
    unw = F.weighted_fit(L, y, np.full(5, float(sig.mean())))
    full = F.weighted_fit(L, y, 2 * sig)
    kw = dict(kind=EXPERIMENT, scale=DATA_SCALE)
    C.close("fit-a", "Fit intercept a (eq. 11)", paper=5.039, ours=fit.a, atol=1e-3, fmt=".4f",
            control=("the unweighted fit", unw.a), variants=printed(fit.a, 5.039, 1e-3), **kw)
    C.close("fit-b", "Fit slope b (eq. 11)", paper=0.0555, ours=fit.b, atol=1e-4, fmt=".5f",
            control=("the unweighted fit", unw.b), variants=printed(fit.b, 0.0555, 1e-4), **kw)
    ctl = "errors = the full distance between the two widths (the text's convention)"
    C.close("fit-sa", "σ_a", paper=0.030, ours=fit.sa, atol=1e-3, fmt=".4f", control=(ctl, full.sa),
            variants=printed(fit.sa, 0.030, 1e-3), **kw)
    C.close("fit-sb", "σ_b", paper=1.3e-3, ours=fit.sb, atol=5e-5, fmt=".2e", control=(ctl, full.sb),
            variants=printed(fit.sb, 1.3e-3, 1e-4), **kw)
    C.close("fit-cov", "σ_ab (eq. 11)", paper=-3.74e-5, ours=fit.cov[0, 1], atol=2e-7, fmt=".3e",
            control=(ctl, full.cov[0, 1]), variants=printed(fit.cov[0, 1], -3.74e-5, 1e-7), **kw)
    C.close("fit-chi2", "χ²_red = 0.854", paper=0.854, ours=fit.chi2_red, atol=2e-3, fmt=".4f",
            control=(ctl, full.chi2_red), variants=printed(fit.chi2_red, 0.854, 1e-3), **kw)
    C.close("fit-R2", "R² = 0.998 (standard weighted R²)", paper=0.998, ours=fit.R2, atol=1e-3, fmt=".4f",
            control=("the unweighted fit's R²", unw.R2), variants=printed(fit.R2, 0.998, 1e-3), **kw)
    logs_ok = all(abs(round(math.log(d), 2) - v) < 1e-9 for (_, d, _), v in zip(F.TABLE4, F.TABLE4B_LOG, strict=True))
    dlog_ok = all(abs(dd / d - v) <= 0.006 * v for (_, d, dd), v in zip(F.TABLE4, F.TABLE4B_DLOG, strict=True))
    C.sanity("table4b", "Table 4(b): ln d_x and Δ(ln d_x) = Δd_x/d_x as printed, from Table 4(a)",
             paper="5.37 … 6.71; 2.80e-2 … 1.94e-2", ours="recomputed from Table 4(a)", ok=logs_ok and dlog_ok,
             criterion="ln to 2 decimals; Δ within its 3 printed digits")
    C.check("fit-R2-eq59", "Eq. 59 as printed (ȳ = (1/n) Σ y_i/σ_i²) does not give the reported R² = 0.998; the "
            "standard weighted mean does", kind=FINDING, paper="0.998", ours=f"{fit.R2_paper_formula:.6f}",
            ok=abs(fit.R2_paper_formula - 0.998) > 1e-3 and abs(fit.R2 - 0.998) <= 1e-3,
            criterion="eq. 59's R² misses 0.998 by > 1e-3, the weighted mean's is within it", stable=True,
            variants=[Variant("errors = the full distance (the text's convention)",
                              abs(full.R2_paper_formula - 0.998) > 1e-3 and abs(full.R2 - 0.998) <= 1e-3,
                              f"{full.R2_paper_formula:.6f} vs {full.R2:.4f}")])


def errorbar_claim(C: Claims) -> list[dict]:
    """Search Table 2 for the width pair behind each transition (finding: the errors are half the distance)."""
    found = [F.transition_pairs(L, d, dd) for L, d, dd in F.TABLE4]
    C.check("errorbars-half", "Sec. 5.2.2 says the error is 'the distance between the two points'; the numbers use "
            "half of it: searching Table 2 at each depth, every row has a pair of trained widths at d_x ± Δd_x and none "
            "at d_x ± Δd_x/2", kind=FINDING, paper="Δd_x = distance",
            ours="; ".join(f"L={f['L']}: {f['half'][0] if f['half'] else 'none'}"
                           f"{'' if f['adjacent'] else ' (not adjacent: ' + ', '.join(map(str, f['between'][0])) + ' between)' if f['half'] else ''}"
                           for f in found),
            ok=all(f["half"] and not f["full"] for f in found),
            criterion="a half-distance pair in Table 2 for every row, no full-distance pair",
            variants=[Variant("pairs whose mean or distance is off by up to 1 (the printed numbers' rounding)",
                              *_pairs_near(1))])
    return found


def _pairs_near(tol: int) -> tuple[bool, str]:
    """errorbars-half with a tolerance: pairs (a, b) of Table 2 widths with |a + b − 2d| ≤ 2 tol and the distance
    within tol of 2Δd (half-distance reading) or of Δd (full-distance reading)."""
    ok, n_half, n_full = True, 0, 0
    for L, d, dd in F.TABLE4:
        ws = sorted(set(F.TABLE2[L]))
        pr = [(a, b) for a in ws for b in ws if a < b and abs(a + b - 2 * d) <= 2 * tol]
        h = [q for q in pr if abs(q[1] - q[0] - 2 * dd) <= tol]
        f = [q for q in pr if abs(q[1] - q[0] - dd) <= tol]
        n_half, n_full = n_half + bool(h), n_full + bool(f)
        ok &= bool(h) and not f
    return ok, f"half-distance pair in {n_half}/5 rows, full-distance in {n_full}/5"


def table1_claims(C: Claims, rows1: list[dict], rows1_total: list[dict]) -> None:
    for r in rows1:
        rel = abs(r["d_at_Lpaper"] - r["d_paper"]) / r["d_paper"]
        C.sanity(f"table1-{r['size']}", f"Table 1, {r['name']}: depth and width from eq. 10 with the fit",
                 paper=f"L={r['L_paper']}, d_x={r['d_paper']}", ours=f"L*={r['L_star']:.2f}, d_x={r['d_at_Lpaper']:.0f}",
                 ok=abs(r["L_star"] - r["L_paper"]) < 1 and rel < 5e-3,
                 criterion="|L* − L| < 1 and width within 0.5% (3 printed digits)")
    pf = F.PAPER_FIT
    p_rows, p_total = F.table1_rows(pf["a"], pf["b"]), F.table1_rows(pf["a"], pf["b"], use_printed_size=True)

    def only_large(rs: list[dict], tot: list[dict]) -> tuple[bool, str]:
        mm = [r for r in rs if r["L_round"] != r["L_paper"]]
        lg = next(t for t in tot if t["size"] == "760M")
        return ([r["size"] for r in mm] == ["760M"] and round(lg["L_star"]) == 38,
                f"rows off: {', '.join(r['name'] for r in mm) or 'none'}; L*(760M) = {lg['L_star']:.2f}")
    mism = [r for r in rows1 if r["L_round"] != r["L_paper"]]
    large = next(t for t in rows1_total if t["size"] == "760M")
    L_printed = F.optimal_depth(760e6, F.PAPER_FIT["a"], F.PAPER_FIT["b"])
    C.check("table1-rounding", "Table 1 rounds GPT-3 Large's L* up (every other row to the nearest integer); the "
            "printed total size 760M, used in place of 12Ld², gives an L* that rounds to the printed 38, the likely "
            "source", kind=FINDING,
            paper="L column", ours="; ".join(f"{r['name']}: L* = {r['L_star']:.2f} → paper {r['L_paper']}" for r in mism)
            + f"; from 760M: L* = {large['L_star']:.2f} (unrounded fit), {L_printed:.2f} (printed a, b)",
            ok=[r["size"] for r in mism] == ["760M"] and round(large["L_star"]) == 38,
            criterion="the only row off round(L*) is Large, and round(L*(760M)) = 38",
            variants=[Variant("the printed a = 5.039, b = 0.0555 in place of our unrounded fit", *only_large(p_rows, p_total))])
    def one_truncated(rs: list[dict], size3: bool = False) -> tuple[bool, str]:
        d = {r["name"]: math.sqrt(F.sig_round(r["N"], 3) / (12 * r["L_paper"])) if size3 else r["d_at_Lpaper"] for r in rs}
        w = [r for r in rs if F.sig_round(d[r["name"]], 3) != F.sig_round(r["d_paper"], 3)]
        return (len(w) == 1 and math.floor(d[w[0]["name"]]) == w[0]["d_paper"],
                "; ".join(f"{r['name']}: {d[r['name']]:.1f} → paper {r['d_paper']}" for r in w) or "all rows")
    wid = [r for r in rows1 if F.sig_round(r["d_at_Lpaper"], 3) != F.sig_round(r["d_paper"], 3)]
    C.check("table1-width-rounding", "Table 1's widths are sqrt(N/(12L)) rounded to 3 significant digits, except one "
            "row truncated", kind=FINDING, paper="d_x column",
            ours="; ".join(f"{r['name']}: {r['d_at_Lpaper']:.1f} → paper {r['d_paper']}" for r in wid) or "all rows",
            ok=len(wid) == 1 and math.floor(wid[0]["d_at_Lpaper"]) == wid[0]["d_paper"],
            criterion="exactly one row differs from 3-digit rounding, and it is the truncation",
            variants=[Variant("the size 12Ld² rounded to 3 significant digits before the width is taken",
                              *one_truncated(rows1, size3=True))])
    C.check("table1-nonembedding", "Table 1 uses non-embedding sizes 12Ld², not the printed totals", kind=FINDING,
            paper="'Size in params' column", ours=f"printed totals give L* = {rows1_total[0]['L_star']:.2f} for Small (paper 23)",
            ok=round(rows1_total[0]["L_star"]) != 23 and round(rows1[0]["L_star"]) == 23,
            criterion="non-embedding size reproduces the row, the printed total does not",
            variants=[Variant("the printed a = 5.039, b = 0.0555 in place of our unrounded fit",
                              round(p_total[0]["L_star"]) != 23 and round(p_rows[0]["L_star"]) == 23,
                              f"{p_total[0]['L_star']:.2f} vs {p_rows[0]['L_star']:.2f}"),
                      Variant("every row, not only Small: the non-embedding size reproduces more printed depths than the "
                              "printed totals", sum(round(r["L_star"]) == r["L_paper"] for r in rows1)
                              > sum(round(t["L_star"]) == t["L_paper"] for t in rows1_total),
                              f"{sum(round(r['L_star']) == r['L_paper'] for r in rows1)} vs "
                              f"{sum(round(t['L_star']) == t['L_paper'] for t in rows1_total)} of {len(rows1)} rows")])


def projection_claims(C: Claims, fit: F.Fit, rows1: list[dict]) -> dict:
    """Eq. 10's projections from the unrounded fit, within half a unit of the printed digit; controls: the
    rounded coefficients (N_tr), propagation without the covariance (ΔN_tr), sqrt(N/12L) for the 1T width."""
    pf = F.PAPER_FIT
    a, b, _cov = fit.a, fit.b, fit.cov
    cov_p = np.array([[pf["var_a"], pf["cov_ab"]], [pf["cov_ab"], pf["var_b"]]])
    nocov = np.diag(np.diag(cov_p))
    v = dict(N96=float(F.n_transition(96, a, b)), N80=float(F.n_transition(80, a, b)),
             N96r=float(F.n_transition(96, pf["a"], pf["b"])), N80r=float(F.n_transition(80, pf["a"], pf["b"])),
             dN96=float(F.dn_transition(96, pf["a"], pf["b"], cov_p)), dN80=float(F.dn_transition(80, pf["a"], pf["b"], cov_p)),
             dN96n=float(F.dn_transition(96, pf["a"], pf["b"], nocov)), dN80n=float(F.dn_transition(80, pf["a"], pf["b"], nocov)),
             rel100=float(F.dn_transition(100, pf["a"], pf["b"], cov_p) / F.n_transition(100, pf["a"], pf["b"])),
             rel100n=float(F.dn_transition(100, pf["a"], pf["b"], nocov) / F.n_transition(100, pf["a"], pf["b"])),
             L1T=F.optimal_depth(1e12, a, b))
    v["d1T"] = math.exp(a + b * round(v["L1T"]))
    v["d1T_size"] = math.sqrt(1e12 / (12 * round(v["L1T"])))
    kw = dict(kind=EXPERIMENT, scale=DATA_SCALE, fmt=".4g")
    rnd = "the fit's rounded coefficients a = 5.039, b = 0.0555"
    fc = _cov
    C.close("ntr96", "N_tr(96) = 1.17e12 (GPT-3's depth needs > 1T parameters), from the unrounded fit", paper=1.17e12,
            ours=v["N96"], atol=_half_unit(1.17e12), control=(rnd, v["N96r"]),
            variants=[printed(v["N96"], 1.17e12, 1e10)[1]], **kw)
    C.close("ntr80", "N_tr(80) = 1.65e11: the optimal depth for 175B is 80, from the unrounded fit", paper=1.65e11,
            ours=v["N80"], atol=_half_unit(1.65e11), control=(rnd, v["N80r"]),
            variants=[printed(v["N80"], 1.65e11, 1e9)[1]], **kw)
    nc = "propagation without the a–b covariance"
    own = "our fit's a, b and covariance in place of the printed ones"
    C.close("dntr96", "ΔN_tr(96) = 0.23e12 (printed a, b and covariance)", paper=0.23e12, ours=v["dN96"],
            atol=5e9, control=(nc, v["dN96n"]), variants=[printed(v["dN96"], 0.23e12, 1e10)[1],
                                                          (own, float(F.dn_transition(96, a, b, fc)))], **kw)
    C.close("dntr80", "ΔN_tr(80) = 0.25e11 (printed a, b and covariance)", paper=0.25e11, ours=v["dN80"],
            atol=5e8, control=(nc, v["dN80n"]), variants=[printed(v["dN80"], 0.25e11, 1e9)[1],
                                                          (own, float(F.dn_transition(80, a, b, fc)))], **kw)
    C.close("rel100", "ΔN_tr/N_tr at L = 100 is 0.2", paper=0.2, ours=v["rel100"], atol=0.05,
            control=(nc, v["rel100n"]), variants=[printed(v["rel100"], 0.2, 0.1)[1], (
                own, float(F.dn_transition(100, a, b, fc) / F.n_transition(100, a, b)))], **kw)
    loo = _loo_table4()
    fits = dict(loo, **{"the printed a = 5.039, b = 0.0555 (printed covariance)": None})

    def too_deep(f) -> tuple[bool, str]:
        aa, bb, cc = (pf["a"], pf["b"], cov_p) if f is None else (f.a, f.b, f.cov)
        band = float(F.n_transition(96, aa, bb)) - float(F.dn_transition(96, aa, bb, cc))
        return rows1[-1]["N"] < band, f"N_tr(96) − ΔN = {band:.3g}"

    def too_shallow(f) -> tuple[bool, str]:
        aa, bb = (pf["a"], pf["b"]) if f is None else (f.a, f.b)
        n = sum(F.optimal_depth(r["N"], aa, bb) > r["L"] for r in rows1[:-1])
        return n == 7, f"{n}/7"
    big = rows1[-1]
    C.check("gpt3-175b-too-deep", "GPT-3-175B (L = 96) is too deep for its size", paper="too deep (L* = 80)",
            ours=f"N = {big['N']:.3g} < N_tr(96) − ΔN = {v['N96'] - v['dN96']:.3g}", ok=big["N"] < v["N96"] - v["dN96"],
            criterion="size below the transition band at the trained depth", kind=EXPERIMENT, scale=DATA_SCALE, stable=False,
            control=("the suggested depth L = 80 in place of 96", big["N"] < v["N80"] - v["dN80"],
                     f"N_tr(80) − ΔN = {v['N80'] - v['dN80']:.3g}"),
            variants=[Variant(k, *too_deep(f)) for k, f in fits.items()])
    shallow = [r for r in rows1[:-1] if r["L_star"] > r["L"]]
    C.check("gpt3-small-too-shallow", "GPT-3 models up to 13B are too shallow for their size", paper="generally too shallow",
            ours=f"{len(shallow)}/7 have L* > L", ok=len(shallow) == 7, criterion="L* > trained L for every row",
            kind=EXPERIMENT, scale=DATA_SCALE, stable=False,
            control=("the same criterion on GPT-3-175B", big["L_star"] > big["L"], f"L* = {big['L_star']:.1f} vs 96"),
            variants=[Variant(k, *too_shallow(f)) for k, f in fits.items()])
    C.check("one-trillion", "The optimal 1T-parameter model has L = 95 and d_x ≈ 30,100 (unrounded fit)",
            paper="L = 95, d_x = 30100", ours=f"L = {round(v['L1T'])}, d_x = {v['d1T']:.0f}",
            ok=round(v["L1T"]) == 95 and abs(v["d1T"] - 30100) <= 50,
            criterion="round(L*) = 95 and e^(a+95b) within 50 of 30,100 (3 printed digits)", kind=EXPERIMENT,
            scale=DATA_SCALE, stable=False,
            control=("the width sqrt(N/(12L)) at L = 95 (Table 1's convention)",
                     round(v["L1T"]) == 95 and abs(v["d1T_size"] - 30100) <= 50, f"{v['d1T_size']:.0f}"),
            variants=[Variant("the printed a = 5.039, b = 0.0555",
                              round(F.optimal_depth(1e12, pf["a"], pf["b"])) == 95
                              and abs(math.exp(pf["a"] + pf["b"] * 95) - 30100) <= 50,
                              f"L = {round(F.optimal_depth(1e12, pf['a'], pf['b']))}, "
                              f"d_x = {math.exp(pf['a'] + pf['b'] * 95):.0f}")])
    gap = [(L, d, log3(d)) for L, d, _ in F.TABLE4]
    C.check("fit-vs-theory", "Ours: the fitted transition depths lie far above the theory's L = log3 d_x", kind=FINDING,
            paper="'exponential dependence … as predicted'",
            ours=", ".join(f"L={L}: log3 d_x={t:.1f}" for L, d, t in gap) + f"; e^b = {math.exp(b):.3f} per layer vs 3",
            ok=all(L > t for L, d, t in gap) and math.exp(b) < 1.5,
            criterion="every transition has L > log3 d_x, and e^b < 1.5 (theory: 3)",
            variants=[Variant(k, all(L > t for L, d, t in gap) and math.exp(f.b) < 1.5, f"e^b = {math.exp(f.b):.3f}")
                      for k, f in loo.items()]
            + [Variant("e^b at the fit's 3σ upper edge", all(L > t for L, d, t in gap) and math.exp(b + 3 * fit.sb) < 1.5,
                       f"{math.exp(b + 3 * fit.sb):.3f}")])
    return v


def table2_claim(C: Claims) -> list[tuple]:
    """Table 2's suspect rows (finding): their size spread against that of the rows spanning every depth."""
    full = max(F.size_spread(r) for r in F.TABLE2_FULL_ROWS)
    rows = [(r, F.size_spread(r), [(L, ref, round(F.equal_size_width(r, L, ref))) for ref in r for L in r
                                   if L != ref and (ref == min(r) or len(r) == 2)])
            for r in F.TABLE2_SUSPECT_ROWS]
    C.check("table2-anomalies", "Three rows of Table 2 look corrupted: within each row the networks should have about "
            "equal size 12Ld², but these rows spread far more than the rows spanning every depth", kind=FINDING,
            paper="rows of ≈ equal size", ours=f"spread of the full rows ≤ {full:.0%}; suspect rows: " + "; ".join(
                f"{' '.join(f'L{L}:{d}' for L, d in r.items())} spread {s:.0%} (equal size: "
                f"{', '.join(f'L{L}≈{w} (from L{ref})' for L, ref, w in eq)})" for r, s, eq in rows),
            ok=all(s > 2 * full for _, s, _ in rows), criterion="each suspect row spreads > twice the full rows' maximum",
            variants=[Variant(f"> {k:g} × the full rows' maximum", all(s > k * full for _, s, _ in rows),
                              f"smallest suspect spread {min(s for _, s, _ in rows) / full:.1f} ×") for k in (1.5, 3)])
    return rows


def table3_claim(C: Claims) -> list[tuple]:
    """Table 3's widths against Table 2's (finding): a width with a reported standard deviation should be one that
    was trained. Returns (L, width, nearest Table 2 width) for each width Table 2 lacks."""
    missing = [(L, w, min(F.TABLE2[L], key=lambda t: abs(t - w))) for L, ws in F.TABLE3.items() for w in ws
               if w not in F.TABLE2[L]]
    n = sum(len(ws) for ws in F.TABLE3.values())
    C.check("table3-width", "Table 3 reports a standard deviation for a width that Table 2 does not list", kind=FINDING,
            paper="Table 3 widths ⊂ Table 2 widths (implied)",
            ours=f"{n - len(missing)}/{n} Table 3 widths are in Table 2; not listed: "
                 + ", ".join(f"L = {L}, d_x = {w} (nearest trained: {t})" for L, w, t in missing),
            ok=bool(missing), criterion="some Table 3 width is absent from Table 2's column of the same depth",
            variants=[Variant("a Table 2 width within 1% counts as listed (a rounded label)",
                              any(all(abs(t - w) > 0.01 * w for t in F.TABLE2[L]) for L, w, _ in missing),
                              ", ".join(f"{w}: nearest {t} ({abs(t - w) / w:.1%})" for L, w, t in missing))])
    return missing


# ---------------------------------------------------------------------------------------------
# what the page calls: each computes the criterion's inputs, records the claims, prints their verdict lines
# ---------------------------------------------------------------------------------------------
def table4(C: Claims, fit: F.Fit) -> list[dict]:
    """Table 4's fit against the paper's (:func:`fit_claims`) and its error bars against Table 2
    (:func:`errorbar_claim`, returned)."""
    fit_claims(C, fit)
    found = errorbar_claim(C)
    C.lines()
    return found


def tables23(C: Claims, found: list[dict]) -> list[tuple]:
    """Tables 2 and 3 (:func:`table2_claim`, :func:`table3_claim`), with the suspect rows of Table 2 and the entries
    that break the ascending order of their column; ``found``: :func:`table4`'s error bars. Returns Table 2's
    suspect rows."""
    from IPython.display import Markdown, display

    from lib.chapters.depth_width.figures import md_table
    t2 = table2_claim(C)
    md_table([(" ".join(f"L={L}: {d}" for L, d in r.items()), f"{s:.0%}",
               ", ".join(f"L={L} ≈ {w} (from L={ref})" for L, ref, w in eq)) for r, s, eq in t2],
             ["suspect row of Table 2", "size spread", "widths of equal size"])
    t3 = table3_claim(C)
    col = F.TABLE2
    ooo = [(L, d) for r, *_ in t2 for L, d in r.items() if L in col and d in col[L] and (
           (col[L].index(d) > 0 and col[L][col[L].index(d) - 1] > d) or
           (col[L].index(d) + 1 < len(col[L]) and col[L][col[L].index(d) + 1] < d))]
    display(Markdown(
        f"In {sum(not f['adjacent'] for f in found)} of the {len(found)} rows of Table 4 the two widths are not neighbours in "
        f"Table 2. {len(t2)} rows of Table 2 spread in size by {min(s for _, s, _ in t2):.0%}–{max(s for _, s, _ in t2):.0%}, "
        f"against at most {max(F.size_spread(r) for r in F.TABLE2_FULL_ROWS):.0%} in the rows that span every depth. "
        + (f"{len(ooo)} of their entries also break the ascending order of their own column ("
           + ", ".join(f"$L={L}$: {d}" for L, d in ooo) + "), so they were most likely misplaced when the table was "
           "typeset; the widths of equal size in the table above are what the layout implies. " if ooo else "")
        + "Table 3: " + "; ".join(f"$L={L}$, $d_x={w}$ is not in Table 2 (nearest trained width {t})" for L, w, t in t3)
        + " — either a typo for that width or a network outside Table 2; either way its standard deviation cannot be "
        "matched to a trained point."))
    C.lines()
    return t2


def table1(C: Claims, fit: F.Fit) -> list[dict]:
    """Table 1 from the fit (:func:`table1_claims`, on the non-embedding and on the printed total sizes) and eq. 10's
    projections (:func:`projection_claims`), with the one row whose printed depth is not the rounded L*. Returns
    Table 1's rows."""
    from IPython.display import Markdown, display

    from lib.chapters.depth_width.figures import md_table
    pf = F.PAPER_FIT
    rows1 = F.table1_rows(fit.a, fit.b)
    rows1_total = F.table1_rows(fit.a, fit.b, use_printed_size=True)
    md_table([(f"{r['name'].removeprefix('GPT-3 ')} ({r['size']})", f"{r['N']:.2g}".replace("e+", "e"), r["L"],
               f"{r['L_star']:.2f}", r["L_paper"], f"{r['d_at_Lpaper']:.1f}", r["d_paper"], f"{t['L_star']:.2f}")
              for r, t in zip(rows1, rows1_total, strict=False)],
             ["GPT-3 (size)", "12Ld²", "L", "L* (ours)", "paper L", "d_x (ours)", "paper d_x", "L* (printed size)"])
    table1_claims(C, rows1, rows1_total)
    v = projection_claims(C, fit, rows1)
    print(f"unrounded fit: N_tr(96) = {v['N96']:.4e}, N_tr(80) = {v['N80']:.4e}")
    print(f"rounded a, b:  N_tr(96) = {v['N96r']:.4e}, N_tr(80) = {v['N80r']:.4e}")
    print(f"printed covariance: ΔN_tr(96) = {v['dN96']:.3e}, ΔN_tr(80) = {v['dN80']:.3e}, ΔN/N(100) = {v['rel100']:.3f}")
    print(f"1T: L* = {v['L1T']:.2f}, e^(a+bL) = {v['d1T']:.0f}, sqrt(1e12/(12L)) = {v['d1T_size']:.0f}")
    off = [(r, t) for r, t in zip(rows1, rows1_total, strict=True) if r["L_round"] != r["L_paper"]]
    display(Markdown("".join(
        f"**{r['name']}** is the one row whose printed depth is not the rounded $L^*$: $12Ld^2$ = {r['N']:.3g} gives "
        f"$L^*={r['L_star']:.2f}$, which rounds to {r['L_round']}, but the table prints {r['L_paper']}. The printed total "
        f"size {r['size']} in place of $12Ld^2$ gives $L^*={t['L_star']:.2f}$ (with the printed $a$, $b$: "
        f"{F.optimal_depth(F.TABLE1_SIZES[r['size']], pf['a'], pf['b']):.2f}), which rounds to {r['L_paper']}: "
        "most likely the source of the printed depth, although every other row uses the non-embedding size. "
        for r, t in off)))
    C.lines()
    return rows1
