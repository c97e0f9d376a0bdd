#!/usr/bin/env python3
"""Time recs-metrics against scikit-learn and ranx on the same generated data, in the
same run, and print the speed ratios.

    pip install scikit-learn ranx pandas
    python3 tools/bench_metrics.py [--auc-pairs 10000000] [--auc-pairs 100000000]
                                   [--users 20000] [--candidates 100]

Pooled ROC AUC: sklearn.metrics.roc_auc_score vs recs_metrics::roc_auc.
Per-user metrics (P@10, R@10, NDCG@10, MAP, MRR): ranx.evaluate vs recs_metrics::evaluate.
Each side reports the best of three runs, timing only the computation (data already in
memory; ranx's numba code is compiled by a warm-up call first). The Rust side is the
example `bench_peer` of recs-metrics, built in release mode. Values are compared too.
"""

import argparse
import json
import os
import struct
import subprocess
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def best_of_three(f):
    best, out = float("inf"), None
    for _ in range(3):
        t = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t)
    return best, out


def rust(mode, path):
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.path.join(target, "release", "examples", "bench_peer")
    out = subprocess.run([exe, mode, path], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def build():
    subprocess.run(
        ["cargo", "build", "--release", "-p", "recs-metrics", "--example", "bench_peer"],
        cwd=ROOT,
        check=True,
    )


def bench_auc(n, rng, tmp):
    from sklearn.metrics import roc_auc_score

    labels = rng.random(n) < 0.2
    scores = (rng.random(n) + 0.2 * labels).astype(np.float32)
    path = os.path.join(tmp, "auc.bin")
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", n))
        f.write(scores.tobytes())
        f.write(labels.astype(np.uint8).tobytes())
    ours = rust("auc", path)
    theirs_time, theirs = best_of_three(lambda: roc_auc_score(labels, scores))
    print(
        f"roc_auc  {n:>11,} pairs  scikit-learn {theirs_time:8.3f} s  recs {ours['seconds']:8.3f} s"
        f"  ratio {theirs_time / ours['seconds']:6.1f}x  |diff| {abs(theirs - ours['roc_auc']):.1e}"
    )


def bench_ranking(users, candidates, rng, tmp):
    import pandas as pd
    from ranx import Qrels, Run, evaluate

    pairs = users * candidates
    grades = (rng.random(pairs) < 0.1).astype(np.float32) * rng.integers(1, 4, pairs)
    grades = grades.astype(np.float32)
    # Every user has a relevant candidate (ranx requires each qrels query to have one).
    grades[::candidates] = np.maximum(grades[::candidates], 1.0)
    # Distinct scores within each user (no ties: ranx breaks ties by input order).
    scores = np.concatenate([rng.permutation(candidates) for _ in range(users)]).astype(np.float32)
    scores = scores / np.float32(candidates) + np.float32(1.0) * (grades > 0) * (rng.random(pairs) < 0.5)
    scores = scores.astype(np.float32)
    lengths = np.full(users, candidates, dtype=np.uint32)
    path = os.path.join(tmp, "ranking.bin")
    with open(path, "wb") as f:
        f.write(struct.pack("<QQ", users, pairs))
        f.write(lengths.tobytes())
        f.write(grades.tobytes())
        f.write(scores.tobytes())
    ours = rust("ranking", path)

    q_ids = np.repeat(np.arange(users), candidates).astype(str).astype(object)
    d_ids = np.tile(np.arange(candidates), users).astype(str).astype(object)
    keep = grades > 0
    qrels = Qrels.from_df(
        pd.DataFrame(
            {
                "q_id": pd.Series(q_ids[keep], dtype=object),
                "doc_id": pd.Series(d_ids[keep], dtype=object),
                "score": grades[keep].astype(int),
            }
        ),
    )
    run = Run.from_df(
        pd.DataFrame(
            {
                "q_id": pd.Series(q_ids, dtype=object),
                "doc_id": pd.Series(d_ids, dtype=object),
                "score": scores.astype(float),
            }
        )
    )
    metrics = ["precision@10", "recall@10", "ndcg@10", "map", "mrr"]
    evaluate(qrels, run, metrics)  # numba warm-up
    theirs_time, theirs = best_of_three(lambda: evaluate(qrels, run, metrics))
    ours_keys = ["p@10", "r@10", "ndcg@10", "map", "mrr"]
    diff = max(abs(theirs[m] - ours[k]) for m, k in zip(metrics, ours_keys))
    print(
        f"ranking  {users:>7,} users x {candidates}  ranx {theirs_time:8.3f} s  recs {ours['seconds']:8.3f} s"
        f"  ratio {theirs_time / ours['seconds']:6.1f}x  max |diff| {diff:.1e}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--auc-pairs", type=int, action="append")
    parser.add_argument("--users", type=int, default=20000)
    parser.add_argument("--candidates", type=int, default=100)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    if not args.no_build:
        build()
    rng = np.random.default_rng(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.auc_pairs or [10_000_000]:
            bench_auc(n, rng, tmp)
        bench_ranking(args.users, args.candidates, rng, tmp)


if __name__ == "__main__":
    main()
