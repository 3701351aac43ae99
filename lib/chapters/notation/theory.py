"""The theory role of chapter ``notation``: the computations of the agreement checks, each paper's literal layer
(:mod:`.model`) against :mod:`lib.core.attention` over random draws, and of their wrong readings (the controls);
:mod:`.claims` records them.

Every agreement claim uses one criterion, the largest difference over ``trials`` random draws relative to the
size of the summands of the reference output (:func:`scaled_diff`: ``|a − b| / S`` entrywise, ``S`` the
reference evaluated on absolute values) ``≤ tol``; its control runs the same comparison on the closest wrong
reading of the paper's notation (query and key roles swapped, i.e. a missing transpose of ``W_QK``; the skip
connection left out), which must exceed ``tol``. An earlier criterion divided by the output itself
(:func:`max_rel_diff`); with d = 2 and thousands of draws an output can cancel to 1e-4 of its summands,
and five correct agreements then failed (e.g. n = d = 2, H = d_h = d_v = 1, seed 0, 20000 draws).

Tokens are drawn on the unit sphere and ``W_Q^h, W_K^h`` are rescaled to spectral norm 1, so every score
lies in [-1, 1] whatever the size or the draw: the softmax cannot saturate, and a wrong score convention
moves the output by the size of the change of the scores, not by ``e^{-gap}`` times it (with Gaussian
tokens, a draw with a score gap of 30 made the query/key swap invisible at ``tol = 1e-8``). A query/key swap
is invisible only for ``n = 1`` (the softmax of one key is 1) or ``d = 1`` (a 1×1 ``W_QK`` is symmetric);
the parameter spec requires ``n, d ≥ 2``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import torch
from torch import Tensor

from lib.core import attention as att

from .model import (dana_eq1_second_form, dana_heads, dana_layer, deng_attention, levine_eq1, levine_eq3,
                    levine_eq12, levine_residual, mahdavi_layer, mahdavi_skip_layer)

RHO = 1e-6            # the relative perturbation checks-not-vacuous must detect
N_VOCAB, D_OUT = 10, 2


def A(x):
    """Absolute values of a tensor, or of every tensor of a dict (the inputs of a summand-scale evaluation)."""
    return {k: A(v) for k, v in x.items()} if isinstance(x, dict) else x.abs()


def T(M: Tensor) -> Tensor:
    """Transpose the last two axes (row convention <-> column convention)."""
    return M.transpose(-1, -2)


@dataclass
class Draws:
    """Seeded float64 Gaussian draws on ``device`` (one generator for the whole chapter)."""
    seed: int
    device: torch.device | str = "cpu"

    def __post_init__(self) -> None:
        self.gen = torch.Generator(device="cpu").manual_seed(self.seed)

    def randn(self, *shape: int, std: float = 1.0) -> Tensor:
        return (torch.randn(*shape, generator=self.gen, dtype=torch.float64) * std).to(self.device)

    def tokens(self, n: int, d: int, norm: float = 1.0) -> Tensor:
        """``n`` tokens of ``R^d`` (rows) drawn uniformly on the sphere of radius ``norm``."""
        X = self.randn(n, d)
        return norm * X / X.norm(dim=-1, keepdim=True)

    def weights(self, H: int, d: int, d_h: int, d_v: int, d_out: int) -> dict[str, Tensor]:
        """Row-convention weights (lib's and Mahdavi et al.'s): ``W_Q^h, W_K^h`` of spectral norm 1 (scores of
        unit tokens in [-1, 1]), ``W_V, W_O`` with variance ``1/fan_in``."""
        def unit(W: Tensor) -> Tensor:
            return W / torch.linalg.matrix_norm(W, ord=2, keepdim=True)
        return {"W_Q": unit(self.randn(H, d, d_h)), "W_K": unit(self.randn(H, d, d_h)),
                "W_V": self.randn(H, d, d_v, std=d ** -0.5), "W_O": self.randn(H, d_v, d_out, std=(H * d_v) ** -0.5)}


def max_rel_diff(a: Tensor, b: Tensor) -> float:
    """max |a - b| / max |b|: the difference relative to the size of the reference output, so that a check
    means the same whatever the scale of the outputs (float64 rounding is relative). An earlier version
    divided by max(1, max |b|), which made every comparison of small outputs (large n or d) an absolute one,
    easier to pass for a wrong layer too. Infinite when ``b`` is zero and ``a`` is not."""
    num, den = float((a - b).abs().max()), float(b.abs().max())
    return num / den if den > 0 else (0.0 if num == 0 else float("inf"))


def scaled_diff(a: Tensor, b: Tensor, s: Tensor) -> float:
    """max over entries of |a - b| / S: the difference relative to the size of the summands of each entry of the
    reference ``b``. ``S`` is the reference evaluated on absolute values (every weight, token and value replaced by
    its absolute value: for a product of matrices exactly the sum of |terms|, and for a softmax layer within a
    bounded factor of it, the weights being positive and summing to 1), floored by |b|. Float64 rounding is
    relative to the summands, not to their sum: :func:`max_rel_diff` divides by the output, which can nearly cancel
    (a draw with d = 2 whose output is 1e-4 of its summands turns a rounding error of 1e-16 into 1e-12), so a
    correct layer could fail it; this one cannot, and it still rejects a wrong layer, whose error is of the size of
    the summands. An entry with S = 0 counts 0 when a and b agree there, infinity otherwise."""
    num = (a - b).abs()
    den = torch.maximum(s.abs(), b.abs())
    r = torch.where(den > 0, num / torch.where(den > 0, den, torch.ones_like(den)),
                    torch.where(num > 0, torch.full_like(num, float("inf")), torch.zeros_like(num)))
    return float(r.max())


def _mahdavi_lib(E, e, W, W_D, Wq, Wk, skip=False):
    """lib.core.attention on Mahdavi et al.'s data: one query e, context E, then the decoder W_D."""
    return att.attention(e[None, :], E, Wq, Wk, W["W_V"], W["W_O"], skip=skip)[0] @ W_D


