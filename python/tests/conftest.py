"""Generated evaluation cases shared by the tests."""

import numpy as np
import pandas as pd
import pytest


def make_case(seed, n_users=30, n_items=40, ties=False, all_candidates=True):
    """A qrels frame (integer grades 0-3, every user with a relevant item) and a run
    frame (float32 scores; distinct unless `ties`). With `all_candidates`, the qrels
    list every (user, item) pair the run scores, grade 0 included."""
    rng = np.random.default_rng(seed)
    q_rows, r_rows = [], []
    for u in range(n_users):
        n = int(rng.integers(5, n_items))
        items = rng.choice(n_items, size=n, replace=False)
        grades = rng.choice([0, 0, 0, 1, 2, 3], size=n)
        grades[0] = max(grades[0], 1)
        if ties:
            scores = rng.integers(0, 4, size=n).astype(np.float32)
        else:
            scores = rng.permutation(n).astype(np.float32) / np.float32(n) + np.float32(u)
        for i, g, s in zip(items, grades, scores):
            if all_candidates or g > 0:
                q_rows.append((f"u{u}", f"i{i}", float(g)))
            r_rows.append((f"u{u}", f"i{i}", float(s)))
    qrels = pd.DataFrame(q_rows, columns=["user", "item", "grade"])
    run = pd.DataFrame(r_rows, columns=["user", "item", "score"])
    return qrels, run


@pytest.fixture(params=[1, 2, 3])
def seed(request):
    return request.param
