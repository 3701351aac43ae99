"""The offline substitute for the paper's Sec. 5.1 (Table 1, Fig. 1): assumption tests on ViT-shaped
representations.

The paper used 2000 ImageNet images and the `google/vit-base-patch16-224-in21k` checkpoint; neither
can be downloaded here. What we build instead (same architecture family, smaller by default):

* images: scikit-learn's digits (8x8, upsampled bilinearly to ``img`` pixels, grey), or random crops
  of scikit-learn's two sample photographs (``photos``), or a user's folder of PNG/JPG files;
* a ViT embedding: a linear patch embedding (a strided convolution), a [CLS] token and learned
  position embeddings, initialised like HF ViT (truncated normal, std 0.02 for [CLS]/positions);
* "random attention": LayerNorm without affine -> one softmax head with W_Q, W_K, W_V, W_O ∈ R^{d×d}
  (Xavier-uniform, logits scaled by 1/sqrt(d)) -> skip connection (as in the official notebook);
* "random ViT": one pre-LN Transformer block (LN -> multi-head attention -> residual -> LN -> GELU MLP
  -> residual), the output of layer 1;
* "trained (proxy)": the same one-block ViT trained briefly to classify the digits (a stand-in for the
  ImageNet-pretrained layer 1, NOT the same thing).

All attention goes through :func:`lib.core.attention.attention`.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from lib.chapters.mha_memorization.theory import layer as mha
from lib.core import attention as att


def load_images(source: str, T: int, img: int, rng: np.random.Generator, folder: str = ""):
    """``[T, C, img, img]`` float32 images in [0, 1] and integer labels (digits; -1 otherwise)."""
    if source == "digits":
        from sklearn.datasets import load_digits
        D = load_digits()
        idx = rng.permutation(len(D.target))[:T]
        x = torch.as_tensor(D.images[idx] / 16.0, dtype=torch.float32)[:, None]
        x = F.interpolate(x, size=(img, img), mode="bilinear", align_corners=False)
        return x, torch.as_tensor(D.target[idx])
    if source == "photos":
        from sklearn.datasets import load_sample_images
        photos = [np.asarray(p, dtype=np.float32) / 255.0 for p in load_sample_images().images]
    elif source == "folder":
        import matplotlib.image as mpimg
        files = sorted(p for p in Path(folder).expanduser().iterdir()
                       if p.suffix.lower() in (".png", ".jpg", ".jpeg"))
        if not files:
            raise ValueError(f"parameter 'vit_image_dir' = {folder!r}: no PNG/JPG files found")
        photos = []
        for f in files:
            a = np.asarray(mpimg.imread(f), dtype=np.float32)
            a = a / 255.0 if a.max() > 1.5 else a
            a = np.repeat(a[..., None], 3, axis=2) if a.ndim == 2 else a[..., :3]
            photos.append(a)
    else:
        raise ValueError(f"unknown image source {source!r}")
    out = []
    for t in range(T):
        p = photos[t % len(photos)] if source == "folder" and len(photos) >= T else photos[rng.integers(len(photos))]
        Hh, Ww = p.shape[:2]
        m = min(Hh, Ww)
        s = int(rng.integers(min(img, m), m // 2 + 1)) if m // 2 > img else m     # random-size square crop
        i, j = rng.integers(0, Hh - s + 1), rng.integers(0, Ww - s + 1)
        crop = torch.as_tensor(p[i:i + s, j:j + s]).permute(2, 0, 1)[None]
        out.append(F.interpolate(crop, size=(img, img), mode="bilinear", align_corners=False)[0])
    return torch.stack(out), torch.full((T,), -1)


class TinyViT(nn.Module):
    """ViT embedding + one pre-LN block + a linear classifier on [CLS]; attention via lib.core.attention."""

    def __init__(self, channels: int, img: int, patch: int, d: int, heads: int, mlp: int, classes: int = 10):
        super().__init__()
        self.n = (img // patch) ** 2 + 1
        self.heads, self.d = heads, d
        self.patch = nn.Conv2d(channels, d, patch, stride=patch)
        self.cls = nn.Parameter(nn.init.trunc_normal_(torch.empty(1, 1, d), std=0.02))
        self.pos = nn.Parameter(nn.init.trunc_normal_(torch.empty(1, self.n, d), std=0.02))
        dk = d // heads
        self.W_Q = nn.Parameter(torch.randn(heads, d, dk) * 0.02)
        self.W_K = nn.Parameter(torch.randn(heads, d, dk) * 0.02)
        self.W_V = nn.Parameter(torch.randn(heads, d, dk) * 0.02)
        self.W_O = nn.Parameter(torch.randn(heads, dk, d) * 0.02)
        self.ln1, self.ln2, self.ln_f = nn.LayerNorm(d), nn.LayerNorm(d), nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, mlp), nn.GELU(), nn.Linear(mlp, d))
        self.head = nn.Linear(d, classes)
        # the "Random Attention" layer of the official notebook: single head, d x d, Xavier, 1/sqrt(d)
        g = torch.Generator().manual_seed(int(torch.randint(0, 2**31, (1,))))
        xav = lambda: nn.init.xavier_uniform_(torch.empty(d, d), generator=g)[None]
        self.rand_att = {k: xav() for k in ("W_Q", "W_K", "W_V", "W_O")}

    def embed(self, x: torch.Tensor, positions: bool = True) -> torch.Tensor:
        p = self.patch(x).flatten(2).transpose(1, 2)                         # [B, n-1, d]
        X = torch.cat([self.cls.expand(len(x), -1, -1), p], dim=1)
        return X + self.pos if positions else X

    def random_attention(self, X: torch.Tensor) -> torch.Tensor:
        Y = F.layer_norm(X, (self.d,))
        a = self.rand_att
        return X + att.attention(Y, Y, a["W_Q"], a["W_K"], a["W_V"], a["W_O"], scale=self.d ** -0.5)

    def block(self, X: torch.Tensor) -> torch.Tensor:
        Y = self.ln1(X)
        X = X + att.attention(Y, Y, self.W_Q, self.W_K, self.W_V, self.W_O, scale=(self.d // self.heads) ** -0.5)
        return X + self.mlp(self.ln2(X))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.ln_f(self.block(self.embed(x)))[:, 0])


def train_proxy(model: TinyViT, x: torch.Tensor, y: torch.Tensor, epochs: int, lr: float = 3e-3,
                batch: int = 64) -> float:
    """Train briefly on the digits classes; returns the final training accuracy."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    g = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        for idx in torch.randperm(len(x), generator=g).split(batch):
            opt.zero_grad()
            F.cross_entropy(model(x[idx]), y[idx]).backward()
            opt.step()
    with torch.no_grad():
        return float((model(x).argmax(1) == y).float().mean())


