"""Qrels and runs from every source give the same evaluation; bad input is an error
that names the file (or frame) and the line (or row)."""

import doctest

import numpy as np
import pandas as pd
import pytest

import recs
from conftest import make_case

METRICS = "roc,croc,p@5,ndcg@10,map,mrr"


def write_tsv(path, frame, value):
    with open(path, "w") as f:
        for u, i, v in zip(frame.user, frame.item, frame[value]):
            f.write(f"{u}\t{i}\t{np.float32(v)}\n")


def test_files_frames_arrow_and_dicts_give_the_same_numbers(tmp_path, seed):
    pa = pytest.importorskip("pyarrow")
    qrels_frame, run_frame = make_case(seed)
    run_frame = run_frame.sample(frac=1.0, random_state=seed)
    write_tsv(tmp_path / "q.tsv", qrels_frame, "grade")
    write_tsv(tmp_path / "r.tsv", run_frame, "score")
    as_dict = lambda f, v: {u: dict(zip(g.item, g[v])) for u, g in f.groupby("user")}
    sources = [
        (recs.Qrels.from_file(tmp_path / "q.tsv"), recs.Run.from_file(tmp_path / "r.tsv")),
        (recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame)),
        (recs.Qrels.from_arrow(pa.Table.from_pandas(qrels_frame)), recs.Run.from_arrow(pa.Table.from_pandas(run_frame))),
        (recs.Qrels(as_dict(qrels_frame, "grade")), recs.Run(as_dict(run_frame, "score"))),
    ]
    pl = pytest.importorskip("polars")
    sources.append((recs.Qrels.from_df(pl.from_pandas(qrels_frame)), recs.Run.from_df(pl.from_pandas(run_frame))))
    for candidates in ("qrels", "run"):
        results = [recs.evaluate(q, r, METRICS, candidates=candidates, details=True) for q, r in sources]
        for r in results[1:]:
            assert r == results[0]


def test_column_names_are_arguments():
    frame = pd.DataFrame({"uid": [1, 1], "iid": [10, 11], "rating": [5.0, 0.0]})
    qrels = recs.Qrels.from_df(frame, user_col="uid", item_col="iid", grade_col="rating")
    run = recs.Run.from_df(frame.assign(s=[0.1, 0.2]), user_col="uid", item_col="iid", score_col="s")
    assert recs.evaluate(qrels, run, "mrr") == {"mrr": 0.5}
    assert qrels.to_dict() == {"1": {"10": 5.0, "11": 0.0}}


def test_a_trec_run_file_defaults_to_the_run_policy(tmp_path):
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 1\n")
    (tmp_path / "r").write_text("1 Q0 x 1 3 s\n1 Q0 a 2 2 s\n")
    out = recs.evaluate(recs.Qrels.from_file(tmp_path / "q"), recs.Run.from_file(tmp_path / "r"), "p@1,r@2", details=True)
    assert out["candidates"] == "run"
    assert (out["p@1"], out["r@2"]) == (0.0, 0.5)


def test_catalog_candidates_from_training_events():
    qrels = recs.Qrels({"u1": {"c": 1}})
    train = pd.DataFrame({"user": ["u1", "u2"], "item": ["a", "b"]})
    run = recs.Run({"u1": {"a": 9.0, "b": 0.1, "c": 0.5}})
    out = recs.evaluate(qrels, run, "p@1", candidates="catalog", train=train, details=True)
    # a is a training event: the candidates are b and c, and c ranks first.
    assert (out["p@1"], out["n_candidates"], out["n_ignored"]) == (1.0, 2, 1)


def test_a_bad_file_line_is_an_error_naming_file_and_line(tmp_path):
    path = tmp_path / "q.tsv"
    path.write_text("u\ta\t1\nu\tb\tlots\n")
    with pytest.raises(recs.RecsError, match=r"q\.tsv:2: grade `lots`"):
        recs.Qrels.from_file(path)
    with pytest.raises(OSError, match="missing.tsv"):
        recs.Qrels.from_file(tmp_path / "missing.tsv")


