#!/usr/bin/env bash
# Action step: installs the prebuilt command into INSTALL_ROOT/bin when the release of the
# action's version has one for this runner, so that the job compiles nothing. That is when the
# action is used at the tag `vVERSION` of its own Cargo.toml (ACTION_REF: a branch or a commit
# has no release built from its sources) on a runner the release builds for (RUNNER_OS,
# RUNNER_ARCH). The archive and its `.sha256` (made by .ci/release/archive.sh) come from
# RELEASES_URL/vVERSION/ (default: the action repository's GitHub releases). A download whose
# checksum does not match fails the step: a corrupt or altered archive is never run, nor quietly
# replaced by a build. In every other case (no release for the ref or the runner, a failed
# download) it installs nothing and says why, and the next step builds the command with cargo.
# Output: installed=true|false.
set -euo pipefail
src=${GITHUB_ACTION_PATH:?}
root=${INSTALL_ROOT:?}
installed() { echo "installed=$1" >> "${GITHUB_OUTPUT:?}"; }
fallback() { echo "onnx-bcast-lint: $*: building the command with cargo instead"; installed false; exit 0; }

version=$("$src/.ci/release/version.sh")
[[ ${ACTION_REF:-} == "v$version" ]] || fallback "the action's ref (${ACTION_REF:-none}) is not the release tag v$version"
# Linux gets the static (musl) build: it runs on any runner and in any job container.
case "${RUNNER_OS:-}-${RUNNER_ARCH:-}" in
    Linux-X64) target=x86_64-unknown-linux-musl ;;
    Linux-ARM64) target=aarch64-unknown-linux-musl ;;
    macOS-X64) target=x86_64-apple-darwin ;;
    macOS-ARM64) target=aarch64-apple-darwin ;;
    Windows-X64) target=x86_64-pc-windows-msvc ;;
    *) fallback "the release has no command for ${RUNNER_OS:-} ${RUNNER_ARCH:-}" ;;
esac
name="onnx-bcast-lint-v$version-$target"
exe=onnx-bcast-lint
archive="$name.tar.gz"
if [[ $target == *windows* ]]; then archive="$name.zip"; exe=onnx-bcast-lint.exe; fi
base="${RELEASES_URL:-${GITHUB_SERVER_URL:-https://github.com}/${ACTION_REPOSITORY:?}/releases/download}/v$version"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for file in "$archive" "$archive.sha256"; do
    curl -fsSL --retry 3 -o "$work/$file" "$base/$file" || fallback "could not download $base/$file"
done
expected=$(cut -d' ' -f1 < "$work/$archive.sha256")
if command -v sha256sum > /dev/null; then
    actual=$(sha256sum "$work/$archive" | cut -d' ' -f1)
else
    actual=$(shasum -a 256 "$work/$archive" | cut -d' ' -f1)
fi
if [[ -z $expected || $actual != "$expected" ]]; then
    echo "::error::onnx-bcast-lint: $archive has SHA-256 $actual, but its release says ${expected:-nothing}"
    exit 1
fi
case "$archive" in
    # Git for Windows' bash has unzip; GitHub's Windows images have 7-Zip as well.
    *.zip) if command -v unzip > /dev/null; then unzip -q "$work/$archive" -d "$work"
           else 7z x -bd -bso0 -o"$work" "$work/$archive"; fi ;;
    *) tar -xzf "$work/$archive" -C "$work" ;;
esac
mkdir -p "$root/bin"
cp "$work/$name/$exe" "$root/bin/$exe"
chmod 755 "$root/bin/$exe"
"$root/bin/$exe" --version
echo "onnx-bcast-lint: installed the prebuilt $archive (SHA-256 $actual)"
installed true
