#!/usr/bin/env python3
"""Whole-process `recs eval` against the tools users have, on the same files, in one run.

    pip install pandas scikit-learn ranx
    python3 tools/bench_eval.py roc QRELS RUN        # vs pandas + scikit-learn roc_auc_score
    python3 tools/bench_eval.py ranking QRELS RUN    # vs ranx (NDCG@10, P@10, R@10, MAP)
    python3 tools/bench_eval.py roc QRELS RUN --repeat 9   # more rounds (default 5)

QRELS and RUN are `user<TAB>item<TAB>grade` / `user<TAB>item<TAB>score` files with every
candidate listed (what `recs split --judgments` and `recs score --qrels` write). Each side
runs as its own process, timed from start to exit with its peak resident memory
(`/usr/bin/time`), as a user would run it: `recs eval` on one thread (RAYON_NUM_THREADS=1)
and with every core, the peers with their defaults. The peers read the files with pandas, join the scores to
the judgments, and compute; ranx's numba code is compiled in a warm-up call on a tiny
input inside the same process (part of what a user waits for; shown separately). Every
side prints its values and their differences are shown (ranx orders tied scores its own
way, `recs eval` takes the expectation over tie orders). The sides run in turn for a
number of rounds and the median wall time of each is compared: on a shared machine one
run of either side can take half as long again as the next.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PEER_ROC = r"""
import sys, json
import pandas as pd
from sklearn.metrics import roc_auc_score
q = pd.read_csv(sys.argv[1], sep="\t", header=None, names=["user", "item", "grade"],
                dtype={"user": str, "item": str})
r = pd.read_csv(sys.argv[2], sep="\t", header=None, names=["user", "item", "score"],
                dtype={"user": str, "item": str})
m = q.merge(r, on=["user", "item"], how="left").fillna({"score": float("-inf")})
print(json.dumps({"roc_auc": roc_auc_score(m["grade"] >= 1, m["score"])}))
"""

PEER_RANX = r"""
import sys, json, time
import pandas as pd
from ranx import Qrels, Run, evaluate
metrics = ["ndcg@10", "precision@10", "recall@10", "map"]
t = time.perf_counter()
evaluate(Qrels({"q": {"a": 1}}), Run({"q": {"a": 1.0, "b": 0.5}}), metrics)
warm = time.perf_counter() - t
q = pd.read_csv(sys.argv[1], sep="\t", header=None, names=["q_id", "doc_id", "score"],
                dtype={"q_id": str, "doc_id": str})
r = pd.read_csv(sys.argv[2], sep="\t", header=None, names=["q_id", "doc_id", "score"],
                dtype={"q_id": str, "doc_id": str})
# ranx ranks what the run holds: keep the run lines of qrels candidates, as recs eval
# does under --candidates qrels; judged-relevant rows only in the qrels.
r = r.merge(q[["q_id", "doc_id"]], on=["q_id", "doc_id"])
for df in (q, r):  # ranx wants object (Python str) id columns
    df["q_id"] = df["q_id"].astype(object)
    df["doc_id"] = df["doc_id"].astype(object)
qrels = Qrels.from_df(q[q["score"] >= 1].astype({"score": int}), q_id_col="q_id",
                      doc_id_col="doc_id", score_col="score")
run = Run.from_df(r, q_id_col="q_id", doc_id_col="doc_id", score_col="score")
v = evaluate(qrels, run, metrics, make_comparable=True)
print(json.dumps({"ndcg@10": v["ndcg@10"], "p@10": v["precision@10"],
                  "r@10": v["recall@10"], "map": v["map"], "warm_up_seconds": warm}))
"""


def timed(cmd, env=None):
    """Runs `cmd` under /usr/bin/time; returns (stdout, wall seconds, peak MiB)."""
    with tempfile.NamedTemporaryFile("r", suffix=".time") as t:
        full = ["/usr/bin/time", "-f", "%e %M", "-o", t.name] + cmd
        out = subprocess.run(full, check=True, capture_output=True, text=True, env=env)
        wall, kib = t.read().split()[-2:]
    return out.stdout, float(wall), int(kib) / 1024


def recs(args, threads):
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.path.join(target, "release", "recs")
    env = dict(os.environ)
    if threads:
        env["RAYON_NUM_THREADS"] = str(threads)
    out, wall, mib = timed([exe, "eval", "--json"] + args, env)
    return json.loads(out), wall, mib


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["roc", "ranking"])
    parser.add_argument("qrels")
    parser.add_argument("run")
    parser.add_argument("--repeat", type=int, default=5,
                        help="rounds; each round runs every side once, in turn (default 5)")
    a = parser.parse_args()
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "recs-cli"], cwd=ROOT, check=True)
    n = sum(1 for _ in open(a.qrels))
    if a.mode == "roc":
        args = ["--qrels", a.qrels, "--run", a.run, "--metrics", "roc"]
        peer_cmd, keys, peer = PEER_ROC, ["roc_auc"], "pandas + scikit-learn"
    else:
        args = ["--qrels", a.qrels, "--run", a.run, "--metrics", "ndcg@10,p@10,r@10,map"]
        peer_cmd, keys, peer = PEER_RANX, ["ndcg@10", "p@10", "r@10", "map"], "ranx"
    # Rounds in turn, so that a slow spell of the machine falls on every side alike.
    times = {"one": [], "all": [], "peer": []}
    for _ in range(a.repeat):
        ours, wall, mib = recs(args, 1)
        times["one"].append(wall)
        _, wall, mib_all = recs(args, None)
        times["all"].append(wall)
        out, wall, peer_mib = timed([sys.executable, "-c", peer_cmd, a.qrels, a.run])
        times["peer"].append(wall)
    theirs = json.loads(out)
    print(f"{n} candidates; {a.repeat} rounds, median wall time (range)")
    for k in keys:
        print(f"{k}: recs {ours[k]:.12f}  {peer} {theirs[k]:.12f}  difference {ours[k] - theirs[k]:.1e}")
    if "warm_up_seconds" in theirs:
        print(f"({peer}'s numba warm-up inside its process: {theirs['warm_up_seconds']:.1f} s)")
    per = lambda m: m * 2**20 / n
    med = {k: statistics.median(v) for k, v in times.items()}
    span = lambda k: f"{med[k]:.2f} s ({min(times[k]):.2f}-{max(times[k]):.2f})"
    print(f"recs eval, 1 thread: {span('one')}, {mib:.0f} MiB ({per(mib):.1f} bytes per candidate)")
    print(f"recs eval, {os.cpu_count()} threads: {span('all')}, {mib_all:.0f} MiB ({per(mib_all):.1f} bytes per candidate)")
    print(f"{peer}: {span('peer')}, {peer_mib:.0f} MiB")
    print(f"ratio, 1 thread: {med['peer'] / med['one']:.1f}x faster, {peer_mib / mib:.1f}x less memory")
    print(f"ratio, {os.cpu_count()} threads: {med['peer'] / med['all']:.1f}x faster, {peer_mib / mib_all:.1f}x less memory")


if __name__ == "__main__":
    main()
