"""Benchmark: the mha-memorization GPU sweeps (``fig4-gpu``, ``fig4-context-gpu``) and Fig. 2(c)'s recipe on one GPU.

Before a GPU lease is spent on a sweep, three numbers decide how to run it:

* **agreement**: one small family trained for ``--steps`` steps on the CPU and on the GPU (float32 both; the
  data are drawn on the CPU either way): the largest relative difference of the parameters and of the losses;
* **one process**: the wall-clock ms per family-step of each sweep's largest work unit on the GPU alone;
* **P processes at once**: its largest point alone (a one-model family) trained by P processes sharing the GPU,
  the steps per second of all of them together (the GPU's kernels are tiny, so the host's launch rate, not the GPU, sets the pace
  of one process).

    python benchmarks/gpu_sweeps.py [--steps 300] [--procs 1,8,16] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import time

import torch

from lib.chapters.mha_memorization import evidence as E
from lib.chapters.mha_memorization import model as mha_model
from lib.engine import train


def family_of(points: list[dict], cfg: dict):
    """The model family and data of one work unit, as :func:`train_points` builds them."""
    p0 = points[0]
    fam = mha_model.MHAMemorization(d=cfg["d"], n=p0.get("n", cfg.get("n")), H=p0["H"], dh=p0.get("dh", cfg["d"]),
                                    n_classes=cfg["classes"], task=cfg.get("task", "classification"),
                                    shared=cfg.get("shared", True))
    return fam, mha_model.mha_data(fam, [p["T"] for p in points], [p["seed"] for p in points])


def largest_unit(name: str, one: bool = False) -> list[dict]:
    """The points of ``name``'s largest family (``one``: its largest point alone)."""
    sw = E.SWEEPS[name]
    key = {"fig2c": "dh", "fig4-context-gpu": "n"}.get(name, "H")
    top = max(p[key] for p in sw["points"])
    unit = [p for p in sw["points"] if p[key] == top]
    return [max(unit, key=lambda p: p["T"])] if one else unit


def timed(name: str, steps: int, device: str = "cuda", one: bool = True) -> float:
    """ms per family-step of ``name``'s largest unit, or its largest point alone (the first 50 steps are
    warm-up)."""
    torch.set_num_threads(1)
    cfg = E.SWEEPS[name]["config"]     # Fig. 2(c): the CPU sweep's recipe and grid, timed on the GPU
    fam, data = family_of(largest_unit(name, one), cfg)
    seeds = [0] * data.G
    train.train_family(fam, data, seeds=seeds, steps=50, lr=1e-3, batch_size=cfg["batch"], device=device)
    torch.cuda.synchronize() if device == "cuda" else None
    t0 = time.perf_counter()
    train.train_family(fam, data, seeds=seeds, steps=steps, lr=1e-3, batch_size=cfg["batch"], device=device)
    torch.cuda.synchronize() if device == "cuda" else None
    return 1000 * (time.perf_counter() - t0) / steps


def _worker(args) -> float:
    return timed(*args)


def agreement(steps: int) -> dict:
    """CPU against GPU on a small per-example family: largest relative differences after ``steps`` steps."""
    torch.set_num_threads(1)
    cfg = E.SWEEPS["fig4-gpu"]["config"]
    pts = [dict(H=5, n=32, T=T, seed=s) for T, s in ((2000, 0), (3000, 1))]
    out = {}
    for dev in ("cpu", "cuda"):
        fam, data = family_of(pts, cfg)
        r = train.train_family(fam, data, seeds=[0, 1], steps=steps, lr=1e-3, schedule="warmup_cosine",
                               batch_size=cfg["batch"], eval_every=100, device=dev, return_params=True)
        out[dev] = r
    dp = max(float((a - b).abs().max() / a.abs().max()) for ra, rb in zip(out["cpu"], out["cuda"], strict=True)
             for a, b in zip(ra["params"]["final"].values(), rb["params"]["final"].values(), strict=True))
    dl = max(abs(a[1] - b[1]) / abs(a[1]) for ra, rb in zip(out["cpu"], out["cuda"], strict=True)
             for a, b in zip(ra["history"], rb["history"], strict=True))
    return dict(steps=steps, params_rel=dp, loss_rel=dl,
                acc=[[r["final_acc"] for r in out[d]] for d in ("cpu", "cuda")])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--procs", default="1,8,16")
    ap.add_argument("--json")
    a = ap.parse_args()
    res = dict(gpu=torch.cuda.get_device_name(), torch=torch.__version__, agreement=agreement(a.steps), sweeps={})
    print("agreement", res["agreement"], flush=True)
    ctx = mp.get_context("spawn")
    for name in ("fig4-gpu", "fig4-context-gpu", "fig2c"):
        row = {"family": timed(name, a.steps, one=False)}
        print(name, "whole family, one process: ms/step", row["family"], flush=True)
        for P in [int(x) for x in a.procs.split(",")]:
            t0 = time.perf_counter()
            with ctx.Pool(P) as pool:
                ms = pool.map(_worker, [(name, a.steps)] * P)
            row[P] = dict(ms_step=sum(ms) / P, family_steps_s=P * 1000 / (sum(ms) / P),
                          wall_s=time.perf_counter() - t0)
            print(name, P, row[P], flush=True)
        res["sweeps"][name] = dict(unit=largest_unit(name), by_procs=row)
        if a.json:
            with open(a.json, "w") as f:
                json.dump(res, f, indent=1)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
