"""Fault kinds, onnxruntime message matching, valid models and false alarms."""
import random

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conformance import faults
from conformance.expect import check, current, false_alarms, valid_reason
from conformance.truth import expose_all, run_ort

F = TensorProto.FLOAT


# ------------------------------------------------------------ message matching ---
def test_failing_node_both_forms():
    run = ("[ONNXRuntimeError] : 1 : FAIL : Non-zero status code returned while running MatMul node. "
           "Name:'p2o.MatMul.24' Status Message: matmul_helper.h:59 Compute MatMul dimension mismatch")
    load = ("[ONNXRuntimeError] : 1 : FAIL : Node (/stft/padding/Concat) Op (Concat) [ShapeInferenceError] "
            "All inputs to Concat must have same rank. Input 1 has rank 1 != 2")
    assert faults.failing_node(run) == "p2o.MatMul.24"
    assert faults.failing_node(load) == "/stft/padding/Concat"
    assert faults.failing_node("Invalid tensor data type 0.") is None


# Real onnxruntime 1.31 messages (tails), one or more per kind.
ORT_MESSAGES = {
    "symbolic_k": ["matmul_helper.h:59 Compute MatMul dimension mismatch"],
    "matmul_k": ["matmul_helper.h:59 Compute MatMul dimension mismatch", "GEMM: Dimension mismatch, W: {8,11} K: 10 N:8",
                 "[ShapeInferenceError] Incompatible dimensions for matrix multiplication",
                 "[ShapeInferenceError] Dimension mismatch in unification between 9 and 8"],
    "conv_channels": ["Input channels C is not equal to kernel channels * group. C: 4 kernel channels: 3 group: 2"],
    "bn_params": ["Invalid input var: 0th dimension != 24", "Invalid input B: 0th dimension != 104",
                  "[ShapeInferenceError] Dimension mismatch in unification between 7 and 6"],
    "concat_dims": ["All inputs to Concat must have same rank. Input 1 has rank 2 != 1",
                    "[ShapeInferenceError] Can't merge shape info. Both inferred and declared dimension have values "
                    "but they differ. Inferred=3 Declared=2 Dimension=0"],
    "reshape_count": ["input_shape_size == requested_shape_size was false. The input tensor cannot be reshaped to the "
                      "requested shape. Input shape:{1,256,6,6}, requested shape:{1,9217}"],
    "split_sum": ["Mismatch between the sum of 'split' (4) and the split dimension of the input (3)"],
    "axis_range": ["IsAxisInRange(axis, tensor_rank) was false. axis 2 is not in valid range [-2,1]",
                   "axis must be in [-rank, rank-1].", "axis must be in [-r, r-1]", "rank must be greater than axis",
                   "Invalid value(5) for attribute 'axis'", "Attribute perm for Transpose has repeated value: 1",
                   "[ShapeInferenceError] 'axis' must be in [-2 , 1]. Its actual value is: 2"],
    "contrib_bias": ["Status Message: Last dimension of bias and input does not match",
                     "Input 1 dimension 0 should have same length as the last dimension of input 0"],
    "rnn_weights": ["Input W must have shape {1,512,128}. Actual:{1,516,128}"],
}
BROADCAST_MSG = ("BroadcastIterator::Init(ptrdiff_t, ptrdiff_t) axis == 1 || axis == largest was false. "
                 "Attempting to broadcast an axis by a dimension other than 1. 3 by 4")


@pytest.mark.parametrize("kind", sorted(ORT_MESSAGES))
def test_ort_messages_per_kind(kind):
    for msg in ORT_MESSAGES[kind]:
        assert faults.ort_accepts(kind, msg), msg
    # a broadcast error, an unrelated load error or another kind's error is not this kind's fault
    assert not faults.ort_accepts(kind, BROADCAST_MSG)
    assert not faults.ort_accepts(kind, "Failed to load model with error: Invalid tensor data type 0.")
    assert not faults.ort_accepts(kind, "onnxruntime ran it")
    for other, msgs in ORT_MESSAGES.items():
        for msg in msgs:
            # onnx's generic unification message is shared by several kinds; the two K kinds share all theirs
            if other != kind and "unification" not in msg and {kind, other} != {"matmul_k", "symbolic_k"}:
                assert not faults.ort_accepts(kind, msg), (other, msg)


