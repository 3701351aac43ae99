"""Levine et al. (2020): the chapter's figures.
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.depth_width.claims.procedure import _losses, curve_delta
from lib.chapters.depth_width.theory.bounds import log3, log3_sep_n2, monomial_upper, ours_closed_form, regime, thm3_upper
from lib.chapters.depth_width.claims.fit import PAPER_FIT, TABLE4, Fit, dn_transition, n_transition


# ---------------------------------------------------------------------------------------------
# figures (hidden from the reader: boilerplate lives here)
# ---------------------------------------------------------------------------------------------
# Sizes: the text column is 688 px wide at 1280 px and figures are drawn at 110 dpi, so a figure wider than 6.25 in
# is shrunk; two panels side by side stay within 8.4 in (shrunk to 3/4) and every font is at least 8.5 pt (≥ 9 px).
SMALL = 8.5


def fig_regimes_map(rows: list[dict], dx_max: int, L_max: int):
    """log3 sep from the N = 2 closed form over (d_x, L) (colour: log10 of it), the measured N = 2 cells ringed,
    the paper's threshold L = log3 d_x and our cross-over L = log3 2d_x."""
    from lib.core import plots
    fig, ax = plots.subplots(1, 1, width=6.2, height=3.6)
    ax = ax[0]
    ds = np.arange(1, dx_max + 1)
    Ls = np.arange(1, L_max + 1)
    Z = np.array([[log3_sep_n2(d, L) for d in ds] for L in Ls])
    im = ax.imshow(np.log10(Z + 1e-9), origin="lower", aspect="auto", cmap="viridis",
                   extent=(0.5, dx_max + 0.5, 0.5, L_max + 0.5))
    fig.colorbar(im, ax=ax, shrink=0.9, label="log10(log3 sep)")
    xx = np.linspace(1, dx_max, 200)
    ax.plot(xx, np.log(xx) / np.log(3), "w-", lw=2, label="L = log3 d_x (paper)")
    ax.plot(xx, np.log(2 * xx) / np.log(3), "w--", lw=1.2, label="L = log3 2d_x (ours: C(L) = d_x)")
    meas = [(r["case"].d_x, r["case"].L) for r in rows if r["case"].N == 2 and not r["case"].residual]
    if meas:
        ax.plot(*zip(*meas, strict=False), "o", mfc="none", mec="red", ms=6, label="measured exactly")
    ax.set(xlabel="width d_x", ylabel="depth L", title="log3 sep, N = 2 closed form", ylim=(0.5, L_max + 0.5))
    ax.grid(False)
    ax.legend(fontsize=SMALL, loc="upper left", labelcolor="white")
    return fig


def fig_regimes_curves(extrap_dx: list[int], L_max: int):
    """(a) log3 sep(L) for several widths (N = 2 closed form); (b) its increment per layer in units of d_x."""
    from lib.core import plots
    fig, ax = plots.subplots(1, 2, width=4.2, height=3.2)
    Ls = np.arange(1, L_max + 1)
    for k, d in enumerate(extrap_dx):
        v = np.array([log3_sep_n2(d, L) for L in Ls])
        ax[0].semilogy(Ls, v, "o-", ms=3, color=plots.COLORS[k % 8], label=f"d_x = {d}")
        ax[0].axvline(log3(d), color=plots.COLORS[k % 8], ls=":", lw=1)
        inc = np.diff(v) / d
        ax[1].plot(Ls[1:] - log3(d), inc, "o-", ms=3, color=plots.COLORS[k % 8], label=f"d_x = {d}")
    ax[0].set(xlabel="depth L", ylabel="log3 sep", title="(a) dotted: L = log3 d_x")
    ax[0].legend(fontsize=SMALL)
    ax[1].axhline(1, color="k", lw=0.8)
    ax[1].axvline(0, color="k", lw=0.8, ls=":")
    ax[1].set(xlabel="L − log3 d_x", ylabel="Δ log3 sep per layer / d_x", title="(b) increment per layer")
    ax[1].legend(fontsize=SMALL)
    return fig


