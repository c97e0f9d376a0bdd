"""evaluate_factors and evaluate_scorer: the full catalog streamed from factors or from a
callback equals the same scores listed as a run and evaluated with
``evaluate(..., candidates="catalog")``, bit for bit, on MovieLens 100K and MS Web, for
every tie and zero policy, at any block size; and every mistake is an error naming the
argument."""

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recs

DATA = os.environ.get("RECS_DATA_DIR")
METRICS = "roc,croc,user_auc,p@5,r@20,f1@5,hit@5,ndcg@10,ndcg_exp@10,ap@10,map,mrr,half_life@5"


def _has(name):
    return bool(DATA) and (Path(DATA) / name).is_dir()


def _kernel_scores(U, V):
    """Scores as the kernel computes them: float32 products summed in float64 from +0.0
    in the order of the dimensions, rounded to float32."""
    total = np.zeros((U.shape[0], V.shape[0]), dtype=np.float64)
    for k in range(U.shape[1]):
        total += U[:, k].astype(np.float64)[:, None] * V[:, k].astype(np.float64)[None, :]
    return total.astype(np.float32)


def _listed_run(scores, train, qrels, user_ids, item_ids):
    """Every candidate of every judged user with its score: the run ``recs eval
    --candidates catalog`` would be given."""
    user_row = {u: r for r, u in enumerate(user_ids)}
    item_ids = np.asarray(item_ids)
    known = train.groupby("user")["item"].agg(set).to_dict()
    users, items, values = [], [], []
    for u in sorted(set(qrels["user"])):
        mask = ~np.isin(item_ids, list(known.get(u, ())))
        users.append(np.repeat(u, mask.sum()))
        items.append(item_ids[mask])
        values.append(scores[user_row[u], mask])
    frame = pd.DataFrame(
        {"user": np.concatenate(users), "item": np.concatenate(items), "score": np.concatenate(values)}
    )
    return recs.Run.from_df(frame)


def _same(listed, streamed):
    assert listed.keys() == streamed.keys()
    for key, a in listed.items():
        b = streamed[key]
        if key.startswith("roc_pauc") and a is not None:
            # docs/metrics.md: the one value that may differ by a rounding.
            assert abs(a - b) < 1e-15, key
        else:
            assert a == b, (key, a, b)


def _factors(n_rows, rank, seed, ties):
    rng = np.random.default_rng(seed)
    if ties:
        return (rng.integers(-4, 5, size=(n_rows, rank)) / 4).astype(np.float32)
    return rng.standard_normal((n_rows, rank)).astype(np.float32)


def _ml100k():
    events = recs.datasets.load("ml-100k")
    parts = recs.split(events, "holdout", test_fraction=0.2, seed=1)
    train, test = parts["train"], parts["test"]
    qrels = test[["user", "item", "rating"]].rename(columns={"rating": "grade"})
    return train[["user", "item"]], qrels, np.unique(events["user"])


def _msweb():
    train = recs.datasets.load("msweb")[["user", "item"]]
    test = recs.datasets.load("msweb", part="test")
    qrels = test[["user", "item"]].assign(grade=1.0)
    return train, qrels, np.unique(np.concatenate([train["user"], test["user"]]))


def _check(train, qrels, users, threshold):
    items = np.unique(np.concatenate([train["item"], qrels["item"]]))[::-1]  # not in id order
    q = recs.Qrels.from_df(qrels)
    for ties, rank, seed in [(True, 4, 1), (False, 8, 2)]:
        U, V = _factors(len(users), rank, seed, ties), _factors(len(items), rank, seed + 10, ties)
        scores = _kernel_scores(U, V)
        run = _listed_run(scores, train, qrels, list(users), list(items))
        for tie in ["expected", "item-ascending", "item-descending"]:
            for zero in ["exclude", "zero", "ignatov"]:
                options = dict(ties=tie, zero=zero, threshold=threshold, details=True)
                listed = recs.evaluate(q, run, METRICS, candidates="catalog", train=train, **options)
                factors = recs.evaluate_factors(U, V, train, q, METRICS, users=users, items=items, **options)
                _same(listed, factors)
                if tie == "expected":
                    scorer = recs.evaluate_scorer(
                        lambda rows: scores[rows], len(users), train, q, METRICS,
                        users=users, items=items, block_users=37, **options,
                    )
                    _same(listed, scorer)


