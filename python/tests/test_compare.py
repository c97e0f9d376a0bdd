"""`recs.compare`: the numbers of `recs compare --format json` on the same files (the
fixture of generated cases, and MovieLens 100K through `RECS_DATA_DIR`), and the
deterministic statistics against scipy on the per-user values that `recs.evaluate`
gives, the t-test against ranx's `compare` and Fisher's against a numpy randomisation test
on MovieLens lists. The CLI tests need the `recs` binary (found as `test_cli.py` finds it)."""

import io
import json
import math
import os
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recs
from conftest import make_case
from test_cli import write_train

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
CLI = Path(os.environ.get("RECS_CLI", TARGET / "debug" / "recs"))
DATA = os.environ.get("RECS_DATA_DIR")

needs_cli = pytest.mark.skipif(not CLI.is_file(), reason=f"no recs binary at {CLI}")
needs_movielens = pytest.mark.skipif(
    not DATA or not (Path(DATA) / "ml-100k").is_dir(), reason="RECS_DATA_DIR has no ml-100k"
)

TESTS = ["t", "wilcoxon", "sign", "fisher", "bootstrap"]


def write(path, frame, value):
    with open(path, "w") as f:
        for u, i, v in zip(frame.user, frame.item, frame[value]):
            f.write(f"{u}\t{i}\t{np.float32(v)}\n")


def runs_of(seed, n_users=40):
    """Qrels and three runs on them: the case's run, the same with its scores partly
    shuffled, and random scores."""
    rng = np.random.default_rng(seed)
    qrels, good = make_case(seed, n_users=n_users)
    shuffled = good.score.to_numpy().copy()
    part = rng.random(len(shuffled)) < 0.5
    shuffled[part] = rng.permutation(shuffled[part])
    mid = good.assign(score=shuffled.astype(np.float32))
    bad = good.assign(score=rng.random(len(good)).astype(np.float32))
    return qrels, {"good": good, "mid": mid, "bad": bad}


