"""Claim bookkeeping of the mha-memorization chapter, recorded on its :class:`lib.core.claims.Claims` ledger:
the gradient-descent half (Sec. 5.2, Figs. 2, 4, 5 and App. H) from the sweeps' rows, App. H by the paper's
protocol from the stored runs (:func:`fig3_paper_claims`), and Theorem 1's grid of constructions
(:func:`theorem1_claims`, :func:`head_claims`).

Each trained claim is an ``experiment`` with its :class:`~lib.core.claims.Scale` (ours next to the paper's)
and a control that runs the same criterion on the closest wrong alternative:

* monotone trends (Spearman ≥ 0.7, a trend: ``ours`` counts the steps against it): the same criterion on *seed
  noise*, the difference between two seeds at each x (a flat truth plus noise; it needs ≥ 2 seeds);
* Fig. 2(a)'s line: the same fit code on the rival curves H², √H and log H, and the winner must be the
  line with R² ≥ 0.9 (:func:`curve_r2`, :func:`wins`);
* endpoint comparisons: the same inequality with the endpoints swapped or on the other side of n; Fig. 2(c)'s
  no-gain claim uses a margin of at least the seed spread (a null claim must not pass on unresolved differences).

Checks that restate what the construction guarantees by algebra (the head ranks, Claim 2 at the c of our completed
proof) are ``sanity``, shown but not counted as evidence.

Below the smallest scale at which a trained claim means anything (:func:`gd_scale`: fewer than
``MIN_STEPS`` steps), the verdict is "not run at this preset", never "does not hold". With one seed the
seed-noise control is undefined (NaN) and counts as failed; its value says so.
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.mha_memorization import gd as mha_gd
from lib.core import robust
from lib.core.claims import EXPERIMENT, FINDING, SANITY, THEOREM, Claims, Scale

MIN_STEPS = 400        # below this many steps no trained claim means anything (the smoke preset runs 60)
RIVALS = {"H": lambda x: x, "H²": lambda x: x ** 2, "√H": np.sqrt, "log H": np.log}
PAPER_SCALE = {"heads": "d=64, n=32, H=1..60, T=10k–40k, ≥50k steps", "context": "d=64, H=20, n=1..60, T=6k–18k",
               "dh": "d=64, n=32, H=30, d_h=10..64, T=10k–20k, 300k steps", "regression": "d=64, T=10k–30k",
               "regression_n": "d=64, T=10k–25k", "nonshared": "d=64, T=30k–130k", "nonshared_n": "d=64, T=20k–60k",
               "saturation": "d=64, n=32, H=4, 8, T=550, 1300, 300k steps"}


def by(rows, key, sel=lambda r: True, val="best_acc") -> dict:
    """{x: [values over seeds]} of one sweep's rows, optionally filtered."""
    out: dict = {}
    for r in rows:
        if sel(r):
            out.setdefault(r[key], []).append(float(r[val]))
    return dict(sorted(out.items()))


def mean_by(rows, key, sel=lambda r: True, val="best_acc") -> dict:
    return {k: float(np.mean(v)) for k, v in by(rows, key, sel, val).items()}


def seed_noise(rows, key, sel=lambda r: True, val="best_acc") -> dict:
    """{x: value(first seed) − value(second seed)}: what a flat dependence on x plus noise looks like."""
    return {k: v[0] - v[1] for k, v in by(rows, key, sel, val).items() if len(v) >= 2}


def per_seed(rows, key, sel=lambda r: True, val="best_acc") -> dict:
    """{seed: {x: value}} of one sweep's rows: each seed alone (a skeptic's variant)."""
    out: dict = {}
    for r in rows:
        if sel(r):
            out.setdefault(r.get("seed", 0), {})[r[key]] = float(r[val])
    return {k: dict(sorted(v.items())) for k, v in sorted(out.items())}


def rho(d: dict) -> float:
    return mha_gd.spearman(list(d), list(d.values())) if len(d) >= 3 else float("nan")


def curve_r2(x, y) -> dict:
    """R² of y ≈ a f(x) + b for the line and its rivals, all through :func:`gd.linear_fit`."""
    return {name: float(mha_gd.linear_fit(f(np.asarray(x, float)), y)[1]) for name, f in RIVALS.items()}


def wins(name: str, r2: dict, threshold: float = 0.9) -> bool:
    """Fig. 2(a)'s criterion for curve ``name``: R² ≥ threshold and no other curve fits better."""
    return bool(r2[name] >= threshold and r2[name] >= max(r2.values()))


def head_fits(rows, T_values, min_points: int = 5, saturated: float = 0.95) -> dict:
    """For each T: the non-saturated (mean accuracy ≤ 0.95) head counts, the memorized counts, the line's
    coefficients and every curve's R² (only where at least ``min_points`` head counts are non-saturated)."""
    fits = {}
    for T in T_values:
        pts = [(H, a * T) for H, a in mean_by(rows, "H", lambda r, T=T: r["T"] == T).items() if a <= saturated]
        if len(pts) >= min_points:
            x, y = [p[0] for p in pts], [p[1] for p in pts]
            fits[T] = dict(coef=mha_gd.linear_fit(x, y)[0], r2=curve_r2(x, y), H=x)
    return fits


