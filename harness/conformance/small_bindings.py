"""The engine's symbolic dims against onnxruntime at small sizes (issue 18: every dim right).

The truth step binds each model's symbols to two ordinary sizes. Rules can be exact there and
wrong near the bottom of the range, where a window no longer fits its input or a slice clamps:
rapidocr's recognizer had wrong pooled heights for inputs up to 32 rows, unseen by the two
bindings. Here every model with symbolic inputs runs in onnxruntime with all its symbols bound
to each of SIZES (hinted non-size values kept), every intermediate is exposed, and each dim the
engine inferred once, unbound, is evaluated under the binding (the engine's fresh symbols read
where they stand alone, as in scoring) and compared. A binding onnxruntime refuses is skipped:
the model does not accept it.

    harness/.venv/bin/python -m conformance.small_bindings [--only SUBSTR] [--engine PATH]

Prints a summary and every mismatch; exits 1 when there is one.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx

from . import truth as T
from .score import _bare_fresh, _fresh_values
from .symexpr import ExprError, Unbound, evaluate

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = os.environ.get("ONNX_BCAST_LINT") or os.path.join(HERE, "..", "target", "release", "onnx-bcast-lint")
SIZES = (1, 2, 3, 5, 7, 9, 13, 17, 33)


def mismatches(shapes, env, real):
    """(value, axis, inferred, evaluated, real) for every dim of `shapes` (the engine's, name ->
    dims) that evaluates under `env` to another size than `real` (name -> runtime dims)."""
    envs, clashes = _fresh_values([{"env": env, "shapes": real}], shapes, list(real))
    full, out, compared = envs[0], [], 0
    clashing = clashes[0]
    for name, dims in real.items():
        got = shapes.get(name)
        if not isinstance(got, list):
            continue
        if len(got) != len(dims):
            out.append((name, None, got, None, dims))
            continue
        for axis, (d, r) in enumerate(zip(got, dims)):
            if d is None:
                continue
            if _bare_fresh(d) in clashing:
                # One fresh symbol, two sizes in one run: wrong wherever it stands.
                compared += 1
                out.append((name, axis, d, None, r))
                continue
            try:
                v = d if isinstance(d, int) else evaluate(d, full)
            except (Unbound, ExprError, ZeroDivisionError):
                continue
            compared += 1
            if v != r:
                out.append((name, axis, d, v, r))
    return out, compared


def check(entry, engine):
    path = os.path.join(HERE, entry["path"])
    model = onnx.load(path)
    syms = T.symbols_of(model)
    result = {"id": entry["id"], "runs": 0, "compared": 0, "bad": []}
    if not syms:
        return result
    out = subprocess.run([engine, "--format", "json", "--shapes", path], capture_output=True, text=True)
    shapes = json.loads(out.stdout)["files"][0].get("shapes") or {}
    runnable, _ = T._as_runnable(model)
    exposed = T.expose_all(runnable)
    hinted = ((entry.get("hints") or {}).get("bindings") or [{}])[0]
    for size in SIZES:
        env = {s: size for s in syms}
        # The engine names an axis whose dim_param is an exporter's placeholder (tf2onnx's
        # `unk__N`) `input:axis`, which the hints bind too: that name takes the axis's size here.
        for vi in model.graph.input:
            for ax, d in enumerate(vi.type.tensor_type.shape.dim):
                if d.dim_param in syms:
                    env.setdefault(f"{vi.name}:{ax}", size)
        env.update({k: v for k, v in hinted.items() if k not in env})
        try:
            feeds = T.make_inputs(model, env, entry, np.random.default_rng(0))
            real = T.run_ort(exposed, feeds)
        except Exception:
            continue
        result["runs"] += 1
        bad, compared = mismatches(shapes, env, real)
        result["compared"] += compared
        result["bad"] += [(size, *b) for b in bad]
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", default="")
    ap.add_argument("--engine", default=ENGINE)
    args = ap.parse_args()
    with open(os.path.join(HERE, "models", "manifest.json")) as f:
        entries = [e for e in json.load(f)["models"] if args.only in e["id"]]
    results = [check(e, args.engine) for e in entries]
    results = [r for r in results if r["runs"]]
    failed = [r for r in results if r["bad"]]
    print(f"models {len(results)}, runs {sum(r['runs'] for r in results)}, "
          f"dims compared {sum(r['compared'] for r in results)}, models with wrong dims {len(failed)}")
    for r in failed:
        print(f"  {r['id']}: " + "; ".join(str(b) for b in r["bad"][:3]))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
