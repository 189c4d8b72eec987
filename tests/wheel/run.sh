#!/usr/bin/env bash
# The Python package as a user without Rust gets it (issue 36, item 1): the manylinux wheel that
# python/ci/build-wheel.sh builds (and checks with `auditwheel show`), installed into a fresh
# virtualenv from a PATH with no cargo and no rustc, then
#   1. the `onnx-bcast-lint` command the wheel put in the virtualenv's bin/ exits 0 on a clean
#      model, 1 on an E1, 2 on an unreadable file and on a missing one;
#   2. python/tests pass against the installed package (not python/'s sources: checked), with
#      pytest's "no test collected" (exit 5) a failure as any other.
# This is CI's one compile of the Python package. Prints the time of each phase.
#
#   tests/wheel/run.sh [OUT_DIR]    (the wheel is kept in OUT_DIR when given)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
elapsed() { echo "wheel: $1 after $(( $(date +%s) - start ))s"; }
fail() { echo "wheel: FAIL: $*"; exit 1; }
export PIP_DISABLE_PIP_VERSION_CHECK=1

out=${1:-$work/dist}
mkdir -p "$out"
rm -f "$out"/onnx_bcast_lint-*.whl
"$repo/python/ci/build-wheel.sh" "$out"
wheel=$(ls "$out"/onnx_bcast_lint-*.whl)
elapsed "wheel built ($(du -k "$wheel" | cut -f1) KiB)"
# One wheel for every CPython from 3.9 on (abi3), for glibc 2.17 and later on x86_64.
[[ $(basename "$wheel") == onnx_bcast_lint-*-cp39-abi3-manylinux*_x86_64.whl ]] \
    || fail "unexpected wheel name $(basename "$wheel")"

# A PATH without Rust: every directory of PATH that holds cargo or rustc is left out.
path=
IFS=: read -r -a dirs <<< "$PATH"
for dir in "${dirs[@]}"; do
    [[ -n $dir && ! -e $dir/cargo && ! -e $dir/rustc ]] && path="${path:+$path:}$dir"
done
export PATH="$path"
! command -v cargo > /dev/null || fail "cargo is still on PATH"
! command -v rustc > /dev/null || fail "rustc is still on PATH"

venv="$work/venv"
python3 -m venv "$venv"
"$venv/bin/pip" install -q -r "$repo/python/requirements-test.txt"
elapsed "test requirements installed"
install_start=$(date +%s)
"$venv/bin/pip" install -q --no-index --no-deps "$wheel"
echo "wheel: pip install of the wheel took $(( $(date +%s) - install_start ))s"
command=$venv/bin/onnx-bcast-lint
[[ -x $command ]] || fail "the wheel installed no onnx-bcast-lint command"

# 1. The command's exit codes.
code() {
    local rc=0
    "$command" "$2" > "$work/out.txt" 2>&1 || rc=$?
    [[ $rc == "$1" ]] || { cat "$work/out.txt"; fail "onnx-bcast-lint $2 exited $rc, not $1"; }
}
models="$repo/tests/models"
code 0 "$models/ok_symbolic_batch.onnx"
code 1 "$models/e1_static_mismatch.onnx"
grep -q 'E1' "$work/out.txt" || fail "no E1 in the report: $(cat "$work/out.txt")"
code 2 "$models/load_garbage.onnx"
code 2 "$work/missing.onnx"
"$command" --version | grep -q '^onnx-bcast-lint ' || fail "--version: $("$command" --version)"

# 2. python/tests, on the installed package.
where=$("$venv/bin/python" -c 'import onnx_bcast_lint; print(onnx_bcast_lint.__file__)')
[[ $where == "$venv"/* ]] || fail "onnx_bcast_lint imported from $where, not the virtualenv"
"$venv/bin/python" -m pytest -p no:cacheprovider -q "$repo/python/tests"
elapsed "ok"
