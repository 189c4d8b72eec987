#!/usr/bin/env bash
# Run the harness (after setup.sh): harness/run.sh [--update] [--no-faults] [--only SUBSTR] [--engine PATH] [--write-shapes]
# The engine is $ONNX_BCAST_LINT, else target/release/onnx-bcast-lint of this repo.
# --write-shapes adds the `--write-shapes` round trip (conformance/write_shapes.py, ~1.5 min) over
# the same models, its summary in out/write_shapes.txt; the run fails if it fails.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
args=()
round_trip=()
write_shapes=0
while [[ $# -gt 0 ]]; do
  case "$1" in
    --write-shapes) write_shapes=1 ;;
    --only|--engine) args+=("$1" "$2"); round_trip+=("$1" "$2"); shift ;;
    *) args+=("$1") ;;
  esac
  shift
done
if [[ $write_shapes == 0 ]]; then
  exec .venv/bin/python -m conformance.run "${args[@]}"
fi
rc=0
.venv/bin/python -m conformance.run "${args[@]}" || rc=$?
mkdir -p out
if ! .venv/bin/python -m conformance.write_shapes "${round_trip[@]}" > out/write_shapes.txt; then
  rc=1
fi
echo "run: write-shapes round trip: $(head -1 out/write_shapes.txt)" >&2
exit $rc
