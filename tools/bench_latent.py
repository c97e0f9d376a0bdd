#!/usr/bin/env python3
"""Compare the latent models of recs with their usual Python peers on the same data, in
the same run: scipy's `svds` against PureSVD (rank 50), and the `implicit` package's ALS
against implicit ALS (`ials`, 20 factors, alpha = 40, 3 sweeps; `implicit` with its default
conjugate-gradient solver and with exact Cholesky solves).

The data are the two synthetic matrices of the criterion bench of `recs-models-latent`
(`benches/latent.rs`): MovieLens-100K size (943 x 1,682, 10^5 events) and MovieLens-1M
size (6,040 x 3,706, 10^6 events). The script runs the needed criterion benches with
`RECS_BENCH_EXPORT` set, so the bench writes the matrices it times; the peers are then
timed on those files (best of `--runs`), and our times are the criterion means read from
`<target>/criterion/<bench>/new/estimates.json`. A peer that is not installed is
reported and skipped.

Usage:
    python3 tools/bench_latent.py [--target-dir DIR] [--skip-cargo] [--runs 3]

With `--skip-cargo` the criterion results and exported matrices of an earlier run are
used.
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import time

DATASETS = ["ml100k-size", "ml1m-size"]
CRITERION_FILTER = "puresvd-50/fit|ials-20/fit"
CRITERION_ARGS = ["--warm-up-time", "1", "--measurement-time", "3"]


def try_import(name):
    try:
        return __import__(name)
    except ImportError as error:
        print(f"skip: {name} is not installed ({error})")
        return None


def single_threaded_blas():
    """BLAS limited to one thread where threadpoolctl is installed (what `implicit` asks
    for), else a no-op context."""
    try:
        from threadpoolctl import threadpool_limits
        return threadpool_limits(1, "blas")
    except ImportError:
        import contextlib
        return contextlib.nullcontext()


def best_of(runs, function):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def load(np, sp, path):
    """A matrix exported by the bench: a `# users items` header, then user, item, rating."""
    with open(path) as handle:
        users, items = map(int, handle.readline().lstrip("#").split())
        data = np.loadtxt(handle, dtype=np.float64, ndmin=2)
    rows, cols = data[:, 0].astype(np.int64), data[:, 1].astype(np.int64)
    return sp.csr_matrix((data[:, 2], (rows, cols)), shape=(users, items))


def ours(target_dir, bench):
    """Mean time in seconds of a criterion bench (ids with '/' are stored with '_')."""
    path = pathlib.Path(target_dir) / "criterion" / bench.replace("/", "_") / "new" / "estimates.json"
    if not path.exists():
        return None
    return json.loads(path.read_text())["mean"]["point_estimate"] / 1e9


def run_criterion(target_dir, export_dir):
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir), RECS_BENCH_EXPORT=str(export_dir))
    command = ["cargo", "bench", "-p", "recs-models-latent", "--bench", "latent", "--",
               CRITERION_FILTER, *CRITERION_ARGS]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, env=env)


def row(label, peer, mine):
    ratio = f"{peer / mine:10.2f}" if mine else f"{'n/a':>10}"
    mine_text = f"{mine:10.4f}" if mine else f"{'n/a':>10}"
    print(f"{label:56} {peer:10.4f} {mine_text} {ratio}", flush=True)


def peer_arguments():
    """The options every peer-comparison script takes."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--target-dir", default=os.environ.get("CARGO_TARGET_DIR", "target"))
    parser.add_argument("--skip-cargo", action="store_true",
                        help="reuse the criterion results and matrices of an earlier run")
    parser.add_argument("--runs", type=int, default=3, help="peer timings: best of this many")
    return parser


def main():
    args = peer_arguments().parse_args()
    target_dir = pathlib.Path(args.target_dir).resolve()
    export_dir = target_dir / "bench-latent-data"
    np = try_import("numpy")
    scipy = try_import("scipy")
    if np is None or scipy is None:
        return 1
    import scipy.sparse as sp
    from scipy.sparse.linalg import svds
    implicit = try_import("implicit")
    if not args.skip_cargo:
        run_criterion(target_dir, export_dir)

    threads = os.cpu_count()
    print(f"numpy {np.__version__}, scipy {scipy.__version__}, implicit "
          f"{implicit.__version__ if implicit else 'absent'}, {threads} cores")
    print(f"{'bench':56} {'peer (s)':>10} {'recs (s)':>10} {'peer/recs':>10}")
    for name in DATASETS:
        path = export_dir / f"{name}.tsv"
        if not path.exists():
            print(f"skip {name}: {path} is missing (run without --skip-cargo)")
            continue
        matrix = load(np, sp, path)
        svd_peer = best_of(args.runs, lambda: svds(matrix, k=50, random_state=1))
        row(f"{name}/puresvd-50/fit vs scipy svds", svd_peer, ours(target_dir, f"{name}/puresvd-50/fit"))
        if implicit is None:
            continue
        from implicit.cpu.als import AlternatingLeastSquares

        # Both use confidence c = 1 + alpha r with alpha = 40 (`implicit` scales the matrix
        # it is given by `alpha`). `implicit` solves each row by three conjugate-gradient
        # steps by default; `use_cg=False` solves exactly by Cholesky, as ours does.
        ratings = matrix.astype(np.float32).tocsr()

        def fit_implicit(use_cg):
            # `implicit` parallelises over rows itself and asks for single-threaded BLAS.
            with single_threaded_blas():
                model = AlternatingLeastSquares(factors=20, regularization=0.1, alpha=40.0,
                                                iterations=3, use_cg=use_cg, random_state=1,
                                                calculate_training_loss=False)
                model.fit(ratings, show_progress=False)

        mine = ours(target_dir, f"{name}/ials-20/fit-3-sweeps")
        peer = best_of(args.runs, lambda: fit_implicit(True))
        row(f"{name}/ials-20/fit-3-sweeps vs implicit (CG)", peer, mine)
        peer = best_of(args.runs, lambda: fit_implicit(False))
        row(f"{name}/ials-20/fit-3-sweeps vs implicit (Cholesky)", peer, mine)
    return 0


if __name__ == "__main__":
    sys.exit(main())
