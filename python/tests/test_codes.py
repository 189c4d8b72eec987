"""Every committed fixture reports the codes its name promises, with every attribute filled."""

import pytest

import onnx_bcast_lint as obl
from conftest import MODELS, models

PREFIX_CODE = {"e1_": "E1", "w1_": "W1", "w2_": "W2", "e3_": "E3", "e4_": "E4", "w4_": "W4",
               "i1_": "I1"}


@pytest.mark.parametrize("path", [p for p in models() if p.name[:3] in PREFIX_CODE],
                         ids=lambda p: p.name)
def test_fixture_reports_its_code(path):
    report = obl.lint(path)
    code = PREFIX_CODE[path.name[:3]]
    assert code in [f.code for f in report.findings]
    if code in ("W1", "W2", "W4"):
        assert report.ok and not report.errors and report.warnings
    if code.startswith("E"):
        assert not report.ok and report.errors
    for finding in report.findings:
        assert finding.code in obl.CODES
        assert finding.severity in ("error", "warning", "info")
        assert finding.message and "\n" not in finding.message


@pytest.mark.parametrize("path", models("ok_"), ids=lambda p: p.name)
def test_clean_fixture_has_no_error_or_warning(path):
    report = obl.lint(path)
    assert report.ok
    assert not report.errors and not report.warnings, [str(f) for f in report.findings]


def test_codes_constant_lists_every_code():
    assert set(obl.CODES) == {"E1", "W1", "E2", "E3", "E4", "W4", "W2", "W5", "I1", "I2"}


def test_e1_finding_attributes():
    (finding,) = obl.lint(MODELS / "e1_static_mismatch.onnx").findings
    assert finding.code == "E1" and finding.severity == "error"
    assert "axis 1 is 3 vs 4" in finding.message
    assert finding.help.startswith("multidirectional (numpy) broadcasting")
    node = finding.node
    assert (node.graph, node.index, node.name, node.op_type, node.domain) == (
        "main", 0, "add", "Add", "")
    start, end = node.byte_range
    assert 0 <= start < end
    assert finding.inputs == (obl.Input("x", [2, 3]), obl.Input("y", [4]))
    name, shape = finding.inputs[1]
    assert (name, shape) == ("y", [4])
    assert str(finding).startswith("E1 Add node `add`")


def test_facts_carry_what_the_message_states():
    (e1,) = obl.lint(MODELS / "e1_static_mismatch.onnx").findings
    assert e1.facts["kind"] == "broadcast_clash" and e1.facts["axis"] == 1
    assert [(s["input"], s["axis"], s["size"]) for s in e1.facts["sizes"]] == [
        ("x", 1, 3), ("y", 0, 4)]
    (w1,) = [f for f in obl.lint(MODELS / "w1_position_table.onnx").findings if f.code == "W1"]
    assert w1.facts["kind"] == "conditional_broadcast"
    assert w1.facts["condition"] == "seq ≤ 64" and w1.facts["condition"] in w1.message
    assert w1.facts["counterexample"] == {"seq": 65}
    (w2,) = obl.lint(MODELS / "w2_declared_mismatch.onnx").findings
    assert (w2.facts["declared"], w2.facts["inferred"]) == ([2, 5], [2, 3])
    assert w2.severity == "warning"
    i1 = obl.lint(MODELS / "i1_future_opset.onnx").infos[0]
    assert (i1.facts["op_type"], i1.facts["version"]) == ("Add", 99)


def test_w1_symbolic_shapes_are_strings():
    report = obl.lint(MODELS / "w1_symbolic.onnx")
    (finding,) = report.findings
    assert finding.severity == "warning"
    assert dict(finding.inputs) == {"x": ["batch", "seq"], "y": ["batch", 77]}
    assert report.warnings == [finding] and report.errors == []


def test_i1_with_downstream_e1():
    report = obl.lint(MODELS / "i1_custom_op.onnx")
    assert sorted(f.code for f in report.findings) == ["E1", "I1"]
    assert report.infos and report.infos[0].node.domain == "com.example"


def test_model_level_finding_has_no_node():
    report = obl.lint(MODELS / "e4_initializer_vs_input.onnx")
    assert [f.code for f in report.findings] == ["E4"]
    assert report.findings[0].node is None


def test_subgraph_findings_name_their_graph():
    for path in models():
        if path.name.startswith("load_"):
            continue
        for finding in obl.lint(path).findings:
            if finding.node is not None:
                assert finding.node.graph.startswith(("main", "function/"))


LOAD = {
    "load_empty.onnx": "load/empty",
    "load_garbage.onnx": "load/decode",
    "load_truncated.onnx": "load/decode",
    "load_wrong_wire_type.onnx": "load/decode",
    "load_nested_if_10000.onnx": "load/",
    "load_huge_rank.onnx": "load/limit",
    "load_negative_dims.onnx": "load/dims",
    "load_overflow_dims.onnx": "load/dims",
    "load_directory.onnx": "load/directory",
}


@pytest.mark.parametrize("name", sorted(LOAD))
def test_unreadable_fixture_is_a_load_error(name):
    path = MODELS / name
    with pytest.raises(obl.LoadError) as info:
        obl.lint(path)
    error = info.value
    assert isinstance(error, ValueError)
    assert error.code.startswith(LOAD[name])
    assert error.path == str(path)
    assert error.message and error.code in str(error)
    if error.code in ("load/decode", "load/limit"):
        assert isinstance(error.offset, int) and error.offset >= 0
    else:
        assert error.offset is None


def test_every_load_fixture_is_covered():
    assert {p.name for p in MODELS.glob("load_*.onnx")} == set(LOAD) | {"load_no_graph.onnx"}


def test_model_without_graph_is_an_e3_finding():
    # It decodes: the command reports it as a structural problem (README: E3), not load/...
    report = obl.lint(MODELS / "load_no_graph.onnx")
    assert [f.code for f in report.findings] == ["E3"]
    assert report.findings[0].node is None and report.shapes == {}


def test_decode_error_offset_from_bytes():
    data = (MODELS / "load_truncated.onnx").read_bytes()
    with pytest.raises(obl.LoadError) as info:
        obl.lint(data)
    assert info.value.code == "load/decode"
    assert 0 < info.value.offset <= len(data)
    assert info.value.path == "<bytes>"


def test_garbage_bytes_decode_error():
    with pytest.raises(obl.LoadError) as info:
        obl.lint(b"this is not a model")
    assert info.value.code == "load/decode"
    assert info.value.offset == 0


def test_empty_bytes():
    with pytest.raises(obl.LoadError) as info:
        obl.lint(b"")
    assert info.value.code.startswith("load/")
