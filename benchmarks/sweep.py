"""Benchmark of the sweep engine (issue 3): batched families vs one model at a time.

For the MHA chapter's grid (d = 64, n = 32, H in {1, 20}, batch 256, shared and non-shared contexts) and
the AoT chapter's Exp 1 grid (N = 50, S = 2, d = dh = 10, H in {1, 16}, batch 256), each over G = 32
models, side by side in one run:

* ``engine``   : lib.engine.train.train_family on the whole family (one batched computation, batched Adam);
* ``same-math``: the same trainer and math, one model at a time (G = 1), isolating what batching buys;
* ``official`` : the official code's math, one model at a time: an nn.Module per model (MHA: the whole
                 context attended from every position, query masked out, as in the official code;
                 AoT: H separate ``nn.MultiheadAttention`` heads in a Python loop, as in the official
                 code), ``torch.optim.Adam`` and torch's LR schedulers.

It prints steps/s and model-steps/s of each, the two ratios, and the fraction of this machine's
measured float32 matmul peak that the engine reaches (FLOPs counted per step by ``fam.flops``), then
the cost of one seed of the MHA paper's Fig 2(a) grid at paper scale (measured here on CPU,
extrapolated to one GPU when none is present). Timings are the best of ``--reps`` interleaved
repetitions (the machine is shared); the load average is printed before and after.

It also times models of different sizes grouped into one family per size vs zero-padded into one
family (the choice lib/sweep.py documents).

    .venv/bin/python benchmarks/sweep.py [--quick] [--device cpu|cuda] [--json out.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import torch
from torch import nn

from lib.chapters.aot_memorization import model as aot_model
from lib.chapters.mha_memorization import model as mha_model
from lib.engine import family
from lib.engine import train as T

VIEW_OPS = {"aten::view", "aten::reshape", "aten::transpose", "aten::unsqueeze", "aten::expand", "aten::as_strided",
            "aten::_unsafe_view", "aten::squeeze", "aten::t", "aten::permute", "aten::select", "aten::slice",
            "aten::detach", "aten::alias", "aten::empty", "aten::empty_like", "aten::empty_strided",
            "aten::resolve_conj", "aten::resolve_neg", "aten::lift_fresh", "aten::result_type", "aten::to",
            "aten::_to_copy", "aten::zeros", "aten::zeros_like", "aten::ones_like", "aten::clone",
            "aten::contiguous", "aten::split", "aten::unbind", "aten::chunk", "aten::narrow", "aten::flatten",
            "aten::matmul", "aten::softmax", "aten::cross_entropy_loss", "aten::nll_loss_nd", "aten::nll_loss",
            "aten::log_softmax", "aten::expand_as", "aten::sum_to_size", "aten::numpy_T", "aten::mT"}


_CLOCK = {"f": time.process_time}


def clock() -> float:
    """The benchmark's clock: process CPU time by default on CPU (the machine is time-shared by other
    jobs: wall time would count the time this process waits for a core), wall time on CUDA."""
    return _CLOCK["f"]()


def sync(dev):
    if dev.type == "cuda":
        torch.cuda.synchronize()


def matmul_peak(dev, reps: int) -> tuple[float, str]:
    """Best float32 GFLOP/s over square GEMMs and a batched GEMM of the engine's shape."""
    best, what = 0.0, ""
    shapes = [(1, 512), (1, 1024), (1, 2048), (32, 256)] if dev.type == "cpu" else [(1, 4096), (1, 8192)]
    for b, n in shapes:
        a = torch.randn(b, n, n, device=dev)
        c = torch.randn(b, n, n, device=dev)
        for _ in range(2):
            torch.bmm(a, c)
        ts = []
        for _ in range(reps):
            sync(dev)
            t0 = clock()
            torch.bmm(a, c)
            sync(dev)
            ts.append(clock() - t0)
        gf = 2 * b * n ** 3 / min(ts) / 1e9
        if gf > best:
            best, what = gf, f"{b}x{n}x{n}x{n} GEMM"
    return best, what


