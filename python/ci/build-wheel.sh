#!/usr/bin/env bash
# Builds the Python package's portable Linux wheel: one abi3 wheel (CPython 3.9 and later) holding
# the extension module `onnx_bcast_lint._native` and the `onnx-bcast-lint` command, whose script
# (pyproject's [project.scripts]) runs the Rust command's own code in that module. One compile
# gives both. zig (PyPI's ziglang) is maturin's C compiler and linker, so the wheel links against
# the glibc (or musl) its tag names, whatever the build machine's; then `auditwheel show` must
# find the wheel consistent with the tag it claims. The release workflow calls this script for
# every Linux wheel; tests/wheel/run.sh (CI) for the host's.
#
#   python/ci/build-wheel.sh OUT_DIR [TARGET [COMPATIBILITY]]
#
# TARGET defaults to x86_64-unknown-linux-gnu, COMPATIBILITY to manylinux2014 (glibc 2.17); a
# musl target takes musllinux_1_2. The Rust target must be installed (rustup target add). The
# build tools come from python/ci/requirements-build.txt into a virtualenv of their own
# (BUILD_VENV, default: a temporary one, removed on exit). Cargo builds into its target directory
# under TARGET's own folder, beside (not over) `cargo build --release`.
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: build-wheel.sh OUT_DIR [TARGET [COMPATIBILITY]]}
target=${2:-x86_64-unknown-linux-gnu}
compat=${3:-manylinux2014}
mkdir -p "$out"
out=$(cd "$out" && pwd)

venv=${BUILD_VENV:-}
if [[ -z $venv ]]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    venv="$tmp/venv"
fi
if [[ ! -x $venv/bin/maturin ]]; then
    python3 -m venv "$venv"
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/pip" install -q -r "$repo/python/ci/requirements-build.txt"
fi

before=$(mktemp)
ls "$out" > "$before"
# maturin finds zig as `python3 -m ziglang` of the first python3 on PATH: the virtualenv's.
# --locked: Cargo.lock's crates, as `cargo install --locked`.
PATH="$venv/bin:$PATH" maturin build --release --locked --zig --target "$target" \
    --compatibility "$compat" --manifest-path "$repo/python/Cargo.toml" --out "$out"
built=$(ls "$out" | grep -vxFf "$before" | grep '\.whl$' || true)
rm -f "$before"
[[ $(grep -c . <<< "$built") == 1 ]] || { echo "build-wheel: expected one new wheel in $out, found: $built"; exit 1; }
wheel="$out/$built"

# The tag the file name claims must be the one auditwheel finds the wheel consistent with (the
# libraries it links and the symbol versions it uses).
shown=$("$venv/bin/auditwheel" show "$wheel")
echo "$shown"
# (auditwheel wraps its sentences: joined into one line first.)
policy=$(tr -s '\n ' '  ' <<< "$shown" | grep -o 'consistent with the following platform tag: "[^"]*"' \
    | cut -d'"' -f2)
[[ -n $policy ]] || { echo "build-wheel: auditwheel named no platform tag"; exit 1; }
case "$built" in
    *"$policy"*) echo "build-wheel: $built meets its tag $policy" ;;
    *) echo "build-wheel: $built claims a tag auditwheel does not give it ($policy)"; exit 1 ;;
esac
echo "build-wheel: $wheel ($(du -k "$wheel" | cut -f1) KiB)"
