#!/usr/bin/env python3
"""Compare the strong baselines of recs with their usual Python peers on the same data, in
the same run:

- EASE (lambda = 500): numpy's closed form, B = I - P diagMat(1 / diag P) with
  P = inv(X^T X + lambda I) by `np.linalg.inv`, on the binary matrix;
- SLIM (alpha = 0.1, l1_ratio = 0.03, tol = 1e-4, at most 100 passes): scikit-learn's
  `ElasticNet(positive=True, fit_intercept=False)` fitted item by item with the item's own
  column zeroed, the usual reference implementation, in one process per core;
- BPR-MF (64 factors and an item bias, learning rate 0.05, lambda 0.0025): the `implicit`
  package's BPR, per epoch (an epoch is as many sampled triples as training events in
  both), on one thread and on every core.

The matrices are those of the criterion bench of `recs-models-strong` (`benches/strong.rs`):
the synthetic MovieLens-100K-size and MovieLens-1M-size matrices of `recs-models-latent`'s
bench, and MovieLens 100K itself (SLIM). The script runs the criterion bench with
`RECS_BENCH_EXPORT` set, so that it writes the matrices it times; the peers are then timed
on those files (best of `--runs`), and our times are the criterion means.

With `--quality`, BPR's NDCG@10 is also set beside `implicit`'s as a user sees it: an
80/20 split of every user's MovieLens 100K ratings (`recs split`), the top 100 unseen
items per user (`recs score --top 100` and `implicit`'s `recommend`), scored by `recs eval`
against every held-out rating as relevant. The two parametrise their steps differently (at
our defaults `implicit` overfits), so both run the same grid of learning rate, lambda and
epochs on one split, and each its best setting on three; the comparison is descriptive.

Usage:
    python3 tools/bench_strong.py [--target-dir DIR] [--skip-cargo] [--runs 3] [--quality]
"""
import multiprocessing
import os
import pathlib
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from bench_latent import (  # noqa: E402
    best_of, load, ours, peer_arguments, row, single_threaded_blas, try_import)

CRITERION_ARGS = ["--warm-up-time", "1", "--measurement-time", "3"]
EASE_LAMBDA = 500.0
SLIM = dict(alpha=0.1, l1_ratio=0.03, tol=1e-4, max_iter=100)
BPR = dict(factors=64, learning_rate=0.05, regularization=0.0025)


def run_criterion(target_dir, export_dir):
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir), RECS_BENCH_EXPORT=str(export_dir))
    command = ["cargo", "bench", "-p", "recs-models-strong", "--bench", "strong", "--",
               *CRITERION_ARGS]
    print("$", " ".join(command), flush=True)
    subprocess.run(command, check=True, env=env)


def binary(matrix):
    out = matrix.copy()
    out.data[:] = 1.0
    return out


def ease_numpy(np, matrix):
    gram = (matrix.T @ matrix).toarray()
    gram[np.diag_indices_from(gram)] += EASE_LAMBDA
    inverse = np.linalg.inv(gram)
    weights = inverse / -np.diag(inverse)
    weights[np.diag_indices_from(weights)] = 0.0
    return weights


# SLIM's columns in worker processes: each worker holds its own copy of the matrix.
_SLIM_MATRIX = None


def _slim_init(matrix):
    global _SLIM_MATRIX
    _SLIM_MATRIX = matrix.tocsc(copy=True)


def _slim_columns(items):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import ElasticNet

    matrix = _SLIM_MATRIX
    model = ElasticNet(positive=True, fit_intercept=False, copy_X=False, precompute=True,
                       selection="cyclic", **SLIM)
    nonzero = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for j in items:
            target = matrix[:, j].toarray().ravel()
            start, end = matrix.indptr[j], matrix.indptr[j + 1]
            saved = matrix.data[start:end].copy()
            matrix.data[start:end] = 0.0
            model.fit(matrix, target)
            matrix.data[start:end] = saved
            nonzero += int((model.coef_ > 0).sum())
    return nonzero


def slim_sklearn(matrix, processes):
    items = list(range(matrix.shape[1]))
    chunks = [items[k::processes] for k in range(processes)]
    with multiprocessing.get_context("fork").Pool(processes, _slim_init, (matrix,)) as pool:
        return sum(pool.map(_slim_columns, chunks))


