#!/usr/bin/env bash
# A converter's build of the library (`default-features = false`, issue 33): it builds without a
# warning (clippy, -D warnings), and its dependency tree holds none of the command's crates
# (argument parser, configuration files, allocator), while the default build does hold them (so
# that the check can fail). Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
command_crates='^(clap|globset|toml|mimalloc) '
alone=$(cargo tree -e normal,build --no-default-features -p onnx-bcast-lint --prefix none)
if grep -E "$command_crates" <<< "$alone"; then
  echo "library_alone: the library without default features depends on the command's crates above"
  exit 1
fi
default=$(cargo tree -e normal,build -p onnx-bcast-lint --prefix none)
[[ $(grep -cE "$command_crates" <<< "$(sort -u <<< "$default")") == 4 ]] || {
  echo "library_alone: the default build lacks one of clap, globset, toml, mimalloc"; exit 1; }
# `-p`: without it the workspace's Python member is built too, and it turns `cli` on for the
# library (features unify), so the check would lint the command's build instead.
cargo clippy --quiet -p onnx-bcast-lint --lib --no-default-features -- -D warnings
echo "library_alone: the library builds without default features and without clap, globset, toml or mimalloc"
