#!/usr/bin/env python3
"""Generate the oracle fixture of recs-stats from scipy.stats and statsmodels.

Writes crates/recs-stats/tests/fixtures/oracle.json (or the path given as the only
argument), read by crates/recs-stats/tests/oracle.rs.

Paired cases (a, b: one value per user of two systems):
  - seeded synthetic data of several sizes (2 to 1,000 users): continuous values without
    ties, values on a grid of 1/8 (ties and zero differences), and cases where about half
    the users have identical values;
  - one case from real data: per-user NDCG@10 of two models on MovieLens 100K (943 users,
    a seeded 80/20 split of each user's ratings, relevant = test rating >= 4, users
    without a relevant test item left out), the models being most-popular and item-based
    cosine kNN, both computed in numpy by this script. It needs RECS_DATA_DIR pointing at
    a folder holding ml-100k/u.data; without it the case is left out and the header says
    so.

Oracles:
  - scipy.stats.ttest_rel (statistic, p-value, confidence_interval at 0.95 and 0.90);
  - scipy.stats.wilcoxon: the default call (method="auto", zero_method="wilcox",
    correction=False); method="asymptotic" with and without continuity correction; the
    exact distribution (method="exact" when no non-zero absolute differences tie, else
    the exact permutation distribution, PermutationMethod with 2^n resamples, for n <= 16);
  - scipy.stats.binomtest(k, n, 0.5) for the sign test (zero differences dropped);
  - Cohen's d_z = mean / sd (ddof=1), its interval from scipy.stats.nct.cdf inverted by
    scipy.optimize.brentq;
  - scipy.stats.permutation_test (permutation_type="samples", statistic = mean of a - b,
    two-sided): exact for n <= 16, else 200,000 resamples (its Monte Carlo error is
    stored with it);
  - statsmodels.stats.multitest.multipletests with bonferroni, holm and fdr_bh on
    families of p-values;
  - scipy.stats.nct.cdf and scipy.stats.t.ppf at a grid of points.

Input vectors are written as decimal strings (Python's repr, which round-trips), so that
the Rust side parses exactly the same doubles and the tie structure is the same.

Regenerate with:
    pip install numpy scipy statsmodels
    RECS_DATA_DIR=/path/to/data python3 tools/stats_oracle.py
"""

import json
import math
import os
import sys

import numpy as np
import scipy
import statsmodels
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests

SEED = 20120101
PERMUTATION_RESAMPLES = 200_000


def as_strings(values):
    return [repr(float(v)) for v in values]


def continuous(rng, n, shift):
    a = rng.random(n)
    b = np.clip(a - shift + 0.2 * rng.standard_normal(n), -1, 2)
    return a, b


def grid(rng, n, shift):
    a = np.round(rng.random(n) * 8) / 8
    b = np.clip(np.round((a - shift + 0.25 * rng.standard_normal(n)) * 8) / 8, 0, 1)
    return a, b


def half_identical(rng, n):
    a = np.round(rng.random(n) * 16) / 16
    b = a.copy()
    changed = rng.random(n) < 0.5
    b[changed] = np.round(rng.random(int(changed.sum())) * 16) / 16
    return a, b


def dz_interval(a, b, level):
    d = a - b
    n = len(d)
    dz = d.mean() / d.std(ddof=1)
    t = dz * math.sqrt(n)
    df = n - 1

    def root(target):
        f = lambda nc: stats.nct.cdf(t, df, nc) - target
        lo, hi = t - 1.0, t + 1.0
        while f(lo) < 0:
            lo -= 2 * (t - lo + 1)
        while f(hi) > 0:
            hi += 2 * (hi - t + 1)
        return optimize.brentq(f, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)

    return dz, root((1 + level) / 2) / math.sqrt(n), root((1 - level) / 2) / math.sqrt(n)


def permutation_p(a, b, seed):
    n = len(a)
    resamples = np.inf if n <= 16 else PERMUTATION_RESAMPLES
    res = stats.permutation_test(
        (a, b),
        lambda x, y, axis: np.mean(x - y, axis=axis),
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        batch=2_000,
        rng=np.random.default_rng(seed),
    )
    return float(res.pvalue), 0 if n <= 16 else PERMUTATION_RESAMPLES


