#!/usr/bin/env python3
"""Oracle fixture for the popularity, novelty and exposure metrics of recs-metrics.

Writes crates/recs-metrics/tests/fixtures/beyond.json (or the path given as the only
argument): a seeded training set, each test user's candidates with grades and distinct
scores (so the top-N lists have no ties), and the values of independent implementations
on the top-N lists:

  arp@N, miuf@N          RecTools (PyPI `rectools`): AvgRecPopularity, MeanInvUserFreq
  serendipity@N          RecTools' Serendipity (catalog: the 40 items; relevant: grade >= 1)
  epc@N, efd@N           Elliot's definitions (binary relevance, 1/log2(rank + 1)
                         discount, normalised by the list's total discount; users without
                         a relevant item left out), re-implemented here in numpy
  epc_flat@N, efd_flat@N the same without the rank discount
  aplt@N, aclt@N         Elliot's definitions with its short head (most popular first,
                         items added until they hold half of the training pairs), except
                         that items as popular as the last one added join the head
                         (Elliot splits them by item order; recs never splits equals)
  gini@N, entropy@N      the Gini index (numpy, sorted formula) and scipy.stats.entropy
                         (nats) of the number of lists holding each catalog item
  popreo@N, poprsp@N     Elliot's PopREO and PopRSP (head and tail as for aplt@N): std over
                         mean of the two groups' pooled rates, numpy
  ild@N                  the mean pairwise distance of each list's items by their random
                         binary attributes (every item has at least one), scipy's pdist
                         with `cosine` and `jaccard` (keys ild_cosine@N, ild_jaccard@N)

Regenerate with:
    pip install rectools scipy numpy pandas
    python3 tools/beyond_oracle.py crates/recs-metrics/tests/fixtures/beyond.json
"""

import json
import math
import sys

import numpy as np
import pandas as pd
from rectools import Columns
from rectools.metrics import AvgRecPopularity, MeanInvUserFreq, Serendipity
from scipy.spatial.distance import pdist
from scipy.stats import entropy

SEED = 20181002
N_TRAIN_USERS = 60
N_ITEMS = 40
N_TEST_USERS = 30
DEPTHS = [1, 5, 10]
HEAD_SHARE = 0.5