def bpr_implicit(np, matrix, threads, epochs, seed, **overrides):
    from implicit.cpu.bpr import BayesianPersonalizedRanking

    model = BayesianPersonalizedRanking(iterations=epochs, num_threads=threads,
                                        random_state=seed, verify_negative_samples=True,
                                        **dict(BPR, **overrides))
    with single_threaded_blas():
        model.fit(matrix.astype(np.float32).tocsr(), show_progress=False)
    return model


def timings(args, np, sp, implicit, target_dir, export_dir):
    cores = os.cpu_count()
    print(f"{'bench':56} {'peer (s)':>10} {'recs (s)':>10} {'peer/recs':>10}")
    for name in ["ml100k-size", "ml1m-size"]:
        path = export_dir / f"{name}.tsv"
        if not path.exists():
            print(f"skip {name}: {path} is missing (run without --skip-cargo)")
            continue
        matrix = binary(load(np, sp, path))
        peer = best_of(args.runs, lambda: ease_numpy(np, matrix))
        row(f"{name}/ease-500/fit vs numpy inv", peer, ours(target_dir, f"{name}/ease-500/fit"))
        if implicit is None:
            continue
        mine = ours(target_dir, f"{name}/bpr-64/fit-1-epoch")
        for threads in sorted({1, cores}):
            peer = best_of(args.runs, lambda: bpr_implicit(np, matrix, threads, 1, 1))
            row(f"{name}/bpr-64/fit-1-epoch vs implicit ({threads} thr.)", peer, mine)
    path = export_dir / "ml100k.tsv"
    if path.exists():
        matrix = binary(load(np, sp, path))
        peer = best_of(args.runs, lambda: slim_sklearn(matrix, cores))
        row(f"ml100k/slim/fit vs sklearn ElasticNet ({cores} proc.)", peer,
            ours(target_dir, "ml100k/slim/fit"))
    else:
        print(f"skip SLIM: {path} is missing (RECS_DATA_DIR unset when the bench ran?)")


def recs_binary(target_dir):
    """The `recs` command of the release build, else of the (optimised) dev build."""
    for profile in ("release", "debug"):
        path = pathlib.Path(target_dir) / profile / "recs"
        if path.exists():
            return path
    raise SystemExit(f"no recs binary under {target_dir}: run `cargo build --bin recs` first")


def recs(target_dir, *arguments):
    command = [str(recs_binary(target_dir)), *arguments]
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def read_tsv(path):
    with open(path) as handle:
        return [line.split("\t")[:2] for line in handle if line.strip()]


# The grid both libraries run in `--quality`: (learning rate, lambda, epochs).
GRID = [(lr, reg, epochs) for lr in (0.005, 0.01, 0.05) for reg in (0.001, 0.01)
        for epochs in (30, 100)]


class Split:
    """One `recs split` of MovieLens 100K: its files, and the training matrix as `implicit`
    takes it (users and items in numeric order of their ids)."""

    def __init__(self, np, sp, target_dir, folder, seed):
        self.target_dir, self.folder = target_dir, folder
        recs(target_dir, "split", "--dataset", "ml-100k", "--protocol", "leave-k-out",
             "--k", "20%", "--seed", str(seed), "--out", str(folder))
        train, test = read_tsv(folder / "train.tsv"), read_tsv(folder / "test.tsv")
        self.qrels = folder / "qrels.tsv"
        self.qrels.write_text("".join(f"{u}\t{i}\t1\n" for u, i in test))
        self.users = sorted({u for u, _ in train}, key=int)
        self.items = sorted({i for _, i in train}, key=int)
        user_index = {u: k for k, u in enumerate(self.users)}
        item_index = {i: k for k, i in enumerate(self.items)}
        rows = [user_index[u] for u, _ in train]
        cols = [item_index[i] for _, i in train]
        self.matrix = sp.csr_matrix((np.ones(len(rows)), (rows, cols)),
                                    shape=(len(self.users), len(self.items)))

    def ndcg(self, run):
        """NDCG@10 of a run of top-100 lists: its items are the candidates, and a held-out
        item outside a list still counts in the ideal DCG."""
        import json

        out = recs(self.target_dir, "eval", "--qrels", str(self.qrels), "--run", str(run),
                   "--candidates", "run", "--metrics", "ndcg@10", "--json", "--quiet")
        return json.loads(out)["ndcg@10"]

    def ours(self, lr, reg, epochs, seed):
        run = self.folder / "recs.tsv"
        recs(self.target_dir, "score", "--train", str(self.folder / "train.tsv"), "--model",
             "bpr", "--param", f"learning_rate={lr}", "--param", f"lambda={reg}", "--param",
             f"epochs={epochs}", "--seed", str(seed), "--top", "100", "--out", str(run))
        return self.ndcg(run)

    def implicit(self, np, lr, reg, epochs, seed):
        model = bpr_implicit(np, self.matrix, os.cpu_count(), epochs, seed,
                             learning_rate=lr, regularization=reg)
        ids, scores = model.recommend(np.arange(len(self.users)),
                                      self.matrix.astype(np.float32), N=100,
                                      filter_already_liked_items=True)
        run = self.folder / "implicit.tsv"
        with open(run, "w") as handle:
            for u, (row_ids, row_scores) in enumerate(zip(ids, scores)):
                for i, score in zip(row_ids, row_scores):
                    handle.write(f"{self.users[u]}\t{self.items[i]}\t{score:.9g}\n")
        return self.ndcg(run)


