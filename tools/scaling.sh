#!/usr/bin/env bash
# Thread scaling of a full-catalog `recs run` at MovieLens-20M shape, with a release
# binary built beforehand: builds nothing and needs no network.
#
#   tools/scaling.sh BIN_DIR [OUT_DIR]
#
# BIN_DIR holds the `recs` binary (`cargo build --release -p recs-cli`, then
# target/release/recs; strip or compress it to carry it: `gzip -k recs`, a `recs.gz`
# there is unpacked). OUT_DIR (default ./scaling-<hostname>) receives the data, one report
# folder per run and scaling.csv.
#
# 1. `recs data synth` writes 20,000,263 power-law events on 138,493 users × 26,744 items
#    (seed 1), once (about 240 MB).
# 2. `recs run` evaluates PureSVD rank 64 on a 20% leave-k-out split, every unrated item
#    a candidate, metrics roc, croc, ndcg@10, r@20, map (streamed), at THREADS threads
#    (default "1 2 4 8 16"; RAYON_NUM_THREADS), REPEATS times each (default 1).
# 3. scaling.csv: threads, repeat, whole-process wall seconds, fit and evaluation seconds
#    (timings.json), peak resident memory in MiB (timings.json's peak_resident_bytes, or
#    /usr/bin/time when present), and the sha256 of report.json (equal on every line:
#    the report does not depend on the thread count).
#
# 4. With fit_scale beside recs in BIN_DIR, fit.txt: the PureSVD fit alone at each thread
#    count (same data generator and split as recs run's), with a checksum of the factors.
#
# Environment: THREADS, REPEATS, MEMORY_BUDGET_MIB (passed as --memory-budget-mib when
# set), USERS, ITEMS, EVENTS (another shape), DATA and NAME (a data file already written,
# and the run's name: with tools/gpu_check.sh's `$OUT/20m/all.tsv` and `gpu-check-20m`
# the reports are its 20m-run's), DEADLINE (a time in seconds since the epoch: a run
# that would not end before it, judged from the last run's time and thread count, is
# skipped and says so).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin_dir=${1:?usage: tools/scaling.sh BIN_DIR [OUT_DIR]}
out=${2:-scaling-$(hostname)}
threads=${THREADS:-1 2 4 8 16}
repeats=${REPEATS:-1}
users=${USERS:-138493}
items=${ITEMS:-26744}
events=${EVENTS:-20000263}

bin_dir=$(cd "$bin_dir" && pwd)
recs="$bin_dir/recs"
if [ ! -x "$recs" ] && [ -f "$recs.gz" ]; then
    gzip -dc "$recs.gz" > "$recs"
    chmod +x "$recs"
fi
[ -x "$recs" ] || { echo "no recs binary in $bin_dir" >&2; exit 1; }
mkdir -p "$out"
out=$(cd "$out" && pwd)

data=${DATA:-$out/synth-${users}x${items}-${events}.tsv}
name=${NAME:-scaling-${users}x${items}}
if [ ! -f "$data" ]; then
    echo "== generating $data"
    "$recs" data synth --users "$users" --items "$items" --events "$events" --seed 1 \
        --out "$data"
fi

config="$out/scaling.toml"
sed -e "s|@NAME@|$name|" -e "s|@DATA@|$data|" \
    "$here/puresvd-catalog.toml" > "$config"

extra=()
if [ -n "${MEMORY_BUDGET_MIB:-}" ]; then
    extra=(--memory-budget-mib "$MEMORY_BUDGET_MIB")
fi
time_v=()
if [ -x /usr/bin/time ]; then
    time_v=(/usr/bin/time -v -o)
fi

csv="$out/scaling.csv"
echo "threads,repeat,wall_seconds,fit_seconds,evaluation_seconds,peak_mib,report_sha256" > "$csv"
{
    echo "machine: $(hostname), $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    grep -m1 "model name" /proc/cpuinfo || true
    "$recs" --version || true
} > "$out/machine.txt"
cat "$out/machine.txt"

last_seconds=0 last_threads=0
for t in $threads; do
    for r in $(seq 1 "$repeats"); do
        run="$out/run-t$t-r$r"
        if [ -n "${DEADLINE:-}" ] && [ "$last_threads" != 0 ]; then
            # Time shrinks at most in proportion to the threads; 20% spare.
            expected=$(awk -v s="$last_seconds" -v a="$last_threads" -v b="$t" \
                'BEGIN { f = a / b; if (f < 1) f = 1; printf "%d", s * f * 1.2 }')
            if [ $(( $(date +%s) + expected )) -gt "$DEADLINE" ]; then
                echo "== $t threads, repeat $r: skipped (about $expected s; the deadline is near)"
                continue
            fi
        fi
        echo "== $t threads, repeat $r"
        start=$(date +%s.%N)
        if [ ${#time_v[@]} -gt 0 ]; then
            RAYON_NUM_THREADS=$t "${time_v[@]}" "$run.time" \
                "$recs" run "$config" --out "$run" --quiet "${extra[@]}" > /dev/null
        else
            RAYON_NUM_THREADS=$t "$recs" run "$config" --out "$run" --quiet "${extra[@]}" > /dev/null
        fi
        end=$(date +%s.%N)
        last_seconds=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%d", b - a + 1 }')
        last_threads=$t
        python3 - "$t" "$r" "$start" "$end" "$run" >> "$csv" <<'PY'
import hashlib, json, os, sys
t, r, start, end, run = sys.argv[1:]
timings = json.load(open(os.path.join(run, "timings.json")))
split = timings["models"][0]["splits"][0]
peak = timings.get("peak_resident_bytes")
peak_mib = peak / 2**20 if peak else None
if os.path.exists(run + ".time"):
    for line in open(run + ".time"):
        if "Maximum resident set size" in line:
            peak_mib = max(peak_mib or 0, int(line.split()[-1]) / 1024)
sha = hashlib.sha256(open(os.path.join(run, "report.json"), "rb").read()).hexdigest()
wall = float(end) - float(start)
print(f"{t},{r},{wall:.2f},{split['fit_seconds']:.2f},{split['evaluation_seconds']:.2f},"
      f"{peak_mib:.0f},{sha}")
PY
        tail -n 1 "$csv"
    done
done

# The fit alone at every thread count, when the example binary came along
# (`cargo build --release -p recs-bench --example fit_scale`, then
# target/release/examples/fit_scale, or fit_scale.gz): seconds per fit and a checksum
# of the factors, which must not change with the thread count.
fit_scale="$bin_dir/fit_scale"
if [ ! -x "$fit_scale" ] && [ -f "$fit_scale.gz" ]; then
    gzip -dc "$fit_scale.gz" > "$fit_scale"
    chmod +x "$fit_scale"
fi
if [ -x "$fit_scale" ]; then
    echo "== the fit alone (fit_scale)"
    "$fit_scale" "$(echo $threads | tr ' ' ',')" "$users" "$items" "$events" 64 | tee "$out/fit.txt"
fi

echo "== $csv"
column -s, -t "$csv" 2>/dev/null || cat "$csv"
if [ "$(cut -d, -f7 "$csv" | tail -n +2 | sort -u | wc -l)" -ne 1 ]; then
    echo "report.json differs between runs" >&2
    exit 1
fi
