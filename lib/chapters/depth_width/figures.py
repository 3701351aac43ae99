"""Levine et al. (2020): the chapter's figures.
"""
from __future__ import annotations

import math

import numpy as np

from lib.chapters.depth_width.bounds import log3, log3_sep_n2, ours_closed_form, thm3_upper
from lib.chapters.depth_width.fit import PAPER_FIT, TABLE4, Fit, dn_transition, n_transition


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


def verdict_lines(C, since: int) -> None:
    """Print the verdict line (a claim's repr) of every claim recorded in the ledger ``C`` after its first ``since``
    claims, under the check that recorded them."""
    for c in list(C.claims.values())[since:]:
        print(repr(c))
