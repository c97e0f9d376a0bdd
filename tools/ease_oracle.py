#!/usr/bin/env python3
"""Generate the EASE oracle fixture for recs-models-strong with numpy.

EASE (Steck, WWW 2019) in closed form, computed here with a general inverse
(np.linalg.inv, LU-based) rather than the Cholesky factorisation the crate uses:

    P = (X^T X + lambda I)^-1,    B = I - P diagMat(1 / diag(P)),

X the binary users x items matrix of MovieLens 100K (every rating is an event worth 1).
Users and items are indexed as recs-data's `load_movielens_100k` indexes them: the ids
of u.user and u.item in numeric order.

Writes crates/recs-models-strong/tests/fixtures/ease-ml100k.txt (or the path given as the
only argument): checksums of B, sampled entries of B, sampled scores (X B)[u, j] of five
users and each of those users' sum of scores over every item. Every number is printed
with repr, which reads back to the same float64.

Regenerate with:
    RECS_DATA_DIR=/path/to/data python3 tools/ease_oracle.py
"""

import os
import sys

import numpy as np

LAMBDA = 500.0
SEED = 2019
USERS = [0, 1, 99, 404, 942]
SCORES_PER_USER = 10
WEIGHT_SAMPLES = 50


def ids_in_numeric_order(path):
    """The first '|'-separated field of every line, as integers in increasing order."""
    with open(path, encoding="latin-1") as f:
        ids = [int(line.split("|", 1)[0]) for line in f if line.strip()]
    return sorted(set(ids))


def load(root):
    users = ids_in_numeric_order(os.path.join(root, "u.user"))
    items = ids_in_numeric_order(os.path.join(root, "u.item"))
    user_index = {u: k for k, u in enumerate(users)}
    item_index = {i: k for k, i in enumerate(items)}
    x = np.zeros((len(users), len(items)))
    n_events = 0
    with open(os.path.join(root, "u.data")) as f:
        for line in f:
            user, item, _rating, _time = line.split("\t")
            x[user_index[int(user)], item_index[int(item)]] = 1.0
            n_events += 1
    assert x.sum() == n_events, "u.data lists a (user, item) pair twice"
    return x, n_events


def ease(x, lam):
    gram = x.T @ x
    gram[np.diag_indices_from(gram)] += lam
    p = np.linalg.inv(gram)
    b = p / (-np.diag(p))
    b[np.diag_indices_from(b)] = 0.0
    return b


def main():
    root = os.path.join(os.environ["RECS_DATA_DIR"], "ml-100k")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "crates", "recs-models-strong", "tests", "fixtures",
        "ease-ml100k.txt")
    x, n_events = load(root)
    n_users, n_items = x.shape
    b = ease(x, LAMBDA)
    scores = x[USERS] @ b
    rng = np.random.default_rng(SEED)
    lines = [
        "# EASE on MovieLens 100K computed with numpy by tools/ease_oracle.py; do not edit.",
        "# shape: users items events; lambda; abs_sum = sum |B_ij|; sq_sum = sum B_ij^2;",
        "# weight i j B_ij; score u j (x_u B)_j; user_sum u sum_j (x_u B)_j",
        f"shape {n_users} {n_items} {n_events}",
        f"lambda {LAMBDA!r}",
        f"abs_sum {float(np.abs(b).sum())!r}",
        f"sq_sum {float((b * b).sum())!r}",
    ]
    for _ in range(WEIGHT_SAMPLES):
        i, j = (int(k) for k in rng.integers(0, n_items, size=2))
        lines.append(f"weight {i} {j} {float(b[i, j])!r}")
    for row, user in enumerate(USERS):
        for j in sorted(int(k) for k in rng.choice(n_items, size=SCORES_PER_USER, replace=False)):
            lines.append(f"score {user} {j} {float(scores[row, j])!r}")
        lines.append(f"user_sum {user} {float(scores[row].sum())!r}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
