#!/usr/bin/env bash
# Fuzzes the file readers (qrels, runs, TREC, CSV and other interaction files, Parquet,
# Arrow IPC) with cargo-fuzz: `tools/fuzz.sh [RUNS] [TARGET...]` runs each target RUNS
# executions (default 10 million) from seeds written here, and stops at the first crash.
#
# Needs `cargo install cargo-fuzz`. Runs on the stable toolchain: `--sanitizer none`
# (the code is safe Rust; panics, aborts, overflows (`-a`: debug assertions), timeouts
# and memory blow-ups are what the fuzzer finds).
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10000000}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(detected delimited qrels_run files movielens_items msweb attributes)
fi
# `recs` writes the Parquet seeds; built where the workspace builds it.
cargo build --quiet --release -p recs-cli
recs="$(cargo metadata --format-version 1 --no-deps | sed 's/.*"target_directory":"\([^"]*\)".*/\1/')/release/recs"
# The fuzz builds (instrumented) get a folder of their own.
export CARGO_TARGET_DIR="$PWD/target/fuzz"
corpus="$CARGO_TARGET_DIR/corpus"

# Seeds: small valid files of every format (the fuzzer keeps what it learns next to them).
seed() { mkdir -p "$corpus/$1"; printf "%b" "$3" > "$corpus/$1/$2"; }
seed detected csv 'userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n2,10,4.0,835355493\n'
seed detected dat '1::2::3::4\n2::3::4::5\n'
seed detected tsv '1\t2\t3\n2\t3\t4\n'
seed delimited csv 'userId,movieId,rating,timestamp\n1,31,2.5,1260759144\n'
seed delimited data '1\t2\t3\t4\n2\t3\t4\t5\n'
seed qrels_run tsv 'u1\ta\t1\nu1\tb\t0\nu2\ta\t2\n\xffu1\ta\t0.5\nu1\tb\t0.25\nu3\ta\t1\n'
seed qrels_run trec '1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n\xff1 Q0 d1 1 0.9 x\n1 Q0 d9 2 0.5 x\n'
seed files text 'u1\ta\t1\nu1\tb\t0\n\xff\xfeu1\ta\t0.5\nu1\tb\t0.25\n'
seed files trec '1 0 d1 1\n2 0 d3 2\n\xff\xfe1 Q0 d1 1 0.9 x\n2 Q0 d3 1 0.7 x\n'
# A Parquet run written by `recs score`, after its text qrels.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf 'u1\ta\t5\nu1\tb\t3\nu2\ta\t4\n' > "$tmp/train.tsv"
printf 'u1\ta\t1\nu1\tb\t0\nu2\tb\t1\n' > "$tmp/qrels.tsv"
"$recs" score --train "$tmp/train.tsv" --model item-pop --qrels "$tmp/qrels.tsv" \
    --out "$tmp/run.parquet" 2> /dev/null
{ cat "$tmp/qrels.tsv"; printf '\xff\xfe'; cat "$tmp/run.parquet"; } > "$corpus/files/parquet-run"
{ cat "$tmp/run.parquet"; printf '\xff\xfe'; cat "$tmp/run.parquet"; } > "$corpus/files/parquet-both"

cd fuzz
for target in "${targets[@]}"; do
    echo "== $target: $runs runs (log: $CARGO_TARGET_DIR/$target.log)"
    # Targets without seeds written above start from an empty corpus of their own.
    mkdir -p "$corpus/$target"
    if ! cargo fuzz run -O -a --sanitizer none "$target" "$corpus/$target" -- \
        -runs="$runs" -print_final_stats=1 > "$CARGO_TARGET_DIR/$target.log" 2>&1; then
        tail -n 40 "$CARGO_TARGET_DIR/$target.log"
        echo "$target: FAILED"
        exit 1
    fi
    grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$CARGO_TARGET_DIR/$target.log"
done
