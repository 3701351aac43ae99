"""The claims role of chapter ``notation``: every agreement, count and misprint recorded as a claim with its kind and
negative control; each function records the claims of one paper, prints what it measured and the verdict lines
(:meth:`~lib.core.claims.Claims.lines`) under the cell that calls it. The computations are :mod:`.theory`'s.
"""
from __future__ import annotations

import torch
from torch import Tensor

from lib.core.claims import FINDING, SANITY, THEOREM, Claims

from . import theory
from .model import dana_eq1_second_form, dana_heads, dana_layer, dana_parameters, levine_parameters
from .theory import (D_OUT, N_VOCAB, RHO, A, Draws, _dana_draw, _dana_lib, _eq1_wrong, _product_shape, _shape_typo,
                     max_rel_diff, scaled_diff)



def agree(C: Claims, id: str, statement: str, errs: list[float], *, tol: float, paper: str,
          control: tuple[str, list[float]] | None = None, kind: str = THEOREM) -> float:
    """Record 'max over draws of the relative difference ≤ tol'; the control (description, its differences)
    is judged by the same expression. Returns the largest difference."""
    e = max(errs)
    ctl = None
    if control is not None:
        ce = max(control[1])
        ctl = (control[0], ce <= tol, f"max rel. diff {ce:.1e}")
    C.check(id, statement, kind=kind, paper=paper, ours=f"max rel. diff {e:.1e} over {len(errs)} draws",
            ok=e <= tol, criterion=f"max over draws and entries of |a − b| / (sum of |summands|) ≤ tol = {tol:g}",
            stable=False, control=ctl)
    return e



