#!/usr/bin/env python3
"""The measuring half of bench/run.sh (see there). Prints a Markdown table and writes it to
bench/out/results.md.

Environment: RUNS (default 3, medians), ONNX (1: time onnx.load + infer_shapes(strict_mode=True,
data_prop=True) in a fresh python process), REAL (1: 200 real models with -j 1 and -j 2),
REAL_MODELS (default harness/models, from harness/setup.sh), ONNX_BCAST_LINT (the binary).
"""

import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = os.path.join(ROOT, "bench", "models")
OUT = os.path.join(ROOT, "bench", "out")
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
BIN = os.environ.get("ONNX_BCAST_LINT", os.path.join(TARGET, "release", "onnx-bcast-lint"))
RUNS = int(os.environ.get("RUNS", "3"))
PY = sys.executable
ORDER = ["tx_10k", "tx_100k", "tx_1m", "own_10k", "own_100k", "own_1m", "big_inline", "big_external", "big_external_nodata"]
STAGES = ["read", "scan", "decode", "graph", "infer", "settle", "check", "output"]

ONNX_SCRIPT = """
import sys, onnx
from onnx import shape_inference
external = len(sys.argv) > 2
model = onnx.load(sys.argv[1], load_external_data=not external)
shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
"""


def gnu_time(argv):
    """Wall seconds, peak RSS in KB, stderr, of one run under /usr/bin/time -v."""
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{argv} exited with {proc.returncode}:\n{proc.stderr}")
    err = proc.stderr
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", err)
    hours, minutes, seconds = wall.groups()
    wall_s = int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    return wall_s, rss, err


def lint(path):
    """Median over RUNS of the whole process's wall time (exec to exit, measured around GNU time,
    which adds about a millisecond) with per-stage medians from --timings."""
    totals, rsses, stages, rss_file = [], [], {s: [] for s in STAGES}, []
    for _ in range(RUNS):
        start = time.perf_counter()
        _, rss, err = gnu_time([BIN, "--format", "json", "--timings", path])
        wall_ms = (time.perf_counter() - start) * 1e3
        per_file = re.search(r"^timings \S+ (.*)$", err, re.M).group(1)
        times = dict(kv.split("=") for kv in per_file.split())
        tail = dict(kv.split("=") for kv in re.search(r"^timings (output=.*)$", err, re.M).group(1).split())
        for stage in STAGES[:-1]:
            stages[stage].append(float(times[stage]))
        stages["output"].append(float(tail["output"]))
        totals.append(wall_ms)
        rsses.append(rss)
        rss_file.append(float(tail["rss_file"]))
    return {
        "total_ms": statistics.median(totals),
        "rss_kb": statistics.median(rsses),
        "stages": {s: statistics.median(v) for s, v in stages.items()},
        "rss_file_kb": statistics.median(rss_file) if rss_file else None,
    }


def onnx_reference(path, external):
    walls = []
    for _ in range(RUNS):
        argv = [PY, "-c", ONNX_SCRIPT, path] + (["external"] if external else [])
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls) * 1e3


def node_count(path):
    proc = subprocess.run([BIN, "--format", "json", path], capture_output=True, text=True, check=False)
    match = re.search(r'"nodes": (\d+)', proc.stdout)
    errors = proc.stdout.count('"code": "E1"')
    return int(match.group(1)), errors


def real_models(root, count=200):
    """The largest models that are not ONNX node tests, then node tests, by path."""
    files = []
    for dirpath, _, names in os.walk(root):
        files += [os.path.join(dirpath, n) for n in names if n.endswith(".onnx")]
    node_tests = sorted(f for f in files if "onnx-node" in f)
    others = sorted((f for f in files if "onnx-node" not in f), key=lambda f: (-os.path.getsize(f), f))
    chosen = others[: count // 2]
    chosen += node_tests[: count - len(chosen)]
    return chosen


def main(argv):
    wanted = argv or ORDER
    # The machine may be shared: the load beside the run is part of the result.
    load_before = os.getloadavg()
    rows = []
    data = os.path.join(MODELS, "big_external.data")
    for name in wanted:
        nodata = name.endswith("_nodata")
        path = os.path.join(MODELS, (name[: -len("_nodata")] if nodata else name) + ".onnx")
        if not os.path.exists(path):
            print(f"skip {name}: {path} missing (bench/gen_models.py)", file=sys.stderr)
            continue
        aside = data + ".aside"
        if nodata and os.path.exists(data):
            os.rename(data, aside)
        try:
            nodes, errors = node_count(path)
            result = lint(path)
            reference = None
            if os.environ.get("ONNX", "1") == "1":
                reference = onnx_reference(path, external="external" in name)
        finally:
            if nodata and os.path.exists(aside):
                os.rename(aside, data)
        rows.append((name, nodes, os.path.getsize(path), result, reference, errors))
        print(f"measured {name}", file=sys.stderr)

    header = (
        "| model | nodes | file MB | " + " | ".join(f"{s} ms" for s in STAGES)
        + " | total ms | ns/node | peak RSS MB | mapped-file RSS MB | ONNX ms | ONNX / ours | E1 |"
    )
    lines = [header, "|" + "---|" * (header.count("|") - 1)]
    for name, nodes, size, result, reference, errors in rows:
        total = result["total_ms"]
        stages = " | ".join(f"{result['stages'][s]:.1f}" for s in STAGES)
        rss_file = result["rss_file_kb"]
        lines.append(
            f"| {name} | {nodes} | {size / 1e6:.1f} | {stages} | {total:.1f} | "
            f"{total * 1e6 / max(nodes, 1):.0f} | {result['rss_kb'] / 1024:.1f} | "
            + (f"{rss_file / 1024:.1f}" if rss_file is not None else "-")
            + " | "
            + (f"{reference:.0f} | {reference / total:.0f}x" if reference else "- | -")
            + f" | {errors} |"
        )
    if os.environ.get("REAL", "1") == "1":
        root = os.environ.get("REAL_MODELS", os.path.join(ROOT, "harness", "models"))
        if os.path.isdir(root):
            models = real_models(root)
            walls = {}
            # The whole batch takes tens of milliseconds: GNU time's 10 ms resolution is too
            # coarse, so this is timed around the process, alternating -j 1 and -j 2, 11 times.
            runs = {1: [], 2: []}
            for _ in range(max(RUNS, 11)):
                for jobs in (1, 2):
                    start = time.perf_counter()
                    subprocess.run(
                        [BIN, "--format", "json", "-j", str(jobs), *models],
                        stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL,
                        check=False,
                    )
                    runs[jobs].append(time.perf_counter() - start)
            walls = {jobs: statistics.median(times) for jobs, times in runs.items()}
            lines.append("")
            lines.append(
                f"{len(models)} real models: -j 1 {walls[1] * 1e3:.0f} ms, -j 2 {walls[2] * 1e3:.0f} ms, "
                f"ratio {walls[2] / walls[1]:.2f} (target <= 0.6)"
            )
    load_after = os.getloadavg()
    lines.append("")
    lines.append(
        f"RUNS={RUNS} (medians); {os.cpu_count()} cores; load average (1/5/15 min) "
        f"{' '.join(f'{x:.1f}' for x in load_before)} before, "
        f"{' '.join(f'{x:.1f}' for x in load_after)} after"
    )
    text = "\n".join(lines)
    print(text)
    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "results.md"), "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
