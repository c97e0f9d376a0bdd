#!/usr/bin/env python3
"""`recs compare` against ranx's `compare` on the same files: time and p-values.

The experiment of a paper's results table: 20 systems on MovieLens 1M's 6,040 users and
3,706 items, 5 metrics, all 190 pairs, with the paired t-test, Fisher's randomisation
test and a Tukey HSD. The data are synthetic and seeded (the shape is what costs time):
each user has 5 to 60 relevant items, each system ranks 100 items per user, and system s
puts a relevant item among them with a probability that grows with s.

    python3 tools/bench_compare.py prepare DIR          # qrels and 20 TREC runs in DIR
    python3 tools/bench_compare.py recs DIR RECS_BINARY  # recs compare, JSON to DIR/recs.json
    python3 tools/bench_compare.py ranx DIR              # ranx compare, JSON to DIR/ranx.json
    python3 tools/bench_compare.py agree DIR             # p-values side by side

and, for `farm-bench`, what both sides do alike (read, the 5 metrics, the t-tests):

    farm-bench -n 3 --timeout 900 --vs "python3 tools/bench_compare.py ranx-t DIR" -- \
        $(python3 tools/bench_compare.py recs-t-command DIR BIN)

Each of `recs` and `ranx` is a whole process as a user runs it (read the files, compute
the metrics, run the tests), so `farm-bench` can time one against the other.

What is compared is not the same test everywhere:
- the t-test is the same test on both sides (scipy's `ttest_rel` in ranx), so the p-values
  agree to rounding;
- Fisher's randomisation test is the same test; ranx counts `c / P` where recs counts
  `(c + 1) / (P + 1)`, and both are Monte Carlo estimates, so they agree within that error;
- ranx's Tukey HSD is scipy's `tukey_hsd`: the classical test on the studentized range,
  which treats the systems as independent samples (unpaired). recs runs Carterette's
  randomised Tukey HSD, paired over users. The p-values differ by definition, and only
  the times are comparable.

ranx's Fisher test shuffles each user's two values with numpy for every permutation and
pair; at 10,000 permutations, 950 (pair, metric) tests take hours, so `--fisher-permutations`
(default 1,000, ranx's own default) sets ranx's, and recs runs the same number.
"""

import argparse
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SYSTEMS = 20
USERS = 6_040
ITEMS = 3_706
LIST = 100
METRICS_RECS = ["p@10", "r@10", "ndcg@10", "map", "mrr"]
METRICS_RANX = ["precision@10", "recall@10", "ndcg@10", "map", "mrr"]