def representations(model: TinyViT, x: torch.Tensor, trained: TinyViT | None = None,
                    positions: bool = True) -> dict[str, np.ndarray]:
    """Tokens ``[T, n, d]`` (float64) at each representation of Table 1; query = token 0 ([CLS]). With
    ``positions=False`` the position embeddings are left out (the control of Assumption 2)."""
    with torch.no_grad():
        X0 = model.embed(x, positions)
        reps = {"Embedding": X0, "Random attention": model.random_attention(X0), "Random ViT (layer 1)": model.block(X0)}
        if trained is not None:
            reps["Trained proxy ViT (layer 1)"] = trained.block(trained.embed(x, positions))
    return {k: v.double().numpy() for k, v in reps.items()}


def assumption_table(reps: dict[str, np.ndarray], trials: int, rng: np.random.Generator, rtol: float = 1e-7):
    """For each representation: fractions of the A2 test (contexts of rank n), the A1 test (random
    n-subsets of the queries of rank n), the A3 test (queries + context mean) and the general-position
    test (random d-subsets of rank d); ranks seen at k = d. ``rtol`` is relative to σ_max (float32-born
    features are only accurate to ~1e-7)."""
    rows = {}
    for name, X in reps.items():
        T, n, d = X.shape
        q = X[:, 0]
        a2 = float((mha.context_ranks(X, rtol) == n).mean())
        a1, _ = mha.kruskal_test(q, n, trials, rng, rtol)
        a3, _ = mha.kruskal_test(q + X.mean(axis=1), n, trials, rng, rtol)
        gp, ranks_d = mha.kruskal_test(q, d, trials, rng, rtol) if T >= d else (float("nan"), np.array([]))
        rows[name] = dict(A1=a1, A2=a2, A3=a3, GP=gp, rank_d=ranks_d, n=n, d=d, T=T)
    return rows


def a2_fractions(reps: dict[str, np.ndarray], rtol: float = 1e-7) -> dict[str, float]:
    """The A2 test of :func:`assumption_table` alone: the fraction of contexts of rank n, per representation."""
    return {name: float((mha.context_ranks(X, rtol) == X.shape[1]).mean()) for name, X in reps.items()}


def kruskal_curve(q: np.ndarray, ks, trials: int, rng: np.random.Generator, rtol: float = 1e-7):
    """Fig. 1: fraction of random k-subsets of the queries with full rank, for each candidate k."""
    return np.array([mha.kruskal_test(q, k, trials, rng, rtol)[0] for k in ks])
