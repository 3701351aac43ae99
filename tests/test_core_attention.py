"""lib.core.attention against direct formulas, for every variant the chapters use."""
import pytest
import torch

from lib.core import attention as att

F64 = torch.float64   # explicit everywhere: a global default dtype would leak into other tests


_GEN = torch.Generator().manual_seed(0)   # one stream for the whole module, as before


def rand(*s, g=None):
    return torch.randn(*s, generator=g if g is not None else _GEN, dtype=F64)


def direct(Xq, X, WQ, WK, WV, WO, score_map, scale):
    """Per-head, per-query loops: the definition, written without batching."""
    H, nq = WQ.shape[0], Xq.shape[0]
    out = torch.zeros(nq, WO.shape[-1], dtype=F64) if WO is not None else None
    cat = []
    for h in range(H):
        rows = []
        for i in range(nq):
            s = torch.stack([(Xq[i] @ WQ[h]) @ (X[j] @ WK[h]) for j in range(X.shape[0])]) * (scale or 1.0)
            a = {"softmax": torch.exp(s) / torch.exp(s).sum(), "linear": s / s.sum(), "identity": s}[score_map]
            rows.append(sum(a[j] * (X[j] @ WV[h]) for j in range(X.shape[0])))
        head = torch.stack(rows)
        cat.append(head)
        if WO is not None:
            out += head @ WO[h]
    return out if WO is not None else torch.cat(cat, dim=-1)


@pytest.mark.parametrize("score_map", ["softmax", "linear", "identity"])
@pytest.mark.parametrize("scale", [None, 0.5])
@pytest.mark.parametrize("with_WO", [True, False])
def test_matches_direct_formula(score_map, scale, with_WO):
    n, nq, d, H, dk, dv = 7, 3, 5, 3, 4, 2
    X, Xq = rand(n, d).abs(), rand(nq, d).abs()          # positive scores keep linear attention defined
    WQ, WK, WV, WO = rand(H, d, dk).abs(), rand(H, d, dk).abs(), rand(H, d, dv), rand(H, dv, 6)
    WO = WO if with_WO else None
    got = att.attention(Xq, X, WQ, WK, WV, WO, score_map=score_map, scale=scale)
    torch.testing.assert_close(got, direct(Xq, X, WQ, WK, WV, WO, score_map, scale), rtol=1e-12, atol=1e-12)


def test_weights_are_row_stochastic_and_skip_adds_query():
    X = rand(6, 4)
    W = att.init_weights(2, 4, 3, 3, 4, generator=torch.Generator().manual_seed(1))
    out, A = att.attention(X, X, **W, return_weights=True)
    torch.testing.assert_close(A.sum(-1), torch.ones(2, 6, dtype=F64))
    out_skip = att.attention(X, X, **W, skip=True)
    torch.testing.assert_close(out_skip - out, X)
    with pytest.raises(ValueError, match="skip connection needs d_out = d"):
        att.attention(X, X, W["W_Q"], W["W_K"], W["W_V"], skip=True)


def test_mask_excludes_keys():
    X = rand(5, 4)
    W = att.init_weights(2, 4, 3, 3, 4, generator=torch.Generator().manual_seed(2))
    mask = torch.tensor([True, True, False, True, False])
    got = att.attention(X[:1], X, **W, mask=mask)
    keep = mask.nonzero().squeeze(1)
    torch.testing.assert_close(got, att.attention(X[:1], X[keep], **W))


def test_family_broadcast_equals_loop_over_models():
    """A family of G models with per-model batches: X [G, B, n, d], weights [G, 1, H, d, d_k]."""
    G, B, n, d = 4, 3, 5, 6
    X = rand(G, B, n, d)
    W = att.init_weights(2, d, 3, 2, 1, family=(G, 1), generator=torch.Generator().manual_seed(3))
    got = att.attention(X[..., -1:, :], X, **W)
    for g in range(G):
        Wg = {k: v[g, 0] for k, v in W.items()}
        torch.testing.assert_close(got[g], att.attention(X[g, :, -1:, :], X[g], **Wg))


def test_unknown_score_map():
    with pytest.raises(ValueError, match="score_map"):
        att.normalize(torch.zeros(2, 2, dtype=F64), "relu")