def paired_case(name, a, b, seed):
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    d = a - b
    nonzero = d[d != 0]
    case = {"name": name, "a": as_strings(a), "b": as_strings(b), "n": len(a)}

    t = stats.ttest_rel(a, b)
    ci95 = t.confidence_interval(0.95)
    ci90 = t.confidence_interval(0.90)
    case["t"] = {
        "statistic": float(t.statistic),
        "p_value": float(t.pvalue),
        "mean": float(d.mean()),
        "ci95": [float(ci95.low), float(ci95.high)],
        "ci90": [float(ci90.low), float(ci90.high)],
    }

    if len(nonzero) > 0:
        auto = stats.wilcoxon(a, b)
        normal = stats.wilcoxon(a, b, method="asymptotic")
        corrected = stats.wilcoxon(a, b, method="asymptotic", correction=True)
        case["wilcoxon"] = {
            "statistic": float(auto.statistic),
            "p_auto": float(auto.pvalue),
            "p_normal": float(normal.pvalue),
            "p_normal_corrected": float(corrected.pvalue),
            "n": int(len(nonzero)),
        }
        has_ties = len(np.unique(np.abs(nonzero))) < len(nonzero)
        if not has_ties and len(nonzero) <= 50:
            exact = stats.wilcoxon(nonzero, method="exact")
            case["wilcoxon"]["p_exact"] = float(exact.pvalue)
        elif len(nonzero) <= 16:
            method = stats.PermutationMethod(n_resamples=2 ** len(nonzero))
            exact = stats.wilcoxon(nonzero, method=method)
            case["wilcoxon"]["p_exact"] = float(exact.pvalue)

    k = int((d > 0).sum())
    m = int(len(nonzero))
    case["sign"] = {"k": k, "n": m, "p_value": float(stats.binomtest(k, m).pvalue) if m > 0 else 1.0}

    if d.std(ddof=1) > 0:
        dz, lo, hi = dz_interval(a, b, 0.95)
        case["cohens_dz"] = {"d_z": float(dz), "ci95": [float(lo), float(hi)]}

    p, resamples = permutation_p(a, b, seed)
    case["permutation"] = {"p_value": p, "resamples": resamples}
    return case


def ndcg_at_10(scores, relevant):
    top = np.argsort(-scores, kind="stable")[:10]
    gains = np.array([1.0 if i in relevant else 0.0 for i in top])
    dcg = float((gains / np.log2(np.arange(2, 12))).sum())
    ideal = float((1.0 / np.log2(np.arange(2, 2 + min(10, len(relevant))))).sum())
    return dcg / ideal