def fig_fit(fit: Fit, rows1: list[dict]):
    """Fig. 3(a) and Fig. 4 recomputed: the fit of ln d_x vs L with the paper's line, and N_tr(L) with its
    ±ΔN band up to L = 100, the GPT-3 models and the paper's suggested points."""
    from lib.core import plots
    fig, ax = plots.subplots(1, 2, width=4.2, height=4.1)
    L = np.array([r[0] for r in TABLE4], float)
    d = np.array([r[1] for r in TABLE4], float)
    dd = np.array([r[2] for r in TABLE4], float)
    xs = np.linspace(0, 36, 50)
    plots.paper_vs_ours(ax[0], xs, fit.a + fit.b * xs, PAPER_FIT["a"] + PAPER_FIT["b"] * xs,
                        label=f"our fit {fit.a:.3f} + {fit.b:.4f} L", paper_label="paper: 5.039 + 0.0555 L")
    for line in ax[0].get_lines():
        line.set_marker("")
    ax[0].errorbar(L, np.log(d), yerr=dd / d, fmt="kx", ms=7, ecolor="red", capsize=3, label="Table 4 (paper's data)")
    ax[0].set(xlabel="depth L", ylabel="ln d_x at the transition", title="(a) Fig. 3(a), recomputed")
    ax[0].legend(fontsize=SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.18))
    Ls = np.linspace(4, 100, 200)
    N = n_transition(Ls, fit.a, fit.b)
    dN = dn_transition(Ls, fit.a, fit.b, fit.cov)
    ax[1].fill_between(Ls, N - dN, N + dN, color="green", alpha=0.25, label="±ΔN_tr (ours)")
    ax[1].semilogy(Ls, N, "g-", label="N_tr(L), eq. 10 (ours)")
    ax[1].semilogy(L, 12 * L * d ** 2, "kx", label="Table 4 points")
    for r in rows1:
        ax[1].plot(r["L"], r["N"], "o", color="purple", ms=5)
        ax[1].plot(r["L_paper"], r["N"], "s", mfc="none", color="black", ms=5)
    ax[1].plot([], [], "o", color="purple", label="GPT-3 as trained")
    ax[1].plot([], [], "s", mfc="none", color="black", label="paper's suggested depth")
    ax[1].errorbar([96, 80], [1.17e12, 1.65e11], yerr=[0.23e12, 0.25e11], fmt="none", ecolor="black", capsize=3,
                   label="paper: N_tr(96), N_tr(80)")
    ax[1].set(xlabel="depth L", ylabel="non-embedding parameters", title="(b) Fig. 4, recomputed")
    ax[1].legend(fontsize=SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    return fig


def fig_float(demos: list[dict]):
    """Singular values of float64 evaluation matrices, with the exact GF(p) rank marked."""
    from lib.core import plots
    fig, ax = plots.subplots(1, 1, width=6.0, height=3.2)
    for k, r in enumerate(demos):
        c = plots.COLORS[k % 8]
        ax[0].semilogy(np.arange(1, len(r["spectrum"]) + 1), np.maximum(r["spectrum"], 1e-300), "-", color=c,
                       label=f"d_x={r['d_x']}, L={r['L']}, N={r['N']} (exact rank {r['exact']})")
        ax[0].axvline(r["exact"], color=c, ls=":")
    ax[0].axhline(1e-9, color="k", lw=0.8, ls="--")
    ax[0].set(xlabel="index k", ylabel="σ_k / σ_1", title="float64 spectra; dotted: exact rank over GF(p)",
              ylim=(1e-45, 2))
    ax[0].legend(fontsize=SMALL)
    return fig


def fig_lm(results, depths: list[int], fit: Fit, vocab: int, unigram: float):
    """Test loss vs non-embedding size per depth (Fig. 2 style), with the paper's extrapolated transition
    sizes N_tr(L) (eq. 10) for the shallower depth of each adjacent pair."""
    from lib.core import plots
    fig, ax = plots.subplots(1, 2, width=4.2, height=3.8)
    for k, L in enumerate(sorted(depths)):
        rs = sorted([r for r in results if r.L == L], key=lambda r: r.size)
        ax[0].semilogx([r.size for r in rs], [r.test_loss for r in rs], "o-", color=plots.COLORS[k % 8],
                       label=f"L = {L}")
    ds = sorted(depths)
    for k, L in enumerate(ds[:-1]):
        ax[0].axvline(float(n_transition(L, fit.a, fit.b)), color=plots.COLORS[k % 8], ls="--", lw=1,
                      label=f"paper's N_tr({L}), extrapolated")
    ax[0].axhline(unigram, color="gray", ls=":", lw=1, label="unigram entropy")
    ax[0].set(xlabel="N = 12 L d_x²", ylabel="held-out loss (nats)", title="(a) loss vs size per depth")
    ax[0].legend(fontsize=SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)
    for k, (Ls, Ld) in enumerate(zip(ds[:-1], ds[1:], strict=False)):
        diffs, xs = [], []
        for rs_ in [r for r in results if r.L == Ls]:
            partner = min((r for r in results if r.L == Ld), key=lambda r: abs(math.log(r.size / rs_.size)))
            xs.append(rs_.size)
            diffs.append(partner.test_loss - rs_.test_loss)
        o = np.argsort(xs)
        ax[1].semilogx(np.array(xs)[o], np.array(diffs)[o], "o-", color=plots.COLORS[k % 8],
                       label=f"loss(L={Ld}) − loss(L={Ls})")
    ax[1].axhline(0, color="k", lw=0.8)
    from matplotlib.ticker import NullFormatter
    ax[0].xaxis.set_minor_formatter(NullFormatter())
    ticks = sorted({r.size for r in results if r.L == ds[0]})
    ax[1].set_xticks(ticks, [f"{t:.2g}" for t in ticks])
    ax[1].xaxis.set_minor_formatter(NullFormatter())
    ax[1].set(xlabel="N = 12 L d_x²", ylabel="deeper − shallower (nats)",
              title="(b) > 0: the shallower model wins")
    ax[1].legend(fontsize=SMALL, loc="upper center", bbox_to_anchor=(0.5, -0.2))
    return fig


def fig_grid(rows: list[dict]):
    """Measured exact ranks against width, one panel per N (non-residual, H = 1), two panels per row, with
    Theorem 3's upper bound (dashed), Theorem 1's lower bound where its regime holds (triangles) and our closed
    forms (thin lines); the legend has a panel of its own."""
    from lib.core import plots
    Ns = sorted({r["case"].N for r in rows if not r["case"].residual})
    nrows = (len(Ns) + 2) // 2
    fig, ax = plots.subplots(nrows, 2, width=4.0, height=2.8)
    depths = sorted({r["case"].L for r in rows if not r["case"].residual and r["case"].H == 1})
    color = {L: plots.COLORS[k % 8] for k, L in enumerate(depths)}
    for a, N in zip(ax, Ns, strict=False):
        sub = [r for r in rows if r["case"].N == N and not r["case"].residual and r["case"].H == 1]
        for L in sorted({r["case"].L for r in sub}):
            rs = sorted([r for r in sub if r["case"].L == L], key=lambda r: r["case"].d_x)
            col = color[L]
            ds = [r["case"].d_x for r in rs]
            a.semilogy(ds, [r["rank"] for r in rs], "o", color=col)
            a.semilogy(ds, [thm3_upper(d, L, 1) for d in ds], "--", color=col, lw=1)
            cf = [ours_closed_form(d, L, 1, N) for d in ds]
            if all(v is not None for v in cf):
                a.semilogy(ds, cf, "-", color=col, lw=0.8, alpha=0.6)
            lo = [(r["case"].d_x, 3 ** r["bounds"]["thm1_log3"][0]) for r in rs if "thm1_log3" in r["bounds"]]
            if lo:
                a.semilogy(*zip(*lo, strict=False), "^", color=col, mfc="none")
        a.set(xlabel="width d_x", ylabel="separation rank", title=f"N = {N}, H = 1")
    key = ax[len(Ns)]
    for L in depths:
        key.plot([], [], "o", color=color[L], label=f"L = {L}: exact rank (ours)")
    key.plot([], [], "k--", lw=1, label="Thm 3 upper bound (paper)")
    key.plot([], [], "k^", mfc="none", label="Thm 1 lower bound (paper)")
    key.plot([], [], "k-", lw=0.8, label="closed form (ours)")
    key.legend(loc="center", fontsize=9.5)
    for a in ax[len(Ns):]:
        a.axis("off")
    return fig


def md_table(rows, head) -> None:
    """Display a Markdown table from a list of tuples (the chapter's tables)."""
    from IPython.display import Markdown, display
    out = "| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n"
    out += "\n".join("| " + " | ".join(str(x) for x in r) + " |" for r in rows)
    display(Markdown(out))


def grid_tables(rows: list[dict]) -> None:
    """The rank grid by record of ``rank_cases``, then every case with its bounds (section 2's folded tables)."""
    groups = {}
    for r in rows:
        c = r["case"]
        groups.setdefault((c.L, c.N, c.H, c.residual), []).append(r)
    md_table([(L, N, H, "yes" if res else "", f"{g[0]['case'].d_x}–{g[-1]['case'].d_x}" if len(g) > 1 else g[0]["case"].d_x,
               ", ".join(str(r["rank"]) for r in g),
               "all" if all(r["bounds"]["closed"] == r["rank"] for r in g) else
               ("—" if all(r["bounds"]["closed"] is None for r in g) else "some"),
               "✓" if all(all(r["checks"].values()) for r in g) else "✗")
              for (L, N, H, res), g in groups.items()],
             ["L", "N", "H", "residual", "d_x", "exact sep, by width", "= closed form (ours)", "inside every bound"])
    md_table([(r["case"].L, r["case"].N, r["case"].H, r["case"].d_x, "res" if r["case"].residual else "", r["rank"],
               "—" if r["bounds"]["closed"] is None else r["bounds"]["closed"], r["bounds"]["regime"],
               _fmt_bounds(r["bounds"], r["case"].residual), "✓" if all(r["checks"].values()) else "✗")
              for r in rows], ["L", "N", "H", "d_x", "", "sep (exact)", "closed form (ours)", "regime", "bounds", "inside"])


def _fmt_bounds(b: dict, res: bool) -> str:
    if res:
        return f"Thm 6 ≤ {b['thm6']:.3g}; Thm 5 ≤ 3^{b['thm5_log3']:.1f}"
    s = f"Thm 3 ≤ {b['thm3']:.3g}"
    if "thm1_log3" in b:
        s += f"; Thm 1: 3^{b['thm1_log3'][0]:.2f} … 3^{b['thm1_log3'][1]:.2f}"
    if "thm2_log3" in b:
        s += f"; Thm 2: 3^{b['thm2_log3'][0]:.1f} … 3^{b['thm2_log3'][1]:.1f}"
    if b["grid_lower"] is not None:
        s += f"; grid ≥ {b['grid_lower']}"
    return s


# ---------------------------------------------------------------------------------------------
# section 2b: the stored exact sweeps as tables
# ---------------------------------------------------------------------------------------------
def _md(title: str, head: list[str], rows: list[list]) -> None:
    from IPython.display import Markdown, display
    out = f"{title}\n\n| " + " | ".join(head) + " |\n|" + "---|" * len(head) + "\n"
    display(Markdown(out + "\n".join("| " + " | ".join(str(x) for x in r) + " |" for r in rows)))


def series_tables(pts: dict) -> None:
    """The stored run as three Markdown tables (and the per-layer growth)."""
    _md(f"**(a) Lemma 6 on the network** (N = {pts['N']}): exact rank of the sub-block of eqs. 29–30",
        ["d_x", "H", "L", "regime", "d", "λ", "block", "rank", "((d,λ))", "∝ (VVᵀ)^⊙λ", "unnormalised rows", "(VVᵀ)^⊙(λ−1)",
         "CPU-s"],
        [[q["d_x"], q["H"], q["L"], regime(q["d_x"], q["L"]), q["d"], q["lam"], q["size"], q["rank"], q["predicted"],
          "yes" if q["proportional"] else "no", q["rank_unnormalised"], q["rank_lambda_minus_1"], f"{q['cpu_s']:.1f}"]
         for q in pts["lemma6"]])
    _md(f"**(b) Exact separation ranks**, N = {pts['N']}, H = 1 (generic weights over GF(p), two independent draws)",
        ["d_x", "L", "sep", "log3 sep", "Thm 3 bound", "our bound binom(D+C, C)", "K", "draws", "CPU-s"],
        [[q["d_x"], q["L"], q["rank"], f"{log3(q['rank']):.3f}", thm3_upper(q["d_x"], q["L"], 1),
          monomial_upper(q["d_x"], q["L"]), q["K"], ", ".join(map(str, q["ranks"])), f"{q['cpu_s']:.1f}"]
         for q in pts["series"] + pts["width_points"]])
    _md("**Per-layer growth** of log3 sep at fixed width (ratio: to the previous increment; Theorem 1's regime would "
        "triple it)", ["d_x", "layers", "growth", "ratio", "d_x", "D = d_x(d_x+1)/2", "2d_x + 1"],
        [[o["d_x"], f"{o['L']}→{o['L'] + 1}", f"{o['inc']:.3f}", "" if o["ratio"] is None else f"{o['ratio']:.2f}",
          o["d_x"], o["D"], 2 * o["d_x"] + 1] for o in pts["increments"]])
    _md("**(c) The smallest width a shallower network needs** to reach a deeper one's exact rank (N = 4, H = 1)",
        ["deep (d_x, L)", "sep", "shallow L", "width", "× d_x", "rank(w−1) < sep ≤ rank(w)", "source"],
        [[f"({t['d_deep']}, {t['L_deep']})", t["target"], t["L"], "—" if t["width"] is None else t["width"],
          "" if t["ratio"] is None else t["ratio"],
          "" if t["width"] is None else f"{t['rank_below']} < {t['target']} ≤ {t['rank_at']}", t["source"]]
         for t in pts["width_table"]])


# ---------------------------------------------------------------------------------------------
# section 6b: the CPU-scale transition (stored sweeps)
# ---------------------------------------------------------------------------------------------
def transition_markdown(out: dict, res: dict) -> str:
    """The per-pair tables: widths, seed-mean losses, δ ± SE, the verdict of the test, the step from which the
    ranking is settled, and the transition the paper's procedure reads off."""
    settled = {(p, s): st for p, v in res.get("settled", {}).items() for s, _, st in v}
    md = []
    for (a, b), o in out.items():
        md.append(f"\n**Pair ({a}, {b})** — δ = loss(L = {a}) − loss(L = {b}), nats; > 0: the deeper network wins\n\n"
                  "| N = 12Ld² | d_x (L = %d) | d_x (L = %d) | loss L = %d | loss L = %d | δ ± SE | t·SE | test | settled from step |\n"
                  "|---|---|---|---|---|---|---|---|---|" % (a, b, a, b))
        for c in o["cells"]:
            md.append(f"| {c.size:.2g} | {c.d_s} | {c.d_d} | {np.mean(c.loss_s):.3f} | {np.mean(c.loss_d):.3f} | "
                      f"{c.delta:+.3f} ± {c.se:.3f} | {c.t_crit * c.se:.3f} | {c.status} | "
                      f"{settled.get(((a, b), c.size), '—')} |")
        t = o["transition"]
        md.append("\n" + (f"Transition (the paper's procedure): d_x ≈ {t['width']:g} ± {t['err']:g} for L = {a}, "
                          f"between N = {o['cells'][t['k'] - 1].size:.2g} ({t['left']}) and {o['cells'][t['k']].size:.2g} "
                          "(deeper significantly better)." if t["found"] else f"No transition read off: {t['why']}."))
    if res.get("matched"):
        md.append("\n**Compute-matched control** (seed 0): δ at equal steps, at equal training FLOPs, and after a quarter "
                  "of training\n\n| pair | N | δ equal steps | δ equal FLOPs | δ at 1/4 of training | 3-seed test |\n|---|---|---|---|---|---|")
        md += [f"| {p} | {s:.2g} | {x:+.3f} | {y:+.3f} | {q:+.3f} | {st} |" for p, s, x, y, q, st in res["matched"]]
    return "\n".join(md)


def fig_transition(ev, out: dict):
    """(a) Held-out loss against N per depth (seed mean ± sd); (b) δ against N per pair, with the ±t·SE bars and
    the transition read off (two panels, 8.4 in: shrunk to 3/4 in the text column, fonts ≥ 8.5 pt)."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 2, figsize=(8.4, 3.3))
    pts = ev.points
    for L in sorted({p["L"] for p in pts}):
        sz = sorted({p["size"] for p in pts if p["L"] == L})
        v = [[q["test_loss"] for q in _losses(pts, L, s)] for s in sz]
        ax[0].errorbar(sz, [np.mean(x) for x in v], yerr=[np.std(x) for x in v], marker="o", ms=4, capsize=3, label=f"L = {L}")
    ax[0].set(xscale="log", xlabel="N = 12 L d_x²", ylabel="held-out loss (nats)", title="(a) loss by depth")
    ax[0].legend(fontsize=9)
    for (a, b), o in out.items():
        cs = o["cells"]
        x, y = [c.size for c in cs], [c.delta for c in cs]
        bar = [c.t_crit * c.se if not math.isnan(c.se) else 0.0 for c in cs]
        ax[1].errorbar(x, y, yerr=bar, marker="o", ms=4, capsize=3, label=f"pair ({a}, {b})")
        t = o["transition"]
        if t["found"]:
            ax[1].axvline(t["size"], ls=":", color=ax[1].lines[-1].get_color())
    ax[1].axhline(0, color="k", lw=0.8)
    ax[1].set(xscale="log", xlabel="N = 12 L d_x²", ylabel="δ = loss(L) − loss(2L)", title="(b) δ (> 0: deeper wins)")
    ax[1].legend(fontsize=9)
    return fig                                            # laid out by the house style's constrained layout


def fig_transition_curves(ev, out: dict):
    """δ over training, per size, for the last pair (seed means of the learning curves)."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 1, figsize=(6.2, 3.2))
    a, b = list(out)[-1]
    cmap = plt.get_cmap("viridis")
    cs = out[(a, b)]["cells"]
    for i, c in enumerate(cs):
        st, dl = curve_delta(ev.points, a, b, c.size)
        ax.plot(st, dl, color=cmap(i / max(1, len(cs) - 1)), label=f"N = {c.size:.2g}")
    ax.axhline(0, color="k", lw=0.8)
    ax.set(xlabel="training step", ylabel="δ (curve batches)", title=f"δ over training, pair ({a}, {b})")
    ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.0, 0.5))
    return fig


def fit_table(fit: Fit) -> None:
    """Section 5: our weighted fit of Table 4 beside the paper's printed values."""
    pf = PAPER_FIT
    md_table([("a", f"{fit.a:.4f}", pf["a"]), ("b", f"{fit.b:.5f}", pf["b"]), ("σ_a", f"{fit.sa:.4f}", pf["sa"]),
              ("σ_b", f"{fit.sb:.2e}", pf["sb"]), ("σ_ab", f"{fit.cov[0, 1]:.3e}", pf["cov_ab"]),
              ("χ²_red", f"{fit.chi2_red:.4f}", pf["chi2_red"]), ("R² (weighted mean ȳ)", f"{fit.R2:.5f}", pf["R2"]),
              ("R² (eq. 59's ȳ = Σ(y/σ²)/n)", f"{fit.R2_paper_formula:.10f}", pf["R2"])], ["quantity", "ours", "paper"])
