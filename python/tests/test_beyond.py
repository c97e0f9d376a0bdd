"""The popularity, novelty and exposure metrics in Python: the numbers of `recs eval
--train`, numpy's by the definitions of docs/metrics.md on MovieLens 100K, and the
refusals."""

import numpy as np
import pandas as pd
import pytest

import recs
from conftest import make_case
from test_cli import CLI, cli, movielens_leave_one_out, write, write_train

METRICS = "arp@5,aplt@5,aclt@5,epc@5,epc_flat@5,efd@5,efd_flat@5,miuf@5,serendipity@5,gini@5,entropy@5,poprsp@5,popreo@5"


@pytest.mark.skipif(not CLI.is_file(), reason=f"no recs binary at {CLI}")
@pytest.mark.parametrize("candidates", ["qrels", "catalog"])
@pytest.mark.parametrize("ties", [False, True])
def test_python_gives_the_numbers_of_recs_eval(tmp_path, candidates, ties):
    qrels_frame, run_frame = make_case(7, ties=ties, all_candidates=candidates == "qrels")
    # Training events: some of the run's pairs, and items no qrels user has.
    train = pd.concat(
        [
            run_frame.sample(frac=0.3, random_state=2)[["user", "item"]],
            pd.DataFrame({"user": ["t1", "t2", "t2"], "item": ["x1", "x1", "x2"]}),
        ]
    )
    if candidates == "catalog":
        train = train[train.user.str.startswith("t") | (train.index % 2 == 0)]
    write_train(tmp_path / "train.tsv", train)
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.tsv", run_frame, "score")
    args = ["--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.tsv", "--train", tmp_path / "train.tsv"]
    for head in ([], ["--head-items", "4"]):
        expected = cli(*args, "--metrics", METRICS, "--candidates", candidates, *head)
        ours = recs.evaluate(
            recs.Qrels.from_df(qrels_frame),
            recs.Run.from_df(run_frame),
            METRICS,
            candidates=candidates,
            train=train,
            details=True,
            head_items=4 if head else None,
        )
        assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
        assert ours == expected


@pytest.mark.skipif(not CLI.is_file(), reason=f"no recs binary at {CLI}")
@pytest.mark.parametrize("similarity", ["cosine", "jaccard"])
def test_intra_list_diversity_gives_the_numbers_of_recs_eval(tmp_path, similarity):
    qrels_frame, run_frame = make_case(9, ties=True)
    rng = np.random.default_rng(4)
    items = sorted(set(run_frame.item))
    rows = [(i, f"g{a}") for i in items[:-3] for a in rng.choice(6, size=int(rng.integers(1, 4)), replace=False)]
    rows.append(("not-an-item", "g0"))
    attributes = pd.DataFrame(rows, columns=["item", "attribute"])
    with open(tmp_path / "attributes.tsv", "w") as f:
        f.write("item\trank\tattribute\n")
        for rank, (i, a) in enumerate(rows):
            f.write(f"{i}\t{rank + 1}\t{a}\n")
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.tsv", run_frame, "score")
    expected = cli("--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.tsv", "--metrics", "ild@3,ild@10,ild_disc@3,ild_disc@10", "--attributes", tmp_path / "attributes.tsv", "--similarity", similarity)
    ours = recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), "ild@3,ild@10,ild_disc@3,ild_disc@10", attributes=attributes, similarity=similarity, details=True)
    assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
    assert ours == expected
    as_dict = {}
    for i, a in rows:
        as_dict.setdefault(i, []).append(a)
    assert recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), "ild@3", attributes=as_dict, similarity=similarity)["ild@3"] == expected["ild@3"]


@pytest.mark.skipif(not CLI.is_file(), reason=f"no recs binary at {CLI}")
@pytest.mark.parametrize("alpha", [None, 0.2])
def test_calibration_gives_the_numbers_of_recs_eval(tmp_path, alpha):
    qrels_frame, run_frame = make_case(13, ties=True)
    rng = np.random.default_rng(6)
    items = sorted(set(run_frame.item))
    # The last three items have no attribute; x1 and x2 are training items outside the
    # qrels, x1 with attributes.
    rows = [(i, f"g{a}") for i in items[:-3] + ["x1"] for a in rng.choice(5, size=int(rng.integers(1, 3)), replace=False)]
    attributes = pd.DataFrame(rows, columns=["item", "attribute"])
    with open(tmp_path / "attributes.tsv", "w") as f:
        f.write("item\trank\tattribute\n")
        for i, a in rows:
            f.write(f"{i}\t1\t{a}\n")
    users = sorted(set(qrels_frame.user))
    train = pd.concat(
        [
            run_frame.sample(frac=0.2, random_state=3)[["user", "item"]],
            pd.DataFrame({"user": [users[0], users[1], "t9"], "item": ["x1", "x2", "x1"]}),
        ]
    )
    write_train(tmp_path / "train.tsv", train)
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.tsv", run_frame, "score")
    smoothing = [] if alpha is None else ["--calibration-alpha", str(alpha)]
    expected = cli("--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.tsv", "--metrics", "miscal@3,miscal@10", "--train", tmp_path / "train.tsv", "--attributes", tmp_path / "attributes.tsv", *smoothing)
    options = {} if alpha is None else {"calibration_alpha": alpha}
    ours = recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), "miscal@3,miscal@10", train=train, attributes=attributes, details=True, **options)
    assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
    assert ours == expected
    assert 0 < ours["miscal@3"] < np.log(1 / (alpha or 0.01))


