"""max_findings: the command's --max-findings in lint, check and lint_many."""

import json

import onnx
import pytest
from onnx import helper

import onnx_bcast_lint as obl


def empty_nodes(count: int, infos: int = 0) -> onnx.ModelProto:
    """``infos`` nodes of ops no opset defines (one I1 each, first in graph order), then
    ``count`` nodes without an op type (one E3 each)."""
    nodes = [helper.make_node(f"NoSuchOp{i}", [], [f"u{i}"], name=f"unknown_{i}")
             for i in range(infos)]
    for i in range(count):
        node = onnx.NodeProto()
        node.name = f"empty_{i}"
        nodes.append(node)
    graph = helper.make_graph(nodes, "g", [], [])
    return helper.make_model(graph, ir_version=10,
                             opset_imports=[helper.make_opsetid("", 18)])


def test_the_default_keeps_the_first_thousand_and_counts_the_rest():
    assert obl.DEFAULT_MAX_FINDINGS == 1000
    report = obl.lint(empty_nodes(1_500))
    assert len(report.findings) == 1_000
    assert report.omitted == {"E3": 500}
    assert [f.node.name for f in report.findings[:2]] == ["empty_0", "empty_1"]
    assert json.loads(report.to_json())["files"][0]["omitted"] == {"E3": 500}


def test_zero_keeps_every_finding():
    report = obl.lint(empty_nodes(1_500), max_findings=0)
    assert len(report.findings) == 1_500
    assert report.omitted == {}
    assert "omitted" not in json.loads(report.to_json())["files"][0]


def test_an_omitted_error_fails_ok_and_check():
    model = empty_nodes(2, infos=3)
    report = obl.lint(model, max_findings=3)
    assert [f.code for f in report.findings] == ["I1", "I1", "I1"]
    assert report.errors == [] and report.omitted == {"E3": 2}
    assert not report.ok
    with pytest.raises(obl.LintError, match="2 findings denied") as raised:
        obl.check(model, max_findings=3)
    assert raised.value.findings == []
    assert raised.value.report.omitted == {"E3": 2}


def test_lint_many_caps_each_model():
    reports = obl.lint_many([empty_nodes(5), empty_nodes(2)], max_findings=3)
    assert [len(r.findings) for r in reports] == [3, 2]
    assert [r.omitted for r in reports] == [{"E3": 2}, {}]


@pytest.mark.parametrize("value, error", [
    (-1, ValueError), ("10", TypeError), (True, TypeError), (2.0, TypeError),
])
def test_bad_max_findings(value, error):
    with pytest.raises(error, match="max_findings"):
        obl.lint(empty_nodes(1), max_findings=value)
