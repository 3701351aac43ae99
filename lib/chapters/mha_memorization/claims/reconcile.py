"""Book scale beside the paper's scale, per figure (issue 25): one paragraph each, its verdict marks read from the
claims (never retyped) and its sentence computed from the verdicts (Fig. 2(a), Fig. 3) or stated once (the others)."""
from __future__ import annotations

from lib.chapters.mha_memorization.claims.fig3_converged import reconcile_text


RECONCILE = {
    "fig2b": ("Fig. 2(b)", "Memorization grows with n at both scales; at the paper's scale one reading of 'saturated' "
              "(accuracy ≥ 0.9999) breaks the trend. n = 1 stays at the majority class, as the architecture forces."),
    "fig2c": ("Fig. 2(c)", "Neither scale separates the two halves cleanly: below n, d_h helps but by a margin near the "
              "threshold (and the paper-scale gain is matched by its control); above n, the book's seeds cannot resolve a "
              "gain, while the paper-scale run shows one (its size is in the claim's 'ours')."),
    "fig4": ("Fig. 4", "Per-example contexts: memorization grows with H and n at book scale; at the paper's scale the "
             "count in n plateaus beyond n = 5, and linearity in H depends on the chance floor, as in Fig. 2(a)."),
    "fig5": ("Fig. 5", "The regression MSE falls with H and n at the paper's scale without exception; the book-scale "
             "trends hold but are fragile (they flip under the variants listed in the claims table)."),
}


def _fig2a_text(C) -> str:
    """Fig. 2(a)'s sentence of :func:`reconcile`, from the verdicts (which seeds the paper scale is judged on included)."""
    from lib.chapters.mha_memorization.claims.fig2a import seeds_state
    from lib.core.claims import FRAGILE, HOLDS, NOT_RUN
    v = lambda i: C.claims[i].verdict if i in C.claims else NOT_RUN                  # noqa: E731
    mono_b, mono_p = v("fig2a-monotone"), v("fig2a-monotone-paper-scale")
    lin_b, lin_p = v("fig2a-linear"), v("fig2a-linear-paper-scale")
    out = ("Both scales agree that memorization grows with H at every T. " if mono_b == mono_p == HOLDS else
           f"Growth with H at every T: {mono_b} at book scale, {mono_p} at the paper's scale. ")
    if lin_b == lin_p == FRAGILE:
        out += ("Whether the growth is linear with R² ≥ 0.98 turns, at both scales, on which points count as "
                "non-saturated and whether the chance floor (H = 1) is fitted: the paper leaves both open.")
    else:
        out += (f"Linearity in H with R² ≥ 0.98: {lin_b} at book scale, {lin_p} at the paper's scale; the paper leaves "
                "open which points count as non-saturated and whether the chance floor (H = 1) is fitted "
                f"(`fig2a-reading-paper-scale`: {v('fig2a-reading-paper-scale')}).")
    on = v("fig2a-onset-line-paper-scale")
    out += (" Both seeds show an onset followed by a line (`fig2a-onset-line-paper-scale`)." if on == HOLDS else
            f" An onset followed by a line is not established on both seeds (`fig2a-onset-line-paper-scale`: {on}).")
    return out + f" The paper scale is judged on {seeds_state()[1]}."


def reconcile(C) -> str:
    """Markdown: book scale beside the paper's scale, per figure, the marks read from the claims (never retyped)."""
    from lib.core.claims import MARK

    def marks(ids):
        return ", ".join(f"{MARK[C.claims[k].verdict]} `{k}`" for k in ids) or "none"
    rows = []
    for pre, (name, text) in {"fig2a": ("Fig. 2(a)", _fig2a_text(C)), **RECONCILE,
                              "fig3": ("Fig. 3", reconcile_text(C))}.items():
        ids = [k for k in C.claims if k.startswith(pre)]
        paper_ids = [k for k in ids if "paper" in k or "gpu" in k or k.startswith("fig3-long")]
        rows.append(f"* **{name}.** Book scale: {marks([k for k in ids if k not in paper_ids])}. Paper scale: "
                    f"{marks(paper_ids)}. {text}")
    return "**Book scale beside the paper's scale**\n\n" + "\n".join(rows)
