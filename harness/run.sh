#!/usr/bin/env bash
# Run the harness (after setup.sh): harness/run.sh [--update] [--no-faults] [--only SUBSTR] [--engine PATH]
# The engine is $ONNX_BCAST_LINT, else target/release/onnx-bcast-lint of this repo.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
exec .venv/bin/python -m conformance.run "$@"
