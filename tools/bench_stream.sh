#!/usr/bin/env bash
# Full-catalog evaluation at MovieLens-20M scale, measured as a user sees it.
#
#   tools/bench_stream.sh [USERS ITEMS EVENTS]      (default 138493 26744 20000263)
#
# 1. `recs data synth` writes synthetic events of that shape (seed 1) into $WORK
#    (default target/bench-stream), once.
# 2. `recs run` evaluates PureSVD rank 64 on a 20% leave-k-out split, every unrated item
#    a candidate, metrics roc, croc, ndcg@10, r@20, map (streamed): whole-process wall
#    time and peak memory, and the fit / evaluation times from timings.json.
# 3. examples/catalog_scale.rs, in one process on the same shape: the streamed
#    evaluation, the bare exact scoring of the same blocks of users, and the same blocks
#    as one f32 matrix product (faer), with their ratios.
set -euo pipefail
cd "$(dirname "$0")/.."

users=${1:-138493}
items=${2:-26744}
events=${3:-20000263}
work=${WORK:-target/bench-stream}
mkdir -p "$work"

cargo build --release -q -p recs-cli -p recs-bench --example catalog_scale
recs=target/release/recs

data="$work/synth-${users}x${items}-${events}.tsv"
if [ ! -f "$data" ]; then
    "$recs" data synth --users "$users" --items "$items" --events "$events" --seed 1 \
        --out "$data"
fi

sed -e "s|@NAME@|stream-${users}x${items}|" \
    -e "s|@DATA@|$(cd "$(dirname "$data")" && pwd)/$(basename "$data")|" \
    tools/puresvd-catalog.toml > "$work/stream.toml"

echo "== recs run (whole process)"
/usr/bin/time -v "$recs" run "$work/stream.toml" --out "$work/run" --quiet 2> "$work/time.txt"
grep -E "Elapsed|Maximum resident" "$work/time.txt"
python3 - "$work/run/timings.json" <<'EOF'
import json, sys
for model in json.load(open(sys.argv[1]))["models"]:
    for s in model["splits"]:
        path = "streamed" if s["streamed"] else "listed"
        print(f'{model["label"]}: fit {s["fit_seconds"]:.1f} s, {path} evaluation {s["evaluation_seconds"]:.1f} s')
EOF

echo "== evaluation against bare scoring and GEMM (one process)"
target/release/examples/catalog_scale "$users" "$items" "$events" 64