def mahdavi(C: Claims, D: Draws, n: int, d: int, H: int, d_h: int, d_v: int, trials: int, tol: float) -> dict:
    """Mahdavi et al. eqs. (1)-(6) and Appendix C's skip variant against lib; the parameter count."""
    errs, W, W_O, W_D = theory.mahdavi_errors(D, n, d, H, d_h, d_v, trials)
    out = {"eq": agree(C, "mahdavi-eq1-6", "Mahdavi et al. eqs. (1)-(6) are lib.core.attention with one query, "
                       "softmax, no scaling, W_O split into H blocks of d_v rows, followed by W_D", errs["eq"],
                       tol=tol, paper="eqs. (1)-(6)",
                       control=("keys and queries swapped: α_h = E W_Q W_K^T e", errs["swap"])),
           "skip": agree(C, "mahdavi-skip", "Mahdavi et al. Appendix C (Remark 2): eq. (5) with the skip, "
                         "o = W_O^T[p_1;…;p_H] + e, is lib.core.attention with skip=True", errs["skip"], tol=tol,
                         paper="App. C, eq. (5')", control=("the layer without the skip (eq. 5)", errs["noskip"]))}
    counted = sum(w.numel() for w in (W["W_Q"], W["W_K"], W["W_V"], W_O, W_D))
    formula = 2 * H * d * d_h + H * d * d_v + d * D_OUT
    def omits(n_WQK: int, n_WV: int, n_WO: int, n_WD: int, form: int) -> tuple[bool, str]:
        # the finding under one reading of which tensors are parameters: the formula is not their count
        c = n_WQK + n_WV + n_WO + n_WD
        return c != form, f"{c} counted vs formula {form}"

    n_qk, n_v, n_d = W["W_Q"].numel() + W["W_K"].numel(), W["W_V"].numel(), W_D.numel()
    d_v2 = max(1, d // H)          # the usual per-head value size d_v = d/H
    C.check("mahdavi-param-count", "The paper's parameter count 2Hdd_h + Hdd_v + dd_out leaves out W_O: "
            "the tensors of the layer built above exceed it by exactly the entries of W_O",
            kind=FINDING, paper=f"{formula}", ours=f"{counted} counted (difference {counted - formula})",
            ok=counted - formula == W_O.numel(), criterion="counted − formula = number of entries of W_O",
            variants=[
                ("W_O and W_D both fixed by Theorem 1's construction (neither counted)",
                 *omits(n_qk, n_v, 0, 0, formula)),
                ("W_O fixed by Theorem 1's construction, W_D trained (W_O not counted, W_D counted)",
                 *omits(n_qk, n_v, 0, n_d, formula)),
                (f"d_h = d = {d} (every head full width)",
                 *omits(2 * H * d * d, n_v, W_O.numel(), n_d, 2 * H * d * d + H * d * d_v + d * D_OUT)),
                (f"d_v = d/H = {d_v2} (H d_v = d, W_O square)",
                 *omits(n_qk, H * d * d_v2, H * d_v2 * d, n_d, 2 * H * d * d_h + H * d * d_v2 + d * D_OUT))])
    out.update(counted=counted, formula=formula, W_O=W_O.numel())
    print(f"largest relative difference over {trials} draws: {out['eq']:.1e} (eqs. 1-6), {out['skip']:.1e} (App. C)")
    C.lines("mahdavi-eq1-6", "mahdavi-skip")
    return out


def dana(C: Claims, D: Draws, n: int, d: int, H: int, d_h: int, trials: int, tol: float) -> dict:
    """Dana et al. eq. (2), literally (concatenated W_O, block-diagonal W_V), against lib and against eq. (1)."""
    errs, m = theory.dana_errors(D, n, d, H, d_h, trials)
    out = {"eq": agree(C, "dana-eq1-2", "Dana et al. eq. (2), written literally (W_O = [W_O^1,…,W_O^H], "
                       "W_V = blockdiag(W_V^h)), is lib.core.attention with transposed weights, the last token as "
                       "query, softmax, skip=True, followed by W_U", errs["eq"], tol=tol, paper="eqs. (1)-(2)",
                       control=("W_QK^h transposed (key and query roles swapped)", errs["swap"])),
           "heads": agree(C, "dana-eq2-heads", "Eq. (2)'s concatenated product W_O W_V A equals the per-head sum "
                          "Σ_h W_O^h W_V^h A^h of eq. (1) (block matrix product)", errs["heads"], tol=tol,
                          paper="eq. (1) = eq. (2)", kind=SANITY)}
    V = Draws(D.seed + 1, D.device)    # the variants' fresh models: a generator of their own (the page's draws unchanged)
    out.update(dana_typos(C, m, tol, V), count=dana_count(C, n, d, H, d_h))
    out.update(dana_pair_typo(C, m, V, tol))
    print(f"largest relative difference over {trials} draws: {out['eq']:.1e} (eq. 2 vs lib), {out['heads']:.1e} (eq. 2 vs eq. 1)")
    print("eq. (1), second equality:", out["eq1_second"])
    C.lines("dana-eq1-2", "dana-eq2-heads", "dana-eq1-drops-WV", "dana-WO-shape-typo", "dana-QV-pair-typo")
    return out


def dana_pair_typo(C: Claims, m: dict[str, Tensor], D: Draws, tol: float) -> dict:
    """§2 of Dana et al.: "Since matrices W_O, W_V and W_Q, W_V are multiplied together ..." The second pair should
    read W_Q, W_K: the logits depend on W_Q^h, W_K^h only through (W_Q^h)^T W_K^h (an orthogonal change M W_Q^h,
    M W_K^h leaves them unchanged), while W_Q^h and W_V^h are never multiplied (the same change of W_Q^h, W_V^h
    moves them). Checked on the model ``m``; variants on fresh models (``D``: a generator of its own)."""
    def gauge(mm: dict[str, Tensor], pair: tuple[str, str], gen_seed: int) -> float:
        d_h = mm["W_Q"].shape[-2]
        g = torch.Generator().manual_seed(gen_seed)
        M = torch.linalg.qr(torch.randn(d_h, d_h, generator=g, dtype=torch.float64))[0].to(mm["W_Q"].device)
        if d_h == 1:
            M = -M.abs()                      # the only orthogonal 1×1 change that is not the identity
        args = {k: mm[k] for k in ("W_Q", "W_K", "W_V", "W_O")}
        base = dana_layer(mm["t"], mm["emb"], mm["pos"], *args.values(), mm["W_U"])
        for k in pair:
            args[k] = M @ args[k]
        ma = {**A({k: v for k, v in mm.items() if k != "t"}), "t": mm["t"]}
        S = _dana_lib(A(mm["emb"])[mm["t"]] + A(mm["pos"]), ma, ma["W_Q"], ma["W_K"])
        return scaled_diff(dana_layer(mm["t"], mm["emb"], mm["pos"], *args.values(), mm["W_U"]), base, S)

    def judge(mm: dict[str, Tensor], other: str = "W_V") -> tuple[bool, str]:
        qk, qv = gauge(mm, ("W_Q", "W_K"), 1), gauge(mm, ("W_Q", other), 1)
        return qk <= tol and qv > tol, f"(Q, K) change: {qk:.1e}; (Q, {other[2:]}) change: {qv:.1e}"

    ok, ours = judge(m)
    S_, d = m["pos"].shape
    H = m["W_Q"].shape[0]
    C.check("dana-QV-pair-typo", "§2 'Since matrices W_O, W_V and W_Q, W_V are multiplied together' should read W_Q, W_K: the "
            "logits depend on W_Q^h, W_K^h only through (W_Q^h)^T W_K^h, and W_Q^h is never multiplied by W_V^h",
            kind=FINDING, paper="W_O, W_V and W_Q, W_V are multiplied together", ours=ours, ok=ok, stable=False,
            criterion="an orthogonal change M W_Q^h, M W_K^h moves the logits by ≤ tol; the same change of W_Q^h, W_V^h by > tol",
            variants=[("the pair read as W_K, W_V (the other pair that shares a letter)", *_kv(m, gauge, tol)),
                      (f"d_h = d = {d}", *judge(_dana_draw(D, S_, d, H, d))),
                      (f"d_h = 1, H = {H}", *judge(_dana_draw(D, S_, d, H, 1)))])
    return {"pair": ours}


def _kv(m, gauge, tol) -> tuple[bool, str]:
    """The W_K, W_V reading of the pair: W_K^h and W_V^h are never multiplied either (their change moves the logits)."""
    kv = gauge(m, ("W_K", "W_V"), 1)
    return kv > tol, f"(K, V) change: {kv:.1e}"


def dana_typos(C: Claims, m: dict[str, Tensor], tol: float, variant_draws: Draws | None = None) -> dict:
    """The two misprints of §2 of our copy of Dana et al. (arXiv v1): eq. (1)'s dropped ``W_V^h``, checked on
    the model ``m`` built above; the shape printed for ``W_Q^h`` where ``W_O^h`` is meant, checked on the
    printed shapes."""
    d_h, d = m["W_Q"].shape[-2:]
    H = m["W_Q"].shape[0]
    try:
        second = dana_eq1_second_form(m["t"], m["emb"], m["pos"], m["W_Q"], m["W_K"], m["W_O"])
        first = dana_heads(m["t"], m["emb"], m["pos"], m["W_Q"], m["W_K"], m["W_V"], m["W_O"])
        diff = max_rel_diff(second, first)
        ours, wrong = f"both defined (d_h = d); rel. diff {diff:.2g}", diff > tol
    except RuntimeError:
        ours, wrong = f"undefined: W_O^h is {d}×{d_h}, Σ_s a_s x_s is in R^{d}", True
    C.check("dana-eq1-drops-WV", "Eq. (1)'s second equality W_O^h Σ_s a^h_s x_s drops W_V^h: it is undefined "
            "for d_h < d and differs from W_O^h W_V^h A^h for d_h = d", kind=FINDING,
            paper="W_O^h W_V^h A^h = W_O^h Σ_s a^h_s (e(t_s) + pos_s)", ours=ours, ok=wrong, stable=False,
            criterion="the second expression is undefined or differs by more than tol",
            variants=None if variant_draws is None else [
                (f"d_h = {dh} ({'both sides defined' if dh == d else 'd_h < d'}), H = {h}", *_eq1_wrong(variant_draws, m, dh, h, tol))
                for dh, h in sorted({(d, H), (max(1, d - 1), H), (d, 1)} - {(d_h, H)})])
    qk = {shape: _product_shape(shape, (d_h, d)) for shape in ((d_h, d), (d, d_h))}   # (W_Q^h)^T W_K^h
    block = tuple(torch.empty(d, H * d_h).tensor_split(H, dim=1)[0].shape)           # W_O^h of W_O ∈ R^{d,Hd_h}
    typo = qk[d_h, d] == (d, d) and block == (d, d_h) and (d_h == d or qk[d, d_h] is None)
    C.check("dana-WO-shape-typo", "'W_Q^h ∈ R^{d,d_h}' in §2 of our copy should read W_O^h (a misprint, or a Q/O "
            "confusion of the extraction): with the first printed shape R^{d_h,d}, W_QK^h = (W_Q^h)^T W_K^h is d×d; "
            "with the second it is undefined (d_h < d), and the second is the shape of a block of the printed "
            "W_O ∈ R^{d,Hd_h}", kind=FINDING, paper="W_Q^h ∈ R^{d_h,d} and W_Q^h ∈ R^{d,d_h}",
            ours=f"(W_Q^h)^T W_K^h with W_Q^h ∈ R^{{{d_h},{d}}}: {qk[d_h, d]}; with R^{{{d},{d_h}}}: "
                 f"{qk[d, d_h] or 'undefined'}; a block of W_O ∈ R^{{{d},{H * d_h}}}: {block}",
            ok=typo, criterion="computed from the printed shapes: the first gives W_QK^h ∈ R^{d×d}, the second is "
                               "W_O's block shape and (for d_h < d) cannot be W_Q^h's",
            variants=[(f"d_h = d = {d} (the shapes coincide: the printed shapes cannot tell W_Q^h from W_O^h)", *_shape_typo(d, d, H)),
                      ("d_h = 1 (the narrowest head)", *_shape_typo(d, 1, H)),
                      ("H = 1 (W_O is one block)", *_shape_typo(d, d_h, 1))])
    return {"eq1_second": ours}


def dana_count(C: Claims, n: int, d: int, H: int, d_h: int) -> int:
    """Count the tensors of the AoT as the paper lists them, against d(S + 2N + 4 d_h H)."""
    tensors = dana_parameters(N_VOCAB, n, d, H, d_h)
    counted = sum(w.numel() for ws in tensors.values() for w in ws)
    formula = d * (n + 2 * N_VOCAB + 4 * d_h * H)
    C.sanity("dana-param-count", "Dana et al.: the AoT has d(S + 2N + 4 d_h H) parameters (counted over the "
             f"{sum(map(len, tensors.values()))} tensors e, pos, W_U, W_Q^h, W_K^h, W_V^h, W_O^h; the off-diagonal "
             "zeros of the block-diagonal W_V are not parameters)", paper=formula, ours=counted,
             ok=counted == formula, criterion="equal")
    return counted


def levine(C: Claims, D: Draws, n: int, d: int, H: int, d_h: int, trials: int, tol: float) -> dict:
    """Levine et al. eqs. (1), (3), (12) and the residual block of Appendix A.4 (tokens as columns)."""
    errs = theory.levine_errors(D, n, d, H, d_h, trials)
    swap = "W^{Q,h} and W^{K,h} swapped (a missing transpose of the score matrix)"
    out = {k: agree(C, cid, f"Levine et al. {what}", errs[k], tol=tol, paper=paper, control=(swap, errs[k + "s"]),
                    kind=kind)
           for k, cid, what, paper, kind in (
               ("1", "levine-eq1", "eq. (1), SM_j{⟨W^Q x^i, W^K x^j⟩/√d_a} summed over heads, is lib.core.attention "
                "with transposed weights and scale 1/√d_a", "eq. (1)", THEOREM),
               ("3", "levine-eq3", "eq. (3) (no softmax), summed over positions and heads, is lib.core.attention "
                "with score_map='identity'", "eq. (3)", THEOREM),
               ("12", "levine-eq12", "eq. (12) is the matrix form of eq. (3) (an algebraic identity between two of "
                "our transcriptions, lib not involved: sanity, like dana-eq2-heads)", "eq. (12) = eq. (3)", SANITY))}
    out["res"] = agree(C, "levine-residual", "Levine et al. App. A.4: the residual block x + f(x), f = eq. (3), is "
                       "lib.core.attention with score_map='identity' and skip=True", errs["res"], tol=tol,
                       paper="App. A.4, Fig. 5", control=("the block without its skip connection", errs["nores"]))
    out["d_a"] = levine_da(C, d)
    print("largest relative differences:", ", ".join(f"eq. {k}: {out[k]:.1e}" for k in ("1", "3", "12")), f"| residual: {out['res']:.1e}")
    C.lines("levine-eq1", "levine-eq3", "levine-eq12", "levine-residual", "levine-da")
    return out


def levine_da(C: Claims, d: int) -> dict[int, int]:
    """With d_a = d_x/H each layer's attention weights number 4 d_x^2, whatever H (every H dividing d_x)."""
    counts = {h: sum(w.numel() for w in levine_parameters(d, h)) for h in range(1, d + 1) if d % h == 0}
    C.sanity("levine-da", "Levine et al. take d_a = d_x/H: one layer's W^{Q,h}, W^{K,h}, W^{V,h}, W^{O,h} then "
             "hold 4 d_x^2 entries for every H dividing d_x (counted over the built tensors)",
             paper=f"4 d_x^2 = {4 * d * d}", ours=", ".join(f"H={h}: {c}" for h, c in counts.items()),
             ok=all(c == 4 * d * d for c in counts.values()), criterion="every count = 4 d_x^2")
    return counts


def deng(C: Claims, D: Draws, n: int, d: int, d_h: int, d_v: int, trials: int, tol: float) -> dict:
    """Deng et al. (reconstructed formulas) against lib, and the row-major vec identity (lib not involved)."""
    errs = theory.deng_errors(D, n, d, d_h, d_v, trials)
    rec = "(formula reconstructed: the paper's equations are lost in our copy) "
    out = {
        "softmax": agree(C, "deng-softmax", rec + "D^-1 exp(A1 X A2^T) A2 V with X = QK^T is lib.core.attention "
                         "(one head, softmax)", errs["softmax"], tol=tol, paper="reconstructed", kind=SANITY,
                         control=("X transposed (QK^T read as KQ^T)", errs["softmaxT"])),
        "linear": agree(C, "deng-linear", rec + "D_lin^-1 (A1 X A2^T) A2 V is lib.core.attention with "
                        "score_map='linear'", errs["linear"], tol=tol, paper="reconstructed", kind=SANITY,
                        control=("X transposed (QK^T read as KQ^T)", errs["linearT"])),
        "vec": agree(C, "deng-vec", "Linear algebra behind Deng et al.'s proofs (lib not involved): "
                     "vec(A1 X A2^T) = (A1 ⊗ A2) vec(X) for the row-major vec", errs["vec"], tol=tol,
                     paper="reconstructed", kind=SANITY,
                     control=("column-major vec with the same factors (it needs A2 ⊗ A1)", errs["vecT"])),
    }
    print("largest relative differences:", ", ".join(f"{k}: {v:.1e}" for k, v in out.items()))
    C.lines("deng-softmax", "deng-linear", "deng-vec")
    return out


def four_notations(C: Claims, D: Draws, n: int, d: int, H: int, d_h: int, d_v: int, trials: int,
                   tol: float) -> dict:
    """One set of weights through the four papers' layers and torch's SDPA; the perturbation check."""
    errs = theory.four_errors(D, n, d, H, d_h, d_v, trials)
    out = {"pair": agree(C, "four-notations-agree", "The four papers' layers, fed one set of weights, give the "
                         "same single-query softmax output", errs["pair"], tol=tol, paper="one layer",
                         control=("Dana et al.'s layer fed W_QK^h transposed", errs["swap"])),
           "sdpa": agree(C, "sdpa-agrees", "torch's scaled_dot_product_attention (scale 1) gives the same output",
                         errs["sdpa"], tol=tol, paper="same layer", kind=SANITY)}
    lo, hi = min(errs["moved"]), min(errs["same"])
    C.sanity("checks-not-vacuous", f"The agreement criterion (Mahdavi et al.'s layer against lib, difference relative to "
             f"the summands ≤ tol) rejects an output off by ρ = {RHO:g} times the size of its summands, in every draw "
             "(scaling every value weight by 1 + ρ, the earlier check, moves the output by ρ times the output, which can "
             "cancel)", paper="(our check)",
             ours=f"smallest rel. diff {lo:.1e}", ok=lo > tol, criterion=f"smallest rel. diff over draws > tol = {tol:g}",
             stable=False, control=("the unperturbed layer (ρ = 0)", hi > tol, f"smallest rel. diff {hi:.1e}"))
    out.update(moved=lo, same=hi, swap=max(errs["swap"]))
    from lib.core.params import load
    print(f"largest difference between notations: {out['pair']:.1e}; against scaled_dot_product_attention: {out['sdpa']:.1e}")
    print(f"output moved by ρ = {RHO:g} of its summands (tol ≤ {load('notation').params['tol'].max:g}):\n"
          f"  smallest difference {out['moved']:.1e}; unperturbed: {out['same']:.1e}")
    C.lines("four-notations-agree", "sdpa-agrees", "checks-not-vacuous")
    return out


