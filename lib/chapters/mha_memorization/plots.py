"""Figures and small tables of the mha-memorization chapter (plotting boilerplate, hidden from the reader)."""
from __future__ import annotations

import html

import numpy as np

from lib.core import plots


def html_table(header: list[str], rows: list[list], caption: str = "") -> None:
    """Display a small HTML table (text/plain fallback)."""
    from IPython.display import display
    e = lambda x: html.escape(str(x))
    h = "".join(f"<th>{e(c)}</th>" for c in header)
    b = "".join("<tr>" + "".join(f"<td>{e(c)}</td>" for c in r) + "</tr>" for r in rows)
    cap = f"<caption>{e(caption)}</caption>" if caption else ""
    plain = "\n".join(" | ".join(str(c) for c in r) for r in [header] + rows)
    display({"text/html": f"<table>{cap}<thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>",
             "text/plain": plain}, raw=True)


def pending() -> list:
    """The figures a library call left open, closed in pyplot (so the cell does not display them inline) and
    returned in the order drawn, for :func:`lib.core.plots.show` to display one per cell with a caption."""
    import matplotlib.pyplot as plt
    figs = [plt.figure(i) for i in plt.get_fignums()]
    for f in figs:
        plt.close(f)
    return figs


def construction_figure(res: dict, rank_rows: list[tuple[int, int, int]], n: int, d: int, theta: np.ndarray):
    """(a) max_i θ_h^(t) of the constructed network (heads x examples), responsible examples boxed;
    (b) log10 of the saturation scale c_h; (c) rank(Z) of the constructions vs H against H(r-1)+1.
    Panel (a) spans the top row, (b) and (c) share the bottom row (8.5 in wide: no shrinking in the text column)."""
    import matplotlib.pyplot as plt
    con = res["con"]
    fig, axd = plt.subplot_mosaic([["a", "a"], ["b", "c"]], figsize=(8.5, 6.0))
    ax = [axd["a"], axd["b"], axd["c"]]
    M = theta.max(axis=2).T                                                   # [H, T]
    plots.heatmap(ax[0], M, cmap="magma", vmin=1 / n, vmax=1)
    for h, R in enumerate(con.responsible):
        for t in R:
            ax[0].add_patch(__import__("matplotlib").patches.Rectangle((t - .5, h - .5), 1, 1, fill=False,
                                                                          ec="#1a7f37", lw=1.5))
    ax[0].set(xlabel="example t", ylabel="head h", title="(a) max softmax weight; green boxes: the head's own examples")
    ax[0].set_yticks(range(M.shape[0]), [str(h + 1) for h in range(M.shape[0])])
    if con.c:
        ax[1].bar(range(2, 2 + len(con.c)), np.log10(con.c), color=plots.COLORS[0])
        ax[1].set_xticks(range(2, 2 + len(con.c)))
    ax[1].set(xlabel="head h", ylabel="log10 c_h", title="(b) saturation scale c_h")
    Hs = sorted({h for h, _, _ in rank_rows})
    for i, r in enumerate(sorted({r for _, r, _ in rank_rows})):
        pts = [(h, k) for h, rr, k in rank_rows if rr == r]
        ax[2].plot([p[0] for p in pts], [p[1] for p in pts], "o", color=plots.COLORS[i % 8], label=f"ours, r={r}")
        ax[2].plot(Hs, [h * (r - 1) + 1 for h in Hs], "--", color=plots.COLORS[i % 8], lw=1,
                   label=f"H(r-1)+1, r={r}")
    ax[2].set(xlabel="H", ylabel="rank Z = T", title="(c) rank of Z (shared contexts)")
    ax[2].set_xticks(Hs)
    ax[2].legend(fontsize=8)
    return fig


def spectra_figure(spectra: dict, bound: dict, ratio_rows: list[tuple[int, float, float]]):
    """(a) singular values of Z for random weights (one draw per d_h) with the bound H(n-1)+1 marked;
    (b) σ_{H(n-1)+1}/σ_1 against d_h and the weight scale: the rank is reached, the conditioning is not."""
    fig, ax = plots.subplots(1, 2, width=4.25, height=3.4)
    for i, (lab, s) in enumerate(spectra.items()):
        ax[0].semilogy(np.arange(1, len(s) + 1), np.maximum(s / s[0], 1e-18), ".-", ms=3, color=plots.COLORS[i % 8],
                       label=lab)
    for B in set(bound.values()):
        ax[0].axvline(B + 0.5, color="k", ls=":", lw=1)
    ax[0].set(xlabel="index i", ylabel="σ_i / σ_1", title="(a) spectrum of Z")
    ax[0].legend(fontsize=8)
    for i, sc in enumerate(sorted({s for _, s, _ in ratio_rows})):
        pts = sorted((k, v) for k, s, v in ratio_rows if s == sc)
        ax[1].semilogy([p[0] for p in pts], [p[1] for p in pts], "o-", color=plots.COLORS[i % 8], label=f"scale {sc:g}")
    ax[1].set(xscale="log", xlabel="d_h", ylabel="σ_B / σ_1 (median), B = H(n-1)+1", title="(b) last singular value ≤ bound")
    ax[1].legend(fontsize=8)
    return fig


