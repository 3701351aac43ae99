"""Appendix J / Table 3 of the paper, offline: Assumptions 1-2 and general position on BERT and GPT-2 inputs.

**What Table 3 measures** (Appendix J and the official ``analysis/gpt-bert.ipynb``). For T = 2000 Wikipedia
inputs of n tokens (BERT: ``[CLS] s1 [SEP] s2``, n = 512; GPT-2: n = 1024 consecutive tokens), take the
token matrix ``X^(t) ∈ R^{n×d}`` at L0 (the embedding layer's output, HF ``hidden_states[0]``) and at L1 (the
output of the first Transformer block, ``hidden_states[1]``). The query is ``e^(t) = X^(t)[0]`` ([CLS]) for BERT
and ``X^(t)[n-1]`` (the last token) for GPT-2; the context is the whole input ``E^(t) = X^(t)``. Then

* **Assumption 2** (Sec. 3): ``rank E^(t) = n`` for every t. Measured: the fraction of the T contexts of rank n.
* **Assumption 1**: the queries ``{e^(t)}`` have Kruskal rank ≥ n. Measured by the paper's randomized test
  (Sec. 5.1): draw ``trials`` random n-subsets of the queries, fraction of ``[n, d]`` matrices of rank n;
  ✓ when ≥ 0.99 (paper: 5000 subsets).
* **General position**: Kruskal rank d, the same test with d-subsets (needs T ≥ d).

Ranks are numerical with ``torch.linalg.matrix_rank``'s default for float32 inputs, the rule of the official
code: ``σ_i > σ_max · max(rows, cols) · ε_32`` (ε_32 = 2^-23), i.e. ``rtol = max(n, d) ε_32`` here, applied by
:func:`~lib.chapters.mha_memorization.theory.layer.num_rank` / ``context_ranks`` / ``kruskal_test``
(their use: :mod:`~lib.chapters.mha_memorization.claims.appj`).

**The models (the "Random" columns).** Randomly initialised embedding layers and first blocks, in float32
like the HF models, with the initialisation of HF ``transformers`` (``BertPreTrainedModel._init_weights``,
``GPT2PreTrainedModel._init_weights``; Devlin et al. 2019, Radford et al. 2019):

* every embedding table and every linear weight ~ N(0, 0.02²) (``initializer_range = 0.02``), biases 0,
  LayerNorm γ = 1, β = 0; BERT's ``[PAD]`` row (id 0) is zeroed; GPT-2's residual projections
  (``attn.c_proj``, ``mlp.c_proj``) ~ N(0, (0.02 / sqrt(2 L))²) with L the model's number of layers;
* BERT (post-LN; learned absolute positions, not sinusoidal as Appendix J says; token type 0 everywhere as
  in the official code, which passes ``input_ids`` only)::

      L0 = LN(W_tok[ids] + P[0:n] + S[0])                                  (LN eps 1e-12)
      h  = LN(L0 + MHA(L0, L0) + b_O)          L1 = LN(h + GELU(h W_1 + b_1) W_2 + b_2)     (exact GELU)

* GPT-2 (pre-LN; learned positions; causal mask)::

      L0 = W_tok[ids] + P[0:n]
      h  = L0 + MHA_causal(LN_1(L0)) + b_O      L1 = h + GELU_tanh(LN_2(h) W_1 + b_1) W_2 + b_2   (LN eps 1e-5)

  with ``MHA(X_q, X) = Σ_h softmax((X_q W_Q^h + b_Q^h)(X W_K^h + b_K^h)^T / sqrt(d_k)) (X W_V^h + b_V^h) W_O^h``,
  H heads of ``d_k = d/H``: one call of :func:`lib.core.attention.attention`, the biases folded in by a
  constant-1 column (``[X, 1] [W; b]``). Dropout is off (``model.eval()`` in the official code).

For the query statistics only the query row of L1 is needed (the query attends to all n tokens: [CLS] in
BERT, the last token in GPT-2), so L1 is computed in full only for ``a2_examples`` contexts; the query row's
attention is then summed without forming the n keys and values (:func:`_one_query`, the same sums reassociated).

**Inputs.** No tokenizer or corpus can be downloaded: the token ids are drawn i.i.d. from a Zipf law
``p(rank r) ∝ r^{-s}`` (s = 1, Zipf's law of word frequencies) over the usable vocabulary (BERT: ids
999…30521, i.e. no ``[unused]``/special tokens; GPT-2: 0…50255), with a seeded random rank order; BERT's inputs
are ``[CLS] s1 [SEP] s2`` with ``len(s1)`` uniform in [5, n-7) as in the official code. (Whether s2 follows
s1 has no meaning for i.i.d. ids.) Repeated tokens within and across inputs occur as in text.

**Sizes.** The paper's code used ``bert-large-uncased`` (d = 1024, 16 heads) and ``gpt2-large`` (d = 1280,
20 heads, L = 36), n = 512 / 1024, T = 2000 and 5000 subsets: hours on one core. The book default keeps
BERT-base / GPT-2-small widths (d = 768, 12 heads, vocab, initialisation) and reduces n, T and the number of
subsets (see :data:`DEFAULTS`); ``SHAPES`` also holds the paper's large shapes. Note GPT-2-small at n = 1024
cannot satisfy Assumption 2 (n > d = 768), which is why the paper's n/d matters.

**Pretrained columns.** A local ``state_dict`` (``.pt``/``.bin``, HF parameter names, with or without the
``bert.``/``transformer.`` prefix) can be passed: :func:`load_checkpoint`. Nothing is downloaded.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import torch
import torch.nn.functional as F

from lib.core import attention as att

EPS32 = float(np.finfo(np.float32).eps)
# Table 3 as printed (Appendix J). Columns, left to right in the paper: GPT2 Random L0, Random L1, Trained L0,
# Trained L1, BERT Random L0, Random L1, Trained L0, Trained L1. Values: (General Position, Asm. 1, Asm. 2),
# True = ✓, False = ×.
PAPER_TABLE3: dict[tuple[str, str, str], tuple[bool, bool, bool]] = {
    ("GPT-2", "Random", "L0"): (False, False, True),
    ("GPT-2", "Random", "L1"): (False, True, True),
    ("GPT-2", "Trained", "L0"): (False, False, True),
    ("GPT-2", "Trained", "L1"): (False, True, False),
    ("BERT", "Random", "L0"): (False, False, True),
    ("BERT", "Random", "L1"): (False, False, True),
    ("BERT", "Trained", "L0"): (False, False, True),
    ("BERT", "Trained", "L1"): (False, False, True),
}
# Appendix J's text: the Kruskal rank of the BERT L1 queries, n/d = 512/1024 (ours: the 99% rule, estimated).
PAPER_KRUSKAL_BERT_L1 = {"Random": 349, "Trained": 291}


@dataclass(frozen=True)
class Shape:
    """The sizes of a model that matter for its embedding layer and first block."""
    name: str
    family: str        # "BERT" or "GPT-2"
    vocab: int
    d: int
    n_pos: int
    heads: int
    ffn: int
    layers: int        # total depth L (GPT-2's residual-projection init uses it)
    ln_eps: float


SHAPES = {
    "bert-base": Shape("bert-base", "BERT", 30522, 768, 512, 12, 3072, 12, 1e-12),
    "bert-large": Shape("bert-large", "BERT", 30522, 1024, 512, 16, 4096, 24, 1e-12),
    "gpt2": Shape("gpt2", "GPT-2", 50257, 768, 1024, 12, 3072, 12, 1e-5),
    "gpt2-large": Shape("gpt2-large", "GPT-2", 50257, 1280, 1024, 20, 5120, 36, 1e-5),
}
BERT_CLS, BERT_SEP, BERT_FIRST_WORD = 101, 102, 999

# book-preset sizes of `report`: the paper's n = 512 with BERT-base / GPT-2-small widths, fewer inputs and subsets
# (about 100 s of one core for both models; the paper: T = 2000, 5000 subsets, large shapes). The Assumption 1
# contrast needs the paper's n: random bert-base's [CLS] outputs have a Kruskal rank of about 240-260 (measured
# at n = 384 (one seed) and n = 512 (two seeds)), so at n = 256 (two seeds) they pass the n-subset test and BERT's L1 is no counterexample.
PAPER_N = 512
DEFAULTS = dict(appj_models=["bert-base", "gpt2"], appj_n=512, appj_T=800, appj_trials=100, appj_gp_trials=5,
                appj_a2_examples=32, appj_zipf=1.0, appj_bert_checkpoint="", appj_gpt2_checkpoint="")


# ---------------------------------------------------------------------------------------------
# Weights: HF initialisation, or a local checkpoint
# ---------------------------------------------------------------------------------------------
def init_weights(shape: Shape, seed: int) -> dict[str, torch.Tensor]:
    """Random weights in HF layout-free form (float32): ``wte [V, d]``, ``wpe [P, d]``, BERT's ``wtt [2, d]``
    and ``ln_e``; attention ``W_Q, W_K, W_V [d, d]`` (input × output), ``b_Q…`` ``[d]``, ``W_O [d, d]``,
    ``b_O``; ``ln_1``, ``ln_2`` (γ, β); MLP ``W_1 [d, F]``, ``b_1``, ``W_2 [F, d]``, ``b_2``. See the module
    docstring for the distributions."""
    g = torch.Generator().manual_seed(seed)
    d, Fd = shape.d, shape.ffn

    def normal(*s: int, std: float = 0.02) -> torch.Tensor:
        return torch.randn(*s, generator=g) * std

    resid = 0.02 / (2 * shape.layers) ** 0.5 if shape.family == "GPT-2" else 0.02
    W = {"wte": normal(shape.vocab, d), "wpe": normal(shape.n_pos, d)}
    for k in ("Q", "K", "V"):
        W[f"W_{k}"], W[f"b_{k}"] = normal(d, d), torch.zeros(d)
    W["W_O"], W["b_O"] = normal(d, d, std=resid), torch.zeros(d)
    W["W_1"], W["b_1"] = normal(d, Fd), torch.zeros(Fd)
    W["W_2"], W["b_2"] = normal(Fd, d, std=resid), torch.zeros(d)
    for ln in ("ln_1", "ln_2") + (("ln_e",) if shape.family == "BERT" else ()):
        W[ln] = (torch.ones(d), torch.zeros(d))
    if shape.family == "BERT":
        W["wtt"] = normal(2, d)
        W["wte"][0] = 0.0                                          # padding_idx = 0
    return W


_BERT_KEYS = {  # ours: (HF name, transpose?) -- HF Linear weights are [out, in]
    "wte": ("embeddings.word_embeddings.weight", False), "wpe": ("embeddings.position_embeddings.weight", False),
    "wtt": ("embeddings.token_type_embeddings.weight", False),
    "W_Q": ("encoder.layer.0.attention.self.query.weight", True), "b_Q": ("encoder.layer.0.attention.self.query.bias", False),
    "W_K": ("encoder.layer.0.attention.self.key.weight", True), "b_K": ("encoder.layer.0.attention.self.key.bias", False),
    "W_V": ("encoder.layer.0.attention.self.value.weight", True), "b_V": ("encoder.layer.0.attention.self.value.bias", False),
    "W_O": ("encoder.layer.0.attention.output.dense.weight", True), "b_O": ("encoder.layer.0.attention.output.dense.bias", False),
    "W_1": ("encoder.layer.0.intermediate.dense.weight", True), "b_1": ("encoder.layer.0.intermediate.dense.bias", False),
    "W_2": ("encoder.layer.0.output.dense.weight", True), "b_2": ("encoder.layer.0.output.dense.bias", False),
}
_BERT_LN = {"ln_e": "embeddings.LayerNorm", "ln_1": "encoder.layer.0.attention.output.LayerNorm",
            "ln_2": "encoder.layer.0.output.LayerNorm"}
_GPT2_KEYS = {  # HF GPT-2 uses Conv1D: weights are already [in, out]
    "wte": "wte.weight", "wpe": "wpe.weight", "W_O": "h.0.attn.c_proj.weight", "b_O": "h.0.attn.c_proj.bias",
    "W_1": "h.0.mlp.c_fc.weight", "b_1": "h.0.mlp.c_fc.bias", "W_2": "h.0.mlp.c_proj.weight", "b_2": "h.0.mlp.c_proj.bias",
}


def _ln(sd: dict, prefix: str) -> tuple[torch.Tensor, torch.Tensor]:
    w = sd.get(f"{prefix}.weight", sd.get(f"{prefix}.gamma"))
    b = sd.get(f"{prefix}.bias", sd.get(f"{prefix}.beta"))
    if w is None or b is None:
        raise KeyError(f"checkpoint has no LayerNorm '{prefix}'")
    return w.float(), b.float()


def load_checkpoint(path: str, family: str, heads: int | None = None) -> tuple[Shape, dict[str, torch.Tensor]]:
    """Read a local HF ``state_dict`` (``torch.load``, weights only) of a BERT or GPT-2 model and return its
    :class:`Shape` (d, vocab, positions read from the tensors; heads from ``heads`` or the standard widths
    768/1024/1280 → 12/16/20, else d/64) and the weights of :func:`init_weights`' layout."""
    sd = torch.load(path, map_location="cpu", weights_only=True)
    sd = {k.removeprefix("bert.").removeprefix("transformer."): v for k, v in sd.items()}
    try:
        if family == "BERT":
            W = {k: (sd[n].float().T.contiguous() if tr else sd[n].float()) for k, (n, tr) in _BERT_KEYS.items()}
            W.update({k: _ln(sd, p) for k, p in _BERT_LN.items()})
        else:
            W = {k: sd[n].float() for k, n in _GPT2_KEYS.items()}
            Wqkv, bqkv = sd["h.0.attn.c_attn.weight"].float(), sd["h.0.attn.c_attn.bias"].float()
            for i, k in enumerate("QKV"):
                d = Wqkv.shape[0]
                W[f"W_{k}"], W[f"b_{k}"] = Wqkv[:, i * d:(i + 1) * d], bqkv[i * d:(i + 1) * d]
            W["ln_1"], W["ln_2"] = _ln(sd, "h.0.ln_1"), _ln(sd, "h.0.ln_2")
    except KeyError as err:
        raise KeyError(f"{path}: not a {family} state_dict with HF names (missing {err})") from None
    V, d = W["wte"].shape
    base = SHAPES["bert-base" if family == "BERT" else "gpt2"]
    H = heads or {768: 12, 1024: 16, 1280: 20}.get(d, max(1, d // 64))
    n_layer = 1 + max(int(k.split(".")[2 if family == "BERT" else 1]) for k in sd
                      if k.startswith("encoder.layer." if family == "BERT" else "h."))
    shape = replace(base, name=f"{base.name} (checkpoint)", vocab=V, d=d, n_pos=W["wpe"].shape[0], heads=H,
                    ffn=W["W_1"].shape[1], layers=n_layer)
    return shape, W


# ---------------------------------------------------------------------------------------------
# Inputs and the two representations
# ---------------------------------------------------------------------------------------------
def token_ids(shape: Shape, T: int, n: int, rng: np.random.Generator, zipf_s: float = 1.0) -> torch.Tensor:
    """``[T, n]`` token ids: Zipf(s) i.i.d. over the usable vocabulary (random rank order); BERT inputs are
    ``[CLS] s1 [SEP] s2`` with ``len(s1)`` uniform in [5, n-7) (n < 13: half the words)."""
    lo, hi = (BERT_FIRST_WORD, shape.vocab) if shape.family == "BERT" else (0, shape.vocab - 1)
    words = lo + rng.permutation(hi - lo)
    p = 1.0 / np.arange(1, hi - lo + 1) ** zipf_s
    ids = words[rng.choice(hi - lo, size=(T, n), p=p / p.sum())]
    if shape.family == "BERT":
        for t in range(T):
            len1 = int(rng.integers(5, n - 7)) if n >= 13 else max(1, (n - 2) // 2)
            ids[t, 0], ids[t, 1 + len1] = BERT_CLS, BERT_SEP
    return torch.as_tensor(ids, dtype=torch.long)


def embed(shape: Shape, W: dict, ids: torch.Tensor, positions: bool = True) -> torch.Tensor:
    """L0 ``[B, n, d]``: BERT ``LN(W_tok[ids] + P[:n] + S[0])``, GPT-2 ``W_tok[ids] + P[:n]``. ``positions=False``
    drops ``P`` (the degenerate control: repeated tokens then give equal rows)."""
    n = ids.shape[1]
    X = W["wte"][ids] + (W["wpe"][:n] if positions else 0.0)
    if shape.family == "BERT":
        X = F.layer_norm(X + W["wtt"][0], (shape.d,), *W["ln_e"], eps=shape.ln_eps)
    return X


def _heads(W: dict, k: str, H: int) -> torch.Tensor:
    """``[W; b] ∈ R^{(d+1)×d}`` split into H heads: ``[H, d+1, d/H]`` (the bias row acts on a constant-1 column)."""
    Wb = torch.cat([W[f"W_{k}"], W[f"b_{k}"][None]], dim=0)
    return Wb.reshape(Wb.shape[0], H, -1).transpose(0, 1).contiguous()


def _one(A: torch.Tensor) -> torch.Tensor:
    """``[A, 1]``: the constant-1 column on which the bias rows of :func:`_heads` act."""
    return torch.cat([A, torch.ones(*A.shape[:-1], 1)], dim=-1)


def mha_layer(shape: Shape, W: dict, Xq: torch.Tensor, X: torch.Tensor, causal: bool) -> torch.Tensor:
    """``MHA(X_q, X) + b_O`` ``[B, n_q, d]`` for queries ``X_q [B, n_q, d]`` (the last n_q positions' rows, or
    all n) over their own example's tokens ``X [B, n, d]`` (module docstring); ``causal`` masks keys after
    the query's position. Each example is one call of :func:`lib.core.attention.attention` on its n tokens,
    except a single query row (n_q = 1, the query statistics of Table 3), which goes through :func:`_one_query`."""
    B, n, _ = X.shape
    nq, H = Xq.shape[1], shape.heads
    if nq == 1:              # one query row: BERT's [CLS], or the last row, which the causal mask lets see all n
        return _one_query(shape, W, Xq, X)
    mask = (torch.arange(n)[None, :] <= torch.arange(n - nq, n)[:, None]) if causal else None   # [n_q, n]
    W_O = W["W_O"].reshape(H, -1, shape.d)                                  # [H, d_k, d]
    Wq, Wk, Wv = (_heads(W, k, H) for k in "QKV")
    out = [att.attention(_one(Xq[b]), _one(X[b]), Wq, Wk, Wv, W_O, scale=(shape.d // H) ** -0.5, mask=mask)
           for b in range(B)]
    return torch.stack(out) + W["b_O"]


def _one_query(shape: Shape, W: dict, Xq: torch.Tensor, X: torch.Tensor) -> torch.Tensor:
    """:func:`mha_layer` for one query row per example that sees every key (BERT's [CLS] at position 0; GPT-2's
    last token, which the causal mask lets see all n), ``[B, 1, d]``. The same sums, associated so that no
    key or value of the n tokens is formed: with ``x̃ = [x, 1]``, the score of token j in head h is
    ``s · x̃_j (W̃_K^h (x̃_q W̃_Q^h)^T)`` and the head's output ``(Σ_j A_hj x̃_j) W̃_V^h W_O^h``: O(H n d) work per
    example instead of the O(n d²) of projecting all n tokens (the rounding differs from :func:`mha_layer`'s
    by float32 ulps)."""
    H = shape.heads
    Wq, Wk, Wv = (_heads(W, k, H) for k in "QKV")                          # [H, d+1, d_k]
    X1 = _one(X)                                                            # [B, n, d+1]
    q = _one(Xq[:, 0])[:, None, None, :] @ Wq                               # [B, H, 1, d_k]
    kq = q @ Wk.transpose(-1, -2)                                          # [B, H, 1, d+1]: W̃_K^h q_h
    S = (kq[:, :, 0] @ X1.transpose(-1, -2)) * (shape.d // H) ** -0.5      # [B, H, n]
    xbar = att.normalize(S) @ X1                                            # [B, H, d+1]: Σ_j A_hj x̃_j
    heads = xbar[:, :, None, :] @ Wv                                        # [B, H, 1, d_k]
    out = (heads @ W["W_O"].reshape(H, -1, shape.d)).sum(dim=1)             # [B, 1, d]
    return out + W["b_O"]


def first_block(shape: Shape, W: dict, X: torch.Tensor, query_only: bool) -> torch.Tensor:
    """L1 = the first Transformer block on L0 ``X [B, n, d]`` (module docstring). ``query_only``: only the
    query row ([CLS] = row 0 for BERT, the last row for GPT-2), ``[B, 1, d]``; it attends to every token."""
    q = slice(0, 1) if shape.family == "BERT" else slice(X.shape[1] - 1, X.shape[1])
    ln = lambda Z, k: F.layer_norm(Z, (shape.d,), *W[k], eps=shape.ln_eps)  # noqa: E731
    if shape.family == "BERT":
        Xq = X[:, q] if query_only else X
        h = ln(Xq + mha_layer(shape, W, Xq, X, causal=False), "ln_1")
        return ln(h + F.gelu(h @ W["W_1"] + W["b_1"]) @ W["W_2"] + W["b_2"], "ln_2")
    Y = ln(X, "ln_1")
    Xq, Yq = (X[:, q], Y[:, q]) if query_only else (X, Y)
    h = Xq + mha_layer(shape, W, Yq, Y, causal=True)
    return h + F.gelu(ln(h, "ln_2") @ W["W_1"] + W["b_1"], approximate="tanh") @ W["W_2"] + W["b_2"]


def representations(shape: Shape, W: dict, ids: torch.Tensor, a2_examples: int, positions: bool = True,
                    batch: int = 32) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``{"L0": (queries [T, d], contexts [m, n, d]), "L1": (…)}`` in float64 (computed in float32), with
    ``m = min(a2_examples, T)`` full contexts (the first m inputs) and the queries of all T inputs."""
    qi = 0 if shape.family == "BERT" else -1
    q0, q1, E0, E1 = [], [], [], []
    with torch.no_grad():
        for s in range(0, len(ids), batch):
            X0 = embed(shape, W, ids[s:s + batch], positions)
            q0.append(X0[:, qi])
            q1.append(first_block(shape, W, X0, query_only=True)[:, 0])
        for s in range(0, min(a2_examples, len(ids)), batch):
            X0 = embed(shape, W, ids[s:min(s + batch, a2_examples)], positions)
            E0.append(X0)
            E1.append(first_block(shape, W, X0, query_only=False))
    cat = lambda L: torch.cat(L).double().numpy()                            # noqa: E731
    return {"L0": (cat(q0), cat(E0)), "L1": (cat(q1), cat(E1))}


# ---------------------------------------------------------------------------------------------
# The tests of Table 3
# ---------------------------------------------------------------------------------------------