def _groups_as_recs_eval(tmp_path, case, kind, metrics, names, asked):
    """Groups of users or items (``kind``) given to ``recs.evaluate`` as a dict and as a
    frame, checked against ``recs eval --user-groups``/``--item-groups``; ``asked`` are the
    metrics the breakdown must hold. Returns the frames, the groups and the breakdown."""
    qrels_frame, run_frame = make_case(case, ties=True)
    ids = sorted(set(qrels_frame[kind]))
    groups = {i: (names[0] if k % 3 else names[1]) for k, i in enumerate(ids[:-2])}
    with open(tmp_path / "groups.tsv", "w") as f:
        for i, g in groups.items():
            f.write(f"{i}\t{g}\n")
    write(tmp_path / "q.tsv", qrels_frame, "grade")
    write(tmp_path / "r.tsv", run_frame, "score")
    key = "groups" if kind == "user" else "item_groups"
    expected = cli("--qrels", tmp_path / "q.tsv", "--run", tmp_path / "r.tsv", "--metrics", metrics, f"--{kind}-groups", tmp_path / "groups.tsv", "--seed", "5", "--resamples", "300")
    evaluate = lambda given, metrics=metrics: recs.evaluate(recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame), metrics, seed=5, resamples=300, details=True, **{f"{kind}_groups": given})
    ours = evaluate(groups)
    assert ours[key] == expected[key]
    assert set(ours[key]) == asked
    assert len(ours.pop("warnings")) == len(expected.pop("warnings"))
    frame = pd.DataFrame({kind: list(groups), "group": list(groups.values())})
    assert evaluate(frame)[key] == expected[key]
    with pytest.raises(recs.RecsError, match="per-user means" if kind == "user" else "read relevance"):
        evaluate(groups, "roc")
    return qrels_frame, run_frame, groups, ours[key]


@pytest.mark.skipif(not CLI.is_file(), reason=f"no recs binary at {CLI}")
def test_user_groups_give_the_breakdown_of_recs_eval(tmp_path):
    _groups_as_recs_eval(tmp_path, 11, "user", "ndcg@10,p@5,roc", ("a", "b"), {"ndcg@10", "p@5"})


@pytest.mark.skipif(not CLI.is_file(), reason=f"no recs binary at {CLI}")
def test_item_groups_give_the_breakdown_of_recs_eval(tmp_path):
    qrels_frame, run_frame, groups, ours = _groups_as_recs_eval(tmp_path, 12, "item", "ndcg@10,r@5,roc", ("head", "tail"), {"ndcg@10", "r@5"})
    # Each group's recall by hand: the user's expected hits among the group's relevant
    # items in the top 5, over them (ties at the cut-off counted by inclusion probability).
    by_hand = {}
    for user, rows in qrels_frame.groupby("user"):
        scored = run_frame[run_frame.user == user].set_index("item")["score"]
        for group in ("head", "tail"):
            relevant = [i for i, g in zip(rows.item, rows.grade) if g >= 1 and groups.get(i) == group]
            if not relevant:
                continue
            scores = scored.reindex(rows.item).fillna(-np.inf)
            above = lambda s: (scores > s).sum()
            tied = lambda s: (scores == s).sum()
            hits = sum(min(max(5 - above(scores[i]), 0), tied(scores[i])) / tied(scores[i]) for i in relevant)
            by_hand.setdefault(group, []).append(hits / len(relevant))
    for group, values in by_hand.items():
        assert abs(ours["r@5"]["groups"][group]["mean"] - np.mean(values)) < 1e-12
        assert ours["r@5"]["groups"][group]["n_users"] == len(values)


