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
# "cpu cuda"; "cpu cpu" rehearses the script on a machine without a GPU).
set -euo pipefail
users=${USERS:-138493}
items=${ITEMS:-26744}
events=${EVENTS:-20000263}
read -r first_device second_device <<< "${DEVICES:-cpu cuda}"

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
    local name=$1 device=$2 file=$3
    shift 3
    local start end
    start=$(date +%s.%N)
    "$@" > "$file"
    end=$(date +%s.%N)
    echo "$name,$device,$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'),$(sha256sum < "$file" | cut -c1-16)" \
        | tee -a "$csv"
}

same() { # same A B WHAT
    if [ "$(sha256sum < "$1")" = "$(sha256sum < "$2")" ]; then
        echo "== identical: $3"
    else
        echo "== DIFFERENT: $3"
        failed=1
    fi
}
failed=0

if [ -x "$bin_dir/gpu-tests" ]; then
    echo "== recs-cuda GPU tests"
    RECS_REQUIRE_GPU=1 "$bin_dir/gpu-tests" --test-threads 1 2>&1 | tee "$out/gpu-tests.txt" \
        || failed=1
fi

if [ -f "$bin_dir/_recs.abi3.so" ]; then
    echo "== Python package, GPU tests"
    cp "$bin_dir/_recs.abi3.so" "$root/python/recs/"
    PYTHONPATH="$root/python" python3 -m pytest -q "$root/python/tests/test_factors.py" \
        -k "gpu or cuda" 2>&1 | tee "$out/python-tests.txt" || failed=1
fi

echo "== MovieLens 100K factors"
python3 - "$data_dir/ml-100k" "$out/ml100k" <<'PY'
import sys, numpy as np, os
src, dst = sys.argv[1], sys.argv[2]
os.makedirs(dst, exist_ok=True)
rng = np.random.default_rng(1)
# Rounded to a few values: tied scores occur.
np.save(f"{dst}/U.npy", (rng.integers(-4, 5, (944, 32)) / 8).astype(np.float32))
np.save(f"{dst}/V.npy", (rng.integers(-4, 5, (1683, 32)) / 8).astype(np.float32))
# Each user's last fifth of ratings by time held out.
a = np.loadtxt(f"{src}/u.data", dtype=np.int64)
a = a[np.lexsort((a[:, 3], a[:, 0]))]
users, starts, counts = np.unique(a[:, 0], return_index=True, return_counts=True)
held = np.zeros(len(a), dtype=bool)
for s, c in zip(starts, counts):
    held[s + c - c // 5 : s + c] = True
np.savetxt(f"{dst}/train.tsv", a[~held][:, :3], fmt="%d", delimiter="\t")
np.savetxt(f"{dst}/test.tsv", a[held][:, :3], fmt="%d", delimiter="\t")
PY
for device in "$first_device" "$second_device"; do
    timed ml100k-factors "$device" "$out/ml100k/$device.json" "$recs" eval --quiet --json \
        --user-factors "$out/ml100k/U.npy" --item-factors "$out/ml100k/V.npy" \
        --train "$out/ml100k/train.tsv" --qrels "$out/ml100k/test.tsv" \
        --metrics roc,croc,user_auc,ndcg@10,r@20,map,mrr --rel-threshold 4 --device "$device"
done
same "$out/ml100k/$first_device.json" "$out/ml100k/$second_device.json" "MovieLens 100K factors"

for example in msweb-croc ml100k-strong ml100k-ratings; do
    for k in 1 2; do
        device=$([ "$k" = 1 ] && echo "$first_device" || echo "$second_device")
        "$recs" run --quiet "$root/examples/$example.toml" --device "$device" \
            --out "$out/$example-$k" > /dev/null
        echo "$example,$device,,$(sha256sum < "$out/$example-$k/report.json" | cut -c1-16)" \
            | tee -a "$csv"
    done
    same "$out/$example-1/report.json" "$out/$example-2/report.json" "$example"
done

echo "== MovieLens-20M shape"
big="$out/20m"
mkdir -p "$big"
[ -f "$big/all.tsv" ] || "$recs" data synth --users "$users" --items "$items" \
    --events "$events" --seed 1 --out "$big/all.tsv"
python3 - "$big" <<'PY'
import sys, numpy as np, os
import pandas as pd
d = sys.argv[1]
if not os.path.exists(f"{d}/test.tsv"):
    a = pd.read_csv(f"{d}/all.tsv", sep="\t", header=None, comment="#", usecols=[0, 1]).to_numpy()
    rng = np.random.default_rng(1)
    held = rng.random(len(a)) < 0.2
    pd.DataFrame(a[~held]).to_csv(f"{d}/train.tsv", sep="\t", header=False, index=False)
    test = pd.DataFrame(a[held]).assign(grade=1)
    test.to_csv(f"{d}/test.tsv", sep="\t", header=False, index=False)
    users, items = a[:, 0].max() + 1, a[:, 1].max() + 1
    rng = np.random.default_rng(2)
    np.save(f"{d}/U.npy", rng.standard_normal((users, 64)).astype(np.float32))
    np.save(f"{d}/V.npy", rng.standard_normal((items, 64)).astype(np.float32))
PY
for k in 2 1; do
    device=$([ "$k" = 1 ] && echo "$first_device" || echo "$second_device")
    RAYON_NUM_THREADS=16 timed 20m-factors "$device" "$big/$k.json" "$recs" eval --quiet \
        --json --user-factors "$big/U.npy" --item-factors "$big/V.npy" \
        --train "$big/train.tsv" --qrels "$big/test.tsv" \
        --metrics roc,croc,ndcg@10,r@20,map --device "$device"
done
same "$big/1.json" "$big/2.json" "MovieLens-20M shape factors"
python3 "$root/tools/torch_peer.py" "$big" | tee "$out/torch_peer.txt" || true

echo "== recs run, PureSVD rank 64, MovieLens-20M shape"
sed -e "s|@NAME@|gpu-check-20m|" -e "s|@DATA@|$big/all.tsv|" \
    "$root/tools/puresvd-catalog.toml" > "$out/run.toml"
for k in 2 1; do
    device=$([ "$k" = 1 ] && echo "$first_device" || echo "$second_device")
    RAYON_NUM_THREADS=16 timed 20m-run "$device" "$out/run-$k.log" "$recs" run --quiet \
        "$out/run.toml" --device "$device" --out "$out/run-$k"
    cp "$out/run-$k/timings.json" "$out/timings-$device-$k.json"
    echo "20m-run-report,$device,,$(sha256sum < "$out/run-$k/report.json" | cut -c1-16)" \
        | tee -a "$csv"
done
same "$out/run-1/report.json" "$out/run-2/report.json" "recs run at MovieLens-20M shape"
cat "$csv"
exit "$failed"
