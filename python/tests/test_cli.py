"""The same files through `recs eval --json` and through Python: the same keys and
values. Needs the `recs` binary: `RECS_CLI`, else `target/debug/recs` of the
repository (built by `cargo test --workspace`, which CI runs first)."""

import json
import os
import subprocess
from pathlib import Path

import numpy as np
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


def cli(*args):
    out = subprocess.run([str(CLI), "eval", "--json", *map(str, args)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


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
    with open(tmp_path / "train.tsv", "w") as f:
        for u, i in zip(train.user, train.item):
            f.write(f"{u}\t{i}\t1\n")
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
