"""The same files through `recs eval --json` and through Python: the same keys and
values. Needs the `recs` binary: `RECS_CLI`, else `target/debug/recs` of the
repository (built by `cargo test --workspace`, which CI runs first)."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recs
from conftest import make_case

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
CLI = Path(os.environ.get("RECS_CLI", TARGET / "debug" / "recs"))

pytestmark = pytest.mark.skipif(not CLI.is_file(), reason=f"no recs binary at {CLI}")

METRICS = "roc,croc,user_auc,p@5,r@5,f1@5,hit@3,ndcg@10,ndcg_exp@10,ap@10,map,mrr,half_life@5,coverage@5"


def write(path, frame, value, trec=False):
    with open(path, "w") as f:
        for k, (u, i, v) in enumerate(zip(frame.user, frame.item, frame[value])):
            if trec:
                f.write(f"{u} Q0 {i} {k + 1} {np.float32(v)} sys\n")
            else:
                f.write(f"{u}\t{i}\t{np.float32(v)}\n")


def write_train(path, frame):
    """Training events as `recs eval --train` reads them: `user item 1` lines."""
    with open(path, "w") as f:
        for u, i in zip(frame.user, frame.item):
            f.write(f"{u}\t{i}\t1\n")


def cli(*args):
    out = subprocess.run([str(CLI), "eval", "--json", *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def movielens_leave_one_out():
    """MovieLens 100K, each user's last event held out: training events, held-out events
    and each item's number of training events (skips without `RECS_DATA_DIR`)."""
    if "RECS_DATA_DIR" not in os.environ:
        pytest.skip("RECS_DATA_DIR is not set")
    events = recs.datasets.load("ml-100k")
    parts = recs.split(events, "leave-k-out", k=1, seed=0, timestamp_col="timestamp")
    train, test = parts["train"], parts["test"]
    return train, test, train.groupby("item").size()


@pytest.mark.parametrize("candidates", ["qrels", "run"])
@pytest.mark.parametrize("ties", ["expected", "item-ascending"])
def test_python_gives_the_numbers_of_recs_eval(tmp_path, seed, candidates, ties):
    qrels_frame, run_frame = make_case(seed, ties=True, all_candidates=candidates == "qrels")
    run_frame = run_frame.sample(frac=0.9, random_state=seed)
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.tsv", run_frame, "score")
    expected = cli("--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.tsv", "--metrics", METRICS, "--candidates", candidates, "--ties", ties)
    ours = recs.evaluate(
        recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), METRICS, ties=ties, candidates=candidates, details=True
    )
    # Warnings name the sources (a file there, a frame here); every other key is equal.
    assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
    assert ours == expected


def test_catalog_candidates_give_the_numbers_of_recs_eval(tmp_path):
    qrels_frame, run_frame = make_case(5, all_candidates=False)
    train = run_frame.sample(frac=0.2, random_state=1)[["user", "item"]]
    write_train(tmp_path / "train.tsv", train)
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.tsv", run_frame, "score")
    expected = cli("--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.tsv", "--metrics", "roc,croc,ndcg@10,map", "--candidates", "catalog", "--train", tmp_path / "train.tsv")
    ours = recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), "roc,croc,ndcg@10,map", candidates="catalog", train=train, details=True)
    assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
    assert ours == expected


def test_a_trec_run_file_gives_the_numbers_of_recs_eval(tmp_path):
    qrels_frame, run_frame = make_case(4, all_candidates=False)
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.trec", run_frame, "score", trec=True)
    expected = cli("--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.trec", "--metrics", METRICS)
    ours = recs.evaluate(recs.Qrels.from_file(tmp_path / "q.tsv"), recs.Run.from_file(tmp_path / "r.trec"), METRICS, details=True)
    assert ours == expected