# ---------------------------------------------------------------------------------------------
# one-model-at-a-time baselines
# ---------------------------------------------------------------------------------------------
class OfficialAoTLoop(nn.Module):
    """The official AoT code's structure for d = dh: word embedding lookup, positional embedding added
    to the attention input only, H separate nn.MultiheadAttention(dh, 1 head, no bias) run in a Python
    loop and summed, residual = word embedding, unembedding, the last position read."""

    def __init__(self, fam: aot_model.AoTMemorization, p: dict):
        super().__init__()
        assert fam.variant == "official" and not fam.compress
        self.E = nn.Parameter(p["E"].clone())
        self.P = nn.Parameter(p["P"].clone())
        self.U = nn.Parameter(p["U"].clone())
        self.heads = nn.ModuleList()
        for h in range(fam.H):
            m = nn.MultiheadAttention(fam.dh, 1, bias=False, batch_first=True, dtype=p["E"].dtype)
            with torch.no_grad():
                m.in_proj_weight.copy_(torch.cat([p["W_Q"][h].T, p["W_K"][h].T, p["W_V"][h].T]))
                m.out_proj.weight.copy_(p["W_O"][h].T)
            self.heads.append(m)
        S = fam.S
        self.register_buffer("mask", torch.triu(torch.ones(S, S, dtype=torch.bool), 1))

    def forward(self, t):
        res = self.E[t]
        x = res + self.P
        out = torch.zeros_like(res)
        for m in self.heads:
            out = out + m(x, x, x, attn_mask=self.mask, need_weights=False)[0]
        return ((res + out) @ self.U)[:, -1]


def official_loop(fam, data: family.FamilyData, seeds, models: int, steps: int, B: int, dev, lr=1e-3) -> float:
    """Seconds per model-step of the official math, one model at a time (nn.Module + torch Adam +
    torch schedulers), on ``models`` models of the family, ``steps`` steps each (after 2 warm-up steps)."""
    per = []
    for g in range(models):
        p = fam.init_one(seeds[g])
        p = {k: v.to(device=dev, dtype=torch.float32) for k, v in p.items()}
        if isinstance(fam, mha_model.MHAMemorization):
            m = mha_model.OfficialMHA(fam, p).to(dev)
            x, y = data.examples["x"][g].to(dev), data.examples["y"][g].to(dev)
            E = data.shared["E"][g].to(dev) if fam.shared else data.examples["E"][g].to(dev)

            def batch(idx):
                ctx = E.expand(B, -1, -1) if fam.shared else E[idx]
                return torch.cat([x[idx][:, None], ctx], 1), y[idx]
        else:
            m = OfficialAoTLoop(fam, p).to(dev)
            tt, y = data.examples["t"][g].to(dev), data.examples["y"][g].to(dev)

            def batch(idx):
                return tt[idx], y[idx]
        opt = torch.optim.Adam(m.parameters(), lr=lr)
        total = 50_000
        w = total // 20
        sch = torch.optim.lr_scheduler.SequentialLR(opt, [
            torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=w),
            torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=total - w)], milestones=[w])
        n = int(data.sizes[g])
        gen = torch.Generator().manual_seed(g)
        ts = []
        for _s in range(steps + 2):
            sync(dev)
            ts.append(clock())
            idx = torch.randint(0, n, (B,), generator=gen).to(dev)
            X, Y = batch(idx)
            loss = nn.functional.cross_entropy(m(X), Y)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sch.step()
        sync(dev)
        ts.append(clock())
        per.extend(b - a for a, b in zip(ts[2:], ts[3:], strict=False))
    return statistics.median(per)


def engine(fam, data: family.FamilyData, seeds, steps: int, B: int, dev) -> float:
    """Seconds per step of train_family on the family: the median of ``steps`` single-step times
    (taken between progress callbacks, after 2 warm-up steps; robust to load spikes)."""
    T._PROGRESS_EVERY = 1
    ts = []

    def prog(_n):
        sync(dev)
        ts.append(clock())
    T.train_family(fam, data, seeds=seeds, steps=steps + 3, batch_size=B, device=dev, schedule="warmup_cosine",
                   progress=prog)
    return statistics.median([b - a for a, b in zip(ts[2:], ts[3:], strict=False)])


def same_math(fam, data, seeds, models: int, steps: int, B: int, dev) -> float:
    """Seconds per model-step of the same trainer, one model at a time (median over models)."""
    per = []
    for g in range(models):
        one = data.select(torch.tensor([g]))
        per.append(engine(fam, one, [seeds[g]], steps, B, dev))
    return statistics.median(per)


