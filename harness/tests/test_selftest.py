"""Harness self-test: the whole pipeline on tiny models, against a fake engine."""
import json
import os
import stat
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from conformance import run
from conformance.collect import Collector
from conformance.expect import check

HERE = os.path.dirname(os.path.abspath(__file__))


def tiny_models():
    # X[batch, seq, 4] + B[4] -> Reshape(batch*seq, 4) via computed shape -> MatMul W[4, 3]
    x = helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", "seq", 4])
    y = helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)
    inits = [
        numpy_helper.from_array(np.ones(4, np.float32), "B"),
        numpy_helper.from_array(np.ones((4, 3), np.float32), "W"),
        numpy_helper.from_array(np.array([-1, 4], np.int64), "shp"),
    ]
    nodes = [
        helper.make_node("Add", ["X", "B"], ["xb"], name="add"),
        helper.make_node("Reshape", ["xb", "shp"], ["flat"], name="reshape"),
        helper.make_node("MatMul", ["flat", "W"], ["Y"], name="matmul"),
    ]
    m1 = helper.make_model(helper.make_graph(nodes, "g", [x], [y], inits), opset_imports=[helper.make_opsetid("", 17)])
    # static model with a quoted dim name
    a = helper.make_tensor_value_info("A", TensorProto.FLOAT, ["n items", 2])
    z = helper.make_tensor_value_info("Z", TensorProto.FLOAT, None)
    m2 = helper.make_model(helper.make_graph([helper.make_node("Relu", ["A"], ["r"], name="relu"),
                                              helper.make_node("Transpose", ["r"], ["Z"], name="tr")],
                                             "g2", [a], [z]), opset_imports=[helper.make_opsetid("", 17)])
    return {"sym_add_reshape": m1, "quoted_relu": m2}


@pytest.fixture()
def workdir(tmp_path):
    col = Collector(str(tmp_path))
    for name, m in tiny_models().items():
        col.add("selftest", name, m, "selftest")
    os.makedirs(tmp_path / "models", exist_ok=True)
    (tmp_path / "models" / "manifest.json").write_text(json.dumps({"models": col.entries, "skipped": [], "torch": False}))
    wrapper = tmp_path / "fake-engine"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} {os.path.join(HERE, 'fake_engine.py')} \"$@\"\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IEXEC)
    return tmp_path, str(wrapper)


def _run(tmp, engine, *extra):
    rc = run.main(["--root", str(tmp), "--engine", engine, "--no-faults", "--workers", "1", *extra])
    res = json.loads((tmp / "out" / "results.json").read_text())["models"]
    return rc, res


def test_fake_engine_matches_onnx(workdir):
    tmp, eng = workdir
    rc, res = _run(tmp, eng, "--no-check")
    r = res["selftest/sym_add_reshape"]
    assert r["truth"]["status"] == "ok"
    assert len(r["bindings"]) == 2 and r["bindings"][0] != r["bindings"][1]
    ce, co = r["engine"]["counts"], r["onnx"]["counts"]
    assert ce["values"] == 3 and ce["dims"] == 3 + 2 + 2
    assert ce["wrong"] == 0 and co["wrong"] == 0
    assert ce["known"] == co["known"] and ce["correct"] == co["correct"] > 0
    q = res["selftest/quoted_relu"]["engine"]["counts"]
    assert q["known"] == q["correct"] == 4
    assert (tmp / "out" / "family_table.md").read_text().count("selftest") >= 1


def test_wrong_dim_is_listed(workdir, monkeypatch):
    tmp, eng = workdir
    monkeypatch.setenv("FAKE_ENGINE_WRONG", "xb")
    rc, res = _run(tmp, eng, "--no-check")
    assert res["selftest/sym_add_reshape"]["engine"]["counts"]["wrong"] == 1
    rows = [json.loads(line) for line in (tmp / "out" / "wrong_dims.jsonl").read_text().splitlines()]
    assert [(r["who"], r["value"], r["axis"], r["op"]) for r in rows] == [("engine", "xb", 0, "Add")]


@pytest.mark.parametrize("mode", ["crash", "garbage", "error"])
def test_broken_engine_scores_zero(workdir, monkeypatch, mode):
    tmp, eng = workdir
    monkeypatch.setenv("FAKE_ENGINE_MODE", mode)
    rc, res = _run(tmp, eng, "--no-check")
    for r in res.values():
        assert r["engine"]["status"] == "failed" and r["engine"]["error"]
        assert r["engine"]["counts"]["known"] == 0


def test_missing_engine(workdir):
    tmp, _ = workdir
    rc, res = _run(tmp, str(tmp / "nope"), "--no-check")
    assert all("binary not found" in r["engine"]["error"] for r in res.values())


def test_ratchet(workdir, monkeypatch):
    tmp, eng = workdir
    exp = str(tmp / "exp.json")
    rc, _ = _run(tmp, eng, "--expectations", exp, "--update")
    assert rc == 0
    doc = json.loads(open(exp).read())
    assert doc["models"]["selftest/quoted_relu"] == {"known": 4, "all_correct": True, "clean": True}
    rc, _ = _run(tmp, eng, "--expectations", exp)
    assert rc == 0
    monkeypatch.setenv("FAKE_ENGINE_WRONG", "r")
    rc, _ = _run(tmp, eng, "--expectations", exp)
    assert rc == 1  # a wrong dim on a fully correct model
    monkeypatch.setenv("FAKE_ENGINE_MODE", "crash")
    rc, _ = _run(tmp, eng, "--expectations", exp, "--update")
    assert rc == 1  # fewer known dims: update refused
    assert json.loads(open(exp).read()) == doc


