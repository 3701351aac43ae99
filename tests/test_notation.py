"""Unit tests of the notation chapter's package (literal layers, counts, the source display)."""
import pytest
import torch

from lib.chapters.notation import checks, layers
from lib.core import source
from lib.core import attention as att


def test_dana_count_is_over_tensors_not_block_diagonal_zeros():
    N, S, d, H, d_h = 10, 5, 6, 3, 2
    tensors = layers.dana_parameters(N, S, d, H, d_h)
    assert sum(w.numel() for ws in tensors.values() for w in ws) == d * (S + 2 * N + 4 * d_h * H)
    assert torch.block_diag(*tensors["W_V^h"]).numel() == H * H * d_h * d      # what counting W_V as stored gives


def test_dana_eq1_second_equality_is_undefined_unless_d_h_equals_d():
    D = checks.Draws(1)
    m = checks._dana_draw(D, 4, 5, 2, 3)
    with pytest.raises(RuntimeError):
        layers.dana_eq1_second_form(m["t"], m["emb"], m["pos"], m["W_Q"], m["W_K"], m["W_O"])


def test_levine_da_needs_H_dividing_d():
    assert sum(w.numel() for w in layers.levine_parameters(12, 4)) == 4 * 12 * 12
    with pytest.raises(ValueError, match="H | d_x"):
        layers.levine_parameters(12, 5)


def test_scores_of_the_draws_are_bounded():
    D = checks.Draws(3)
    for d in (2, 16, 64):
        X, W = D.tokens(20, d), D.weights(3, d, 2, 2, d)
        assert att.scores(X, X, W["W_Q"], W["W_K"]).abs().max() <= 1 + 1e-12


def test_source_block_names_module_and_escapes():
    html = source.details(layers.levine_eq12, summary="Levine <eq. 12>")
    assert "lib/chapters/notation/layers.py:" in html and "levine_eq12" in html
    assert "&lt;eq. 12&gt;" in html and html.startswith("<details")
