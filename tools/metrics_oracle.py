#!/usr/bin/env python3
"""Generate oracle fixtures for recs-metrics from independent implementations.

Writes, into the directory given as the only argument (default
crates/recs-metrics/tests/fixtures):

  ties.qrels.tsv, ties.run.tsv       scores rounded to one decimal: many ties, within and
                                     across users
  ranx.qrels.tsv, ranx.run.tsv       distinct scores within each user, every user with a
                                     relevant candidate
  expected.json                      the values computed here

Oracles: scikit-learn's roc_auc_score for the pooled ROC AUC (ties count 1/2); ranx for
precision, recall, NDCG (linear and exponential gain), MAP, MRR and hit rate; and an
exact rational (fractions.Fraction) implementation written here from the definitions in
docs/metrics.md for the CROC AUC (expected values under random tie order).

Regenerate with:
    pip install scikit-learn ranx
    python3 tools/metrics_oracle.py crates/recs-metrics/tests/fixtures
"""

import json
import os
import sys
from fractions import Fraction

import numpy as np
from ranx import Qrels, Run, evaluate
from sklearn.metrics import roc_auc_score

SEED = 20051015


def generate(rng, n_users, ties):
    """Returns rows (user, item, grade, score)."""
    rows = []
    for u in range(n_users):
        n = int(rng.integers(3, 40))
        items = rng.choice(200, size=n, replace=False)
        grades = rng.choice([0, 0, 0, 1, 2, 3], size=n)
        if ties:
            scores = np.round(rng.random(n), 1)
            # Some users get a constant score (one big tie group).
            if u % 7 == 0:
                scores[:] = 0.5
        else:
            grades[int(rng.integers(0, n))] = max(1, grades.max())
            scores = rng.permutation(n) / 64.0 + 0.0078125
        for i, g, s in zip(items, grades, scores):
            rows.append((f"u{u}", f"i{i}", int(g), float(s)))
    return rows


def write(path, rows, column):
    with open(path, "w") as f:
        for r in rows:
            value = r[column]
            f.write(f"{r[0]}\t{r[1]}\t{value}\n")


def croc_auc_exact(rows, threshold):
    """CROC AUC from the definition, in exact rationals."""
    users = {}
    for u, i, g, s in rows:
        users.setdefault(u, []).append((s, g >= threshold))
    total_pos = sum(rel for lst in users.values() for _, rel in lst)
    total_neg = sum(not rel for lst in users.values() for _, rel in lst)
    max_n = max(len(lst) for lst in users.values())
    tp = [Fraction(0)] * (max_n + 1)
    fp = [Fraction(0)] * (max_n + 1)
    for lst in users.values():
        lst.sort(key=lambda p: -p[0])
        groups = []
        for s, rel in lst:
            if groups and groups[-1][0] == s:
                groups[-1][1] += 1
                groups[-1][2] += int(rel)
            else:
                groups.append([s, 1, int(rel)])
        n = len(lst)
        for k in range(max_n + 1):
            cut = min(k, n)
            hits = Fraction(0)
            start = 0
            for _, size, pos in groups:
                taken = max(0, min(size, cut - start))
                hits += Fraction(pos * taken, size)
                start += size
            tp[k] += hits
            fp[k] += cut - hits
    xs = [f / total_neg for f in fp]
    ys = [t / total_pos for t in tp]
    area = sum((xs[i + 1] - xs[i]) * (ys[i] + ys[i + 1]) / 2 for i in range(max_n))
    return float(area)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "crates/recs-metrics/tests/fixtures"
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    expected = {}

    ties = generate(rng, 60, ties=True)
    write(os.path.join(out, "ties.qrels.tsv"), ties, 2)
    write(os.path.join(out, "ties.run.tsv"), ties, 3)
    labels = np.array([g >= 1 for _, _, g, _ in ties])
    scores = np.array([s for _, _, _, s in ties])
    expected["ties"] = {
        "roc_auc": float(roc_auc_score(labels, scores)),
        "roc_auc_threshold_2": float(roc_auc_score(np.array([g >= 2 for _, _, g, _ in ties]), scores)),
        "croc_auc": croc_auc_exact(ties, 1),
    }

    plain = generate(rng, 80, ties=False)
    write(os.path.join(out, "ranx.qrels.tsv"), plain, 2)
    write(os.path.join(out, "ranx.run.tsv"), plain, 3)
    qrels_dict, run_dict = {}, {}
    for u, i, g, s in plain:
        qrels_dict.setdefault(u, {})[i] = g
        run_dict.setdefault(u, {})[i] = s
    ranx_metrics = {
        "p@5": "precision@5",
        "r@5": "recall@5",
        "r@10": "recall@10",
        "ndcg@5": "ndcg@5",
        "ndcg@10": "ndcg@10",
        "ndcg_exp@5": "ndcg_burges@5",
        "map": "map",
        "mrr": "mrr",
        "hit@3": "hit_rate@3",
    }
    values = evaluate(Qrels(qrels_dict), Run(run_dict), list(ranx_metrics.values()))
    expected["ranx"] = {ours: float(values[theirs]) for ours, theirs in ranx_metrics.items()}
    labels = np.array([g >= 1 for _, _, g, _ in plain])
    scores = np.array([s for _, _, _, s in plain])
    expected["ranx"]["roc_auc"] = float(roc_auc_score(labels, scores))
    expected["ranx"]["croc_auc"] = croc_auc_exact(plain, 1)

    with open(os.path.join(out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=2, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
