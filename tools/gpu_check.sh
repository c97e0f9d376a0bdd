#!/usr/bin/env bash
# The GPU path checked and timed on a machine with an NVIDIA GPU, with binaries built
# beforehand (builds nothing, needs no network):
#
#   tools/gpu_check.sh BIN_DIR DATA_DIR [OUT_DIR]
#
# BIN_DIR holds `recs` built with `--features cuda` (a `recs.gz` is unpacked) and,
# optionally, `gpu-tests` (the recs-cuda test binary: `cargo test -p recs-cuda --test gpu
# --no-run`), run with RECS_REQUIRE_GPU=1, and `_recs.abi3.so` (the Python module,
# `maturin develop --release` in python/), with which the Python package's GPU tests run
# (torch on the GPU). DATA_DIR is a RECS_DATA_DIR (ml-100k, msweb).
# OUT_DIR (default ./gpu-check) receives every report and gpu.csv.
#
# 1. MovieLens 100K (each user's last fifth of ratings held out) with seeded rank-32
#    factors: `recs eval --user-factors` on the CPU and on the GPU; the two JSON outputs
#    must be identical.
# 2. `recs run` on examples/msweb-croc.toml, ml100k-strong.toml and ml100k-ratings.toml
#    (all streamed) with --device cpu and cuda: report.json identical.
# 3. MovieLens-20M shape (`recs data synth`, 20% of the events held out at random,
#    seeded rank-64 factors): `recs eval --user-factors` with roc, croc, ndcg@10, r@20,
#    map on 16 CPU threads and on the GPU (identical JSON, both timed), and the PyTorch
#    peer (tools/torch_peer.py) on the same files.
# 4. `recs run` PureSVD rank 64 at that shape (tools/scaling.sh's config) with --device
#    cpu and cuda: report.json identical (the GPU counts; the host scores).
#
# Environment: USERS, ITEMS, EVENTS (another shape for step 3 and 4), DEVICES (default
# "cpu cuda"; "cpu cpu" rehearses the script on a machine without a GPU), STEPS (the
# steps to run, comma-separated, default all: tests, python, factors, examples, 20m-eval,
# torch, gpu-python, 20m-run; the data a step needs is prepared whenever it runs).
set -euo pipefail
users=${USERS:-138493}
items=${ITEMS:-26744}
events=${EVENTS:-20000263}
read -r first_device second_device <<< "${DEVICES:-cpu cuda}"
steps=",${STEPS:-tests,python,factors,examples,20m-eval,torch,gpu-python,20m-run},"
want() { # want STEP...: whether any of the steps is asked for
    local step
    for step in "$@"; do
        [[ "$steps" == *",$step,"* ]] && return 0
    done
    return 1
}

bin_dir=$(cd "${1:?usage: tools/gpu_check.sh BIN_DIR DATA_DIR [OUT_DIR]}" && pwd)
data_dir=$(cd "${2:?usage: tools/gpu_check.sh BIN_DIR DATA_DIR [OUT_DIR]}" && pwd)
out=${3:-gpu-check}
root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
recs="$bin_dir/recs"
if [ ! -x "$recs" ] && [ -f "$recs.gz" ]; then
    gzip -dc "$recs.gz" > "$recs"
    chmod +x "$recs"
fi
export RECS_DATA_DIR="$data_dir"
csv="$out/gpu.csv"
echo "case,device,seconds,sha256" > "$csv"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader \
    > "$out/gpu.txt" 2>&1 || true

timed() { # timed NAME DEVICE OUTFILE COMMAND...: runs, records seconds and sha256
    # (or FAILED, with the command's errors in OUTFILE.err) and goes on either way.
    local name=$1 device=$2 file=$3
    shift 3
    local start end status=0
    start=$(date +%s.%N)
    "$@" > "$file" 2> "$file.err" || status=$?
    end=$(date +%s.%N)
    local digest
    digest=$(sha256sum < "$file" | cut -c1-16)
    if [ "$status" != 0 ]; then
        digest="FAILED($status)"
        failed=1
        tail -n 5 "$file.err"
    fi
    echo "$name,$device,$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'),$digest" \
        | tee -a "$csv"
}

same() { # same A B WHAT: both written, and byte for byte the same
    if [ -s "$1" ] && [ -s "$2" ] && cmp -s "$1" "$2"; then
        echo "== identical: $3"
    else
        echo "== DIFFERENT: $3"
        failed=1
    fi
}
failed=0