def cli_compare(qrels_path, run_paths, *args):
    command = [str(CLI), "compare", "--qrels", str(qrels_path), "--format", "json"]
    for name, path in run_paths.items():
        command += ["--run", f"{name}={path}"]
    out = subprocess.run(command + [str(a) for a in args], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def same(got, want, what):
    """Equal to the bit, both NaN/None (JSON's null for a non-finite number), or both
    the same infinity."""
    if want is None:
        assert got is None or (isinstance(got, float) and not math.isfinite(got)), what
    else:
        assert got == want, f"{what}: {got!r} != {want!r}"


def assert_same_as_cli(table, expected):
    """Every number of the frame is the one of `recs compare --format json`."""
    assert table.attrs["family"] == expected["family"]["description"]
    assert table.attrs["marks"] == expected["marks"]["by"]
    assert len(table) == len(expected["comparisons"])
    for row, c in zip(table.itertuples(index=False), expected["comparisons"]):
        row = row._asdict()
        what = f"{c['metric']} {c['a']} − {c['b']}"
        assert (row["metric"], row["run_a"], row["run_b"]) == (c["metric"], c["a"], c["b"])
        assert row["n_users"] == c["n_users"], what
        same(row["mean_a"], c["mean_a"], what)
        same(row["mean_b"], c["mean_b"], what)
        for key, json_key in [("difference", "mean"), ("difference_lower", "lower"), ("difference_upper", "upper")]:
            same(row[key], c["difference"][json_key], f"{what} {key}")
        dz = c["cohens_dz"] or {}
        for key, json_key in [("d_z", "d_z"), ("d_z_lower", "lower"), ("d_z_upper", "upper")]:
            got = row[key]
            same(None if pd.isna(got) else got, dz.get(json_key), f"{what} {key}")
        for test, outcome in c["tests"].items():
            same(row[f"{test}_statistic"], outcome["statistic"], f"{what} {test}")
            same(row[f"{test}_p"], outcome["p_value"], f"{what} {test}")
            same(row[f"{test}_p_adjusted"], outcome["p_adjusted"], f"{what} {test}")
            if test == "bootstrap":
                same(row["bootstrap_lower"], outcome["lower"], what)
                same(row["bootstrap_upper"], outcome["upper"], what)
        if expected["tukey"]:
            same(row["tukey_p"], c["tukey_p"], f"{what} tukey")
        assert row["adjustment"] == expected["family"]["adjustment"]
        assert row["better"] == c["better"], what


@needs_cli
@pytest.mark.parametrize(
    "options, cli_options",
    [
        ({}, []),
        ({"tests": TESTS, "tukey": True, "permutations": 999, "resamples": 1999, "seed": 3}, ["--tests", ",".join(TESTS), "--tukey", "--permutations", 999, "--resamples", 1999, "--seed", 3]),
        ({"tests": "wilcoxon,bootstrap", "baseline": "bad", "adjust": "bh", "alpha": 0.1}, ["--tests", "wilcoxon,bootstrap", "--baseline", "bad", "--adjust", "bh", "--alpha", 0.1]),
        ({"tests": ["sign", "t"], "adjust": "none", "ties": "item-ascending"}, ["--tests", "sign,t", "--adjust", "none", "--ties", "item-ascending"]),
        ({"test": "t", "pairs": "baseline", "adjust": "bonferroni", "zero": "zero"}, ["--tests", "t", "--baseline", "good", "--adjust", "bonferroni", "--zero", "zero"]),
    ],
)
def test_the_numbers_of_recs_compare_on_the_same_files(tmp_path, options, cli_options):
    qrels, runs = runs_of(7)
    write(tmp_path / "q.tsv", qrels, "grade")
    paths = {}
    for name, frame in runs.items():
        paths[name] = tmp_path / f"{name}.tsv"
        write(paths[name], frame, "score")
    metrics = "ndcg@10,map,mrr,p@5"
    expected = cli_compare(tmp_path / "q.tsv", paths, "--metrics", metrics, *cli_options)
    from_files = recs.compare(recs.Qrels.from_file(tmp_path / "q.tsv"), {n: recs.Run.from_file(p) for n, p in paths.items()}, metrics, **options)
    assert_same_as_cli(from_files, expected)
    # Frames give the same numbers as the files they were written from.
    from_frames = recs.compare(recs.Qrels.from_df(qrels), {n: recs.Run.from_df(f) for n, f in runs.items()}, metrics, **options)
    pd.testing.assert_frame_equal(from_frames, from_files)


@needs_cli
def test_the_columns_are_those_of_recs_compare_csv(tmp_path):
    qrels, runs = runs_of(2, n_users=12)
    write(tmp_path / "q.tsv", qrels, "grade")
    args = [str(CLI), "compare", "--qrels", str(tmp_path / "q.tsv"), "--metrics", "mrr,ndcg@3", "--format", "csv"]
    for name, frame in runs.items():
        write(tmp_path / f"{name}.tsv", frame, "score")
        args += ["--run", f"{name}={tmp_path / name}.tsv"]
    args += ["--tests", ",".join(TESTS), "--tukey"]
    csv = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    expected = pd.read_csv(io.StringIO(csv))
    table = recs.compare(recs.Qrels.from_df(qrels), {n: recs.Run.from_df(f) for n, f in runs.items()}, "mrr,ndcg@3", tests=TESTS, tukey=True)
    assert list(table.columns) == list(expected.columns)
    # The CSV writes every number at full precision: it reads back to the same numbers.
    numbers = table.drop(columns=["metric", "run_a", "run_b", "adjustment", "better"])
    pd.testing.assert_frame_equal(numbers, expected[numbers.columns], check_dtype=False, check_exact=True)
    for column in ["metric", "run_a", "run_b", "adjustment", "better"]:
        want = [None if pd.isna(x) else x for x in expected[column]]
        assert list(table[column]) == want, column


@needs_cli
def test_missing_users_and_trec_runs_as_recs_compare(tmp_path):
    qrels, runs = runs_of(4, n_users=20)
    write(tmp_path / "q.tsv", qrels, "grade")
    partial = runs["mid"][~runs["mid"].user.isin(["u3", "u5"])]
    frames = {"good": runs["good"], "partial": partial}
    for name, frame in frames.items():
        write(tmp_path / f"{name}.tsv", frame, "score")
    paths = {name: tmp_path / f"{name}.tsv" for name in frames}
    expected = cli_compare(tmp_path / "q.tsv", paths, "--metrics", "mrr,r@5", "--missing", "zero")
    table = recs.compare(recs.Qrels.from_df(qrels), {n: recs.Run.from_df(f) for n, f in frames.items()}, "mrr,r@5", missing="zero")
    assert_same_as_cli(table, expected)
    assert table.attrs["missing"] == {run["name"]: run["missing_users"] for run in expected["runs"]} == {"good": 0, "partial": 2}
    with pytest.raises(recs.RecsError, match=r"run partial scores no candidate of 2 of the 20 users .*user u3"):
        recs.compare(recs.Qrels.from_df(qrels), {n: recs.Run.from_df(f) for n, f in frames.items()}, "mrr")
    # TREC runs: the run's items are the candidates, as `recs compare` reads them.
    for name, frame in runs.items():
        with open(tmp_path / f"{name}.trec", "w") as f:
            for k, (u, i, s) in enumerate(zip(frame.user, frame.item, frame.score)):
                f.write(f"{u} Q0 {i} {k + 1} {np.float32(s)} {name}\n")
    trec = {name: tmp_path / f"{name}.trec" for name in runs}
    expected = cli_compare(tmp_path / "q.tsv", trec, "--metrics", "ndcg@10,map")
    table = recs.compare(recs.Qrels.from_file(tmp_path / "q.tsv"), {n: recs.Run.from_file(p) for n, p in trec.items()}, "ndcg@10,map")
    assert_same_as_cli(table, expected)


@needs_cli
@needs_movielens
def test_movielens_three_models_as_recs_compare(tmp_path):
    def cli(*args):
        subprocess.run([str(CLI), *map(str, args)], check=True, capture_output=True, cwd=tmp_path)

    cli("split", "--dataset", "ml-100k", "--data-dir", DATA, "--protocol", "leave-one-out", "--seed", 0, "--judgments", "implicit", "--out", ".")
    for model in ["random", "item-pop", "item-knn"]:
        cli("score", "--train", "train.tsv", "--model", model, "--qrels", "qrels.tsv", "--out", f"{model}.tsv")
    paths = {"random": tmp_path / "random.tsv", "pop": tmp_path / "item-pop.tsv", "knn": tmp_path / "item-knn.tsv"}
    metrics = "ndcg@10,r@10,mrr"
    expected = cli_compare(tmp_path / "qrels.tsv", paths, "--metrics", metrics, "--tests", ",".join(TESTS), "--tukey")
    assert expected["n_users"] == 943
    table = recs.compare(recs.Qrels.from_file(tmp_path / "qrels.tsv"), {n: recs.Run.from_file(p) for n, p in paths.items()}, metrics, tests=TESTS, tukey=True)
    assert_same_as_cli(table, expected)
    assert table.attrs["family"] == "9 comparisons: 3 pairs × 3 metrics, Holm"
    assert (table[table.run_b == "knn"].better == "knn").all()
    expected = cli_compare(tmp_path / "qrels.tsv", paths, "--metrics", metrics, "--baseline", "pop", "--adjust", "bh")
    table = recs.compare(recs.Qrels.from_file(tmp_path / "qrels.tsv"), {n: recs.Run.from_file(p) for n, p in paths.items()}, metrics, baseline="pop", adjust="bh")
    assert_same_as_cli(table, expected)


def paired_values(qrels, runs, metrics, **options):
    """Per-user values of each run (`recs.evaluate`), on the users every run has a value
    for: `{metric: {name: array}}`."""
    frames = {name: recs.evaluate(qrels, run, metrics, return_per_user=True, **options) for name, run in runs.items()}
    out = {}
    for metric in next(iter(frames.values())).columns:
        joined = pd.concat({name: f[metric] for name, f in frames.items()}, axis=1).dropna()
        out[metric] = {name: joined[name].to_numpy() for name in runs}
    return out


def holm(p):
    order = np.argsort(p, kind="stable")
    m = len(p)
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def reference_adjustment(p, method):
    """statsmodels' `multipletests` when it is installed; otherwise scipy's
    Benjamini–Hochberg and Holm and Bonferroni as statsmodels defines them."""
    p = np.asarray(p, dtype=float)
    try:
        from statsmodels.stats.multitest import multipletests
    except ImportError:
        from scipy.stats import false_discovery_control

        if method == "bh":
            return false_discovery_control(p, method="bh")
        return np.minimum(1.0, len(p) * p) if method == "bonferroni" else holm(p)
    name = {"holm": "holm", "bonferroni": "bonferroni", "bh": "fdr_bh"}[method]
    return multipletests(p, method=name)[1]


def movielens_case():
    """MovieLens 100K, one test event per user, popularity and random scores on the
    full catalog."""
    events = recs.datasets.load("ml-100k")
    parts = recs.split(events, "leave-k-out", k=1, seed=0, timestamp_col="timestamp")
    train, test = parts["train"], parts["test"]
    users = test.user.unique()
    counts = train.groupby("item").size()
    items = np.asarray(sorted(events.item.unique(), key=str))
    popularity = counts.reindex(items, fill_value=0).to_numpy(dtype=np.float32)
    rng = np.random.default_rng(0)

    def run(scores):
        return recs.Run.from_df(pd.DataFrame({"user": np.repeat(users, len(items)), "item": np.tile(items, len(users)), "score": scores}))

    noisy = np.tile(popularity, len(users)) + rng.normal(0, 30, len(users) * len(items)).astype(np.float32)
    runs = {
        "pop": run(np.tile(popularity, len(users))),
        "noisy-pop": run(noisy.astype(np.float32)),
        "random": run(rng.random(len(users) * len(items)).astype(np.float32)),
    }
    qrels = recs.Qrels.from_df(test.assign(grade=1.0))
    return qrels, runs, {"candidates": "catalog", "train": train[["user", "item"]]}


@pytest.mark.parametrize("case", ["generated", pytest.param("movielens", marks=needs_movielens)])
@pytest.mark.parametrize("adjust", ["holm", "bonferroni", "bh"])
def test_deterministic_statistics_are_scipys_on_the_per_user_values(case, adjust):
    from scipy import stats

    if case == "generated":
        qrels_frame, frames = runs_of(11, n_users=60)
        qrels, runs, options = recs.Qrels.from_df(qrels_frame), {n: recs.Run.from_df(f) for n, f in frames.items()}, {}
    else:
        qrels, runs, options = movielens_case()
    metrics = "ndcg@10,map,mrr"
    table = recs.compare(qrels, runs, metrics, tests="t,wilcoxon,sign", adjust=adjust, **options)
    values = paired_values(qrels, runs, metrics, **options)
    names = list(runs)
    assert len(table) == 3 * 3
    for row in table.itertuples(index=False):
        a, b = values[row.metric][row.run_a], values[row.metric][row.run_b]
        d = a - b
        assert row.n_users == len(d)
        assert row.mean_a == pytest.approx(a.mean(), rel=1e-12, abs=1e-15)
        assert row.difference == pytest.approx(d.mean(), rel=1e-9, abs=1e-15)
        half = stats.t.ppf(0.975, len(d) - 1) * d.std(ddof=1) / math.sqrt(len(d))
        assert (row.difference_lower, row.difference_upper) == pytest.approx((d.mean() - half, d.mean() + half), rel=1e-9, abs=1e-12)
        assert row.d_z == pytest.approx(d.mean() / d.std(ddof=1), rel=1e-9, abs=1e-12)
        t = stats.ttest_rel(a, b)
        assert (row.t_statistic, row.t_p) == pytest.approx((t.statistic, t.pvalue), rel=1e-9, abs=1e-12)
        w = stats.wilcoxon(a, b)
        assert (row.wilcoxon_statistic, row.wilcoxon_p) == pytest.approx((w.statistic, w.pvalue), rel=1e-9, abs=1e-12)
        n_better, n_worse = int((d > 0).sum()), int((d < 0).sum())
        sign = stats.binomtest(n_better, n_better + n_worse)
        assert row.sign_statistic == n_better
        assert row.sign_p == pytest.approx(sign.pvalue, rel=1e-9, abs=1e-12)
        # The first test decides, after the adjustment, in the direction of t.
        better = None
        if row.t_p_adjusted < 0.05:
            better = row.run_a if row.t_statistic > 0 else row.run_b
        assert row.better == better
    for test in ["t", "wilcoxon", "sign"]:
        want = reference_adjustment(table[f"{test}_p"], adjust)
        np.testing.assert_allclose(table[f"{test}_p_adjusted"], want, rtol=1e-12, atol=1e-15)
    assert table.attrs["family"] == {"holm": "9 comparisons: 3 pairs × 3 metrics, Holm", "bonferroni": "9 comparisons: 3 pairs × 3 metrics, Bonferroni", "bh": "9 comparisons: 3 pairs × 3 metrics, Benjamini–Hochberg"}[adjust]
    assert set(table.run_a) | set(table.run_b) == set(names)


def test_fisher_is_the_exact_randomisation_test_within_its_monte_carlo_error():
    rng = np.random.default_rng(5)
    users = [f"u{k}" for k in range(12)]
    qrels = recs.Qrels({u: {"a": 1, "b": 0, "c": 0, "d": 0, "e": 0} for u in users})
    ranks = {"x": rng.integers(0, 5, 12), "y": rng.integers(0, 4, 12)}
    runs = {name: recs.Run({u: {"a": 4.5 - r, "b": 4, "c": 3, "d": 2, "e": 1} for u, r in zip(users, rank)}) for name, rank in ranks.items()}
    table = recs.compare(qrels, runs, "mrr", tests="fisher", permutations=20_000)
    values = paired_values(qrels, runs, "mrr")["mrr"]
    d = values["x"] - values["y"]
    signs = np.array([[1 if (k >> j) & 1 else -1 for j in range(len(d))] for k in range(2 ** len(d))])
    means = np.abs(signs @ d) / len(d)
    exact = np.mean(means >= abs(d.mean()) - 1e-12)
    assert table.fisher_statistic[0] == pytest.approx(d.mean())
    assert abs(table.fisher_p[0] - exact) < 4 * math.sqrt(exact * (1 - exact) / 20_000) + 1e-4


@needs_movielens
def test_t_is_ranx_and_fisher_the_randomisation_test_on_movielens_lists():
    """ranx's `compare` on the same lists: the same means and t-test p-values. Fisher's
    p-values are checked against the randomisation test run here in numpy on ranx's
    per-user values, with 200,000 sign flips and ties counted. ranx's own Fisher p is no
    reference: it draws its permutations in numba threads, so one seed gives another
    p-value on each run, and it compares the permuted mean difference with the observed
    one without a tolerance, so the many permutations whose difference equals the
    observed one (recall@10 takes few values) count or not by rounding; on pop against
    near below it reads 0.32–0.34 where the test's p is 0.389, and 0.268 with ties left
    out. (ranx's `tukey` is scipy's classical, unpaired Tukey HSD, another test than the
    randomised one, so it is not compared.)"""
    ranx = pytest.importorskip("ranx")
    events = recs.datasets.load("ml-100k")
    parts = recs.split(events, "leave-k-out", k=5, seed=0, timestamp_col="timestamp")
    train, test = parts["train"], parts["test"]
    popularity = train.groupby("item").size()
    rng = np.random.default_rng(11)
    items = popularity.index.to_numpy()

    def lists(noise):
        # 50 items per user by noisy popularity, scored 50 − rank: no tied scores.
        rows = []
        for user in test.user.unique():
            keys = popularity.to_numpy() * np.exp(rng.normal(0, noise, len(items)))
            top = items[np.argsort(-keys, kind="stable")[:50]]
            rows += [(user, item, float(50 - rank)) for rank, item in enumerate(top)]
        return pd.DataFrame(rows, columns=["user", "item", "score"])

    frames = {"pop": lists(0.0), "near": lists(0.05), "noisy": lists(1.0)}
    qrels_frame = test.assign(grade=1.0)[["user", "item", "grade"]]
    table = recs.compare(recs.Qrels.from_df(qrels_frame), {n: recs.Run.from_df(f) for n, f in frames.items()}, "ndcg@10,r@10,mrr", tests="t,fisher", candidates="run", adjust="none", permutations=2_000)

    def ids(frame):
        # ranx wants object columns of strings.
        return frame.assign(user=frame.user.astype(str).astype(object), item=frame.item.astype(str).astype(object))

    q = ranx.Qrels.from_df(ids(qrels_frame).assign(grade=1), q_id_col="user", doc_id_col="item", score_col="grade")
    runs = {}
    for name, frame in frames.items():
        run = ranx.Run.from_df(ids(frame), q_id_col="user", doc_id_col="item", score_col="score")
        run.name = name
        runs[name] = run
    names = {"ndcg@10": "ndcg@10", "r@10": "recall@10", "mrr": "mrr"}
    theirs = ranx.compare(q, list(runs.values()), list(names.values()), stat_test="student").to_dict()
    # The per-user values ranx kept in each run, in one user order.
    users = sorted(str(u) for u in test.user.unique())
    per_user = {(name, metric): np.array([run.scores[metric][u] for u in users]) for name, run in runs.items() for metric in names.values()}

    def randomisation_p(d):
        # 200,000 sign flips in blocks of 10,000 (one block is 75 MB), the same flips for
        # every pair; ties with the observed mean difference count.
        flips = np.random.default_rng(2024)
        count = 0
        for _ in range(20):
            signs = flips.choice([-1.0, 1.0], size=(10_000, len(d)))
            count += np.count_nonzero(np.abs(signs @ d) / len(d) >= abs(d.mean()) - 1e-12)
        return count / 200_000

    for row in table.itertuples():
        metric = names[row.metric]
        assert row.mean_a == pytest.approx(theirs[row.run_a]["scores"][metric], abs=1e-12)
        assert row.mean_b == pytest.approx(theirs[row.run_b]["scores"][metric], abs=1e-12)
        assert row.t_p == pytest.approx(theirs[row.run_a]["comparisons"][row.run_b][metric], rel=1e-9, abs=1e-300)
        d = per_user[(row.run_a, metric)] - per_user[(row.run_b, metric)]
        reference = randomisation_p(d)
        # Our 2,000 permutations' Monte Carlo error, plus the floor (1 + count)/(1 + n).
        spread = math.sqrt(max(reference, 1 / 2_000) * (1 - reference) / 2_000)
        assert abs(row.fisher_p - reference) <= 4.5 * spread + 1 / 2_001, (row.run_a, row.run_b, metric, reference)
    # Not every pair is decided at once: the p-values compared are not all at their floor.
    assert (table.fisher_p > 0.01).any() and (table.t_p > 0.01).any()


def test_options_choose_the_pairs_the_tests_and_the_marks():
    qrels_frame, frames = runs_of(3, n_users=30)
    qrels = recs.Qrels.from_df(qrels_frame)
    runs = {n: recs.Run.from_df(f) for n, f in frames.items()}
    default = recs.compare(qrels, runs, "map")
    assert list(zip(default.run_a, default.run_b)) == [("good", "mid"), ("good", "bad"), ("mid", "bad")]
    assert [c for c in default.columns if c.endswith("_p")] == ["t_p", "fisher_p"]
    assert default.attrs["family"] == "3 comparisons: 3 pairs × 1 metric, Holm"
    assert default.attrs["marks"] == "t"
    against_first = recs.compare(qrels, runs, "map", pairs="baseline")
    assert list(zip(against_first.run_a, against_first.run_b)) == [("mid", "good"), ("bad", "good")]
    against_bad = recs.compare(qrels, runs, "map", baseline="bad", tests="sign")
    assert list(zip(against_bad.run_a, against_bad.run_b)) == [("good", "bad"), ("mid", "bad")]
    tukey = recs.compare(qrels, list(runs.values()), "map", tukey=True, permutations=2000)
    assert tukey.attrs["marks"] == "tukey" and "tukey_p" in tukey.columns
    assert list(tukey.run_a) == ["0", "0", "1"]
    marked = tukey[tukey.tukey_p < 0.05]
    assert (marked.better == np.where(marked.mean_a > marked.mean_b, marked.run_a, marked.run_b)).all()
    assert tukey[tukey.tukey_p >= 0.05].better.isna().all()
    # The legacy one-test argument.
    legacy = recs.compare(qrels, runs, "map", test="wilcoxon", pairs="baseline", adjust="none")
    assert [c for c in legacy.columns if c.endswith("_p")] == ["wilcoxon_p"]
    assert (legacy.wilcoxon_p == legacy.wilcoxon_p_adjusted).all()
    assert legacy.attrs["family"] == "2 comparisons: 2 pairs × 1 metric, unadjusted"


@pytest.mark.parametrize(
    "options, message",
    [
        ({"tests": "t,welch"}, "unknown test `welch`"),
        ({"tests": "t,t"}, "the test t is asked for twice"),
        ({"tests": "t", "test": "t"}, "not both"),
        ({"adjust": "fdr"}, "unknown adjustment `fdr`"),
        ({"baseline": "best"}, "baseline 'best' is not a run; the runs are a, b"),
        ({"pairs": "all", "baseline": "a"}, "pairs=\"all\""),
        ({"pairs": "some"}, "unknown pairs"),
        ({"tukey": True, "baseline": "a"}, "Tukey HSD compares all pairs"),
        ({"alpha": 1.5}, "alpha 1.5 must lie strictly between 0 and 1"),
        ({"permutations": 0}, "permutations must be at least 1"),
        ({"missing": "skip"}, "unknown missing"),
        ({"metrics": "roc"}, "roc is not a mean of per-user values"),
        ({"metrics": "map,map"}, "names map twice"),
    ],
)
def test_bad_options_are_refused_with_what_was_expected(options, message):
    qrels = recs.Qrels({"u": {"a": 1, "b": 0}, "v": {"a": 0, "b": 1}})
    runs = {"a": {"u": {"a": 0.5, "b": 0.1}, "v": {"a": 0.2, "b": 0.3}}, "b": {"u": {"a": 0.1, "b": 0.5}, "v": {"a": 0.9, "b": 0.3}}}
    metrics = options.pop("metrics", "mrr")
    with pytest.raises(recs.RecsError, match=message.replace("(", r"\(")):
        recs.compare(qrels, runs, metrics, **options)


@needs_cli
def test_list_metrics_with_train_and_attributes_as_recs_compare(tmp_path):
    """The per-user metrics of the lists' items (popularity, novelty, diversity,
    calibration) compare as ``recs compare --train --attributes`` compares them."""
    qrels, runs = runs_of(5)
    rng = np.random.default_rng(3)
    good = runs["good"]
    train = good.sample(frac=0.3, random_state=4)[["user", "item"]]
    items = sorted(set(good.item))
    rows = [(i, f"g{a}") for i in items for a in rng.choice(5, size=int(rng.integers(1, 3)), replace=False)]
    attributes = pd.DataFrame(rows, columns=["item", "attribute"])
    with open(tmp_path / "attributes.tsv", "w") as f:
        f.write("item\trank\tattribute\n")
        for rank, (i, a) in enumerate(rows):
            f.write(f"{i}\t{rank + 1}\t{a}\n")
    write_train(tmp_path / "train.tsv", train)
    write(tmp_path / "q.tsv", qrels, "grade")
    paths = {}
    for name, frame in runs.items():
        paths[name] = tmp_path / f"{name}.tsv"
        write(paths[name], frame, "score")
    metrics = "arp@5,epc@5,miuf@5,ild@5,miscal@5"
    extra = ["--train", tmp_path / "train.tsv", "--attributes", tmp_path / "attributes.tsv", "--head-items", 3, "--similarity", "jaccard"]
    expected = cli_compare(tmp_path / "q.tsv", paths, "--metrics", metrics, "--tests", "t", *extra)
    table = recs.compare(
        recs.Qrels.from_df(qrels), {n: recs.Run.from_df(f) for n, f in runs.items()}, metrics, tests="t",
        train=train, attributes=attributes, head_items=3, similarity="jaccard",
    )
    assert_same_as_cli(table, expected)
    assert set(table.metric) == set(metrics.split(","))
