"""The depth-to-width transition in trained LMs at CPU scale, read from the stored sweeps of
:mod:`~lib.chapters.depth_width.evidence` (no training here): the paper's transition procedure (Sec. 5.2.2),
the learning curves, the compute-matched control, the fit ln d_x = a + bL (eq. 10's form), and their claims.

Convention: for a pair (L, L') with L < L' at one size N = 12·L·d_x², δ = loss(L) − loss(L') in nats on the held-out
split, averaged over seeds: δ > 0 means the deeper network wins. It is *significant* when |δ| exceeds the two-sided
95% Student quantile (df = n + n' − 2) times the standard error of the difference of the two means.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from lib.chapters.depth_width import fit as F
from lib.core.claims import EXPERIMENT, FAILS, FINDING, HOLDS, NOT_DISCRIMINATING, NOT_RUN, Claims, Scale

CHAPTER, MAIN, FLOPS = "depth-width", "lm-transition", "lm-transition-flops"


@dataclass
class Cell:
    """One (pair, size) comparison."""
    size: float                 # declared size (the grid's N)
    d_s: int                    # widths of the shallower and the deeper network
    d_d: int
    loss_s: list[float]         # held-out losses, one per seed
    loss_d: list[float]

    @property
    def delta(self) -> float:
        return float(np.mean(self.loss_s) - np.mean(self.loss_d))

    @property
    def se(self) -> float:
        n, m = len(self.loss_s), len(self.loss_d)
        if min(n, m) < 2:
            return math.nan
        return float(math.sqrt(np.var(self.loss_s, ddof=1) / n + np.var(self.loss_d, ddof=1) / m))

    @property
    def t_crit(self) -> float:
        df = len(self.loss_s) + len(self.loss_d) - 2
        return float(stats.t.ppf(0.975, df)) if df > 0 else math.nan

    @property
    def status(self) -> str:
        """'deeper' (significantly), 'shallower' (significantly), 'tie', or 'one seed'."""
        if math.isnan(self.se):
            return "one seed"
        bar = self.t_crit * self.se
        return "deeper" if self.delta > bar else "shallower" if self.delta < -bar else "tie"


def load() -> tuple:
    """The two stored sweeps (:class:`lib.book.evidence.Evidence`): the main grid and the compute-matched control."""
    from lib.book import evidence
    return evidence.load(CHAPTER, MAIN), evidence.load(CHAPTER, FLOPS)


def _losses(points: list[dict], L: int, size: float, budget: str = "steps", seed: int | None = None) -> list[dict]:
    return sorted((p for p in points if p["L"] == L and p["size"] == size and p["budget"] == budget
                   and (seed is None or p["seed"] == seed)), key=lambda p: p["seed"])


def cells(points: list[dict], Ls: int, Ld: int) -> list[Cell]:
    """The pair (Ls, Ld) at every size where both depths have a stored model (equal steps)."""
    out = []
    for s in sorted({p["size"] for p in points}):
        a, b = _losses(points, Ls, s), _losses(points, Ld, s)
        if a and b:
            out.append(Cell(s, a[0]["d"], b[0]["d"], [p["test_loss"] for p in a], [p["test_loss"] for p in b]))
    return out


def transition(cs: list[Cell]) -> dict:
    """The paper's procedure (Sec. 5.2.2): the first size where the shallower network is significantly worse
    (``k``) and the size to its left, where the two are not distinguishable; the transition width is the mean
    of the shallower network's widths at the two, its error their distance. ``found`` also needs the deeper
    network to stay at least as good at every larger size."""
    k = next((i for i, c in enumerate(cs) if c.status == "deeper"), None)
    if k is None:
        return dict(found=False, why="the shallower network is never significantly worse", k=None)
    if k == 0:
        return dict(found=False, why="the deeper network is already significantly better at the smallest size", k=0)
    after = all(c.status != "shallower" for c in cs[k:])
    left = cs[k - 1].status
    width, err = (cs[k - 1].d_s + cs[k].d_s) / 2, cs[k].d_s - cs[k - 1].d_s
    ok = after and left in ("tie", "shallower")
    why = "" if ok else ("the shallower network wins again at a larger size" if not after else
                         "the size before the first significant point is not a tie")
    return dict(found=ok, why=why, k=k, width=width, err=err, left=left, size=(cs[k - 1].size * cs[k].size) ** 0.5)


def curve_delta(points: list[dict], Ls: int, Ld: int, size: float) -> tuple[np.ndarray, np.ndarray]:
    """(steps, δ over training): the seed-mean learning curves of the pair at one size, on the curve's held-out
    batches (fewer than the final loss's)."""
    a, b = _losses(points, Ls, size), _losses(points, Ld, size)
    steps = np.array([s for s, _ in a[0]["curve"]])
    ca = np.mean([[v for _, v in p["curve"]] for p in a], axis=0)
    cb = np.mean([[v for _, v in p["curve"]] for p in b], axis=0)
    return steps, ca - cb


def settled_step(steps: np.ndarray, delta: np.ndarray) -> int:
    """The first step from which δ keeps the sign it ends with (the ranking is stable from there on)."""
    sign = np.sign(delta[-1])
    bad = np.nonzero(np.sign(delta) != sign)[0]
    return int(steps[0] if not bad.size else steps[min(bad[-1] + 1, len(steps) - 1)])


def matched(points: list[dict], flops_points: list[dict], Ls: int, Ld: int) -> list[tuple[float, float, float]]:
    """(size, δ at equal steps, δ at equal FLOPs) for seed 0: at equal FLOPs every model has the training FLOPs of
    the depth-1 model of its size (depth 1's own run is its equal-steps run)."""
    def one(L: int, s: float) -> dict | None:
        src = points if L == 1 else flops_points
        r = _losses(src, L, s, "steps" if L == 1 else "flops", seed=0)
        return r[0] if r else None
    out = []
    for s in sorted({p["size"] for p in flops_points}):
        a0, b0 = _losses(points, Ls, s, seed=0), _losses(points, Ld, s, seed=0)
        a1, b1 = one(Ls, s), one(Ld, s)
        if a0 and b0 and a1 and b1:
            out.append((s, a0[0]["test_loss"] - b0[0]["test_loss"], a1["test_loss"] - b1["test_loss"]))
    return out


def _swap(cs: list[Cell]) -> list[Cell]:
    return [Cell(c.size, c.d_d, c.d_s, c.loss_d, c.loss_s) for c in cs]


def _scale(steps: int, seeds: int) -> Scale:
    return Scale(ours=f"depths 1, 2, 4; N = 1.5e3–3e5; {steps:,} steps × 2048 tokens; {seeds} seeds",
                 paper="depths 6–48; N = 1e6–6e8; 1M steps × 65,536 tokens; 3 seeds near transitions")


def claims(C: Claims, ev, ev_flops, pairs=((1, 2), (2, 4))) -> dict:
    """Record the CPU-scale transition claims from the stored sweeps; returns the per-pair analysis."""
    from lib.chapters.depth_width import evidence as E
    pts, need = ev.points, len(E.SEEDS)
    out = {p: dict(cells=cells(pts, *p)) for p in pairs}
    complete = ev.complete and all(len(c.loss_s) == need == len(c.loss_d) for o in out.values() for c in o["cells"])
    for o in out.values():
        o["transition"], o["swapped"] = transition(o["cells"]), transition(_swap(o["cells"]))
    if not complete:
        why = (f"the stored sweep holds {len(pts)} of {ev.total} models ({ev.label}); each (pair, size) needs {need} "
               f"seeds per depth for the significance test; produce the rest with `{ev.command}` (≈ 0.5 CPU-hours per seed)")
        for cid, st in (("lm-cpu-transition", "Trained LMs at CPU scale show the paper's transition"),
                        ("lm-cpu-width-efficiency", "At the smallest CPU-scale size the shallower network wins"),
                        ("lm-cpu-compute-matched", "The CPU-scale ranking survives matching the training FLOPs")):
            C.not_run(cid, st, paper="Sec. 5.2", reason=why, kind=EXPERIMENT)
        return out
    sc = _scale(E.STEPS, need)
    tr = {p: o["transition"] for p, o in out.items()}
    C.check("lm-cpu-transition", "Trained LMs at CPU scale show the paper's transition (Sec. 5.2.2, Fig. 2): for each "
            "depth pair (L, 2L), the shallower, wider network is not worse at small sizes, and from some size on the "
            "deeper network is significantly better and stays so",
            paper=f"transitions at d_x = {F.TABLE4[0][1]:g} ± {F.TABLE4[0][2]:g} (L = 6) … {F.TABLE4[-1][1]:g} (L = 30)",
            ours="; ".join(f"({a}, {b}): " + (f"d_x ≈ {t['width']:g} ± {t['err']:g} (N ≈ {t['size']:.2g})" if t["found"]
                                              else t["why"]) for (a, b), t in tr.items()),
            ok=all(t["found"] for t in tr.values()), kind=EXPERIMENT, scale=sc, stable=False,
            criterion="the paper's procedure: a size where the shallower network is significantly worse (Welch SE, "
                      "Student t, 95%, 3 seeds each) whose left neighbour is a tie or a win of the shallower one, and no "
                      "significant win of the shallower network at any larger size",
            control=("the same procedure with the depths swapped (the deeper network as the one that must lose)",
                     all(o["swapped"]["found"] for o in out.values()),
                     "; ".join(f"({a}, {b}): " + ("found" if o["swapped"]["found"] else o["swapped"]["why"])
                               for (a, b), o in out.items())))
    first = {p: o["cells"][0] for p, o in out.items()}
    C.check("lm-cpu-width-efficiency", "At the smallest CPU-scale size the shallower, wider network is significantly "
            "better (the paper's 'width-efficiency' regime, Sec. 5.2.3)", paper="width-efficiency at small sizes (Fig. 2)",
            ours="; ".join(f"({a}, {b}) at N = {c.size:.2g}: δ = {c.delta:+.3f} ± {c.se:.3f}" for (a, b), c in first.items()),
            ok=all(c.status == "shallower" for c in first.values()), kind=EXPERIMENT, scale=sc, stable=False,
            criterion="δ = loss(L) − loss(2L) < −t·SE at the smallest size, for every pair",
            control=("the rival regime: the deeper network significantly better there (same test)",
                     all(c.status == "deeper" for c in first.values()),
                     ", ".join(c.status for c in first.values())))
    return out


def quarter_delta(points: list[dict], Ls: int, Ld: int, size: float, frac: float = 0.25) -> float:
    """Seed 0's δ on the learning curve at ``frac`` of training (the models after a quarter of their FLOPs)."""
    a, b = _losses(points, Ls, size, seed=0), _losses(points, Ld, size, seed=0)
    i = max(0, int(round(frac * len(a[0]["curve"]))) - 1)
    return a[0]["curve"][i][1] - b[0]["curve"][i][1]


def _ran(C: Claims) -> bool:
    """Whether :func:`claims` judged the transition (the stored sweep is complete)."""
    c = C.claims.get("lm-cpu-transition")
    return c is not None and c.verdict != NOT_RUN


def control_claims(C: Claims, ev, ev_flops, out: dict) -> dict:
    """The compute-matched control (EXPERIMENT), the stability of the ranking over training (FINDING) and the
    transition widths against eq. 10 extrapolated to our depths (FINDING); ``out`` from :func:`claims`."""
    from lib.chapters.depth_width import evidence as E
    pts = ev.points
    res: dict = {}
    ran = _ran(C)
    if not ev_flops.complete or not ran:
        if "lm-cpu-compute-matched" not in C.claims:
            C.not_run("lm-cpu-compute-matched", "The CPU-scale ranking survives matching the training FLOPs",
                      paper="Sec. 5.2", kind=EXPERIMENT,
                      reason=f"the compute-matched sweep: {ev_flops.label}")
    else:
        rows, agree, agree_q = [], [], []
        for p, o in out.items():
            sig = {c.size: c.status for c in o["cells"] if c.status in ("deeper", "shallower")}
            for s, d_steps, d_flops in matched(pts, ev_flops.points, *p):
                q = quarter_delta(pts, *p, s)
                rows.append((p, s, d_steps, d_flops, q, sig.get(s, "tie")))
                if s in sig:
                    want = 1.0 if sig[s] == "deeper" else -1.0
                    agree.append(np.sign(d_flops) == want)
                    agree_q.append(np.sign(q) == want)
        res["matched"] = rows
        C.check("lm-cpu-compute-matched", "The CPU-scale ranking is not an artefact of training compute: with every "
                "model of a size given the training FLOPs of its depth-1 model (the deeper ones get more steps), δ keeps "
                "its sign at every size where the 3-seed comparison is significant", paper="— (the paper matches steps)",
                ours=f"{sum(agree)}/{len(agree)} significant cells keep their sign (seed 0)", ok=bool(agree) and all(agree),
                kind=EXPERIMENT, scale=_scale(E.STEPS, 1), stable=False,
                criterion="sign of δ at equal FLOPs (seed 0) = sign of the significant 3-seed δ at equal steps",
                control=("the same models after a quarter of their training (seed 0's learning curve at step "
                         f"{E.STEPS // 4}): a 4× compute change, which the criterion must be able to detect",
                         bool(agree_q) and all(agree_q), f"{sum(agree_q)}/{len(agree_q)}"))
    settled = {p: [(c.size, c.status, settled_step(*curve_delta(pts, *p, c.size))) for c in o["cells"]]
               for p, o in out.items()} if pts and all(o["cells"] for o in out.values()) else {}
    res["settled"] = settled
    late = [(p, s, st) for p, v in settled.items() for s, status, st in v if status != "tie" and st > E.STEPS // 2]
    if settled and ran:
        n_sig = sum(status != "tie" for v in settled.values() for _, status, _ in v)
        C.check("lm-cpu-stable", "The ranking is stable before the end of training: wherever the final comparison is "
                "significant, δ (seed-mean learning curves) keeps its final sign over the second half of training",
                paper="—", ours=f"{n_sig - len(late)}/{n_sig} significant cells settled by step {E.STEPS // 2}"
                + (": late " + ", ".join(f"{p} at N = {s:.2g} (step {st})" for p, s, st in late) if late else ""),
                ok=not late, kind=FINDING, stable=False,
                criterion=f"the sign of δ on the curve does not change after step {E.STEPS // 2}")
    return res


def fit_finding(C: Claims, out: dict) -> dict | None:
    """The transition widths against the paper's fit e^(a + bL) extrapolated to L = 1, 2 (outside L = 6–30, where it
    was fitted) and against the theory's threshold d_x = 3^L; with two transitions, the line ln d_x = a + bL
    through them."""
    tr = {p[0]: o["transition"] for p, o in out.items() if o["transition"]["found"]}
    if not _ran(C):
        return None
    pf = F.PAPER_FIT
    ext = {L: math.exp(pf["a"] + pf["b"] * L) for L in (p[0] for p in out)}
    inside = {L: t["width"] - t["err"] <= ext[L] <= t["width"] + t["err"] for L, t in tr.items()}
    ab = None
    if len(tr) >= 2:
        Ls = sorted(tr)
        b = (math.log(tr[Ls[-1]]["width"]) - math.log(tr[Ls[0]]["width"])) / (Ls[-1] - Ls[0])
        ab = (math.log(tr[Ls[0]]["width"]) - b * Ls[0], b)
    C.check("lm-cpu-fit", "Eq. 10's fit, extrapolated below its fitted depths (L = 6–30) to L = 1, 2, predicts the "
            "CPU-scale transition widths (the paper claims nothing at these depths: an extrapolation we test, not a "
            "claim of the paper)",
            paper=", ".join(f"e^(a+b·{L}) = {v:.0f}" for L, v in ext.items()) + f" (a = {pf['a']}, b = {pf['b']})",
            ours=(", ".join(f"L = {L}: {t['width']:g} ± {t['err']:g}" for L, t in tr.items())
                  or "no transition found, so no width to compare")
            + (f"; line through them: a = {ab[0]:.2f}, b = {ab[1]:.3f}" if ab else "")
            + "; theory's threshold 3^L: " + ", ".join(f"{3 ** L}" for L in ext),
            ok=bool(tr) and all(inside.values()) and len(tr) == len(out), kind=FINDING, stable=False,
            criterion="e^(a+bL) inside every measured transition's error bar")
    return dict(ext=ext, tr=tr, ab=ab)


def markdown(out: dict, res: dict) -> str:
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


def figure(ev, out: dict):
    """(a) Held-out loss against N per depth (seed mean ± sd); (b) δ against N per pair, with the ±t·SE band and
    the transition read off; (c) δ over training, per size, for the last pair (seed means)."""
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(1, 3, figsize=(15, 4.2))
    pts = ev.points
    for L in sorted({p["L"] for p in pts}):
        sz = sorted({p["size"] for p in pts if p["L"] == L})
        v = [[q["test_loss"] for q in _losses(pts, L, s)] for s in sz]
        ax[0].errorbar(sz, [np.mean(x) for x in v], yerr=[np.std(x) for x in v], marker="o", ms=4, capsize=3, label=f"L = {L}")
    ax[0].set(xscale="log", xlabel="N = 12 L d_x²", ylabel="held-out loss (nats)", title="(a) loss by depth")
    ax[0].legend()
    for (a, b), o in out.items():
        cs = o["cells"]
        x, y = [c.size for c in cs], [c.delta for c in cs]
        bar = [c.t_crit * c.se if not math.isnan(c.se) else 0.0 for c in cs]
        ax[1].errorbar(x, y, yerr=bar, marker="o", ms=4, capsize=3, label=f"({a}, {b})")
        t = o["transition"]
        if t["found"]:
            ax[1].axvline(t["size"], ls=":", color=ax[1].lines[-1].get_color())
    ax[1].axhline(0, color="k", lw=0.8)
    ax[1].set(xscale="log", xlabel="N", ylabel="δ = loss(L) − loss(2L)", title="(b) deeper wins above 0 (bars: t·SE)")
    ax[1].legend()
    a, b = list(out)[-1]
    cmap = plt.get_cmap("viridis")
    cs = out[(a, b)]["cells"]
    for i, c in enumerate(cs):
        st, dl = curve_delta(pts, a, b, c.size)
        ax[2].plot(st, dl, color=cmap(i / max(1, len(cs) - 1)), label=f"N = {c.size:.2g}")
    ax[2].axhline(0, color="k", lw=0.8)
    ax[2].set(xlabel="training step", ylabel="δ (curve batches)", title=f"(c) δ over training, pair ({a}, {b})")
    ax[2].legend(fontsize=7, ncol=2)
    return fig                                            # laid out by the house style's constrained layout


def summary(C: Claims, out: dict, fitres: dict | None) -> str:
    """One Findings sentence from the claims of this section (or what is missing)."""
    K = C.claims
    if K["lm-cpu-transition"].verdict == NOT_RUN:
        return f"the CPU-scale transition sweep (section 6b) is not complete: {K['lm-cpu-transition'].criterion}"
    parts = [f"at CPU scale (section 6b; depth pairs (1, 2) and (2, 4), 3 seeds) the transition "
             f"{ {HOLDS: 'is found', FAILS: 'is not found'}.get(K['lm-cpu-transition'].verdict, 'is not established')} "
             f"({K['lm-cpu-transition'].ours}); the smallest size shows "
             f"{'width-efficiency' if K['lm-cpu-width-efficiency'].verdict == HOLDS else 'no width-efficiency'} "
             f"({K['lm-cpu-width-efficiency'].ours})"]
    if "lm-cpu-compute-matched" in K:
        cm = K["lm-cpu-compute-matched"]
        parts.append(f"matching training FLOPs {'changes' if cm.verdict == FAILS else 'keeps'} the ranking ({cm.ours})"
                     + ("; but the ranking is the same after a quarter of the training, so matching FLOPs "
                        "could not have changed it: not discriminating" if cm.verdict == NOT_DISCRIMINATING else ""))
    if "lm-cpu-stable" in K:
        parts.append(f"learning curves: {K['lm-cpu-stable'].ours}")
    if fitres:
        parts.append(f"eq. 10 extrapolated to these depths (outside its fitted range) gives {K['lm-cpu-fit'].paper}; "
                     f"we measure {K['lm-cpu-fit'].ours}")
    return "; ".join(parts)
