#!/usr/bin/env bash
# Action step: fails the job with the lint's exit code (1 findings that fail the run, 2 a usage
# error or an unreadable model), after the SARIF log was uploaded or its upload failed or was
# skipped: this exit code, not the upload's, decides the job.
set -euo pipefail
code="${EXIT_CODE:-2}"
case "$code" in
    0) echo "onnx-bcast-lint: no finding fails the run" ;;
    1) echo "::error::onnx-bcast-lint found errors (see the log above, the annotations or code scanning)"; exit 1 ;;
    *) echo "::error::onnx-bcast-lint could not lint every model (exit code $code)"; exit "$code" ;;
esac
