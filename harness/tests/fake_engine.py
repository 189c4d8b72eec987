"""A stand-in for onnx-bcast-lint, used only by the harness self-test.

It speaks the binary's JSON contract (`--format json --shapes MODEL...`) and
answers with ONNX's own inferred shapes, with input dim_params written as
symbolic expressions (`batch` becomes `(batch + 0) * 1`, a quoted name is
backticked). FAKE_ENGINE_WRONG=VALUE makes it report a wrong first dim for that
value; FAKE_ENGINE_MODE=crash|garbage|error exercises the failure paths.
Findings: where ONNX's strict inference raises on a node it reports E4 there
(FAKE_ENGINE_NO_E4=1 turns that off, as an engine that misses them);
FAKE_ENGINE_ERROR_AT=NODE reports an E1 at that node (a false alarm on a valid model).
"""
import json
import os
import re
import sys

import onnx

NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
STRICT_ERR = re.compile(r"\(op_type:(\w+), node name: ([^)]*)\): (.*)")


def finding(model, name, code, message):
    idx = next((k for k, n in enumerate(model.graph.node) if n.name == name), None)
    op = model.graph.node[idx].op_type if idx is not None else None
    return {"code": code, "severity": "error" if code.startswith("E") else "warning", "message": message,
            "help": None, "node": {"graph": "main", "index": idx, "name": name, "op_type": op, "domain": ""},
            "inputs": []}


def findings(model):
    out = []
    if not os.environ.get("FAKE_ENGINE_NO_E4"):
        try:
            onnx.shape_inference.infer_shapes(model, strict_mode=True)
        except Exception as e:
            hit = STRICT_ERR.search(str(e))
            if hit:
                out.append(finding(model, hit.group(2), "E4", hit.group(3).strip()))
    at = os.environ.get("FAKE_ENGINE_ERROR_AT")
    if at and any(n.name == at for n in model.graph.node):
        out.append(finding(model, at, "E1", "fake false alarm"))
    return out


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
        files.append({"path": p, "status": "ok", "error": None, "diagnostics": findings(m), "shapes": shapes,
                      "stats": stats})
    print(json.dumps({"version": 1, "tool": {"name": "fake", "version": "0"}, "files": files}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
