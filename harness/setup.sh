#!/usr/bin/env bash
# Create harness/.venv from PyPI and collect the models into harness/models/.
#   harness/setup.sh [--no-torch] [--reuse-venv]
# --no-torch: skip torch/transformers (silero-vad is then installed without its
#             torch dependency: only its shipped .onnx files are used).
# Caches nothing outside the repository: pip's cache lives in harness/.venv/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$HERE"
TORCH=1
REUSE=0
for a in "$@"; do
  case "$a" in
    --no-torch) TORCH=0 ;;
    --reuse-venv) REUSE=1 ;;
    *) echo "unknown option $a" >&2; exit 2 ;;
  esac
done
export PIP_CACHE_DIR="$HERE/.venv/pip-cache" PIP_DISABLE_PIP_VERSION_CHECK=1
start=$(date +%s)
if [[ $REUSE == 1 && -x .venv/bin/python ]] && .venv/bin/python -c 'import onnx, onnxruntime, skl2onnx' 2>/dev/null; then
  echo "setup: reusing .venv"
else
  rm -rf .venv
  python3 -m venv .venv
fi
PIP=(.venv/bin/python -m pip install -q -c constraints.txt)
"${PIP[@]}" -r requirements.txt
if [[ $TORCH == 1 ]]; then
  if ! "${PIP[@]}" -r requirements-torch.txt; then
    echo "setup: torch/transformers did not install; continuing without them" >&2
    TORCH=0
  fi
fi
if [[ $TORCH == 0 ]]; then
  "${PIP[@]}" --no-deps silero-vad
fi
rm -rf .venv/pip-cache
echo "setup: venv ready in $(( $(date +%s) - start ))s"
rm -rf models
ARGS=()
[[ $TORCH == 0 ]] && ARGS+=(--no-torch)
.venv/bin/python -m conformance.collect "${ARGS[@]}"
echo "setup: done in $(( $(date +%s) - start ))s"
