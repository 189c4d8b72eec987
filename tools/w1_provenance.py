"""List every W1 (and W4) the linter reports over the conformance harness's models, with its
message and the provenance of its offending dims (issue 17: "every W1 the harness's real and
exported models get reads as a plain condition with its provenance").

    python3 tools/w1_provenance.py [--bin target/release/onnx-bcast-lint] [--codes W1,W4]
                                   [MODELS_DIR ...]

Runs the binary once with `--format json` over every `*.onnx` below the directories (default
`harness/models`) and prints one block per finding: file, code, message, then one line per
offending input dim, "input[axis] = dim: source through steps", or "no provenance" when the
binary gives none (an older binary, or a dim no chain was found for). Standard library only.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def describe(entry: dict) -> str:
    source = entry["source"]
    kind = source["kind"].replace("_", " ")
    text = f"axis {source['axis']} of {kind} `{source['name']}`"
    if source["graph"] != "main":
        text += f" of graph `{source['graph']}`"
    if source["dim"] != entry["dim"]:
        text += f" ({source['dim']})"
    steps = []
    for step in entry["steps"]:
        shown = ", ".join(f"{k} = {v}" for k, v in step["attributes"].items())
        steps.append(f"{step['op_type']} `{step['name']}`" + (f" ({shown})" if shown else ""))
    if steps:
        text += " through " + ", ".join(steps)
    return text + f"  [{entry['nodes']} node(s) in the chain]"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=str(ROOT / "target/release/onnx-bcast-lint"))
    parser.add_argument("--codes", default="W1,W4")
    parser.add_argument("dirs", nargs="*", default=[str(ROOT / "harness/models")])
    args = parser.parse_args()
    codes = set(args.codes.split(","))
    models = sorted(p for d in args.dirs for p in Path(d).rglob("*.onnx") if p.is_file())
    run = subprocess.run(
        [args.bin, "--format", "json", *map(str, models)],
        capture_output=True,
        text=True,
        check=False,
    )
    document = json.loads(run.stdout)
    count = missing = 0
    for file in document["files"]:
        for finding in file.get("diagnostics", []):
            if finding["code"] not in codes:
                continue
            count += 1
            path = Path(file["path"])
            shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
            print(f"- {shown}: {finding['code']} {finding['message']}")
            traced = False
            for value in finding["inputs"]:
                for entry in value.get("provenance", []):
                    traced = True
                    print(f"    {value['name']}[{entry['axis']}] = {entry['dim']}: {describe(entry)}")
            if not traced:
                missing += 1
                print("    no provenance")
    print(f"\n{count} finding(s) of {sorted(codes)}; {missing} without provenance", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
