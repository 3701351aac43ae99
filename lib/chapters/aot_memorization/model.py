"""The trained model of Dana, Pydi & Chevaleyre (AISTATS 2025), an attention-only Transformer, as a family.

``AoTMemorization``
    Tokens ``t_1..t_S`` from ``[N]``; embeddings ``x_s = E[t_s] + pos_s``; one layer of H heads read
    at the last position; the residual stream; an unembedding ``U ∈ R^{d×N}``. Two variants:

    * ``variant="paper"`` (eq. (2) of the paper): per-head ``W_Q, W_K, W_V ∈ R^{d×dh}``,
      ``W_O ∈ R^{dh×d}``, logits ``U^T (x_S + Σ_h W_O^h W_V^h Σ_s a^h_s x_s)``, no score scaling
      unless ``scale`` is given.
    * ``variant="official"`` (the authors' code at HEAD): the positional embedding lives in ``R^{dh}``;
      each head is a one-head ``nn.MultiheadAttention(dh)`` (``dh×dh`` projections, scores scaled by
      ``1/sqrt(dh)``), heads summed; the residual carries the word embedding only (pos is *not* in the
      skip). When ``d != dh`` a shared compress ``R^d→R^{dh}`` feeds all heads (pos added after it) and
      one shared decompress ``R^{dh}→R^d`` maps their sum back (assumed bias-free). ``compress=None``
      means "compress iff d != dh", as in the code.

    Loss: cross-entropy of the last position's logits (the official ``CE(log(softmax+1e-12))``
    differs only by that 1e-12). For S = 2 the fast path uses softmax over two positions = sigmoid
    of the score difference. ``OfficialAoT`` is the same math as a plain one-model module.

``aot_data`` and ``aot_table`` build a family's data from per-model seeds. The family interface is
described in :mod:`lib.engine.family`.
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from lib.core import attention as attn
from lib.engine.family import FamilyData, _uniform, _xavier, stack


# ----------------------------------------------------------------------------------------------
# Dana et al.: attention-only Transformer
# ----------------------------------------------------------------------------------------------
class AoTMemorization:
    """G attention-only Transformers (module docstring). ``variant`` "paper" | "official".

    Parameters, paper: ``E [G, N, d]``, ``P [G, S, d]``, ``W_Q, W_K, W_V [G, H, d, dh]``,
    ``W_O [G, H, dh, d]``, ``U [G, d, N]``. Official: ``E [G, N, d]``, ``P [G, S, dh]``,
    ``W_Q, W_K, W_V [G, H, dh, dh]`` (acting on row vectors: ``x W``), ``W_O [G, H, dh, dh]``,
    ``U [G, d, N]``, and with compression ``Cmp [G, d, dh]``, ``Dec [G, dh, d]``.
    Batches: ``t`` ``[G, B, S]`` (int64 tokens), ``y`` ``[G, B]`` (int64 next token).

    Initialisation (both variants, as the official code's torch defaults): E, U, Cmp ``U(±1/sqrt d)``;
    P, W_O, Dec ``U(±1/sqrt dh)``; W_Q, W_K, W_V xavier-uniform of the stacked in-projection
    (bound ``sqrt(6/(fan_in + 3 dh))``, fan_in = d (paper) or dh (official))."""

    def __init__(self, N: int = 50, S: int = 2, d: int = 10, dh: int | None = None, H: int = 1,
                 variant: str = "paper", scale: float | None | str = "default", compress: bool | None = None,
                 impl: str = "fast"):
        if variant not in ("paper", "official"):
            raise ValueError(f"variant = {variant!r}: expected 'paper' or 'official'")
        if min(N, S, d, H) < 1:
            raise ValueError(f"N, S, d, H must be >= 1, got N={N}, S={S}, d={d}, H={H}")
        self.N, self.S, self.d, self.H = N, S, d, H
        self.dh = d if dh is None else dh
        self.variant = variant
        if scale == "default":
            scale = 1.0 / math.sqrt(self.dh) if variant == "official" else None
        self.scale = scale
        self.compress = (d != self.dh) if compress is None else compress
        if variant == "official" and not self.compress and d != self.dh:
            raise ValueError("official variant without compression needs d == dh")
        self.impl = impl
        self.C = N

    @property
    def eval_width(self) -> int:
        """Elements per example of the largest intermediate tensor, for evaluation chunks."""
        k = self.d if self.variant == "paper" else self.dh
        return max(self.H * k * self.S, k * k, self.N)

    def shape_key(self) -> tuple:
        return ("aot", self.variant, self.N, self.S, self.d, self.dh, self.H, self.scale, self.compress)

    def __repr__(self) -> str:
        return (f"AoTMemorization(N={self.N}, S={self.S}, d={self.d}, dh={self.dh}, H={self.H}, "
                f"variant={self.variant!r}, scale={self.scale}, compress={self.compress})")

    def init_one(self, seed: int) -> dict[str, Tensor]:
        g = torch.Generator().manual_seed(int(seed))
        N, S, d, dh, H = self.N, self.S, self.d, self.dh, self.H
        if self.variant == "paper":
            return {"E": _uniform(g, (N, d), 1 / math.sqrt(d)), "P": _uniform(g, (S, d), 1 / math.sqrt(dh)),
                    "W_Q": _xavier(g, (H, d, dh), d, 3 * dh), "W_K": _xavier(g, (H, d, dh), d, 3 * dh),
                    "W_V": _xavier(g, (H, d, dh), d, 3 * dh), "W_O": _uniform(g, (H, dh, d), 1 / math.sqrt(dh)),
                    "U": _uniform(g, (d, N), 1 / math.sqrt(d))}
        p = {"E": _uniform(g, (N, d), 1 / math.sqrt(d)), "P": _uniform(g, (S, dh), 1 / math.sqrt(dh)),
             "W_Q": _xavier(g, (H, dh, dh), dh, 3 * dh), "W_K": _xavier(g, (H, dh, dh), dh, 3 * dh),
             "W_V": _xavier(g, (H, dh, dh), dh, 3 * dh), "W_O": _uniform(g, (H, dh, dh), 1 / math.sqrt(dh)),
             "U": _uniform(g, (d, N), 1 / math.sqrt(d))}
        if self.compress:
            p["Cmp"] = _uniform(g, (d, dh), 1 / math.sqrt(d))
            p["Dec"] = _uniform(g, (dh, d), 1 / math.sqrt(dh))
        return p

    def init(self, seeds: Sequence[int], dtype=torch.float32, device="cpu") -> dict[str, Tensor]:
        return {k: v.to(dtype=dtype, device=device) for k, v in stack([self.init_one(s) for s in seeds]).items()}

    def _heads_input(self, p, t: Tensor) -> tuple[Tensor, Tensor]:
        """(residual at the last position [G, B, d], attention input x [G, B, S, d or dh])."""
        G = t.shape[0]
        res = p["E"][torch.arange(G, device=t.device).view(G, 1, 1), t]                    # [G, B, S, d]
        if self.variant == "paper":
            x = res + p["P"].unsqueeze(1)
            return x[:, :, -1], x
        xin = res @ p["Cmp"].unsqueeze(1) if self.compress else res
        return res[:, :, -1], xin + p["P"].unsqueeze(1)

    def logits(self, p: dict[str, Tensor], batch: dict[str, Tensor]) -> Tensor:
        t = batch["t"]
        r, x = self._heads_input(p, t)                                                     # [G,B,d], [G,B,S,k]
        G, B, S, k = x.shape
        H = self.H
        if self.impl == "reference":
            out = attn.attention(x[:, :, -1:], x, p["W_Q"].unsqueeze(1), p["W_K"].unsqueeze(1),
                                 p["W_V"].unsqueeze(1), p["W_O"].unsqueeze(1), scale=self.scale)[:, :, 0]
        elif S == 2:
            # two positions: softmax = sigmoid of the score difference x_2^T W_QK^h (x_2 − x_1), computed
            # as one GEMM of the outer products x_2 ⊗ (x_2 − x_1) with the stacked W_QK^h; the output is
            # x_1 W_VO + Σ_h a_2h (x_2 − x_1) W_VO^h (one GEMM of a_2 ⊗ (x_2 − x_1)). Same math, 1.6× faster.
            x1, x2 = x[:, :, 0], x[:, :, 1]
            D = x2 - x1                                                                    # [G, B, k]
            Wqk = p["W_Q"] @ p["W_K"].transpose(-1, -2)                                    # [G, H, k, k]
            if self.scale is not None:
                Wqk = Wqk * self.scale
            Z = (x2.unsqueeze(-1) * D.unsqueeze(-2)).reshape(G, B, k * k)
            a2 = torch.sigmoid(torch.bmm(Z, Wqk.permute(0, 2, 3, 1).reshape(G, k * k, H)))  # [G, B, H]
            WVO = p["W_V"] @ p["W_O"]                                                      # [G, H, k, k_out]
            out = torch.bmm(x1, WVO.sum(1)) + torch.bmm((a2.unsqueeze(-1) * D.unsqueeze(2)).reshape(G, B, H * k),
                                                        WVO.reshape(G, H * k, -1))
        else:
            # scores x_S^T (W_Q^h W_K^h^T) x_s: u = x_S [W_Q^h W_K^h^T]_h (one GEMM), then u_h · x_s;
            # output Σ_h (Σ_s a_sh x_s) W_V^h W_O^h: the mix, then one GEMM with the stacked W_V^h W_O^h
            xs = x[:, :, -1]                                                               # [G, B, k]
            Wqk = p["W_Q"] @ p["W_K"].transpose(-1, -2)                                    # [G, H, k, k]
            if self.scale is not None:
                Wqk = Wqk * self.scale
            u = torch.bmm(xs, Wqk.transpose(1, 2).reshape(G, k, H * k)).view(G, B, H, k)
            sc = torch.stack([(u * x[:, :, s].unsqueeze(2)).sum(-1) for s in range(S)], 2)  # [G, B, S, H]
            a = torch.softmax(sc, dim=2)
            mix = a[:, :, 0].unsqueeze(-1) * x[:, :, 0].unsqueeze(2)
            for s in range(1, S):
                mix = mix + a[:, :, s].unsqueeze(-1) * x[:, :, s].unsqueeze(2)             # [G, B, H, k]
            WVO = (p["W_V"] @ p["W_O"]).reshape(G, H * k, -1)                              # [G, H k, k_out]
            out = torch.bmm(mix.reshape(G, B, H * k), WVO)
        if self.variant == "official" and self.compress:
            out = torch.bmm(out, p["Dec"])
        return torch.bmm(r + out, p["U"])                                                  # [G, B, N]

    def per_example(self, p, batch) -> tuple[Tensor, Tensor]:
        z = self.logits(p, batch)
        y = batch["y"]
        G, B, C = z.shape
        loss = F.cross_entropy(z.reshape(G * B, C), y.reshape(G * B), reduction="none").view(G, B)
        return loss, (z.argmax(-1) == y).to(z.dtype)

    def flops(self, batch_size: int) -> float:
        B, S, d, dh, H, N = batch_size, self.S, self.d, self.dh, self.H, self.N
        k = d if self.variant == "paper" else dh
        kout = d if self.variant == "paper" or not self.compress else dh
        # per example: u = x_S W_QK (k·Hk), scores (S·H·k), mix (S·H·k), mix·W_VO (Hk·k_out), unembed (d·N);
        # for S = 2: outer product (k²), its GEMM (k²·H), x_1 W_VO (k·k_out), (a ⊗ D) W_VO (Hk·k_out), unembed
        if S == 2:
            fwd = 2 * B * (k * k / 2 + k * k * H + k * kout + H * k / 2 + H * k * kout + d * N)
        else:
            fwd = 2 * B * (k * H * k + 2 * S * H * k + H * k * kout + d * N)
        fwd += 2 * H * (k * dh * k + k * dh * kout)              # W_Q W_K^T and W_V W_O, once per step
        if self.variant == "official" and self.compress:
            fwd += 2 * B * (S * d * dh + dh * d)
        return 3.0 * fwd


class OfficialAoT(nn.Module):
    """One AoT computed as a plain module: per head ``W_Q, W_K, W_V, W_O`` applied as written (all S
    query rows computed, causal mask), the same math as ``AoTMemorization`` (either variant). Built
    from one model's parameters; used as a one-model-at-a-time baseline and in tests."""

    def __init__(self, fam: AoTMemorization, params: dict[str, Tensor]):
        super().__init__()
        self.fam = fam
        self.p = nn.ParameterDict({k: nn.Parameter(v.clone()) for k, v in params.items()})
        S = fam.S
        self.register_buffer("causal", torch.triu(torch.ones(S, S, dtype=torch.bool), 1))

    def forward(self, t: Tensor) -> Tensor:
        """``t`` ``[B, S]`` -> logits ``[B, N]`` at the last position."""
        p, fam = self.p, self.fam
        res = p["E"][t]                                                                    # [B, S, d]
        if fam.variant == "paper":
            x = res + p["P"]
            skip = x
        else:
            x = (res @ p["Cmp"] if fam.compress else res) + p["P"]
            skip = res
        Q = x[:, None] @ p["W_Q"]                                                           # [B, H, S, dh]
        K = x[:, None] @ p["W_K"]
        V = x[:, None] @ p["W_V"]
        sc = Q @ K.transpose(2, 3)
        if fam.scale is not None:
            sc = sc * fam.scale
        a = torch.softmax(sc.masked_fill(self.causal, float("-inf")), -1)
        out = ((a @ V) @ p["W_O"]).sum(1)                                                  # [B, S, k]
        if fam.variant == "official" and fam.compress:
            out = out @ p["Dec"]
        return ((skip + out) @ p["U"])[:, -1]

    def export(self) -> dict[str, Tensor]:
        return {k: v.detach() for k, v in self.p.items()}


def aot_data(fam: AoTMemorization, n_samples: int | Sequence[int], seeds: Sequence[int], device="cpu") -> FamilyData:
    """The association task of Dana et al. (uniform prior, random look-up table), one per model:
    model g draws, from ``np.random.RandomState(seeds[g])``, a table ``g: [N]^S -> [N]`` (uniform),
    then a fixed training set of ``n_samples`` sequences sampled uniformly with replacement (the
    official code's fixed data set, reshuffled each epoch by the trainer). The table is returned in
    ``shared["table"]`` ``[G, N^S]`` for full-table evaluation (:func:`aot_table`)."""
    G = len(seeds)
    ns = [int(n_samples)] * G if np.isscalar(n_samples) else [int(v) for v in n_samples]
    Tmax = max(ns)
    NS = fam.N ** fam.S
    tab = np.zeros((G, NS), dtype=np.int64)
    toks = np.zeros((G, Tmax, fam.S), dtype=np.int64)
    ys = np.zeros((G, Tmax), dtype=np.int64)
    for g, s in enumerate(seeds):
        rs = np.random.RandomState(int(s))
        tab[g] = rs.randint(fam.N, size=NS)
        seq = rs.randint(NS, size=ns[g])
        toks[g, : ns[g]] = np.stack(np.unravel_index(seq, (fam.N,) * fam.S), -1)
        ys[g, : ns[g]] = tab[g, seq]
    dev = lambda a: torch.as_tensor(a).to(device)
    return FamilyData({"t": dev(toks), "y": dev(ys)}, {"table": dev(tab)}, torch.as_tensor(ns))


def aot_table(fam: AoTMemorization, data: FamilyData) -> FamilyData:
    """Every sequence of ``[N]^S`` with its target under each model's table: the full-table evaluation
    set (uniform prior: full-table accuracy = memorised fraction of the T0 = N^S associations)."""
    tab = data.shared["table"]
    G, NS = tab.shape
    allseq = torch.stack(torch.meshgrid(*[torch.arange(fam.N)] * fam.S, indexing="ij"), -1).reshape(NS, fam.S)
    return FamilyData({"t": allseq.to(tab.device).expand(G, NS, fam.S).contiguous(), "y": tab.clone()})


class DeepAoT:
    """Appendix B.2 (v2): G attention-only Transformers of L layers, a family of the sweep engine (it has
    :mod:`lib.engine.family`'s interface, so :func:`lib.engine.train.train_family` trains it unchanged). L layers
    of eqs. (1)-(2)::

        x^0_s = e(t_s) + p_s,
        x^{l+1}_s = x^l_s + sum_h sum_{s' <= s} softmax_{s'}(x^l_s W_Q^{l,h} (x^l_{s'} W_K^{l,h})^T) x^l_{s'} W_V^{l,h} W_O^{l,h},

    and the logits are x^L_S U. Every position is computed at every layer (causal mask), since deeper layers read
    the earlier positions' updated residuals; at L = 1 only x^1_S matters and the model is the eq. (2) AoT
    (``AoTMemorization(variant="paper")``, checked in tests/test_aot.py). Initialisation follows that model's,
    layer by layer. The v2 code's depth runs use 3 layers (its text says 5). Parameters: ``E [G, N, d]``,
    ``P [G, S, d]``, ``W_Q, W_K, W_V [G, L, H, d, dh]``, ``W_O [G, L, H, dh, d]``, ``U [G, d, N]``.
    Batches: ``t`` ``[G, B, S]`` (int64 tokens), ``y`` ``[G, B]``."""

    def __init__(self, N: int, S: int = 2, d: int = 4, dh: int | None = None, H: int = 1, L: int = 1):
        if min(N, S, d, H, L) < 1:
            raise ValueError(f"N, S, d, H, L must be >= 1, got {N}, {S}, {d}, {H}, {L}")
        self.N, self.S, self.d, self.H, self.L = N, S, d, H, L
        self.dh = d if dh is None else dh
        self.C = N

    @property
    def eval_width(self) -> int:
        return max(self.H * self.S * self.S, self.H * self.S * self.dh, self.N)

    def shape_key(self) -> tuple:
        return ("deep-aot", self.N, self.S, self.d, self.dh, self.H, self.L)

    def init_one(self, seed: int) -> dict[str, Tensor]:
        g = torch.Generator().manual_seed(int(seed))
        N, S, d, dh, H, L = self.N, self.S, self.d, self.dh, self.H, self.L
        p = {"E": _uniform(g, (N, d), 1 / math.sqrt(d)), "P": _uniform(g, (S, d), 1 / math.sqrt(dh))}
        layers = [{"W_Q": _xavier(g, (H, d, dh), d, 3 * dh), "W_K": _xavier(g, (H, d, dh), d, 3 * dh),
                   "W_V": _xavier(g, (H, d, dh), d, 3 * dh), "W_O": _uniform(g, (H, dh, d), 1 / math.sqrt(dh))}
                  for _ in range(L)]
        p.update({k: torch.stack([lay[k] for lay in layers]) for k in ("W_Q", "W_K", "W_V", "W_O")})
        p["U"] = _uniform(g, (d, N), 1 / math.sqrt(d))
        return p

    def init(self, seeds: Sequence[int], dtype=torch.float32, device="cpu") -> dict[str, Tensor]:
        return {k: v.to(dtype=dtype, device=device) for k, v in stack([self.init_one(s) for s in seeds]).items()}

    def logits(self, p: dict[str, Tensor], batch: dict[str, Tensor]) -> Tensor:
        t = batch["t"]
        G = t.shape[0]
        x = p["E"][torch.arange(G, device=t.device).view(G, 1, 1), t] + p["P"].unsqueeze(1)   # [G, B, S, d]
        mask = torch.tril(torch.ones(self.S, self.S, dtype=torch.bool, device=t.device))
        for layer in range(self.L):
            w = {k: p[k][:, layer].unsqueeze(1) for k in ("W_Q", "W_K", "W_V", "W_O")}       # [G, 1, H, ., .]
            x = x + attn.attention(x, x, w["W_Q"], w["W_K"], w["W_V"], w["W_O"], mask=mask)
        return torch.bmm(x[:, :, -1], p["U"])                                                 # [G, B, N]

    per_example = AoTMemorization.per_example      # cross-entropy and accuracy of self.logits

    def flops(self, batch_size: int) -> float:
        B, S, d, dh, H, L, N = batch_size, self.S, self.d, self.dh, self.H, self.L, self.N
        per_layer = S * H * (3 * d * dh + 2 * S * dh + dh * d)       # Q, K, V, scores, mix, W_O
        return 3.0 * 2 * B * (L * per_layer + d * N)
