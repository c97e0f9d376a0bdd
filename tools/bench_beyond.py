#!/usr/bin/env python3
"""The popularity metrics RecTools and `recs eval` share (ARP@10, MIUF@10), on the same
top-10 lists of a MovieLens-1M-shaped case, whole process: the values must be equal.

    pip install rectools pandas numpy
    python3 tools/bench_beyond.py gen DIR          # train.tsv, qrels.tsv, run.tsv in DIR
    python3 tools/bench_beyond.py rectools DIR     # RecTools' values, as JSON
    farm-bench -n 5 -- target/release/recs eval --qrels DIR/qrels.tsv --run DIR/run.tsv \
        --candidates run --train DIR/train.tsv --metrics arp@10,miuf@10 --json \
        --vs "python3 tools/bench_beyond.py rectools DIR"

The case: 6,040 users and 3,706 items (MovieLens 1M's shape), about 900,000 training
events drawn with a power-law item popularity (unique user-item pairs), 10 held-out items
per user, and each user's top 10 among the items it did not train on, ranked by a seeded
random score (no ties: the two sides then rank alike). `recs eval` reads the run's ten
lines per user as the candidates (`--candidates run`).
"""

import json
import sys

import numpy as np
import pandas as pd

SEED = 20200101
N_USERS, N_ITEMS, K = 6040, 3706, 10


def generate(out):
    rng = np.random.default_rng(SEED)
    weights = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.8
    weights /= weights.sum()
    train_rows, qrels_rows, run_rows = [], [], []
    for u in range(N_USERS):
        n = int(rng.integers(20, 280))
        seen = rng.choice(N_ITEMS, size=n + 10, replace=False, p=weights)
        train, held = seen[:n], seen[n:]
        train_rows.extend((u, int(i)) for i in train)
        qrels_rows.extend((u, int(i), 1) for i in held)
        unseen = np.setdiff1d(np.arange(N_ITEMS), train)
        scores = rng.random(len(unseen))
        top = np.argsort(-scores, kind="stable")[:K]
        run_rows.extend((u, int(unseen[j]), float(np.float32(scores[j]))) for j in top)
    pd.DataFrame(train_rows, columns=["user", "item"]).to_csv(f"{out}/train.tsv", sep="\t", index=False)
    pd.DataFrame(qrels_rows).to_csv(f"{out}/qrels.tsv", sep="\t", index=False, header=False)
    pd.DataFrame(run_rows).to_csv(f"{out}/run.tsv", sep="\t", index=False, header=False)


def rectools_side(out):
    from rectools import Columns
    from rectools.metrics import AvgRecPopularity, MeanInvUserFreq

    train = pd.read_csv(f"{out}/train.tsv", sep="\t").rename(columns={"user": Columns.User, "item": Columns.Item})
    run = pd.read_csv(f"{out}/run.tsv", sep="\t", header=None, names=[Columns.User, Columns.Item, "score"])
    run[Columns.Rank] = run.groupby(Columns.User)["score"].rank(method="first", ascending=False).astype(int)
    values = {
        "arp@10": float(AvgRecPopularity(k=K).calc(run, train)),
        "miuf@10": float(MeanInvUserFreq(k=K).calc(run, train)),
    }
    print(json.dumps(values))


if __name__ == "__main__":
    {"gen": generate, "rectools": rectools_side}[sys.argv[1]](sys.argv[2])
