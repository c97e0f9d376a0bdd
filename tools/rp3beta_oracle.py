#!/usr/bin/env python3
"""Generate the RP3beta oracle fixture for recs-models-strong with numpy.

RP3beta (Paudel, Christoffel, Newell & Bernstein, ACM TiiS 2017), computed here with
dense matrices and one matrix product rather than the crate's sparse walk row by row:

    P_ui = X_ui / deg(u),   P_iu = X_ui / pop(i),   each raised to alpha elementwise
    W    = (P_iu^alpha @ P_ui^alpha) / pop(j)^beta,  W_ii = 0,  0 for items without users

then each row keeps its `neighbours` largest entries (ties broken by the smaller item
index) and, with `normalize`, is divided by its sum. A user's score of item j is
sum_i X_ui W_ij. X is the binary users x items matrix of MovieLens 100K (every rating is
positive, so every rating is an edge). Users and items are indexed as recs-data's
`load_movielens_100k` indexes them: the ids of u.user and u.item in numeric order.

Writes crates/recs-models-strong/tests/fixtures/rp3beta-ml100k.txt (or the path given as
the only argument): for each parameter setting, checksums of W, the number and an index
checksum of the kept entries, sampled entries of W (half among the kept ones, half
anywhere), sampled scores of five users and each of those users' sum of scores over every
item. Every number is printed with repr, which reads back to the same float64.

It also prints, per setting, how many rows hold a tie at the cut (the last kept and the
first dropped weight equal, decided by the item index) and the smallest relative gap
between the two in the other rows: a gap near 1e-15 would let rounding decide the cut,
and the comparison would then test rounding rather than the model. A tie is safe when the
tied weights sum the same user degrees over their common users and divide by the same
popularity: they are then the same bits however the sums are ordered, in numpy and in
the crate alike. It fails on a tie at the cut that is not of that kind.

Regenerate with:
    RECS_DATA_DIR=/path/to/data python3 tools/rp3beta_oracle.py
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from ease_oracle import load  # noqa: E402  (the same indexing of MovieLens 100K)

# (alpha, beta, neighbours, normalize): the crate's defaults, then a setting with
# alpha != 1, a tighter cut and rows left as computed.
SETTINGS = [(1.0, 0.5, 100, True), (0.8, 0.3, 30, False)]
SEED = 2017
USERS = [0, 1, 99, 404, 942]
SCORES_PER_USER = 10
WEIGHT_SAMPLES = 25  # kept entries, and as many pairs drawn anywhere


def rp3beta(x, alpha, beta, neighbours, normalize):
    """The kept weights W (dense, items x items), the number of rows with a tie at the cut
    and the smallest relative gap at a cut without one."""
    deg = x.sum(axis=1)
    pop = x.sum(axis=0)
    p_ui = np.divide(x, deg[:, None], out=np.zeros_like(x), where=deg[:, None] > 0) ** alpha
    p_iu = np.divide(x.T, pop[:, None], out=np.zeros_like(x.T), where=pop[:, None] > 0) ** alpha
    penalty = np.where(pop > 0, pop, 1.0) ** beta
    w = (p_iu @ p_ui) / penalty[None, :]
    np.fill_diagonal(w, 0.0)

    kept = np.zeros_like(w)
    ties, smallest_gap = 0, np.inf
    users_of = [np.flatnonzero(x[:, i]) for i in range(x.shape[1])]
    for i in range(w.shape[0]):
        candidates = np.flatnonzero(w[i] > 0)
        # Larger weight first, then the smaller index: lexsort's last key is the primary one.
        order = candidates[np.lexsort((candidates, -w[i, candidates]))]
        if len(order) > neighbours:
            last, first_dropped = w[i, order[neighbours - 1]], w[i, order[neighbours]]
            if last == first_dropped:
                ties += 1
                tied = candidates[np.isclose(w[i, candidates], last, rtol=1e-12, atol=0)]
                paths = {(tuple(deg[np.intersect1d(users_of[i], users_of[j])]), pop[j])
                         for j in tied}
                assert len(paths) == 1, f"row {i}: a tie at the cut reached along other paths"
            else:
                smallest_gap = min(smallest_gap, (last - first_dropped) / last)
        keep = order[:neighbours]
        kept[i, keep] = w[i, keep]
        if normalize:
            total = kept[i].sum()
            if total > 0:
                kept[i] /= total
    return kept, ties, smallest_gap


def main():
    root = os.path.join(os.environ["RECS_DATA_DIR"], "ml-100k")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "crates", "recs-models-strong", "tests", "fixtures",
        "rp3beta-ml100k.txt")
    x, n_events = load(root)
    n_users, n_items = x.shape
    rng = np.random.default_rng(SEED)
    lines = [
        "# RP3beta on MovieLens 100K computed with numpy by tools/rp3beta_oracle.py; do not edit.",
        "# shape: users items events; then per setting: params alpha beta neighbours normalize;",
        "# sum = sum W_ij; sq_sum = sum W_ij^2; kept count sum_(i,j kept) (i * items + j);",
        "# weight i j W_ij; score u j (x_u W)_j; user_sum u sum_j (x_u W)_j",
        f"shape {n_users} {n_items} {n_events}",
    ]
    for alpha, beta, neighbours, normalize in SETTINGS:
        w, ties, gap = rp3beta(x, alpha, beta, neighbours, normalize)
        print(f"alpha {alpha} beta {beta} neighbours {neighbours} normalize {normalize}: "
              f"{ties} rows with a tie at the cut, smallest relative gap at another cut "
              f"{gap:.3e}", file=sys.stderr)
        scores = x[USERS] @ w
        rows, cols = np.nonzero(w)
        index_sum = int((rows.astype(np.int64) * n_items + cols).sum())
        lines += [
            f"params {alpha!r} {beta!r} {neighbours} {str(normalize).lower()}",
            f"sum {float(w.sum())!r}",
            f"sq_sum {float((w * w).sum())!r}",
            f"kept {len(rows)} {index_sum}",
        ]
        for k in rng.choice(len(rows), size=WEIGHT_SAMPLES, replace=False):
            i, j = int(rows[k]), int(cols[k])
            lines.append(f"weight {i} {j} {float(w[i, j])!r}")
        for _ in range(WEIGHT_SAMPLES):
            i, j = (int(k) for k in rng.integers(0, n_items, size=2))
            lines.append(f"weight {i} {j} {float(w[i, j])!r}")
        for row, user in enumerate(USERS):
            for j in sorted(int(k) for k in rng.choice(n_items, size=SCORES_PER_USER,
                                                       replace=False)):
                lines.append(f"score {user} {j} {float(scores[row, j])!r}")
            lines.append(f"user_sum {user} {float(scores[row].sum())!r}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