def quality(np, sp, target_dir):
    """NDCG@10 of ours and of `implicit`'s BPR as a user sees it. Descriptive: the two
    libraries parametrise their steps differently, so one setting is not the same model in
    both. Each runs the same grid on one split, and each at its best setting on three."""
    with tempfile.TemporaryDirectory() as tmp:
        first = Split(np, sp, target_dir, pathlib.Path(tmp) / "split-1", 1)
        best = {}
        print(f"{'learning rate':>14} {'lambda':>8} {'epochs':>7} {'recs':>8} {'implicit':>9}")
        for lr, reg, epochs in GRID:
            values = {"recs": first.ours(lr, reg, epochs, 1),
                      "implicit": first.implicit(np, lr, reg, epochs, 1)}
            print(f"{lr:14} {reg:8} {epochs:7} {values['recs']:8.4f} {values['implicit']:9.4f}",
                  flush=True)
            for name, value in values.items():
                if name not in best or value > best[name][0]:
                    best[name] = (value, (lr, reg, epochs))
        print("best on split 1 (chosen on its test part: optimistic for both alike):")
        splits = [first] + [Split(np, sp, target_dir, pathlib.Path(tmp) / f"split-{seed}", seed)
                            for seed in (2, 3)]
        for name, (_, (lr, reg, epochs)) in best.items():
            values = [split.ours(lr, reg, epochs, seed) if name == "recs"
                      else split.implicit(np, lr, reg, epochs, seed)
                      for seed, split in zip((1, 2, 3), splits)]
            print(f"  {name}: learning rate {lr}, lambda {reg}, {epochs} epochs: NDCG@10 "
                  f"{np.mean(values):.4f} (sd {np.std(values, ddof=1):.4f}) over seeds 1-3: "
                  f"{', '.join(f'{v:.4f}' for v in values)}")


def main():
    parser = peer_arguments()
    parser.add_argument("--quality", action="store_true",
                        help="also compare BPR's NDCG@10 with implicit's (needs RECS_DATA_DIR "
                             "and a build of the recs command)")
    args = parser.parse_args()
    target_dir = pathlib.Path(args.target_dir).resolve()
    export_dir = target_dir / "bench-strong-data"
    np = try_import("numpy")
    scipy = try_import("scipy")
    sklearn = try_import("sklearn")
    if np is None or scipy is None or sklearn is None:
        return 1
    import scipy.sparse as sp
    implicit = try_import("implicit")
    if not args.skip_cargo:
        run_criterion(target_dir, export_dir)
    print(f"numpy {np.__version__}, scipy {scipy.__version__}, scikit-learn "
          f"{sklearn.__version__}, implicit {implicit.__version__ if implicit else 'absent'}, "
          f"{os.cpu_count()} cores")
    timings(args, np, sp, implicit, target_dir, export_dir)
    if args.quality and implicit is not None:
        quality(np, sp, target_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
