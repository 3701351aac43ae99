"""Whether App. H's training converged (Mahdavi et al. 2024, App. H: "we train both models for 300,000 optimization
steps"), read from the learning curves the stored sweeps keep (training accuracy every 1,000 steps).

The official schedule decays the learning rate to zero (cosine after a 5% warm-up), so every curve flattens at its
end whether or not the model could memorize more: the last 50k of 300k steps run below 8% of the peak rate. A curve
is therefore judged where the rate is still non-negligible: **still rising** when its best-so-far training accuracy
gains at least ``RISE`` over the ``WINDOW`` · steps before the learning rate falls to ``LR_FLOOR`` of its peak.

* ``fig3-paper-converged`` (finding, the stored ``fig3``): at the paper's T (550 at H = 4, 1300 at H = 8) the 300k
  schedule ends while the curve is still rising; control: the located T* of the same sweep (memorized, flat at 100%)
  through the same criterion.
* ``fig3-long-plateau`` and ``fig3-long-memorized`` (the stored ``fig3-long``: the same two points, a 2.5× longer
  schedule): the curve stops rising, and the paper's T is memorized; control of both: the 300k-step run of the same
  point through the same criterion. ``not run`` with the cost and the command while ``fig3-long`` is incomplete.
"""
from __future__ import annotations

import numpy as np

from lib.book import evidence as store
from lib.book import stored_claims
from lib.chapters.mha_memorization import evidence as EV
from lib.core import robust
from lib.core.claims import EXPERIMENT, FINDING, Claims, Scale
from lib.engine.schedules import lr_factors

PAPER_T = {4: 550, 8: 1300}     # App. H: "for H = 4, this number is around T = 550, and for H = 8 around T = 1300"
WINDOW, RISE, LR_FLOOR = 1 / 6, 0.01, 0.1       # 50k of 300k steps; accuracy gain; fraction of the peak rate
MEMORIZED = 1 - 1e-9
LONG_STEPS = EV.SWEEPS["fig3-long"]["config"]["steps"]
LONGER = f"{LONG_STEPS / EV.RECIPE_3['steps']:g}×"      # the long schedule over App. H's 300k steps
LONG_CLAIMS = {
    "fig3-long-plateau": f"App. H's paper T trained to convergence (a {LONGER} longer schedule): the training accuracy "
                         "at H = 4, T = 550 and H = 8, T = 1300 stops rising before the learning rate decays",
    "fig3-long-memorized": f"App. H's paper T is memorized by gradient descent given a {LONGER} longer schedule: H = 4, "
                           "T = 550 and H = 8, T = 1300 reach training accuracy 1",
    "fig3-long-one-free": f"App. H after the {LONGER} longer schedule, at the paper's T: almost every example has a "
                          "saturated head and a non-saturated head",
    "fig3-long-majority": f"App. H after the {LONGER} longer schedule, at the paper's T: a majority of (example, head) "
                          "pairs are saturated"}
LONG_CRITERION = (f"plateau (converged): best-so-far training accuracy gains < {RISE} over the {WINDOW:.3g} of the "
                  f"schedule before the learning rate falls to {LR_FLOOR:g} of its peak, at both H; memorized: final "
                  "training accuracy 1 at both H (a capacity of at least T is named only where the curve converged); "
                  "control of each: the 300k-step run of the same point (sweep fig3); one-free and majority: "
                  "fig3-paper-one-free's and fig3-paper-majority's criteria at the long run's T, control the same "
                  "model at initialisation")


