#!/usr/bin/env bash
# Action step: builds and installs the command from the action's checkout, crates from
# crates.io pinned by Cargo.lock (--locked), into INSTALL_ROOT/bin.
set -euo pipefail
cargo install --locked --quiet --path "${GITHUB_ACTION_PATH:?}" --root "${INSTALL_ROOT:?}" onnx-bcast-lint
"$INSTALL_ROOT/bin/onnx-bcast-lint" --version
