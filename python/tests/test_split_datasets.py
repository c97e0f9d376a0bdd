"""Protocols and datasets from Python."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recs


def events(n_users=20, n_items=30, seed=0):
    rng = np.random.default_rng(seed)
    rows = []
    for u in range(n_users):
        for i in rng.choice(n_items, size=int(rng.integers(3, 12)), replace=False):
            rows.append((u, int(i), float(rng.integers(1, 6)), int(rng.integers(0, 10_000))))
    return pd.DataFrame(rows, columns=["user", "item", "rating", "timestamp"])


def pairs(frame):
    return set(zip(frame.user.astype(str), frame.item.astype(str)))


@pytest.mark.parametrize(
    "protocol, keys",
    [("holdout", {"test_fraction": 0.25}), ("leave-k-out", {"k": 2}), ("kfold-events", {"folds": 4}), ("temporal", {"cut": "fraction:0.7"})],
)
def test_parts_are_disjoint_complete_and_reproducible(protocol, keys):
    data = events()
    parts = recs.split(data, protocol, seed=7, timestamp_col="timestamp", **keys)
    train, test = pairs(parts["train"]), pairs(parts["test"])
    assert not train & test
    assert train | test == pairs(data)
    assert len(test) > 0
    again = recs.split(data, protocol, seed=7, timestamp_col="timestamp", **keys)
    assert again["test"].equals(parts["test"])
    # Ratings travel with their pair.
    joined = parts["test"].assign(user=lambda f: f.user.astype(int), item=lambda f: f.item.astype(int)).merge(data, on=["user", "item"])
    assert (joined.rating_x == joined.rating_y).all()


def test_a_different_seed_gives_a_different_holdout():
    data = events()
    a = recs.split(data, "holdout", seed=1)["test"]
    b = recs.split(data, "holdout", seed=2)["test"]
    assert pairs(a) != pairs(b)


def test_temporal_cut_puts_later_events_in_test():
    data = events()
    parts = recs.split(data, "temporal", timestamp_col="timestamp", cut="fraction:0.5")
    assert parts["train"].timestamp.max() <= parts["test"].timestamp.min()


def test_bad_protocols_and_keys_are_errors():
    data = events()
    with pytest.raises(recs.RecsError, match="holdout"):
        recs.split(data, "random-split")
    with pytest.raises(recs.RecsError, match="its keys: test_fraction"):
        recs.split(data, "holdout", k=3)
    with pytest.raises(recs.RecsError):
        recs.split(pd.concat([data, data.head(1)]), "holdout")


DATA = os.environ.get("RECS_DATA_DIR")


@pytest.mark.skipif(not DATA or not (Path(DATA) / "ml-100k").is_dir(), reason="RECS_DATA_DIR has no ml-100k")
def test_movielens_100k_loads_as_a_frame():
    frame = recs.datasets.load("ml-100k")
    assert list(frame.columns) == ["user", "item", "rating", "timestamp"]
    assert len(frame) == 100_000
    assert frame.user.nunique() == 943 and frame.item.nunique() == 1682
    assert set(frame.rating.unique()) == {1.0, 2.0, 3.0, 4.0, 5.0}


def test_a_missing_dataset_is_an_error(tmp_path, monkeypatch):
    monkeypatch.delenv("RECS_DATA_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with pytest.raises(recs.RecsError):
        recs.datasets.load("ml-100k", data_dir=tmp_path)
    with pytest.raises(recs.RecsError):
        recs.datasets.load("no-such-dataset", data_dir=tmp_path)


@pytest.mark.skipif(not DATA or not (Path(DATA) / "ml-100k").is_dir(), reason="RECS_DATA_DIR has no ml-100k")
def test_the_full_catalog_walkthrough_of_the_docs_runs():
    events = recs.datasets.load("ml-100k")
    parts = recs.split(events, "holdout", test_fraction=0.2, seed=1)
    train, test = parts["train"], parts["test"]
    popularity = train.groupby("item").size()
    users = test.user.unique()
    run = pd.DataFrame({
        "user": np.repeat(users, len(popularity)),
        "item": np.tile(popularity.index.to_numpy(), len(users)),
        "score": np.tile(popularity.to_numpy(dtype=np.float32), len(users)),
    })
    qrels = recs.Qrels.from_df(test[test.rating >= 4], grade_col="rating")
    out = recs.evaluate(qrels, recs.Run.from_df(run), "roc,ndcg@10,p@10", candidates="catalog", train=train, threshold=4, details=True)
    # Popularity ranks held-out liked items far above chance on MovieLens 100K.
    assert 0.8 < out["roc_auc"] < 0.95
    assert out["p@10"] > 0.05
    # Every run row scores a candidate or is ignored (a training event, or a user
    # without a liked test item); candidates without a row (items only in the test
    # part) are missing.
    assert out["n_candidates"] - out["n_missing"] + out["n_ignored"] == len(run)
    assert out["n_missing"] > 0
    beyond = recs.evaluate(qrels, recs.Run.from_df(run), "arp@10,aplt@10,epc@10,gini@10", candidates="catalog", train=train, threshold=4)
    # Popularity recommends head items only, the same few to everyone.
    assert beyond["aplt@10"] == 0.0
    assert beyond["arp@10"] > 200 and beyond["gini@10"] > 0.95
