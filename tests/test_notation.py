"""Unit tests of the notation chapter's package (literal layers, counts, the source display)."""
import pytest
import torch

from lib.chapters.notation import claims, model, theory
from lib.core import source
from lib.core import attention as att


def test_dana_count_is_over_tensors_not_block_diagonal_zeros():
    N, S, d, H, d_h = 10, 5, 6, 3, 2
    tensors = model.dana_parameters(N, S, d, H, d_h)
    assert sum(w.numel() for ws in tensors.values() for w in ws) == d * (S + 2 * N + 4 * d_h * H)
    assert torch.block_diag(*tensors["W_V^h"]).numel() == H * H * d_h * d      # what counting W_V as stored gives


def test_dana_eq1_second_equality_is_undefined_unless_d_h_equals_d():
    D = theory.Draws(1)
    m = theory._dana_draw(D, 4, 5, 2, 3)
    with pytest.raises(RuntimeError):
        model.dana_eq1_second_form(m["t"], m["emb"], m["pos"], m["W_Q"], m["W_K"], m["W_O"])


def test_levine_da_needs_H_dividing_d():
    assert sum(w.numel() for w in model.levine_parameters(12, 4)) == 4 * 12 * 12
    with pytest.raises(ValueError, match="H | d_x"):
        model.levine_parameters(12, 5)


def test_scores_of_the_draws_are_bounded():
    D = theory.Draws(3)
    for d in (2, 16, 64):
        X, W = D.tokens(20, d), D.weights(3, d, 2, 2, d)
        assert att.scores(X, X, W["W_Q"], W["W_K"]).abs().max() <= 1 + 1e-12


def test_source_block_names_module_and_escapes():
    html = source.details(model.levine_eq12, summary="Levine <eq. 12>")
    assert "lib/chapters/notation/model.py:" in html and "levine_eq12" in html
    assert "&lt;eq. 12&gt;" in html and html.startswith("<details")


def test_param_count_finding_flips_only_under_the_W_O_fixed_W_D_trained_reading():
    from lib.core.claims import FRAGILE, HOLDS, Claims
    C = Claims("notation")
    claims.mahdavi(C, theory.Draws(0), 4, 6, 2, 3, 2, 1, 1e-12)
    c = C.claims["mahdavi-param-count"]
    assert c.base == HOLDS and c.verdict == FRAGILE and len(c.variants) == 4
    assert c.flips == ["W_O fixed by Theorem 1's construction, W_D trained (W_O not counted, W_D counted)"]


def test_dana_QV_pair_typo_the_logits_see_W_Q_W_K_only_through_their_product():
    from lib.core.claims import HOLDS, Claims
    C = Claims("notation")
    claims.dana(C, theory.Draws(2), 5, 6, 2, 3, 1, 1e-12)
    c = C.claims["dana-QV-pair-typo"]
    assert c.verdict == HOLDS and c.flips == [] and len(c.variants) == 3
    assert c.kind == "finding" and "W_Q, W_V" in c.paper


def test_scaled_diff_is_relative_to_the_summands_not_the_output():
    a = torch.tensor([1e-4 + 1e-16], dtype=torch.float64)
    b = torch.tensor([1e-4], dtype=torch.float64)
    S = torch.tensor([1.0], dtype=torch.float64)         # two summands of size 1/2 cancelling to 1e-4
    assert theory.max_rel_diff(a, b) > 1e-13 and theory.scaled_diff(a, b, S) < 1e-15
    assert theory.scaled_diff(torch.tensor([1.0]), torch.tensor([0.0]), torch.tensor([0.0])) == float("inf")
