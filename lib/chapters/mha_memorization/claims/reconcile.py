"""Book scale beside the paper's scale, per figure (issue 25): one paragraph each, its verdict marks read from the
claims (never retyped) and its sentence computed from the claims' verdicts, variants, values and scales."""
from __future__ import annotations

import re

from lib.chapters.mha_memorization.claims.fig3_converged import reconcile_text


def _verdict(C, i: str, most: int = 3) -> str:
    """A claim's verdict, with what flips it when fragile (the first ``most`` flipping choices and how many more),
    for a sentence."""
    from lib.core.claims import FRAGILE, NOT_RUN
    c = C.claims.get(i)
    if c is None:
        return NOT_RUN
    if c.verdict != FRAGILE:
        return c.verdict
    flips = c.flips or []
    more = f"; and {len(flips) - most} more of its {len(c.variants or [])} variants" if len(flips) > most else ""
    return f"{c.verdict}: {c.base} under our analysis, flipped by {'; '.join(flips[:most])}{more}"


def _nums(text: str, pattern: str) -> list[float]:
    """Every number a claim's formatted value gives for ``pattern`` (one group), e.g. ``R²=([0-9.]+)``."""
    return [float(x.replace("−", "-")) for x in re.findall(pattern, text or "")]


def _says(C, i: str, scale: bool = False) -> str:
    """``verdict (`id`)`` for a sentence, with what flips it when fragile and, with ``scale``, what it was judged on."""
    c = C.claims.get(i)
    on = (c.scale or {}).get("ours", "") if scale and c is not None else ""
    return f"{_verdict(C, i)} (`{i}`{'; ' + on if on else ''})"


def _trend_text(C, what: str, book: str, paper: list[str]) -> str:
    """One trend at both scales: ``what`` is {``book``'s verdict} at book scale and {each of ``paper``'s} at the
    paper's scale, each with what flips it and what it was judged on."""
    return (f"{what}: {_says(C, book)} at book scale; " + ", ".join(_says(C, i, scale=True) for i in paper)
            + " at the paper's scale.")


def _fig2b_text(C) -> str:
    """Fig. 2(b)'s sentence: growth with n at both scales, and n = 1 at the majority class."""
    return (_trend_text(C, "Memorization growing with n", "fig2b-monotone", ["fig2b-monotone-paper-scale"])
            + f" At n = 1 (one shared key) the accuracy is at most the majority class: {_says(C, 'fig2b-n1')} at book "
            f"scale, {_says(C, 'fig2b-n1-paper-scale')} at the paper's scale.")


def _fig4_text(C) -> str:
    """Fig. 4's sentence (per-example contexts): growth with H and n at book scale beside the paper-scale claims (a
    line in H, the plateau in n, the declared 'linearity in n weakened')."""
    return (f"Per-example contexts. At book scale, memorization growing with H {_says(C, 'fig4-heads')}, and with "
            f"n {_says(C, 'fig4-context')}. At the paper's scale a line in H is {_says(C, 'fig4-linear-paper-scale')}"
            f" on the CPU subset and {_says(C, 'fig4-linear-gpu')} on the GPU grid; the count in n levelling off "
            f"beyond n = 5 {_says(C, 'fig4-context-plateau-paper-scale')}, {_says(C, 'fig4-context-plateau-gpu')} (GPU);"
            f" the declared 'linearity in n weakened' is {_says(C, 'fig4-context-paper-scale')}.")


def _fig5_text(C) -> str:
    """Fig. 5's sentence (regression): the training MSE falling with H and with n at both scales."""
    return (_trend_text(C, "Training MSE falling with H", "fig5-monotone", ["fig5a-monotone-paper-scale"]) + " "
            + _trend_text(C, "Falling with n", "fig5-context", ["fig5b-monotone-paper-scale"]))


def _fig2a_text(C) -> str:
    """Fig. 2(a)'s sentence of :func:`reconcile`, from the claims: what holds on the mean of the seeds and on each seed
    alone, and what flips each verdict (its variants), with the closest the onset claim's line comes to a tie."""
    from lib.chapters.mha_memorization.claims.fig2a import seeds_state
    from lib.chapters.mha_memorization.claims.fig2a_seeds import margins, seed_points
    from lib.core.claims import HOLDS, NOT_RUN
    v = lambda i: C.claims[i].verdict if i in C.claims else NOT_RUN                  # noqa: E731
    mono_b, mono_p = v("fig2a-monotone"), v("fig2a-monotone-paper-scale")
    out = ("Both scales agree that memorization grows with H at every T. " if mono_b == mono_p == HOLDS else
           f"Growth with H at every T: {mono_b} at book scale, {mono_p} at the paper's scale. ")
    lin = C.claims.get("fig2a-linear")
    if lin is not None and lin.verdict != NOT_RUN:
        var = {x["choice"]: x for x in lin.variants or []}
        mean = min(_nums(var.get("the paper's threshold R² ≥ 0.98", {}).get("value", lin.ours), r"R²=([0-9.]+)"),
                   default=float("nan"))
        alone = {k.removesuffix(" alone"): min(_nums(x["value"], r"R²=([0-9.]+)"), default=float("nan"))
                 for k, x in var.items() if k.startswith("seed ") and k.endswith(" alone")}
        out += (f"At book scale the line beats the rival curves (`fig2a-linear`, R² ≥ 0.9: {_verdict(C, 'fig2a-linear')}); "
                f"its R² is {mean:.3f} on the mean of the seeds, {'at or above' if mean >= 0.98 else 'below'} the "
                "paper's 0.98" + (", and " + ", ".join(f"{r:.3f} ({k})" for k, r in alone.items()) + " on each seed "
                                  f"alone, {sum(r >= 0.98 for r in alone.values())} of {len(alone)} of them at or above "
                                  "0.98" if alone else "") + ". ")
    out += (f"At the paper's scale the line criterion (R² ≥ 0.98 and above a H² + b) is "
            f"{_verdict(C, 'fig2a-linear-paper-scale')} (`fig2a-linear-paper-scale`); the paper leaves open which points "
            "count as non-saturated and whether the chance floor (H = 1) is fitted "
            f"(`fig2a-reading-paper-scale`: {v('fig2a-reading-paper-scale')}).")
    on = C.claims.get("fig2a-onset-line-paper-scale")
    if on is not None and on.verdict != NOT_RUN:
        seeds, _ = seed_points()
        m = margins(seeds)
        (s0, T0), g = min(m.items(), key=lambda kv: kv[1]) if m else ((None, None), float("nan"))
        out += (f" An onset followed by a line (`fig2a-onset-line-paper-scale`) {on.base} on both seeds under our "
                f"analysis; its verdict is {_verdict(C, 'fig2a-onset-line-paper-scale')}."
                + (f" Where the line wins, it beats a H² + b by as little as {g:.4f} in R² (seed {s0}, T = {T0:,})."
                   if m else ""))
    return out + f" The paper scale is judged on {seeds_state()[1]}."


