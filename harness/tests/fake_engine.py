"""A stand-in for onnx-bcast-lint, used only by the harness self-test.

It speaks the binary's JSON contract (`--format json --shapes MODEL...`) and
answers with ONNX's own inferred shapes, with input dim_params written as
symbolic expressions (`batch` becomes `(batch + 0) * 1`, a quoted name is
backticked). FAKE_ENGINE_WRONG=VALUE makes it report a wrong first dim for that
value; FAKE_ENGINE_MODE=crash|garbage|error exercises the failure paths.
"""
import json
import os
import re
import sys

import onnx

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def sym(p):
    return p if NAME.match(p) else f"`{p}`"


def main(argv):
    mode = os.environ.get("FAKE_ENGINE_MODE", "")
    if mode == "crash":
        sys.exit(101)
    if mode == "garbage":
        print("not json")
        sys.exit(0)
    paths = [a for a in argv if not a.startswith("--") and a not in ("json",)]
    files = []
    for p in paths:
        if mode == "error":
            files.append({"path": p, "status": "error", "error": {"code": "E3", "message": "fake"},
                          "diagnostics": [], "shapes": {}})
            continue
        m = onnx.load(p)
        inf = onnx.shape_inference.infer_shapes(m, strict_mode=False)
        shapes = {}
        g = inf.graph
        for vi in list(g.input) + list(g.value_info) + list(g.output):
            t = vi.type
            if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
                shapes[vi.name] = None
                continue
            dims = []
            for d in t.tensor_type.shape.dim:
                if d.HasField("dim_value"):
                    dims.append(d.dim_value)
                elif d.dim_param and not d.dim_param.startswith("unk__"):
                    dims.append(f"({sym(d.dim_param)} + 0) * 1")
                else:
                    dims.append(None)
            shapes[vi.name] = dims
        for i in g.initializer:
            shapes[i.name] = list(i.dims)
        wrong = os.environ.get("FAKE_ENGINE_WRONG")
        if wrong and shapes.get(wrong):
            d0 = shapes[wrong][0]
            shapes[wrong][0] = (d0 + 1) if isinstance(d0, int) else f"{d0} + 1"
        g = m.graph
        stats = {"nodes": len(g.node), "initializers": len(g.initializer), "value_info": len(g.value_info)}
        files.append({"path": p, "status": "ok", "error": None, "diagnostics": [], "shapes": shapes,
                      "stats": stats})
    print(json.dumps({"version": 1, "tool": {"name": "fake", "version": "0"}, "files": files}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
