"""Unit tests of lib.mha, lib.mha_gd and lib.mha_vit (the mha-memorization chapter). Small and fast."""
import math

import numpy as np
import pytest
import torch

from lib import attention as att
from lib import mha, mha_gd, mha_vit


@pytest.fixture(autouse=True)
def _one_thread():
    torch.set_num_threads(1)
    with mha.limit_blas_threads(1):
        yield


def paper_layer(E, e, W_K, W_Q, W_V, W_O, W_D):
    p = []
    for h in range(len(W_K)):
        a = E @ W_K[h] @ W_Q[h].T @ e
        th = np.exp(a - a.max())
        th /= th.sum()
        p.append(W_V[h].T @ (E.T @ th))
    return W_D.T @ (W_O.T @ np.concatenate(p))


def test_forward_matches_equations_1_to_6():
    rng = np.random.default_rng(0)
    T, n, d, H, dh, dv, do = 5, 4, 7, 3, 2, 2, 3
    E, e = rng.standard_normal((T, n, d)), rng.standard_normal((T, d))
    W = [rng.standard_normal(s) for s in ((H, d, dh), (H, d, dh), (H, d, dv), (H * dv, d), (d, do))]
    ref = np.stack([paper_layer(E[t], e[t], *W) for t in range(T)])
    assert np.abs(mha.forward(E, e, *W) - ref).max() < 1e-12
    # skip connection adds the query before W_D
    ref_skip = ref + e @ W[4]
    assert np.abs(mha.forward(E, e, *W, skip=True) - ref_skip).max() < 1e-12


def test_param_count_includes_W_O():
    f = mha.param_count(4, 16, 6, 2, 3)
    assert f["true"] == mha.count_module_params(4, 16, 6, 2, 3)
    assert f["true"] - f["paper"] == 4 * 2 * 16


def test_kruskal_rank_exact_and_randomized():
    rng = np.random.default_rng(1)
    assert mha.kruskal_rank(rng.standard_normal((7, 3))) == 3
    V = rng.standard_normal((6, 4))
    V[3] = V[0] + V[1]
    assert mha.kruskal_rank(V) == 2
    frac, ranks = mha.kruskal_test(rng.standard_normal((30, 8)), 5, 50, rng)
    assert frac == 1.0 and (ranks == 5).all()


@pytest.mark.parametrize("shared,d_v,d_out,Q,skip", [(True, 1, 1, None, False), (False, 1, 1, None, False),
                                                      (True, 10, 10, None, False), (True, 1, 1, 3, False),
                                                      (True, 1, 1, None, True)])
def test_construction_memorizes(shared, d_v, d_out, Q, skip):
    rng = np.random.default_rng(2)
    d, n, H, dh = 10, 5, 4, 10
    r = min(n if Q is None else Q, dh)
    T = H * (r - 1) + 1
    E, e = mha.uniform_data(T, n, d, rng, shared=shared, Q=Q)
    Y = rng.standard_normal((T, d_out))
    res = mha.memorize_check(E, e, Y, H, dh, d_v, rng, Q=Q, skip=skip)
    assert res["rankZ"] == T
    assert res["err"] <= 1e-8 * res["scale"]
    assert res["max_head_rank"] <= dh and res["factor_err"] < 1e-10
    assert res["sat_ok"]


def test_construction_respects_small_dh():
    rng = np.random.default_rng(3)
    d, n, H, dh = 10, 6, 3, 3
    T = H * (dh - 1) + 1
    E, e = mha.uniform_data(T, n, d, rng)
    res = mha.memorize_check(E, e, rng.standard_normal((T, 1)), H, dh, 1, rng)
    assert res["max_head_rank"] <= dh and res["err"] <= 1e-8 * res["scale"]


def test_construction_rejects_too_many_examples():
    rng = np.random.default_rng(4)
    E, e = mha.uniform_data(20, 4, 8, rng)
    with pytest.raises(ValueError):
        mha.construct(E, e, np.zeros((20, 1)), 2, 8, 1, rng)


