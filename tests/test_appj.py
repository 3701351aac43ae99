"""Appendix J / Table 3 offline (lib.chapters.mha_memorization.model.appj, .claims.appj): tiny BERT/GPT-2-shaped random models."""
from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from lib.chapters.mha_memorization.claims import appj
from lib.chapters.mha_memorization.model import appj as appj_model
from lib.core import claims

TINY = {
    "bert-tiny": appj_model.Shape("bert-tiny", "BERT", 1500, 128, 64, 2, 256, 2, 1e-12),
    "gpt2-tiny": appj_model.Shape("gpt2-tiny", "GPT-2", 1500, 128, 64, 2, 256, 2, 1e-5),
}
SIZES = dict(n=16, T=140, trials=100, gp_trials=3, a2_examples=16, seed=0)


@pytest.fixture(scope="module", autouse=True)
def _one_thread():
    torch.set_num_threads(1)


@pytest.fixture(scope="module")
def rows():
    return {(r["model"], r["layer"]): r for r in appj.table3_random(tuple(TINY), shapes=TINY, **SIZES)}


def test_random_models_reproduce_the_random_columns(rows):
    for r in rows.values():
        assert r["A2"] == 1.0                                  # Assumption 2 at L0 and L1
        assert r["GP"] < appj.HOLD                             # general position fails
    assert rows[("BERT", "L0")]["A1"] == 0.0 and rows[("BERT", "L0")]["rank_all"] == 1   # identical [CLS] rows
    assert rows[("GPT-2", "L0")]["A1"] < appj.HOLD             # repeated last tokens (Zipf ids)
    assert rows[("GPT-2", "L1")]["A1"] >= appj.HOLD            # one random block mixes the context in


def test_degenerate_controls_fail():
    for shape in TINY.values():                                # no positions: repeated tokens -> equal rows
        assert appj.no_position_control(shape, 40, 16, 16) < appj.HOLD
    assert appj.gaussian_gp_control(140, 128, 3) >= appj.HOLD  # the GP control's alternative passes


def test_packed_attention_equals_per_example_reference():
    g = torch.Generator().manual_seed(1)
    for shape in TINY.values():
        W = appj_model.init_weights(shape, 3)
        for k in "QKVO":                                       # non-zero biases, as in a checkpoint
            W[f"b_{k}"] = torch.randn(shape.d, generator=g) * 0.1
        X = torch.randn(3, 7, shape.d, generator=g)
        causal = shape.family == "GPT-2"
        got = appj_model.mha_layer(shape, W, X, X, causal=causal)
        H, dk = shape.heads, shape.d // shape.heads
        ref = torch.zeros_like(got)
        for b in range(3):
            Q, K, V = (X[b] @ W[f"W_{k}"] + W[f"b_{k}"] for k in "QKV")
            for h in range(H):
                s = slice(h * dk, (h + 1) * dk)
                S = Q[:, s] @ K[:, s].T / math.sqrt(dk)
                if causal:
                    S = S.masked_fill(torch.ones(7, 7).triu(1).bool(), float("-inf"))
                ref[b] += torch.softmax(S, -1) @ V[:, s] @ W["W_O"][s]
            ref[b] += W["b_O"]
        assert torch.allclose(got, ref, atol=1e-5)


def _hf_state_dict(shape: appj_model.Shape, W: dict) -> dict:
    """The inverse of load_checkpoint's name map (a fake HF checkpoint)."""
    if shape.family == "BERT":
        sd = {f"bert.{n}": (W[k].T if tr else W[k]).clone() for k, (n, tr) in appj_model._BERT_KEYS.items()}
        for k, p in appj_model._BERT_LN.items():
            sd[f"bert.{p}.weight"], sd[f"bert.{p}.bias"] = W[k]
        sd["bert.encoder.layer.1.output.dense.bias"] = torch.zeros(shape.d)
        return sd
    sd = {f"transformer.{n}": W[k].clone() for k, n in appj_model._GPT2_KEYS.items()}
    sd["transformer.h.0.attn.c_attn.weight"] = torch.cat([W["W_Q"], W["W_K"], W["W_V"]], dim=1)
    sd["transformer.h.0.attn.c_attn.bias"] = torch.cat([W["b_Q"], W["b_K"], W["b_V"]])
    for k in ("ln_1", "ln_2"):
        sd[f"transformer.h.0.{k}.weight"], sd[f"transformer.h.0.{k}.bias"] = W[k]
    return sd


def test_pretrained_path_with_a_fake_checkpoint(tmp_path, rows):
    paths = {}
    for shape in TINY.values():
        W = appj_model.init_weights(shape, appj.model_seed(SIZES["seed"], shape))
        paths[shape.family] = tmp_path / f"{shape.name}.bin"
        torch.save(_hf_state_dict(shape, W), paths[shape.family])
        s2, W2 = appj_model.load_checkpoint(str(paths[shape.family]), shape.family)
        assert (s2.d, s2.vocab, s2.heads, s2.ffn) == (shape.d, shape.vocab, shape.heads, shape.ffn)
        assert all(torch.equal(torch.as_tensor(W2[k][0] if isinstance(W2[k], tuple) else W2[k]),
                               torch.as_tensor(W[k][0] if isinstance(W[k], tuple) else W[k])) for k in W)
    got = appj.table3_random((), shapes=TINY, checkpoints={f: str(p) for f, p in paths.items()}, **SIZES)
    assert {r["weights"] for r in got} == {"Trained"} and len(got) == 4
    for r in got:   # the fake checkpoint holds the random weights: the same numbers as the random rows
        ref = rows[(r["model"], r["layer"])]
        assert (r["A1"], r["A2"], r["rank_all"]) == (ref["A1"], ref["A2"], ref["rank_all"])
    bad = tmp_path / "bad.pt"
    torch.save({"foo": torch.zeros(1)}, bad)
    with pytest.raises(KeyError, match="not a BERT state_dict"):
        appj_model.load_checkpoint(str(bad), "BERT")


