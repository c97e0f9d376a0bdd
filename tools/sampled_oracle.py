#!/usr/bin/env python3
"""Oracle fixtures for recs-sampled, computed from the equations of docs/metrics.md
("Sampled metrics") with numpy and scipy, independently of the Rust code.

Writes crates/recs-sampled/tests/fixtures/corrections.json: for each case (n items,
m samples, the sampling, a metric), the sampled-rank distribution at a few exact ranks
(scipy.stats.binom / hypergeom), and the estimator of every correction:
  sampled        M(r~; m + 1)
  rank-estimate  M(floor(1 + (n - 1)(r~ - 1)/m); n)
  minimal-bias   numpy.linalg.lstsq on rows sqrt(p(r)) P(.|r), targets sqrt(p(r)) M(r; n)
  monotone       scipy.optimize.lsq_linear (bounded least squares) on the same objective,
                 with M^_j = t + sum_{i >= j} d_i, d_i >= 0, t free
  bv:g           the closed form ((1 - g) A'DA + g diag(c))^-1 A'D b

Regenerate with:
    pip install numpy scipy
    python3 tools/sampled_oracle.py crates/recs-sampled/tests/fixtures
"""

import json
import os
import sys

import numpy as np
from scipy.optimize import lsq_linear
from scipy.stats import binom, hypergeom


def metric(name, rank, size):
    rank = np.asarray(rank, dtype=float)
    if name == "auc":
        return (size - rank) / (size - 1)
    if name == "ap":
        return 1.0 / rank
    if name == "ndcg":
        return 1.0 / np.log2(rank + 1)
    base, k = name.split("@")
    k = int(k)
    inside = (rank <= k).astype(float)
    if base == "r":
        return inside
    if base == "p":
        return inside / k
    if base == "ndcg":
        return inside / np.log2(rank + 1)
    raise ValueError(name)


def distribution(n, m, r, sampling):
    x = np.arange(m + 1)
    if sampling == "with-replacement":
        return binom.pmf(x, m, (r - 1) / (n - 1))
    return hypergeom.pmf(x, n - 1, r - 1, m)


def case(n, m, sampling, name, gammas):
    ranks = np.arange(1, n + 1)
    P = np.array([distribution(n, m, r, sampling) for r in ranks])  # n x (m + 1)
    p = np.full(n, 1.0 / n)
    b = metric(name, ranks, n)
    sampled_ranks = np.arange(1, m + 2)
    out = {
        "n": n,
        "m": m,
        "sampling": sampling,
        "metric": name,
        "distributions": {str(r): distribution(n, m, r, sampling).tolist() for r in [1, 2, n // 3, n]},
        "estimators": {},
    }
    out["estimators"]["sampled"] = metric(name, sampled_ranks, m + 1).tolist()
    estimate = np.floor(1 + (n - 1) * (sampled_ranks - 1) / m).astype(int)
    out["estimators"]["rank-estimate"] = metric(name, estimate, n).tolist()
    w = np.sqrt(p)
    A = w[:, None] * P
    least, *_ = np.linalg.lstsq(A, w * b, rcond=None)
    out["estimators"]["minimal-bias"] = least.tolist()
    # Monotone: columns for d_i (i = 1..m): cumulative sums of A's first i columns; t last.
    steps = np.cumsum(A, axis=1)
    design = np.concatenate([steps[:, :m], steps[:, m:]], axis=1)
    lower = np.concatenate([np.zeros(m), [-np.inf]])
    upper = np.full(m + 1, np.inf)
    fit = lsq_linear(design, w * b, bounds=(lower, upper), method="bvls", tol=1e-14, lsmr_tol=None)
    z = fit.x
    mono = np.array([z[m] + z[j:m].sum() for j in range(m + 1)])
    out["estimators"]["monotone"] = mono.tolist()
    D = np.diag(p)
    c = p @ P
    for g in gammas:
        G = (1 - g) * P.T @ D @ P + g * np.diag(c)
        out["estimators"][f"bv:{g}"] = np.linalg.solve(G, P.T @ D @ b).tolist()
    # The objective values, so that a solver that finds another minimiser is judged by them.
    def bias(x):
        return float(np.sum(p * (P @ x - b) ** 2))

    out["bias"] = {k: bias(np.asarray(v)) for k, v in out["estimators"].items()}
    return out


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else "crates/recs-sampled/tests/fixtures"
    cases = [
        case(60, 5, "with-replacement", "ap", [1, 0.1, 0.01]),
        case(60, 5, "without-replacement", "ndcg@10", [1, 0.1]),
        case(400, 12, "with-replacement", "r@10", [1, 0.1, 0.01, 0.001]),
        case(400, 12, "with-replacement", "ndcg", [0.1]),
    ]
    with open(os.path.join(folder, "corrections.json"), "w") as f:
        json.dump(cases, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