def _dana_lib(X, m, Wq, Wk):
    """lib.core.attention on Dana et al.'s model: transposed weights, last token queries, skip, then W_U."""
    return att.attention(X[-1:], X, T(Wq), T(Wk), T(m["W_V"]), T(m["W_O"]), skip=True)[0] @ m["W_U"].T


def _levine_lib(Xc, Wv, Wo, q, k, **kw):
    """lib.core.attention on Levine et al.'s columns: self-attention with transposed weights."""
    return att.attention(Xc.T, Xc.T, T(q), T(k), T(Wv), T(Wo), **kw).T

def _dana_draw(D: Draws, n: int, d: int, H: int, d_h: int) -> dict[str, Tensor]:
    """One AoT in Dana et al.'s notation: embeddings, left-multiplying weights (transposes of row draws)."""
    W = D.weights(H, d, d_h, d_h, d)
    return {"t": torch.randint(0, N_VOCAB, (n,), generator=D.gen).to(D.device), "emb": D.tokens(N_VOCAB, d, 0.5),
            "pos": D.tokens(n, d, 0.5), "W_U": D.randn(N_VOCAB, d, std=d ** -0.5),
            "W_Q": T(W["W_Q"]), "W_K": T(W["W_K"]), "W_V": T(W["W_V"]), "W_O": T(W["W_O"])}


def _eq1_wrong(D: Draws, m: dict[str, Tensor], d_h: int, H: int, tol: float) -> tuple[bool, str]:
    """dana-eq1-drops-WV's criterion on a fresh model with head size ``d_h`` and ``H`` heads (same S and d)."""
    S, d = m["pos"].shape
    mm = _dana_draw(D, S, d, H, d_h)
    try:
        second = dana_eq1_second_form(mm["t"], mm["emb"], mm["pos"], mm["W_Q"], mm["W_K"], mm["W_O"])
        diff = max_rel_diff(second, dana_heads(mm["t"], mm["emb"], mm["pos"], mm["W_Q"], mm["W_K"], mm["W_V"], mm["W_O"]))
        return diff > tol, f"both defined; rel. diff {diff:.2g}"
    except RuntimeError:
        return True, "undefined"