def test_broadcast_kinds_keep_their_regex():
    assert faults.ort_accepts("init_shape", BROADCAST_MSG)
    assert not faults.ort_accepts("init_shape", ORT_MESSAGES["conv_channels"][0])


def test_keep_decision():
    rej = {"rejected": True, "message": "Compute MatMul dimension mismatch", "node": "mm"}
    assert faults.keep_decision("matmul_k", rej, "mm") is None
    assert "not the edited" in faults.keep_decision("matmul_k", dict(rej, node="other"), "mm")
    assert faults.keep_decision("matmul_k", dict(rej, node=None), "mm") == "onnxruntime named no node"
    assert faults.keep_decision("matmul_k", {"rejected": False}, "mm") == "onnxruntime ran it"
    assert "another kind" in faults.keep_decision("conv_channels", rej, "mm")
    # broadcast kinds may fail downstream of the edited node
    bc = {"rejected": True, "message": "Incompatible dimensions", "node": "later"}
    assert faults.keep_decision("reshape_const", bc, "reshape") is None


def _d(code, name, sev, index=None):
    return {"code": code, "severity": sev, "node": {"name": name, "index": index, "graph": "main"}}


def test_classify():
    assert faults.classify("matmul_k", [_d("E4", "mm", "error")], []) == "right"
    assert faults.classify("matmul_k", [_d("E1", "mm", "error")], []) == "other_code"
    assert faults.classify("symbolic_k", [_d("E4", "mm", "error")], []) == "other_code"
    assert faults.classify("symbolic_k", [_d("W4", "mm", "warning")], []) == "right"
    assert faults.classify("matmul_k", [_d("I1", "mm", "info")], [_d("E2", "x", "error")]) == "elsewhere"
    assert faults.classify("matmul_k", [_d("I1", "mm", "info")], []) == "missed"
    assert faults.classify("init_shape", [_d("E1", "add", "error")], []) == "right"


def test_node_findings_by_name_or_index():
    m = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="r")], "g", [], []))
    by_index = {"code": "E4", "node": {"name": "", "index": 0, "graph": "main"}}
    idx, at, rest = faults.node_findings(m, "r", [by_index, _d("E1", "zz", "error", 1)])
    assert idx == 0 and at == [by_index] and len(rest) == 1