@pytest.mark.skipif(not _has("ml-100k"), reason="RECS_DATA_DIR has no ml-100k")
def test_movielens_factors_and_scorer_equal_the_listed_run():
    train, qrels, users = _ml100k()
    _check(train, qrels, users, threshold=4.0)


@pytest.mark.skipif(not _has("msweb"), reason="RECS_DATA_DIR has no msweb")
def test_msweb_factors_and_scorer_equal_the_listed_run():
    train, qrels, users = _msweb()
    _check(train, qrels, users, threshold=1.0)


LISTS = (
    "ndcg@10,coverage@10,arp@10,aplt@10,aclt@10,epc@10,efd@10,miuf@10,serendipity@10,"
    "gini@10,entropy@10,poprsp@10,popreo@10,ild@10,ild_disc@10,miscal@10"
)


def _ml100k_genres():
    """MovieLens 100K's genres from ``u.item``: a frame of ``item`` and ``attribute``."""
    rows = []
    with open(Path(DATA) / "ml-100k" / "u.item", encoding="latin-1") as f:
        for line in f:
            fields = line.rstrip("\n").split("|")
            rows += [(int(fields[0]), f"g{g}") for g, flag in enumerate(fields[5:]) if flag == "1"]
    return pd.DataFrame(rows, columns=["item", "attribute"])


@pytest.mark.skipif(not _has("ml-100k"), reason="RECS_DATA_DIR has no ml-100k")
def test_movielens_list_metrics_streamed_equal_the_listed_run():
    """The metrics of the lists' items (popularity, novelty, genre diversity, calibration
    to each user's training genres, exposure) from factors with many ties and from a
    scorer equal those of the listed run, bit for bit, under every tie policy."""
    train, qrels, users = _ml100k()
    genres = _ml100k_genres()
    items = np.unique(np.concatenate([train["item"], qrels["item"]]))[::-1]
    q = recs.Qrels.from_df(qrels)
    U, V = _factors(len(users), 3, 5, True), _factors(len(items), 3, 15, True)
    scores = _kernel_scores(U, V)
    run = _listed_run(scores, train, qrels, list(users), list(items))
    facts = dict(train=train, attributes=genres, details=True)
    for tie, extra in [("expected", {}), ("item-ascending", {"head_items": 40}), ("item-descending", {"similarity": "jaccard"})]:
        options = dict(ties=tie, threshold=4.0, **extra)
        listed = recs.evaluate(q, run, LISTS, candidates="catalog", **facts, **options)
        assert listed["popularity"]["n_head_items"] > 0 and 0 < listed["coverage@10"] < 1
        fit = {k: v for k, v in facts.items() if k != "train"}
        factors = recs.evaluate_factors(U, V, train, q, LISTS, users=users, items=items, **fit, **options)
        assert factors.pop("popularity") == listed.pop("popularity")
        _same(listed, factors)
        scorer = recs.evaluate_scorer(
            lambda rows: scores[rows], len(users), train, q, LISTS,
            users=users, items=items, block_users=37, **fit, **options,
        )
        scorer.pop("popularity")
        _same(listed, scorer)


def _small(seed=3, n_users=40, n_items=60, rank=5):
    """Generated train and qrels frames over integer ids, with factors."""
    rng = np.random.default_rng(seed)
    pairs = {(int(u), int(i)) for u, i in zip(rng.integers(0, n_users, 600), rng.integers(0, n_items, 600))}
    pairs = sorted(pairs)
    train = pd.DataFrame(pairs[::2], columns=["user", "item"])
    qrels = pd.DataFrame(pairs[1::2], columns=["user", "item"]).assign(grade=1.0)
    U, V = _factors(n_users, rank, seed, False), _factors(n_items, rank, seed + 1, False)
    return train, qrels, U, V


def test_block_size_thread_count_layout_and_dtype_change_nothing():
    train, qrels, U, V = _small()
    reference = recs.evaluate_factors(U, V, train, qrels, METRICS, details=True)
    assert reference["n_users"] > 10 and reference["candidates"] == "catalog"
    for U2, V2 in [(np.asfortranarray(U), np.asfortranarray(V)), (U.astype(np.float64), V.astype(np.float64))]:
        assert recs.evaluate_factors(U2, V2, train, qrels, METRICS, details=True) == reference
    tiny = recs.evaluate_factors(U, V, train, qrels, METRICS, details=True, memory_budget_mib=0)
    assert tiny == reference
    scores = _kernel_scores(U, V)
    for block in [1, 7, 1000]:
        got = recs.evaluate_scorer(lambda rows: scores[rows], len(U), train, qrels, METRICS, block_users=block, details=True)
        assert got == reference, block
    # The width of the catalog from the scorer itself, float64 scores accepted.
    got = recs.evaluate_scorer(lambda rows: scores[rows].astype(np.float64), len(U), train, qrels, METRICS, details=True)
    assert got == reference