def _shape_typo(d: int, d_h: int, H: int) -> tuple[bool, str]:
    """dana-WO-shape-typo's criterion for the printed shapes at (d, d_h, H)."""
    qk = {shape: _product_shape(shape, (d_h, d)) for shape in ((d_h, d), (d, d_h))}
    block = tuple(torch.empty(d, H * d_h).tensor_split(H, dim=1)[0].shape)
    ok = qk[d_h, d] == (d, d) and block == (d, d_h) and (d_h == d or qk[d, d_h] is None)
    return ok, f"W_QK from R^{{{d_h},{d}}}: {qk[d_h, d]}; from R^{{{d},{d_h}}}: {qk[d, d_h] or 'undefined'}; W_O block {block}"


def _product_shape(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, ...] | None:
    """The shape of ``A^T B`` for ``A``, ``B`` of shapes ``a``, ``b``; None where the product is undefined."""
    try:
        return tuple((torch.empty(a).T @ torch.empty(b)).shape)
    except RuntimeError:
        return None


def _four_outputs(E: Tensor, W: dict[str, Tensor], swap: bool = False) -> dict[str, Tensor]:
    """The single-query softmax output (no skip, no scale) of one set of row-convention weights, computed by
    each paper's literal layer. ``swap``: Dana et al.'s W_QK^h transposed (the control)."""
    H, d_v, d = W["W_O"].shape
    d_h, I = W["W_Q"].shape[-1], torch.eye(d, dtype=E.dtype, device=E.device)
    q, k = (W["W_K"], W["W_Q"]) if swap else (W["W_Q"], W["W_K"])
    W_O = W["W_O"].reshape(H * d_v, d)
    return {
        "mahdavi": mahdavi_layer(E, E[-1], W["W_Q"], W["W_K"], W["W_V"], W_O, I),
        "dana": dana_layer(torch.arange(E.shape[0], device=E.device), E, torch.zeros_like(E), T(q), T(k),
                           T(W["W_V"]), T(W["W_O"]), I) - E[-1],                      # remove the skip
        "levine": levine_eq1(E.T, T(W["W_Q"]) * d_h ** 0.25, T(W["W_K"]) * d_h ** 0.25, T(W["W_V"]),
                             T(W["W_O"]))[:, -1],
        "deng": sum(deng_attention(E, E, W["W_Q"][h] @ W["W_K"][h].T, W["W_V"][h] @ W["W_O"][h], "softmax")[-1]
                    for h in range(H)),
    }




def mahdavi_errors(D: Draws, n: int, d: int, H: int, d_h: int, d_v: int, trials: int):
    """Mahdavi et al. eqs. (1)-(6) and App. C's skip variant against lib over ``trials`` draws, with the wrong readings
    (keys and queries swapped; the skip left out). Returns the differences and the last draw's weights."""
    errs: dict[str, list[float]] = {k: [] for k in ("eq", "swap", "skip", "noskip")}
    for _ in range(trials):
        E, e = D.tokens(n, d), D.tokens(1, d)[0]
        W = D.weights(H, d, d_h, d_v, d)
        W_O, W_D = W["W_O"].reshape(H * d_v, d), D.randn(d, D_OUT, std=d ** -0.5)   # W_O ∈ R^{Hd_v×d}

        lib, lib_abs = partial(_mahdavi_lib, E, e, W, W_D), partial(_mahdavi_lib, A(E), A(e), A(W), A(W_D))
        y = mahdavi_layer(E, e, W["W_Q"], W["W_K"], W["W_V"], W_O, W_D)
        y_skip = mahdavi_skip_layer(E, e, W["W_Q"], W["W_K"], W["W_V"], W_O, W_D)
        S, S_skip = lib_abs(A(W["W_Q"]), A(W["W_K"])), lib_abs(A(W["W_Q"]), A(W["W_K"]), skip=True)
        errs["eq"].append(scaled_diff(y, lib(W["W_Q"], W["W_K"]), S))
        errs["swap"].append(scaled_diff(y, lib(W["W_K"], W["W_Q"]), S))
        errs["skip"].append(scaled_diff(y_skip, lib(W["W_Q"], W["W_K"], skip=True), S_skip))
        errs["noskip"].append(scaled_diff(y_skip, lib(W["W_Q"], W["W_K"]), S_skip))
    return errs, W, W_O, W_D