def gd_scale(P: dict, kind: str) -> Scale:
    steps = P["gd_dh_steps"] if kind in ("dh", "saturation") else P["gd_steps"]
    ours = f"d={P['gd_d']}, n={P['gd_n']}, {steps} full-batch steps, {P['gd_seeds']} seed(s)"
    return Scale(ours=ours, paper=PAPER_SCALE[kind], enough=steps >= MIN_STEPS,
                 why=f"{steps} < {MIN_STEPS} full-batch steps do not train the layer to its capacity")


def budget(P: dict, T: int) -> int:
    """The step budget of a head-sweep point of size T (:func:`gd.train_points`: max(min steps, epochs·T/batch))."""
    return max(P["gd_steps"], P["gd_epochs"] * T // (P["gd_batch"] or T) if P["gd_epochs"] else 0)


def against(d: dict, sign: int) -> int:
    """The number of consecutive steps of ``d`` (sorted by x) that go strictly against the trend's sign."""
    v = list(d.values())
    return sum(sign * (b - a) < 0 for a, b in zip(v, v[1:], strict=False))


def _trend(C: Claims, id_: str, statement: str, paper: str, d: dict, noise: dict, sign: int, sc: Scale, what: str,
           seeds: dict | None = None):
    """A monotone trend: sign·Spearman ≥ 0.7, with the seed-noise control through the same criterion. A rank
    correlation of 0.7 allows steps against the trend; ``ours`` counts them, so the claim says 'trend', not
    'monotone'."""
    r, rn = rho(d), rho(noise)
    ok = lambda v: bool(math.isfinite(v) and sign * v >= 0.7)
    judge = lambda dd, th=0.7: (bool(math.isfinite(rho(dd)) and sign * rho(dd) >= th), f"ρ={rho(dd):.2f}")  # noqa: E731
    xs = list(d)
    variants = robust.leave_one_out(lambda ks: judge({k: d[k] for k in ks}), xs, label=lambda k: f"x = {k}", min_left=3)
    variants += robust.thresholds(lambda th: judge(d, th), (0.5, 0.9), "Spearman threshold")
    if seeds and len(seeds) > 1:
        variants += robust.each(judge, seeds, "seed")
    fmt = ".3f" if max(abs(x) for x in d.values()) < 10 else ".0f"
    return C.check(id_, statement, paper=paper, ok=ok(r), kind=EXPERIMENT, stable=False,
                   ours=f"ρ={r:.2f}; means " + " ".join(format(x, fmt) for x in d.values()) +
                        f" ({against(d, sign)} of {len(d) - 1} steps against the trend, ties not counted)",
                   criterion=f"{'' if sign > 0 else '−'}Spearman({what}) ≥ 0.7: a trend, not step-by-step "
                             "monotonicity (the steps against it are counted in 'ours')", scale=sc,
                   control=("seed noise: the same criterion on seed 0 − seed 1 at each point", ok(rn),
                            f"ρ={rn:.2f}" if math.isfinite(rn) else "n/a (fewer than 2 seeds or 3 points)"),
                   variants=variants)


def heads_claims(C: Claims, rows: list, P: dict, context_rows: list | None) -> None:
    """Fig. 2(a): monotone and linear in H; GD memorizes beyond H(n−1)+1 (App. H)."""
    sc = gd_scale(P, "heads")
    d_T = {T: mean_by(rows, "H", lambda r, T=T: r["T"] == T) for T in P["gd_T_heads"]}
    n_T = {T: seed_noise(rows, "H", lambda r, T=T: r["T"] == T) for T in P["gd_T_heads"]}
    T0 = P["gd_T_heads"][-1]
    _trend(C, "fig2a-monotone", f"Fig. 2a: memorization increases with H (T = {T0})", "increasing", d_T[T0], n_T[T0],
           1, sc, "H, mean accuracy", per_seed(rows, "H", lambda r, T=T0: r["T"] == T))
    fits = head_fits(rows, P["gd_T_heads"])

    def line(rs, thr: float = 0.9, drop: tuple = (), k: int = 5) -> tuple[bool, str]:
        f = head_fits([r for r in rs if r["H"] not in drop], P["gd_T_heads"], min_points=k)
        return (bool(f) and all(wins("H", ft["r2"], thr) for ft in f.values()),
                "; ".join(f"T={T}: R²={ft['r2']['H']:.3f}" for T, ft in f.items()) or f"fewer than {k} points")
    Hs = sorted({r["H"] for r in rows})
    line_var = robust.rejudge(lambda kw: line(rows, **kw), {
        "the paper's threshold R² ≥ 0.98": dict(thr=0.98),
        f"drop the chance floor (H = {Hs[0]})": dict(drop=(Hs[0],), k=4),
        **{f"drop H = {h}": dict(drop=(h,), k=4) for h in Hs[1:]}})
    seeds = sorted({r["seed"] for r in rows})
    if len(seeds) > 1:
        line_var += robust.each(lambda rs: line(rs), {s_: [r for r in rows if r["seed"] == s_] for s_ in seeds}, "seed")
    if fits:
        rival_pass = {f: all(wins(f, ft["r2"]) for ft in fits.values()) for f in RIVALS if f != "H"}
        C.check("fig2a-linear", "Fig. 2a: the memorized count is linear in H on the non-saturated part",
                paper="linear, R² ≥ 0.98 (8 H values)", kind=EXPERIMENT, stable=False, scale=sc,
                ours="; ".join(f"T={T}: R²={ft['r2']['H']:.3f} over H={ft['H']}" for T, ft in fits.items()),
                ok=all(wins("H", ft["r2"]) for ft in fits.values()),
                criterion="at every T with ≥ 5 non-saturated H: the line's R² ≥ 0.9 and ≥ the R² of y = a f(H) + b "
                          "for f = H², √H, log H",
                variants=line_var,
                control=("the rival curves H², √H, log H through the same fit and criterion",
                         any(rival_pass.values()),
                         "; ".join(f"{f}: R²={min(ft['r2'][f] for ft in fits.values()):.3f}" for f in rival_pass)))
    else:
        C.not_run("fig2a-linear", "Fig. 2a: the memorized count is linear in H", paper="R² ≥ 0.98", kind=EXPERIMENT,
                  reason="fewer than 5 non-saturated head counts at every T of this preset", scale=sc)
    def beyond_at(level: float = 1 - 1e-9, agg=min, rs=rows) -> list:
        return [(T, H) for T in P["gd_T_heads"] for H, v in by(rs, "H", lambda r, T=T: r["T"] == T).items()
                if agg(v) >= level and T > H * (P["gd_n"] - 1) + 1]
    beyond = beyond_at()
    fmt_b = lambda b: (len(b) > 0, ", ".join(f"H={H}" for _, H in b) or "none")                 # noqa: E731
    seeds_b = sorted({r["seed"] for r in rows})
    beyond_var = robust.rejudge(lambda kw: fmt_b(beyond_at(**kw)), {
        "'memorizes' read as accuracy ≥ 0.99": dict(level=0.99), "in some seed (not every seed)": dict(agg=max)})
    if len(seeds_b) > 1:
        beyond_var += robust.each(lambda rs: fmt_b(beyond_at(rs=rs)),
                                  {s_: [r for r in rows if r["seed"] == s_] for s_ in seeds_b}, "seed")
    ctl_pt = max(beyond, key=lambda th: th[1], default=None)     # the witness with the most heads, first seed
    ctl_acc = float("nan")
    if ctl_pt is not None:
        T, H = ctl_pt
        pt = next(r for r in rows if r["T"] == T and r["H"] == H)
        ctl_acc = mha_gd.frozen_kq_accuracy(dict(kind="heads", H=H, n=pt["n"], dh=pt["dh"], T=T, seed=pt["seed"]),
                                            P["gd_d"], P["gd_classes"], budget(P, T), P["gd_lr"], P["gd_eval_every"])
    C.check("appH-beyond-rank", "GD memorizes more than H(n−1)+1 examples (Prop. 2 is no capacity bound; App. H: 550 > 125)",
            paper="T = 550 at H=4, 1300 at H=8 (n=32)", kind=EXPERIMENT, stable=False, scale=sc,
            ours="; ".join(f"H={H}: T={T} > {H * (P['gd_n'] - 1) + 1}" for T, H in beyond) or "none",
            ok=len(beyond) > 0, criterion="100% training accuracy (every seed) at some T > H(n−1)+1", variants=beyond_var,
            control=("the same data, initial weights and steps with the attention frozen at initialisation (embedding, "
                     "W_Q, W_K fixed; only W_V, W_O, decoder trained: features of rank ≤ H(n−1)+1), at the witness "
                     "with the most heads, one seed: 100% training accuracy",
                     bool(ctl_acc >= 1 - 1e-9),
                     "no witness" if ctl_pt is None else f"H={ctl_pt[1]}, T={ctl_pt[0]}: accuracy {ctl_acc:.2f}"))


def context_claims(C: Claims, rows: list, P: dict) -> None:
    """Fig. 2(b) and the n = 1 ceiling."""
    sc = gd_scale(P, "context")
    _trend(C, "fig2b-monotone", "Fig. 2b: memorization increases with the context size n", "monotone in n",
           mean_by(rows, "n"), seed_noise(rows, "n"), 1, sc, "n, mean accuracy", per_seed(rows, "n"))
    at = {m: [(r["best_acc"], mha_gd.majority_fraction(r, P["gd_d"], P["gd_classes"])) for r in rows if r["n"] == m]
          for m in sorted({r["n"] for r in rows})[:2]}
    if 1 in at and len(at) == 2:
        C.sanity("fig2b-n1", "n = 1 (shared context): one key, so every output is the same and the accuracy is at "
                 "most the majority-class fraction (guaranteed by the architecture; a check of the training code)",
                 paper="capacity 1 (Sec. 4.2)",
                 ours=f"{sum(a <= f + 1e-9 for a, f in at[1])}/{len(at[1])} runs at or below their majority fraction",
                 ok=all(a <= f + 1e-9 for a, f in at[1]), criterion="accuracy ≤ majority fraction (exact)", stable=True)


def dh_claims(C: Claims, rows: list, P: dict) -> None:
    """Fig. 2(c): gains up to d_h = n, none beyond; each criterion's control is the other side of n. The no-gain
    criterion's margin is the larger of 0.05 and the largest seed half-range of the sweep: a null claim passes only
    on differences the seeds can resolve (at book scale a gain of 0.05 is well inside the seed spread)."""
    sc, n = gd_scale(P, "dh"), P["gd_n"]
    acc = mean_by(rows, "dh")
    below, above = {k: a for k, a in acc.items() if k <= n}, {k: a for k, a in acc.items() if k > n}
    if len(below) < 2:
        return
    k1, kn = min(below), max(below)
    lift = lambda base, xs: min(a - base for a in xs) if xs else float("nan")
    up = lift(acc[k1], [a for k, a in below.items() if k > k1])
    up_ctl = lift(acc[kn], list(above.values()))
    seeds = per_seed(rows, "dh")

    def up_of(a: dict) -> float:
        b = {k: v for k, v in a.items() if k <= n}
        return lift(a[min(b)], [v for k, v in b.items() if k > min(b)])
    up_var = robust.thresholds(lambda g: (bool(up >= g), f"{up:+.3f}"), (0.02, 0.1), "benefit threshold")
    up_var += robust.each(lambda a: (bool(up_of(a) >= 0.05), f"{up_of(a):+.3f}"), seeds, "seed") if len(seeds) > 1 else []
    C.check("fig2c-up-to-n", "Fig. 2c: every d_h in (1, n] memorizes more than d_h = 1", paper="increasing up to n",
            ours=f"{up:+.3f}", ok=bool(up >= 0.05), kind=EXPERIMENT, stable=False, scale=sc, variants=up_var,
            criterion="min over 1 < d_h ≤ n of acc(d_h) − acc(smallest d_h) ≥ 0.05 (mean over seeds; endpoints only, "
                      "not monotonicity)",
            control=("beyond n: min over d_h > n of acc(d_h) − acc(n) ≥ 0.05", bool(up_ctl >= 0.05), f"{up_ctl:+.3f}"))
    if above:
        spread = {k: (max(v) - min(v)) / 2 for k, v in by(rows, "dh").items()}
        k_s = max(spread, key=spread.get)
        tol = max(0.05, spread[k_s])
        gain = max(above.values()) - acc[kn]
        gain_ctl = max(a for k, a in below.items() if k > k1) - acc[k1]
        n_seeds = len(next(iter(by(rows, "dh").values())))
        # (no seed-alone variant: the margin is the seed spread, which one seed cannot measure)
        gain_var = robust.thresholds(lambda g: (bool(gain < max(g, spread[k_s])), f"{gain:+.3f}"), (0.02, 0.1),
                                     "benefit threshold (margin: the larger of it and the seed half-range)")
        C.check("fig2c-no-gain", "Fig. 2c: no benefit from d_h > n larger than the seeds can resolve",
                paper="no gain beyond n", ours=f"{gain:+.3f} (margin {tol:.3f}: the largest seed half-range, at d_h = "
                f"{k_s}, {spread[k_s]:.3f} over {n_seeds} seed(s))", ok=bool(gain < tol), kind=EXPERIMENT, stable=False,
                variants=gain_var,
                scale=sc,
                criterion="max acc over d_h > n − acc at d_h = n < margin, the margin being the larger of 0.05 (what "
                          "fig2c-up-to-n calls a benefit) and the largest half-range over seeds at any d_h of the sweep "
                          "(a gain below the seed spread is not resolved; with one seed the margin is 0.05)",
                control=("below n: max acc over 1 < d_h ≤ n − acc at the smallest d_h < the same margin",
                         bool(gain_ctl < tol), f"{gain_ctl:+.3f}"))


def endpoint(C: Claims, id_, statement, paper, vals: dict, sc: Scale, better, fmt, crit, seeds: dict | None = None,
             readings: dict | None = None) -> None:
    """'Larger n is better' as an endpoint comparison (n = 1 against every n ≥ 4); the control swaps n = 1 for
    the largest n (the reversed trend)."""
    big = {m: v for m, v in vals.items() if m >= 4}
    if 1 not in vals or len(big) < 2:
        return
    nmax = max(big)
    rest = [v for m, v in big.items() if m != nmax]
    judge = lambda v, b=better: (b(v[1], [x for m, x in v.items() if m >= 4]),                 # noqa: E731
                                 fmt(v[1], [x for m, x in v.items() if m >= 4]))
    variants = robust.each(judge, seeds, "seed") if seeds and len(seeds) > 1 else []
    variants += robust.rejudge(lambda b: judge(vals, b), readings or {})
    variants += robust.rejudge(judge, {f"n = {m} left out": {k: v for k, v in vals.items() if k != m} for m in big}
                               if len(big) > 2 else {})
    C.check(id_, statement, paper=paper, ours=fmt(vals[1], list(big.values())), ok=better(vals[1], list(big.values())),
            kind=EXPERIMENT, stable=False, scale=sc, criterion=crit, variants=variants or None,
            control=(f"reversed: n = {nmax} in place of n = 1, against the other n ≥ 4", better(vals[nmax], rest),
                     fmt(vals[nmax], rest)))


def gd_claims(C: Claims, gd: dict, P: dict) -> None:
    """Record every claim of the trained half that the sweeps in ``gd`` support."""
    if "heads" in gd:
        heads_claims(C, gd["heads"], P, gd.get("context"))
    if "context" in gd:
        context_claims(C, gd["context"], P)
    if "dh" in gd:
        dh_claims(C, gd["dh"], P)
    if "regression" in gd:
        _trend(C, "fig5-monotone", "Fig. 5 (regression): the training MSE falls with H as a trend (rank correlation); "
               "the paper's 'monotone' is not tested step by step", "monotone in H",
               mean_by(gd["regression"], "H", val="best_loss"), seed_noise(gd["regression"], "H", val="best_loss"), -1,
               gd_scale(P, "regression"), "H, mean MSE", per_seed(gd["regression"], "H", val="best_loss"))
    if "nonshared" in gd:
        _trend(C, "fig4-heads", "Fig. 4 (per-example contexts): memorization increases with H (the paper: linear; "
               "we test monotone)", "linear in H", mean_by(gd["nonshared"], "H"), seed_noise(gd["nonshared"], "H"), 1,
               gd_scale(P, "nonshared"), "H, mean accuracy", per_seed(gd["nonshared"], "H"))
    if "regression_n" in gd:
        endpoint(C, "fig5-context", "Fig. 5b (regression): a larger context lowers the training MSE (n = 1 against "
                 "n ≥ 4)", "monotone in n", mean_by(gd["regression_n"], "n", val="best_loss"), gd_scale(P, "regression_n"),
                 lambda a, b: bool(a >= 2 * np.mean(b)), lambda a, b: f"MSE ratio {a / np.mean(b):.1f}",
                 "mean MSE at n = 1 ≥ twice the mean over n ≥ 4 (an endpoint test, not monotonicity)",
                 per_seed(gd["regression_n"], "n", val="best_loss"),
                 {"'lower' read as a ratio ≥ 1.5": lambda a, b: bool(a >= 1.5 * np.mean(b)),
                  "'lower' read as a ratio ≥ 4": lambda a, b: bool(a >= 4 * np.mean(b))})
    if "nonshared_n" in gd:
        endpoint(C, "fig4-context", "Fig. 4 (per-example contexts): a larger context memorizes more (n = 1 against "
                 "n ≥ 4)", "increasing, sub-linear in n", mean_by(gd["nonshared_n"], "n"), gd_scale(P, "nonshared_n"),
                 lambda a, b: bool(min(b) >= a + 0.2), lambda a, b: f"acc {a:.2f} vs min {min(b):.2f}",
                 "mean accuracy at every n ≥ 4 exceeds n = 1 by ≥ 0.2 (an endpoint test, not monotonicity)",
                 per_seed(gd["nonshared_n"], "n"),
                 {"'more' read as a margin ≥ 0.1": lambda a, b: bool(min(b) >= a + 0.1),
                  "'more' read as a margin ≥ 0.3": lambda a, b: bool(min(b) >= a + 0.3)})
    for k in ("heads", "context", "dh", "regression", "regression_n", "nonshared", "nonshared_n"):
        if k not in gd:
            C.not_run(f"gd-{k}", f"GD sweep '{k}'", paper="Fig. 2/4/5", reason="not in gd_sweeps at this preset",
                      kind=EXPERIMENT)


# ---- the theory half: Theorem 1's grid and Table 1 ----------------------------------------------------
T1_PAST = "T+1 examples sharing the context (d_h ≥ n), the constructed W_K, W_Q and a least-squares W_V"


def theorem1_claims(C: Claims, runs: list[dict], d: int) -> None:
    """Theorem 1 / Proposition 1 on the grid of constructions (rows of :func:`construction.memorize_check`,
    with ``plus`` = :func:`construction.past_capacity` on the shared runs with d_h ≥ n): the exact fit, the
    rank, the vector case, each with one example past capacity as its control."""
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


# ---- Appendix H / Fig. 3: saturated heads ------------------------------------------------------------
def _sat_stats(mx: np.ndarray, thr: float = 0.99) -> dict:
    """App. H's statistics of one ``[T, H]`` array of largest softmax weights: saturated (example, head)
    pairs, examples with a non-saturated head, examples with both a saturated and a free head."""
    s = mx > thr
    return dict(pairs=float(s.mean()), free=float((s.sum(1) < s.shape[1]).mean()),
                both=float(((s.sum(1) > 0) & (s.sum(1) < s.shape[1])).mean()))


def saturation_claims(C: Claims, rows: list, theta_con: np.ndarray, P: dict, heads_rows: list | None) -> dict:
    """Fig. 3 / App. H at the longest training budget of ``sat_steps`` (claims), and the saturated fraction
    at every budget (the measured effect of training length, a finding). Controls: the same model at its
    initialisation (the statistic of an untrained network) and, for the memorization check, the same runs
    stopped at their shortest budget. Returns the per-run statistics for the printout."""
    longest = max(P["sat_steps"])
    sc = Scale(ours=f"d={P['gd_d']}, n={P['gd_n']}, H={P['sat_H']}, T={P['sat_T']}, {longest} full-batch steps, one seed",
               paper=PAPER_SCALE["saturation"], enough=longest >= MIN_STEPS,
               why=f"{longest} < {MIN_STEPS} full-batch steps do not train the layer to its capacity")
    stats = [dict(H=r["H"], T=r["T"], steps=r["steps"], acc=float(r["final_acc"]), **_sat_stats(np.array(r["max_weight"])),
                  init=_sat_stats(np.array(r["max_weight_init"]))) for r in rows]
    last = [s for s in stats if s["steps"] == longest]
    con = _sat_stats(theta_con.max(axis=2))
    first = min(P["sat_steps"])
    short = [s for s in stats if s["steps"] == first]
    mem = lambda ss: all(s["acc"] >= 1 - 1e-9 for s in ss)                                    # noqa: E731
    at_thr = lambda t: [_sat_stats(np.array(r["max_weight"]), t) for r in rows if r["steps"] == longest]  # noqa: E731
    fmt_s = lambda ss, k: "; ".join(f"{x[k]:.2f}" for x in ss)                                # noqa: E731
    most = lambda ss, k="both", lv=0.9: (all(x[k] >= lv for x in ss), fmt_s(ss, k))          # noqa: E731
    maj = lambda ss: (all(x["pairs"] > 0.5 for x in ss), fmt_s(ss, "pairs"))                 # noqa: E731
    readings = (0.9, 0.95, 0.999)
    if first < longest:         # the closest rival: the same runs, stopped at their shortest budget
        ctl = (f"the same runs after {first} steps (their shortest budget), the same criterion", mem(short),
               "; ".join(f"H={s['H']}: {s['acc']:.3f}" for s in short))
    else:                       # one budget: only another experiment is at hand (a weak control; say so)
        h1 = [r["best_acc"] for r in (heads_rows or []) if r["H"] == min(P["gd_heads"]) and r["T"] == min(P["gd_T_heads"])]
        ctl = (f"(weak: another experiment; one budget in sat_steps) H = {min(P['gd_heads'])} at "
               f"T = {min(P['gd_T_heads'])} of the head sweep, the same criterion", bool(h1) and mem([{"acc": a} for a in h1]),
               f"{max(h1, default=float('nan')):.3f}")
    C.check("fig3-memorized", "App. H: the saturation runs memorize their T examples perfectly", paper="100%",
            ours="; ".join(f"H={s['H']},T={s['T']}: {s['acc']:.3f}" for s in last), ok=mem(last),
            variants=[("'perfectly' read as accuracy ≥ 0.99", all(s["acc"] >= 0.99 for s in last),
                       fmt_s(last, "acc"))],
            criterion="training accuracy = 1 after the last step", stable=False, kind=EXPERIMENT, scale=sc, control=ctl)
    C.check("fig3-one-free", "App. H: heads are saturated on most examples while almost every example keeps a "
            "non-saturated head (the responsible-head picture)", paper="'almost all examples have at least one "
            "non-saturated head'", ours="; ".join(f"H={s['H']}: {s['both']:.2f}" for s in last),
            ok=all(s["both"] >= 0.9 for s in last), kind=EXPERIMENT, scale=sc, stable=False,
            variants=robust.rejudge(lambda kw: most(**kw), {
                "the literal reading: at least one non-saturated head": dict(ss=last, k="free"),
                **{f"saturated read as weight > {t:g}": dict(ss=at_thr(t)) for t in readings},
                "'almost all' read as ≥ 0.85": dict(ss=last, lv=0.85), "'almost all' read as ≥ 0.95": dict(ss=last, lv=0.95)}),
            criterion="fraction of examples with at least one saturated AND at least one non-saturated head "
                      "(max weight > 0.99 / ≤ 0.99) ≥ 0.9 (with only the second half this passes for any "
                      "unsaturated network)",
            control=("the same models at their initialisation (untrained), the same criterion",
                     all(s["init"]["both"] >= 0.9 for s in last), "; ".join(f"{s['init']['both']:.2f}" for s in last)))
    C.check("fig3-majority", "App. H: a majority of (example, head) pairs are saturated", paper="majority / 'significant number'",
            ours="; ".join(f"H={s['H']}: {s['pairs']:.2f}" for s in last) + f" (construction: {con['pairs']:.2f})",
            ok=all(s["pairs"] > 0.5 for s in last), criterion="fraction of pairs with max weight > 0.99 is > 0.5 in every run",
            variants=robust.rejudge(maj, {f"saturated read as weight > {t:g}": at_thr(t) for t in readings}),
            stable=False, kind=EXPERIMENT, scale=sc,
            control=("the same models at their initialisation (untrained), the same criterion",
                     all(s["init"]["pairs"] > 0.5 for s in last), "; ".join(f"{s['init']['pairs']:.2f}" for s in last)))
    if len(P["sat_steps"]) > 1:
        pair = {H: ({s["steps"]: s["pairs"] for s in stats if s["H"] == H}) for H in P["sat_H"]}
        C.check("fig3-length", f"Training length raises the saturated fraction ({first} → {longest} steps, the same runs), "
                "by at least 0.1 in some run",
                kind=FINDING, paper="(App. H trains 300k steps; no statement on length)",
                ours="; ".join(f"H={H}: " + " → ".join(f"{v:.2f}" for _, v in sorted(p.items())) for H, p in pair.items()),
                ok=any(p[longest] - p[first] >= 0.1 for p in pair.values()), stable=False,
                variants=robust.thresholds(lambda g: any(p[longest] - p[first] >= g for p in pair.values()), (0.05, 0.2),
                                           "rise threshold")
                + robust.rejudge(lambda t: any(
                    _sat_stats(np.array(a["max_weight"]), t)["pairs"] - _sat_stats(np.array(b["max_weight"]), t)["pairs"]
                    >= 0.1 for a in rows for b in rows if a["H"] == b["H"] and a["steps"] == longest and b["steps"] == first),
                    {f"saturated read as weight > {t:g}": t for t in readings}),
                criterion=f"saturated fraction at {longest} steps − at {first} steps ≥ 0.1 for at least one H (the "
                          "change at every H is in 'ours')")
    return dict(stats=stats, con=con)


FIG3_PAPER_T = {4: 550, 8: 1300}   # App. H: "for H = 4, this number is around T = 550, and for H = 8 around T = 1300"
MEMORIZED = 1 - 1e-9               # "memorized perfectly": final training accuracy 1 (the located capacity's threshold)
FIG3_STATEMENTS = {
    "fig3-paper-capacity": "App. H by its protocol: the largest T memorized perfectly by gradient descent is about 550 "
                           "at H = 4 and 1300 at H = 8 (d = 64, n = 32, 300k steps)",
    "fig3-paper-majority": "App. H by its protocol: a majority of (example, head) pairs are saturated at the largest "
                           "memorized T",
    "fig3-paper-one-free": "App. H by its protocol: almost every example has a saturated head and a non-saturated head "
                           "at the largest memorized T"}


def fig3_capacity(rows: list) -> dict[int, dict]:
    """Per H, from runs at several T (final training accuracy ``final_acc``): the located capacity ``T`` (the
    largest T memorized perfectly; None if none is), ``past`` (the next T of the grid above it; None if ``T`` is
    the largest) and every run's accuracy."""
    out = {}
    for H in sorted({r["H"] for r in rows}):
        acc = {r["T"]: float(r["final_acc"]) for r in rows if r["H"] == H}
        mem = [T for T in sorted(acc) if acc[T] >= MEMORIZED]
        T = max(mem, default=None)
        past = min((t for t in acc if T is None or t > T), default=None)
        out[H] = dict(T=T, past=past, acc=dict(sorted(acc.items())))
    return out


def memorizes(cap: dict, T: int | None) -> bool:
    """Whether the run at ``T`` (a T of the grid) reached training accuracy 1 after the last step (False if not run)."""
    return bool(T is not None and cap["acc"].get(T, 0.0) >= MEMORIZED)


def next_T(cap: dict, T: int | None) -> int | None:
    """The next T of the grid above ``T`` (None if none)."""
    return min((t for t in cap["acc"] if T is not None and t > T), default=None)


def fig3_stats(rows: list, thr: float = 0.99) -> dict[int, dict]:
    """Per H: App. H's statistics (:func:`_sat_stats`) at the located capacity (``at``), at the initialisation of
    the same model (``init``) and one grid step past the capacity (``past_stats``, when run), and the first
    evaluated step at which the capacity's run reached 100% (``first_full``)."""
    def st(H: int, T: int | None, key: str = "max_weight") -> dict | None:
        r = next((r for r in rows if r["H"] == H and r["T"] == T), None)
        return _sat_stats(np.array(r[key]), thr) if r is not None else None

    first = {(r["H"], r["T"]): r.get("first_full") for r in rows}
    return {H: dict(c, at=st(H, c["T"]), init=st(H, c["T"], "max_weight_init"), past_stats=st(H, c["past"]),
                    first_full=first.get((H, c["T"]))) for H, c in fig3_capacity(rows).items()}


def fig3_paper_claims(C: Claims, rows: list, sc: Scale, thr: float = 0.99) -> dict:
    """Fig. 3 / App. H by the paper's protocol (stored runs of the sweep ``fig3``: each T of a grid trained 300k
    steps): whether the paper's T is memorized at each H (control: the next T of the grid, which the paper's "maximal
    number" says is not), and at the located capacity the saturated majority and the one-free-head statistic
    (control: the same model untrained). Returns the stats.

    The first version asked only that the located bracket [T*, next T) meet [T/1.25, 1.25·T] of the paper's T; it
    held on the stored run although T* = 300 at H = 4 and the paper's own T trained to an accuracy below 1 at both
    H, so the criterion is now the paper's T itself, judged by the threshold that locates T*."""
    S = fig3_stats(rows, thr)
    Hs = sorted(S)
    paper = {H: FIG3_PAPER_T.get(H) for H in Hs}
    above = {H: next_T(S[H], paper[H]) for H in Hs}
    acc = lambda H, T: "not run" if T not in S[H]["acc"] else f"{S[H]['acc'][T]:.3f}"          # noqa: E731
    C.check("fig3-paper-capacity", FIG3_STATEMENTS["fig3-paper-capacity"],
            paper=", ".join(f"H={H}: ≈{T}" for H, T in FIG3_PAPER_T.items()),
            ours="; ".join(f"H={H}: the paper's T={paper[H]} trained to {acc(H, paper[H])} (located T*={S[H]['T']}, "
                           f"next {S[H]['past']}; " + ", ".join(f"{T}: {a:.3f}" for T, a in S[H]["acc"].items()) + ")"
                           for H in Hs),
            ok=all(memorizes(S[H], paper[H]) for H in Hs), kind=EXPERIMENT, stable=False, scale=sc,
            variants=robust.rejudge(lambda lv: (all(S[H]["acc"].get(paper[H], 0.0) >= lv for H in Hs),
                                                "; ".join(f"H={H}: {acc(H, paper[H])}" for H in Hs)),
                                    {"'perfectly' read as training accuracy ≥ 0.99": 0.99,
                                     "'perfectly' read as training accuracy ≥ 0.95": 0.95}),
            criterion="at every H the paper's T reaches training accuracy 1 (≥ 1 − 1e-9, the threshold that locates "
                      "T*) after the last of the protocol's steps",
            control=("the next T of the grid above the paper's (which its 'maximal number' excludes), the same "
                     "criterion", all(memorizes(S[H], above[H]) for H in Hs),
                     "; ".join(f"H={H}, T={above[H]}: {acc(H, above[H])}" for H in Hs)))
    located = [H for H in Hs if S[H]["T"] is not None]
    if len(located) < len(Hs):
        why = f"no T of the grid memorized perfectly at H = {[H for H in Hs if H not in located]}; extend the grid"
        for id_ in ("fig3-paper-majority", "fig3-paper-one-free"):
            C.not_run(id_, FIG3_STATEMENTS[id_], paper="Fig. 3", reason=why, kind=EXPERIMENT, scale=sc)
        return S
    at = lambda H, k, part="at": S[H][part][k]                                               # noqa: E731

    def stat(k: str, t: float = thr, where: str = "T*") -> dict:
        """App. H's statistic ``k`` per H at threshold ``t``, at the located T* or at the paper's T (if on the grid)."""
        out = {}
        for H in Hs:
            T = S[H]["T"] if where == "T*" else paper[H]
            r = next((r for r in rows if r["H"] == H and r["T"] == T), None)
            if r is not None:
                out[H] = _sat_stats(np.array(r["max_weight"]), t)[k]
        return out
    fmt = lambda d: "; ".join(f"H={H}: {v:.2f}" for H, v in d.items())                       # noqa: E731
    maj = lambda d: (bool(d) and all(v > 0.5 for v in d.values()), fmt(d))                    # noqa: E731
    most = lambda d, lv=0.9: (bool(d) and all(v >= lv for v in d.values()), fmt(d))           # noqa: E731
    readings = [t for t in (0.9, 0.95, 0.999) if t != thr]
    past = lambda k: "; ".join(f"H={H}, T={S[H]['past']}: {at(H, k, 'past_stats'):.2f}" for H in Hs
                               if S[H]["past_stats"])                                      # noqa: E731
    C.check("fig3-paper-majority", FIG3_STATEMENTS["fig3-paper-majority"], paper="majority / 'significant number'",
            kind=EXPERIMENT, stable=False,
            ours="; ".join(f"H={H}, T={S[H]['T']}: {at(H, 'pairs'):.2f}" for H in Hs) +
                 (f" (one grid step past T*: {past('pairs')})" if past("pairs") else ""),
            ok=all(at(H, "pairs") > 0.5 for H in Hs), scale=sc,
            variants=robust.rejudge(lambda t: maj(stat("pairs", t)), {f"saturated read as weight > {t:g}": t
                                                                      for t in readings})
            + robust.rejudge(maj, {"at the paper's T instead of the located T*": stat("pairs", where="paper")}),
            criterion=f"fraction of (example, head) pairs with largest softmax weight > {thr} is > 0.5 at every H",
            control=("the same models at their initialisation (untrained), the same criterion",
                     all(at(H, "pairs", "init") > 0.5 for H in Hs),
                     "; ".join(f"{at(H, 'pairs', 'init'):.2f}" for H in Hs)))
    C.check("fig3-paper-one-free", FIG3_STATEMENTS["fig3-paper-one-free"], paper="'almost all examples have at least one "
            "non-saturated head'", kind=EXPERIMENT, stable=False, scale=sc,
            ours="; ".join(f"H={H}: both {at(H, 'both'):.2f}, free {at(H, 'free'):.2f}" for H in Hs),
            ok=all(at(H, "both") >= 0.9 for H in Hs),
            variants=robust.rejudge(most, {"the literal reading: at least one non-saturated head (no saturated one "
                                           "required)": stat("free"),
                                           **{f"saturated read as weight > {t:g}": stat("both", t) for t in readings},
                                           "at the paper's T instead of the located T*": stat("both", where="paper")})
            + robust.rejudge(lambda lv: most(stat("both"), lv), {"'almost all' read as ≥ 0.85": 0.85,
                                                                 "'almost all' read as ≥ 0.95": 0.95}),
            criterion=f"fraction of examples with at least one saturated AND one non-saturated head (largest weight > "
                      f"{thr} / ≤ {thr}) ≥ 0.9 at every H (the free half alone passes for any unsaturated network)",
            control=("the same models at their initialisation (untrained), the same criterion",
                     all(at(H, "both", "init") >= 0.9 for H in Hs),
                     "; ".join(f"{at(H, 'both', 'init'):.2f}" for H in Hs)))
    return S


def fig3_protocol_cost(ev_points: list[dict], H_T=((4, 550), (8, 1300)), steps: int = 300_000, search_runs: int = 5) -> dict:
    """The CPU cost of App. H by its protocol (d = 64, n = 32, d_h = 64, batch 256): for each (H, T), a search
    for the largest memorizable T (``search_runs`` trainings) then the saturation run, each ``steps`` steps,
    at the FLOP rate measured by the stored Fig. 2(a) evidence points (same model, same recipe, this CPU)."""
    from lib.chapters.mha_memorization import model as mha_model
    rates = [p["flops_per_step"] * p["steps"] / p["cpu_s"] for p in ev_points if p.get("cpu_s")]
    rate = float(np.median(rates)) if rates else float("nan")
    flops = sum(mha_model.MHAMemorization(d=64, n=32, H=H, dh=64).flops(256) * steps * (search_runs + 1) for H, _ in H_T)
    return dict(rate=rate, flops=flops, cpu_h=flops / rate / 3600 if rates else float("nan"), points=len(rates))
