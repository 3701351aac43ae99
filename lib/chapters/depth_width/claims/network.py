"""Claims of sections 1-2 (depth-width): the analysed network and its S-form, the float ranks against the exact ones,
the two exact rank methods, Proposition 1. The other theory claims: :mod:`~.grid`, :mod:`~.regimes`, :mod:`~.lemmas`.

Kinds (lib.core.claims): a statement of the paper checked by an exact computation is a ``theorem`` and runs
its criterion on the closest wrong alternative as its control; conjectures of ours read off the data and the
paper's gaps are ``finding``; identities of our own code are ``sanity``.

Controls used here:

* an **upper bound** of depth L: the same inequality with the bound of depth L − 1 (a shallower network of the
  same width; if the measured ranks fit under it too, the bound cannot tell depth L from depth L − 1);
* a **lower bound** of depth L: the same inequality with the bound of depth L + 1. Lower bounds ≤ 1 are
  *vacuous* (every function has sep ≥ 1) and are not counted; bounds ≤ d_x + 1 (the rank one layer already
  reaches) are reported as *uninformative about depth*;
* Proposition 1: the same equality test on a network with a local attention mask;
* constructions: the same rank test on the degenerate construction (Ω = 1) or the wrong degree.
"""
from __future__ import annotations


from lib.core.claims import FINDING, THEOREM, Claims, Control, Variant

EPS = 1e-9


# ---------------------------------------------------------------------------------------------
# section 1: the network
# ---------------------------------------------------------------------------------------------
def network_claims(C: Claims, errs: list[float], exact_eq: list[bool], homog: list[bool],
                   homog_wrong: list[bool]) -> None:
    """S-form identities (sanity) and the degree of the output (theorem; control: degree 3^L − 1)."""
    C.sanity("sform-lib", "The S-form (Lemma, ours) equals eq. 3 evaluated layer by layer with lib.core.attention",
             paper="eq. 3 / eq. 12", ours=f"max rel. error {max(errs):.0e} over {len(errs)} networks",
             ok=max(errs) < 1e-12, criterion="relative error < 1e-12 (float64)", stable=False)
    C.sanity("sform-exact", "The S-form equals eq. 12 exactly over GF(p), with and without residuals",
             paper="eq. 12", ours=f"{sum(exact_eq)}/{len(exact_eq)} networks identical", ok=all(exact_eq),
             criterion="every entry equal mod p")
    C.check("cor3-homogeneous", "The depth-L output is homogeneous of degree 3^L = 2C(L)+1 (the degree in Lemma 1 / "
            "Corollary 3; the corollary's sum over C(L) positions is not tested by this)", kind=THEOREM,
            paper="degree 2C(L)+1 = 3^L", ours=f"{sum(homog)}/{len(homog)} networks (L = 1..4)", ok=all(homog),
            criterion="y(tX) = t^k y(X) exactly mod p with k = 3^L, for a random t",
            control=("degree k = 3^L − 1 (one factor fewer)", all(homog_wrong),
                     f"{sum(homog_wrong)}/{len(homog_wrong)} networks"))


def float_claim(C: Claims, demos: list[dict]) -> None:
    def differs(t: float) -> tuple[bool, str]:
        bad = [r for r in demos if r["L"] >= 3 and r["float_ranks"][t] != r["exact"]]
        n3 = sum(r["L"] >= 3 for r in demos)
        return n3 > 0 and len(bad) == n3, f"float rank ({t:g}) ≠ exact rank in {len(bad)}/{n3} cases with L ≥ 3"
    ok, val = differs(1e-9)
    C.check("ours-float-unreliable", "Ours: float64 SVD cannot measure these ranks at L ≥ 3", kind=FINDING,
            paper="— (the paper computes no ranks)", ours=val, ok=ok, criterion="every L ≥ 3 case differs", stable=False,
            variants=[Variant(f"relative threshold {t:g}", *differs(t)) for t in sorted(demos[0]["float_ranks"]) if t != 1e-9])


def methods_claim(C: Claims, r_flint: int, r_numpy: int) -> None:
    C.sanity("rank-methods-agree", "Two independent exact rank methods agree (FLINT nmod_mat vs our elimination)",
             paper="—", ours=f"{r_flint} vs {r_numpy}", ok=r_flint == r_numpy, criterion="equal integers")


def prop1_claim(C: Claims, prop1: list[dict], local: list[dict]) -> None:
    """Proposition 1 (theorem); control: the same equality on the network with a local mask |i − j| ≤ 1."""
    ok = all(r["equal"] and r["converged"] for r in prop1)
    ctl = bool(local) and all(len(set(r["ranks"])) == 1 for r in local)
    C.check("prop1", "Proposition 1: the separation rank is the same for every balanced partition", kind=THEOREM,
            paper="equal for all balanced partitions",
            ours="; ".join(f"d_x={r['case'].d_x},L={r['case'].L},H={r['case'].H},N={r['case'].N}: {r['ranks'][0]} "
                           f"({len(r['ranks'])} partitions)" for r in prop1),
            ok=ok, criterion="exact ranks equal across the balanced partitions, each < K",
            control=Control("the same network with a local attention mask |i − j| ≤ 1 (convolution-like)",
                            ctl or not local, "; ".join(", ".join(map(str, r["ranks"])) for r in local) or "not run"))