def dana_errors(D: Draws, n: int, d: int, H: int, d_h: int, trials: int):
    """Dana et al. eq. (2), literally, against lib and against eq. (1), and with W_QK^h transposed, over ``trials``
    draws. Returns the differences and the last draw's model."""
    errs: dict[str, list[float]] = {k: [] for k in ("eq", "swap", "heads")}
    for _ in range(trials):
        m = _dana_draw(D, n, d, H, d_h)
        X = m["emb"][m["t"]] + m["pos"]
        logits = dana_layer(m["t"], m["emb"], m["pos"], m["W_Q"], m["W_K"], m["W_V"], m["W_O"], m["W_U"])

        lib = partial(_dana_lib, X, m)
        heads = dana_heads(m["t"], m["emb"], m["pos"], m["W_Q"], m["W_K"], m["W_V"], m["W_O"])
        ma = {**A({k: v for k, v in m.items() if k != "t"}), "t": m["t"]}
        S = _dana_lib(A(m["emb"])[m["t"]] + A(m["pos"]), ma, ma["W_Q"], ma["W_K"])
        errs["eq"].append(scaled_diff(logits, lib(m["W_Q"], m["W_K"]), S))
        errs["swap"].append(scaled_diff(logits, lib(m["W_K"], m["W_Q"]), S))
        errs["heads"].append(scaled_diff(logits, m["W_U"] @ (X[-1] + heads), S))
    return errs, m


def levine_errors(D: Draws, n: int, d: int, H: int, d_h: int, trials: int):
    """Levine et al. eqs. (1), (3), (12) and App. A.4's residual block against lib (tokens as columns), each with its
    wrong reading (query and key swapped; the skip left out), over ``trials`` draws."""
    errs: dict[str, list[float]] = {k: [] for k in ("1", "1s", "3", "3s", "12", "12s", "res", "nores")}
    for _ in range(trials):
        Xc = D.tokens(n, d).T                                          # tokens as columns
        W = D.weights(H, d, d_h, d_h, d)
        Wq, Wk, Wv, Wo = T(W["W_Q"]), T(W["W_K"]), T(W["W_V"]), T(W["W_O"])   # [H, d_a, d_x], W_O [H, d_x, d_a]

        lib, lib_abs = partial(_levine_lib, Xc, Wv, Wo), partial(_levine_lib, A(Xc), A(Wv), A(Wo))
        y1, y3 = levine_eq1(Xc, Wq, Wk, Wv, Wo), levine_eq3(Xc, Wq, Wk, Wv, Wo)
        S1 = lib_abs(A(Wq), A(Wk), scale=d_h ** -0.5)
        S3 = lib_abs(A(Wq), A(Wk), score_map="identity")      # identity scores: exactly the sum of |summands|
        for key, q, k in (("", Wq, Wk), ("s", Wk, Wq)):
            errs["1" + key].append(scaled_diff(y1, lib(q, k, scale=d_h ** -0.5), S1))
            errs["3" + key].append(scaled_diff(y3, lib(q, k, score_map="identity"), S3))
            errs["12" + key].append(scaled_diff(levine_eq12(Xc, q, k, Wv, Wo), y3, S3))
        y_res = levine_residual(Xc, Wq, Wk, Wv, Wo)
        S_res = lib_abs(A(Wq), A(Wk), score_map="identity", skip=True)
        errs["res"].append(scaled_diff(y_res, lib(Wq, Wk, score_map="identity", skip=True), S_res))
        errs["nores"].append(scaled_diff(y_res, lib(Wq, Wk, score_map="identity"), S_res))
    return errs


