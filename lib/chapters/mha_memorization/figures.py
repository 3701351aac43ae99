"""Figures and small tables of the mha-memorization chapter (plotting boilerplate, hidden from the reader)."""
from __future__ import annotations

import html
import textwrap

import numpy as np

from lib.chapters.mha_memorization.evidence import T_4 as EV_T4
from lib.core import plots
from lib.core.claims import LINE_WIDTH  # characters of a printed line on the page


def html_table(header: list[str], rows: list[list], caption: str = "") -> None:
    """Display a small HTML table (text/plain fallback); short cells (a mark and a fraction) never break."""
    from IPython.display import display
    e = lambda x: html.escape(str(x))
    h = "".join(f"<th>{e(c)}</th>" for c in header)
    td = lambda c: f'<td style="white-space:nowrap">{e(c)}</td>' if len(str(c)) <= 12 else f"<td>{e(c)}</td>"  # noqa: E731
    b = "".join("<tr>" + "".join(td(c) for c in r) + "</tr>" for r in rows)
    cap = f"<caption>{e(caption)}</caption>" if caption else ""
    plain = "\n".join(" | ".join(str(c) for c in r) for r in [header] + rows)
    display({"text/html": f"<table>{cap}<thead><tr>{h}</tr></thead><tbody>{b}</tbody></table>",
             "text/plain": plain}, raw=True)


def folded(summary: str, lines: list[str]) -> None:
    """Display ``lines`` (a printout, wrapped as :func:`say` wraps) folded under ``summary`` (a <details> block)."""
    from IPython.display import Markdown, display
    body = "\n".join(textwrap.fill(t, LINE_WIDTH, subsequent_indent="    ", break_on_hyphens=False) for t in lines)
    display(Markdown(f"<details><summary>{html.escape(summary)}</summary>\n\n```text\n{body}\n```\n\n</details>"))


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
    fig, axd = plt.subplot_mosaic([["a", "a"], ["b", "c"]], figsize=(8.5, 4.3))
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
    fig, ax = plots.subplots(1, 2, width=4.25, height=2.6)
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
    fig, ax = plots.subplots(1, 1, width=5.2, height=2.8)
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
                      titles: list[str] | None = None, init: list[np.ndarray] | None = None):
    """Fig. 3: per run (row), (a) which heads are saturated for the first examples, (b) histogram of the
    number of saturated heads per example, (c) histogram of the largest softmax weight (``[T, H]`` each).
    ``titles``: one label per run (default ``H=...``); ``init``: the same runs at initialisation, outlined in grey
    on (b) and (c) (the control: an untrained network)."""
    fig, ax = plots.subplots(len(max_weights), 3, width=2.85, height=1.65)
    for r, (mx, H) in enumerate(zip(max_weights, Hs, strict=False)):
        sat = mx > thr
        plots.heatmap(ax[3 * r], sat[:first].T.astype(float), cmap="Greys", vmin=0, vmax=1, colorbar=False)
        ax[3 * r].set(xlabel=f"example (first {first}); black: saturated", ylabel="head")
        ax[3 * r].set_title(titles[r] if titles else f"H={H}", fontsize=9)
        ax[3 * r + 1].hist(sat.sum(1), bins=np.arange(H + 2) - 0.5, color=plots.COLORS[0], label="trained")
        ax[3 * r + 1].set(xlabel="saturated heads per example", ylabel="examples")
        ax[3 * r + 2].hist(mx.ravel(), bins=30, range=(0, 1), color=plots.COLORS[1], label="trained")
        ax[3 * r + 2].set(xlabel="max softmax weight", ylabel="(example, head) pairs" if init is None else "pairs")
        if init is not None:
            m0 = init[r]
            ax[3 * r + 1].hist((m0 > thr).sum(1), bins=np.arange(H + 2) - 0.5, histtype="step", color="#57606a",
                               lw=1.2, label="at init")
            ax[3 * r + 2].hist(m0.ravel(), bins=30, range=(0, 1), histtype="step", color="#57606a", lw=1.2,
                               label="at init")
            ax[3 * r + 2].set_yscale("log")
            if r == 0:
                ax[3 * r + 1].legend(fontsize=8)
    return fig


