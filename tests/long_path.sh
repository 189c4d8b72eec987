#!/usr/bin/env bash
# The test suite again from a clone of this checkout's HEAD at a path of 150 characters, with a
# 20-column terminal (issue 31): a test whose assertion depends on where the checkout sits or on
# the terminal's width fails here, in every CI run, rather than at random on someone's clone.
# The clone gets a copy of this checkout's target/debug so that only the workspace's own crates
# are compiled again (their fingerprints name their path). Called by .ci/run after `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
root="$(mktemp -d)"
trap 'rm -rf "$root"' EXIT
# Pad the directory so that the clone's path is exactly 150 characters long.
pad=$(( 150 - ${#root} - 17 ))
(( pad > 0 )) || { echo "long_path: temporary directory $root is too long already"; exit 1; }
dir="$root/$(printf 'd%.0s' $(seq "$pad"))"
clone="$dir/onnx-bcast-lint"
(( ${#clone} == 150 )) || { echo "long_path: the clone's path is ${#clone} characters, not 150"; exit 1; }
mkdir -p "$dir"
git clone --quiet . "$clone"
[[ -d ../shared ]] && ln -s "$(cd ../shared && pwd)" "$dir/shared"
if [[ -d target/debug ]]; then
  mkdir -p "$clone/target"
  cp -a target/debug "$clone/target/"
fi
(cd "$clone" && COLUMNS=20 cargo test --quiet)
echo "long_path: the tests passed from a ${#clone}-character path at COLUMNS=20 in $(( $(date +%s) - start ))s"