def test_one_pass_without_the_pooled_roc_and_two_with_it():
    train, qrels, U, V = _small()
    scores = _kernel_scores(U, V)
    calls = []

    def score_block(rows):
        calls.append(len(rows))
        return scores[rows]

    recs.evaluate_scorer(score_block, len(U), train, qrels, "ndcg@10", n_items=len(V), block_users=10)
    one_pass = sum(calls)
    calls.clear()
    recs.evaluate_scorer(score_block, len(U), train, qrels, "roc,ndcg@10", n_items=len(V), block_users=10)
    assert sum(calls) == 2 * one_pass


def _error(match, call):
    with pytest.raises(recs.RecsError, match=match):
        call()


def test_mistakes_are_errors_naming_the_argument():
    train, qrels, U, V = _small()
    _error("the same rank", lambda: recs.evaluate_factors(U, V[:, :3], train, qrels))
    _error("user_factors: expected a 2-D", lambda: recs.evaluate_factors(U[0], V, train, qrels))
    _error("item_factors: expected float32 or float64", lambda: recs.evaluate_factors(U, V.astype(int), train, qrels))
    bad = U.copy()
    bad[7, 2] = np.nan
    _error(r"user_factors: row 7 \(id `7`\), dimension 2 is NaN", lambda: recs.evaluate_factors(bad, V, train, qrels))
    bad = V.copy()
    bad[3, 0] = np.inf
    _error(r"item_factors: row 3 \(id `3`\), dimension 0 is inf", lambda: recs.evaluate_factors(U, bad, train, qrels))
    _error("items: 5 ids for the 60 rows", lambda: recs.evaluate_factors(U, V, train, qrels, items=range(5)))
    extra = pd.concat([qrels, pd.DataFrame({"user": [999], "item": [1], "grade": [1.0]})])
    _error("qrels: user `999` has no row in the user rows", lambda: recs.evaluate_factors(U, V, train, extra))
    extra = pd.concat([train, pd.DataFrame({"user": [1], "item": [777]})])
    _error("train: item `777` has no row in the item rows", lambda: recs.evaluate_factors(U, V, extra, qrels))
    _error(
        'coverage@10 reads each user\'s top-N list, which device="cuda-emulator" does not select',
        lambda: recs.evaluate_factors(U, V, train, qrels, "coverage@10", device="cuda-emulator"),
    )
    _error("ild@10 needs the items' attributes", lambda: recs.evaluate_scorer(lambda r: U[r] @ V.T, len(U), train, qrels, "arp@10,ild@10", n_items=60))
    _error("attributes are read by ild@N", lambda: recs.evaluate_factors(U, V, train, qrels, "arp@10", attributes={0: ["a"]}))

    scores = _kernel_scores(U, V)
    n = len(U)
    _error(r"score_block returned shape \(\d+, 59\)", lambda: recs.evaluate_scorer(lambda r: scores[r][:, 1:], n, train, qrels, n_items=60))
    _error("score_block returned int64", lambda: recs.evaluate_scorer(lambda r: (scores[r] * 10).astype(np.int64), n, train, qrels, n_items=60))
    nan = scores.copy()
    nan[5, 11] = np.nan
    _error("user `5`, item `11`: NaN is not a finite score", lambda: recs.evaluate_scorer(lambda r: nan[r], n, train, qrels, "ndcg@10", n_items=60))
    calls = [0]

    def drifting(rows):
        calls[0] += 1
        return scores[rows] + np.float32(calls[0] * 1e-3)

    _error("the scorer must give the same scores each time", lambda: recs.evaluate_scorer(drifting, n, train, qrels, "roc", n_items=60))

    def failing(rows):
        raise KeyError("the model's own failure")

    with pytest.raises(KeyError, match="the model's own failure"):
        recs.evaluate_scorer(failing, n, train, qrels, "ndcg@10", n_items=60)


