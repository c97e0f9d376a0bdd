#!/bin/sh
# Per-user values of real runs for the calibration example (calibration.rs, beside this
# file; docs/statistics.md, "Calibration on real runs").
#
#   sh crates/recs-stats/examples/calibration-data.sh [DIR]      (default /tmp/recs-calibration)
#
# Writes DIR/<dataset>/{train,test,qrels}.tsv (recs split), one run per model and seed
# (recs score), and DIR/<dataset>/per-user.tsv: `user<TAB>RUN:METRIC...`, every value
# exactly as recs eval computes it. recs has no command that prints per-user values; the
# Python package's recs.evaluate(..., return_per_user=True) does, with recs-metrics, so
# it writes them, and each run's means are checked against `recs eval --json` first.
#
# Needs: target/release/recs (cargo build -p recs-cli --release), RECS_DATA_DIR holding
# ml-100k/ and msweb/ (or the cache `recs data fetch` fills), and a Python with the recs
# package ($PYTHON, default python3; pip install ./python). About 2.5 minutes on 2 cores.
set -eu
out=${1:-/tmp/recs-calibration}
root=$(cd "$(dirname "$0")/../../.." && pwd)
recs=${RECS:-$root/target/release/recs}
python=${PYTHON:-python3}
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-2}
runs="item-pop item-knn user-knn puresvd ials@1 ials@2 ials@3 ials@4 ials@5"
metrics=ndcg@10,r@10

# MovieLens 100K: 20% of the events held out at random. MS Web (its training part, the
# 32,711 people of anonymous-msweb.data): one visit per person held out. Both judged on
# the full catalog (every item the user has no training event with).
"$recs" split --dataset ml-100k --protocol holdout --judgments implicit --judge-users test \
  --seed 0 --out "$out/ml-100k"
"$recs" split --dataset msweb --protocol leave-one-out --judgments implicit --judge-users test \
  --seed 0 --out "$out/msweb"

for dataset in ml-100k msweb; do
  dir=$out/$dataset
  for run in $runs; do
    model=${run%@*}
    seed=42
    case $run in *@*) seed=${run#*@} ;; esac
    "$recs" score --train "$dir/train.tsv" --model "$model" --seed "$seed" \
      --qrels "$dir/qrels.tsv" --out "$dir/$run.tsv" 2>"$dir/$run.log"
    "$recs" eval --qrels "$dir/qrels.tsv" --run "$dir/$run.tsv" --metrics $metrics --json \
      > "$dir/$run.json"
  done
  "$python" - "$dir" "$metrics" $runs <<'EOF'
import json, math, sys
import recs

folder, metrics, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
qrels = recs.Qrels.from_file(f"{folder}/qrels.tsv")
frames = {}
for run in runs:
    frame = recs.evaluate(qrels, recs.Run.from_file(f"{folder}/{run}.tsv"), metrics,
                          return_per_user=True)
    with open(f"{folder}/{run}.json") as f:
        report = json.load(f)
    for metric in frame.columns:
        mean = frame[metric].mean()
        if not math.isclose(mean, report[metric], rel_tol=1e-12, abs_tol=1e-15):
            sys.exit(f"{run} {metric}: per-user mean {mean} but recs eval says {report[metric]}")
    frames[run] = frame
users = frames[runs[0]].index
with open(f"{folder}/per-user.tsv", "w") as f:
    columns = [(run, metric) for run in runs for metric in frames[runs[0]].columns]
    f.write("user\t" + "\t".join(f"{r}:{m}" for r, m in columns) + "\n")
    for user in users:
        values = [repr(float(frames[r].at[user, m])) for r, m in columns]
        f.write(f"{user}\t" + "\t".join(values) + "\n")
print(f"{folder}/per-user.tsv: {len(users)} users, {len(columns)} columns")
EOF
done