def test_report_records_the_claims(monkeypatch, capsys):
    monkeypatch.setattr(appj, "SHAPES", {**appj_model.SHAPES, **TINY})
    C = claims.Claims("mha-memorization", "smoke")
    P = {"preset": "smoke", "seed": 0, "appj_models": list(TINY), "appj_n": 16, "appj_T": 140, "appj_gp_trials": 3}
    appj.report(C, P)
    got = C.claims
    assert {"appj-A2-random", "appj-A1-gpt2", "appj-A1-bert", "appj-GP-random", "appj-trained-bert",
            "appj-trained-gpt-2", "appj-bert-positions", "appj-GP-test"} <= set(got)
    assert got["appj-GP-test"].kind == claims.FINDING and got["appj-bert-positions"].kind == claims.FINDING
    for cid in ("appj-A2-random", "appj-GP-random"):
        assert got[cid].kind == claims.EXPERIMENT and got[cid].verdict == claims.HOLDS, (cid, got[cid])
        assert got[cid].control is not None and not got[cid].control["passed"]
    for cid in ("appj-A1-gpt2", "appj-A1-bert"):                   # n = 16 < 512: below the claims' scale
        assert got[cid].verdict == claims.NOT_RUN, (cid, got[cid])
    # appj-A1-gpt2's control is the paper's counterexample (BERT's L1), through the same test
    assert "BERT" in got["appj-A1-gpt2"].control["description"]
    for fam in ("bert", "gpt-2"):
        c = got[f"appj-trained-{fam}"]
        assert c.verdict == claims.NOT_RUN and "appj_" in c.criterion and "checkpoint" in c.criterion
    assert not C.missing_controls()
    assert np.isfinite(float(got["appj-A2-random"].ours.split()[-1]))


def test_gram_ranks_equal_svd_ranks():
    """theory.layer's Gram route (rtol ≥ GRAM_RTOL) gives num_rank's ranks, also where a singular value sits at the
    threshold (that matrix falls back to its SVD) and on float32-rounded, rank-deficient data."""
    from lib.chapters.mha_memorization.theory import layer as mha
    rng = np.random.default_rng(0)
    rtol = appj.rtol_for(64, 96)
    low = (rng.standard_normal((200, 20)) @ rng.standard_normal((20, 96))).astype(np.float32).astype(np.float64)
    full = rng.standard_normal((200, 96))
    U, _, Vt = np.linalg.svd(rng.standard_normal((64, 96)), full_matrices=False)
    s = np.r_[np.geomspace(1, 1e-3, 40), rtol * (1 + 1e-9), np.full(23, 1e-8)]   # σ_41 on the threshold
    edge = (U * s) @ Vt
    for V in (low, full, np.vstack([edge, edge])):
        for k in (10, 21, 64):
            a = mha.kruskal_test(V, k, 30, np.random.default_rng(1), rtol)
            b = np.array([mha.num_rank(V[np.random.default_rng(1).choice(len(V), k, replace=False)], rtol)])
            ref = np.random.default_rng(1)
            want = np.array([mha.num_rank(V[ref.choice(len(V), size=k, replace=False)], rtol) for _ in range(30)])
            assert np.array_equal(a[1], want) and a[1][0] == b[0], (k, a[1], want)
    E = np.stack([edge, edge[::-1], low[:64], full[:64]])
    want = np.array([mha.num_rank(x, rtol) for x in E])
    assert np.array_equal(mha.context_ranks(E, rtol), want)
    assert mha.num_rank(edge, rtol) in (40, 41)
    ranks = mha._gram_ranks((edge @ edge.T)[None], rtol, 64 + 96)
    assert ranks[0] == -1                                      # undecided: settled by the SVD


def test_one_query_path_equals_the_full_layer():
    """mha_layer's single-query route (keys and values never formed) equals the full layer's query row."""
    g = torch.Generator().manual_seed(2)
    for shape in TINY.values():
        W = appj_model.init_weights(shape, 5)
        for k in "QKVO":
            W[f"b_{k}"] = torch.randn(shape.d, generator=g) * 0.1
        X = torch.randn(3, 9, shape.d, generator=g)
        causal = shape.family == "GPT-2"
        q = slice(8, 9) if causal else slice(0, 1)
        full = appj_model.mha_layer(shape, W, X, X, causal=causal)[:, q]
        one = appj_model.mha_layer(shape, W, X[:, q], X, causal=causal)
        assert torch.allclose(one, full, atol=1e-5)
