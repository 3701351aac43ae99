"""The depth-to-width transition in trained LMs at CPU scale, read from the stored sweeps of
:mod:`~lib.chapters.depth_width.evidence` (no training here): the paper's transition procedure (Sec. 5.2.2),
the learning curves, the compute-matched control and the fit ln d_x = a + bL (eq. 10's form); their claims are
:mod:`~.transition`, their tables and figures :mod:`lib.chapters.depth_width.figures`.

Convention: for a pair (L, L') with L < L' at one size N = 12·L·d_x², δ = loss(L) − loss(L') in nats on the held-out
split, averaged over seeds: δ > 0 means the deeper network wins. It is *significant* when |δ| exceeds the two-sided
95% Student quantile (df = n + n' − 2) times the standard error of the difference of the two means.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from lib.core.claims import Scale


CHAPTER, MAIN, FLOPS = "depth-width", "lm-transition", "lm-transition-flops"


@dataclass
class Cell:
    """One (pair, size) comparison."""
    size: float                 # declared size (the grid's N)
    d_s: int                    # widths of the shallower and the deeper network
    d_d: int
    loss_s: list[float]         # held-out losses, one per seed
    loss_d: list[float]
    level: float = 0.95         # two-sided confidence of the significance test

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
        return float(stats.t.ppf(1 - (1 - self.level) / 2, df)) if df > 0 else math.nan

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


def cells(points: list[dict], Ls: int, Ld: int, seeds: tuple | None = None, level: float = 0.95) -> list[Cell]:
    """The pair (Ls, Ld) at every size where both depths have a stored model (equal steps); ``seeds``: only
    those seeds; ``level``: the confidence of the significance test."""
    out = []
    pts = points if seeds is None else [p for p in points if p["seed"] in seeds]
    for s in sorted({p["size"] for p in pts}):
        a, b = _losses(pts, Ls, s), _losses(pts, Ld, s)
        if a and b:
            out.append(Cell(s, a[0]["d"], b[0]["d"], [p["test_loss"] for p in a], [p["test_loss"] for p in b], level))
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
    return [Cell(c.size, c.d_d, c.d_s, c.loss_d, c.loss_s, c.level) for c in cs]


def _scale(steps: int, seeds: int) -> Scale:
    return Scale(ours=f"depths 1, 2, 4; N = 1.5e3–3e5; {steps:,} steps × 2048 tokens; {seeds} seeds",
                 paper="depths 6–48; N = 1e6–6e8; 1M steps × 65,536 tokens; 3 seeds near transitions")


def total_params(points: list[dict], L: int, size: float) -> float:
    """All parameters of the stored model (non-embedding + the tied token embedding and the positions)."""
    from lib.chapters.depth_width import evidence as E
    q = _losses(points, L, size)[0]
    return q["params_nonemb"] + (E.RECIPE["vocab"] + E.RECIPE["T"]) * q["d"]


def first_above(points: list[dict], pair: tuple, cs: list[Cell], floor: float) -> Cell | None:
    """The smallest size at which both depths' seed-mean losses are below ``floor`` (the bigram predictor)."""
    return next((c for c in cs if max(np.mean(c.loss_s), np.mean(c.loss_d)) < floor), None)


def equal_total(points: list[dict], pair: tuple, c: Cell) -> Cell:
    """The cell at equal *total* parameters: the deeper network's seed losses interpolated (linearly in
    ln total parameters, seed by seed) to the shallower network's total parameter count at this size."""
    Ls, Ld = pair
    sizes = sorted({p["size"] for p in points if p["L"] == Ld and p["budget"] == "steps"})
    x = np.log([total_params(points, Ld, s) for s in sizes])
    ys = np.array([[q["test_loss"] for q in _losses(points, Ld, s)] for s in sizes])     # sizes × seeds
    x0 = math.log(total_params(points, Ls, c.size))
    return Cell(c.size, c.d_s, c.d_d, c.loss_s, [float(np.interp(x0, x, ys[:, k])) for k in range(ys.shape[1])], c.level)


def sweep_bigram() -> float:
    """The bigram predictor's held-out loss on the stored sweep's recipe (same split, windows and batches)."""
    from lib.chapters.depth_width import evidence as E
    from lib.chapters.depth_width import train
    R = E.RECIPE
    ids, _ = train.tokenized(R["vocab"])
    return train.bigram_loss(ids, R["vocab"], T=R["T"], batch=R["batch"], eval_batches=R["eval_batches"],
                          heldout_frac=R["heldout_frac"])


def quarter_delta(points: list[dict], Ls: int, Ld: int, size: float, frac: float = 0.25) -> float:
    """Seed 0's δ on the learning curve at ``frac`` of training (the models after a quarter of their FLOPs)."""
    a, b = _losses(points, Ls, size, seed=0), _losses(points, Ld, size, seed=0)
    i = max(0, int(round(frac * len(a[0]["curve"]))) - 1)
    return a[0]["curve"][i][1] - b[0]["curve"][i][1]


def zero_crossing(cs: list[Cell], last: int = 3) -> float | None:
    """Where a straight line in ln N through the last ``last`` seed-mean δ reaches 0 (None if it never rises)."""
    x, y = np.log([c.size for c in cs[-last:]]), np.array([c.delta for c in cs[-last:]])
    b, a = np.polyfit(x, y, 1)
    return float(math.exp(-a / b)) if b > 0 else None


def overfit(points: list[dict]) -> dict:
    """At the largest size: the train−test gap per depth (seed means), training tokens per non-embedding parameter
    and passes over the training split."""
    s = max(p["size"] for p in points)
    rows = {L: _losses(points, L, s) for L in sorted({p["L"] for p in points})}
    gap = {L: float(np.mean([q["test_loss"] - q["train_loss"] for q in r])) for L, r in rows.items() if r}
    q = next(iter(rows.values()))[0]
    tpp = [r[0]["tokens_seen"] / r[0]["params_nonemb"] for r in rows.values() if r]
    return dict(size=s, gap=gap, tpp=(min(tpp), max(tpp)), passes=q["tokens_seen"] / q["train_tokens"])