# ---------------------------------------------------------------------------------------------
# what the page calls: each computes the criterion's inputs, records the claims, prints their verdict lines
# ---------------------------------------------------------------------------------------------
def network(C: Claims, seed: int) -> None:
    """Section 1: the S-form against eq. 3 evaluated with lib.core.attention in float64, and against eq. 12 layer by
    layer over GF(p); the degree of the output, y(tX) = t^k y(X) with k = 3^L (control k = 3^L − 1)."""
    import torch

    from lib.chapters.depth_width import model
    from lib.chapters.depth_width.theory import seprank as sr
    gen = torch.Generator().manual_seed(seed)
    errs = []
    for (d, L, H, res) in [(4, 1, 1, False), (4, 2, 2, False), (6, 3, 3, False), (4, 2, 2, True), (3, 3, 1, True)]:
        Wp = model.paper_weights(d, L, H, gen)
        X = torch.randn(8, 5, d, generator=gen, dtype=torch.float64)          # 8 inputs of N = 5 positions
        a, b = model.network_lib(Wp, X, res), model.network_sform(Wp, X, res)
        errs.append(float((a - b).abs().max() / a.abs().max()))
    # exactly, mod p: layer-by-layer eq. 12 vs the S-form, and homogeneity y(tX) = t^k y(X) for k = 3^L (and 3^L - 1)
    p = sr.PRIME
    exact_eq, homog, homog_wrong = [], [], []
    for (d, L, H, res) in [(3, 1, 1, False), (4, 2, 2, False), (3, 3, 1, False), (4, 2, 2, True), (2, 4, 1, False)]:
        W = sr.random_weights(d, L, H, gen)
        X = sr.rand_modp(gen, (16, d, 6))
        S = sr.mm(X, X.transpose(-1, -2))
        exact_eq.append(torch.equal(sr.raw_network_modp(W, X, res), sr.mm(sr.s_form_matrix(W, S, res), X)))
        if not res:
            t = int(torch.randint(2, p, (1,), generator=gen))
            lhs = sr.raw_network_modp(W, torch.fmod(X * t, p))
            for k, out in ((3 ** L, homog), (3 ** L - 1, homog_wrong)):
                out.append(torch.equal(lhs, torch.fmod(sr.raw_network_modp(W, X) * pow(t, k, p), p)))
    print("float64, lib.core.attention vs S-form, max relative error:", f"{max(errs):.1e}")
    print("GF(p): eq. 12 == S-form in", sum(exact_eq), "of", len(exact_eq), "networks;",
          "homogeneous of degree 3^L in", sum(homog), "of", len(homog), "(degree 3^L - 1:", sum(homog_wrong), ")")
    network_claims(C, errs, exact_eq, homog, homog_wrong)
    C.lines()


def float_ranks(C: Claims, demos: list[dict]) -> None:
    """Section 2: the float64 SVD rank against the exact one (:func:`float_claim`), on
    :func:`~lib.chapters.depth_width.theory.rankgrid.float_rank_demo`'s cases."""
    float_claim(C, demos)
    C.lines()


def methods(C: Claims, seed: int) -> None:
    """Which exact method? FLINT against our vectorised elimination (and the unsound float SVD, timed) on one
    400 × 400 evaluation matrix (d_x = 6, L = 2, N = 4)."""
    import time

    import numpy as np
    import torch

    from lib.chapters.depth_width.theory import seprank as sr
    gen = torch.Generator().manual_seed(seed)
    W = sr.random_weights(6, 2, 1, gen)
    SP, xi = sr.side_configs(gen, 400, 2, 6)
    SQ, _ = sr.side_configs(gen, 400, 2, 6)
    t0 = time.perf_counter(); M = sr.eval_block(W, SP, xi, SQ); t_eval = time.perf_counter() - t0  # noqa: E702
    t0 = time.perf_counter(); r_flint = sr.rank_modp(M.numpy()); t_flint = time.perf_counter() - t0  # noqa: E702
    t0 = time.perf_counter(); r_numpy = sr.rank_modp_numpy(M.numpy()); t_numpy = time.perf_counter() - t0  # noqa: E702
    t0 = time.perf_counter(); np.linalg.svd(M.numpy(), compute_uv=False); t_svd = time.perf_counter() - t0  # noqa: E702
    print(f"400 × 400 evaluation matrix (d_x = 6, L = 2, N = 4), built in {t_eval:.2f} s:")
    print(f"rank {r_flint} by FLINT ({t_flint:.3f} s), {r_numpy} by our elimination ({t_numpy:.3f} s); float SVD {t_svd:.3f} s")
    methods_claim(C, r_flint, r_numpy)
    C.lines()


def prop1(C: Claims, cases: list, prop1: list[dict], seed: int, K_max: int) -> list[dict]:
    """Proposition 1 on the measured ``prop1`` (one record per case of ``cases``), with its control computed here:
    a local (convolution-like) attention mask, |i − j| ≤ 1, which breaks the symmetry. Returns the control's records."""
    from lib.chapters.depth_width.theory import rankgrid
    local = [rankgrid.local_contrast(c, width=1, seed=seed, K=min(K_max, r["K"] + 64))
             for c, r in zip(cases, prop1, strict=False) if c.N == 4 and not c.residual][:3]
    prop1_claim(C, prop1, local)
    C.lines()
    return local
