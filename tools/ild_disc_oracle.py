#!/usr/bin/env python3
"""Oracle fixture for the rank-discounted intra-list diversity `ild_disc@N` of recs-metrics.

Reads the lists and attributes of crates/recs-metrics/tests/fixtures/beyond.json (each test
user's candidates with distinct scores, so the top-N lists have no ties; every item has
random binary attributes) and writes crates/recs-metrics/tests/fixtures/ild_disc.json with
the mean over users (lists of at least 2 items) of Vargas & Castells' expected intra-list
diversity as RankSys's `EILD` metric computes it, with every item's relevance 1 and the
logarithmic discount for both the rank and the gap between two ranks:

    EILD(L) = sum_k disc(k) * [sum_{l != k} w(k, l) d(i_k, i_l) / sum_{l != k} w(k, l)]
              / sum_k disc(k)
    disc(k) = 1 / log2(k + 2) for a 0-based rank k,  w(k, l) = disc(max(0, l - k - 1))

with d the cosine or Jaccard distance of scipy's `cdist` (keys ild_disc_cosine@N,
ild_disc_jaccard@N), written here as a plain loop over the list.

Regenerate with:
    python3 tools/ild_disc_oracle.py
"""

import json
import sys

import numpy as np
from scipy.spatial.distance import cdist

BEYOND = "crates/recs-metrics/tests/fixtures/beyond.json"
OUT = "crates/recs-metrics/tests/fixtures/ild_disc.json"


def disc(k):
    return 1.0 / np.log2(k + 2.0)


def eild(distances):
    n = len(distances)
    value, norm = 0.0, 0.0
    for k in range(n):
        inner, inner_norm = 0.0, 0.0
        for j in range(n):
            if j == k:
                continue
            w = disc(max(0, j - k - 1))
            inner += w * distances[k, j]
            inner_norm += w
        value += disc(k) * inner / inner_norm
        norm += disc(k)
    return value / norm


def main(beyond, out):
    with open(beyond) as f:
        fixture = json.load(f)
    n_items = fixture["n_items"]
    attributes = np.zeros((n_items, 8))
    for item, row in enumerate(fixture["attributes"]):
        attributes[item, row] = 1.0
    expected = {}
    for k in fixture["depths"]:
        lists = []
        for entry in fixture["users"]:
            order = np.argsort(-np.asarray(entry["scores"]), kind="stable")
            lists.append([entry["items"][i] for i in order[:k]])
        for metric in ("cosine", "jaccard"):
            values = [
                eild(cdist(attributes[lst], attributes[lst], metric))
                for lst in lists
                if len(lst) >= 2
            ]
            if values:
                expected[f"ild_disc_{metric}@{k}"] = float(np.mean(values))
    with open(out, "w") as f:
        json.dump({"source": beyond, "expected": expected}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(*(sys.argv[1:3] if len(sys.argv) > 2 else (BEYOND, OUT)))