def _fig2c_text(C) -> str:
    """Fig. 2(c)'s sentence of :func:`reconcile`, from the claims' values: the gain below n and beyond n at each scale
    against the criterion's threshold (:data:`~.paper_scale.GAIN`), with each verdict and what flips it."""
    from lib.chapters.mha_memorization.claims.paper_scale import GAIN
    from lib.core.claims import NOT_DISCRIMINATING, NOT_RUN
    got = lambda i: C.claims[i] if i in C.claims and C.claims[i].verdict != NOT_RUN else None  # noqa: E731
    first = lambda xs: xs[0] if xs else float("nan")                                     # noqa: E731
    bu, bn, pu, pn = (got(i) for i in ("fig2c-up-to-n", "fig2c-no-gain", "fig2c-up-to-n-paper-scale",
                                       "fig2c-no-gain-paper-scale"))
    below, above = [], []
    if bu is not None:
        g = first(_nums(bu.ours, r"^([+−-]?[0-9.]+)"))
        below.append(f"{g:+.3f} at book scale (the least of any d_h in (1, n], mean of the seeds; `fig2c-up-to-n`: "
                     f"{_verdict(C, 'fig2c-up-to-n')})")
    if pu is not None:
        g = first(_nums(pu.ours, r"gain ([+−-]?[0-9.]+)"))
        ctl = (f", because its control, the same gain beyond n, is {pu.control['value']}, at or above {GAIN:g} too"
               if pu.verdict == NOT_DISCRIMINATING and pu.control else "")
        below.append(f"{g:+.3f} at the paper's scale (d_h = n; `fig2c-up-to-n-paper-scale`: {pu.verdict}{ctl})")
    if bn is not None:
        g, tol = first(_nums(bn.ours, r"^([+−-]?[0-9.]+)")), first(_nums(bn.ours, r"margin ([0-9.]+)"))
        above.append(f"{g:+.3f} at book scale (the most of any d_h > n), {'below' if g < tol else 'at or above'} its "
                     f"margin {tol:.3f} (the larger "
                     f"of {GAIN:g} and the seeds' half-range; `fig2c-no-gain`: {_verdict(C, 'fig2c-no-gain')})")
    if pn is not None:
        g = first(_nums(pn.ours, r"gain ([+−-]?[0-9.]+)"))
        above.append(f"{g:+.3f} at the paper's scale (the largest d_h), {'below' if g < GAIN else 'at or above'} {GAIN:g} "
                     f"(`fig2c-no-gain-paper-scale`: {_verdict(C, 'fig2c-no-gain-paper-scale')})")
    if not below and not above:
        return "Not judged at this preset."
    return (f"The criteria call an accuracy gain of at least {GAIN:g} a benefit. Below n, the gain over the smallest "
            "d_h is "
            + ("; ".join(below) or "(not judged)") + ". Beyond n, the gain over d_h = n is "
            + ("; ".join(above) or "(not judged)") + ".")


def reconcile(C) -> str:
    """Markdown: book scale beside the paper's scale, per figure, the marks read from the claims (never retyped)."""
    from lib.core.claims import MARK

    def marks(ids):
        return ", ".join(f"{MARK[C.claims[k].verdict]} `{k}`" for k in ids) or "none"
    rows = []
    texts = {"fig2a": ("Fig. 2(a)", _fig2a_text(C)), "fig2b": ("Fig. 2(b)", _fig2b_text(C)),
             "fig2c": ("Fig. 2(c)", _fig2c_text(C)), "fig4": ("Fig. 4", _fig4_text(C)), "fig5": ("Fig. 5", _fig5_text(C)),
             "fig3": ("Fig. 3", reconcile_text(C))}
    for pre, (name, text) in texts.items():
        ids = [k for k in C.claims if k.startswith(pre)]
        paper_ids = [k for k in ids if "paper" in k or "gpu" in k or k.startswith("fig3-long")]
        rows.append(f"* **{name}.** Book scale: {marks([k for k in ids if k not in paper_ids])}. Paper scale: "
                    f"{marks(paper_ids)}. {text}")
    return "**Book scale beside the paper's scale**\n\n" + "\n".join(rows)
