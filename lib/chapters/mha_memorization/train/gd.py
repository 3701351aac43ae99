"""Sec. 5.2 / Appendices A, H, I.1 of Mahdavi et al.: memorization by gradient descent, on the book's
sweep engine (:mod:`lib.engine.family`, :mod:`lib.engine.train`, :mod:`lib.engine.sweep`).

The trained model is the official code's (``lib.chapters.mha_memorization.model.MHAMemorization``): a learned input embedding
with bias plus sinusoidal position encodings, H heads with value dimension 1 and logits scaled by
``1/sqrt(d)``, the query masked out of the keys, ``W_O ∈ R^{H×d}`` and a decoder with bias to 100
classes (or 1 output for regression). Training (``lib.engine.train.train_family``): Adam, 5% linear warm-up
from 0.01x then cosine decay; every ``eval_every`` steps the training accuracy is evaluated, a model
stops at 100%, and the reported accuracy is that of its lowest-loss evaluation (the official code
reloads the best-loss checkpoint).

A sweep point is ``dict(kind, H, n, dh, T, seed)``; the data of a point are drawn from
``RandomState(seed)`` in the official order (context, queries, labels), so the points of one seed
share their data across H, as in the official code. Points that share an architecture (and, in
full-batch mode, a dataset size) train together as one batched family; finished points are stored
at once and a rerun in the same run folder resumes (:func:`lib.engine.sweep.run`).
"""
from __future__ import annotations

import numpy as np

from lib.chapters.mha_memorization import model as mha_model
from lib.core import attention as att
from lib.engine import family, sweep, train

SWEEPS = ("heads", "context", "dh", "regression", "regression_n", "nonshared", "nonshared_n", "saturation")


def _fam(p: dict, d: int, classes: int) -> mha_model.MHAMemorization:
    return mha_model.MHAMemorization(d=d, n=p["n"], H=p["H"], dh=p["dh"], n_classes=classes,
                                  task="regression" if p["kind"].startswith("regression") else "classification",
                                  shared=not p["kind"].startswith("nonshared"))


def query_attention(fam: mha_model.MHAMemorization, params: dict, data: family.FamilyData, g: int = 0) -> np.ndarray:
    """θ_h^(t) of model ``g`` (shared context): the query's softmax weights over the n context tokens,
    ``[T, H, n]``, computed with :func:`lib.core.attention` from the trained parameters (no model axis)."""
    p = {k: v.double() for k, v in params.items()}
    T = int(data.sizes[g])
    x = data.examples["x"][g, :T].double().cpu()
    E = data.shared["E"][g].double().cpu()
    pe = family.sinusoidal_pe(fam.n + 1, fam.d)
    q = x @ p["emb_W"] + p["emb_b"] + pe[0]
    c = E @ p["emb_W"] + p["emb_b"] + pe[1:]
    S = att.scores(q, c, p["W_Q"], p["W_K"], scale=fam.scale)                         # [H, T, n]
    return att.normalize(S).permute(1, 0, 2).numpy()