if want tests && [ -x "$bin_dir/gpu-tests" ]; then
    echo "== recs-cuda GPU tests"
    RECS_REQUIRE_GPU=1 "$bin_dir/gpu-tests" --test-threads 1 2>&1 | tee "$out/gpu-tests.txt" \
        || failed=1
fi

if want python && [ -f "$bin_dir/_recs.abi3.so" ]; then
    echo "== Python package, GPU tests"
    cp "$bin_dir/_recs.abi3.so" "$root/python/recs/"
    RECS_REQUIRE_GPU=1 PYTHONPATH="$root/python" python3 -m pytest -q -p no:cacheprovider "$root/python/tests/test_factors.py" \
        -k "gpu or cuda" 2>&1 | tee "$out/python-tests.txt" || failed=1
fi

if want factors gpu-python; then
echo "== MovieLens 100K and MS Web factors"
python3 - "$data_dir" "$out" <<'PY'
import sys, numpy as np, os
src, dst = sys.argv[1], sys.argv[2]

def write(case, train, test, n_users, n_items, rank, seed):
    os.makedirs(f"{dst}/{case}", exist_ok=True)
    rng = np.random.default_rng(seed)
    # Rounded to a few values: tied scores occur.
    np.save(f"{dst}/{case}/U.npy", (rng.integers(-4, 5, (n_users, rank)) / 8).astype(np.float32))
    np.save(f"{dst}/{case}/V.npy", (rng.integers(-4, 5, (n_items, rank)) / 8).astype(np.float32))
    np.savetxt(f"{dst}/{case}/train.tsv", train, fmt="%d", delimiter="\t")
    np.savetxt(f"{dst}/{case}/test.tsv", test, fmt="%d", delimiter="\t")

