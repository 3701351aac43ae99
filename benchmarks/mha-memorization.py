"""Time the hot parts of the mha-memorization chapter at a preset (default: book).

    .venv/bin/python benchmarks/mha-memorization.py [--preset book] [--parts construct,big,generic,prop2,vit,appj,gd]

Prints one line per part (seconds, wall clock). The machine's load matters: note `uptime` beside the
numbers. The chapter's budget at the book preset is 5 minutes in total (issue 14).
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

from lib.chapters.mha_memorization.claims import appj
from lib.chapters.mha_memorization.model import vit as mha_vit
from lib.chapters.mha_memorization.theory import construction as con
from lib.chapters.mha_memorization.theory import layer as mha
from lib.chapters.mha_memorization.train import gd as mha_gd
from lib.core import params, repro


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="book")
    ap.add_argument("--parts", default="construct,big,generic,prop2,vit,appj,gd")
    a = ap.parse_args()
    P = params.load("mha-memorization").resolve(a.preset)
    repro.setup(P["seed"], "cpu", quiet=True)
    mha.limit_blas_threads(1)
    rng = np.random.default_rng(P["seed"])
    d, n = P["d"], P["n"]
    print(f"preset {a.preset}; load average {os.getloadavg()[0]:.1f}")
    total = 0.0

    def timed(name, fn):
        nonlocal total
        t0 = time.perf_counter()
        fn()
        dt = time.perf_counter() - t0
        total += dt
        print(f"{name:28s} {dt:7.1f} s", flush=True)

    parts = a.parts.split(",")
    if "construct" in parts:
        def construct():
            for H, m, dh in [(H, m, k) for H in P["con_H"] for m in P["con_n"] for k in P["con_dh"]]:
                T = H * (min(m, dh) - 1) + 1
                for shared in (True, False):
                    for dv in (1, d):
                        for _ in range(P["con_trials"]):
                            E, e = mha.uniform_data(T, m, d, rng, shared=shared)
                            con.memorize_check(E, e, rng.standard_normal((T, dv)), H, dh, dv, rng)
        timed("construction grid", construct)
    if "big" in parts:
        def big():
            Db, nb = P["con_big_d"], P["con_big_n"]
            for H in P["con_big_H"]:
                T = H * (nb - 1) + 1
                E, e = mha.uniform_data(T, nb, Db, rng)
                res = con.memorize_check(E, e, rng.standard_normal((T, 1)), H, nb, 1, rng)
                con.past_capacity(E, e, res["con"], rng)
        timed("construction, paper's sizes", big)
    if "generic" in parts:
        def generic():
            for H in P["con_H"]:
                T = H * (n - 1) + 1
                for clustered in (False, True):
                    E, e = mha.uniform_data(T, n, d, rng)
                    if clustered:
                        e = con.clustered_queries(T, d, P["gen_eps"], rng)
                    Y = rng.standard_normal((T, 1))
                    con.memorize_check(E, e, Y, H, n, 1, rng)
                    con.generic_fit(E, e, Y, H, n, P["gen_scales"], P["gen_draws"], rng)
        timed("generic weights vs construction", generic)
    if "prop2" in parts:
        def prop2():
            for H in P["prop2_H"]:
                B = H * (n - 1) + 1
                for dh in P["prop2_dh"]:
                    for sc in P["prop2_scales"]:
                        for _ in range(P["prop2_draws"]):
                            E, e = mha.uniform_data(3 * B, n, d, rng)
                            mha.singular_values(mha.features(E, e, *mha.random_heads(H, d, dh, sc, rng)))
        timed("Proposition 2 draws", prop2)
    if "vit" in parts:
        def vit():
            for src in P["vit_images"]:
                x, _ = mha_vit.load_images(src, P["vit_T"], P["vit_img"], rng, P["vit_image_dir"])
                m = mha_vit.TinyViT(x.shape[1], P["vit_img"], P["vit_patch"], P["vit_d"], P["vit_heads"], P["vit_mlp"])
                tr = None
                if src == "digits" and P["vit_train_epochs"]:
                    xt, yt = mha_vit.load_images("digits", 1797, P["vit_img"], rng)
                    tr = mha_vit.TinyViT(1, P["vit_img"], P["vit_patch"], P["vit_d"], P["vit_heads"], P["vit_mlp"])
                    mha_vit.train_proxy(tr, xt, yt, P["vit_train_epochs"])
                mha_vit.assumption_table(mha_vit.representations(m, x, tr), P["vit_trials"], rng)
        timed("ViT assumption tests", vit)
    if "appj" in parts:
        def table3():
            c = appj._config(P)
            appj.table3_random(c["appj_models"], c["appj_n"], c["appj_T"], c["appj_trials"], c["appj_gp_trials"],
                               c["appj_a2_examples"], P["seed"], c["appj_zipf"])
        timed("App. J Table 3 (random)", table3)
    if "gd" in parts:
        for k in mha_gd.SWEEPS:
            if k in P["gd_sweeps"]:
                timed(f"GD sweep {k}", lambda k=k: mha_gd.run_sweep(k, P, torch.device("cpu")))
    print(f"{'total':28s} {total:7.1f} s")


if __name__ == "__main__":
    main()