def main(path):
    rng = np.random.default_rng(SEED)
    # Training pairs, unique per (user, item); item popularity skewed; items 35..39 cold.
    weights = 1.0 / np.arange(1, 36) ** 0.9
    weights /= weights.sum()
    train = []
    for u in range(N_TRAIN_USERS):
        n = int(rng.integers(1, 12))
        for i in sorted(rng.choice(35, size=n, replace=False, p=weights)):
            train.append((u, int(i)))
    counts = np.zeros(N_ITEMS, dtype=np.int64)
    for _, i in train:
        counts[i] += 1
    trained = {}
    for u, i in train:
        trained.setdefault(u, set()).add(i)

    # Test users are training users 0..29; candidates: every item they did not train on.
    users = []
    for u in range(N_TEST_USERS):
        candidates = [i for i in range(N_ITEMS) if i not in trained.get(u, set())]
        grades = [float(g) for g in rng.choice([0, 0, 0, 1, 2], size=len(candidates))]
        if u % 7 == 3:
            grades = [0.0] * len(candidates)  # a user without a relevant item
        scores = rng.permutation(len(candidates)).astype(float) / len(candidates)
        users.append({"user": u, "items": candidates, "grades": grades, "scores": scores.tolist()})

    # Binary attributes: each item holds 1 to 3 of 8.
    attributes = np.zeros((N_ITEMS, 8), dtype=bool)
    for i in range(N_ITEMS):
        attributes[i, rng.choice(8, size=int(rng.integers(1, 4)), replace=False)] = True

    prev = pd.DataFrame(train, columns=[Columns.User, Columns.Item])
    n_users = prev[Columns.User].nunique()
    head = elliot_short_head(counts, HEAD_SHARE)
    order = sorted(range(N_ITEMS), key=lambda i: -counts[i])
    print("head:", len(head), "items; the boundary count", counts[order[len(head) - 1]],
          "is shared by", int((counts == counts[order[len(head) - 1]]).sum()), "items")
    expected = {}
    for k in DEPTHS:
        lists = {}
        for entry in users:
            order = np.argsort(-np.array(entry["scores"]), kind="stable")[:k]
            lists[entry["user"]] = [
                (entry["items"][j], entry["grades"][j] >= 1.0) for j in order
            ]
        reco = pd.DataFrame(
            [(u, i, r + 1) for u, lst in lists.items() for r, (i, _) in enumerate(lst)],
            columns=[Columns.User, Columns.Item, Columns.Rank],
        )
        expected[f"arp@{k}"] = float(AvgRecPopularity(k=k).calc(reco, prev))
        expected[f"miuf@{k}"] = float(MeanInvUserFreq(k=k).calc(reco, prev))
        relevant = pd.DataFrame(
            [(e["user"], i) for e in users for i, g in zip(e["items"], e["grades"]) if g >= 1.0],
            columns=[Columns.User, Columns.Item],
        )
        expected[f"serendipity@{k}"] = float(
            Serendipity(k=k).calc(reco, relevant, prev, list(range(N_ITEMS)))
        )
        novelty_epc = {i: 1.0 - counts[i] / n_users for i in range(N_ITEMS) if counts[i] > 0}
        total = counts.sum()
        novelty_efd = {i: -math.log2(counts[i] / total) for i in range(N_ITEMS) if counts[i] > 0}
        max_efd = -math.log2(counts[counts > 0].min() / total)
        for name, novelty, cold in [("epc", novelty_epc, 1.0), ("efd", novelty_efd, max_efd)]:
            for flat in (False, True):
                values = []
                for entry in users:
                    if not any(g >= 1.0 for g in entry["grades"]):
                        continue  # Elliot leaves users without a relevant item out
                    lst = lists[entry["user"]]
                    nov = norm = 0.0
                    for r, (i, rel) in enumerate(lst):
                        disc = 1.0 if flat else 1.0 / math.log2(r + 2)
                        nov += (1.0 if rel else 0.0) * disc * novelty.get(i, cold)
                        norm += disc
                    values.append(nov / norm if norm > 0 else 0.0)
                key = f"{name}_flat@{k}" if flat else f"{name}@{k}"
                expected[key] = float(np.mean(values))
        aplt = [len({i for i, _ in lst} & head_tail(head)) / len(lst) for lst in lists.values()]
        aclt = [len({i for i, _ in lst} & head_tail(head)) for lst in lists.values()]
        expected[f"aplt@{k}"] = float(np.mean(aplt))
        expected[f"aclt@{k}"] = float(np.mean(aclt))
        exposure = np.zeros(N_ITEMS)
        for lst in lists.values():
            for i, _ in lst:
                exposure[i] += 1
        expected[f"gini@{k}"] = gini(exposure)
        tail_set = head_tail(head)
        num, den = np.zeros(2), np.zeros(2)
        num_o, den_o = np.zeros(2), np.zeros(2)
        for entry in users:
            listed = {i for i, _ in lists[entry["user"]]}
            rel = {i for i, g in zip(entry["items"], entry["grades"]) if g >= 1.0}
            for g, group in enumerate([set(head), tail_set]):
                num[g] += len(listed & group)
                den[g] += len(set(entry["items"]) & group)
                if rel:
                    num_o[g] += len(listed & rel & group)
                    den_o[g] += len(rel & group)
        for name, (a, b) in (("poprsp", (num, den)), ("popreo", (num_o, den_o))):
            rates = a / b
            expected[f"{name}@{k}"] = float(np.std(rates) / np.mean(rates))
        for metric in ("cosine", "jaccard"):
            values = [
                pdist(attributes[[i for i, _ in lst]].astype(float), metric).mean()
                for lst in lists.values()
                if len(lst) >= 2
            ]
            if values:
                expected[f"ild_{metric}@{k}"] = float(np.mean(values))
        expected[f"entropy@{k}"] = float(entropy(exposure))
    fixture = {
        "seed": SEED,
        "n_items": N_ITEMS,
        "head_share": HEAD_SHARE,
        "train": train,
        "attributes": [np.flatnonzero(row).tolist() for row in attributes],
        "users": users,
        "depths": DEPTHS,
        "expected": expected,
    }
    with open(path, "w") as f:
        json.dump(fixture, f, indent=1)
        f.write("\n")


def elliot_short_head(counts, share):
    """Elliot's short head: most popular first, items added until the remaining share of
    the training pairs reaches 0; then every item as popular as the last one added."""
    order = sorted(range(len(counts)), key=lambda i: -counts[i])
    limit = counts.sum() * share
    head = []
    for i in order:
        head.append(i)
        limit -= counts[i]
        if limit <= 0:
            break
    last = counts[head[-1]]
    return [i for i in range(len(counts)) if counts[i] >= max(last, 1)]


def head_tail(head):
    return set(range(N_ITEMS)) - set(head)


def gini(x):
    x = np.sort(np.asarray(x, dtype=float))
    n = len(x)
    if n == 0 or x.sum() == 0:
        return 0.0
    return float(2.0 * np.sum(np.arange(1, n + 1) * x) / (n * x.sum()) - (n + 1) / n)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "crates/recs-metrics/tests/fixtures/beyond.json")
