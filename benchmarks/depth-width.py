"""Time the hot parts of the depth-width chapter at its book preset (a script, not a test).

    .venv/bin/python benchmarks/depth-width.py [--skip-lm] [--preset book]

1. the exact-rank method: FLINT nmod_mat vs our own vectorised elimination vs (unsound) float64 SVD, on
   evaluation matrices of growing size;
2. the evaluation-matrix construction (the S-form in GF(p)) vs the layer-by-layer network;
3. the whole rank grid and the Proposition 1 checks of the preset;
4. one LM pair (the preset's two depths at its largest size).
Times depend on the load of the machine: note `uptime` beside them.
"""
from __future__ import annotations

import argparse
import os
import time

import numpy as np
import torch

from lib.chapters.depth_width.theory import rankgrid as dw_checks
from lib.chapters.depth_width import train as lm
from lib.chapters.depth_width.theory import seprank as sr
from lib.core import params


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="book")
    ap.add_argument("--skip-lm", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    P = params.load("depth-width").resolve(a.preset)
    print(f"load average: {os.getloadavg()}")

    print("\n1. exact rank of a K x K evaluation matrix (d_x=6, L=2, N=4; true rank 385)")
    g = torch.Generator().manual_seed(0)
    W = sr.random_weights(6, 2, 1, g)
    for K in (200, 400, 800):
        SP, xi = sr.side_configs(g, K, 2, 6)
        SQ, _ = sr.side_configs(g, K, 2, 6)
        M, t_eval = timed(lambda: sr.eval_block(W, SP, xi, SQ).numpy())
        r1, t1 = timed(lambda: sr.rank_modp(M))
        r2, t2 = timed(lambda: sr.rank_modp_numpy(M))
        (_, fr), t3 = timed(lambda: (None, np.linalg.matrix_rank(M)))
        print(f"  K={K:4d}: build {t_eval:6.2f} s | FLINT {t1:6.3f} s (rank {r1}) | ours {t2:6.3f} s (rank {r2}) "
              f"| float SVD {t3:6.3f} s (rank {fr}, meaningless: entries are residues mod p)")

    print("\n2. evaluation: S-form block vs the layer-by-layer network, K=150, d_x=3, L=2, N=4")
    W = sr.random_weights(3, 2, 1, g)
    SP, xi = sr.side_configs(g, 150, 2, 3)
    SQ, _ = sr.side_configs(g, 150, 2, 3)
    _, t_s = timed(lambda: sr.eval_block(W, SP, xi, SQ))
    _, t_r = timed(lambda: sr.eval_matrix_raw(W, 4, [0, 1], 150, g))
    print(f"  S-form {t_s:.3f} s, layer by layer {t_r:.3f} s")

    print(f"\n3. the rank grid of preset '{a.preset}'")
    cases = dw_checks.expand_cases(P["rank_cases"])
    rows, t_grid = timed(lambda: dw_checks.measure_grid(cases, seeds=P["rank_seeds"], K_max=P["rank_K_max"],
                                                 log=lambda s: None))
    slow = sorted(rows, key=lambda r: -r["seconds"])[:5]
    print(f"  {len(rows)} cases in {t_grid:.1f} s (evaluation {sum(r['t_eval'] for r in rows):.1f} s, "
          f"FLINT {sum(r['t_rank'] for r in rows):.1f} s); slowest: " +
          ", ".join(f"{r['case'].d_x},{r['case'].L},{r['case'].H},N{r['case'].N}: {r['rank']} in {r['seconds']:.1f} s"
                    for r in slow))
    _, t_p1 = timed(lambda: [dw_checks.prop1_check(c) for c in dw_checks.expand_cases(P["prop1_cases"])])
    print(f"  Proposition 1 checks: {t_p1:.1f} s")

    if not a.skip_lm:
        print("\n4. one LM pair at the largest size")
        (ids, info), t_tok = timed(lambda: lm.tokenized(P["lm_vocab"], P["corpus_path"]))
        print(f"  tokenizer+ids: {t_tok:.1f} s ({'cached' if info['cached'] else 'trained'})")
        res, t_lm = timed(lambda: lm.run_grid(P["lm_depths"][:2], [max(P["lm_sizes"])], ids, P["lm_vocab"],
                                              T=P["lm_seq"], batch=P["lm_batch"], steps=P["lm_steps"],
                                              lr=P["lm_lr"], eval_batches=P["lm_eval_batches"], log=lambda s: None))
        print(f"  pair {P['lm_depths'][:2]} at {max(P['lm_sizes']):.0e}: {t_lm:.1f} s "
              f"({', '.join(f'L={r.L}: {r.seconds:.1f} s' for r in res)})")


if __name__ == "__main__":
    main()
