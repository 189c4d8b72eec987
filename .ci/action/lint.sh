#!/usr/bin/env bash
# Action step: lints INPUT_PATHS with INPUT_ARGS, writing SARIF to INPUT_SARIF. It never fails
# itself, so that the upload step runs: it records the exit code (and whether the SARIF log was
# written) as step outputs, and prints the human report to the job log; with INPUT_ANNOTATIONS
# true, also the findings as workflow commands (`--format github`), which GitHub turns into
# annotations.
set -uo pipefail
bin="${INSTALL_ROOT:?}/bin/onnx-bcast-lint"
read -r -a paths <<< "$(echo "${INPUT_PATHS:-.}" | tr '\n' ' ')"
read -r -a args <<< "$(echo "${INPUT_ARGS:-}" | tr '\n' ' ')"
sarif="${INPUT_SARIF:-onnx-bcast-lint.sarif}"
mkdir -p "$(dirname "$sarif")"
"$bin" "${args[@]}" --format sarif --sarif-root "${GITHUB_WORKSPACE:-$PWD}" "${paths[@]}" > "$sarif"
code=$?
# The human report, for the job log (its exit code is the same run's).
"$bin" "${args[@]}" "${paths[@]}" || true
if [[ ${INPUT_ANNOTATIONS:-false} == true ]]; then
    "$bin" "${args[@]}" --format github "${paths[@]}" || true
fi
written=false
[[ -s "$sarif" ]] && written=true
{
    echo "exit-code=$code"
    echo "sarif-written=$written"
} >> "${GITHUB_OUTPUT:?}"
exit 0
