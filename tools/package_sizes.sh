#!/usr/bin/env bash
# Packages every crate meant for crates.io (`cargo package`, no verification) and checks
# what each package ships: its unpacked size must stay under a limit, so that a package
# carries its sources, README and licences and not the repository's data or documents.
# Usage: tools/package_sizes.sh [limit in bytes, default 1 MiB]
set -euo pipefail
cd "$(dirname "$0")/.."
limit="${1:-1048576}"
target="${CARGO_TARGET_DIR:-$PWD/target}"

# Packages of an earlier run (a renamed crate's, say) would be counted too.
rm -f "$target"/package/*.crate
# xtask is the repository's own tooling (`publish = false`), never a package.
cargo package --workspace --exclude xtask --no-verify --allow-dirty --quiet

status=0
printf '%-28s %6s %12s %12s\n' package files unpacked compressed
for crate in "$target"/package/*.crate; do
    name="$(basename "$crate" .crate)"
    # `tar -tv` lists each member's size in its third column.
    read -r files bytes < <(tar -tzvf "$crate" | awk '{ n += 1; s += $3 } END { print n, s }')
    printf '%-28s %6d %12d %12d\n' "$name" "$files" "$bytes" "$(stat -c %s "$crate")"
    if [ "$bytes" -gt "$limit" ]; then
        echo "error: $name unpacks to $bytes bytes, over the limit of $limit" >&2
        status=1
    fi
done
exit "$status"
