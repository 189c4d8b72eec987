#!/usr/bin/env bash
# Prints the version being released, after checking that every file naming it agrees: the
# workspace's (Cargo.toml, the command's and the archives'), the Python package's (python/
# Cargo.toml, the wheels'), and the pre-commit project's (pyproject.toml, with its pin of the
# wheel). With a tag argument (`v1.2.3`, as the release workflow passes), also that the tag is
# `v` + that version. Used by the release workflow, .ci/action/download.sh and CI.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
# The first `version = "..."` after the section header $2 in file $1.
field() { sed -n "/^\[$2\]/,/^\[/s/^version = \"\(.*\)\"/\1/p" "$1" | head -n1; }
version=$(field "$repo/Cargo.toml" workspace.package)
[[ -n $version ]] || { echo "version: no version in Cargo.toml's [workspace.package]" >&2; exit 1; }
for other in "python/Cargo.toml package" "pyproject.toml project"; do
    read -r file section <<< "$other"
    found=$(field "$repo/$file" "$section")
    [[ $found == "$version" ]] || { echo "version: $file says $found, Cargo.toml $version" >&2; exit 1; }
done
grep -qxF "dependencies = [\"onnx-bcast-lint==$version\"]" "$repo/pyproject.toml" \
    || { echo "version: pyproject.toml does not pin onnx-bcast-lint==$version" >&2; exit 1; }
if [[ $# -gt 0 && $1 != "v$version" ]]; then
    echo "version: tag $1 is not v$version" >&2
    exit 1
fi
echo "$version"
