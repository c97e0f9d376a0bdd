#!/usr/bin/env python3
"""Generate the SLIM oracle fixture for recs-models-strong with scikit-learn.

SLIM (Ning & Karypis, ICDM 2011) solves, for every item j, the elastic net

    minimise  1/(2 n_users) ||x_j - X w_j||^2 + alpha l1_ratio ||w_j||_1
              + 1/2 alpha (1 - l1_ratio) ||w_j||^2      subject to  w_j >= 0, w_jj = 0,

which is scikit-learn's ElasticNet(alpha, l1_ratio, positive=True, fit_intercept=False)
fitted on X with column j set to zero (a zero column keeps a zero coefficient), target
x_j. Column j of the coefficient matrix W is that fit's coef_. With `neighbours = k`
(fsSLIM) every column of X except the k items sharing the most users with j (the smaller
item index on a tie, only items sharing at least one user) is set to zero as well.

X is the binary users x items matrix of the first 300 users and first 200 items of
MovieLens 100K (every rating is an event worth 1), indexed as recs-data's
`load_movielens_100k` indexes them: the ids of u.user and u.item in numeric order. The
crate solves by plain cyclic coordinate descent; scikit-learn adds gap-safe screening and
stops on the duality gap, so both are run to a tight tolerance and compared within one.

Writes crates/recs-models-strong/tests/fixtures/slim-ml100k.txt (or the path given as
the only argument): for each parameter setting, the number of non-zero weights and every
non-zero weight, column by column, to 12 significant digits (every weight is below 1, so
the printing moves none by more than 5e-13, far below the crate's agreement with
scikit-learn, measured at 3e-12). It fails when a fit does not converge, or when a weight
is negative or on the diagonal.

Regenerate with (scikit-learn 1.9.1):
    RECS_DATA_DIR=/path/to/data python3 tools/slim_oracle.py
"""

import os
import sys
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import ElasticNet

sys.path.insert(0, os.path.dirname(__file__))
from ease_oracle import load  # noqa: E402  (the same indexing of MovieLens 100K)

USERS, ITEMS = 300, 200
# (alpha, l1_ratio, neighbours): the crate's defaults; a larger l1 share with a smaller
# alpha (a sparser W); and the defaults with each column cut to 20 candidates (fsSLIM).
SETTINGS = [(0.1, 0.03, None), (0.01, 0.2, None), (0.1, 0.03, 20)]
# scikit-learn's tol is on the duality gap, relative to ||x_j||^2: tight enough that the
# fixture's weights are the optimum to far below the test's tolerance.
TOL = 1e-14
MAX_ITER = 100_000


def candidates(x, j, neighbours):
    """The items whose columns stay in column j's problem."""
    common = x.T @ x[:, j]
    items = [i for i in range(x.shape[1]) if i != j and common[i] > 0]
    if neighbours is not None:
        items = sorted(items, key=lambda i: (-common[i], i))[:neighbours]
    return items


def slim(x, alpha, l1_ratio, neighbours):
    n_items = x.shape[1]
    w = np.zeros((n_items, n_items))
    for j in range(n_items):
        keep = np.zeros(n_items, dtype=bool)
        keep[candidates(x, j, neighbours)] = True
        features = np.where(keep[None, :], x, 0.0)
        model = ElasticNet(alpha=alpha, l1_ratio=l1_ratio, positive=True, fit_intercept=False,
                           tol=TOL, max_iter=MAX_ITER)
        model.fit(features, x[:, j])
        w[:, j] = model.coef_
    assert (w >= 0).all(), "a negative weight"
    assert (np.diag(w) == 0).all(), "a weight on the diagonal"
    assert w.max() < 1, "a weight of 1 or more: 12 significant digits may not be enough"
    return w


def main():
    warnings.simplefilter("error", ConvergenceWarning)
    root = os.path.join(os.environ["RECS_DATA_DIR"], "ml-100k")
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(__file__), "..", "crates", "recs-models-strong", "tests", "fixtures",
        "slim-ml100k.txt")
    x, _ = load(root)
    x = np.ascontiguousarray(x[:USERS, :ITEMS])
    lines = [
        "# SLIM on the first 300 users x 200 items of MovieLens 100K, fitted per item with",
        "# scikit-learn's ElasticNet(positive=True, fit_intercept=False, "
        f"tol={TOL!r}, max_iter={MAX_ITER})",
        "# by tools/slim_oracle.py; do not edit.",
        "# shape: users items events; then per setting: params alpha l1_ratio neighbours",
        "# (none: every item); count = non-zero weights; column j i:W_ij ... (its non-zeros,",
        "# to 12 significant digits)",
        f"shape {USERS} {ITEMS} {int(x.sum())}",
    ]
    for alpha, l1_ratio, neighbours in SETTINGS:
        w = slim(x, alpha, l1_ratio, neighbours)
        lines.append(f"params {alpha!r} {l1_ratio!r} "
                     f"{'none' if neighbours is None else neighbours}")
        lines.append(f"count {int((w > 0).sum())}")
        for j in range(ITEMS):
            entries = " ".join(f"{i}:{float(w[i, j]):.12g}" for i in np.flatnonzero(w[:, j]))
            lines.append(f"column {j} {entries}".rstrip())
        print(f"alpha {alpha} l1_ratio {l1_ratio} neighbours {neighbours}: "
              f"{int((w > 0).sum())} non-zero weights", file=sys.stderr)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
