"""The paper-scale claims of Figs. 2(b), 2(c), 4, 5 and of Fig. 2(a)'s second seed (Mahdavi et al. 2024, Sec. 5.2,
App. A, App. I.1): each claim's statement and the paper's words, its criterion (declared before any run; a claim not
run states it next to its cost and command), and the rows of the page's table. Judged by
:mod:`~.fig2bc`, :mod:`~.fig45` and :mod:`~.fig245` on the stored sweeps, with the readers of
those sweeps shared by them (below the declarations).
"""
from __future__ import annotations

import torch

from lib.book import evidence as store
from lib.book import stored_claims
from lib.chapters.mha_memorization import evidence as EV
from lib.chapters.mha_memorization import model as mha_model
from lib.chapters.mha_memorization.claims.fig2a import FLOOR, READINGS, SATURATED, increasing, majority
from lib.core import robust
from lib.core.claims import EXPERIMENT, FINDING, SANITY, Claims

CHAPTER = EV.CHAPTER

MSE_FLOOR = 1e-4        # two models both below this training MSE are tied (fig5*-monotone)
GAIN = 0.05             # fig2c: a difference in accuracy of at least this is a benefit
PLATEAU = 1.25          # fig4-context-plateau: count(largest n) / count(n = 5) at most this is flat in n

CRITERIA = {     # declared before any run; a not-run claim states its criterion next to its cost and command
    "fig2b-monotone-paper-scale": f"count strictly increasing in n at every T, except between two models of accuracy "
                                  f"≥ {SATURATED}",
    "fig2b-n1-paper-scale": "best accuracy ≤ the majority-class fraction of the point's labels, at every stored T",
    "fig2c-up-to-n-paper-scale": f"acc(d_h = n) − acc(smallest d_h) ≥ {GAIN}",
    "fig2c-no-gain-paper-scale": f"acc(largest d_h) − acc(d_h = n) < {GAIN}",
    "fig4-linear-paper-scale": f"R² of count ~ a H + b ≥ 0.98 and ≥ that of a H² + b, on ≥ 3 points of accuracy ≤ "
                               f"{SATURATED}",
    "fig4-context-paper-scale": f"on the context panel (H = 20, one T) the line count ~ a n + b fails the criterion of "
                                f"fig4-linear-paper-scale (R² < 0.98 or below that of a √n + b, on ≥ 3 points of "
                                f"accuracy ≤ {SATURATED}); control: the head panel through the same criterion",
    "fig4-context-plateau-paper-scale": f"count(largest n) / count(n = 5) ≤ {PLATEAU} on the context panel (declared "
                                        f"after n = 1, 5, 10 were stored, before n = 20..60); control: Fig. 2(b)'s "
                                        f"shared context (H = 20, its largest T) through the same criterion",
    "fig5a-monotone-paper-scale": f"training MSE strictly decreasing in H at every stored T, except between two models "
                                  f"below {MSE_FLOOR:g}",
    "fig5b-monotone-paper-scale": f"training MSE strictly decreasing in n at every stored T, except between two models "
                                  f"below {MSE_FLOOR:g}",
    "fig5b-n1-paper-scale": "best training MSE ≥ the variance of the point's labels (relative tolerance 1e-3: float32)",
    "fig2a-seeds-paper-scale": f"seed 1's count strictly increasing in H at every T, except between two models of "
                               f"accuracy ≥ {SATURATED} (the seed-0 criterion)",
    "fig4-linear-gpu": f"R² of count ~ a H + b ≥ 0.98 and ≥ that of a H² + b, on the points of accuracy ≤ {SATURATED} "
                       f"(≥ 3), at every official T whose eight H are stored (the criterion of fig4-linear-paper-scale)",
    "fig4-context-plateau-gpu": f"count(largest n) / count(n = 5) ≤ {PLATEAU} at every official T whose eight n are "
                                f"stored and whose accuracies stay ≤ {SATURATED} (the data set no ceiling; the "
                                f"criterion of fig4-context-plateau-paper-scale); control: Fig. 2(b)'s shared context "
                                f"(H = 20, its largest T)",
    "fig4-gpu-reproduces-cpu": "|best accuracy on the GPU − on the CPU| ≤ 0.01 at every point stored by both machines",
}