def test_movielens_values_are_numpys_by_the_definitions():
    """Leave one out, item popularity with a seeded tie-breaking jitter (no ties): ARP,
    APLT, EPC, EFD, MIUF and the exposure Gini and entropy computed here with numpy."""
    train, test, _ = movielens_leave_one_out()
    k = 10
    users = np.unique(test.user.to_numpy())
    items = np.unique(np.concatenate([train.item.to_numpy(), test.item.to_numpy()]))
    item_index = {item: j for j, item in enumerate(items)}
    phi = np.zeros(len(items))
    for item, count in train.groupby("item").user.nunique().items():
        phi[item_index[item]] = count
    n_users = train.user.nunique()
    pairs = phi.sum()
    rng = np.random.default_rng(11)
    jitter = rng.permutation(len(items)) / (2.0 * len(items))
    score = (phi + jitter).astype(np.float32)
    trained = train.groupby("user").item.apply(set).to_dict()
    held = dict(zip(test.user, test.item))
    rows = []
    lists = {}
    for u in users:
        mask = np.array([item not in trained.get(u, set()) for item in items])
        candidates = np.flatnonzero(mask)
        rows.append(pd.DataFrame({"user": u, "item": items[candidates], "score": score[candidates]}))
        order = candidates[np.argsort(-score[candidates], kind="stable")]
        lists[u] = order[:k]
    run = pd.concat(rows)
    qrels = recs.Qrels.from_df(pd.DataFrame({"user": list(held), "item": list(held.values()), "grade": 1.0}))
    ours = recs.evaluate(
        qrels,
        recs.Run.from_df(run),
        f"arp@{k},aplt@{k},epc@{k},efd@{k},miuf@{k},gini@{k},entropy@{k}",
        candidates="catalog",
        train=train[["user", "item"]],
    )
    # The head: most popular first until half the pairs, then every item as popular.
    ranked = np.sort(phi)[::-1]
    reached = np.cumsum(ranked)
    last = ranked[np.searchsorted(reached, 0.5 * pairs)]
    tail = phi < max(last, 1)
    disc = 1.0 / np.log2(np.arange(2, k + 2))
    least = phi[phi > 0].min()
    arp, aplt, epc, efd, miuf = [], [], [], [], []
    exposure = np.zeros(len(items))
    for u, top in lists.items():
        arp.append(phi[top].mean())
        aplt.append(tail[top].mean())
        relevant = items[top] == held[u]
        epc.append((disc * relevant * (1 - phi[top] / n_users)).sum() / disc.sum())
        novelty = -np.log2(np.where(phi[top] > 0, phi[top], least) / pairs)
        efd.append((disc * relevant * novelty).sum() / disc.sum())
        miuf.append((-np.log2(np.maximum(phi[top], 1) / n_users)).mean())
        exposure[top] += 1
    sorted_exposure = np.sort(exposure)
    m = len(items)
    gini = 2 * np.sum(np.arange(1, m + 1) * sorted_exposure) / (m * exposure.sum()) - (m + 1) / m
    p = exposure[exposure > 0] / exposure.sum()
    want = {
        f"arp@{k}": np.mean(arp),
        f"aplt@{k}": np.mean(aplt),
        f"epc@{k}": np.mean(epc),
        f"efd@{k}": np.mean(efd),
        f"miuf@{k}": np.mean(miuf),
        f"gini@{k}": gini,
        f"entropy@{k}": -np.sum(p * np.log(p)),
    }
    for key, value in want.items():
        assert ours[key] == pytest.approx(value, abs=1e-10), key


def test_refusals_say_what_is_missing():
    qrels_frame, run_frame = make_case(3)
    q, r = recs.Qrels.from_df(qrels_frame), recs.Run.from_df(run_frame)
    with pytest.raises(recs.RecsError, match="arp@5 needs the items' training popularity"):
        recs.evaluate(q, r, "arp@5")
    with pytest.raises(recs.RecsError, match="no popularity metric"):
        recs.evaluate(q, r, "p@5", head_share=0.3)
    train = run_frame[["user", "item"]].head(20)
    with pytest.raises(recs.RecsError, match="head_share or head_items"):
        recs.evaluate(q, r, "aplt@5", train=train, head_share=0.3, head_items=2)
    with pytest.raises(recs.RecsError, match="head share"):
        recs.evaluate(q, r, "aplt@5", train=train, head_share=1.5)
    with pytest.raises(recs.RecsError, match="attributes"):
        recs.evaluate(q, r, "ild@5")
    with pytest.raises(recs.RecsError, match="miscal@5 needs the items' attributes and each user's training items"):
        recs.evaluate(q, r, "miscal@5", attributes={"i1": ["g"]})
    with pytest.raises(recs.RecsError, match="calibration_alpha sets"):
        recs.evaluate(q, r, "p@5", calibration_alpha=0.1)
    with pytest.raises(recs.RecsError, match="smoothing"):
        recs.evaluate(q, r, "miscal@5", train=train, attributes={"i1": ["g"]}, calibration_alpha=0.0)
    with pytest.raises(recs.RecsError, match="read by ild@N"):
        recs.evaluate(q, r, "p@5", attributes={"i1": ["g"]})
    with pytest.raises(recs.RecsError, match="similarity"):
        recs.evaluate(q, r, "ild@5", attributes={"i1": ["g"]}, similarity="euclid")
    details = recs.evaluate(q, r, "aplt@5", train=train, details=True)
    assert details["popularity"]["head"] == {"share": 0.5}
    assert "popularity" not in recs.evaluate(q, r, "aplt@5", train=train)
