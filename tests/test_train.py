"""The batched families and trainer compute what one model at a time computes.

* each family's fast path equals the same math written with lib.core.attention, and equals a plain
  one-model nn.Module of the official code's math (float64, to rounding);
* a family of G models trained together ends with the same weights as each model trained alone
  (same seeds: init, batch order), with different data sizes, step counts, learning rates, early
  stopping and compaction in the family;
* the trainer's Adam + schedules equal torch.optim.Adam + torch's LR schedulers on OfficialMHA.
"""
from __future__ import annotations

import math

import pytest
import torch

from lib.chapters.aot_memorization import model as aot_model
from lib.chapters.mha_memorization import model as mha_model
from lib.engine import kernels
from lib.engine import train as T

torch.set_num_threads(1)
f64 = torch.float64


def _maxdiff(a: dict, b: dict) -> float:
    return max((a[k] - b[k]).abs().max().item() for k in a)


@pytest.mark.parametrize("shared", [True, False])
def test_mha_fast_equals_reference_and_official(shared):
    fam = mha_model.MHAMemorization(d=16, n=6, H=3, dh=8, n_classes=10, shared=shared)
    data = mha_model.mha_data(fam, [50, 80], [0, 1], dtype=f64)
    p = fam.init([3, 4], dtype=f64)
    b = data.batch(torch.randint(0, 50, (2, 7), generator=torch.Generator().manual_seed(0)))
    z = fam.logits(p, b)
    ref = mha_model.MHAMemorization(d=16, n=6, H=3, dh=8, n_classes=10, shared=shared, impl="reference")
    assert (z - ref.logits(p, b)).abs().max().item() < 1e-12
    for g in range(2):
        m = mha_model.OfficialMHA(fam, {k: v[g] for k, v in p.items()})
        E = b["E"][g] if not shared else b["E"][g].expand(7, -1, -1)
        X = torch.cat([b["x"][g][:, None], E], 1)
        assert (m(X) - z[g]).abs().max().item() < 1e-12


@pytest.mark.parametrize("variant,d,dh,S", [("paper", 6, 4, 2), ("paper", 5, 5, 2), ("official", 6, 6, 2),
                                           ("official", 6, 4, 2), ("paper", 6, 4, 3), ("official", 6, 4, 3)])
def test_aot_fast_equals_reference_and_official(variant, d, dh, S):
    fam = aot_model.AoTMemorization(N=7, S=S, d=d, dh=dh, H=3, variant=variant)
    data = aot_model.aot_data(fam, 100, [0, 1])
    p = fam.init([3, 4], dtype=f64)
    b = data.batch(torch.randint(0, 100, (2, 9), generator=torch.Generator().manual_seed(0)))
    z = fam.logits(p, b)
    ref = aot_model.AoTMemorization(N=7, S=S, d=d, dh=dh, H=3, variant=variant, impl="reference")
    assert (z - ref.logits(p, b)).abs().max().item() < 1e-12
    for g in range(2):
        m = aot_model.OfficialAoT(fam, {k: v[g] for k, v in p.items()})
        assert (m(b["t"][g]) - z[g]).abs().max().item() < 1e-12
    # the full table: N^S sequences, targets from each model's own table
    tab = aot_model.aot_table(fam, data)
    assert tab.examples["t"].shape == (2, 7 ** S, S)
    assert torch.equal(tab.examples["y"], data.shared["table"])


def test_softmax_dot_gradient():
    g = torch.Generator().manual_seed(1)
    S = (3 * torch.randn(2, 5, 3, 4, generator=g, dtype=f64)).requires_grad_(True)
    V = torch.randn(2, 1, 3, 4, generator=g, dtype=f64).requires_grad_(True)
    w = torch.randn(2, 5, 3, generator=g, dtype=f64)
    a = torch.autograd.grad((kernels.softmax_dot(S, V) * w).sum(), (S, V))
    b = torch.autograd.grad(((torch.softmax(S, -1) * V).sum(-1) * w).sum(), (S, V))
    assert max((x - y).abs().max().item() for x, y in zip(a, b, strict=False)) < 1e-13
    assert torch.autograd.gradcheck(kernels.softmax_dot, (S, V))