def kernels_per_step(fam, data, seeds, B) -> int:
    """Number of non-view aten ops in one training step of the family (≈ GPU kernel launches)."""
    from torch.profiler import ProfilerActivity, profile
    T.train_family(fam, data, seeds=seeds, steps=3, batch_size=B, chunk_steps=4)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        T.train_family(fam, data, seeds=seeds, steps=4, batch_size=B, chunk_steps=4)
    with profile(activities=[ProfilerActivity.CPU]) as prof2:
        T.train_family(fam, data, seeds=seeds, steps=8, batch_size=B, chunk_steps=4)

    def count(p):
        return sum(e.count for e in p.key_averages() if e.key.startswith("aten::") and e.key not in VIEW_OPS)
    return round((count(prof2) - count(prof)) / 4)


# ---------------------------------------------------------------------------------------------
def configs(quick: bool):
    mha = [dict(kind="mha", H=H, shared=s) for H in (1, 20) for s in (True, False)]
    aot = [dict(kind="aot", H=H) for H in (1, 16)]
    return mha + aot


def build(cfg, G: int, B: int):
    seeds = list(range(G))
    if cfg["kind"] == "mha":
        fam = mha_model.MHAMemorization(d=64, n=32, H=cfg["H"], shared=cfg["shared"])
        sizes = [1000 * (1 + g % 4) for g in range(G)]          # 4 dataset sizes x 8 seeds
        if not cfg["shared"]:
            sizes = [256 * (1 + g % 4) for g in range(G)]       # per-example contexts: keep memory small
        data = mha_model.mha_data(fam, sizes, seeds)
        name = f"MHA d=64 n=32 H={cfg['H']:>2} {'shared' if cfg['shared'] else 'non-shared'}"
    else:
        fam = aot_model.AoTMemorization(N=50, S=2, d=10, dh=10, H=cfg["H"], variant="official")
        data = aot_model.aot_data(fam, 16384, seeds)
        name = f"AoT N=50 d=dh=10 H={cfg['H']:>2} (official)"
    return fam, data, seeds, name


