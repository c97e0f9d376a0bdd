#!/usr/bin/env python3
"""Oracle fixture for miscal@N, the calibration of recs-metrics (Steck, RecSys 2018).

Writes crates/recs-metrics/tests/fixtures/calibration.json (or the path given as the only
argument): a seeded training set, weighted item attributes (some items without any), each
test user's candidates with grades and distinct scores (so the top-N lists have no ties),
and, per smoothing alpha and depth N, each user's miscalibration computed here in numpy
and scipy, independently of recs:

  p(g|i)  an item's attribute weights over their sum
  p(g|u)  the mean of p(g|i) over the user's distinct training items that have one
  q(g|u)  the mean of p(g|i) over the top-N items that have one (zero without any)
  value   scipy.special.rel_entr(p, (1 - alpha) q + alpha p).sum()  (KL, nats)

A user whose training items have no attribute has no value (null in the fixture).

Regenerate with:
    pip install numpy scipy
    python3 tools/calibration_oracle.py crates/recs-metrics/tests/fixtures/calibration.json
"""

import json
import sys

import numpy as np
from scipy.special import rel_entr

SEED = 20181002
N_TRAIN_USERS = 50
N_ITEMS = 40
N_ATTRIBUTES = 6
N_TEST_USERS = 30
DEPTHS = [1, 3, 10]
ALPHAS = [0.01, 0.2]


def main(path):
    rng = np.random.default_rng(SEED)
    # Weighted attributes: items 0..35 hold 1 to 3 attributes with weights 1..3; items
    # 36..39 have none.
    weights = np.zeros((N_ITEMS, N_ATTRIBUTES))
    for i in range(36):
        chosen = rng.choice(N_ATTRIBUTES, size=int(rng.integers(1, 4)), replace=False)
        weights[i, chosen] = rng.integers(1, 4, size=len(chosen))
    distributions = np.zeros_like(weights)
    has = weights.sum(axis=1) > 0
    distributions[has] = weights[has] / weights[has].sum(axis=1, keepdims=True)

    # Training pairs (a pair may repeat: it counts once); user 5 trains only on items
    # without attributes.
    train = []
    for u in range(N_TRAIN_USERS):
        pool = np.arange(36, 40) if u == 5 else np.arange(N_ITEMS)
        n = int(rng.integers(1, 10))
        items = rng.choice(pool, size=n, replace=True)
        train.extend((u, int(i)) for i in items)
    trained = {}
    for u, i in train:
        trained.setdefault(u, set()).add(i)

    users = []
    for u in range(N_TEST_USERS):
        candidates = [i for i in range(N_ITEMS) if i not in trained.get(u, set())]
        grades = [float(g) for g in rng.choice([0, 0, 1], size=len(candidates))]
        scores = rng.permutation(len(candidates)).astype(float) / len(candidates)
        users.append({"user": u, "items": candidates, "grades": grades, "scores": scores.tolist()})

    expected = {}
    for alpha in ALPHAS:
        for k in DEPTHS:
            values = []
            for entry in users:
                history = sorted(trained.get(entry["user"], set()))
                attributed = [i for i in history if has[i]]
                if not attributed:
                    values.append(None)
                    continue
                p = distributions[attributed].mean(axis=0)
                order = np.argsort(-np.array(entry["scores"]), kind="stable")[:k]
                listed = [entry["items"][j] for j in order if has[entry["items"][j]]]
                q = distributions[listed].mean(axis=0) if listed else np.zeros(N_ATTRIBUTES)
                values.append(float(rel_entr(p, (1 - alpha) * q + alpha * p).sum()))
            expected[f"{alpha}/miscal@{k}"] = values
    fixture = {
        "seed": SEED,
        "n_items": N_ITEMS,
        "n_users": N_TRAIN_USERS,
        "n_attributes": N_ATTRIBUTES,
        "attributes": [
            [[int(g), float(weights[i, g])] for g in np.flatnonzero(weights[i])]
            for i in range(N_ITEMS)
        ],
        "train": train,
        "users": users,
        "depths": DEPTHS,
        "alphas": ALPHAS,
        "expected": expected,
    }
    with open(path, "w") as f:
        json.dump(fixture, f)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "crates/recs-metrics/tests/fixtures/calibration.json")
