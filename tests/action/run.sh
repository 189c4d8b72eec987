#!/usr/bin/env bash
# Runs the shell steps of action.yml (.ci/action/*.sh) locally, as GitHub's runner would, with
# sample inputs: key -> download (which, at a branch, leaves the install to cargo) -> install
# (cargo install from this checkout) -> lint -> gate, once on a failing set of models and once on
# a clean one; then download as at a release tag, from a local (file://) release of the command
# packed as the release workflow packs it: installed once its SHA-256 matches, refused when the
# archive was altered, left to cargo for a runner without a build or a missing archive. The two `uses:` steps (actions/cache and
# upload-sarif) cannot run here; the SARIF log they would upload is checked to be a SARIF 2.1.0
# document with relative URIs instead. install.sh really runs (`cargo install --locked --path` of
# this checkout): as on a runner without a cached build, except that cargo finds this checkout's
# target directory (CARGO_TARGET_DIR, or target/ by default as for any `cargo install --path`),
# so after `cargo build --release` it compiles nothing and only copies the binary (a stale
# Cargo.lock, a failing build or a missing binary still fail it). Cargo runs offline
# (CARGO_NET_OFFLINE): the locked crates must be downloaded already, as they are after `cargo
# build`. Writes only to a temporary directory (removed on exit) and that target directory.
set -euo pipefail
# The human report wraps at COLUMNS: fixed, so that what is grepped below does not depend on the
# terminal or environment the script runs in (issue 31).
export COLUMNS=1000 NO_COLOR=1
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
export CARGO_NET_OFFLINE=true
export GITHUB_ACTION_PATH="$repo" RUNNER_TEMP="$work/runner" RUNNER_OS=Linux RUNNER_ARCH=X64
export GITHUB_WORKSPACE="$work/workspace"
mkdir -p "$RUNNER_TEMP" "$GITHUB_WORKSPACE/models/clean"
cp "$repo/tests/models/e1_static_mismatch.onnx" "$GITHUB_WORKSPACE/models/bad.onnx"
cp "$repo/tests/models/ok_symbolic_batch.onnx" "$GITHUB_WORKSPACE/models/clean/ok.onnx"
cd "$GITHUB_WORKSPACE"

# Reads `key=value` from a step's GITHUB_OUTPUT file.
output() { grep "^$2=" "$1" | tail -n1 | cut -d= -f2-; }
fail() { echo "action: FAIL: $*"; exit 1; }

export GITHUB_OUTPUT="$work/key.out"
"$repo/.ci/action/key.sh"
key=$(output "$GITHUB_OUTPUT" key); root=$(output "$GITHUB_OUTPUT" root)
[[ $key == onnx-bcast-lint-Linux-X64-* && $root == "$RUNNER_TEMP/onnx-bcast-lint" ]] || fail "key $key root $root"
GITHUB_OUTPUT="$work/key2.out" "$repo/.ci/action/key.sh"
[[ $(output "$work/key2.out" key) == "$key" ]] || fail "the cache key is not stable"

# download: at a ref that is not a release tag (a branch, as here), it installs nothing and the
# cargo step builds.
GITHUB_OUTPUT="$work/download.out" INSTALL_ROOT="$root" ACTION_REF=main \
    ACTION_REPOSITORY=owner/onnx-bcast-lint "$repo/.ci/action/download.sh"
[[ $(output "$work/download.out" installed) == false ]] || fail "download.sh installed at ref main"
[[ ! -e $root/bin/onnx-bcast-lint ]] || fail "download.sh wrote a command at ref main"

INSTALL_ROOT="$root" "$repo/.ci/action/install.sh"
[[ -x $root/bin/onnx-bcast-lint ]] || fail "install.sh installed nothing"
echo "action: install.sh done after $(( $(date +%s) - start ))s"

# download at the release tag, from a release made here (file://) of the command just built, as
# the release workflow packs it (.ci/release/archive.sh): installed after its checksum is checked.
version=$("$repo/.ci/release/version.sh")
releases="$work/releases"
"$repo/.ci/release/archive.sh" "$root/bin/onnx-bcast-lint" x86_64-unknown-linux-musl "$releases/v$version" > /dev/null
# cargo-binstall's view of the same release (Cargo.toml's [package.metadata.binstall]): the URL
# names this archive, and the command is where bin-dir says, inside it.
python3 - "$repo/Cargo.toml" "$releases/v$version" "$version" <<'PY' || fail "binstall metadata"
import pathlib, sys, tarfile, tomllib
manifest, folder, version = sys.argv[1:]
meta = tomllib.load(open(manifest, "rb"))["package"]["metadata"]["binstall"]
fields = {"repo": "https://github.com/o/r", "name": "onnx-bcast-lint", "version": version,
          "target": "x86_64-unknown-linux-musl", "archive-suffix": ".tar.gz",
          "bin": "onnx-bcast-lint", "binary-ext": ""}
def render(template):
    for key, value in fields.items():
        template = template.replace("{ %s }" % key, value)
    assert "{" not in template, template
    return template
assert meta["pkg-fmt"] == "tgz", meta
url = render(meta["pkg-url"])
prefix = f"https://github.com/o/r/releases/download/v{version}/"
assert url.startswith(prefix), url
archive = pathlib.Path(folder) / url[len(prefix):]
assert archive.is_file(), f"{archive} is not what archive.sh made: {sorted(pathlib.Path(folder).iterdir())}"
with tarfile.open(archive) as tar:
    member = tar.getmember(render(meta["bin-dir"]))
    assert member.isfile() and member.mode & 0o111, member