def grouping_vs_padding(dev, B: int, reps: int) -> dict:
    """Models of different sizes: separate families per size (grouped) vs one family zero-padded to the
    largest size (exact for heads: a zero head has zero gradients). Time of one step of the whole grid."""
    out = {}
    cases = [("MHA d=64 n=32 H in {1,5,10,20} x 8 seeds", lambda H: mha_model.MHAMemorization(d=64, n=32, H=H),
              lambda fam, G: mha_model.mha_data(fam, [1000] * G, list(range(G))), [1, 5, 10, 20], 8),
             ("AoT N=50 d=dh=10 H in {1,6,11,16} x 8 seeds", lambda H: aot_model.AoTMemorization(N=50, d=10, H=H, variant="official"),
              lambda fam, G: aot_model.aot_data(fam, 16384, list(range(G))), [1, 6, 11, 16], 8)]
    for name, mk, mkdata, Hs, G in cases:
        tg, tp = [], []
        for _ in range(reps):
            grouped = 0.0
            for H in Hs:
                fam = mk(H)
                grouped += engine(fam, mkdata(fam, G), list(range(G)), 8, B, dev)
            fam = mk(max(Hs))
            tg.append(grouped)
            tp.append(engine(fam, mkdata(fam, G * len(Hs)), list(range(G * len(Hs))), 8, B, dev))
        g, p = min(tg), min(tp)
        out[name] = {"grouped_s_per_grid_step": g, "padded_s_per_grid_step": p}
        print(f"{name}: grouped (one family per H) {g * 1e3:.1f} ms per grid step, padded to H={max(Hs)} "
              f"{p * 1e3:.1f} ms -> {'grouping' if g < p else 'padding'} is x{max(g, p) / min(g, p):.2f} faster", flush=True)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer steps and repetitions")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--models", type=int, default=32)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", default=None)
    ap.add_argument("--only", default=None, help="substring filter on the config names")
    ap.add_argument("--clock", choices=["cpu", "wall"], default=None,
                    help="cpu = process CPU time (default on CPU), wall = elapsed time (default on CUDA)")
    ap.add_argument("--no-fig2a", action="store_true", help="skip the Fig 2(a) paper-scale estimate")
    a = ap.parse_args(argv)
    torch.set_num_threads(int(os.environ.get("ATR_THREADS", 1)))
    dev = torch.device(a.device)
    clk = a.clock or ("wall" if dev.type == "cuda" else "cpu")
    _CLOCK["f"] = time.perf_counter if clk == "wall" else time.process_time
    B, G = 256, a.models
    reps = 1 if a.quick else a.reps
    load0 = os.getloadavg()
    print(f"# sweep engine benchmark; torch {torch.__version__}, {torch.get_num_threads()} thread(s), device {dev}; "
          f"load average before: {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f}; clock: {clk}")
    peak, peak_what = matmul_peak(dev, 3 if a.quick else 5)
    print(f"measured float32 matmul peak: {peak:.1f} GFLOP/s ({peak_what})")
    rows = []
    for cfg in configs(a.quick):
        fam, data, seeds, name = build(cfg, G, B)
        if a.only and a.only not in name:
            continue
        heavy = fam.flops(B) > 5e7
        eng_steps = 3 if (heavy and a.quick) else (6 if heavy else 40)
        one_models = 2 if heavy else 4
        one_steps = 4 if heavy else 40
        off_steps = 2 if heavy else 20
        t_eng, t_one, t_off = [], [], []
        for _ in range(reps):
            t_eng.append(engine(fam, data, seeds, eng_steps, B, dev))
            t_one.append(same_math(fam, data, seeds, one_models, one_steps, B, dev))
            t_off.append(official_loop(fam, data, seeds, one_models, off_steps, B, dev))
        e, o, f = min(t_eng), min(t_one), min(t_off)
        flops = fam.flops(B)
        r = {"config": name, "G": G, "batch": B, "engine_steps_per_s": 1 / e, "engine_model_steps_per_s": G / e,
             "same_math_model_steps_per_s": 1 / o, "official_model_steps_per_s": 1 / f,
             "ratio_vs_official": (G / e) / (1 / f), "ratio_vs_same_math": (G / e) / (1 / o),
             "flops_per_model_step": flops, "engine_gflops": flops * G / e / 1e9,
             "peak_fraction": flops * G / e / 1e9 / peak,
             "official_flops_per_model_step": fam.official_flops(B) if hasattr(fam, "official_flops") else None,
             "engine_s_per_step_all": t_eng, "same_math_s_all": t_one, "official_s_all": t_off}
        rows.append(r)
        print(f"{name}: engine {r['engine_steps_per_s']:.2f} steps/s = {r['engine_model_steps_per_s']:.0f} model-steps/s "
              f"({r['engine_gflops']:.1f} GFLOP/s, {100 * r['peak_fraction']:.0f}% of peak) | same math one at a time "
              f"{r['same_math_model_steps_per_s']:.1f} model-steps/s -> x{r['ratio_vs_same_math']:.1f} | official one "
              f"at a time {r['official_model_steps_per_s']:.2f} model-steps/s -> x{r['ratio_vs_official']:.0f}",
              flush=True)
    pad = grouping_vs_padding(dev, B, reps)
    fig = None if a.no_fig2a else fig2a_estimate(dev, B, peak, quick=a.quick)
    load1 = os.getloadavg()
    print(f"load average after: {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f}")
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"peak_gflops": peak, "peak_what": peak_what, "load_before": load0, "load_after": load1,
                       "device": str(dev), "rows": rows, "grouping_vs_padding": pad, "fig2a": fig}, fh, indent=1)