def train_points(points: list[dict], report, d: int, classes: int, lr: float, batch: int, eval_every: int,
                 steps: dict, device: str = "cpu") -> None:
    """Train one work unit (points sharing an architecture) as one family; report each point as it
    finishes. ``steps[kind]`` is (minimum steps, epochs): a point runs max(min, epochs·T/batch)."""
    fam = _fam(points[0], d, classes)
    sizes = [p["T"] for p in points]
    seeds = [p["seed"] for p in points]
    data = mha_model.mha_data(fam, sizes, seeds)
    B = batch if batch else max(sizes)                  # full batch (see run_sweep)
    kind = points[0]["kind"]
    base, epochs = steps[kind]
    st = [p.get("steps") or max(base, epochs * T // B if epochs else 0) for p, T in zip(points, sizes, strict=True)]
    sat = kind == "saturation"

    def done(g, r):
        out = {k: r[k] for k in ("steps", "stopped_early", "final_loss", "final_acc", "best_loss", "best_acc", "best_step")}
        if sat:
            th = query_attention(fam, r["params"]["final"], data, g)
            out["max_weight"] = np.round(th.max(axis=2), 6).tolist()               # [T, H]
            th0 = query_attention(fam, fam.init_one(points[g]["seed"]), data, g)     # the same model untrained
            out["max_weight_init"] = np.round(th0.max(axis=2), 6).tolist()
        report(points[g], out)

    train.train_family(fam, data, seeds=seeds, steps=st, lr=lr, schedule="warmup_cosine", batch_size=B,
                       early_stop_acc=None if (sat or kind.startswith("regression")) else 1.0, eval_every=eval_every,
                       device=device, return_params=sat, on_model_done=done, progress=report.progress)


def sweep_points(kind: str, P: dict) -> list[dict]:
    """The grid of one sweep (Fig. 2a/b/c, Fig. 5a/b, Fig. 4 H- and n-sweeps, App. H) from the chapter's parameters."""
    seeds = [P["seed"] + 1000 * s for s in range(P["gd_seeds"])]
    n, d = P["gd_n"], P["gd_d"]
    pts = []
    if kind in ("heads", "regression", "nonshared"):
        Ts = {"heads": P["gd_T_heads"], "regression": P["gd_T_reg"], "nonshared": P["gd_T_nonshared"]}[kind]
        pts = [dict(kind=kind, H=H, n=n, dh=d, T=T, seed=s) for s in seeds for T in Ts for H in P["gd_heads"]]
    elif kind in ("context", "regression_n", "nonshared_n"):
        Ts = {"context": P["gd_T_n"], "regression_n": P["gd_T_reg"], "nonshared_n": P["gd_T_nonshared"]}[kind]
        pts = [dict(kind=kind, H=P["gd_H_n"], n=m, dh=d, T=T, seed=s) for s in seeds for T in Ts for m in P["gd_ns"]]
    elif kind == "dh":
        pts = [dict(kind=kind, H=P["gd_H_dh"], n=n, dh=k, T=T, seed=s) for s in seeds for T in P["gd_T_dh"] for k in P["gd_dhs"]]
    elif kind == "saturation":
        pts = [dict(kind=kind, H=H, n=n, dh=d, T=T, seed=P["seed"], steps=s)
               for H, T in zip(P["sat_H"], P["sat_T"], strict=False) for s in P["sat_steps"]]
    else:
        raise ValueError(f"unknown sweep {kind!r}")
    return pts


def _steps(P: dict) -> dict:
    base, ep = P["gd_steps"], P["gd_epochs"]
    return {"heads": (base, ep), "context": (base, ep), "regression": (base, ep), "nonshared": (base, ep),
            "regression_n": (base, ep), "nonshared_n": (base, ep),
            "dh": (P["gd_dh_steps"], 0), "saturation": (P["gd_dh_steps"], 0)}


def plan_cost(P: dict, kinds) -> tuple[float, int]:
    """Estimated training FLOPs (the engine's per-step count) and the number of trained models."""
    fl, models, st = 0.0, 0, _steps(P)
    for k in kinds:
        for p in sweep_points(k, P):
            fam = _fam(p, P["gd_d"], P["gd_classes"])
            B = P["gd_batch"] or p["T"]
            base, ep = st[k]
            fl += fam.flops(B) * (p.get("steps") or max(base, ep * p["T"] // B if ep else 0))
            models += 1
    return fl, models


# sweeps whose points train the same model on the same data when their architecture, dataset sizes, seeds and steps
# agree (the kind only picks the task and the context sharing: :func:`_fam`, :func:`train_points`)
_SAME_TRAINING = {"heads": "cls", "context": "cls", "dh": "cls", "regression": "reg", "regression_n": "reg",
                  "nonshared": "nonshared", "nonshared_n": "nonshared"}


def _family_key(kind: str, family: list[dict], P: dict) -> tuple | None:
    """What determines the training of one family of :func:`run_sweep` (None: never shared, the saturation runs)."""
    if kind not in _SAME_TRAINING:
        return None
    p = family[0]
    return (_SAME_TRAINING[kind], p["H"], p["n"], p["dh"], _steps(P)[kind],
            tuple((q["T"], q["seed"], q.get("steps")) for q in family))


def run_sweep(kind: str, P: dict, device, workers: int = 1, done: dict | None = None, folder=None) -> list[dict]:
    """Run one sweep with :func:`lib.engine.sweep.run` (inline with one worker); rows are ``{**result, **point}``.
    ``done`` ({family key: rows}, filled here) holds the families earlier sweeps trained: a family of this sweep
    with the same key (the same models on the same data, in the same family) takes their results instead of
    training again. ``folder``: where the sweep stores its points (default: :func:`lib.engine.sweep.sweep_dir`'s)."""
    pts = sweep_points(kind, P)
    Ts = {p["T"] for p in pts}
    # full batch = one batch of max(T) rows from each model's stream of epoch permutations: exact full-batch
    # gradients when every T divides max(T) (each example appears max(T)/T times); otherwise one T per family
    exact = all(max(Ts) % T == 0 for T in Ts)
    group = ["kind", "H", "n", "dh"] + ([] if P["gd_batch"] or exact else ["T"])
    cfg = _config(P, device)
    done = {} if done is None else done
    fams: dict[tuple, list[dict]] = {}
    for p in pts:
        fams.setdefault(tuple(p[k] for k in group), []).append(p)
    keys = {g: _family_key(kind, f, P) for g, f in fams.items()}
    todo = [p for g, f in fams.items() if keys[g] is None or keys[g] not in done for p in f]
    rows = sweep.run(train_points, todo, name=f"mha-{kind}", group_by=group, config=cfg, fn_kwargs=cfg,
                     workers=workers, quiet=True, folder=folder) if todo else []
    got = {sweep.point_key(p): r for p, r in zip(todo, rows, strict=True)}
    for g, f in fams.items():
        if keys[g] is not None and keys[g] in done:
            got.update({sweep.point_key(p): {**r, **p} for p, r in zip(f, done[keys[g]], strict=True)})
        elif keys[g] is not None:
            done[keys[g]] = [got[sweep.point_key(p)] for p in f]
    return [got[sweep.point_key(p)] for p in pts]


def _config(P: dict, device) -> dict:
    """The training settings every sweep shares (the config hashed into the sweeps' folders)."""
    return dict(d=P["gd_d"], classes=P["gd_classes"], lr=P["gd_lr"], batch=P["gd_batch"],
                eval_every=P["gd_eval_every"], steps=_steps(P), device=str(device))


def _folders(P: dict, device, tmp: str):
    """name -> the folder of that sweep: :func:`lib.engine.sweep.sweep_dir`'s ``$ATR_RUN_DIR/sweeps/<name>-<fingerprint>``
    (resumable; the fingerprint of the code and settings, the same for every sweep, hashed once), else under ``tmp``."""
    import os
    from pathlib import Path
    env = os.environ.get("ATR_RUN_DIR")
    if not env:
        return lambda name: Path(tmp) / name
    fp = sweep.fingerprint(train_points, _config(P, device))
    return lambda name: Path(env) / "sweeps" / f"{name}-{fp}"


def majority_fraction(p: dict, d: int, classes: int) -> float:
    """The largest class frequency in a point's labels (the same draw as its training data): the exact
    accuracy ceiling when every output is identical (n = 1, shared context)."""
    fam = _fam(p, d, classes)
    y = mha_model.mha_data(fam, [p["T"]], [p["seed"]]).examples["y"][0].numpy()
    return float(np.bincount(y, minlength=classes).max() / p["T"])


def official_steps(T: int, batch: int = 256, epochs: int = 500, min_steps: int = 50_000) -> int:
    """``train_steps = max(epochs·T // batch, min_steps)`` of the official ``main.py``."""
    return max(epochs * T // batch, min_steps)


def linear_fit(x, y):
    """Least-squares line y ≈ a x + b and its R²."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    A = np.stack([x, np.ones_like(x)], 1)
    coef, *_ = np.linalg.lstsq(A, y, rcond=None)
    res = y - A @ coef
    ss = ((y - y.mean()) ** 2).sum()
    return coef, (1 - (res ** 2).sum() / ss) if ss > 0 else float("nan")


def spearman(x, y) -> float:
    """Spearman rank correlation (average ranks for ties)."""
    from scipy.stats import spearmanr
    return float(spearmanr(x, y).statistic)


def frozen_kq_accuracy(p: dict, d: int, classes: int, steps: int, lr: float, eval_every: int, dtype: str = "float64",
                       device: str = "cpu") -> float:
    """App. H's closest rival: the same point (model, data, initial weights) trained with the attention frozen
    at its initialisation (``emb_W``, ``emb_b``, ``W_Q``, ``W_K`` fixed), only ``W_V``, ``W_O`` and the decoder
    trained: full-batch Adam, ``steps`` steps, 5% linear warm-up from 0.01x then cosine decay (the sweep's
    recipe, in ``dtype`` on ``device``: float64 on the CPU by default, float32 or a GPU for the paper's sizes). Its
    features have rank ≤ H(n−1)+1 for every T (Prop. 2). Returns the best training accuracy over the evaluations
    every ``eval_every`` steps and at the end."""
    import math

    import torch
    fam = _fam(p, d, classes)
    dt = getattr(torch, dtype)
    data = mha_model.mha_data(fam, [p["T"]], [p["seed"]], dtype=dt, device=device)
    batch = {"x": data.examples["x"], "y": data.examples["y"], **data.shared}
    params = {k: v[None].to(dtype=dt, device=device).clone() for k, v in fam.init_one(p["seed"]).items()}
    free = [params[k].requires_grad_() for k in ("W_V", "W_O", "dec_W", "dec_b")]
    opt = torch.optim.Adam(free, lr=lr)
    warm = max(1, steps // 20)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.01 + 0.99 * s / warm if s < warm
                                              else 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, steps - warm))))
    best, threads = 0.0, torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        best = _frozen_loop(fam, params, batch, opt, sched, steps, eval_every)
    finally:
        torch.set_num_threads(threads)
    return best


def _frozen_loop(fam, params, batch, opt, sched, steps: int, eval_every: int) -> float:
    best = 0.0
    for s in range(steps + 1):
        loss, correct = fam.per_example(params, batch)
        if s % eval_every == 0 or s == steps:
            best = max(best, float(correct.mean()))
            if best >= 1.0 or s == steps:
                break
        opt.zero_grad()
        loss.mean().backward()
        opt.step()
        sched.step()
    return best


def run(P: dict, device) -> dict[str, list[dict]]:
    """Every sweep of ``P["gd_sweeps"]``, in :data:`SWEEPS`' order: prints the planned cost first, then each sweep's
    size and time; returns {sweep: rows}."""
    import tempfile
    import time

    from lib.chapters.mha_memorization.figures import say
    kinds = [k for k in SWEEPS if k in P["gd_sweeps"]]
    flops, n_models = plan_cost(P, kinds)
    say(f"planned: {n_models} trained models, about {flops:.1e} FLOP "
        f"(~{flops / 5e9 / 60:.1f} min on one CPU core at 5 GFLOP/s; ~{flops / 5e12 / 60:.1f} min on a GPU at 5 TFLOP/s "
        "effective)")
    gd, done = {}, {}
    with tempfile.TemporaryDirectory(prefix="atr-mha-gd-") as tmp:
        folder = _folders(P, device, tmp)
        for k in kinds:
            t0 = time.perf_counter()
            gd[k] = run_sweep(k, P, device, done=done, folder=folder(f"mha-{k}"))
            print(f"{k:11s}: {len(gd[k])} models, up to {max(r['steps'] for r in gd[k])} steps, "
                  f"{time.perf_counter() - t0:.0f} s")
    return gd
