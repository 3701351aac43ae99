"""Sec. 5.2 / Appendices A, H, I.1 of Mahdavi et al.: memorization by gradient descent, the official
code's model trained as a batched *family* (many configurations in one set of batched tensors).

The official model (``src/attn_models.py`` of smahdavi4/attention-memorization, V2), for an input
``[query; n context tokens]`` of dimension d:

* a learned input embedding ``x -> x W_emb + b_emb`` (``nn.Linear(d, d)``), plus sinusoidal position
  encodings (position 0 = the query);
* H heads with ``W_Q, W_K ∈ R^{d×d_h}`` and ``W_V ∈ R^{d×1}`` (value dimension 1 per head), Xavier-uniform,
  no biases, logits scaled by ``1/sqrt(d)`` (the model width, not d_h), the query token masked out of the
  keys (so it is cross-attention of the query over the n context tokens);
* ``W_O ∈ R^{H×d}``, then a decoder ``nn.Linear(d, classes)`` with bias; the output at position 0.

Training (``src/trainers.py``): Adam, linear warm-up over 5% of the steps from 0.01x, then cosine decay
to 0; the training accuracy is evaluated every ``eval_every`` steps, the run stops early when it is 100%,
and the reported accuracy is that of the checkpoint with the lowest training loss.

Only the query position enters the loss, and the query is masked out of the keys, so computing the
query row alone gives the same loss and gradients as the official (n+1)-row computation; with a shared
context the keys and values are computed once per step, not once per example.

A family holds G models of one shape ``(H_max, n_max, d_h_max, T_max)``; a model with fewer heads /
context tokens / key-query columns / examples is the big one with the rest masked (its masked weights
get zero gradient), so the H-, n-, d_h- and T-sweeps of Fig. 2 each train as ONE batched model.
Adam is elementwise, so the members of the family do not interact.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F

from lib import attention as att


@dataclass
class Member:
    """One configuration of a family."""
    H: int
    n: int
    d_h: int
    T: int
    seed: int


def sinusoidal(n: int, d: int) -> torch.Tensor:
    """The standard sinusoidal position encodings, ``[n, d]``."""
    pos = torch.arange(n, dtype=torch.float64)[:, None]
    div = torch.exp(torch.arange(0, d, 2, dtype=torch.float64) * (-math.log(10000.0) / d))
    pe = torch.zeros(n, d, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div[: d // 2])
    return pe


def make_data(m: Member, d: int, task: str, shared: bool, classes: int, T_max: int, n_max: int):
    """The official ``RandomDataset``: contexts and queries U[0,1)^d, labels uniform over ``classes``
    (classification) or U(0,1) (regression); one ``RandomState(seed)``, drawn in the order E, e, y.
    Padded to ``T_max`` examples / ``n_max`` tokens."""
    rs = np.random.RandomState(m.seed)
    E = rs.rand(1 if shared else m.T, m.n, d)
    e = rs.rand(m.T, d)
    y = rs.randint(0, classes, size=m.T) if task == "classification" else rs.rand(m.T)
    Ep = np.zeros((T_max if not shared else 1, n_max, d))
    Ep[: E.shape[0], : m.n] = E
    ep = np.zeros((T_max, d))
    ep[: m.T] = e
    yp = np.zeros(T_max, dtype=np.int64 if task == "classification" else np.float64)
    yp[: m.T] = y
    return Ep, ep, yp


class Family:
    """G official models (padded and masked to a common shape) with their data."""

    def __init__(self, members: list[Member], d: int, task: str = "classification", shared: bool = True,
                 classes: int = 100, device: torch.device | str = "cpu", dtype=torch.float32):
        self.members, self.d, self.task, self.shared = members, d, task, shared
        self.C = classes if task == "classification" else 1
        G = len(members)
        Hm, nm, km, Tm = (max(getattr(x, a) for x in members) for a in ("H", "n", "d_h", "T"))
        self.shape = (G, Hm, nm, km, Tm)
        kw = dict(device=device, dtype=dtype)
        data = [make_data(x, d, task, shared, classes, Tm, nm) for x in members]
        self.E = torch.as_tensor(np.stack([a[0] for a in data]), **kw)          # [G, 1|T, n, d]
        self.e = torch.as_tensor(np.stack([a[1] for a in data]), **kw)          # [G, T, d]
        ydt = torch.long if task == "classification" else dtype
        self.y = torch.as_tensor(np.stack([a[2] for a in data]), dtype=ydt, device=device)
        ar = lambda k: torch.arange(k, device=device)
        self.head_mask = torch.stack([(ar(Hm) < x.H) for x in members]).to(dtype)          # [G, H]
        self.dh_mask = torch.stack([(ar(km) < x.d_h) for x in members]).to(dtype)          # [G, d_h]
        self.ctx_mask = torch.stack([(ar(nm) < x.n) for x in members])                     # [G, n] bool
        self.ex_mask = torch.stack([(ar(Tm) < x.T) for x in members]).to(dtype)            # [G, T]
        self.T = torch.tensor([x.T for x in members], device=device, dtype=dtype)
        pe = sinusoidal(nm + 1, d).to(**kw)
        self.pe_q, self.pe_k = pe[0], pe[1:]
        # initialisation, per member with its own fan-in / fan-out (torch defaults / Xavier-uniform)
        P = {}
        gens = [torch.Generator().manual_seed(x.seed) for x in members]

        def U(shape, bound):               # bound: [G] per member
            u = torch.stack([torch.rand(shape, generator=g, dtype=torch.float64) for g in gens])
            b = torch.as_tensor(bound, dtype=torch.float64).reshape(G, *([1] * len(shape)))
            return ((2 * u - 1) * b).to(**kw)
        P["W_emb"] = U((d, d), [1 / math.sqrt(d)] * G)
        P["b_emb"] = U((d,), [1 / math.sqrt(d)] * G)
        xq = [math.sqrt(6 / (d + x.d_h)) for x in members]
        P["W_Q"], P["W_K"] = U((Hm, d, km), xq), U((Hm, d, km), xq)
        P["W_V"] = U((Hm, d, 1), [math.sqrt(6 / (d + 1))] * G)
        P["W_O"] = U((Hm, 1, d), [math.sqrt(6 / (x.H + d)) for x in members])
        P["W_dec"] = U((d, self.C), [1 / math.sqrt(d)] * G)
        P["b_dec"] = U((self.C,), [1 / math.sqrt(d)] * G)
        self.P = {k: v.requires_grad_(True) for k, v in P.items()}

    def forward(self, idx: torch.Tensor | None = None, return_weights: bool = False, reference: bool = False):
        """Logits ``[G, B, C]`` for the examples ``idx [G, B]`` (all when None). Shared contexts go
        through :func:`lib.attention.attention` (the B queries attend to the same n keys). Non-shared
        contexts are, by default, computed with the scores re-associated as ``E (W_K (W_Q^T q))`` (the
        same numbers as lib.attention, ~10x faster for per-example contexts on a CPU; ``reference=True``
        runs lib.attention instead, and a unit test checks that the two agree)."""
        P = self.P
        e = self.e if idx is None else torch.gather(self.e, 1, idx[..., None].expand(-1, -1, self.d))
        q = e @ P["W_emb"] + P["b_emb"][:, None] + self.pe_q                          # [G, B, d]
        dm = self.dh_mask[:, None, None, :]
        W_Q, W_K = P["W_Q"] * dm, P["W_K"] * dm
        W_O = P["W_O"] * self.head_mask[:, :, None, None]                             # [G, H, 1, d]
        if self.shared:
            K = self.E[:, 0] @ P["W_emb"] + P["b_emb"][:, None] + self.pe_k            # [G, n, d]
            out = att.attention(q, K, W_Q, W_K, P["W_V"], W_O, scale=self.d ** -0.5,
                                mask=self.ctx_mask[:, None, None, :], return_weights=return_weights)
            o, A = out if return_weights else (out, None)
            if A is not None:
                A = A.permute(0, 2, 1, 3)                                              # [G, B, H, n]
        else:
            E = self.E if idx is None else torch.gather(
                self.E, 1, idx[..., None, None].expand(-1, -1, *self.E.shape[2:]))    # [G, B, n, d]
            G, B, n, d = E.shape
            K = (E.reshape(G, B * n, d) @ P["W_emb"]).reshape(G, B, n, d) + P["b_emb"][:, None, None] + self.pe_k
            if reference:
                o, A = att.attention(q[:, :, None, :], K, W_Q[:, None], W_K[:, None], P["W_V"][:, None],
                                     W_O[:, None], scale=self.d ** -0.5,
                                     mask=self.ctx_mask[:, None, None, None, :], return_weights=True)
                o, A = o[:, :, 0], A[:, :, :, 0]
            else:
                u = torch.einsum("gbhk,ghek->gbhe", torch.einsum("gbd,ghdk->gbhk", q, W_Q), W_K)
                S = torch.einsum("gbnd,gbhd->gbhn", K, u) * self.d ** -0.5
                A = att.normalize(S, mask=self.ctx_mask[:, None, None, :])            # [G, B, H, n]
                V = torch.einsum("gbnd,ghd->gbhn", K, P["W_V"][..., 0])
                o = torch.einsum("gbh,ghd->gbd", (A * V).sum(-1), W_O[:, :, 0, :])
        logits = o @ P["W_dec"] + P["b_dec"][:, None]
        return (logits, A) if return_weights else logits

    def loss_acc(self, logits: torch.Tensor, y: torch.Tensor, w: torch.Tensor):
        """Per-member mean loss and accuracy over the weighted examples: ``[G]`` each."""
        if self.task == "classification":
            ls = F.cross_entropy(logits.transpose(1, 2), y, reduction="none")            # [G, B]
            acc = ((logits.argmax(-1) == y).to(w.dtype) * w).sum(1) / w.sum(1)
        else:
            ls = (logits[..., 0] - y) ** 2
            acc = torch.full_like(w[:, 0], float("nan"))
        return (ls * w).sum(1) / w.sum(1), acc

    @torch.no_grad()
    def evaluate(self):
        """Full-training-set loss and accuracy per member (in chunks of examples)."""
        G, _, _, _, Tm = self.shape
        L = torch.zeros(G, device=self.e.device, dtype=self.e.dtype)
        Acc = torch.zeros_like(L)
        for s in range(0, Tm, 4096):
            idx = torch.arange(s, min(Tm, s + 4096), device=self.e.device).expand(G, -1)
            w = self.ex_mask[:, s:s + idx.shape[1]]
            lg = self.forward(idx)
            l, a = self.loss_acc(lg, self.y[:, s:s + idx.shape[1]], w)
            L += l * w.sum(1)
            Acc += (a if self.task == "classification" else torch.zeros_like(a)) * w.sum(1)
        return L / self.T, Acc / self.T

    @torch.no_grad()
    def attention_weights(self) -> np.ndarray:
        """θ_h^(t) of every member, ``[G, T, H, n]`` (float64 numpy)."""
        G, _, _, _, Tm = self.shape
        _, A = self.forward(torch.arange(Tm, device=self.e.device).expand(G, -1), return_weights=True)
        return A.double().cpu().numpy()


def train(fam: Family, steps: int, lr: float, batch: int = 0, eval_every: int = 100, early_stop: bool = True,
          warmup_frac: float = 0.05, log=None) -> dict:
    """Adam + linear warm-up (from 0.01x) + cosine decay, as the official trainer. ``batch = 0``: full
    batch. Returns per-member: the accuracy and loss of the lowest-loss checkpoint, the step at which
    100% was reached (or -1), and the wall time."""
    t0 = time.perf_counter()
    params = list(fam.P.values())
    opt = torch.optim.Adam(params, lr=lr)
    warm = max(1, steps // int(round(1 / warmup_frac)))

    def lr_at(s):
        if s < warm:
            return 0.01 + (1 - 0.01) * s / warm
        return 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, steps - warm)))
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_at)
    G, _, _, _, Tm = fam.shape
    dev = fam.e.device
    best_loss = torch.full((G,), float("inf"), device=dev, dtype=fam.e.dtype)
    best_acc = torch.zeros(G, device=dev, dtype=fam.e.dtype)
    done_at = torch.full((G,), -1, device=dev)
    gen = torch.Generator(device=dev).manual_seed(int(fam.members[0].seed) + 12345)
    for s in range(1, steps + 1):
        if batch and batch < Tm:
            idx = (torch.rand(G, batch, generator=gen, device=dev) * fam.T[:, None]).long()
            w = torch.ones(G, batch, device=dev, dtype=fam.e.dtype)
            y = torch.gather(fam.y, 1, idx)
            logits = fam.forward(idx)
        else:
            idx, w, y = None, fam.ex_mask, fam.y
            logits = fam.forward(None)
        l, _ = fam.loss_acc(logits, y, w)
        opt.zero_grad(set_to_none=True)
        l.sum().backward()
        opt.step()
        sched.step()
        if s % eval_every == 0 or s == steps:
            L, A = fam.evaluate()
            active = done_at < 0
            better = (L < best_loss) & active
            best_loss = torch.where(better, L, best_loss)
            best_acc = torch.where(better, A, best_acc)
            if fam.task == "classification":
                hit = active & (A >= 1 - 1e-6)
                best_acc = torch.where(hit, A, best_acc)
                done_at = torch.where(hit, torch.full_like(done_at, s), done_at)
            if log:
                log(s, L, A)
            if early_stop and fam.task == "classification" and bool((done_at >= 0).all()):
                break
    return dict(acc=best_acc.cpu().numpy(), loss=best_loss.cpu().numpy(), done_at=done_at.cpu().numpy(),
                steps=s, seconds=time.perf_counter() - t0)


def official_steps(T: int, batch: int = 256, epochs: int = 500, min_steps: int = 50_000) -> int:
    """``train_steps = max(epochs·T // batch, min_steps)`` of the official ``main.py``."""
    return max(epochs * T // batch, min_steps)


def flops_estimate(members: list[Member], d: int, classes: int, steps: int, batch: int, shared: bool = True) -> float:
    """Rough training FLOPs of a family (forward x3 for backward)."""
    tot = 0.0
    for m in members:
        per = 2 * m.H * (d * m.d_h + m.n * m.d_h + m.n) + 2 * (d * d + d * classes) + 2 * m.H * d
        if not shared:
            per += 2 * m.n * (d * d + m.H * d * m.d_h + m.H * d)
        tot += 3 * per * (batch if batch else m.T) * steps
    return tot


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


# ---------------------------------------------------------------------------------------------
# The chapter's sweeps (Fig. 2a-c, Fig. 5a, Fig. 4, Fig. 3) from its parameters
# ---------------------------------------------------------------------------------------------
SWEEPS = ("heads", "context", "dh", "regression", "nonshared", "saturation")


def sweep_plan(kind: str, P: dict) -> list[dict]:
    """The families of one sweep: a list of dicts(members, task, shared, steps, early_stop). Non-shared
    contexts are stored per example, so their families are split by T (memory)."""
    seeds = [P["seed"] + 1000 * s for s in range(P["gd_seeds"])]
    n, d = P["gd_n"], P["gd_d"]

    def steps_for(Ts, base):
        ep = P["gd_epochs"] * max(Ts) // P["gd_batch"] if P["gd_batch"] else 0
        return max(base, ep)
    fams = []
    if kind in ("heads", "regression", "nonshared"):
        Ts = {"heads": P["gd_T_heads"], "regression": P["gd_T_reg"], "nonshared": P["gd_T_nonshared"]}[kind]
        groups = [[T] for T in Ts] if kind == "nonshared" else [Ts]
        for g in groups:
            mem = [Member(H, n, d, T, s) for s in seeds for T in g for H in P["gd_heads"]]
            fams.append(dict(members=mem, task="regression" if kind == "regression" else "classification",
                             shared=kind != "nonshared", steps=steps_for(g, P["gd_steps"]), early_stop=True))
    elif kind == "context":
        mem = [Member(P["gd_H_n"], nn, d, T, s) for s in seeds for T in P["gd_T_n"] for nn in P["gd_ns"]]
        fams.append(dict(members=mem, task="classification", shared=True,
                         steps=steps_for(P["gd_T_n"], P["gd_steps"]), early_stop=True))
    elif kind == "dh":
        mem = [Member(P["gd_H_dh"], n, k, T, s) for s in seeds for T in P["gd_T_dh"] for k in P["gd_dhs"]]
        fams.append(dict(members=mem, task="classification", shared=True, steps=P["gd_dh_steps"], early_stop=True))
    elif kind == "saturation":
        mem = [Member(H, n, d, T, P["seed"]) for H, T in zip(P["sat_H"], P["sat_T"])]
        fams.append(dict(members=mem, task="classification", shared=True, steps=P["gd_dh_steps"], early_stop=False))
    else:
        raise ValueError(f"unknown sweep {kind!r}")
    return fams


def plan_cost(P: dict, kinds) -> tuple[float, int]:
    """Estimated training FLOPs and the number of trained models of the chosen sweeps."""
    fl, models = 0.0, 0
    for k in kinds:
        for f in sweep_plan(k, P):
            fl += flops_estimate(f["members"], P["gd_d"], P["gd_classes"] if f["task"] == "classification" else 1,
                                 f["steps"], P["gd_batch"], f["shared"])
            models += len(f["members"])
    return fl, models


def run_sweep(kind: str, P: dict, device, log=None) -> dict:
    """Train every family of a sweep; returns the members and per-member results (and, for the
    saturation runs, the attention weights θ of every example and head)."""
    out = dict(members=[], acc=[], loss=[], done_at=[], seconds=0.0, steps=[], theta=[])
    for f in sweep_plan(kind, P):
        fam = Family(f["members"], P["gd_d"], task=f["task"], shared=f["shared"], classes=P["gd_classes"],
                     device=device)
        r = train(fam, f["steps"], P["gd_lr"], batch=P["gd_batch"], eval_every=P["gd_eval_every"],
                  early_stop=f["early_stop"], log=log)
        out["members"] += f["members"]
        for k in ("acc", "loss", "done_at"):
            out[k] += list(r[k])
        out["steps"] += [r["steps"]] * len(f["members"])
        out["seconds"] += r["seconds"]
        if kind == "saturation":
            th = fam.attention_weights()
            out["theta"] += [th[g, : m.T, : m.H, : m.n] for g, m in enumerate(f["members"])]
            L, A = fam.evaluate()
            out["final_acc"] = A.cpu().numpy()
    for k in ("acc", "loss", "done_at"):
        out[k] = np.array(out[k])
    return out


def majority_fraction(m: Member, d: int, classes: int) -> float:
    """The largest class frequency in a member's labels (the same draw as :func:`make_data`): the exact
    accuracy ceiling when every output is identical (n = 1, shared context)."""
    _, _, y = make_data(m, d, "classification", True, classes, m.T, m.n)
    return float(np.bincount(y[: m.T], minlength=classes).max() / m.T)