def test_check_rules():
    old = {"models": {"a/x": {"known": 3, "all_correct": True, "clean": True},
                      "torch/m": {"known": 1, "all_correct": True, "clean": True}}, "faults": {}}
    ok = {"models": {"a/x": {"known": 4, "all_correct": True, "clean": True}}, "faults": {}}
    assert check(old, ok, {"torch": False}, False) == []
    assert check(old, ok, {"torch": True}, False) == ["torch/m: recorded model missing from this run"]
    fewer = {"models": {"a/x": {"known": 2, "all_correct": True, "clean": True}}, "faults": {}}
    assert len(check(old, fewer, {}, False)) == 1


def static_net():
    # x[1,4,5,5] -> Conv(group 2) -> BatchNormalization -> Reshape [1, 54] -> MatMul [54, 5] -> Softmax
    rng = np.random.default_rng(0)

    def w(name, shape):
        return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 5])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [w("W", [6, 2, 3, 3]), w("s", [6]), w("b", [6]), w("mu", [6]),
             numpy_helper.from_array(np.ones(6, np.float32), "var"),
             numpy_helper.from_array(np.array([1, 54], np.int64), "t"), w("W2", [54, 5])]
    nodes = [helper.make_node("Conv", ["x", "W"], ["c"], name="conv", group=2),
             helper.make_node("BatchNormalization", ["c", "s", "b", "mu", "var"], ["bn"], name="bnorm"),
             helper.make_node("Reshape", ["bn", "t"], ["flat"], name="flat"),
             helper.make_node("MatMul", ["flat", "W2"], ["logits"], name="mm"),
             helper.make_node("Softmax", ["logits"], ["y"], name="sm", axis=1)]
    return helper.make_model(helper.make_graph(nodes, "net", [x], [y], inits),
                             opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture()
def faultdir(workdir):
    tmp, eng = workdir
    col = Collector(str(tmp))
    for name, m in dict(tiny_models(), static_net=static_net()).items():
        col.add("selftest", name, m, "selftest")
    (tmp / "models" / "manifest.json").write_text(json.dumps({"models": col.entries, "skipped": [], "torch": False}))
    return tmp, eng


def test_faults_pipeline(faultdir, monkeypatch):
    tmp, eng = faultdir
    exp = str(tmp / "exp.json")
    args = ["--root", str(tmp), "--engine", eng, "--workers", "2", "--expectations", exp, "--only", "static_net"]
    assert run.main(args + ["--update"]) == 0
    doc = json.loads(open(exp).read())
    fj = json.loads((tmp / "out" / "faults.json").read_text())
    rows = {r["id"]: r for r in fj["rows"]}
    # the fake engine reports E4 where onnx's strict inference fails: K of the MatMul, BatchNormalization's var,
    # Softmax's axis; the onnxruntime message names the edited node, and the valid twin stays clean
    k = rows["selftest/static_net/matmul_k0"]
    assert k["ort_node"] == k["edited_node"] == "mm" and k["detected"] and k["outcome"] == "right"
    assert k["engine_at_node"][0]["code"] == "E4" and k["twin_clean"] and "54" in k["detail"]
    assert rows["selftest/static_net/axis_range0"]["detected"]
    # symbolic K needs W4, which the fake engine never gives: kept, missed, not a failure
    sk = rows["selftest/static_net/symbolic_k0"]
    assert sk["want"] == "W4" and sk["outcome"] == "missed"
    assert doc["faults"]["selftest/static_net/matmul_k0"] == {"detected": True}
    assert doc["faults"]["selftest/static_net/symbolic_k0"] == {"detected": False}
    assert doc["models"]["selftest/static_net"]["clean"] is True
    table = (tmp / "out" / "family_table.md").read_text()
    assert "| matmul_k | E4 |" in table and "| symbolic_k | W4 |" in table
    # an engine that loses its E4 findings regresses on the recorded detections
    monkeypatch.setenv("FAKE_ENGINE_NO_E4", "1")
    assert run.main(args) == 1
    assert "selftest/static_net/matmul_k0: no longer reported" in (tmp / "out" / "regressions.txt").read_text()


def test_false_alarm_fails_the_run(faultdir, monkeypatch):
    tmp, eng = faultdir
    monkeypatch.setenv("FAKE_ENGINE_ERROR_AT", "relu")
    rc = run.main(["--root", str(tmp), "--engine", eng, "--workers", "1", "--no-faults", "--no-check"])
    assert rc == 1  # not a ratchet: fails without expectations too
    table = (tmp / "out" / "family_table.md").read_text()
    row = next(line for line in table.splitlines() if line.startswith("| selftest"))
    assert row.endswith("| 3 | 1 |")  # 3 valid models, 1 false alarm
    assert "selftest/quoted_relu: E1 at node 'relu'" in table
    assert "quoted_relu" in (tmp / "out" / "false_alarms.md").read_text()