def fig2a_estimate(dev, B: int, peak: float, quick: bool) -> dict:
    """One seed of the MHA paper's Fig 2(a) grid at paper scale: H in {1,5,...,60} x T in {10k..40k},
    max(500 epochs, 50k) steps each, evaluation on the training set every 500 steps, no early stop
    (an upper bound: the paper stops at 100% accuracy). Measured on this device per H with a family
    of the 4 dataset sizes; when no GPU is present, a GPU estimate from the counted FLOPs and kernels."""
    Hs = [1, 5, 10, 20, 30, 40, 50, 60]
    Ts = [10_000, 20_000, 30_000, 40_000]
    steps = [max(500 * t // 256, 50_000) for t in Ts]           # 50000, 50000, 58593, 78125
    # family of 4 models: all 4 run to 50000, 2 to 58593 (compacted), 1 to 78125
    phases = [(50_000, 4), (58_593 - 50_000, 2), (78_125 - 58_593, 1)]
    total_cpu, total_flops, kern = 0.0, 0.0, {}
    print("Fig 2(a), one seed, paper scale (32 runs, 1.9M steps in all):")
    for H in Hs:
        fam = mha_model.MHAMemorization(d=64, n=32, H=H, shared=True)
        per_h = 0.0
        for length, g in phases:
            data = mha_model.mha_data(fam, Ts[-g:], [0] * g)
            t = engine(fam, data, list(range(g)), 3 if quick else 6, B, dev)
            per_h += length * t
        fl = fam.flops(B) * sum(steps)
        # evaluation: every 500 steps a forward pass over T examples (≈ 1/3 of a training step per B examples)
        fl_eval = sum((s // 500) * (t / B) * fam.flops(B) / 3 for s, t in zip(steps, Ts, strict=False))
        per_h *= 1 + fl_eval / fl
        total_cpu += per_h
        total_flops += fl + fl_eval
        kern[H] = kernels_per_step(fam, mha_model.mha_data(fam, [300] * 4, [0] * 4), [0, 1, 2, 3], B)
        print(f"  H={H:>2}: {per_h / 3600:.2f} h on {dev.type} (measured per-step time x steps, no early stop); "
              f"{(fl + fl_eval) / 1e12:.1f} TFLOP; {kern[H]} kernels per step", flush=True)
    out = {"device": str(dev), "hours_measured_device": total_cpu / 3600, "total_tflop": total_flops / 1e12,
           "kernels_per_step": kern}
    print(f"  total on this {dev.type}: {total_cpu / 3600:.1f} h for {total_flops / 1e12:.0f} TFLOP "
          f"(official code: ~3.3 V100-days per seed, README)")
    if dev.type == "cpu":
        # GPU extrapolation: per step max(FLOPs / (efficiency x peak), host-side cost of issuing the step).
        # The host cost is measured here: one step of a tiny family (same op sequence, negligible arithmetic)
        # is PyTorch's per-op dispatch on this CPU; CUDA adds its launch latency (~4 us per kernel, typical).
        tiny = mha_model.MHAMemorization(d=4, n=2, H=1, n_classes=3)
        host = min(engine(tiny, mha_model.mha_data(tiny, [16], [0]), [0], 20, 4, dev) for _ in range(3))
        gpu_peak = 67e12           # H100 SXM float32 (non-tensor-core) peak, FLOP/s (NVIDIA datasheet)
        launch = host / max(kern.values()) + 4e-6       # s per kernel: measured dispatch + CUDA launch
        out["host_s_per_step_tiny"] = host
        print(f"  host-side cost of one step (tiny family, measured): {host * 1e3:.2f} ms "
              f"= {host / max(kern.values()) * 1e6:.1f} us per op")
        for eff in (0.25, 0.5):
            tot = 0.0
            for H in Hs:
                fam = mha_model.MHAMemorization(d=64, n=32, H=H, shared=True)
                for length, g in phases:
                    tot += length * max(g * fam.flops(B) / (eff * gpu_peak), kern[H] * launch)
            tot *= 1.1             # evaluation passes (< 10% of the FLOPs above)
            out[f"h100_hours_eff{eff}"] = tot / 3600
            print(f"  H100 extrapolation (float32 at {int(eff * 100)}% of 67 TFLOP/s, {launch * 1e6:.1f} us per kernel, "
                  f"{kern[Hs[-1]]} kernels/step): {tot / 60:.0f} min for the whole grid, families run one after another")
        # all 32 runs zero-padded to H = 60 in one family (exact: zero heads keep zero gradients)
        fam = mha_model.MHAMemorization(d=64, n=32, H=60, shared=True)
        pad = sum(length * max(8 * g * fam.flops(B) / (0.5 * gpu_peak), kern[60] * launch) for length, g in phases) * 1.1
        out["h100_hours_padded_one_family"] = pad / 3600
        print(f"  H100, the 32 runs padded into one family (H=60, 50% of peak): {pad / 60:.0f} min")
    return out


if __name__ == "__main__":
    main()