@pytest.mark.parametrize("draw", ["sampled:20", "sampled:20:popularity", "sampled:500"])
def test_sampled_candidates_give_the_numbers_of_recs_eval(tmp_path, draw):
    """`candidates="sampled:N"` draws each user's negatives as `recs eval --candidates
    sampled:N --seed S` does (the same candidates, so every number equal), whatever the
    order of the training rows; 500 negatives is more than some users have (a warning)."""
    qrels_frame, run_frame = make_case(7, all_candidates=False)
    train = run_frame.sample(frac=0.3, random_state=2)[["user", "item"]]
    write_train(tmp_path / "train.tsv", train)
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.tsv", run_frame, "score")
    metrics = "roc,croc,p@5,ndcg@10,map,mrr"
    expected = cli("--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.tsv", "--metrics", metrics, "--candidates", draw, "--train", tmp_path / "train.tsv", "--seed", 11)
    q, r = recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame)
    ours = recs.evaluate(q, r, metrics, candidates=draw, train=train, seed=11, details=True)
    shuffled = recs.evaluate(q, r, metrics, candidates=draw, train=train.sample(frac=1.0, random_state=3), seed=11, details=True)
    assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
    assert ours == expected
    assert shuffled.pop("warnings") is not None and shuffled == ours
    assert ours["candidates"] == (draw if draw.count(":") == 2 else draw + ":uniform")
    assert "sampling_seed" not in recs.evaluate(q, r, metrics, candidates=draw, train=train, seed=11)
    # Another seed draws other negatives.
    other = recs.evaluate(q, r, metrics, candidates=draw, train=train, seed=12, details=True)
    assert draw == "sampled:500" or other["roc_auc"] != ours["roc_auc"]


def test_sampled_candidates_on_movielens_give_the_numbers_of_recs_eval(tmp_path):
    train, test, popularity = movielens_leave_one_out()
    users = test.user.unique()
    run_frame = pd.DataFrame({"user": np.repeat(users, len(popularity)), "item": np.tile(popularity.index.to_numpy(), len(users)), "score": np.tile(popularity.to_numpy().astype(float), len(users))})
    qrels_frame = test.assign(grade=1.0)[["user", "item", "grade"]]
    write_train(tmp_path / "train.tsv", train)
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.tsv", run_frame, "score")
    # With corrected sampled metrics: the same estimators as the command line's.
    metrics = "roc,ndcg@10,r@10,mrr,ndcg@10~bv:0.1,ap~rank-estimate,r@10~monotone,ndcg@10~sampled"
    expected = cli("--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.tsv", "--metrics", metrics, "--candidates", "sampled:100", "--train", tmp_path / "train.tsv")
    ours = recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), metrics, candidates="sampled:100", train=train[["user", "item"]], details=True)
    assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
    assert ours == expected
    # 943 users, each with its held-out item and 100 negatives.
    assert ours["n_users"] == 943 and ours["n_candidates"] == 943 * 101
    # One held-out item per user: the uncorrected estimator is the library's NDCG, and the
    # corrections pull the sampled NDCG down towards the full catalog's.
    assert ours["ndcg@10~sampled"] == pytest.approx(ours["ndcg@10"], abs=1e-12)
    assert ours["ndcg@10~bv:0.1"] < ours["ndcg@10"] / 2
    for metric, candidates in [("ndcg@10~bv:0.1", "catalog"), ("ap~monotone", "sampled:5:popularity")]:
        with pytest.raises(recs.RecsError, match="corrected sampled metric"):
            recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), metric + ",mrr", candidates=candidates, train=train[["user", "item"]])


def test_sampled_candidates_are_refused_without_train_or_with_a_bad_count():
    q = recs.Qrels({"u": {"a": 1}})
    r = recs.Run({"u": {"a": 0.5}})
    for candidates, train, message in [
        ("sampled:10", None, "needs train"),
        ("sampled:0", {"u": {"b": 1}}, "N >= 1"),
        ("sampled:10:often", {"u": {"b": 1}}, "uniform"),
    ]:
        with pytest.raises(recs.RecsError, match=message):
            recs.evaluate(q, r, "p@1", candidates=candidates, train=train)


