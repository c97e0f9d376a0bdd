#!/usr/bin/env bash
# Runs every recs-data fuzz target for a bounded time (not part of CI).
# Usage: tools/fuzz_data.sh [SECONDS_PER_TARGET]   (default 60)
# Needs a nightly toolchain and cargo-fuzz (`cargo +nightly install cargo-fuzz`).
# Builds into $CARGO_TARGET_DIR/fuzz when CARGO_TARGET_DIR is set, else into fuzz/target.
set -euo pipefail
seconds="${1:-60}"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root/fuzz"
target_dir=()
if [[ -n "${CARGO_TARGET_DIR:-}" ]]; then
    target_dir=(--target-dir "$CARGO_TARGET_DIR/fuzz")
fi
for target in delimited movielens_items msweb attributes; do
    echo "== $target ($seconds s)"
    mkdir -p "corpus/$target"
    log="$(mktemp)"
    status=0
    cargo +nightly fuzz run "${target_dir[@]}" "$target" "corpus/$target" -- \
        -max_total_time="$seconds" -max_len=4096 >"$log" 2>&1 || status=$?
    # libFuzzer's summary lines, or the whole tail when the run did not get that far.
    grep -E "^#[0-9]+[[:space:]]+DONE|^Done [0-9]+ runs|ERROR|panicked" "$log" || tail -20 "$log"
    echo "exit status: $status"
    rm -f "$log"
done
echo "crash artifacts (empty means none):"
ls -1 artifacts/*/ 2>/dev/null || true
