"""Every ranking metric against ranx, under the TREC candidate policy ranx assumes."""

import math

import numpy as np
import pytest

import recs
from conftest import make_case

ranx = pytest.importorskip("ranx")

# Our name -> ranx's name, where the definitions agree (linear gain NDCG is Jarvelin's;
# exponential gain is Burges'; uncut AP is ranx's MAP).
PAIRS = {
    "p@5": "precision@5",
    "r@5": "recall@5",
    "f1@5": "f1@5",
    "hit@3": "hit_rate@3",
    "ndcg@10": "ndcg@10",
    "ndcg_exp@10": "ndcg_burges@10",
    "map": "map",
    "mrr": "mrr",
}


def ranx_of(qrels_frame, run_frame):
    # ranx wants object (not pandas string) id columns.
    ids = {"user": object, "item": object}
    qrels_frame, run_frame = qrels_frame.astype(ids), run_frame.astype(ids)
    q = qrels_frame[qrels_frame.grade > 0].assign(grade=lambda f: f.grade.astype(int))
    qrels = ranx.Qrels.from_df(q, q_id_col="user", doc_id_col="item", score_col="grade")
    run = ranx.Run.from_df(run_frame.assign(score=run_frame.score.astype(float)), q_id_col="user", doc_id_col="item", score_col="score")
    return qrels, run


def test_every_metric_agrees_with_ranx_without_ties(seed):
    qrels_frame, run_frame = make_case(seed, all_candidates=False)
    q, r = ranx_of(qrels_frame, run_frame)
    theirs = ranx.evaluate(q, r, list(PAIRS.values()))
    ours = recs.evaluate(
        recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), list(PAIRS), candidates="run"
    )
    for mine, their in PAIRS.items():
        assert ours[mine] == pytest.approx(float(theirs[their]), abs=1e-12), mine


def test_per_user_values_agree_with_ranx(seed):
    qrels_frame, run_frame = make_case(seed, all_candidates=False)
    q, r = ranx_of(qrels_frame, run_frame)
    ranx.evaluate(q, r, ["ndcg@10", "map"], return_mean=False)
    theirs = r.scores
    ours = recs.evaluate(
        recs.Qrels.from_df(qrels_frame),
        recs.Run.from_df(run_frame),
        ["ndcg@10", "map"],
        candidates="run",
        return_per_user=True,
    )
    for user in ours.index:
        assert ours.loc[user, "ndcg@10"] == pytest.approx(theirs["ndcg@10"][user], abs=1e-12)
        assert ours.loc[user, "map"] == pytest.approx(theirs["map"][user], abs=1e-12)


def test_relevant_items_the_run_misses_count_in_the_denominators():
    # ranx and trec_eval: b is relevant and unretrieved, so recall@2 = 1/2.
    qrels = {"u": {"a": 1, "b": 1}}
    run = {"u": {"a": 0.9, "x": 0.5}}
    theirs = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), ["recall@2", "map", "ndcg@2"])
    ours = recs.evaluate(recs.Qrels(qrels), recs.Run(run), "r@2,map,ndcg@2", candidates="run")
    assert ours == pytest.approx({"r@2": 0.5, "map": 0.5, "ndcg@2": float(theirs["ndcg@2"])})
    assert float(theirs["recall@2"]) == 0.5 and float(theirs["map"]) == 0.5


def expected_over_orders(grades_by_score, k):
    """P@k averaged over every order of the tied group (brute force)."""
    import itertools

    values = []
    tied = grades_by_score
    for order in itertools.permutations(range(len(tied))):
        ranked = [tied[i] for i in order]
        values.append(sum(1 for g in ranked[:k] if g > 0) / k)
    return sum(values) / len(values)


def test_with_ties_ours_is_the_expected_value_and_ranx_picks_one_order():
    # Four items tied at the top, two relevant: P@1 over random orders is 1/2.
    qrels = {"u": {"a": 1, "b": 0, "c": 1, "d": 0}}
    run = {"u": {"a": 0.5, "b": 0.5, "c": 0.5, "d": 0.5}}
    ours = recs.evaluate(recs.Qrels(qrels), recs.Run(run), "p@1,p@3", candidates="run")
    assert ours["p@1"] == expected_over_orders([1, 0, 1, 0], 1) == 0.5
    assert ours["p@3"] == pytest.approx(expected_over_orders([1, 0, 1, 0], 3))
    theirs = float(ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), "precision@1"))
    # ranx ranks one fixed order of the tie, which gives 0 or 1, never the expectation.
    assert theirs in (0.0, 1.0)
    assert theirs != ours["p@1"]
    # A deterministic tie-break reproduces a single order too.
    by_item = recs.evaluate(recs.Qrels(qrels), recs.Run(run), "p@1", ties="item-descending", candidates="run")
    assert by_item["p@1"] in (0.0, 1.0)