PY
download() {
    rm -f "$work/download.out"
    GITHUB_OUTPUT="$work/download.out" INSTALL_ROOT="$1" ACTION_REF="v$version" \
        RELEASES_URL="file://$releases" RUNNER_ARCH="$2" "$repo/.ci/action/download.sh" > "$work/download.log" 2>&1
}
download "$work/prebuilt" X64 || fail "download.sh failed: $(cat "$work/download.log")"
[[ $(output "$work/download.out" installed) == true ]] || fail "download.sh did not install: $(cat "$work/download.log")"
set +e
"$work/prebuilt/bin/onnx-bcast-lint" "$GITHUB_WORKSPACE/models/bad.onnx" > /dev/null; rc=$?
set -e
[[ $rc == 1 ]] || fail "the downloaded command exited $rc on the E1 model"
# A runner the release has no build for: nothing installed, the cargo step builds.
download "$work/arm" ARM || fail "download.sh failed on ARM: $(cat "$work/download.log")"
[[ $(output "$work/download.out" installed) == false && ! -e $work/arm/bin ]] || fail "installed on ARM"
# An archive that is not the one the release's checksum names fails the step, installing nothing.
archive="$releases/v$version/onnx-bcast-lint-v$version-x86_64-unknown-linux-musl.tar.gz"
echo altered >> "$archive"
if download "$work/altered" X64; then fail "download.sh accepted an altered archive"; fi
grep -q '::error::.*SHA-256' "$work/download.log" || fail "no checksum error: $(cat "$work/download.log")"
[[ ! -e $work/altered/bin ]] || fail "download.sh installed an altered archive"
# A release without the archive (a failed download): the cargo step builds.
rm "$archive"
download "$work/missing" X64 || fail "download.sh failed on a missing archive: $(cat "$work/download.log")"
[[ $(output "$work/download.out" installed) == false ]] || fail "installed a missing archive"

# lint: paths on two lines plus args, as a workflow would pass them.
lint() {
    GITHUB_OUTPUT="$work/lint.out" INSTALL_ROOT="$root" INPUT_PATHS="$1" INPUT_ARGS="$2" \
        INPUT_SARIF="$3" "$repo/.ci/action/lint.sh" > "$work/lint.log" 2>&1 \
        || fail "lint.sh itself failed: $(cat "$work/lint.log")"
}
rm -f "$work/lint.out"
lint $'models/bad.onnx\nmodels/clean' "--dim batch=1" "out/results.sarif"
[[ $(output "$work/lint.out" exit-code) == 1 ]] || fail "exit-code $(output "$work/lint.out" exit-code), not 1"
[[ $(output "$work/lint.out" sarif-written) == true ]] || fail "no SARIF written"
grep -q "fingerprint: E1:" "$work/lint.log" || fail "the job log lacks the human report"
python3 - "$GITHUB_WORKSPACE/out/results.sarif" <<'PY' || fail "bad SARIF"
import json, sys
log = json.load(open(sys.argv[1]))
assert log["version"] == "2.1.0", log["version"]
run = log["runs"][0]
uris = [a["location"]["uri"] for a in run["artifacts"]]
assert uris == ["models/bad.onnx", "models/clean/ok.onnx"], uris
(result,) = run["results"]
assert result["ruleId"] == "E1" and result["partialFingerprints"]["onnxBcastLint/v1"].startswith("E1:")
assert result["locations"][0]["physicalLocation"]["region"]["startLine"] == 2
PY
set +e
EXIT_CODE=1 "$repo/.ci/action/gate.sh" > /dev/null; rc=$?
set -e
[[ $rc == 1 ]] || fail "gate.sh exited $rc on exit-code 1"

# annotations: true adds the findings as workflow commands, at SARIF's line.
rm -f "$work/lint.out"
INPUT_ANNOTATIONS=true lint "models/bad.onnx" "" "annotated.sarif"
[[ $(output "$work/lint.out" exit-code) == 1 ]] || fail "annotated run: exit-code $(output "$work/lint.out" exit-code)"
grep -q "^::error file=models/bad.onnx,line=2,col=1,title=E1::" "$work/lint.log" \
    || fail "no annotation in the log: $(cat "$work/lint.log")"
rm -f "$work/lint.out"
lint "models/bad.onnx" "" "plain.sarif"
if grep -q "^::error file=" "$work/lint.log"; then fail "annotations without annotations: true"; fi

rm -f "$work/lint.out"
lint "models/clean" "" "clean.sarif"
[[ $(output "$work/lint.out" exit-code) == 0 ]] || fail "clean models: exit-code $(output "$work/lint.out" exit-code)"
EXIT_CODE=0 "$repo/.ci/action/gate.sh" > /dev/null || fail "gate.sh failed on exit-code 0"
rm -f "$work/lint.out"
lint "models/missing.onnx" "" "missing.sarif"
[[ $(output "$work/lint.out" exit-code) == 2 ]] || fail "unreadable model: not exit-code 2"
set +e
EXIT_CODE=2 "$repo/.ci/action/gate.sh" > /dev/null; rc=$?
set -e
[[ $rc == 2 ]] || fail "gate.sh exited $rc on exit-code 2"
echo "action: ok in $(( $(date +%s) - start ))s"