@pytest.mark.parametrize("vshape", [(7, 1, 3, 4), (7, 5, 3, 4), (1, 5, 3, 4)])
def test_softmax_dot_in_cache_blocks(monkeypatch, vshape):
    """Blocked over the model axis (here 3 blocks of at most 3 models), the same values and gradients."""
    monkeypatch.setattr(kernels, "_CHUNK_ELEMS", 150)
    g = torch.Generator().manual_seed(2)
    S = (3 * torch.randn(7, 5, 3, 4, generator=g, dtype=f64)).requires_grad_(True)
    V = torch.randn(*vshape, generator=g, dtype=f64).requires_grad_(True)
    w = torch.randn(7, 5, 3, generator=g, dtype=f64)
    a = torch.autograd.grad((kernels.softmax_dot(S, V) * w).sum(), (S, V))
    b = torch.autograd.grad(((torch.softmax(S, -1) * V).sum(-1) * w).sum(), (S, V))
    assert max((x - y).abs().max().item() for x, y in zip(a, b, strict=False)) < 1e-13
    assert kernels._chunks(7, 60) == [slice(0, 2), slice(2, 4), slice(4, 6), slice(6, 7)]


def test_init_depends_on_seed_only():
    fam = mha_model.MHAMemorization(d=8, n=4, H=2, n_classes=5)
    a = fam.init([5, 6, 7], dtype=f64)
    b = fam.init([7], dtype=f64)
    assert _maxdiff({k: v[2] for k, v in a.items()}, {k: v[0] for k, v in b.items()}) == 0
    c = fam.init([7], dtype=torch.float32)
    assert _maxdiff({k: v.double() for k, v in c.items()}, b) < 1e-6


def _family_vs_single(fam, data, seeds, dtype, **kw):
    R = T.train_family(fam, data, seeds=seeds, dtype=dtype, return_params=True, **kw)
    diffs = []
    for g in range(len(seeds)):
        one = data.select(torch.tensor([g]))
        kw1 = {k: (v[g] if isinstance(v, list) else v) for k, v in kw.items()}
        if "eval_data" in kw:
            kw1["eval_data"] = kw["eval_data"].select(torch.tensor([g]))
        r = T.train_family(fam, one, seeds=[seeds[g]], dtype=dtype, return_params=True, **kw1)[0]
        assert r["steps"] == R[g]["steps"] and r["stopped_early"] == R[g]["stopped_early"]
        diffs.append(_maxdiff(r["params"]["final"], R[g]["params"]["final"]))
        for key in ("best_loss", "final_loss", "running_acc"):
            assert math.isclose(r[key], R[g][key], rel_tol=1e-4, abs_tol=1e-6), key
    return R, max(diffs)


@pytest.mark.parametrize("dtype,tol", [(f64, 1e-10), (torch.float32, 1e-4)])
def test_batched_equals_one_at_a_time_mha(dtype, tol):
    fam = mha_model.MHAMemorization(d=16, n=6, H=3, dh=8, n_classes=10)
    sizes, seeds = [12, 60, 80, 100], [0, 1, 2, 3]
    data = mha_model.mha_data(fam, sizes, [7, 7, 8, 8], dtype=dtype)
    R, diff = _family_vs_single(fam, data, seeds, dtype, steps=[200, 300, 300, 250], lr=[3e-2, 1e-2, 1e-2, 2e-2],
                                schedule="warmup_cosine", batch_size=16, early_stop_acc=1.0, eval_every=25,
                                keep_best=True, running_window=20)
    assert diff < tol
    # the 12-example model memorises its set and stops early; the others run to their own step counts
    assert R[0]["stopped_early"] and R[0]["steps"] < 200 and R[0]["final_acc"] == 1.0
    assert [r["steps"] for r in R[1:]] == [300, 300, 250]
    for r in R:
        assert r["best_loss"] <= min(h[1] for h in r["history"]) + 1e-12


@pytest.mark.parametrize("variant", ["paper", "official"])
def test_batched_equals_one_at_a_time_aot(variant):
    fam = aot_model.AoTMemorization(N=8, S=2, d=4, dh=4, H=3, variant=variant)
    seeds = [11, 12, 13]
    data = aot_model.aot_data(fam, [256, 256, 128], seeds)
    R, diff = _family_vs_single(fam, data, seeds, f64, steps=120, lr=1e-2, lr_end=5e-4, schedule="linear",
                                per_epoch=[8, 8, 4], batch_size=32, running_window=30,
                                eval_data=aot_model.aot_table(fam, data))
    assert diff < 1e-10
    assert all(0 <= r["eval_acc"] <= 1 for r in R)