def vit_figure(curves: dict, n: int, d: int):
    """Fig. 1: fraction of random k-subsets of the query tokens with full rank, against k."""
    fig, ax = plots.subplots(1, 1, width=5.2, height=3.2)
    ax = ax[0]
    for i, (lab, (ks, fr)) in enumerate(curves.items()):
        ax.plot(ks, fr, "o-", color=plots.COLORS[i % 8], label=f"ours: {lab}")
    # the paper's Fig. 1 (random attention on ImageNet, n=197, d=768), rescaled to k/n, read off the figure
    kp = np.array([0, 240, 290, 330, 768]) / 197 * n
    ax.plot(kp, [1, 1, 0.5, 0, 0], "s--", color="k", mfc="none", label="paper Fig. 1 (k rescaled by n/197, approx.)")
    ax.axvline(n, color="k", ls=":", lw=1)
    ax.axvline(d, color="k", ls="-.", lw=1)
    ax.set(xlabel="Kruskal-rank candidate k", ylabel="fraction of k-subsets of full rank",
           title=f"queries after one random attention layer (n={n}, d={d})", xlim=(0, d * 1.05))
    ax.legend(fontsize=8)
    return fig


def _agg(rows, val, key, line_key):
    """Mean, min and max over seeds of ``row[val]`` grouped by (line, x)."""
    out = {}
    for r in rows:
        out.setdefault(r[line_key], {}).setdefault(r[key], []).append(r[val])
    return {l: (np.array(sorted(g)), np.array([np.mean(g[x]) for x in sorted(g)]),
                np.array([np.min(g[x]) for x in sorted(g)]), np.array([np.max(g[x]) for x in sorted(g)]))
            for l, g in sorted(out.items())}


def gd_panel(ax, rows, val: str, key: str, xlabel: str, ylabel: str, title: str, logy: bool = False,
             fits: dict | None = None):
    """One panel of Fig. 2 / 4 / 5: one line per dataset size T (mean over seeds, min-max band)."""
    for i, (T, (x, mu, lo, hi)) in enumerate(_agg(rows, val, key, "T").items()):
        c = plots.COLORS[i % 8]
        ax.plot(x, mu, "o-", color=c, label=f"ours, T={T}")
        ax.fill_between(x, lo, hi, color=c, alpha=0.15, lw=0)
        if fits and T in fits:
            (a, b), r2, xs = fits[T]
            xs = np.array(xs)
            ax.plot(xs, (a * xs + b) / T, ":", color=c, lw=1.2, label=f"linear fit, R²={r2:.3f}")
    if logy:
        ax.set_yscale("log")
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend(fontsize=8)


def saturation_figure(max_weights: list[np.ndarray], Hs: list[int], thr: float = 0.99, first: int = 20,
                      titles: list[str] | None = None):
    """Fig. 3: per run (row), (a) which heads are saturated for the first examples, (b) histogram of the
    number of saturated heads per example, (c) histogram of the largest softmax weight (``[T, H]`` each).
    ``titles``: one label per run (default ``H=...``)."""
    fig, ax = plots.subplots(len(max_weights), 3, width=2.85, height=2.6)
    for r, (mx, H) in enumerate(zip(max_weights, Hs, strict=False)):
        sat = mx > thr
        plots.heatmap(ax[3 * r], sat[:first].T.astype(float), cmap="Greys", vmin=0, vmax=1, colorbar=False)
        ax[3 * r].set(xlabel=f"example (first {first}); black: saturated", ylabel="head")
        ax[3 * r].set_title(titles[r] if titles else f"H={H}", fontsize=9)
        ax[3 * r + 1].hist(sat.sum(1), bins=np.arange(H + 2) - 0.5, color=plots.COLORS[0])
        ax[3 * r + 1].set(xlabel="saturated heads per example", ylabel="examples")
        ax[3 * r + 2].hist(mx.ravel(), bins=30, range=(0, 1), color=plots.COLORS[1])
        ax[3 * r + 2].set(xlabel="max softmax weight", ylabel="(example, head) pairs")
    return fig


def paper_scale_panels(fig2b: dict, fig2c: dict, fig4: dict, fig5: dict) -> None:
    """The stored paper-scale panels of Figs. 2(b), 2(c), 4 and 5 (only those whose run is complete; the curves of
    :mod:`~lib.chapters.mha_memorization.stored_fig245`)."""
    panels = [k for k, v in (("2b", fig2b), ("2c", fig2c), ("4", "H" in fig4), ("4n", "n" in fig4), ("5a", fig5),
                             ("5b", fig5)) if v]
    if not panels:
        return
    cols = min(2, len(panels))
    _, axes = plots.subplots(-(-len(panels) // cols), cols, width=4.25, height=3.0)     # width and height per panel
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    for ax, k in zip(axes, panels, strict=False):
        if k == "2b":
            for i, (T, (ns, _, acc)) in enumerate(fig2b.items()):
                ax.plot(ns, acc, marker="o", color=plots.COLORS[i % len(plots.COLORS)], label=f"T = {T:,}")
            ax.set(xlabel="context size n", ylabel="best accuracy", title="Fig. 2(b), H = 20")
        elif k == "2c":
            ax.plot(list(fig2c), list(fig2c.values()), marker="o")
            ax.axvline(32, color="k", ls=":", lw=1)
            ax.set(xlabel="d_h", ylabel="best accuracy", title="Fig. 2(c), H = 30, n = 32")
        elif k in ("4", "4n"):
            key = "H" if k == "4" else "n"
            xs, mem, _ = fig4[key]
            ax.plot(xs, mem, marker="o")
            ax.set(xlabel="heads H (n = 32)" if k == "4" else "context size n (H = 20)", ylabel="memorized count",
                   title="Fig. 4, per-example contexts")
        else:
            key = "H" if k == "5a" else "n"
            ax.semilogy(*fig5[key], marker="o")
            ax.set(xlabel=key, ylabel="training MSE", title=f"Fig. 5({k[1]}), regression")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