# MovieLens 100K: each user's last fifth of ratings by time held out (user, item, rating).
a = np.loadtxt(f"{src}/ml-100k/u.data", dtype=np.int64)
a = a[np.lexsort((a[:, 3], a[:, 0]))]
_, starts, counts = np.unique(a[:, 0], return_index=True, return_counts=True)
held = np.zeros(len(a), dtype=bool)
for s, c in zip(starts, counts):
    held[s + c - c // 5 : s + c] = True
write("ml100k", a[~held][:, :2], a[held][:, :3], 944, 1683, 32, 1)

# MS Web (the training file's visits): users and areas renumbered from 0 in order of
# appearance; every fourth visit of each user held out, grade 1.
pairs, user = [], None
for line in open(f"{src}/msweb/anonymous-msweb.data", encoding="latin-1"):
    fields = line.rstrip("\n").split(",")
    if fields[0] == "C":
        user = int(fields[2])
    elif fields[0] == "V":
        pairs.append((user, int(fields[1])))
pairs = np.array(pairs, dtype=np.int64)
_, pairs[:, 0] = np.unique(pairs[:, 0], return_inverse=True)
_, pairs[:, 1] = np.unique(pairs[:, 1], return_inverse=True)
position = np.zeros(len(pairs), dtype=np.int64)
for k in range(1, len(pairs)):
    position[k] = position[k - 1] + 1 if pairs[k, 0] == pairs[k - 1, 0] else 0
held = position % 4 == 3
test = np.column_stack([pairs[held], np.ones(held.sum(), dtype=np.int64)])
write("msweb", pairs[~held], test, pairs[:, 0].max() + 1, pairs[:, 1].max() + 1, 16, 2)
PY
fi
for case in ml100k msweb; do
    want factors || break
    threshold=$([ "$case" = ml100k ] && echo 4 || echo 1)
    metrics=roc,croc,user_auc,ndcg@10,r@20,map,mrr
    for device in "$first_device" "$second_device"; do
        timed "$case-factors" "$device" "$out/$case/$device.json" "$recs" eval --quiet --json \
            --user-factors "$out/$case/U.npy" --item-factors "$out/$case/V.npy" \
            --train "$out/$case/train.tsv" --qrels "$out/$case/test.tsv" \
            --metrics "$metrics" --rel-threshold "$threshold" --device "$device"
    done
    same "$out/$case/$first_device.json" "$out/$case/$second_device.json" "$case factors"
done

for example in msweb-croc ml100k-strong ml100k-ratings; do
    want examples || break
    for k in 1 2; do
        device=$([ "$k" = 1 ] && echo "$first_device" || echo "$second_device")
        timed "$example" "$device" "$out/$example-$k.log" "$recs" run --quiet \
            "$root/examples/$example.toml" --device "$device" --out "$out/$example-$k"
        echo "$example-report,$device,,$(sha256sum < "$out/$example-$k/report.json" | cut -c1-16)" \
            | tee -a "$csv"
    done
    same "$out/$example-1/report.json" "$out/$example-2/report.json" "$example"
done

big="$out/20m"
if want 20m-eval torch gpu-python 20m-run; then
echo "== MovieLens-20M shape"
mkdir -p "$big"
[ -f "$big/all.tsv" ] || "$recs" data synth --users "$users" --items "$items" \
    --events "$events" --seed 1 --out "$big/all.tsv"
python3 - "$big" <<'PY'
import sys, numpy as np, os
import pyarrow as pa, pyarrow.csv as csv
d = sys.argv[1]
if not os.path.exists(f"{d}/test.tsv"):
    options = csv.ReadOptions(column_names=["user", "item", "value"])
    table = csv.read_csv(f"{d}/all.tsv", options, csv.ParseOptions(delimiter="\t"),
                         csv.ConvertOptions(include_columns=["user", "item"]))
    a = np.column_stack([table["user"].to_numpy(), table["item"].to_numpy()]).astype(np.int64)
    rng = np.random.default_rng(1)
    held = rng.random(len(a)) < 0.2
    write = csv.WriteOptions(include_header=False, delimiter="\t", quoting_style="none")
    csv.write_csv(pa.table({"user": a[~held, 0], "item": a[~held, 1]}), f"{d}/train.tsv", write)
    grade = np.ones(held.sum(), dtype=np.int64)
    csv.write_csv(pa.table({"user": a[held, 0], "item": a[held, 1], "grade": grade}),
                  f"{d}/test.tsv", write)
    users, items = a[:, 0].max() + 1, a[:, 1].max() + 1
    rng = np.random.default_rng(2)
    np.save(f"{d}/U.npy", rng.standard_normal((users, 64)).astype(np.float32))
    np.save(f"{d}/V.npy", rng.standard_normal((items, 64)).astype(np.float32))
PY
fi
for k in 2 1; do
    want 20m-eval || break
    device=$([ "$k" = 1 ] && echo "$first_device" || echo "$second_device")
    RAYON_NUM_THREADS=16 timed 20m-factors "$device" "$big/$k.json" "$recs" eval --quiet \
        --json --user-factors "$big/U.npy" --item-factors "$big/V.npy" \
        --train "$big/train.tsv" --qrels "$big/test.tsv" \
        --metrics roc,croc,ndcg@10,r@20,map --device "$device"
done
if want 20m-eval; then
    same "$big/1.json" "$big/2.json" "MovieLens-20M shape factors"
fi
if want torch; then
    python3 "$root/tools/torch_peer.py" "$big" | tee "$out/torch_peer.txt" || true
fi

if want gpu-python && [ -f "$bin_dir/_recs.abi3.so" ]; then
    echo "== Python evaluate_factors and evaluate_scorer (torch on the GPU), three cases"
    PYTHONPATH="$root/python" python3 "$root/tools/gpu_python.py" "$out/ml100k:4" \
        "$out/msweb" "$big" 2>&1 | tee "$out/gpu-python.txt" || failed=1
fi

if want 20m-run; then
echo "== recs run, PureSVD rank 64, MovieLens-20M shape"
sed -e "s|@NAME@|gpu-check-20m|" -e "s|@DATA@|$big/all.tsv|" \
    "$root/tools/puresvd-catalog.toml" > "$out/run.toml"
for k in 2 1; do
    device=$([ "$k" = 1 ] && echo "$first_device" || echo "$second_device")
    RAYON_NUM_THREADS=16 timed 20m-run "$device" "$out/run-$k.log" "$recs" run --quiet \
        "$out/run.toml" --device "$device" --out "$out/run-$k"
    cp "$out/run-$k/timings.json" "$out/timings-$device-$k.json" || true
    echo "20m-run-report,$device,,$(sha256sum < "$out/run-$k/report.json" | cut -c1-16)" \
        | tee -a "$csv"
done
same "$out/run-1/report.json" "$out/run-2/report.json" "recs run at MovieLens-20M shape"
fi
cat "$csv"
exit "$failed"
