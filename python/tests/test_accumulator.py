"""Accumulators: any partitioning, merged in any order, gives the single-pass result."""

import numpy as np
import pytest

import recs
from conftest import make_case

METRICS = "roc,croc,user_auc,p@5,r@5,f1@5,hit@3,ndcg@10,ndcg_exp@10,ap@10,map,mrr,half_life@5"


def partitions(run_frame, n_parts, seed):
    users = run_frame.user.unique()
    part_of = dict(zip(users, np.random.default_rng(seed).integers(0, n_parts, len(users))))
    column = run_frame.user.map(part_of)
    return [run_frame[column == p] for p in range(n_parts)]


@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("tie_policy", ["expected", "item-ascending"])
def test_merged_partitions_equal_the_single_pass_bit_for_bit(seed, ties, tie_policy):
    qrels_frame, run_frame = make_case(seed, ties=ties)
    # Leave some candidates unscored and add rows that are not candidates.
    run_frame = run_frame.sample(frac=0.9, random_state=seed)
    qrels = recs.Qrels.from_df(qrels_frame)
    single = recs.evaluate(qrels, recs.Run.from_df(run_frame), METRICS, ties=tie_policy, candidates="qrels")
    results = []
    for n_parts in (1, 3, 7):
        parts = []
        for frame in partitions(run_frame, n_parts, seed + n_parts):
            acc = recs.Accumulator(METRICS, qrels, ties=tie_policy)
            acc.update(frame)
            parts.append(bytes(acc))
        merged = recs.Accumulator.from_bytes(parts[-1])
        for data in reversed(parts[:-1]):
            merged.merge(recs.Accumulator.from_bytes(data))
        results.append(merged.result(details=True))
    for r in results:
        assert r.pop("warnings") is not None
        assert set(single) <= set(r)
        for key, value in single.items():
            assert r[key] == value or (np.isnan(r[key]) and np.isnan(value)), key
    # The same bits whatever the partitioning.
    assert results[0] == results[1] == results[2]


def test_an_accumulator_counts_like_evaluate(seed):
    qrels_frame, run_frame = make_case(seed)
    qrels = recs.Qrels.from_df(qrels_frame)
    single = recs.evaluate(qrels, recs.Run.from_df(run_frame), "p@5", details=True)
    acc = recs.Accumulator("p@5", qrels)
    for frame in partitions(run_frame, 4, seed):
        acc.update(frame)
    result = acc.result(details=True)
    for key in ("n_users", "n_candidates", "n_positives", "n_missing", "n_users_without_relevant", "p@5"):
        assert result[key] == single[key], key


def test_arrow_batches_and_dicts_feed_an_accumulator():
    pa = pytest.importorskip("pyarrow")
    qrels = recs.Qrels({"u": {"a": 1, "b": 0}, "v": {"a": 0, "b": 1}})
    acc = recs.Accumulator("p@1,mrr", qrels)
    table = pa.table({"user": ["u", "u"], "item": ["a", "b"], "score": [0.9, 0.1]})
    acc.update(table.to_batches()[0])
    acc.update({"v": {"a": 0.9, "b": 0.1}})
    assert acc.result() == {"p@1": 0.5, "mrr": 0.75}
    assert acc.n_users == 2


def test_a_user_in_two_batches_is_an_error():
    qrels = recs.Qrels({"u": {"a": 1, "b": 0}})
    acc = recs.Accumulator("p@1", qrels)
    acc.update({"u": {"a": 0.9}})
    with pytest.raises(recs.RecsError, match="earlier batch"):
        acc.update({"u": {"b": 0.1}})
    other = recs.Accumulator("p@1", qrels)
    other.update({"u": {"b": 0.1}})
    with pytest.raises(recs.RecsError, match="both accumulators"):
        acc.merge(other)


def test_accumulators_of_different_metrics_do_not_merge():
    qrels = recs.Qrels({"u": {"a": 1}})
    with pytest.raises(recs.RecsError, match="different metrics"):
        recs.Accumulator("p@1", qrels).merge(recs.Accumulator("p@2", qrels))


def test_an_undefined_roc_is_none_with_its_warning_in_place():
    # No negative candidate: the ROC is undefined, as in evaluate.
    qrels = recs.Qrels({"u": {"a": 1, "b": 1}})
    run = {"u": {"a": 0.5}}
    single = recs.evaluate(qrels, run, "croc,roc,p@1", details=True)
    acc = recs.Accumulator("croc,roc,p@1", qrels)
    acc.update(run)
    assert acc.result(details=True) == single
    assert single["roc_auc"] is None and len(single["warnings"]) == 3


def test_coverage_is_refused_with_a_reason():
    with pytest.raises(recs.RecsError, match="coverage"):
        recs.Accumulator("coverage@5", recs.Qrels({"u": {"a": 1}}))


def test_bytes_that_are_not_an_accumulator_are_an_error():
    with pytest.raises(recs.RecsError, match="not the bytes"):
        recs.Accumulator.from_bytes(b"\x01\x02\x03")
    acc = recs.Accumulator.from_bytes(bytes(recs.Accumulator("p@1", recs.Qrels({"u": {"a": 1}}))))
    with pytest.raises(recs.RecsError, match="without qrels"):
        acc.update({"u": {"a": 1.0}})


def test_catalog_accumulators_equal_the_catalog_evaluation(seed):
    qrels_frame, run_frame = make_case(seed, all_candidates=False)
    train = run_frame.sample(frac=0.3, random_state=seed)[["user", "item"]]
    qrels = recs.Qrels.from_df(qrels_frame)
    single = recs.evaluate(qrels, recs.Run.from_df(run_frame), METRICS, candidates="catalog", train=train, details=True)
    parts = []
    for frame in partitions(run_frame, 3, seed):
        acc = recs.Accumulator(METRICS, qrels, candidates="catalog", train=train)
        acc.update(frame)
        parts.append(bytes(acc))
    merged = recs.Accumulator.from_bytes(parts[0])
    for data in parts[1:]:
        merged.merge(recs.Accumulator.from_bytes(data))
    result = merged.result(details=True)
    # evaluate also warns about graded training pairs and ignored rows; every number is equal.
    result.pop("warnings"), single.pop("warnings")
    assert result == single