def prepare(out: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    out.mkdir(parents=True, exist_ok=True)
    relevant = []
    with open(out / "qrels.txt", "w") as f:
        for u in range(USERS):
            items = rng.choice(ITEMS, size=int(rng.integers(5, 61)), replace=False)
            relevant.append(set(items.tolist()))
            for i in sorted(items.tolist()):
                f.write(f"u{u} 0 i{i} 1\n")
    for s in range(SYSTEMS):
        hit = 0.05 + 0.01 * s
        with open(out / f"s{s:02}.txt", "w") as f:
            for u in range(USERS):
                rel = np.fromiter(relevant[u], dtype=np.int64)
                n_rel = min(len(rel), int(rng.binomial(LIST, hit)))
                picked = rng.choice(rel, size=n_rel, replace=False).tolist()
                others = [i for i in rng.choice(ITEMS, size=LIST + 70, replace=False).tolist()
                          if i not in relevant[u]][: LIST - n_rel]
                listed = picked + others
                # Relevant items drawn towards the top: scores from a shifted uniform.
                scores = rng.random(len(listed))
                scores[:n_rel] += 0.3 + 0.01 * s
                # Distinct scores (LIST − rank): no ties, which recs averages over and
                # ranx breaks by order, so both compute the same per-user values.
                for rank, k in enumerate(np.argsort(-scores, kind="stable")):
                    f.write(f"u{u} Q0 i{listed[k]} {rank + 1} {LIST - rank} s{s:02}\n")


def run_recs(out: Path, binary: str, permutations: int) -> None:
    started = time.perf_counter()
    command = recs_command(out, binary, "t,fisher", permutations)
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    (out / "recs.json").write_text(result.stdout)
    print(f"recs compare: {time.perf_counter() - started:.2f} s", file=sys.stderr)


def run_ranx(out: Path, fisher_permutations: int, fisher_systems: int) -> None:
    import ranx

    times = {}
    started = time.perf_counter()
    qrels = ranx.Qrels.from_file(str(out / "qrels.txt"), kind="trec")
    runs = [ranx.Run.from_file(str(out / f"s{s:02}.txt"), kind="trec") for s in range(SYSTEMS)]
    for s, run in enumerate(runs):
        run.name = f"s{s:02}"
    times["read"] = time.perf_counter() - started
    results = {}
    for test, systems, permutations in [("student", SYSTEMS, 1), ("tukey", SYSTEMS, 1),
                                        ("fisher", fisher_systems, fisher_permutations)]:
        started = time.perf_counter()
        report = ranx.compare(qrels, runs[:systems], METRICS_RANX, stat_test=test,
                              n_permutations=permutations, max_p=0.05, random_seed=42)
        times[test] = time.perf_counter() - started
        results[test] = report.to_dict()
        print(f"ranx {test} ({systems} systems): {times[test]:.2f} s", file=sys.stderr)
    results["times"] = times
    results["fisher_systems"] = fisher_systems
    results["fisher_permutations"] = fisher_permutations
    (out / "ranx.json").write_text(json.dumps(results))


def run_ranx_t(out: Path) -> None:
    """What both sides do alike, for `farm-bench`: read, the 5 metrics, the t-tests."""
    import ranx

    qrels = ranx.Qrels.from_file(str(out / "qrels.txt"), kind="trec")
    runs = [ranx.Run.from_file(str(out / f"s{s:02}.txt"), kind="trec") for s in range(SYSTEMS)]
    for s, run in enumerate(runs):
        run.name = f"s{s:02}"
    ranx.compare(qrels, runs, METRICS_RANX, stat_test="student", max_p=0.05)


def recs_command(out: Path, binary: str, tests: str, permutations: int) -> list:
    command = [binary, "compare", "--qrels", str(out / "qrels.txt"),
               "--metrics", ",".join(METRICS_RECS), "--candidates", "run",
               "--tests", tests, "--permutations", str(permutations),
               "--adjust", "none", "--format", "json"]
    if "fisher" in tests:
        command.append("--tukey")
    for s in range(SYSTEMS):
        command += ["--run", f"s{s:02}={out / f's{s:02}.txt'}"]
    return command


def agree(out: Path) -> None:
    ours = json.loads((out / "recs.json").read_text())
    theirs = json.loads((out / "ranx.json").read_text())
    names = dict(zip(METRICS_RECS, METRICS_RANX))
    worst_t, worst_fisher, beyond, n_fisher = 0.0, 0.0, 0, 0
    for c in ours["comparisons"]:
        a, b, metric = c["a"], c["b"], names[c["metric"]]
        worst_t = max(worst_t, abs(c["tests"]["t"]["p_value"]
                                   - theirs["student"][a]["comparisons"][b][metric]))
        fisher = theirs["fisher"]
        if a in fisher and b in fisher[a]["comparisons"]:
            p = c["tests"]["fisher"]["p_value"]
            q = fisher[a]["comparisons"][b][metric]
            n_fisher += 1
            worst_fisher = max(worst_fisher, abs(p - q))
            # Two Monte Carlo estimates of one p: 4.5 standard errors of their difference,
            # plus recs' 1 / (P + 1) offset, allow one in about 150,000.
            pp = min(max(q, 1.0 / theirs["fisher_permutations"]), 0.5)
            se = math.sqrt(pp * (1 - pp) * (1 / theirs["fisher_permutations"]
                                            + 1 / c["tests"]["fisher"]["permutations"]))
            if abs(p - q) > 4.5 * se + 1 / (c["tests"]["fisher"]["permutations"] + 1):
                beyond += 1
    means = max(abs(ours_mean - theirs["student"][run]["scores"][names[metric]])
                for c in ours["comparisons"]
                for run, ours_mean, metric in ((c["a"], c["mean_a"], c["metric"]),
                                               (c["b"], c["mean_b"], c["metric"])))
    print(json.dumps({"comparisons": len(ours["comparisons"]),
                      "max |mean - ranx|": means,
                      "max |t p - ranx|": worst_t,
                      "fisher tests compared": n_fisher,
                      "max |fisher p - ranx|": worst_fisher,
                      "fisher beyond 4.5 standard errors": beyond,
                      "ranx seconds": theirs["times"]}, indent=1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mode", choices=["prepare", "recs", "ranx", "ranx-t", "recs-t-command",
                                         "agree"])
    parser.add_argument("dir", type=Path)
    parser.add_argument("binary", nargs="?", default="target/release/recs")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--permutations", type=int, default=10_000,
                        help="recs: permutations of Fisher's test and of the Tukey HSD")
    parser.add_argument("--fisher-permutations", type=int, default=1_000,
                        help="ranx: permutations of its Fisher test")
    parser.add_argument("--fisher-systems", type=int, default=3,
                        help="ranx: its Fisher test on the first N systems only (N(N-1)/2 pairs)")
    args = parser.parse_args()
    if args.mode == "prepare":
        prepare(args.dir, args.seed)
    elif args.mode == "recs":
        run_recs(args.dir, args.binary, args.permutations)
    elif args.mode == "ranx-t":
        run_ranx_t(args.dir)
    elif args.mode == "recs-t-command":
        print(" ".join(recs_command(args.dir, args.binary, "t", 1)))
    elif args.mode == "ranx":
        run_ranx(args.dir, args.fisher_permutations, args.fisher_systems)
    else:
        agree(args.dir)


if __name__ == "__main__":
    main()
