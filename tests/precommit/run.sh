#!/usr/bin/env bash
# The pre-commit hook of .pre-commit-hooks.yaml, tried as a team would: pre-commit from PyPI in a
# throwaway virtualenv, a throwaway git repository with two models and an onnx-bcast-lint.toml:
#   1. `pre-commit try-repo` on this repository fails on the bad model (E1), while the config's
#      dims make the other model (W1 on `seq`) pass although the config denies warnings;
#   2. `pre-commit run` with a .pre-commit-config.yaml naming this repository at HEAD (as the
#      README says) passes once the config ignores the E1's fingerprint in bad.onnx;
#   3. and fails again when the config's dims are removed (the config is what made the W1 pass),
#      reusing the environment step 2 installed (pre-commit caches it per repo and rev);
#   4. run on the W1 model alone, as on a commit that stages only it, the hook does not call
#      bad.onnx's entry stale (bad.onnx was not linted), and its summary says the W1 is denied;
#   5. the `language: python` hook, installed from the wheel in ONNX_BCAST_LINT_WHEELS (CI sets
#      it), gives step 3's verdict without cargo.
# try-repo installs into a store of its own each time (it ignores PRE_COMMIT_HOME), so steps 2-3
# go through a config: two installs, not three.
#
# Each install is pre-commit's own: its `language: rust` clones this repository and runs
# `cargo install --bins --root ENV --path .` there. That command lacks --locked (pre-commit issue
# 3162), so cargo would resolve the newest compatible crates instead of Cargo.lock's and rebuild
# every dependency (980 s measured on 2 cores). A `cargo` on PATH adds --locked to `cargo install`
# only, and logs what pre-commit ran (checked below). CARGO_TARGET_DIR is this checkout's (default:
# its target/), so the crates `cargo build --release` compiled are reused: all but syn and the
# crates built on it, which the workspace build compiled with pyo3's extra syn feature (the first
# install builds them once). This crate itself is compiled per install (a fresh clone is newer
# than any build). Cargo runs offline (CARGO_NET_OFFLINE): the locked crates
# must be downloaded already, as they are after `cargo build`.
# ONNX_BCAST_LINT_PRECOMMIT_UNLOCKED=1 leaves cargo as pre-commit runs it: online, newest crates,
# as users get it (slow; writes cargo's registry cache in CARGO_HOME).
#
# Writes only to a temporary directory (removed on exit) and CARGO_TARGET_DIR (whose release
# build of this crate alone is then the one of HEAD's clone). Prints the time of each phase.
set -euo pipefail
# The human report wraps at COLUMNS: fixed, so that what is grepped below does not depend on the
# terminal or environment the script runs in (issue 31).
export COLUMNS=1000 NO_COLOR=1
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
elapsed() { echo "precommit: $1 after $(( $(date +%s) - start ))s"; }
fail() { echo "${out:-}"; echo "precommit: FAIL: $*"; exit 1; }

export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q pre-commit
elapsed "pre-commit $("$work/venv/bin/pre-commit" --version | cut -d' ' -f2) installed"
pre_commit="$work/venv/bin/pre-commit"
export PRE_COMMIT_HOME="$work/cache" TMPDIR="$work/tmp"
mkdir -p "$TMPDIR"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}"

[[ -n ${ONNX_BCAST_LINT_PRECOMMIT_UNLOCKED-} ]] || export CARGO_NET_OFFLINE=true
export CARGO_LOG_FILE="$work/cargo.log" REAL_CARGO
REAL_CARGO=$(command -v cargo)
mkdir -p "$work/bin"
cat > "$work/bin/cargo" <<'SH'
#!/usr/bin/env bash
# cargo as pre-commit runs it, logged; `cargo install` gets --locked (see tests/precommit/run.sh).
printf '%s\n' "$*" >> "$CARGO_LOG_FILE"
if [[ ${1-} == install && " $* " != *" --locked "* && -z ${ONNX_BCAST_LINT_PRECOMMIT_UNLOCKED-} ]]; then
    shift
    exec "$REAL_CARGO" install --locked "$@"
fi
exec "$REAL_CARGO" "$@"
SH
chmod +x "$work/bin/cargo"
export PATH="$work/bin:$PATH"
# Checks that pre-commit ran `cargo install` $1 times so far, each its rust install (`--path .`).
installs() {
    local lines
    lines=$(grep '^install ' "$CARGO_LOG_FILE" || true)
    [[ $(grep -c . <<< "$lines") == "$1" ]] || fail "$2 (cargo ran: $(cat "$CARGO_LOG_FILE"))"
    ! grep -v -- '--path \.$' <<< "$lines" | grep -q . || fail "unexpected install: $lines"
}
touch "$CARGO_LOG_FILE"

models="$work/models"
mkdir -p "$models/vision"
cd "$models"
git init -q
commit() { git add -A && git -c user.email=ci@example.com -c user.name=ci -c commit.gpgsign=false commit -qm "$1"; }
cp "$repo/tests/models/e1_static_mismatch.onnx" bad.onnx
cp "$repo/tests/models/w1_symbolic.onnx" vision/w1.onnx
printf 'deny-warnings = true\ndims = { seq = 77 }\n' > onnx-bcast-lint.toml
commit models