def movielens_case(data_dir):
    raw = np.loadtxt(os.path.join(data_dir, "ml-100k", "u.data"), dtype=np.int64)
    users, items, ratings = raw[:, 0] - 1, raw[:, 1] - 1, raw[:, 2]
    n_users, n_items = users.max() + 1, items.max() + 1
    rng = np.random.default_rng(SEED)
    test = np.zeros(len(raw), dtype=bool)
    for u in range(n_users):
        rows = np.flatnonzero(users == u)
        chosen = rng.choice(rows, size=max(1, len(rows) // 5), replace=False)
        test[chosen] = True
    train = np.zeros((n_users, n_items))
    train[users[~test], items[~test]] = 1.0
    popularity = train.sum(axis=0)
    norms = np.sqrt(train.sum(axis=0))
    norms[norms == 0] = 1.0
    similarity = (train.T @ train) / np.outer(norms, norms)
    np.fill_diagonal(similarity, 0.0)
    knn = train @ similarity
    pop_values, knn_values = [], []
    for u in range(n_users):
        rows = test & (users == u) & (ratings >= 4)
        relevant = set(items[rows].tolist())
        if not relevant:
            continue
        seen = train[u] > 0
        pop_scores = np.where(seen, -np.inf, popularity)
        knn_scores = np.where(seen, -np.inf, knn[u])
        pop_values.append(ndcg_at_10(pop_scores, relevant))
        knn_values.append(ndcg_at_10(knn_scores, relevant))
    return np.array(knn_values), np.array(pop_values)


def adjustment_case(name, p):
    p = np.asarray(p, dtype=float)
    case = {"name": name, "p": [float(x) for x in p]}
    for method in ["bonferroni", "holm", "fdr_bh"]:
        case[method] = [float(x) for x in multipletests(p, method=method)[1]]
    return case


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "crates/recs-stats/tests/fixtures/oracle.json"
    rng = np.random.default_rng(SEED)
    paired = []
    for n in [2, 3, 5, 8, 10, 13, 20, 30, 50, 51, 100, 500]:
        a, b = continuous(rng, n, 0.05)
        paired.append(paired_case(f"continuous_n{n}", a, b, SEED + n))
    for n in [5, 9, 13, 14, 30, 50, 60, 200, 1000]:
        a, b = grid(rng, n, 0.03)
        paired.append(paired_case(f"grid_n{n}", a, b, SEED + 1000 + n))
    for n in [12, 40, 80]:
        a, b = half_identical(rng, n)
        paired.append(paired_case(f"half_identical_n{n}", a, b, SEED + 2000 + n))
    for n in [25, 300]:
        a, b = continuous(rng, n, 0.25)
        paired.append(paired_case(f"strong_effect_n{n}", a, b, SEED + 3000 + n))

    data_dir = os.environ.get("RECS_DATA_DIR")
    real = "none (RECS_DATA_DIR was not set)"
    if data_dir and os.path.exists(os.path.join(data_dir, "ml-100k", "u.data")):
        knn, pop = movielens_case(data_dir)
        paired.append(paired_case("movielens100k_ndcg10_itemknn_vs_popularity", knn, pop, SEED + 4000))
        real = (
            "movielens100k_ndcg10_itemknn_vs_popularity: per-user NDCG@10 of item-based "
            "cosine kNN (a) and most-popular (b) on MovieLens 100K, computed by this script"
        )

    adjustments = []
    for m in [1, 2, 5, 10, 50]:
        adjustments.append(adjustment_case(f"uniform_m{m}", rng.random(m)))
    adjustments.append(adjustment_case("small_m20", 10.0 ** -rng.uniform(0, 8, 20)))
    adjustments.append(adjustment_case("ties_m8", [0.01, 0.04, 0.01, 0.04, 0.2, 0.2, 0.001, 0.5]))
    adjustments.append(adjustment_case("edges_m6", [0.0, 1.0, 0.5, 0.0, 0.25, 1.0]))
    adjustments.append(adjustment_case("from_paired_t", [c["t"]["p_value"] for c in paired]))
    adjustments.append(adjustment_case("from_sign", [c["sign"]["p_value"] for c in paired]))

    nct = []
    for t, df, nc in [
        (2.0, 5, 1.0), (-1.5, 10, 0.5), (0.0, 3, 2.0), (30.0, 99, 31.0), (1.0, 1, -2.0),
        (5.0, 20, 8.0), (-3.0, 50, -2.5), (12.0, 499, 10.0), (45.0, 5999, 43.0),
        (0.3, 6039, 2.0), (3.5, 12, 0.0), (7.0, 2, 9.0), (-0.5, 200, 1.5),
    ]:
        nct.append({"t": t, "df": df, "delta": nc, "cdf": float(stats.nct.cdf(t, df, nc))})
    t_quantiles = []
    for q, df in [(0.975, 1), (0.975, 4), (0.95, 9), (0.995, 29), (0.025, 100), (0.9, 6039)]:
        t_quantiles.append({"q": q, "df": df, "quantile": float(stats.t.ppf(q, df))})

    fixture = {
        "header": {
            "generator": "tools/stats_oracle.py",
            "scipy": scipy.__version__,
            "statsmodels": statsmodels.__version__,
            "numpy": np.__version__,
            "seed": SEED,
            "data": "seeded synthetic data, and one real-data case: " + real,
        },
        "paired": paired,
        "adjustments": adjustments,
        "noncentral_t": nct,
        "t_quantiles": t_quantiles,
    }
    with open(out, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")
    print(f"wrote {out}: {len(paired)} paired cases, {len(adjustments)} families")


if __name__ == "__main__":
    main()