STATEMENTS = {
    "fig2b-monotone-paper-scale": ("Fig. 2(b) at paper scale: memorization increases with the context size n at every "
                                   "stored T", "monotone in n"),
    "fig2b-n1-paper-scale": ("Fig. 2(b) at paper scale: at n = 1 (one shared key) the accuracy is at most the "
                             "majority-class fraction (guaranteed by the architecture; a check of the stored run)",
                             "capacity 1 at n = 1 (Sec. 4.2)"),
    "fig2c-up-to-n-paper-scale": ("Fig. 2(c) at paper scale: d_h = n memorizes more than the smallest d_h",
                                  "increasing in d_h up to n"),
    "fig2c-no-gain-paper-scale": ("Fig. 2(c) at paper scale: no benefit from d_h > n", "no gain beyond d_h = n"),
    "fig4-linear-paper-scale": ("Fig. 4 at paper scale (per-example contexts): the memorized count is linear in H on "
                                "the non-saturated part", "linearity in H remains"),
    "fig4-context-paper-scale": ("Fig. 4 at paper scale (per-example contexts): memorization against n is no longer "
                                 "linear", "linearity in n weakened"),
    "fig4-context-plateau-paper-scale": ("Fig. 4 at paper scale (per-example contexts): beyond n = 5 the memorized "
                                         "count barely grows with n, unlike a shared context (an observation of ours, "
                                         "in line with the paper's conjectured O(Hd) capacity in general position)",
                                         "O(Hd) conjectured (App. I.1)"),
    "fig5a-monotone-paper-scale": ("Fig. 5(a) at paper scale (regression): the training MSE decreases with H",
                                   "monotone in H"),
    "fig5b-monotone-paper-scale": ("Fig. 5(b) at paper scale (regression): the training MSE decreases with n",
                                   "monotone in n"),
    "fig5b-n1-paper-scale": ("Fig. 5(b) at paper scale: at n = 1 (one shared key) the training MSE is at least the "
                             "labels' variance (guaranteed by the architecture; a check of the stored run)",
                             "capacity 1 at n = 1 (Sec. 4.2)"),
    "fig2a-seeds-paper-scale": ("Fig. 2(a) at paper scale, second seed: memorization increases with H at every T on "
                                "seed 1 as on seed 0", "increasing (the paper's seeds: not stated)"),
    "fig4-linear-gpu": ("Fig. 4 on the official grid (per-example contexts, every H of the paper, trained on a GPU): "
                        "the memorized count is linear in H on the non-saturated part", "linearity in H remains"),
    "fig4-context-plateau-gpu": ("Fig. 4's context panel on the official T (trained on a GPU): beyond n = 5 the "
                                 "memorized count barely grows with n (our observation on the CPU panel, re-judged)",
                                 "O(Hd) conjectured (App. I.1)"),
    "fig4-gpu-reproduces-cpu": ("The same points of Fig. 4 trained on the GPU and on the CPU reach the same accuracy "
                                "(a check of our runs: float32 on two machines)", "—"),
}

ROWS = [("Fig. 2(b)", "fig2b", "d = 64, H = 20, d_h = 64, n = 1..60, T = 6k..18k, ≥ 50k steps",
         "memorization increases monotonically with n", ["fig2b-monotone-paper-scale", "fig2b-n1-paper-scale"]),
        ("Fig. 2(b), T = 14k", "fig2b-14k", "the official T that fig2b left out", "(as above)",
         ["fig2b-monotone-paper-scale", "fig2b-n1-paper-scale"]),
        ("Fig. 2(c)", "fig2c", "d = 64, n = 32, H = 30, d_h = 10..64, T = 10k..20k, 300k steps",
         "increasing in d_h up to n, no benefit beyond", ["fig2c-up-to-n-paper-scale", "fig2c-no-gain-paper-scale"]),
        ("Fig. 4, heads", "fig4", "per-example contexts, d = 64, n = 32, H = 1..60, T = 30k..130k",
         "linearity in H remains", ["fig4-linear-paper-scale"]),
        ("Fig. 4, context", "fig4-context", "per-example contexts, d = 64, H = 20, n = 1..60, T = 20k..60k",
         "linearity in n weakened", ["fig4-context-paper-scale"]),
        ("Fig. 5", "fig5", "regression, d = 64, H = 1..60 (T = 10k..30k), n = 1..60 (T = 10k..25k), ≥ 50k steps",
         "the same monotonicity in H and n as Fig. 2",
         ["fig5a-monotone-paper-scale", "fig5b-monotone-paper-scale", "fig5b-n1-paper-scale"]),
        ("Fig. 5, the other T", "fig5-rest", "the official T that fig5 left out", "(as above)",
         ["fig5a-monotone-paper-scale", "fig5b-monotone-paper-scale", "fig5b-n1-paper-scale"]),
        ("Fig. 4, heads (GPU)", "fig4-gpu", "per-example contexts, d = 64, n = 32, H = 1..60, T = 30k..130k",
         "linearity in H remains", ["fig4-linear-gpu", "fig4-gpu-reproduces-cpu"]),
        ("Fig. 4, context (GPU)", "fig4-context-gpu", "per-example contexts, d = 64, H = 20, n = 1..60, T = 20k..60k",
         "linearity in n weakened", ["fig4-context-plateau-gpu"]),
        ("Fig. 2(a), seed 1", "fig2a-seed1", "the grid of Fig. 2(a) (the paper's seeds: not stated)",
         "linear, increasing in H", ["fig2a-seeds-paper-scale"])]


