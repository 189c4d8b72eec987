#!/usr/bin/env bash
# Packs a built `onnx-bcast-lint` command as a release archive with its checksum, in the layout
# that cargo-binstall ([package.metadata.binstall] of Cargo.toml) and the Action's download step
# (.ci/action/download.sh) expect:
#   OUT/onnx-bcast-lint-vVERSION-TARGET.tar.gz (.zip for a Windows target), holding the folder
#   onnx-bcast-lint-vVERSION-TARGET/ with the command and README.md;
#   OUT/<archive>.sha256, one `<sha-256>  <archive>` line (sha256sum's format).
#
#   .ci/release/archive.sh BINARY TARGET OUT_DIR
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
binary=${1:?usage: archive.sh BINARY TARGET OUT_DIR}
target=${2:?usage: archive.sh BINARY TARGET OUT_DIR}
out=${3:?usage: archive.sh BINARY TARGET OUT_DIR}
version=$("$repo/.ci/release/version.sh")
name="onnx-bcast-lint-v$version-$target"
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir "$stage/$name"
cp "$binary" "$stage/$name/"
cp "$repo/README.md" "$stage/$name/"
chmod 755 "$stage/$name/$(basename "$binary")"
case "$target" in
    *windows*) archive="$name.zip"; (cd "$stage" && 7z a -tzip -bd -bso0 "$out/$archive" "$name") ;;
    *) archive="$name.tar.gz"; tar -C "$stage" -czf "$out/$archive" "$name" ;;
esac
(cd "$out" && if command -v sha256sum > /dev/null; then sha256sum "$archive"; else shasum -a 256 "$archive"; fi) \
    > "$out/$archive.sha256"
cat "$out/$archive.sha256"
