#!/usr/bin/env bash
# The whole-command benchmark of issue 6: for each model in bench/models/, the linter's wall time
# (median of $RUNS), time per stage (hidden --timings flag), ns per node, peak RSS and resident
# size of the mapped file (GNU time -v), and the ratio to ONNX's own shape inference measured in
# the same run. Then 200 real models with -j 1 and -j 2.
#
#   bench/.venv/bin/python bench/gen_models.py   # once: writes bench/models/
#   bench/run.sh                                 # RUNS=3 ONNX=1 REAL=1 by default
#   RUNS=5 ONNX=0 bench/run.sh tx_10k tx_100k    # some models, no ONNX reference
#
# Results also go to bench/out/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"
[ -x /usr/bin/time ] || { echo "GNU time missing: apt-get install -y time" >&2; exit 2; }
[ -x bench/.venv/bin/python ] || {
    echo "no bench/.venv: python3 -m venv bench/.venv && bench/.venv/bin/pip install onnx numpy" >&2
    exit 2
}
cargo build --release --quiet
mkdir -p bench/out
exec bench/.venv/bin/python bench/measure.py "$@"