def paper_scale_panels(fig2b: dict, fig2c: dict, fig4: dict, fig5: dict, gpu: dict | None = None) -> None:
    """The stored paper-scale panels of Figs. 2(b), 2(c), 4 and 5 (only those whose run is complete; the curves of
    :mod:`~lib.chapters.mha_memorization.claims.fig245`); on Fig. 4's panels, the official grid trained on a GPU
    (``gpu``: {"H": {T: panel}, "n": {T: panel}}, :mod:`~lib.chapters.mha_memorization.claims.fig4_gpu`), one line
    per complete T."""
    gpu = gpu or {}
    panels = [k for k, v in (("2b", fig2b), ("2c", fig2c), ("4", "H" in fig4 or gpu.get("H")),
                             ("4n", "n" in fig4 or gpu.get("n")), ("5a", fig5), ("5b", fig5)) if v]
    if not panels:
        return
    cols = min(3, len(panels))
    _, axes = plots.subplots(-(-len(panels) // cols), cols, width=8.5 / cols, height=2.1)  # per panel; 8.5 in wide
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
            if key in fig4:
                xs, mem, _ = fig4[key]
                ax.plot(xs, mem, marker="o", color="k", ls="none", label=f"CPU, T = {EV_T4:,}")
            for j, (T, (xs, _, mem, _)) in enumerate((gpu.get(key) or {}).items()):
                ax.plot(xs, mem, marker=".", color=plots.COLORS[j % len(plots.COLORS)], label=f"GPU, T = {T:,}")
            ax.set(xlabel="heads H (n = 32)" if k == "4" else "context size n (H = 20)", ylabel="memorized count",
                   title=f"Fig. 4, per-example, vs {key}")
        else:
            key = "H" if k == "5a" else "n"
            for j, (T, (xs, mse)) in enumerate(fig5[key].items()):
                ax.semilogy(xs, mse, marker="o", color=plots.COLORS[j % len(plots.COLORS)], label=f"T = {T:,}")
            ax.set(xlabel=key, ylabel="training MSE", title=f"Fig. 5({k[1]}), regression")
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
        ax.title.set_fontsize(11)


def fig3_curves(short: list[dict], long: dict[int, dict], paper_T: dict[int, int], total: int,
                shade: tuple[int, int], long_total: int = 0, long_shade: tuple[int, int] | None = None,
                long1: dict[int, dict] | None = None) -> None:
    """Fig. 3's training (App. H): training accuracy against steps at each H for every stored T of ``short`` (the
    300k-step fig3 points, the paper's T thick), the paper's T trained longer (``long``: {H: fig3-long point},
    dashed black, once stored; ``long1``: the same on seed 1, dashed purple), and the learning rate over its peak (dotted,
    right axis), with the judged window ``shade`` (steps) shaded
    (:mod:`~lib.chapters.mha_memorization.claims.fig3_converged`)."""
    from lib.engine.schedules import lr_factors
    Hs = sorted({p["H"] for p in short})
    _, axes = plots.subplots(1, len(Hs), width=4.2, height=2.6)
    for ax, H in zip(axes, Hs, strict=True):
        for i, p in enumerate(sorted((p for p in short if p["H"] == H), key=lambda p: p["T"])):
            s, a = zip(*[(x, y) for x, _, y in p["history"]], strict=True)
            ax.plot(np.array(s) / 1000, a, color=plots.COLORS[i % len(plots.COLORS)], lw=1.2 + (p["T"] == paper_T[H]),
                    label=f"T = {p['T']}" + (" (paper)" if p["T"] == paper_T[H] else ""))
        if H in long:
            s, a = zip(*[(x, y) for x, _, y in long[H]["history"]], strict=True)
            ax.plot(np.array(s) / 1000, a, color="k", ls="--", label=f"T = {paper_T[H]}, long schedule")
        if H in (long1 or {}):
            s, a = zip(*[(x, y) for x, _, y in long1[H]["history"]], strict=True)
            ax.plot(np.array(s) / 1000, a, color="#8250df", ls="--", label=f"T = {paper_T[H]}, long, seed 1")
            if long_shade:
                ax.axvspan(long_shade[0] / 1000, long_shade[1] / 1000, color="#ddeeff", zorder=0)
        ax.axvspan(shade[0] / 1000, shade[1] / 1000, color="#eeeeee", zorder=0)
        lr = ax.twinx()
        steps = np.arange(0, total, 1000)
        lr.plot(steps / 1000, lr_factors("warmup_cosine", steps, total, lr=1.0), color="#999999", ls=":")
        if H in long and long_total:
            ls = np.arange(0, long_total, 1000)
            lr.plot(ls / 1000, lr_factors("warmup_cosine", ls, long_total, lr=1.0), color="#6e7781", ls="-.", lw=0.9)
        lr.set(ylim=(0, 1.05), ylabel="learning rate / peak (dotted)")
        ax.set(xlabel="steps (thousands)", ylabel="training accuracy", ylim=(0, 1.02), title=f"H = {H}")
        ax.legend(fontsize=8, loc="lower right")


def capacity_figure(rows: list[dict], H: int, n: int, d: int):
    """Largest residual against T for frozen and trained key/query weights, with B and the parameter count."""
    from lib.chapters.mha_memorization.train.capacity import TOL, bound, effective_params
    fig, axes = plots.subplots(1, 1, width=5.6, height=2.9)
    ax = axes[0]
    for kind, c, m in (("frozen K/Q", plots.COLORS[1], "s"), ("trained K/Q", plots.COLORS[0], "o")):
        pts = [(r["T"], max(r["max_err"], 1e-16)) for r in rows if r["kind"] == kind]
        ax.scatter(*zip(*pts, strict=True), color=c, marker=m, s=18, label=kind, alpha=0.8)
    B, P = bound(H, n), effective_params(H, n, d)
    ax.axvline(B, color="k", ls=":", lw=1)
    ax.axvline(P, color="#57606a", ls="--", lw=1)
    ax.axhline(TOL, color="#1a7f37", lw=0.8)
    ax.text(B, 1e-15, " B = H(n−1)+1", fontsize=8)
    ax.text(P, 1e-15, " H((n−1)d+n)", fontsize=8, ha="right")
    ax.set(yscale="log", xlabel="examples T", ylabel="max |ŷ − y| after fitting",
           title=f"eqs. (1)-(6), shared context, d={d}, n={n}, H={H}")
    ax.legend(fontsize=8, loc="center right")
    return fig


def say(text: str) -> None:
    """Print a long line wrapped at :data:`~lib.core.claims.LINE_WIDTH` characters (continuation lines indented)."""
    print(textwrap.fill(text, LINE_WIDTH, subsequent_indent="    ", break_on_hyphens=False))


def construction(P: dict, rng: np.random.Generator, n: int, d: int, rank_rows: list):
    """One construction of Theorem 1 at the grid's largest H and d_h (shared context) and its figure
    (:func:`construction_figure`). Returns (the figure, the query's softmax weights θ [T, H, n]), and prints the
    range of its saturation scales."""
    from lib.chapters.mha_memorization.theory import construction as con
    from lib.chapters.mha_memorization.theory import layer as mha
    Hf, dhf = max(P["con_H"]), max(P["con_dh"])
    Tf = Hf * (min(n, dhf) - 1) + 1
    Ef, ef = mha.uniform_data(Tf, n, d, rng)
    resf = con.memorize_check(Ef, ef, rng.standard_normal((Tf, 1)), Hf, dhf, 1, rng)
    theta_con = mha.softmax_weights(Ef, ef, resf["con"].W_K, resf["con"].W_Q)        # [T, H, n]
    fig = construction_figure(resf, rank_rows, n, d, theta_con)
    if resf["con"].c:
        print(f"this construction's saturation scales c_h: {min(resf['con'].c):.1e} to {max(resf['con'].c):.1e}")
    return fig, theta_con


def prop3_table(n: int, d: int) -> None:
    """Proposition 3 beside Theorem 1 at (about) equal parameter count, at the book's (n, d) and the paper's (32, 64)."""
    from lib.chapters.mha_memorization.theory import appendices as app
    from lib.chapters.mha_memorization.theory import layer as mha
    rows = []
    for H in (1, 4, 16, 64):
        for n_, d_ in ((n, d), (32, 64)):
            p_mha = mha.param_count(H, d_, n_, 1, 1)["true"]
            m_eq = p_mha // ((n_ + 1) * d_ + 2)                        # FCN width with at most as many parameters
            rows.append([H, n_, d_, p_mha, H * (n_ - 1) + 1, m_eq, app.fcn_params(n_, d_, m_eq, 1),
                         f"{app.fcn_bound(n_, m_eq, 1):.0f}"])
    html_table(["H", "n", "d", "MHA params (d_h=n, d_v=d_out=1)", "MHA: memorizes ≥ H(n−1)+1",
                "FCN width m", "FCN params", "FCN: memorizes ≤ (n+1)m+m+1"], rows,
               "Proposition 3 beside Theorem 1 at (about) equal parameter count: both Θ(Hn)")


PAPER_T1 = {"Embedding": ("✗ (0.0)", "✗ (0.0)", "✓ (1.0)", "✓ (1.0)"),
            "Random attention": ("✗ (0.0)", "✓ (1.0)", "✓ (1.0)", "–"),
            "Random ViT (layer 1)": ("✗ (0.0)", "✓ (1.0)", "✓ (1.0)", "–"),
            "Trained proxy ViT (layer 1)": ("✗ (0.0)", "✓ (0.998)", "✓ (1.0)", "–")}


def table1(vit_rows: dict, P: dict, info: dict | None = None) -> None:
    """Table 1, ours beside the paper's (fractions from the official notebook); ``info``: the proxy's accuracy."""
    mark = lambda f: "–" if f != f else ("✓" if f >= 0.99 else "✗") + f"\u00a0{f:.2f}"    # noqa: E731  one line
    rows = [[src, name, mark(r["GP"]), mark(r["A1"]), mark(r["A2"]), mark(r["A3"]),
             f"{r['rank_d'].min()}–{r['rank_d'].max()}" if r["rank_d"].size else "–",
             "\u00a0".join(m.split()[0] for m in PAPER_T1[name])]
            for (src, name), r in vit_rows.items()]
    paper_f = sorted({m.split()[1].strip("()") for ms in PAPER_T1.values() for m in ms if " " in m})
    sizes = sorted({f"n = {r['n']}, d = {r['d']}" for r in vit_rows.values()})
    proxy = (f" The trained proxy ViT reaches training accuracy {info['proxy_acc']:.2f} on the 1797 digits after "
             f"{P['vit_train_epochs']} epochs." if info and "proxy_acc" in info else "")
    html_table(["data", "layer", "Gen. Pos.", "Asm. 1", "Asm. 2", "Asm. 3", "ranks at k=d",
                "paper: GP A1 A2 A3"], rows,
               f"Table 1, ours ({'; '.join(sizes)}) beside the paper's (ImageNet ViT-B/16; its trained rows are the "
               f"pretrained model). Fractions of {P['vit_trials']} random subsets; ✓ = ≥ 0.99. Paper marks from "
               f"the official notebook (its fractions: {', '.join(paper_f)}); its ranks at k=d=768: 1 / ≈472 / ≈717 / "
               "≈313." + proxy)


GD_PANELS = {"heads": ("H", "heads H", "memorized fraction", "Fig. 2a: vs heads"),
             "context": ("n", "context size n", "memorized fraction", "Fig. 2b: vs context size"),
             "dh": ("dh", "key/query dim d_h", "memorized fraction", "Fig. 2c: vs d_h"),
             "regression": ("H", "heads H", "training MSE", "Fig. 5a: regression, vs H"),
             "regression_n": ("n", "context size n", "training MSE", "Fig. 5b: regression, vs n"),
             "nonshared": ("H", "heads H", "memorized fraction", "Fig. 4: per-example, vs H"),
             "nonshared_n": ("n", "context size n", "memorized fraction", "Fig. 4: per-example, vs n")}


def gd_figure(gd: dict, P: dict):
    """The book-scale gradient-descent panels (Figs. 2, 4, 5), one per sweep run; None when none ran."""
    from lib.chapters.mha_memorization.claims.gd import head_fits
    fits = ({T: (f["coef"], f["r2"]["H"], f["H"]) for T, f in head_fits(gd["heads"], P["gd_T_heads"]).items()}
            if "heads" in gd else {})
    panels = [k for k in GD_PANELS if k in gd]
    if not panels:
        return None
    cols = min(3, len(panels))
    fig, axs = plots.subplots(-(-len(panels) // cols), cols, width=8.5 / cols, height=2.05)    # 8.5 in wide
    for ax in axs[len(panels):]:
        ax.set_visible(False)
    for ax, k in zip(axs, panels, strict=False):
        key, xl, yl, ti = GD_PANELS[k]
        gd_panel(ax, gd[k], "best_loss" if k.startswith("regression") else "best_acc", key, xl, yl, ti,
                 logy=k.startswith("regression"), fits=fits if k == "heads" else None)
        if k in ("heads", "nonshared"):
            Hs = np.array(P["gd_heads"])
            T = (P["gd_T_heads"] if k == "heads" else P["gd_T_nonshared"])[0]
            ax.plot(Hs, np.minimum(1, (Hs * (P["gd_n"] - 1) + 1) / T), "k--", lw=0.8, label=f"H(n−1)+1 over T={T}")
            ax.legend(fontsize=8, loc="center right")
        if k == "dh":
            ax.axvline(P["gd_n"], color="k", ls=":", lw=1)
        ax.title.set_fontsize(10)
        if k == "heads":
            ax.text(0.02, 0.97, "paper: linear in H, R² ≥ 0.98", transform=ax.transAxes, ha="left", va="top", fontsize=8)
    return fig


def gd_summary(gd: dict, P: dict) -> None:
    """Print each sweep's mean ± half-range over seeds, per T and swept value."""
    from lib.chapters.mha_memorization.claims.gd import by
    for k in GD_PANELS:
        if k in gd:
            key, val = GD_PANELS[k][0], ("best_loss" if k.startswith("regression") else "best_acc")
            parts = []
            for T in sorted({r["T"] for r in gd[k]}):
                g = by(gd[k], key, lambda r, T=T: r["T"] == T, val=val)
                parts.append(f"T={T}: " + ", ".join(f"{x}:{np.mean(v):.3f}±{(max(v) - min(v)) / 2:.3f}" for x, v in g.items()))
            say(f"{k} ({'MSE' if k.startswith('regression') else 'accuracy'}, mean ± half-range over {P['gd_seeds']} seeds): "
                + "; ".join(parts))


def saturation_table(sat: dict | None, theta_con: np.ndarray) -> None:
    """App. H's statistics of the book-scale saturation runs beside the construction's (Markdown; nothing without
    the runs), followed by where the claims read them (``sat["note"]``, :func:`~.claims.fig3.book_T_note`)."""
    if not sat:
        return
    from IPython.display import Markdown, display
    rows_md = "\n".join(f"| {s['H']} | {s['T']} | {s['steps']} | {s['acc']:.3f} | {s['pairs']:.2f} | {s['free']:.2f} | "
                        f"{s['both']:.2f} | {s['init']['pairs']:.2f} |" for s in sat["stats"])
    con = sat["con"]
    display(Markdown("| H | T | steps | train acc. | saturated pairs | examples with a free head | with a saturated and a "
                     "free head | saturated pairs at init |\n|---|---|---|---|---|---|---|---|\n" + rows_md +
                     f"\n| construction ({theta_con.shape[1]} heads) | {theta_con.shape[0]} | – | 1 | {con['pairs']:.2f} | "
                     f"{con['free']:.2f} | {con['both']:.2f} | – |" + (f"\n\n{sat['note']}" if sat.get("note") else "")))


def saturation_book(gd: dict, P: dict):
    """Fig. 3 at book scale: :func:`saturation_figure` of the saturation runs at the longest budget (None without)."""
    if "saturation" not in gd:
        return None
    last = [r for r in gd["saturation"] if r["steps"] == max(P["sat_steps"])]
    return saturation_figure([np.array(r["max_weight"]) for r in last], [r["H"] for r in last])
