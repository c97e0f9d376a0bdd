#!/usr/bin/env python3
"""Oracle fixture for `recs eval --sampled-vs-exact` on MovieLens 100K, computed with
numpy and scipy from the definitions of docs/metrics.md ("Sampled metrics"),
independently of the Rust code that computes the mode.

`recs` itself is used only for what is not being checked: the leave-one-out split
(`recs split`) and the negatives each seed draws (`recs eval --candidates sampled:100
--seed S --write-candidates`, the draw the mode shares with the sampled policy). The two
runs are formulas of the ids, which the Rust test writes the same way:
  pop   the item's number of training events (many ties)
  hash  (31 * user + 17 * item) % 101 (ties at random)
For each run and metric (auc, r@10, ndcg@10, ap) it writes the exact mean over the
instances (every relevant item, ranked among its user's non-relevant catalog items), the
uncorrected sampled mean for seeds 0 and 1, and the rank-estimate and bv:0.1 means for
seed 0, every value the expectation over the orders of tied scores.

Regenerate with (a Python with numpy and scipy; RECS_DATA_DIR holding ml-100k/; about
six minutes on two cores, most of it scipy's hypergeometric probabilities):
    cargo build -p recs-cli
    python3 tools/sampled_vs_exact_oracle.py target/debug/recs "$RECS_DATA_DIR" \
        crates/recs-cli/tests/fixtures/sampled_vs_exact/ml100k.json
"""

import json
import os
import subprocess
import sys
import tempfile
from collections import defaultdict

import numpy as np
from scipy.stats import hypergeom

METRICS = ["auc", "r@10", "ndcg@10", "ap"]
NEGATIVES = 100
SEEDS = [0, 1]


def metric(name, rank, size):
    rank = np.asarray(rank, dtype=float)
    if name == "auc":
        return (size - rank) / (size - 1)
    if name == "ap":
        return 1.0 / rank
    base, k = name.split("@")
    inside = (rank <= int(k)).astype(float)
    if base == "r":
        return inside
    return inside / np.log2(rank + 1)  # ndcg@k


def tie_mean(values_of_rank, above, tied):
    """The mean of values_of_rank(r) over r = above + 1 ..= above + tied + 1."""
    return float(np.mean(values_of_rank(np.arange(above + 1, above + tied + 2))))


def place(target, others):
    others = np.asarray(others)
    return int(np.sum(others > target)), int(np.sum(others == target))


def bv_estimators(n, m, gamma):
    """For each metric, ((1 - g) A'DA + g diag(c))^-1 A'D b with the hypergeometric A
    (A[r - 1, j] = P(r~ = j + 1 | r)), uniform p."""
    ranks = np.arange(1, n + 1)
    x = np.arange(m + 1)
    A = hypergeom.pmf(x[None, :], n - 1, ranks[:, None] - 1, m)
    p = np.full(n, 1.0 / n)
    G = (1 - gamma) * A.T @ (p[:, None] * A) + gamma * np.diag(p @ A)
    return {name: np.linalg.solve(G, A.T @ (p * metric(name, ranks, n))) for name in METRICS}


def main():
    recs, data, out = sys.argv[1], sys.argv[2], sys.argv[3]
    recs = os.path.abspath(recs)
    with tempfile.TemporaryDirectory() as tmp:
        run = lambda *args: subprocess.run([recs, *args], cwd=tmp, check=True, capture_output=True)
        run("split", "--dataset", "ml-100k", "--data-dir", data, "--protocol", "leave-one-out",
            "--seed", "0", "--judgments", "implicit", "--out", ".")
        train = defaultdict(set)
        popularity = defaultdict(int)
        with open(os.path.join(tmp, "train.tsv")) as f:
            for line in f:
                user, item = map(int, line.split("\t")[:2])
                train[user].add(item)
                popularity[item] += 1
        relevant = defaultdict(set)
        with open(os.path.join(tmp, "qrels.tsv")) as f, open(os.path.join(tmp, "graded.tsv"), "w") as g:
            for line in f:
                user, item, grade = line.rstrip("\n").split("\t")
                if grade != "0":
                    g.write(line)
                    relevant[int(user)].add(int(item))
        catalog = sorted(set(popularity) | {i for items in relevant.values() for i in items})
        # The drawn negatives of each seed, as the sampled policy writes them.
        drawn = {}
        for seed in SEEDS:
            name = f"c{seed}.tsv"
            # Any run serves (the qrels, read as scores): only the candidate file is kept.
            run("eval", "--qrels", "graded.tsv", "--run", "graded.tsv", "--train", "train.tsv",
                "--candidates", f"sampled:{NEGATIVES}", "--seed", str(seed),
                "--write-candidates", name, "--metrics", "mrr")
            per_user = defaultdict(list)
            with open(os.path.join(tmp, name)) as f:
                next(f)
                for line in f:
                    user, item = map(int, line.split("\t"))
                    if item not in relevant[user]:
                        per_user[user].append(item)
            drawn[seed] = per_user
    catalog = np.array(catalog)
    counts = np.zeros(catalog.max() + 1)
    for item, count in popularity.items():
        counts[item] = count
    runs = {
        "pop": lambda user, items: counts[np.asarray(items)],
        "hash": lambda user, items: (31 * user + 17 * np.asarray(items)) % 101,
    }
    estimators = {}
    fixture = {"negatives": NEGATIVES, "seeds": SEEDS, "metrics": METRICS, "runs": {}}
    for run_name, score in runs.items():
        sums = defaultdict(float)
        count = 0
        for user in sorted(relevant):
            known = train[user]
            excluded = np.array(sorted(known | relevant[user]))
            negatives = catalog[~np.isin(catalog, excluded)]
            n = len(negatives) + 1
            neg_scores = score(user, negatives)
            for item in sorted(relevant[user] - known):
                target = score(user, [item])[0]
                count += 1
                above, tied = place(target, neg_scores)
                for name in METRICS:
                    sums[(name, "exact")] += tie_mean(lambda r: metric(name, r, n), above, tied)
                for seed in SEEDS:
                    sampled = drawn[seed][user]
                    m = len(sampled)
                    a, t = place(target, score(user, sampled))
                    for name in METRICS:
                        sums[(name, f"sampled/{seed}")] += tie_mean(
                            lambda r: metric(name, r, m + 1), a, t)
                        if seed != 0:
                            continue
                        rank_estimate = lambda j: metric(name, 1 + (n - 1) * (j - 1) // m, n)
                        sums[(name, "rank-estimate/0")] += tie_mean(rank_estimate, a, t)
                        if (n, m) not in estimators:
                            estimators[(n, m)] = bv_estimators(n, m, 0.1)
                        values = estimators[(n, m)][name]
                        sums[(name, "bv:0.1/0")] += float(np.mean(values[a:a + t + 1]))
        fixture["runs"][run_name] = {
            name: {what: sums[(name, what)] / count for (n_, what) in sums if n_ == name}
            for name in METRICS
        }
        fixture["n_instances"] = count
    with open(out, "w") as f:
        json.dump(fixture, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