# 1. try-repo: the hook as this repository's HEAD (or its working tree, when it has changes)
# declares it. --all-files: the hook gets every tracked *.onnx (files: \.onnx$).
set +e
out=$("$pre_commit" try-repo "$repo" onnx-bcast-lint --all-files --color never 2>&1); rc=$?
set -e
elapsed "try-repo (installs the hook)"
echo "$out" | tail -n 20
[[ $rc != 0 ]] || fail "the hook passed on the bad model"
grep -q 'bad.onnx: Add node `add`' <<< "$out" || fail "no E1 on bad.onnx"
! grep -q 'W1' <<< "$out" || fail "the config's dims were not applied"
installs 1 "try-repo did not run cargo install once"

fingerprint=$(grep -o 'fingerprint: E1:[0-9a-f]*' <<< "$out" | head -n1 | cut -d' ' -f2)
[[ -n $fingerprint ]] || fail "no fingerprint printed"
printf '[ignore]\n"bad.onnx" = ["%s"]\n' "$fingerprint" >> onnx-bcast-lint.toml

# 2. The README's way: .pre-commit-config.yaml naming this repository at a rev.
rev=$(git -C "$repo" rev-parse HEAD)
if [[ -n $(git -C "$repo" status --porcelain --untracked-files=no) ]]; then
    echo "precommit: note: steps 2-3 use HEAD ($rev), without this checkout's uncommitted changes"
fi
printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: onnx-bcast-lint\n' "$repo" "$rev" \
    > .pre-commit-config.yaml
commit "accept the E1"
set +e
out=$("$pre_commit" run onnx-bcast-lint --all-files --color never 2>&1); rc=$?
set -e
elapsed "pre-commit run with the suppression (installs the hook)"
[[ $rc == 0 ]] || fail "the suppression did not pass the hook"
installs 2 "pre-commit run did not install the hook"

# 3. Without the dims, the W1 on `seq` fails the run (deny-warnings); the environment is reused.
sed -i '/^dims/d' onnx-bcast-lint.toml
commit "no dims"
set +e
out=$("$pre_commit" run onnx-bcast-lint --all-files --color never 2>&1); rc=$?
set -e
elapsed "pre-commit run without the dims"
[[ $rc != 0 ]] || fail "deny-warnings of the config not applied"
grep -q 'W1' <<< "$out" || fail "no W1 without the dims"
installs 2 "the cached environment was not reused"

# 4. Only the W1 model, as when a commit stages it alone (--verbose: the output in full).
set +e
out=$("$pre_commit" run onnx-bcast-lint --files vision/w1.onnx --verbose --color never 2>&1); rc=$?
set -e
elapsed "pre-commit run on one model"
[[ $rc != 0 ]] || fail "deny-warnings of the config not applied to the one model"
! grep -q 'stale' <<< "$out" || fail "an entry of a model not linted was called stale"
grep -q '1 warning (denied)' <<< "$out" || fail "the summary does not say the W1 is denied"
installs 2 "the cached environment was not reused"

# 5. The `language: python` hook (onnx-bcast-lint-python): pre-commit pip-installs the top-level
# pyproject.toml's project, which pins the wheel. pip takes it from ONNX_BCAST_LINT_WHEELS (the
# wheel tests/wheel/run.sh built; CI passes it) instead of PyPI, with no index at all: the hook
# gets that prebuilt wheel or nothing (the sdist would need maturin). Same config as step 3,
# same verdict, and no cargo.
if [[ -n ${ONNX_BCAST_LINT_WHEELS-} ]]; then
    links="$work/links"
    mkdir -p "$links"
    cp "$ONNX_BCAST_LINT_WHEELS"/onnx_bcast_lint-*.whl "$links/"
    # The build backend pip needs to build the pinning project, in its isolated environment.
    "$work/venv/bin/pip" download -q --only-binary=:all: -d "$links" "setuptools>=77"
    printf 'repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: onnx-bcast-lint-python\n' \
        "$repo" "$rev" > .pre-commit-config.yaml
    commit "the python hook"
    set +e
    out=$(PIP_NO_INDEX=1 PIP_FIND_LINKS="$links" "$pre_commit" run onnx-bcast-lint-python --all-files \
        --color never 2>&1); rc=$?
    set -e
    elapsed "pre-commit run of the python hook (installs the wheel)"
    [[ $rc != 0 ]] || fail "the python hook: deny-warnings of the config not applied"
    grep -q 'W1' <<< "$out" || fail "the python hook: no W1 without the dims"
    ! grep -q 'bad.onnx: Add node' <<< "$out" || fail "the python hook: the ignored E1 was reported"
    installs 2 "the python hook ran cargo install"
    script=$(ls "$PRE_COMMIT_HOME"/repo*/py_env-*/bin/onnx-bcast-lint 2>/dev/null || true)
    [[ -n $script ]] || fail "the python hook's environment has no onnx-bcast-lint script"
    head -n1 "$script" | grep -q python || fail "$script is not the wheel's script"
else
    echo "precommit: step 5 (the python hook) needs ONNX_BCAST_LINT_WHEELS: a folder with the wheel"
fi
echo "precommit: pre-commit ran $(grep -c . "$CARGO_LOG_FILE") cargo commands; its installs:"
sed -n 's/^install /    cargo install /p' "$CARGO_LOG_FILE"
echo "precommit: ok in $(( $(date +%s) - start ))s"
