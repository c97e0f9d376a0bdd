#!/usr/bin/env python3
"""Compare the latent models of recs with their usual Python peers on the same data, in
the same run: scipy's `svds` against PureSVD, and the `implicit` package's ALS against
implicit ALS (`ials`).

The data is MovieLens 100K (`$RECS_DATA_DIR/ml-100k/u.data`) and a synthetic
MovieLens-1M-size matrix (6,040 x 3,706, 10^6 events). Our timings come from the criterion
bench of `recs-models-latent` (run just before, same machine), read from
`target/criterion/**/new/estimates.json`; the peers are timed here. Missing peers (not
installed and not installable) are reported and skipped.

Usage:
    cargo bench -p recs-models-latent -- --warm-up-time 1 --measurement-time 3
    python3 tools/bench_latent.py [--target-dir target]
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time


def try_import(name, pip_name=None):
    try:
        return __import__(name)
    except ImportError:
        try:
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", pip_name or name],
                           check=True, capture_output=True, timeout=600)
            return __import__(name)
        except Exception as error:  # noqa: BLE001 - any failure means "skip this peer"
            print(f"skip: {pip_name or name} unavailable ({error.__class__.__name__})")
            return None


def best_of(runs, function):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def synthetic(np, sp, users, items, events, seed):
    """Same shape of skew as the Rust bench (not the same draws)."""
    rng = np.random.default_rng(seed)
    pairs = set()
    rows, cols = [], []
    while len(rows) < events:
        u = (users * rng.random(events) ** 1.6).astype(np.int64) % users
        i = (items * rng.random(events) ** 2.2).astype(np.int64) % items
        for a, b in zip(u.tolist(), i.tolist()):
            if (a, b) not in pairs:
                pairs.add((a, b))
                rows.append(a)
                cols.append(b)
                if len(rows) == events:
                    break
    values = np.floor(rng.random(events) * 5).clip(0, 4) + 1
    return sp.csr_matrix((values, (rows, cols)), shape=(users, items))


def movielens(np, sp):
    root = os.environ.get("RECS_DATA_DIR")
    if not root:
        return None
    data = np.loadtxt(pathlib.Path(root) / "ml-100k" / "u.data", dtype=np.int64)
    users, items = data[:, 0] - 1, data[:, 1] - 1
    return sp.csr_matrix((data[:, 2].astype(float), (users, items)))


def ours(target_dir, name):
    path = pathlib.Path(target_dir) / "criterion" / name / "new" / "estimates.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())["mean"]["point_estimate"] / 1e9


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--target-dir", default=os.environ.get("CARGO_TARGET_DIR", "target"))
    args = parser.parse_args()
    np = try_import("numpy")
    scipy = try_import("scipy")
    if np is None or scipy is None:
        return 1
    import scipy.sparse as sp
    from scipy.sparse.linalg import svds
    implicit = try_import("implicit")

    datasets = [("ml1m-size", synthetic(np, sp, 6040, 3706, 1_000_000, 2))]
    ml = movielens(np, sp)
    datasets.insert(0, ("ml100k-size", ml if ml is not None else
                        synthetic(np, sp, 943, 1682, 100_000, 1)))
    print(f"{'bench':45} {'peer (s)':>10} {'recs (s)':>10} {'peer/recs':>10}")
    for name, matrix in datasets:
        matrix = matrix.astype(np.float64)
        peer = best_of(3, lambda: svds(matrix, k=50))
        row(f"{name}/puresvd-50/fit vs scipy svds", peer, ours(args.target_dir, f"{name}_puresvd-50_fit"))
        if implicit is not None:
            from implicit.als import AlternatingLeastSquares
            conf = (matrix * 40.0).tocsr()  # c - 1 = alpha r, as in our `ials`

            def fit():
                model = AlternatingLeastSquares(factors=20, regularization=0.1, iterations=3,
                                                use_gpu=False, random_state=1)
                model.fit(conf, show_progress=False)
            peer = best_of(3, fit)
            row(f"{name}/ials-20/fit-3-sweeps vs implicit", peer,
                ours(args.target_dir, f"{name}_ials-20_fit-3-sweeps"))
    return 0


def row(label, peer, mine):
    ratio = f"{peer / mine:10.2f}" if mine else f"{'n/a':>10}"
    mine_text = f"{mine:10.4f}" if mine else f"{'n/a':>10}"
    print(f"{label:45} {peer:10.4f} {mine_text} {ratio}")


if __name__ == "__main__":
    sys.exit(main())