def test_prop2_bound_for_random_weights():
    rng = np.random.default_rng(5)
    d, n, H = 9, 4, 3
    B = H * (n - 1) + 1
    E, e = mha.uniform_data(3 * B, n, d, rng)
    s = mha.singular_values(mha.features(E, e, *mha.random_heads(H, d, 2, 1.0, rng)))
    assert s[B] / s[0] < 1e-12 < s[B - 1] / s[0]


def test_prop4_averaging_layer():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((5, 4, 6))
    assert np.abs(mha.averaging_layer(X) - (X + X.mean(1, keepdims=True))).max() < 1e-12


def test_prop3_reduction_and_jacobian_rank():
    rng = np.random.default_rng(7)
    E, e, x = mha.appF_dataset(40, 3, 6, rng)
    diff, jr, n_all, n_red = mha.fcn_reduction(E, e, x, 4, 1, rng)
    assert diff < 1e-12 and jr <= n_red == 4 * 4 + 5 and n_all > n_red


def test_family_shared_matches_per_member_reference():
    """A masked member of a family computes exactly what an unpadded model of its own size computes."""
    mem = [mha_gd.Member(2, 3, 4, 10, 0), mha_gd.Member(4, 5, 8, 12, 1)]
    fam = mha_gd.Family(mem, 8, dtype=torch.float64)
    logits = fam.forward()
    for g, m in enumerate(mem):
        P = {k: v[g].detach() for k, v in fam.P.items()}
        e, E = fam.e[g, : m.T], fam.E[g, 0, : m.n]
        q = e @ P["W_emb"] + P["b_emb"] + fam.pe_q
        K = E @ P["W_emb"] + P["b_emb"] + fam.pe_k[: m.n]
        o = att.attention(q, K, P["W_Q"][: m.H, :, : m.d_h], P["W_K"][: m.H, :, : m.d_h], P["W_V"][: m.H],
                          P["W_O"][: m.H], scale=8 ** -0.5)
        ref = o @ P["W_dec"] + P["b_dec"]
        assert torch.allclose(logits[g, : m.T], ref, atol=1e-12)


def test_family_nonshared_fast_path_equals_lib_attention():
    mem = [mha_gd.Member(H, 4, 8, 9, 0) for H in (1, 3)]
    fam = mha_gd.Family(mem, 8, shared=False, dtype=torch.float64)
    a, A = fam.forward(return_weights=True)
    b, B = fam.forward(return_weights=True, reference=True)
    assert torch.allclose(a, b, atol=1e-12) and torch.allclose(A, B, atol=1e-12)


def test_masked_weights_get_no_gradient_and_training_learns():
    mem = [mha_gd.Member(1, 2, 4, 30, 0), mha_gd.Member(3, 4, 8, 30, 0)]
    fam = mha_gd.Family(mem, 8)
    l, _ = fam.loss_acc(fam.forward(), fam.y, fam.ex_mask)
    l.sum().backward()
    assert float(fam.P["W_O"].grad[0, 1:].abs().max()) == 0.0
    assert float(fam.P["W_Q"].grad[0, :, :, 4:].abs().max()) == 0.0
    fam = mha_gd.Family(mem, 8)
    r = mha_gd.train(fam, 300, 1e-2, eval_every=50)
    assert r["acc"][1] > 0.3                     # 30 random labels among 100 classes: chance ~0.03


def test_n1_accuracy_is_at_most_majority():
    m = mha_gd.Member(3, 1, 4, 40, 0)
    fam = mha_gd.Family([m], 8)
    r = mha_gd.train(fam, 100, 1e-2, eval_every=50)
    assert r["acc"][0] <= mha_gd.majority_fraction(m, 8, 100) + 1e-9


def test_vit_shapes_and_embedding_queries_identical():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    x, y = mha_vit.load_images("digits", 12, 16, rng)
    vit = mha_vit.TinyViT(1, 16, 4, 24, 2, 32)
    reps = mha_vit.representations(vit, x)
    X0 = reps["Embedding"]
    assert X0.shape == (12, 17, 24)
    assert np.abs(X0[:, 0] - X0[0, 0]).max() == 0.0
    assert reps["Random attention"].shape == X0.shape


def test_linear_fit_r2():
    coef, r2 = mha_gd.linear_fit([1, 2, 3, 4], [3, 5, 7, 9])
    assert math.isclose(r2, 1.0) and np.allclose(coef, [2, 1])
