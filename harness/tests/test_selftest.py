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