def lr_step(total: int, floor: float = LR_FLOOR) -> int:
    """The first step after warm-up at which the official schedule (5% warm-up, cosine to 0) is at ``floor`` of its
    peak (:func:`lib.engine.schedules.lr_factors`, the schedule the runs used)."""
    s = np.arange(total // 20, total)
    return int(s[np.argmax(lr_factors("warmup_cosine", s, total, lr=1.0) <= floor)])


def best_by(row: dict, step: int) -> float:
    """The best training accuracy evaluated up to ``step`` (the history's (step, loss, accuracy) rows)."""
    return max((a for s, _, a in row["history"] if s <= step), default=0.0)


def acc_at(row: dict, step: int) -> float:
    """The training accuracy of the last evaluation at or before ``step``."""
    return max(((s, a) for s, _, a in row["history"] if s <= step), default=(0, 0.0))[1]


def rise(row: dict, total: int, window: float = WINDOW, floor: float = LR_FLOOR, raw: bool = False) -> float:
    """Best-so-far accuracy gained over ``window`` · total steps ending where the rate falls to ``floor`` (``raw``:
    the accuracy evaluated at the window's two ends instead)."""
    end = lr_step(total, floor)
    f = acc_at if raw else best_by
    return f(row, end) - f(row, end - int(window * total))


def rising(rows: dict[int, dict], total: int, window: float = WINDOW, gain: float = RISE,
           floor: float = LR_FLOOR, raw: bool = False) -> tuple[bool, str]:
    """The criterion on {H: point}: every curve still rising (gain ≥ ``gain``); the gains as the value."""
    g = {H: rise(r, total, window, floor, raw) for H, r in rows.items()}
    return all(v >= gain for v in g.values()), ", ".join(f"H={H}, T={rows[H]['T']}: +{v:.3f}" for H, v in g.items())


def flat(rows: dict[int, dict], total: int, window: float = WINDOW, gain: float = RISE, floor: float = LR_FLOOR,
         raw: bool = False) -> tuple[bool, str]:
    """The converse criterion on {H: point}: every curve stopped rising (gain < ``gain`` at every H, not merely at
    one); the gains as the value."""
    g = {H: rise(r, total, window, floor, raw) for H, r in rows.items()}
    return all(v < gain for v in g.values()), ", ".join(f"H={H}, T={rows[H]['T']}: +{v:.3f}" for H, v in g.items())


def rising_variants(rows: dict[int, dict], total: int, flip: bool = False) -> list:
    """The choices a skeptic would vary: the window, the rise threshold, where the window ends (``flip``: judge
    'stopped rising at every H' instead of 'still rising at every H')."""
    j = (lambda kw: flat(rows, total, **kw)) if flip else (lambda kw: rising(rows, total, **kw))  # noqa: E731
    return robust.rejudge(j, {
        **{f"window {w * total / 1000:.0f}k steps": dict(window=w) for w in (WINDOW / 2, 2 * WINDOW)},
        **{f"rise threshold {g:g}": dict(gain=g) for g in (RISE / 2, 2 * RISE)},
        **{f"window ends where the rate is {f:g} of its peak": dict(floor=f) for f in (LR_FLOOR / 2, 2 * LR_FLOOR)},
        "the accuracy evaluated at the window's ends, not the best so far": dict(raw=True)})


def at(points: list[dict], T_of: dict[int, int | None]) -> dict[int, dict]:
    """{H: the stored point at T_of[H]} (H without a point left out)."""
    out = {}
    for H, T in T_of.items():
        r = next((p for p in points if p["H"] == H and p["T"] == T), None)
        if r is not None:
            out[H] = r
    return out


def paper_converged(C: Claims, points: list[dict], located: dict[int, int | None]) -> dict[int, float]:
    """``fig3-paper-converged`` on the stored fig3 points (``located``: {H: T*}); returns the end-of-schedule gains
    (best-so-far accuracy over the last 50k steps, at a vanishing rate) for the printout."""
    total = EV.RECIPE_3["steps"]
    rows, ctl = at(points, PAPER_T), at(points, located)
    ok, ours = rising(rows, total)
    cok, cval = rising(ctl, total) if ctl else (False, "no T memorized")
    end = {H: best_by(r, total) - best_by(r, total - total // 6) for H, r in rows.items()}
    C.check("fig3-paper-converged", "App. H's 300k-step protocol ends before training converges at the paper's T: "
            "the training accuracy at H = 4, T = 550 and H = 8, T = 1300 is still rising when the learning rate has "
            "decayed to a tenth of its peak", kind=FINDING, stable=False,
            paper="'the maximal number of data points the model can perfectly memorize' (read as a capacity)",
            ours=ours + f" over steps {lr_step(total) - total // 6:,}–{lr_step(total):,}; over the last 50k steps (rate "
                 "< 8% of its peak): " + ", ".join(f"+{v:.3f}" for v in end.values()),
            ok=ok, variants=rising_variants(rows, total),
            criterion=f"best-so-far training accuracy gains ≥ {RISE} over the 50k steps before the learning rate falls "
                      f"to {LR_FLOOR:g} of its peak, at both H (the rate's decay to 0 flattens every curve at its end)",
            control=("the located T* of the same sweep (memorized), the same criterion", cok, cval),
            scale=Scale(ours="d = 64, n = 32, d_h = 64, 300k steps of batch 256, one seed (stored sweep fig3)",
                        paper="d = 64, n = 32, 300k steps"))
    return end


def long_stored(name: str = "fig3-long") -> tuple:
    """The stored ``fig3-long`` (or its second seed, ``fig3-long-seed1``) and {H: its point at the paper's T} ({}
    while stale or empty)."""
    ev = store.load(EV.CHAPTER, name)
    return ev, ({} if ev.stale else at(ev.points, PAPER_T))


def second_seed(stored: tuple | None = None) -> dict[int, dict]:
    """{H: the seed-1 long point at the paper's T} once ``fig3-long-seed1`` is complete and current, else {}: the
    seed a skeptic would vary, judged as a variant of every ``fig3-long-*`` claim. ``stored``: its
    :func:`long_stored`, when already read."""
    ev, rows = stored or long_stored("fig3-long-seed1")
    return rows if ev.complete else {}


def converged(r: dict) -> bool:
    """One long point judged by the plateau criterion: its best-so-far accuracy gains < ``RISE`` over the window."""
    return rise(r, LONG_STEPS) < RISE


def memorized(r: dict) -> bool:
    """One point judged by the capacity's threshold: final training accuracy 1."""
    return r["final_acc"] >= MEMORIZED


def readings(r: dict, thr: float = 0.99) -> dict:
    """App. H's statistics of one stored point at threshold ``thr`` (:func:`.fig3._sat_stats`: ``pairs``, ``both``,
    ``free``, ``most``); {} when the point keeps no softmax weights."""
    from lib.chapters.mha_memorization.claims.fig3 import _sat_stats
    return _sat_stats(np.array(r["max_weight"]), thr) if "max_weight" in r else {}


def capacity_text(rows: dict[int, dict]) -> str:
    """What the long points say about App. H's capacity, per H: a lower bound where training converged with the
    paper's T memorized, an upper bound on what this schedule memorizes where it converged below 1, and nothing
    where it did not converge."""
    out = []
    for H, r in rows.items():
        nxt = next((t for t in EV.GRID_3.get(H, []) if t > r["T"]), None)
        if not converged(r):
            out.append(f"at H = {H} training has not converged at T = {r['T']}: no capacity is named")
        elif memorized(r):
            out.append(f"at H = {H} training converged with T = {r['T']} memorized (first at step "
                       f"{r.get('first_full') or 0:,}): the capacity is at least {r['T']}, the paper's number; "
                       + (f"T = {nxt} was not trained this long, so no maximum is located" if nxt else
                          "no larger T was trained this long, so no maximum is located"))
        else:
            out.append(f"at H = {H} training converged at accuracy {r['final_acc']:.4f} < 1: T = {r['T']} exceeds "
                       "what this schedule memorizes")
    return "; ".join(out)


def long_text(rows: dict[int, dict]) -> str:
    """Each stored long point judged alone by the claims' criteria: its gain before the rate falls to a tenth of its
    peak (converged when < RISE), its final training accuracy (memorized when 1), and App. H's statistics."""
    def one(H: int, r: dict) -> str:
        st = readings(r)
        sat = (f"; saturated pairs {st['pairs']:.3f}, examples with a saturated and a free head {st['both']:.2f}, "
               f"with at least one free head (literal) {st['free']:.2f}, with most heads saturated and one free "
               f"{st['most']:.2f}") if st else ""
        return (f"H = {H}, T = {r['T']}: +{rise(r, LONG_STEPS):.3f} "
                f"({'stopped rising' if converged(r) else 'still rising'}), final accuracy {r['final_acc']:.4f} "
                f"({'memorized' if memorized(r) else 'not memorized'}){sat}")
    return "; ".join(one(H, r) for H, r in rows.items())


def long_claims(C: Claims, short: list[dict]) -> tuple[dict[int, dict], dict[int, dict]]:
    """``fig3-long-*`` on the stored ``fig3-long`` (not run, with cost and command, until it is complete, the points
    stored so far judged in the reason: :func:`long_text`, :func:`capacity_text`); ``short``: the fig3 points (the
    controls). Returns {H: long point} of the points stored and of seed 1's once complete (for the figure)."""
    ev, stored = long_stored()
    print(ev.label)
    ev1, stored1 = long_stored("fig3-long-seed1")
    seed1 = second_seed((ev1, stored1))
    why = stored_claims.pending_reason([ev], LONG_CRITERION)
    if why is not None:
        for i, s in LONG_CLAIMS.items():
            C.not_run(i, s, paper="App. H (d = 64, n = 32, 300k steps)", kind=EXPERIMENT,
                      reason=why + (f"; stored so far, by the same criteria: {long_text(stored)}; "
                                    f"{capacity_text(stored)}" if stored else ""))
        return stored, seed1
    total, rows, ctl = LONG_STEPS, stored, at(short, PAPER_T)
    print(ev1.label + (f"; stored so far, by the same criteria: {long_text(stored1)}" if stored1 and not seed1 else ""))
    seeds = "seed 0, seed 1 as a variant (stored sweeps fig3-long, fig3-long-seed1)" if seed1 else \
        "one seed (stored sweep fig3-long)"
    sc = Scale(ours=f"d = 64, n = 32, d_h = 64, {total:,} steps of batch 256, {seeds}", paper="d = 64, n = 32, 300k steps")
    on_seed1 = {"seed 1 (fig3-long-seed1)": seed1} if seed1 else {}
    plateau = lambda kw: flat(rows, total, **kw)                                               # noqa: E731
    ok, ours = plateau({})
    c_ok, c_val = flat(ctl, EV.RECIPE_3["steps"])
    C.check("fig3-long-plateau", LONG_CLAIMS["fig3-long-plateau"], paper="(implied by 'maximal number')",
            ours=ours + f" over steps {lr_step(total) - int(WINDOW * total):,}–{lr_step(total):,}", ok=ok,
            kind=EXPERIMENT, stable=False, scale=sc, criterion=LONG_CRITERION,
            variants=rising_variants(rows, total, flip=True)
            + robust.rejudge(plateau, {"window 50k steps (fig3-paper-converged's, in steps)":
                                       dict(window=50_000 / total)})
            + robust.rejudge(lambda r: flat(r, total), on_seed1),
            control=("the 300k-step run of the same points (fig3), the same criterion", c_ok, c_val))
    mem = lambda lv, r_=rows: (all(r["final_acc"] >= lv for r in r_.values()),                # noqa: E731
                               ", ".join(f"H={H}: {r['final_acc']:.4f}" for H, r in r_.items()))
    C.check("fig3-long-memorized", LONG_CLAIMS["fig3-long-memorized"], paper="550 (H = 4), 1300 (H = 8)",
            ours=mem(MEMORIZED)[1] + "; " + capacity_text(rows)
            + (f"; seed 1: {mem(MEMORIZED, seed1)[1]}" if seed1 else ""), ok=mem(MEMORIZED)[0], kind=EXPERIMENT,
            stable=False, scale=sc, criterion=LONG_CRITERION,
            variants=robust.thresholds(mem, (0.99, 0.999), "'perfectly': accuracy threshold")
            + robust.rejudge(lambda r: mem(MEMORIZED, r), on_seed1),
            control=("the 300k-step run of the same points (fig3), the same criterion",
                     all(r["final_acc"] >= MEMORIZED for r in ctl.values()),
                     ", ".join(f"{r['final_acc']:.4f}" for r in ctl.values())))
    one_free_majority(C, rows, sc, seed1)
    return rows, seed1


def one_free_majority(C: Claims, rows: dict[int, dict], sc: Scale, seed1: dict[int, dict], thr: float = 0.99) -> None:
    """App. H's two statistics at the paper's T after the long schedule (where :func:`capacity_text` says whether it
    converged), by the criteria of ``fig3-paper-one-free`` and ``fig3-paper-majority``, every reading of "almost all
    examples have at least one non-saturated head" printed: a saturated and a free head (the criterion), at least
    one free head (the literal reading), most heads saturated and one free (the majority reading). Control: the same
    models at initialisation. ``seed1``: the seed-1 points ({} while not stored), a variant of both."""
    from lib.chapters.mha_memorization.claims.fig3 import HALF_READING, _sat_stats
    st = lambda t=thr, key="max_weight", r_=rows: {H: _sat_stats(np.array(r[key]), t)            # noqa: E731
                                                   for H, r in r_.items()}
    val = lambda d, k: "; ".join(f"H={H}: {v[k]:.2f}" for H, v in d.items())                  # noqa: E731
    most = lambda d, k="both", lv=0.9: (all(v[k] >= lv for v in d.values()), val(d, k))         # noqa: E731
    val3 = lambda d, k: "; ".join(f"H={H}: {v[k]:.3f}" for H, v in d.items())                 # noqa: E731
    maj = lambda d: (all(v["pairs"] > 0.5 for v in d.values()), val3(d, "pairs"))              # noqa: E731
    S, S0 = st(), st(key="max_weight_init")
    readings_ = [t for t in (0.9, 0.95, 0.999) if t != thr]
    C.check("fig3-long-one-free", LONG_CLAIMS["fig3-long-one-free"],
            paper="'almost all examples have at least one non-saturated head'", kind=EXPERIMENT, stable=False, scale=sc,
            ours="; ".join(f"H={H}: a saturated and a free head {v['both']:.2f}, at least one free head (literal) "
                           f"{v['free']:.2f}, most heads saturated and one free (majority) {v['most']:.2f}"
                           for H, v in S.items()),
            ok=most(S)[0],
            variants=robust.rejudge(lambda kw: most(**kw), {
                "the literal reading: at least one non-saturated head": dict(d=S, k="free"),
                "the majority reading: most of the example's heads saturated and one free": dict(d=S, k="most"),
                **{f"saturated read as weight > {t:g}": dict(d=st(t)) for t in readings_},
                "'almost all' read as ≥ 0.85": dict(d=S, lv=0.85), "'almost all' read as ≥ 0.95": dict(d=S, lv=0.95),
                **({"seed 1 (fig3-long-seed1)": dict(d=st(r_=seed1))} if seed1 else {})}),
            criterion=f"fraction of examples with at least one saturated AND one non-saturated head (largest weight > "
                      f"{thr} / ≤ {thr}) ≥ 0.9 at both H (fig3-paper-one-free's criterion)",
            control=("the same models at their initialisation (untrained), the same criterion", most(S0)[0],
                     val(S0, "both")))
    C.check("fig3-long-majority", LONG_CLAIMS["fig3-long-majority"], paper="majority / 'significant number'",
            kind=EXPERIMENT, stable=False, scale=sc, ours=val3(S, "pairs"), ok=maj(S)[0],
            variants=robust.rejudge(lambda t: maj(st(t)), {f"saturated read as weight > {t:g}": t for t in readings_})
            + robust.rejudge(lambda d: (all(v["half"] > 0.5 for v in d.values()), val3(d, "half")), {HALF_READING: S})
            + robust.rejudge(lambda r: maj(st(r_=r)), {"seed 1 (fig3-long-seed1)": seed1} if seed1 else {}),
            criterion=f"fraction of (example, head) pairs with largest softmax weight > {thr} is > 0.5 at both H "
                      "(fig3-paper-majority's criterion)",
            control=("the same models at their initialisation (untrained), the same criterion", maj(S0)[0],
                     val3(S0, "pairs")))


def report(C: Claims, points: list[dict], located: dict[int, int | None]) -> dict[int, dict]:
    """Both convergence judgements and the learning-curve figure (left open for the caller); returns {H: long point}
    of the fig3-long points stored."""
    from lib.chapters.mha_memorization import figures
    paper_converged(C, points, located)
    long, seed1 = long_claims(C, points)
    total = EV.RECIPE_3["steps"]
    figures.fig3_curves(points, long, PAPER_T, total, (lr_step(total) - int(WINDOW * total), lr_step(total)),
                        LONG_STEPS, (lr_step(LONG_STEPS) - int(WINDOW * LONG_STEPS), lr_step(LONG_STEPS)), seed1)
    return long


def length_text(C: Claims) -> str:
    """Whether longer training raises the saturated fraction, at each scale, from the stored numbers: at book scale
    ``fig3-length``'s values and verdict; at the paper's scale the saturated pairs of the paper's T after 300k steps
    (sweep fig3) and after the long schedule (fig3-long), each change set against fig3-length's rise of
    :data:`~.fig3.LENGTH_RISE`."""
    from lib.chapters.mha_memorization.claims.fig3 import LENGTH_RISE, _sat_stats
    from lib.chapters.mha_memorization.claims.fig3_notes import _fig3_points
    from lib.core.claims import NOT_RUN
    c = C.claims.get("fig3-length")
    book = (f"at book scale, the saturated fraction over the training budgets is {c.ours} (`fig3-length`, a rise of at "
            f"least {LENGTH_RISE:g} in some run: {c.verdict})" if c is not None and c.verdict != NOT_RUN else
            "at book scale it is not measured (`fig3-length` not run)")
    short, (_, long) = at(_fig3_points(), PAPER_T), long_stored()
    both = [H for H in PAPER_T if H in short and H in long]
    if not both:
        return f"Whether longer training raises the saturated fraction: {book}; at the paper's scale it is not measured " \
               "yet (the 300k-step and the long runs of the paper's T are not both stored)."
    pair = {H: (_sat_stats(np.array(short[H]["max_weight"]))["pairs"], _sat_stats(np.array(long[H]["max_weight"]))["pairs"])
            for H in both}
    up = [H for H, (a, b) in pair.items() if b - a >= LENGTH_RISE]
    down = [H for H, (a, b) in pair.items() if b - a <= -LENGTH_RISE]
    verdict = ("it rises by at least that at every H" if len(up) == len(both) else
               f"it rises by at least that at H = {', '.join(map(str, up))} only" if up else
               f"it falls by at least that at H = {', '.join(map(str, down))}" if down else
               f"it changes by less than {LENGTH_RISE:g} at every H")
    return (f"Whether longer training raises the saturated fraction: {book}; at the paper's scale, the paper's T after "
            f"300k and after {LONG_STEPS // 1000}k steps has saturated pairs " + ", ".join(
                f"H = {H}: {a:.3f} → {b:.3f} ({b - a:+.3f})" for H, (a, b) in pair.items())
            + f", so against fig3-length's rise of {LENGTH_RISE:g} {verdict} (one seed).")


def reconcile_text(C: Claims) -> str:
    """Fig. 3's sentence of :func:`~lib.chapters.mha_memorization.claims.reconcile.reconcile`, from the verdicts."""
    from lib.core.claims import NOT_RUN
    v = lambda i: C.claims[i].verdict if i in C.claims else NOT_RUN                      # noqa: E731
    out = (length_text(C) + " The saturated majority "
           f"and the free head are judged at both scales (book: {v('fig3-majority')}, {v('fig3-one-free')}; paper scale: "
           f"{v('fig3-paper-majority')}, {v('fig3-paper-one-free')}). At the paper's scale, whether the paper's T is "
           f"memorized within the protocol's 300k steps is `fig3-paper-capacity` ({v('fig3-paper-capacity')}), and whether those "
           f"steps reach convergence is judged from the learning curves (`fig3-paper-converged`: "
           f"{v('fig3-paper-converged')}). ")
    long = v("fig3-long-plateau"), v("fig3-long-memorized")
    _, stored = long_stored()
    if long[0] == NOT_RUN:
        if not stored:
            return out + "The longer schedule that settles it (`fig3-long`) is not run yet: no capacity is named."
        missing = [H for H in PAPER_T if H not in stored]
        return out + (f"The {LONGER} longer schedule (`fig3-long`) is stored at H = "
                      f"{', '.join(str(H) for H in stored)} only: {capacity_text(stored)}. Its claims wait for "
                      f"H = {', '.join(map(str, missing))}, where no capacity is named yet.")
    return out + (f"With the {LONGER} longer schedule (`fig3-long-plateau`: {long[0]}; `fig3-long-memorized`: "
                  f"{long[1]}; one free head: {v('fig3-long-one-free')}; majority: {v('fig3-long-majority')}): "
                  f"{capacity_text(stored)}.")
