"""The engine's convolution and pooling sizes against onnxruntime, size by size.

For each operator, kernel, stride and padding, on a 1-D input of symbolic length `n`:
- bound to each length 1..12 (`--dim n=L`), the engine reports E4 exactly where onnxruntime
  fails, and otherwise gives the output length onnxruntime gives (pools truncate where the
  window does not fit: 1, not the ONNX reference's 0);
- unbound, the symbolic length evaluates to onnxruntime's at every length that runs, and there
  is a W4 exactly when some length fails.
Needs the engine binary (ONNX_BCAST_LINT, else target/release): the CI step builds it first."""
import json
import os
import subprocess

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from conformance.run import find_engine
from conformance.symexpr import evaluate

LENGTHS = range(1, 13)
CASES = [(op, k, s, p) for op in ("Conv", "MaxPool", "AveragePool")
         for k in range(1, 6) for s in range(1, 4) for p in range(3) if p < k]


def model(op, k, s, p):
    attrs = dict(kernel_shape=[k], strides=[s], pads=[p, p])
    inits = []
    if op == "Conv":
        inits = [helper.make_tensor("w", TensorProto.FLOAT, [1, 1, k], np.ones(k, np.float32))]
        node = helper.make_node("Conv", ["x", "w"], ["y"], name="window", **attrs)
    else:
        node = helper.make_node(op, ["x"], ["y"], name="window", **attrs)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, "n"])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializer=inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


def lint(engine, path, *args):
    out = subprocess.run([engine, "--format", "json", "--shapes", *args, path], capture_output=True, text=True)
    f = json.loads(out.stdout)["files"][0]
    return [d["code"] for d in f["diagnostics"]], (f["shapes"].get("y") or [None] * 3)[2]


@pytest.mark.parametrize("op,k,s,p", CASES)
def test_window_sizes_match_onnxruntime(tmp_path, op, k, s, p):
    engine = find_engine()
    assert os.access(engine, os.X_OK), f"no engine at {engine}: build it (cargo build --release)"
    ort.set_default_logger_severity(4)
    m = model(op, k, s, p)
    path = str(tmp_path / "window.onnx")
    onnx.save(m, path)
    session = ort.InferenceSession(m.SerializeToString())
    codes, symbolic = lint(engine, path)
    some_fail = False
    for length in LENGTHS:
        try:
            real = session.run(None, {"x": np.ones((1, 1, length), np.float32)})[0].shape[2]
        except Exception:
            real = None
        bound_codes, bound = lint(engine, path, "--dim", f"n={length}")
        if real is None:
            some_fail = True
            assert "E4" in bound_codes, f"n={length}: onnxruntime fails, engine gives {bound} {bound_codes}"
            continue
        assert "E4" not in bound_codes, f"n={length}: onnxruntime gives {real}, engine {bound_codes}"
        assert bound == real, f"n={length}: onnxruntime gives {real}, engine {bound}"
        value = symbolic if isinstance(symbolic, int) else evaluate(symbolic, {"n": length})
        assert value == real, f"n={length}: onnxruntime gives {real}, {symbolic} is {value}"
    assert some_fail == ("W4" in codes), f"{symbolic}: onnxruntime fails for some n: {some_fail}; codes {codes}"
