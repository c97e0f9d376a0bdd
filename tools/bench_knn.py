#!/usr/bin/env python3
"""Compare fitting item-kNN (cosine, k neighbours per item) in recs with a peer library.

The peer is `implicit`'s `CosineRecommender` (item-item cosine over the rating values,
top-K per item, C++). Both sides run in the same invocation on the same data, with the
same number of threads, and the script prints the median fit times and their ratios.
(LensKit's item-kNN would be the other natural peer; it pulls in PyTorch, so it is not
tried here.)

Data sets:
  - MovieLens 100K `u.data` from $RECS_DATA_DIR/ml-100k (skipped when absent);
  - a synthetic power-law set of about 1M events, 6,040 users x 3,706 items (the shape of
    MovieLens 1M), generated here with a fixed seed.

Usage:
  RECS_DATA_DIR=/path/to/data python3 tools/bench_knn.py [--k 20] [--repeats 5] [--threads 2]

The recs side is timed by `cargo run --release -p recs-models-knn --example fit_knn`
(the build is not timed). Install the peer with `pip install implicit scipy numpy`.
"""

import argparse
import warnings
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parent.parent


def load_ml100k():
    data_dir = os.environ.get("RECS_DATA_DIR")
    if not data_dir:
        print("RECS_DATA_DIR is not set: skipping MovieLens 100K", file=sys.stderr)
        return None
    path = Path(data_dir) / "ml-100k" / "u.data"
    raw = np.loadtxt(path, dtype=np.int64, delimiter="\t")
    return raw[:, 0] - 1, raw[:, 1] - 1, raw[:, 2].astype(np.float32)


def synthetic(n_users=6040, n_items=3706, target=1_000_000, seed=7):
    """Power-law item popularity and user activity, distinct pairs, ratings 1-5."""
    rng = np.random.default_rng(seed)
    popularity = 1.0 / np.arange(10, n_items + 10) ** 0.9
    popularity /= popularity.sum()
    activity = 1.0 / np.arange(20, n_users + 20) ** 0.7
    counts = np.clip((target * activity / activity.sum()).astype(int), 20, n_items // 2)
    users, items = [], []
    for user, count in enumerate(counts):
        chosen = rng.choice(n_items, size=count, replace=False, p=popularity)
        users.append(np.full(count, user))
        items.append(chosen)
    users = np.concatenate(users)
    items = np.concatenate(items)
    ratings = rng.integers(1, 6, size=len(users)).astype(np.float32)
    return users, items, ratings


def write_triples(path, triples):
    users, items, ratings = triples
    with open(path, "w") as out:
        for u, i, r in zip(users.tolist(), items.tolist(), ratings.tolist()):
            out.write(f"{u}\t{i}\t{r:g}\n")


def run_recs(path, k, repeats, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    command = [
        "cargo", "run", "--quiet", "--release", "-p", "recs-models-knn",
        "--example", "fit_knn", "--", str(path), str(k), str(repeats), "cosine",
    ]
    result = subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True)
    return json.loads(result.stdout.strip().splitlines()[-1])


def run_implicit(triples, k, repeats, threads):
    try:
        from implicit.nearest_neighbours import CosineRecommender
    except ImportError as error:
        print(f"implicit is not installed ({error})", file=sys.stderr)
        return None
    users, items, ratings = triples
    matrix = sp.csr_matrix((ratings, (users, items)), dtype=np.float32)
    times = []
    for _ in range(repeats):
        model = CosineRecommender(K=k, num_threads=threads)
        start = time.perf_counter()
        model.fit(matrix, show_progress=False)
        times.append(time.perf_counter() - start)
    return {"fit_seconds": statistics.median(times), "neighbour_pairs": int(model.similarity.nnz)}


def main():
    warnings.filterwarnings("ignore")
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    sets = []
    ml = load_ml100k()
    if ml is not None:
        sets.append(("ml-100k", ml))
    sets.append(("synthetic-1M", synthetic()))

    print(f"item-kNN fit, cosine, k={args.k}, threads={args.threads}, median of {args.repeats}")
    print(f"{'data':<14}{'events':>9}{'pairs':>8}{'recs s':>10}{'implicit s':>12}{'ratio':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, triples in sets:
            path = Path(tmp) / f"{name}.tsv"
            write_triples(path, triples)
            ours = run_recs(path, args.k, args.repeats, args.threads)
            peer = run_implicit(triples, args.k, args.repeats, args.threads)
            cells = [f"{name:<14}", f"{ours['events']:>9}", f"{ours['neighbour_pairs']:>8}"]
            cells.append(f"{ours['fit_seconds']:>10.4f}")
            if peer is None:
                cells += [f"{'-':>12}", f"{'-':>8}"]
            else:
                ratio = peer["fit_seconds"] / ours["fit_seconds"]
                cells += [f"{peer['fit_seconds']:>12.4f}", f"{ratio:>7.2f}x"]
            print("".join(cells))
    print("ratio = peer time / recs time (above 1: recs is faster)")


if __name__ == "__main__":
    main()