# ---- reading ------------------------------------------------------------------------------------------------
def kind(i: str) -> str:
    """The claim kind of a paper-scale claim: sanity for the n = 1 ceilings, finding for our own observation."""
    return (SANITY if i.endswith("n1-paper-scale") or i == "fig4-gpu-reproduces-cpu" else
            FINDING if i.startswith("fig4-context-plateau") else EXPERIMENT)


def pending(C: Claims, ev: store.Evidence, sw: dict, ids: list[str]) -> bool:
    """Record ``ids`` as not run (stored count, cost, command) unless ``ev`` is complete and current."""
    return stored_claims.pending(C, [ev], [(i, *STATEMENTS[i], CRITERIA[i], kind(i)) for i in ids])


def _needs(C: Claims, i: str, name: str) -> bool:
    """Record claim ``i`` as not run while its control's sweep ``name`` is not complete and current."""
    return stored_claims.pending(C, [store.load(CHAPTER, name)], [(i, *STATEMENTS[i], CRITERIA[i], kind(i))])


def extended(ev: store.Evidence, name: str) -> list[dict]:
    """The points of ``ev`` with those of the sweep ``name`` that extends it to more of the official T, once that
    sweep is complete and current; prints the extension's label, and its state while it is not used."""
    ext = store.load(CHAPTER, name)
    print(ext.label)
    if ext.complete:
        return ev.points + ext.points
    print(f"not yet judged (joins the claims once complete): {stored_claims.state(ext)}")
    return ev.points


def series(points: list[dict], x: str, y: str, **sel) -> tuple[list, list, list]:
    """(x values, y values, accuracies or None) of the points matching ``sel``, sorted by x."""
    pts = sorted((p for p in points if all(p[k] == v for k, v in sel.items())), key=lambda p: p[x])
    return [p[x] for p in pts], [float(p[y]) for p in pts], [p.get("best_acc") for p in pts]


def decreasing(mse: list[float], floor: float = MSE_FLOOR) -> bool:
    """Strictly decreasing, except between two models both below ``floor`` (tied: the log scale's noise)."""
    return all(b < a or (a < floor and b < floor) for a, b in zip(mse, mse[1:], strict=False))


def rises(by_T: dict, x: str, floor: float = MSE_FLOOR) -> str:
    """The steps of ``by_T`` ({T: (x values, MSEs)}) against :func:`decreasing` at ``floor``, for a variant's value:
    their count and the first three, each with its T, x and the two MSEs (a rise between two MSEs near zero is
    round-off)."""
    bad = [f"T = {T:,}, {x} = {xs[i]} → {xs[i + 1]}: {m[i]:.1e} → {m[i + 1]:.1e}" for T, (xs, m) in by_T.items()
           for i in range(len(m) - 1) if not decreasing(m[i:i + 2], floor)]
    return f"{len(bad)} step(s) against" + (f" ({'; '.join(bad[:3])}{'; …' if len(bad) > 3 else ''})" if bad else "")


def above(points: list[dict], x: str, shared: bool = True, **sel) -> tuple[list, list, list, list]:
    """(x values, counts memorized above chance, accuracies, majority fractions) of the points matching ``sel``,
    sorted by x: the count above chance is (accuracy − majority-class fraction of the point's labels) · T."""
    pts = sorted((p for p in points if all(p[k] == v for k, v in sel.items())), key=lambda p: p[x])
    ch = [majority(p["n"], p["H"], p["T"], p["seed"], shared=shared) for p in pts]
    return ([p[x] for p in pts], [(p["best_acc"] - c) * p["T"] for p, c in zip(pts, ch, strict=True)],
            [p["best_acc"] for p in pts], ch)


def mono_variants(cur: dict, what: str) -> list:
    """The monotone criterion ({T: (x, counts, accuracies, majority)}) under each reading of "saturated" and with the
    points at the chance floor dropped."""
    def judge(lv: float = SATURATED, floor: bool = True) -> tuple[bool, str]:
        bad = 0
        for xs, m, a, ch in cur.values():
            k = [i for i in range(len(xs)) if floor or a[i] >= FLOOR * ch[i]]
            bad += sum(not increasing([m[i], m[j]], [a[i], a[j]], lv) for i, j in zip(k, k[1:], strict=False))
        return bad == 0, f"{bad} step(s) against"
    fl = sorted({xs[i] for xs, _, a, ch in cur.values() for i in range(len(xs)) if a[i] < FLOOR * ch[i]})
    out = robust.rejudge(lambda lv: judge(lv), {f"saturated read as accuracy ≥ {lv:g}": lv
                                                for lv in READINGS if lv != SATURATED})
    if fl:
        out += robust.rejudge(lambda f: judge(floor=f), {f"drop the chance floor ({what} = "
                                                         f"{', '.join(map(str, fl))})": False})
    return out


def label_variance(n: int, H: int, T: int, seed: int) -> float:
    """The variance of a stored regression point's labels (the MSE of the best constant output)."""
    fam = mha_model.MHAMemorization(d=64, n=n, H=H, task="regression")
    return float(mha_model.mha_data(fam, [T], [seed], dtype=torch.float64).examples["y"][0].numpy().var())
