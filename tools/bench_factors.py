#!/usr/bin/env python3
"""Full-catalog evaluation of factors fitted outside recs: time and peak memory.

    python tools/bench_factors.py --recs target/release/recs --shape ml20m --out bench-ml20m
    python tools/bench_factors.py --recs target/release/recs --shape ml1m --out bench-ml1m

Needs the `recs` Python package (``maturin develop --release`` in python/) and, for the
peers of ``ml1m``, ranx. Each measured step runs in a process of its own, whose peak
resident memory (``ru_maxrss``) is the whole process's.

1. ``recs data synth`` writes power-law events at the shape (seed 1) and ``recs split``
   holds out 20% of each user's events (leave-k-out, seed 1).
2. ``recs.evaluate_factors`` evaluates random rank-64 numpy factors (seed 0) on the full
   catalog: roc, croc, ndcg@10, r@20, map. Time of the call alone; memory of the process.
   With ``FACTORS=puresvd``, PureSVD's factors computed by scipy instead (what ``recs
   run`` evaluates in step 3: the time of a ranking depends on where the relevant items
   rank, so random factors are not the same work).
3. ``ml20m``: ``recs run`` evaluates PureSVD rank 64 on the same split, streamed, and its
   ``timings.json`` gives the evaluation's seconds, the reference for step 2.
4. ``ml1m``: the peers on the same factors and split: a numpy full-sort loop of the
   RecBole kind (a block of users' scores, training items masked, top 20 by
   ``argpartition``, NDCG@10 and recall@20) and ranx on the materialised run (every
   candidate's score as a frame).

Prints one JSON object per step and writes them to OUT/results.json.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

SHAPES = {
    "ml20m": (138_493, 26_744, 20_000_263),
    "ml1m": (6_040, 3_706, 1_000_209),
}
METRICS = "roc,croc,ndcg@10,r@20,map"
RANK = 64


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def read_split(out):
    import pandas as pd

    names = ["user", "item", "rating"]
    kwargs = dict(sep="\t", names=names, usecols=["user", "item"], dtype="int32")
    return pd.read_csv(f"{out}/split/train.tsv", **kwargs), pd.read_csv(f"{out}/split/test.tsv", **kwargs)


def factors(n_users, n_items):
    import numpy as np

    rng = np.random.default_rng(0)
    return (
        rng.standard_normal((n_users, RANK), dtype=np.float32),
        rng.standard_normal((n_items, RANK), dtype=np.float32),
    )


def puresvd_factors(train, n_users, n_items):
    """PureSVD's factors of the training matrix R (rank 64, scipy's ``svds``): items
    ``V`` (the right singular vectors) and users ``R V``, so that a score is ``r_u V
    v_i``, PureSVD's. Rows are ids (row 0 unused)."""
    import numpy as np
    import scipy.sparse as sp
    from scipy.sparse.linalg import svds

    R = sp.csr_matrix(
        (np.ones(len(train), dtype=np.float64), (train.user.to_numpy(), train.item.to_numpy())),
        shape=(n_users + 1, n_items + 1),
    )
    _, _, vt = svds(R, k=RANK, random_state=0)
    V = np.ascontiguousarray(vt.T)
    return (R @ V).astype(np.float32), V.astype(np.float32)


def step_recs(out, n_users, n_items):
    import numpy as np

    import recs

    train, test = read_split(out)
    if os.environ.get("FACTORS") == "puresvd":
        U, V = puresvd_factors(train, n_users, n_items)
    else:
        U, V = factors(n_users + 1, n_items + 1)  # ids run from 1: row r is id r, as below
    qrels = test.assign(grade=1.0)
    users, items = np.arange(1, n_users + 1), np.arange(1, n_items + 1)
    start = time.perf_counter()
    values = recs.evaluate_factors(U[1:], V[1:], train, qrels, METRICS, users=users, items=items, progress=False)
    seconds = time.perf_counter() - start
    return {"step": "recs.evaluate_factors", "seconds": seconds, "peak_mib": peak_mib(), "values": values}


def _test_sets(train, test):
    known = train.groupby("user")["item"].agg(list).to_dict()
    relevant = test.groupby("user")["item"].agg(list).to_dict()
    return known, relevant


