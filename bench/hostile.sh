#!/usr/bin/env bash
# The bound of issue 34 on hostile files: for a file of S MB, peak memory <= 64 MB + 40 x S and
# wall time <= 1 s + 1 s per MB, for the release command with default options, on
#   - every model tests/limits.rs lints (written by its tests under LIMITS_WRITE_DIR),
#   - issue 34's full-size models (examples/hostile_models.rs: a million empty nodes,
#     rotations of one rank-1000 shape),
#   - any extra files or directories given (e.g. a fuzz corpus of model bytes).
# Prints one row per model and exits 1 when any model exceeds either bound. Time depends on the
# machine's load: the script prints it.
#
#   bench/hostile.sh [EXTRA_FILE_OR_DIR...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${HOSTILE_DIR:-$(mktemp -d /tmp/hostile.XXXXXX)}
mkdir -p "$dir"
cargo build --release --quiet
LIMITS_WRITE_DIR="$dir" cargo test --release --quiet --test limits >/dev/null
cargo run --release --quiet --example hostile_models -- "$dir"
bin=target/release/onnx-bcast-lint
models=("$dir"/*.onnx)
for extra in "$@"; do
  if [[ -d $extra ]]; then
    while IFS= read -r -d '' f; do models+=("$f"); done < <(find "$extra" -type f -print0)
  else
    models+=("$extra")
  fi
done
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)  cores: $(nproc)"
printf '%-78s %9s %8s %8s %9s %9s %s\n' model size_KB wall_s bound_s peak_MB bound_MB ok
fail=0
for m in "${models[@]}"; do
  bytes=$(stat -c %s "$m")
  # Exit 1 (findings) and 2 (unreadable file) are answers, not failures of the bound.
  /usr/bin/time -f '%e %M' -o "$dir/.time" "$bin" --format json "$m" >/dev/null 2>&1 || true
  # GNU time puts "Command exited with non-zero status N" before its line when the exit is not 0.
  read -r wall kb < <(tail -n 1 "$dir/.time")
  verdict=$(awk -v b="$bytes" -v w="$wall" -v k="$kb" 'BEGIN {
    mb = b / 1048576; tb = 1 + mb; mbound = 64 + 40 * mb; peak = k / 1024;
    ok = (w <= tb && peak <= mbound) ? "ok" : "EXCEEDED";
    printf "%9.1f %8.2f %8.2f %9.1f %9.1f %s", b / 1024, w, tb, peak, mbound, ok }')
  printf '%-78s %s\n' "$(basename "$m")" "$verdict"
  [[ $verdict == *EXCEEDED ]] && fail=1
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $fail
