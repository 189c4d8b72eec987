"""The --write-shapes round-trip checker (conformance/write_shapes.py) passes a faithful copy and
fails a copy with a wrong written dim, an unparsable dim_param, or changed weights: it can fail."""
import os
import stat
import sys
import textwrap

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from conformance import write_shapes

# A stand-in for `onnx-bcast-lint -q --write-shapes OUT IN`: annotates with ONNX's inference,
# then spoils the copy as WS_FAKE says (wrong, garbage, weights).
WRITER = textwrap.dedent('''\
    import os, sys
    import onnx
    from onnx import numpy_helper
    out, src = sys.argv[3], sys.argv[4]
    model = onnx.shape_inference.infer_shapes(onnx.load(src))
    mode = os.environ.get("WS_FAKE", "")
    dims = model.graph.value_info[0].type.tensor_type.shape.dim
    if mode == "wrong":
        dims[1].dim_value = dims[1].dim_value + 1
    if mode == "garbage":
        dims[0].dim_param = "batch +* 2"
    if mode == "weights":
        w = model.graph.initializer[0]
        w.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(w) + 1, w.name))
    onnx.save(model, out)
''')


def model(tmp_path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 3])
    bias = numpy_helper.from_array(np.ones(3, dtype=np.float32), "bias")
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "bias"], ["s"], name="add"),
         helper.make_node("Relu", ["s"], ["z"], name="relu")],
        "g", [x], [z], [bias])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    path = tmp_path / "m.onnx"
    onnx.save(m, path)
    return str(path)


def engine(tmp_path):
    script = tmp_path / "writer.py"
    script.write_text(WRITER)
    exe = tmp_path / "writer"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return str(exe)


def run(tmp_path, monkeypatch, mode):
    monkeypatch.setenv("WS_FAKE", mode)
    return write_shapes.one(({"id": "m", "path": model(tmp_path)}, engine(tmp_path)))


def test_a_faithful_copy_passes(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "")
    assert result["failures"] == [] and result["ran"] and result["compared"] >= 2


def test_a_wrong_written_dim_fails(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "wrong")
    assert any("axis 1: written 4" in f for f in result["failures"]), result


def test_an_unparsable_dim_param_fails(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "garbage")
    assert any("is not an expression" in f for f in result["failures"]), result


def test_changed_weights_fail(tmp_path, monkeypatch):
    result = run(tmp_path, monkeypatch, "weights")
    assert "initializers differ" in result["failures"], result