def deng_errors(D: Draws, n: int, d: int, d_h: int, d_v: int, trials: int):
    """Deng et al. (reconstructed) against lib for both maps, and the row-major vec identity, each with X transposed
    or the wrong vec as the wrong reading, over ``trials`` draws."""
    errs: dict[str, list[float]] = {k: [] for k in ("softmax", "softmaxT", "linear", "linearT", "vec", "vecT")}
    for _ in range(trials):
        A1, A2 = D.tokens(n, d).abs(), D.tokens(n, d).abs()    # positive: every linear score is positive
        Q, K = (W / torch.linalg.matrix_norm(W, ord=2) for W in (D.randn(d, d_h).abs(), D.randn(d, d_h).abs()))
        V = D.randn(d, d_v)
        Xp = Q @ K.T
        for sm in ("softmax", "linear"):
            ours = deng_attention(A1, A2, Xp, V, sm)
            S = att.attention(A1, A2, Q[None], K[None], A(V)[None], score_map=sm)     # A1, A2, Q, K are positive
            errs[sm].append(scaled_diff(ours, att.attention(A1, A2, Q[None], K[None], V[None], score_map=sm), S))
            errs[sm + "T"].append(scaled_diff(ours, att.attention(A1, A2, K[None], Q[None], V[None], score_map=sm), S))
        lhs = (A1 @ Xp @ A2.T).reshape(-1)                      # row-major vec (positive: its own summand scale)
        errs["vec"].append(scaled_diff(torch.kron(A1, A2) @ Xp.reshape(-1), lhs, lhs))
        errs["vecT"].append(scaled_diff(torch.kron(A1, A2) @ Xp.T.reshape(-1), (A1 @ Xp @ A2.T).T.reshape(-1), lhs))
    return errs


def four_errors(D: Draws, n: int, d: int, H: int, d_h: int, d_v: int, trials: int):
    """One set of weights through the four papers' layers and torch's SDPA, Dana et al.'s fed W_QK^h transposed (the
    control), and an output moved by RHO of its summands (the perturbation check), over ``trials`` draws."""
    errs: dict[str, list[float]] = {k: [] for k in ("pair", "swap", "sdpa", "moved", "same")}
    for _ in range(trials):
        E, W = D.tokens(n, d), D.weights(H, d, d_h, d_v, d)
        outs, bad = _four_outputs(E, W), _four_outputs(E, W, swap=True)
        # the summand scale (lib on absolute values), plus the skip's token, which Dana et al.'s layer adds and we subtract
        S = att.attention(A(E[-1:]), A(E), A(W["W_Q"]), A(W["W_K"]), A(W["W_V"]), A(W["W_O"]))[0] + A(E[-1])
        errs["pair"].append(max(scaled_diff(outs["mahdavi"], o, S) for o in outs.values()))
        errs["swap"].append(max(scaled_diff(outs["mahdavi"], o, S) for o in bad.values()))
        q, k, v = (E[-1:] @ W["W_Q"])[:, None], (E @ W["W_K"])[:, None], (E @ W["W_V"])[:, None]
        sdpa = torch.nn.functional.scaled_dot_product_attention(q, k, v, scale=1.0)[:, 0, 0]   # [H, d_v]
        errs["sdpa"].append(scaled_diff((sdpa[:, None, :] @ W["W_O"]).sum(0)[0], outs["mahdavi"], S))
        # an output off by RHO times the size of its summands (the resolution the criterion must have)
        lib_out = att.attention(E[-1:], E, W["W_Q"], W["W_K"], W["W_V"], W["W_O"])[0]
        moved = lib_out + RHO * S
        errs["moved"].append(scaled_diff(moved, lib_out, S))
        errs["same"].append(scaled_diff(outs["mahdavi"], lib_out, S))
    return errs
