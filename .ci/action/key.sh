#!/usr/bin/env bash
# Action step: the cache key and install root of the command. The key hashes the sources that
# make the binary (the action's own checkout is outside the workspace, where `hashFiles` cannot
# read), so a new version of the action rebuilds and the same one restores.
set -euo pipefail
src="${GITHUB_ACTION_PATH:?}"
hash=$(cd "$src" && find Cargo.toml Cargo.lock build.rs proto src -type f -print0 | LC_ALL=C sort -z \
    | xargs -0 sha256sum | sha256sum | cut -c1-16)
root="${RUNNER_TEMP:?}/onnx-bcast-lint"
{
    echo "key=onnx-bcast-lint-${RUNNER_OS:-Linux}-${RUNNER_ARCH:-X64}-$hash"
    echo "root=$root"
} >> "${GITHUB_OUTPUT:?}"