def test_a_repeated_pair_in_a_frame_names_the_row():
    frame = pd.DataFrame({"user": ["u", "u", "u"], "item": ["a", "b", "a"], "grade": [1, 0, 1]})
    with pytest.raises(recs.RecsError, match=r"DataFrame:3: user `u` lists item `a` again \(first on line 1\)"):
        recs.Qrels.from_df(frame)
    qrels = recs.Qrels({"u": {"a": 1, "b": 0}})
    run = frame.rename(columns={"grade": "score"})
    with pytest.raises(recs.RecsError, match=r"DataFrame:3: user `u` item `a` scored again"):
        recs.evaluate(qrels, recs.Run.from_df(run), "p@1")


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda q, r: recs.evaluate(q, r, "ndcg@0"), "unknown metric"),
        (lambda q, r: recs.evaluate(q, r, "p@1", ties="random"), "unknown tie policy"),
        (lambda q, r: recs.evaluate(q, r, "p@1", candidates="all"), "unknown candidate policy"),
        (lambda q, r: recs.evaluate(q, r, "p@1", candidates="catalog"), "needs train"),
        (lambda q, r: recs.evaluate(q, r, "p@1", train={"u": ["a"]}), "catalog"),
        (lambda q, r: recs.evaluate(q, r, "p@1", threshold=-1), "threshold"),
        (lambda q, r: recs.evaluate(q, {"u": {"a": float("nan")}}, "p@1"), "dict:1: score `NaN`"),
        (lambda q, r: recs.Qrels({"u": {"a": -1}}), "dict:1: grade `-1`"),
        (lambda q, r: recs.Qrels.from_df(pd.DataFrame({"u": [1]})), "no column `user`"),
        (lambda q, r: recs.compare(q, [r], "p@1"), "at least two runs"),
        (lambda q, r: recs.compare(q, [r, r], "p@1", test="z"), "unknown test"),
        (lambda q, r: recs.evaluate(q, r, "roc", return_per_user=True), "per-user metric"),
    ],
)
def test_bad_input_is_an_exception_not_a_crash(call, message):
    qrels = recs.Qrels({"u": {"a": 1, "b": 0}})
    run = recs.Run({"u": {"a": 0.5, "b": 0.1}})
    with pytest.raises(recs.RecsError, match=message):
        call(qrels, run)


def test_compare_gives_paired_p_values():
    rng = np.random.default_rng(0)
    qrels_frame, run_frame = make_case(0, n_users=40)
    qrels = recs.Qrels.from_df(qrels_frame)
    good = recs.Run.from_df(run_frame)
    noisy = recs.Run.from_df(run_frame.assign(score=rng.random(len(run_frame)).astype(np.float32)))
    table = recs.compare(qrels, {"a": good, "b": noisy, "c": good}, "ndcg@10,map", test="t", pairs="baseline")
    assert list(table.columns) == [
        "metric", "run_a", "run_b", "n_users", "mean_a", "mean_b", "difference", "difference_lower", "difference_upper",
        "d_z", "d_z_lower", "d_z_upper", "t_statistic", "t_p", "t_p_adjusted", "adjustment", "better",
    ]
    assert len(table) == 4
    assert (table.run_b == "a").all()
    same = table[table.run_a == "c"]
    # Identical runs: every difference is 0, t = 0 and p = 1.
    assert (same["mean_a"] == same["mean_b"]).all()
    assert (same.t_p == 1).all() and same.better.isna().all()
    other = table[table.run_a == "b"]
    assert ((other.t_p > 0) & (other.t_p <= 1)).all()
    assert (other.t_p_adjusted >= other.t_p).all()
    wilcoxon = recs.compare(qrels, {"a": good, "b": noisy}, "map", test="wilcoxon")
    assert 0 < wilcoxon.wilcoxon_p.iloc[0] <= 1
    assert wilcoxon.wilcoxon_p.iloc[0] != other[other.metric == "map"].t_p.iloc[0]


def test_qrels_pickle_round_trip():
    import pickle

    qrels = recs.Qrels({"u": {"a": 1, "b": 0}, "v": {"c": 2}})
    again = pickle.loads(pickle.dumps(qrels))
    assert again.to_dict() == qrels.to_dict()


def test_docstring_examples_run():
    failures, tried = doctest.testmod(recs, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0