# ------------------------------------------------------------ generators + onnxruntime ---
def _model(nodes, inputs, inits, opset=17):
    g = helper.make_graph(nodes, "g", inputs, [helper.make_tensor_value_info(nodes[-1].output[0], F, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _x(name, shape):
    return helper.make_tensor_value_info(name, F, shape)


def _w(name, shape):
    return numpy_helper.from_array(np.random.default_rng(0).standard_normal(shape).astype(np.float32), name)


def _shapes(model):
    ins = {i.name: [d.dim_value for d in i.type.tensor_type.shape.dim] for i in model.graph.input}
    feeds = {k: np.ones(v, np.float32) for k, v in ins.items()}
    shapes = run_ort(expose_all(model), feeds)  # every intermediate, as the harness's truth
    shapes.update(ins)
    shapes.update({i.name: list(i.dims) for i in model.graph.initializer})
    return shapes


def _check(kind, model, tmp_path):
    """Generate `kind` on model, let onnxruntime judge it as the harness does; return (info, verdict)."""
    faults._name_nodes(model)
    shapes = _shapes(model)  # the valid twin runs
    ctx = {"static": True, "all_shapes": [shapes]}
    made = list(faults.KINDS[kind](model, shapes, random.Random(0), ctx))
    assert made, f"{kind}: no fault generated"
    m, info = made[0]
    path = str(tmp_path / f"{kind}.onnx")
    onnx.save(m, path)
    job = {"id": kind, "entry": {"id": "t", "data": None, "hints": {}}, "root": str(tmp_path), "path": path,
           "env": {}, "extra_input": info.get("extra_input"), "edited": info["edited"]}
    res = faults.ort_check(job)
    return info, res, faults.keep_decision(kind, res, info["edited"])


def _conv_bn():
    return _model([helper.make_node("Conv", ["x", "W"], ["c"], name="conv", group=2),
                   helper.make_node("BatchNormalization", ["c", "s", "b", "mu", "var"], ["y"], name="bn")],
                  [_x("x", [1, 4, 5, 5])],
                  [_w("W", [6, 2, 3, 3]), _w("s", [6]), _w("b", [6]), _w("mu", [6]),
                   numpy_helper.from_array(np.ones(6, np.float32), "var")])


CASES = {
    "matmul_k": lambda: _model([helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")],
                               [_x("x", [2, 3, 4])], [_w("W", [4, 5])]),
    "matmul_k/gemm_transB": lambda: _model([helper.make_node("Gemm", ["x", "W", "C"], ["y"], name="gemm", transB=1)],
                                           [_x("x", [2, 4])], [_w("W", [5, 4]), _w("C", [5])]),
    "symbolic_k": lambda: _model([helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")],
                                 [_x("x", [2, 4])], [_w("W", [4, 5])]),
    "conv_channels": _conv_bn,
    "bn_params": _conv_bn,
    "concat_dims": lambda: _model([helper.make_node("Concat", ["x", "C"], ["y"], name="cat", axis=1)],
                                  [_x("x", [2, 3])], [_w("C", [2, 4])]),
    "reshape_count": lambda: _model([helper.make_node("Reshape", ["x", "t"], ["y"], name="rs")], [_x("x", [2, 3, 4])],
                                    [numpy_helper.from_array(np.array([6, -1], np.int64), "t")]),
    "split_sum": lambda: _model([helper.make_node("Split", ["x", "sp"], ["a", "b"], name="split", axis=1)],
                                [_x("x", [2, 5])], [numpy_helper.from_array(np.array([2, 3], np.int64), "sp")]),
    "split_sum/opset11_attr": lambda: _model([helper.make_node("Split", ["x"], ["a", "b"], name="split", axis=1,
                                                               split=[2, 3])], [_x("x", [2, 5])], [], opset=11),
    "split_sum/equal": lambda: _model([helper.make_node("Split", ["x"], ["a", "b"], name="split", axis=1)],
                                      [_x("x", [2, 6])], [], opset=11),
    "axis_range/softmax": lambda: _model([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=1)],
                                         [_x("x", [2, 3])], []),
    "axis_range/gather": lambda: _model([helper.make_node("Gather", ["x", "i"], ["y"], name="ga", axis=1)],
                                        [_x("x", [2, 3])], [numpy_helper.from_array(np.array([0, 2], np.int64), "i")]),
    "axis_range/flatten": lambda: _model([helper.make_node("Flatten", ["x"], ["y"], name="fl", axis=1)],
                                         [_x("x", [2, 3, 4])], []),
    "axis_range/transpose": lambda: _model([helper.make_node("Transpose", ["x"], ["y"], name="tr", perm=[2, 0, 1])],
                                           [_x("x", [2, 3, 4])], []),
    "axis_range/concat": lambda: _model([helper.make_node("Concat", ["x", "x"], ["y"], name="cat", axis=1)],
                                        [_x("x", [2, 3])], []),
    "rnn_weights/lstm": lambda: _model([helper.make_node("LSTM", ["x", "W", "R"], ["y"], name="lstm", hidden_size=3)],
                                       [_x("x", [5, 2, 4])], [_w("W", [1, 12, 4]), _w("R", [1, 12, 3])]),
    "rnn_weights/gru": lambda: _model([helper.make_node("GRU", ["x", "W", "R"], ["y"], name="gru", hidden_size=3)],
                                      [_x("x", [5, 2, 4])], [_w("W", [1, 9, 4]), _w("R", [1, 9, 3])]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_generated_fault_is_rejected_by_onnxruntime_at_the_edited_node(case, tmp_path):
    kind = case.split("/")[0]
    info, res, why = _check(kind, CASES[case](), tmp_path)
    assert res["rejected"], info
    assert why is None, (info, res)
    assert res["node"] == info["edited"]


def test_gemm_k_honours_transB(tmp_path):
    info, _, _ = _check("matmul_k", CASES["matmul_k/gemm_transB"](), tmp_path)
    assert "[5, 4] -> [5, 5]" in info["detail"]


def test_reshape_count_only_where_the_count_is_static():
    m = CASES["reshape_count"]()
    faults._name_nodes(m)
    shapes = _shapes(m)
    dyn = {"static": False, "all_shapes": [shapes]}  # one binding of a model with symbolic inputs
    assert list(faults.gen_reshape_count(m, shapes, random.Random(0), dyn)) == []


# ------------------------------------------------------------ valid models ---
def test_valid_models():
    assert valid_reason("onnx-pytorch-converted", "failed") == "ONNX ships expected outputs"
    assert valid_reason("onnx-node", "expected-only") == "ONNX ships expected outputs"
    assert valid_reason("silero-vad", "ok") == "onnxruntime runs it"
    assert valid_reason("torch", "failed") is None


def _result(family, status, errors):
    return {"family": family, "valid": valid_reason(family, status), "truth": {"status": status},
            "engine": {"counts": {"known": 3, "wrong": 0}, "errors_reported": [(e["code"], e["node"]) for e in errors],
                       "errors": errors}}


def test_false_alarm_fails_whatever_was_recorded():
    prelu = {"code": "E1", "node": "PRelu_0", "index": 0, "op_type": "PRelu", "message": "cannot broadcast"}
    results = {"onnx-pytorch-converted/test_PReLU_1d_multiparam": _result("onnx-pytorch-converted", "failed", [prelu]),
               "torch/encoder": _result("torch", "failed", [prelu]),
               "sklearn/x": _result("sklearn", "ok", [])}
    assert false_alarms(results) == [("onnx-pytorch-converted/test_PReLU_1d_multiparam", prelu)]
    new = current(results, None)
    assert new["models"]["sklearn/x"]["clean"] is True
    assert new["models"]["onnx-pytorch-converted/test_PReLU_1d_multiparam"]["clean"] is False
    assert "clean" not in new["models"]["torch/encoder"]  # not valid: no expectation either way
    for recorded in ({"models": {}, "faults": {}},
                     {"models": {"onnx-pytorch-converted/test_PReLU_1d_multiparam": {"known": 3, "clean": False}},
                      "faults": {}}):
        problems = check(recorded, new, {}, partial=True)
        assert problems == ["onnx-pytorch-converted/test_PReLU_1d_multiparam: false alarm: "
                            "the engine reports an error on a valid model"]


def test_missed_new_fault_is_not_a_regression():
    old = {"models": {}, "faults": {"a/m/matmul_k0": {"detected": True}}}
    new = {"models": {}, "faults": {"a/m/matmul_k0": {"detected": True}, "a/m/conv_channels0": {"detected": False}}}
    assert check(old, new, {}, False) == []
    new["faults"]["a/m/matmul_k0"]["detected"] = False
    assert check(old, new, {}, False) == ["fault a/m/matmul_k0: no longer reported at the right node"]


def test_update_goes_on_over_false_alarms_and_records_the_target(tmp_path):
    from conformance.expect import check_and_update

    bad = {"code": "E1", "node": "PRelu_0", "index": 0, "op_type": "PRelu", "message": "cannot broadcast"}
    results = {"onnx-pytorch-converted/p": _result("onnx-pytorch-converted", "failed", [bad]),
               "sklearn/x": _result("sklearn", "ok", [])}
    faults_run = {"rows": [{"id": "sklearn/x/matmul_k0", "detected": False}]}
    path = str(tmp_path / "exp.json")
    assert check_and_update(path, results, faults_run, {}, update=True, out=str(tmp_path)) == 1  # still fails
    import json
    doc = json.loads(open(path).read())
    assert doc["models"]["onnx-pytorch-converted/p"]["clean"] is True  # the expectation, not the observation
    assert doc["faults"] == {"sklearn/x/matmul_k0": {"detected": False}}
    assert "false alarm" in (tmp_path / "regressions.txt").read_text()
    # a real regression still blocks the update
    results["sklearn/x"]["engine"]["counts"]["known"] = 1
    assert check_and_update(path, results, faults_run, {}, update=True, out=str(tmp_path)) == 1
    assert json.loads(open(path).read())["models"]["sklearn/x"]["known"] == 3


def test_symbolic_k_on_a_constant_node_weight(tmp_path):
    w = helper.make_node("Constant", [], ["W"], name="w", value=_w("W", [4, 5]))
    m = _model([w, helper.make_node("MatMul", ["x", "W"], ["y"], name="mm")], [_x("x", [2, 4])], [])
    info, res, why = _check("symbolic_k", m, tmp_path)
    assert why is None and res["node"] == "mm", res
    assert info["extra_input"]["value"] == 5


def test_e4_kinds_need_dims_that_do_not_depend_on_the_inputs():
    # the same MatMul whose A has a symbolic K: breaking W's K would be conditional (W4), not E4
    m = CASES["matmul_k"]()
    faults._name_nodes(m)
    shapes = _shapes(m)
    assert list(faults.gen_matmul_k(m, shapes, random.Random(0), {"static": True, "all_shapes": [shapes]}))
    one_binding = {"static": False, "all_shapes": [shapes]}
    assert list(faults.gen_matmul_k(m, shapes, random.Random(0), one_binding)) == []
    other = dict(shapes, x=[2, 3, 6])  # a second binding where K differs
    assert list(faults.gen_matmul_k(m, shapes, random.Random(0), {"static": False, "all_shapes": [shapes, other]})) == []
    assert list(faults.gen_matmul_k(m, shapes, random.Random(0), {"static": False, "all_shapes": [shapes, shapes]}))


def test_downstream_fault_found_on_the_path_counts():
    # reshape_const: Reshape r -> Conv c -> Relu x -> Sum s (onnxruntime names s); an E4 at c is
    # the same fault found earlier; an E4 at an unrelated node u is not.
    from onnx import helper, TensorProto
    nodes = [helper.make_node("Reshape", ["a", "t"], ["ra"], name="r"),
             helper.make_node("Conv", ["ra", "w"], ["ca"], name="c"),
             helper.make_node("Relu", ["ca"], ["xa"], name="x"),
             helper.make_node("Relu", ["b"], ["ub"], name="u"),
             helper.make_node("Sum", ["xa", "ub"], ["sa"], name="s")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("a", TensorProto.FLOAT, None)],
                          [helper.make_tensor_value_info("sa", TensorProto.FLOAT, None)])
    model = helper.make_model(g)
    between = faults.path_between(model, "r", "s")
    assert between == {"r", "c", "x", "s"}
    assert faults.classify("reshape_const", [], [_d("E4", "c", "error")], between) == "right"
    assert faults.classify("reshape_const", [], [_d("E4", "u", "error")], between) == "elsewhere"
    assert faults.classify("reshape_const", [_d("E4", "s", "error")], [], between) == "right"
    # Other kinds keep the strict rule.
    assert faults.classify("init_shape", [], [_d("E4", "c", "error")], between) == "elsewhere"
