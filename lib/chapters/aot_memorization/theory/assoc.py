"""The skip connection alone (H = 0) against a linear associative memory, for argmax memorization.

The paper reads Experiment 2's intercept through Cabannes et al.: "a matrix multiplication of rank d can store at
most d associations". That count is for associative memories whose input and output embeddings are fixed (random)
and only the d x d matrix is learned. In the AoT the embeddings are parameters too. With no head at all the logits
are W_U (e(t_S) + pos_S), a rank-d map of the last token, and Prop. 3's circle realizes *any* map from the N last
tokens to labels at d = 2: put the unembedding rows on the circle, W_U[j] = (cos 2 pi j/N, sin 2 pi j/N), and
e(x) = W_U[g(x)], pos = 0. The logit of label j is then cos(2 pi (j - g(x))/N), largest exactly at j = g(x), with
the margin 1 - cos(2 pi/N). :func:`circle_skip_aot` builds that H = 0 AoT (:class:`~.construction.AoT` with empty
head arrays); :func:`memory_accuracy` is the rival, a rank-d associative memory on fixed Gaussian embeddings.
"""
from __future__ import annotations

import numpy as np
import torch

from lib.chapters.aot_memorization.theory import construction as aot
from lib.chapters.aot_memorization.theory.encoders import circle


def circle_skip_aot(labels: np.ndarray, S: int = 2) -> aot.AoT:
    """The AoT with H = 0 and d = 2 that maps last token x to ``labels[x]``: W_U = the circle, e(x) = W_U[labels[x]],
    pos = 0 (float64)."""
    W = circle(len(labels))
    T = lambda a: torch.as_tensor(np.asarray(a, float))
    empty = lambda *s: torch.zeros(0, *s, dtype=torch.float64)
    return aot.AoT(T(W[np.asarray(labels)]), T(np.zeros((S, 2))), empty(2, 1), empty(2, 1), empty(2, 2), empty(2, 2), T(W))


def last_token_accuracy(model: aot.AoT, labels: np.ndarray, S: int = 2) -> tuple[float, float]:
    """(accuracy, margin) of ``model`` on all N^S sequences, the target of a sequence being ``labels`` of its last
    token; the margin is the smallest gap between the target's logit and the largest other logit."""
    seqs = aot.all_sequences(len(labels), S)
    z = model.logits(seqs).numpy()
    y = np.asarray(labels)[seqs[:, -1]]
    right = z[np.arange(len(y)), y]
    z[np.arange(len(y)), y] = -np.inf
    return float(np.mean(right > z.max(1))), float((right - z.max(1)).min())


def memory_accuracy(labels: np.ndarray, d: int, rng: np.random.Generator, readout: str = "outer") -> float:
    """A linear associative memory (Cabannes et al.'s setting): fixed Gaussian input embeddings e_x and output
    embeddings u_y in R^d, a learned d x d matrix W, prediction argmax_y u_y . W e_x. ``readout``: ``"outer"``,
    W = sum_x u_{g(x)} e_x^T, or ``"lstsq"``, the W minimizing sum_x |W e_x - u_{g(x)}|^2. Returns the fraction of
    the N inputs whose prediction is their label."""
    labels = np.asarray(labels)
    N = len(labels)
    E, U = rng.standard_normal((N, d)), rng.standard_normal((N, d))
    if readout == "outer":
        W = U[labels].T @ E
    elif readout == "lstsq":
        W = np.linalg.lstsq(E, U[labels], rcond=None)[0].T
    else:
        raise ValueError(f"readout must be 'outer' or 'lstsq', got {readout!r}")
    return float(np.mean(np.argmax(E @ W.T @ U.T, 1) == labels))
