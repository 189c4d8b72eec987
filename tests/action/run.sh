#!/usr/bin/env bash
# Runs the shell steps of action.yml (.ci/action/*.sh) locally, as GitHub's runner would, with
# sample inputs: key -> install (cargo install from this checkout) -> lint -> gate, once on a
# failing set of models and once on a clean one. The two `uses:` steps (actions/cache and
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

INSTALL_ROOT="$root" "$repo/.ci/action/install.sh"
[[ -x $root/bin/onnx-bcast-lint ]] || fail "install.sh installed nothing"
echo "action: install.sh done after $(( $(date +%s) - start ))s"

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
