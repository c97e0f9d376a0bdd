"""ROC AUC, NDCG and AP against scikit-learn."""

import numpy as np
import pytest

import recs
from conftest import make_case

metrics = pytest.importorskip("sklearn.metrics")


def pooled(qrels_frame, run_frame):
    joined = qrels_frame.merge(run_frame, on=["user", "item"])
    return (joined.grade >= 1).to_numpy(), joined.score.to_numpy()


@pytest.mark.parametrize("ties", [False, True])
def test_pooled_roc_auc_is_sklearns_with_ties_counting_half(seed, ties):
    qrels_frame, run_frame = make_case(seed, ties=ties)
    labels, scores = pooled(qrels_frame, run_frame)
    ours = recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), "roc")
    assert ours["roc_auc"] == pytest.approx(metrics.roc_auc_score(labels, scores), abs=1e-12)


def test_partial_auc_is_the_area_of_sklearns_curve_unstandardised(seed):
    qrels_frame, run_frame = make_case(seed, ties=True)
    labels, scores = pooled(qrels_frame, run_frame)
    fpr, tpr, _ = metrics.roc_curve(labels, scores, drop_intermediate=False)
    # The area up to 0.3, the curve cut by linear interpolation.
    stop = np.searchsorted(fpr, 0.3, side="right")
    x = np.append(fpr[:stop], 0.3)
    y = np.append(tpr[:stop], np.interp(0.3, fpr, tpr))
    area = float(np.sum((x[1:] - x[:-1]) * (y[1:] + y[:-1]) / 2))
    ours = recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), "roc")
    assert ours["roc_pauc@0.3"] == pytest.approx(area, abs=1e-12)
    # sklearn's max_fpr is McClish-standardised, a different number.
    standardised = metrics.roc_auc_score(labels, scores, max_fpr=0.3)
    assert standardised != pytest.approx(ours["roc_pauc@0.3"], abs=1e-6)


def curve_points_match_sklearn(seed):
    qrels_frame, run_frame = make_case(seed)
    labels, scores = pooled(qrels_frame, run_frame)
    c = recs.curves(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame))
    fpr, tpr, _ = metrics.roc_curve(labels, scores, drop_intermediate=False)
    return c, fpr, tpr


def test_roc_curve_points_are_sklearns(seed):
    c, fpr, tpr = curve_points_match_sklearn(seed)
    np.testing.assert_allclose(c["roc"]["x"], fpr, atol=1e-12)
    np.testing.assert_allclose(c["roc"]["y"], tpr, atol=1e-12)
    assert c["roc"]["auc"] == pytest.approx(np.trapezoid(tpr, fpr), abs=1e-12)


def per_user_arrays(qrels_frame, run_frame):
    joined = qrels_frame.merge(run_frame, on=["user", "item"])
    for user, rows in joined.groupby("user", sort=True):
        yield user, rows.grade.to_numpy(), rows.score.to_numpy()


@pytest.mark.parametrize("ties", [False, True])
def test_ndcg_is_sklearns_tie_averaged_ndcg(seed, ties):
    qrels_frame, run_frame = make_case(seed, ties=ties)
    ours = recs.evaluate(
        recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), "ndcg@5", return_per_user=True
    )
    for user, grades, scores in per_user_arrays(qrels_frame, run_frame):
        theirs = metrics.ndcg_score([grades], [scores], k=5)
        assert ours.loc[user, "ndcg@5"] == pytest.approx(theirs, abs=1e-12), user


def test_average_precision_is_sklearns_without_ties(seed):
    qrels_frame, run_frame = make_case(seed)
    ours = recs.evaluate(
        recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), "map", return_per_user=True
    )
    for user, grades, scores in per_user_arrays(qrels_frame, run_frame):
        theirs = metrics.average_precision_score(grades >= 1, scores)
        assert ours.loc[user, "map"] == pytest.approx(theirs, abs=1e-12), user


def test_with_ties_average_precision_differs_from_sklearns_step_rule():
    # a (relevant) and b tie first, c (relevant) is third. Over both orders of the tie,
    # AP = ((1 + 2/3)/2 + (1/2 + 2/3)/2) / 2 = 17/24; sklearn counts the tied pair as
    # one threshold: precision 1/2 at recall 1/2, then 2/3 at recall 1: 7/12.
    grades = np.array([1, 0, 1])
    scores = np.array([0.5, 0.5, 0.1])
    ours = recs.evaluate(
        recs.Qrels({"u": {"a": 1, "b": 0, "c": 1}}), recs.Run({"u": {"a": 0.5, "b": 0.5, "c": 0.1}}), "map"
    )
    assert ours["map"] == pytest.approx(17 / 24, abs=1e-15)
    assert metrics.average_precision_score(grades, scores) == pytest.approx(7 / 12)