def step_numpy_loop(out, n_users, n_items, block=256):
    """Scores per block, training items masked, top 20, NDCG@10 and recall@20."""
    import numpy as np

    train, test = read_split(out)
    U, V = factors(n_users + 1, n_items + 1)
    known, relevant = _test_sets(train, test)
    users = np.array(sorted(relevant), dtype=np.int64)
    discounts = 1.0 / np.log2(np.arange(2, 12))
    start = time.perf_counter()
    ndcg, recall = [], []
    for b in range(0, len(users), block):
        rows = users[b : b + block]
        scores = U[rows] @ V.T
        for r, u in enumerate(rows):
            scores[r, known.get(u, [])] = -np.inf
        top = np.argpartition(-scores, 20, axis=1)[:, :20]
        order = np.take_along_axis(scores, top, axis=1).argsort(axis=1)[:, ::-1]
        top = np.take_along_axis(top, order, axis=1)
        for r, u in enumerate(rows):
            rel = np.isin(top[r], relevant[u])
            ideal = discounts[: min(10, len(relevant[u]))].sum()
            ndcg.append((rel[:10] * discounts).sum() / ideal)
            recall.append(rel.sum() / len(relevant[u]))
    seconds = time.perf_counter() - start
    values = {"ndcg@10": float(np.mean(ndcg)), "r@20": float(np.mean(recall))}
    return {"step": "numpy full-sort loop", "seconds": seconds, "peak_mib": peak_mib(), "values": values}


def step_ranx(out, n_users, n_items):
    """ranx on the materialised run: every candidate's score as a frame."""
    import numpy as np
    import pandas as pd
    from ranx import Qrels, Run, evaluate

    train, test = read_split(out)
    U, V = factors(n_users + 1, n_items + 1)
    known, relevant = _test_sets(train, test)
    start = time.perf_counter()
    users, items, scores = [], [], []
    all_items = np.arange(1, n_items + 1)
    for u in sorted(relevant):
        candidates = np.setdiff1d(all_items, known.get(u, []))
        users.append(np.repeat(str(u), len(candidates)))
        items.append(candidates.astype(str))
        scores.append((U[u] @ V[candidates].T).astype(np.float64))
    # ranx takes ids as Python strings (object columns).
    run = pd.DataFrame({
        "q_id": pd.Series(np.concatenate(users), dtype=object),
        "doc_id": pd.Series(np.concatenate(items), dtype=object),
        "score": np.concatenate(scores),
    })
    qrels = pd.DataFrame({
        "q_id": pd.Series(test.user.astype(str).to_numpy(), dtype=object),
        "doc_id": pd.Series(test.item.astype(str).to_numpy(), dtype=object),
        "score": 1,
    })
    values = evaluate(
        Qrels.from_df(qrels, q_id_col="q_id", doc_id_col="doc_id", score_col="score"),
        Run.from_df(run, q_id_col="q_id", doc_id_col="doc_id", score_col="score"),
        ["ndcg@10", "recall@20"],
    )
    seconds = time.perf_counter() - start
    return {"step": "ranx on the materialised run", "seconds": seconds, "peak_mib": peak_mib(), "rows": len(run), "values": values}


def child(step, out, shape):
    n_users, n_items, _ = SHAPES[shape]
    result = {"recs": step_recs, "numpy": step_numpy_loop, "ranx": step_ranx}[step](out, n_users, n_items)
    print(json.dumps(result))


def run_child(step, out, shape):
    done = subprocess.run(
        [sys.executable, __file__, "--child", step, "--out", out, "--shape", shape],
        check=True, capture_output=True, text=True,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    print(json.dumps(result), flush=True)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--recs", default="target/release/recs")
    parser.add_argument("--shape", choices=sorted(SHAPES), default="ml1m")
    parser.add_argument("--out", required=True)
    parser.add_argument("--child")
    args = parser.parse_args()
    if args.child:
        return child(args.child, args.out, args.shape)
    n_users, n_items, n_events = SHAPES[args.shape]
    os.makedirs(args.out, exist_ok=True)
    data = f"{args.out}/data.tsv"
    if not os.path.exists(data):
        subprocess.run([args.recs, "data", "synth", "--users", str(n_users), "--items", str(n_items),
                        "--events", str(n_events), "--seed", "1", "--out", data], check=True)
    if not os.path.exists(f"{args.out}/split/test.tsv"):
        subprocess.run([args.recs, "split", "--file", data, "--protocol", "leave-k-out", "--k", "20%",
                        "--seed", "1", "--out", f"{args.out}/split"], check=True, capture_output=True)
    results = [run_child("recs", args.out, args.shape)]
    if args.shape == "ml20m":
        config = f"{args.out}/run.toml"
        with open(config, "w") as f:
            f.write(f'name = "bench"\nseed = 1\n[dataset]\nfile = "{os.path.abspath(data)}"\nimplicit = false\n'
                    '[protocol]\nprotocol = "leave-k-out"\nk = "20%"\n[evaluation]\n'
                    'metrics = ["roc", "croc", "ndcg@10", "r@20", "map"]\n'
                    '[[models]]\nname = "puresvd"\nparams = { rank = "64" }\n')
        subprocess.run([args.recs, "run", config, "--out", f"{args.out}/run", "--quiet"], check=True)
        with open(f"{args.out}/run/timings.json") as f:
            timings = json.load(f)
        result = {"step": "recs run (PureSVD rank 64)", "timings": timings}
        print(json.dumps(result), flush=True)
        results.append(result)
    else:
        results += [run_child("numpy", args.out, args.shape), run_child("ranx", args.out, args.shape)]
    with open(f"{args.out}/results.json", "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