def test_a_torch_model_is_evaluated_on_the_full_catalog():
    torch = pytest.importorskip("torch")
    train, qrels, U, V = _small()
    reference = recs.evaluate_factors(U, V, train, qrels, METRICS, details=True)
    users, items = torch.from_numpy(U).requires_grad_(), torch.from_numpy(V)
    assert recs.evaluate_factors(users, items, train, qrels, METRICS, details=True) == reference
    scores = torch.from_numpy(_kernel_scores(U, V))
    got = recs.evaluate_scorer(lambda rows: scores[torch.from_numpy(rows)], len(U), train, qrels, METRICS, details=True)
    assert got == reference


@pytest.mark.skipif(not _has("ml-100k"), reason="RECS_DATA_DIR has no ml-100k")
def test_the_list_metrics_example_of_the_docs_prints_what_it_says(capsys):
    page = (Path(__file__).parents[2] / "docs" / "python.md").read_text()
    section = page.split("The metrics of the lists' items (`coverage@N`", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/python.md", "exec"), {})
    said = code.strip().splitlines()[-1].removeprefix("# ")
    assert capsys.readouterr().out.strip() == said


def test_the_pytorch_example_of_the_docs_runs():
    pytest.importorskip("torch")
    page = (Path(__file__).parents[2] / "docs" / "python.md").read_text()
    section = page.split("## Evaluate a PyTorch model on the full catalog", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    exec(compile(code, "docs/python.md", "exec"), {})


def test_device_cuda_gives_the_cpu_result_or_says_why_not():
    train, qrels, U, V = _small()
    reference = recs.evaluate_factors(U, V, train, qrels, METRICS, details=True)
    try:
        got = recs.evaluate_factors(U, V, train, qrels, METRICS, details=True, device="cuda")
    except recs.RecsError as e:
        # No GPU here: the error names the device and the reason (a failure where
        # RECS_REQUIRE_GPU=1 says there is one).
        assert os.environ.get("RECS_REQUIRE_GPU") != "1", str(e)
        assert 'device="cuda"' in str(e) and "CUDA" in str(e), str(e)
    else:
        assert got == reference
    with pytest.raises(recs.RecsError, match='expected "cpu", "cuda" or "cuda-emulator"'):
        recs.evaluate_factors(U, V, train, qrels, METRICS, device="gpu")


def test_scores_on_the_gpu_give_the_cpu_result_or_say_why_not():
    train, qrels, U, V = _small()
    scores = _kernel_scores(U, V)
    reference = recs.evaluate_scorer(lambda rows: scores[rows], len(U), train, qrels, METRICS, details=True)
    try:
        import torch

        on_gpu = torch.cuda.is_available()
    except ImportError:
        torch, on_gpu = None, False
    assert on_gpu or os.environ.get("RECS_REQUIRE_GPU") != "1", "RECS_REQUIRE_GPU=1 and torch sees no GPU"
    if on_gpu:
        on_device = torch.from_numpy(scores).cuda()
        for block in [7, None]:
            got = recs.evaluate_scorer(
                lambda rows: on_device[torch.from_numpy(rows).cuda()],
                len(U), train, qrels, METRICS, n_items=len(V), block_users=block, details=True, device="cuda",
            )
            assert got == reference, block
    else:
        # No GPU (or no torch): an error that says which, before any scoring.
        with pytest.raises(recs.RecsError, match='device="cuda"'):
            recs.evaluate_scorer(lambda rows: scores[rows], len(U), train, qrels, METRICS, n_items=len(V), device="cuda")
    with pytest.raises(recs.RecsError, match="give n_items"):
        recs.evaluate_scorer(lambda rows: scores[rows], len(U), train, qrels, METRICS, device="cuda")
    with pytest.raises(recs.RecsError, match='expected "cpu", "cuda" or "cuda-emulator"'):
        recs.evaluate_scorer(lambda rows: scores[rows], len(U), train, qrels, METRICS, device="gpu")


def test_the_emulated_gpu_path_gives_the_cpu_result():
    """``device="cuda-emulator"``: the GPU path end to end (factors on the device, and a
    scorer's blocks read where they are, in its own item order), with the GPU's kernels
    compiled for the CPU."""
    train, qrels, U, V = _small()
    reference = recs.evaluate_factors(U, V, train, qrels, METRICS, details=True)
    got = recs.evaluate_factors(U, V, train, qrels, METRICS, details=True, device="cuda-emulator")
    assert got == reference
    # Item ids named in reverse: the catalog's columns are the scorer's rows reversed.
    items = [f"i{k}" for k in range(len(V))][::-1]
    named = {"user": train["user"], "item": [items[i] for i in train["item"]]}
    named_qrels = qrels.assign(item=[items[i] for i in qrels["item"]])
    scores = _kernel_scores(U, V)
    for roc in ["", "roc,"]:
        metrics = roc + "croc,ndcg@10,map"
        cpu = recs.evaluate_scorer(
            lambda rows: scores[rows], len(U), pd.DataFrame(named), named_qrels, metrics, items=items, details=True
        )
        for block in [3, None]:
            emulated = recs.evaluate_scorer(
                lambda rows: scores[rows], len(U), pd.DataFrame(named), named_qrels, metrics,
                items=items, block_users=block, details=True, device="cuda-emulator",
            )
            assert emulated == cpu, (metrics, block)
    bad = scores.copy()
    bad[0, 2] = np.inf
    with pytest.raises(recs.RecsError, match="is not a finite score"):
        recs.evaluate_scorer(lambda rows: bad[rows], len(U), train, qrels, METRICS, n_items=len(V), device="cuda-emulator")


def test_the_gpu_path_asks_the_scorer_for_user_rows_when_some_users_are_not_judged():
    """Users without test items are not judged, so the evaluation's judged users and the
    scorer's user rows are numbered apart: the GPU path (here with its kernels compiled
    for the CPU) must ask the scorer for rows, as the CPU path does. Every judged user
    gets their own row's scores, each user's scores differ, and every third row has no
    test item (row 0 among them), nor any event at all for row 1."""
    train, qrels, U, V = _small()
    train = train[train["user"] != 1]
    qrels = qrels[(qrels["user"] % 3 != 0) & (qrels["user"] != 1)]
    scores = _kernel_scores(U, V)
    asked = []

    def score_block(rows):
        asked.extend(int(r) for r in rows)
        return scores[rows]

    cpu = recs.evaluate_scorer(score_block, len(U), train, qrels, METRICS, n_items=len(V), details=True)
    assert sorted(set(asked)) == sorted(set(qrels["user"]))
    for block in [4, None]:
        asked.clear()
        emulated = recs.evaluate_scorer(
            score_block, len(U), train, qrels, METRICS, n_items=len(V), block_users=block, details=True,
            device="cuda-emulator",
        )
        assert sorted(set(asked)) == sorted(set(qrels["user"])), block
        assert emulated == cpu, block


@pytest.mark.skipif(not _has("ml-100k"), reason="RECS_DATA_DIR has no ml-100k")
def test_sampled_vs_exact_from_factors_equals_that_of_the_listed_scores():
    """``sampled_vs_exact_factors`` streams what ``sampled_vs_exact`` computes on the same
    scores listed as a run: every number of the dict equal, uniform and popularity draws,
    with many tied scores; the run is named as asked."""
    train, qrels, users = _ml100k()
    items = np.unique(np.concatenate([train["item"], qrels["item"]]))[::-1]
    U, V = _factors(len(users), 4, 1, True), _factors(len(items), 4, 11, True)
    run = _listed_run(_kernel_scores(U, V), train, qrels, list(users), list(items))
    q = recs.Qrels.from_df(qrels)
    for by in ["uniform", "popularity"]:
        options = dict(by=by, seeds=2, seed=5, threshold=4.0, corrections="sampled,rank-estimate,bv:0.1")
        listed = recs.sampled_vs_exact(q, {"svd": run}, train, 50, **options)
        streamed = recs.sampled_vs_exact_factors(
            q, U, V, train, 50, users=users, items=items, name="svd", memory_budget_mib=1, progress=False, **options
        )
        assert streamed == listed
        assert streamed["n_instances"] > 5000 and streamed["sampling"] == by


def test_sampled_vs_exact_from_factors_refuses_bad_arguments_with_the_reason():
    U = np.ones((1, 2), dtype=np.float32)
    V = np.ones((3, 2), dtype=np.float32)
    q, train = {0: {1: 1}}, {0: [0]}
    for kwargs, message in [
        ({"negatives": 0}, "negatives must be at least 1"),
        ({"corrections": "bv:2"}, "corrections"),
        ({"item_factors": np.ones((3, 3), dtype=np.float32)}, "same rank"),
        ({"items": ["a", "b", "c"]}, r"has no row in the item rows \(items=\)"),
    ]:
        args = dict(qrels=q, user_factors=U, item_factors=V, train=train, progress=False)
        args.update(kwargs)
        with pytest.raises(recs.RecsError, match=message):
            recs.sampled_vs_exact_factors(**args)
    with pytest.raises(recs.RecsError, match="needs train"):
        recs.sampled_vs_exact_factors(q, U, V, None)