def test_engine_equals_torch_adam_and_schedulers():
    """The trainer (batched Adam, closed-form warmup+cosine) vs the official recipe written with
    torch.optim.Adam + SequentialLR(LinearLR, CosineAnnealingLR) on the official-math module."""
    fam = mha_model.MHAMemorization(d=16, n=6, H=2, dh=16, n_classes=10)
    T_, seed, steps, B = 40, 5, 60, 8
    data = mha_model.mha_data(fam, [T_], [seed], dtype=f64)
    r = T.train_family(fam, data, seeds=[seed], steps=steps, lr=1e-2, schedule="warmup_cosine", batch_size=B,
                       dtype=f64, return_params=True)[0]
    m = mha_model.OfficialMHA(fam, fam.init_one(seed))
    opt = torch.optim.Adam(m.parameters(), lr=1e-2)
    w = steps // 20
    sch = torch.optim.lr_scheduler.SequentialLR(opt, [
        torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.01, total_iters=w),
        torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=steps - w)], milestones=[w])
    batches = T._Batches([T_], [seed], B, "cpu")
    x, y, E = data.examples["x"][0], data.examples["y"][0], data.shared["E"][0]
    for _ in range(steps):
        idx = batches.next([0])[0]
        X = torch.cat([x[idx][:, None], E.expand(B, -1, -1)], 1)
        loss = torch.nn.functional.cross_entropy(m(X), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        sch.step()
    assert _maxdiff(m.export(), r["params"]["final"]) < 1e-9


def test_lr_factors_match_torch_linear_per_epoch():
    """The AoT official schedule: LinearLR stepped once per epoch (effective lr 1e-2 -> 5e-4)."""
    steps, per_epoch = 64 * 8, 8
    lr = T.lr_factors("linear", torch.arange(steps).numpy(), steps, lr=1e-2, lr_end=5e-4, per_epoch=per_epoch)
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=1e-2)
    sch = torch.optim.lr_scheduler.LinearLR(opt, start_factor=1.0, end_factor=0.05, total_iters=steps // per_epoch)
    ref = []
    for k in range(steps):
        ref.append(opt.param_groups[0]["lr"])
        if (k + 1) % per_epoch == 0:
            opt.step()
            sch.step()
    assert max(abs(a - b) for a, b in zip(lr, ref, strict=False)) < 1e-12


def test_zero_steps_and_validation():
    fam = mha_model.MHAMemorization(d=8, n=4, H=1, n_classes=5)
    data = mha_model.mha_data(fam, [10, 10], [0, 1])
    R = T.train_family(fam, data, seeds=[0, 1], steps=[0, 5], batch_size=4)
    assert [r["steps"] for r in R] == [0, 5]
    with pytest.raises(ValueError, match="steps"):
        T.train_family(fam, data, seeds=[0, 1], steps=[1, 2, 3])


@pytest.mark.parametrize("fused", [True, False])
def test_adam_step_equals_torch_adam_per_model(monkeypatch, fused):
    """The grouped fused update (models grouped by learning rate, lr = 0 left alone), and the foreach
    fallback, are torch.optim.Adam run on each model separately, also with a gradient whose layout
    differs from its parameter's."""
    monkeypatch.setattr(T, "_FUSED_OK", fused and T._FUSED_OK)
    torch.manual_seed(0)
    G, lrs = 4, [1e-2, 0.0, 3e-3, 1e-2]
    W = torch.randn(G, 5, 3, dtype=f64)
    b = torch.randn(G, 3, dtype=f64)
    refs = [[torch.nn.Parameter(W[g].clone()), torch.nn.Parameter(b[g].clone())] for g in range(G)]
    opts = [torch.optim.Adam(r, lr=lr) for r, lr in zip(refs, lrs, strict=False)]
    P, M, V = [W.clone(), b.clone()], [torch.zeros_like(W), torch.zeros_like(b)], [torch.zeros_like(W), torch.zeros_like(b)]
    for t in range(1, 6):
        gW = torch.randn(G, 3, 5, dtype=f64).transpose(1, 2)          # not contiguous
        gb = torch.randn(G, 3, dtype=f64)
        T.adam_step(P, [gW, gb], M, V, t, lrs)
        for g in range(G):
            refs[g][0].grad, refs[g][1].grad = gW[g].clone(), gb[g].clone()
            opts[g].step()
    for g in range(G):
        assert torch.allclose(P[0][g], refs[g][0].detach(), rtol=0, atol=1e-15)
        assert torch.allclose(P[1][g], refs[g][1].detach(), rtol=0, atol=1e-15)
    assert torch.equal(P[0][1], W[1])                                  # lr = 0: unchanged