def test_sampled_candidates_in_compare_and_curves_are_those_of_evaluate():
    """compare and curves draw the same candidates as evaluate for one seed."""
    qrels_frame, run_frame = make_case(7, all_candidates=False)
    train = run_frame.sample(frac=0.3, random_state=2)[["user", "item"]]
    q = recs.Qrels.from_df(qrels_frame)
    noisy = run_frame.assign(score=run_frame.score + np.random.default_rng(0).normal(0, 0.5, len(run_frame)))
    runs = {"a": recs.Run.from_df(run_frame), "b": recs.Run.from_df(noisy)}
    options = {"candidates": "sampled:20", "train": train, "seed": 11}
    table = recs.compare(q, runs, "p@5,mrr", tests="t", adjust="none", missing="zero", **options)
    for row in table.itertuples():
        assert row.mean_a == pytest.approx(recs.evaluate(q, runs[row.run_a], row.metric, **options)[row.metric], abs=1e-12)
        assert row.mean_b == pytest.approx(recs.evaluate(q, runs[row.run_b], row.metric, **options)[row.metric], abs=1e-12)
    curve = recs.curves(q, runs["a"], **options)
    assert curve["roc"]["auc"] == pytest.approx(recs.evaluate(q, runs["a"], "roc", **options)["roc_auc"], abs=1e-12)


def test_sampled_vs_exact_on_movielens_gives_the_dict_of_recs_eval(tmp_path):
    """`recs.sampled_vs_exact` is `recs eval --sampled-vs-exact N --json`: the same
    instances, draws, estimates, orders and keys, on MovieLens 100K (60 users' held-out
    items against the whole catalog) with two runs and two seeds: every number equal."""
    train, test, popularity = movielens_leave_one_out()
    # 60 users: each catalog size (a user's number of negatives) needs its own estimators,
    # which most of the time goes to.
    users = test.user.unique()[:60]
    test = test[test.user.isin(users)]
    pairs = {"user": np.repeat(users, len(popularity)), "item": np.tile(popularity.index.to_numpy(), len(users))}
    pop = pd.DataFrame({**pairs, "score": np.tile(popularity.to_numpy().astype(float), len(users))})
    # Popularity with noise: a second order of the items, ties broken differently.
    rng = np.random.default_rng(7)
    noisy = pop.assign(score=np.round(pop.score + rng.normal(0, 20, len(pop))))
    qrels_frame = test.assign(grade=1.0)[["user", "item", "grade"]]
    write_train(tmp_path / "train.tsv", train)
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "pop.tsv", pop, "score")
    write(tmp_path / "noisy.tsv", noisy, "score")
    names = [str(tmp_path / "pop.tsv"), str(tmp_path / "noisy.tsv")]
    expected = cli("--qrels", tmp_path / "q.tsv", "--train", tmp_path / "train.tsv", "--run", names[0], "--run", names[1], "--sampled-vs-exact", "100", "--seeds", "2", "--seed", "3")
    runs = {names[0]: recs.Run.from_df(pop), names[1]: recs.Run.from_df(noisy)}
    with pytest.warns(recs.RecsWarning):
        ours = recs.sampled_vs_exact(recs.Qrels.from_df(qrels_frame), runs, train[["user", "item"]], 100, seeds=2, seed=3)
    assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
    assert ours == expected
    assert ours["n_instances"] == len(users) and ours["seeds"] == [3, 4]
    ndcg = ours["orders"]["ndcg@10"]
    assert set(ndcg) == {"sampled", "rank-estimate", "minimal-bias", "monotone", "bv:0.1"}


def test_sampled_vs_exact_refuses_bad_arguments_with_the_reason():
    q = recs.Qrels({"u": {"a": 1}})
    run = {"u": {"a": 1.0, "b": 0.5}}
    train = {"u": ["c"]}
    for kwargs, message in [
        ({"negatives": 0}, "negatives must be at least 1"),
        ({"seeds": 0}, "seeds must be at least 1"),
        ({"by": "often"}, "uniform"),
        ({"metrics": "map"}, "not a metric of one relevant item's rank"),
        ({"corrections": "bv:2"}, "corrections"),
    ]:
        with pytest.raises(recs.RecsError, match=message):
            recs.sampled_vs_exact(q, {"r": run}, train, **kwargs)
    with pytest.raises(recs.RecsError, match="needs train"):
        recs.sampled_vs_exact(q, {"r": run}, None)
