#!/usr/bin/env bash
# The pre-commit hook of .pre-commit-hooks.yaml, tried as a team would: pre-commit from PyPI in a
# throwaway virtualenv, a throwaway git repository with two models and an onnx-bcast-lint.toml,
# then `pre-commit try-repo` on this repository:
#   1. fails on the bad model (E1), while the config's dims make the other model (W1 on `seq`) pass
#      although the config denies warnings;
#   2. passes once the config ignores the E1's fingerprint;
#   3. fails again when the config's dims are removed (the config is what made the W1 pass).
# `language: rust` makes pre-commit build the command with `cargo install` from a clone of this
# repository; CARGO_TARGET_DIR (default: target/precommit here) keeps the compiled dependencies
# between runs, so only the first run builds them. Prints the time of each phase.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
elapsed() { echo "precommit: $1 after $(( $(date +%s) - start ))s"; }

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q pre-commit
elapsed "pre-commit installed"
export PRE_COMMIT_HOME="$work/cache"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target/precommit}"

models="$work/models"
mkdir -p "$models/vision"
cd "$models"
git init -q
git config user.email ci@example.com
git config user.name ci
cp "$repo/tests/models/e1_static_mismatch.onnx" bad.onnx
cp "$repo/tests/models/w1_symbolic.onnx" vision/w1.onnx
printf 'deny-warnings = true\ndims = { seq = 77 }\n' > onnx-bcast-lint.toml
git add -A && git commit -qm models

# try-repo: the hook as this repository's HEAD (or its working tree, when it has changes)
# declares it. --all-files: the hook gets every tracked *.onnx (files: \.onnx$).
try() { "$work/venv/bin/pre-commit" try-repo "$repo" onnx-bcast-lint --all-files --color never; }

set +e
out=$(try 2>&1); rc=$?
set -e
elapsed "first try-repo (builds the hook)"
echo "$out" | tail -n 30
if [[ $rc == 0 ]]; then echo "precommit: FAIL: the hook passed on the bad model"; exit 1; fi
grep -q 'bad.onnx: Add node `add`' <<< "$out" || { echo "precommit: FAIL: no E1 on bad.onnx"; exit 1; }
if grep -q 'W1' <<< "$out"; then echo "precommit: FAIL: the config's dims were not applied"; exit 1; fi

fingerprint=$(grep -o 'fingerprint: E1:[0-9a-f]*' <<< "$out" | head -n1 | cut -d' ' -f2)
[[ -n $fingerprint ]] || { echo "precommit: FAIL: no fingerprint printed"; exit 1; }
printf 'ignore = ["%s"]\n' "$fingerprint" >> onnx-bcast-lint.toml
git commit -qam "accept the E1"
set +e
out=$(try 2>&1); rc=$?
set -e
elapsed "second try-repo"
if [[ $rc != 0 ]]; then echo "$out"; echo "precommit: FAIL: the suppression did not pass the hook"; exit 1; fi

sed -i '/^dims/d' onnx-bcast-lint.toml
git commit -qam "no dims"
set +e
out=$(try 2>&1); rc=$?
set -e
elapsed "third try-repo"
if [[ $rc == 0 ]]; then echo "$out"; echo "precommit: FAIL: deny-warnings of the config not applied"; exit 1; fi
grep -q 'W1' <<< "$out" || { echo "$out"; echo "precommit: FAIL: no W1 without the dims"; exit 1; }
echo "precommit: ok in $(( $(date +%s) - start ))s"
