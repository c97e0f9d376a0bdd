#!/usr/bin/env python3
"""The Python package against ranx on frames already in memory, in one run.

    pip install ./python ranx
    python3 tools/bench_python.py [N_USERS N_ITEMS]

The workload has the shape of MovieLens latest-small evaluated on the full catalog:
every user × every item is a candidate (610 × 9,742 = 5.94 M rows by default), each
user with 5-60 relevant items graded 1-5, scores distinct within a user (so that both
tools rank the same order). The frames (`user`, `item`, `grade` / `score`, ids as
strings, the object dtype ranx asks for) are built first; then each side turns them into
its own qrels and run and computes NDCG@10, P@10, R@10 and MAP under the TREC
convention ranx assumes (`candidates="run"`). ranx's numba code is compiled by a warm-up
call on a tiny input first (timed apart). Prints both sides' values, their largest
difference, the times and the ratio.
"""

import sys
import time

import numpy as np
import pandas as pd

import ranx
import recs

RECS_METRICS = ["ndcg@10", "p@10", "r@10", "map"]
RANX_METRICS = ["ndcg@10", "precision@10", "recall@10", "map"]


def frames(n_users, n_items, seed=0):
    rng = np.random.default_rng(seed)
    users = np.repeat(np.arange(n_users), n_items)
    items = np.tile(np.arange(n_items), n_users)
    # Distinct scores within a user: a permutation of the catalog, scaled below 1.
    order = np.argsort(rng.random((n_users, n_items)), axis=1).ravel()
    scores = (order.astype(np.float32) + 1) / np.float32(n_items + 1)
    run = pd.DataFrame(
        {
            "user": pd.Series(users.astype(str), dtype=object),
            "item": pd.Series(items.astype(str), dtype=object),
            "score": scores.astype(np.float64),
        }
    )
    q_users, q_items, q_grades = [], [], []
    for u in range(n_users):
        n = int(rng.integers(5, 61))
        chosen = rng.choice(n_items, size=n, replace=False)
        q_users += [str(u)] * n
        q_items += [str(i) for i in chosen]
        q_grades += list(rng.integers(1, 6, size=n))
    qrels = pd.DataFrame(
        {
            "user": pd.Series(q_users, dtype=object),
            "item": pd.Series(q_items, dtype=object),
            "grade": np.asarray(q_grades, dtype=np.int64),
        }
    )
    return qrels, run


def with_ranx(qrels, run):
    start = time.perf_counter()
    q = ranx.Qrels.from_df(qrels, q_id_col="user", doc_id_col="item", score_col="grade")
    r = ranx.Run.from_df(run, q_id_col="user", doc_id_col="item", score_col="score")
    built = time.perf_counter()
    values = ranx.evaluate(q, r, RANX_METRICS)
    done = time.perf_counter()
    return {k: float(v) for k, v in values.items()}, built - start, done - built


def with_recs(qrels, run):
    start = time.perf_counter()
    q = recs.Qrels.from_df(qrels)
    r = recs.Run.from_df(run)
    built = time.perf_counter()
    values = recs.evaluate(q, r, RECS_METRICS, candidates="run")
    done = time.perf_counter()
    return values, built - start, done - built


def main():
    n_users, n_items = (int(a) for a in sys.argv[1:3]) if len(sys.argv) > 2 else (610, 9742)
    qrels, run = frames(n_users, n_items)
    print(f"{n_users} users x {n_items} items = {len(run):,} candidates, {len(qrels):,} relevant pairs")
    start = time.perf_counter()
    tiny_q = ranx.Qrels({"u": {"a": 1}})
    tiny_r = ranx.Run({"u": {"a": 0.5, "b": 0.1}})
    ranx.evaluate(tiny_q, tiny_r, RANX_METRICS)
    warm = time.perf_counter() - start
    theirs, ranx_build, ranx_eval = with_ranx(qrels, run)
    ours, recs_build, recs_eval = with_recs(qrels, run)
    diff = max(abs(ours[a] - theirs[b]) for a, b in zip(RECS_METRICS, RANX_METRICS))
    for a, b in zip(RECS_METRICS, RANX_METRICS):
        print(f"{a:<8} recs {ours[a]:.12f}  ranx {theirs[b]:.12f}")
    print(f"largest difference {diff:.2e}")
    ranx_total, recs_total = ranx_build + ranx_eval, recs_build + recs_eval
    print(f"ranx: warm-up {warm:.2f} s (not counted), from_df {ranx_build:.2f} s, evaluate {ranx_eval:.2f} s, total {ranx_total:.2f} s")
    print(f"recs: from_df {recs_build:.2f} s, evaluate {recs_eval:.2f} s, total {recs_total:.2f} s")
    print(f"ratio (ranx / recs, frames to numbers): {ranx_total / recs_total:.1f}x")


if __name__ == "__main__":
    main()
