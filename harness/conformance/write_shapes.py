"""Round trip of `onnx-bcast-lint --write-shapes` (issue 17, item 6) over the harness models.

For every model: write the annotated copy; check that the input file is unchanged, that the
copy's initializers (raw bytes and external data references) equal the input's, that the copy
passes `onnx.checker.check_model` whenever the input does, that onnxruntime runs it whenever it
runs the input, and that every written dim agrees with the runtime shape under each binding
(`dim_value` equal, `dim_param` evaluated with the binding's symbols).

    harness/.venv/bin/python -m conformance.write_shapes [--only SUBSTR] [--engine PATH]

Exits 1 when any model fails one of these checks; prints a summary and the failures.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from multiprocessing import Pool

import onnx

from . import symexpr
from .score import _fresh_values
from .truth import compute_truth

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.environ.get("ONNX_BCAST_LINT") or os.path.join(HERE, "..", "target", "release", "onnx-bcast-lint")


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def checks(model):
    try:
        onnx.checker.check_model(model)
        return True
    except Exception:
        return False


def initializer_facts(model):
    return [(i.name, list(i.dims), i.data_type, i.raw_data, [(e.key, e.value) for e in i.external_data])
            for i in model.graph.initializer]


def written_dims(model):
    out = {}
    for vi in model.graph.value_info:
        dims = []
        for d in vi.type.tensor_type.shape.dim:
            if d.HasField("dim_value"):
                dims.append(d.dim_value)
            elif d.HasField("dim_param"):
                dims.append(d.dim_param)
            else:
                dims.append(None)
        out[vi.name] = dims
    return out


def one(args):
    entry, engine = args
    path = os.path.join(HERE, entry["path"])
    result = {"id": entry["id"], "failures": [], "compared": 0, "unevaluated": 0, "ran": False}
    before = digest(path)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "annotated.onnx")
        proc = subprocess.run([engine, "-q", "--write-shapes", out, path], capture_output=True, text=True)
        if digest(path) != before:
            result["failures"].append("input modified")
        if proc.returncode == 2 or not os.path.exists(out):
            result["failures"].append("not written: " + proc.stderr.strip()[:300])
            return result
        original = onnx.load(path, load_external_data=False)
        annotated = onnx.load(out, load_external_data=False)
        if initializer_facts(original) != initializer_facts(annotated):
            result["failures"].append("initializers differ")
        if checks(original) and not checks(annotated):
            result["failures"].append("check_model fails on the copy only")
        written = written_dims(annotated)
        result["annotated"] = len(written)
        truth_in = compute_truth(dict(entry, path=path), HERE)
        truth_out = compute_truth(dict(entry, path=out), HERE)
        if truth_in["status"] == "ok" and truth_out["status"] != "ok":
            result["failures"].append("onnxruntime runs the input, not the copy: " + str(truth_out["reason"])[:300])
        result["ran"] = truth_out["status"] == "ok"
        for binding in truth_out["bindings"] if truth_out["status"] == "ok" else []:
            shapes = binding["shapes"]
            # Fresh symbols (data-dependent sizes) take their run-time value where a written dim
            # is the symbol alone, as in scoring; every other use of them is then checked.
            envs, clashes = _fresh_values([binding], written, list(written))
            env = envs[0]
            for symbol in sorted(clashes[0]):
                result["failures"].append(f"fresh symbol {symbol} written for two run-time sizes")
            for name, dims in written.items():
                real = shapes.get(name)
                if real is None or len(real) != len(dims):
                    if real is not None:
                        result["failures"].append(f"{name}: rank {len(dims)} written, {len(real)} at run time")
                    continue
                for axis, (d, r) in enumerate(zip(dims, real)):
                    if d is None:
                        continue
                    try:
                        v = d if isinstance(d, int) else symexpr.evaluate(d, env)
                    except symexpr.Unbound:
                        # A symbol with no value under the binding (a fresh one never written
                        # alone): counted, so it is seen rather than hidden.
                        result["unevaluated"] += 1
                        continue
                    except Exception as e:
                        result["failures"].append(f"{name} axis {axis}: written {d!r} is not an expression: {e}")
                        continue
                    result["compared"] += 1
                    if v != r:
                        result["failures"].append(f"{name} axis {axis}: written {d} = {v}, run time {r} ({env})")
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--engine", default=ENGINE)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    with open(os.path.join(HERE, "models", "manifest.json")) as f:
        entries = [e for e in json.load(f)["models"] if args.only in e["id"]]
    with Pool(args.workers) as pool:
        results = pool.map(one, [(e, args.engine) for e in entries], chunksize=4)
    failed = [r for r in results if r["failures"]]
    print(f"models {len(results)}, ran in onnxruntime {sum(r['ran'] for r in results)}, "
          f"values annotated {sum(r.get('annotated', 0) for r in results)}, "
          f"dims compared {sum(r['compared'] for r in results)}, "
          f"dims with unbound symbols {sum(r['unevaluated'] for r in results)}, failed {len(failed)}")
    for r in failed:
        print(f"  {r['id']}: " + "; ".join(r["failures"][:3]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
