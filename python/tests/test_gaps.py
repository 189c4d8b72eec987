"""What a converter author tripped on (issue 32): a misspelled ``dims`` name is a ValueError
naming the close declared ones, as the command's ``--dim`` is; a finding's fingerprint and its
inputs' provenance are the JSON output's; a GraphProto is a TypeError; ``shape(name)`` of a
missing name is a KeyError."""

import copy
import json
import pickle
import subprocess

import onnx
import pytest

import onnx_bcast_lint as obl
from conftest import MODELS

W1 = MODELS / "w1_symbolic.onnx"  # declares batch and seq
E1 = MODELS / "e1_static_mismatch.onnx"  # declares no symbolic dim
CLOSE = "did you mean `seq`? (declared: `batch`, `seq`)"


# --- dims: a name no input declares --------------------------------------------------------


@pytest.mark.parametrize("entry", [obl.lint, obl.check])
@pytest.mark.parametrize("name", ["sequence", "sq", "Seq"])
def test_a_misspelled_dim_is_a_value_error_naming_the_close_name(entry, name):
    with pytest.raises(ValueError) as info:
        entry(W1, dims={name: 5})
    message = str(info.value)
    assert f"no graph input declares a dim named `{name}`" in message
    assert message.endswith(CLOSE), message
    # Not a LintError (no report was made) nor a LoadError (the model is fine).
    assert not isinstance(info.value, (obl.LintError, obl.LoadError))


def test_the_message_is_the_commands(command):
    with pytest.raises(ValueError) as info:
        obl.lint(W1, dims={"sequence": 5})
    out = subprocess.run([command, "--dim", "sequence=5", str(W1)],
                         capture_output=True, text=True)
    assert out.returncode == 2
    # The same sentence after each front end's own prefix.
    assert str(info.value) == "lint(): dims: " + out.stderr.strip().removeprefix(
        "error: --dim sequence: ")


def test_each_unknown_dim_is_named_and_a_declared_one_binds():
    with pytest.raises(ValueError) as info:
        obl.lint(W1, dims={"btch": 1, "seq": 5, "width": 3})
    lines = str(info.value).splitlines()
    assert len(lines) == 2, lines
    assert "`btch`; did you mean `batch`?" in lines[0]
    assert "`width` (declared: `batch`, `seq`)" in lines[1]
    assert [f.code for f in obl.lint(W1, dims={"seq": 5}).findings] == ["E1"]


def test_a_model_without_symbols_refuses_any_dim():
    with pytest.raises(ValueError, match="the inputs declare no symbolic dim"):
        obl.lint(E1, dims={"batch": 1})


def test_every_model_form_is_checked():
    proto = onnx.load(str(W1))
    for form in (proto, W1.read_bytes(), str(W1)):
        with pytest.raises(ValueError, match="did you mean `seq`"):
            obl.check(form, dims={"sequence": 5})


def test_lint_many_checks_the_dims_over_the_batch():
    # `seq` is declared by w1_symbolic only: enough for the batch, as for the command.
    reports = obl.lint_many([E1, W1], dims={"seq": 5})
    assert [[f.code for f in r.findings] for r in reports] == [["E1"], ["E1"]]
    for batch in ([E1, W1], [W1, W1.read_bytes()]):
        with pytest.raises(ValueError) as info:
            obl.lint_many(batch, dims={"sequence": 5})
        assert str(info.value).startswith("lint_many(): dims: no graph input declares")
        assert str(info.value).endswith(CLOSE)
    # Declared by no model read: a usage error even when read errors are returned.
    with pytest.raises(ValueError, match="declare no symbolic dim"):
        obl.lint_many([E1, MODELS / "missing.onnx"], dims={"seq": 5}, return_exceptions=True)


def test_nothing_is_checked_when_no_model_could_be_read():
    with pytest.raises(obl.LoadError) as info:
        obl.lint(MODELS / "missing.onnx", dims={"sequence": 5})
    assert info.value.code == "load/io"
    results = obl.lint_many([MODELS / "missing.onnx"], dims={"sequence": 5},
                            return_exceptions=True)
    assert [r.code for r in results] == ["load/io"]


# --- fingerprint and provenance: what the JSON has ------------------------------------------


def _json_findings(report):
    return json.loads(report.to_json())["files"][0]["diagnostics"]


@pytest.mark.parametrize("name", ["e1_static_mismatch.onnx", "w1_symbolic.onnx",
                                  "w1_conv_frames.onnx", "e1_expand.onnx"])
def test_fingerprint_is_the_jsons(name):
    report = obl.lint(MODELS / name)
    expected = [d["fingerprint"] for d in _json_findings(report)]
    assert expected and all(expected)
    assert [f.fingerprint for f in report.findings] == expected
    assert obl.lint((MODELS / name).read_bytes()).findings[0].fingerprint == expected[0]


def _as_json(provenance):
    """A Provenance as the JSON's entry: named tuples as objects, tuples as lists."""
    source = provenance.source._asdict()
    steps = [step._asdict() for step in provenance.steps]
    return {**provenance._asdict(), "source": source, "steps": steps}


@pytest.mark.parametrize("name", ["w1_position_table.onnx", "w1_conv_frames.onnx",
                                  "w1_stride_divisibility.onnx", "e1_expand.onnx"])
def test_inputs_carry_the_jsons_value_and_provenance(name):
    report = obl.lint(MODELS / name)
    expected = _json_findings(report)
    assert len(report.findings) == len(expected)
    for finding, entry in zip(report.findings, expected):
        assert [
            {"name": i.name, "shape": i.shape, "value": i.value,
             "provenance": [_as_json(p) for p in i.provenance]}
            for i in finding.inputs
        ] == entry["inputs"]


def test_provenance_reads_as_data():
    # w1_conv_frames: frames come from the audio input through a strided Conv.
    report = obl.lint(MODELS / "w1_conv_frames.onnx")
    traced = [p for f in report.findings for i in f.inputs for p in i.provenance]
    assert traced, report.findings
    assert any(step.op_type == "Conv" and "strides" in step.attributes
               for p in traced for step in p.steps), traced
    for p in traced:
        assert isinstance(p, obl.Provenance)
        assert p.source.kind in ("graph_input", "initializer", "constant")
        assert p.nodes >= len(p.steps)
        assert all(isinstance(s, obl.ProvenanceStep) for s in p.steps)


def test_a_declared_size_reads_as_the_jsons_declared_list():
    # e1_declared_size: `s`'s axis 1 is 6 only because `s` declares it (issue 38, item 4).
    report = obl.lint(MODELS / "e1_declared_size.onnx")
    expected = _json_findings(report)
    seen = 0
    for finding, entry in zip(report.findings, expected):
        for i, raw in zip(finding.inputs, entry["inputs"]):
            as_json = [{**d._asdict(), "declaration": d.declaration._asdict()} for d in i.declared]
            assert as_json == raw.get("declared", []), (finding, raw)
            seen += len(i.declared)
    assert seen == 1, report.findings
    e1 = next(f for f in report.findings if f.code == "E1")
    s = next(i for i in e1.inputs if i.name == "s")
    assert s.declared == (obl.Declared(1, 6, obl.Declaration("main", "s", 1, 6)),)
    assert "declared=(Declared(" in repr(s)
    for same in (copy.deepcopy(s), pickle.loads(pickle.dumps(s)), s._replace(value=None)):
        assert same.declared == s.declared


def test_value_is_an_expand_targets_elements():
    finding = obl.lint(MODELS / "e1_expand.onnx").findings[0]
    values = [i.value for i in finding.inputs]
    assert any(isinstance(v, str) and v.startswith("[") for v in values), finding.inputs


def test_an_input_is_still_the_pair_name_shape():
    finding = obl.lint(MODELS / "w1_position_table.onnx").findings[0]
    traced = next(i for i in finding.inputs if i.provenance)
    name, shape = traced
    assert (name, shape) == (traced.name, traced.shape)
    assert dict(finding.inputs)[name] == shape
    assert traced == obl.Input(name, shape)  # equality compares the pair
    for same in (copy.deepcopy(traced), pickle.loads(pickle.dumps(traced)),
                 traced._replace(shape=list(shape))):
        assert (same.value, same.provenance) == (traced.value, traced.provenance)
    assert traced._replace(provenance=()).provenance == ()
    assert obl.Input._make(("x", [1])).provenance == ()
    assert "provenance=(Provenance(" in repr(traced)


# --- wrong model types and missing values ---------------------------------------------------


def test_a_graph_proto_is_a_type_error_saying_how_to_wrap_it():
    graph = onnx.load(str(E1)).graph
    for entry in (obl.lint, obl.check):
        with pytest.raises(TypeError) as info:
            entry(graph)
        message = str(info.value)
        assert "expects an onnx.ModelProto, got onnx.GraphProto" in message
        assert "make_model" in message
    with pytest.raises(TypeError, match="GraphProto"):
        obl.lint_many([E1, graph])


@pytest.mark.parametrize("message", [onnx.NodeProto(), onnx.TensorProto(),
                                     onnx.FunctionProto(), onnx.ValueInfoProto()])
def test_any_other_protobuf_message_is_a_type_error(message):
    with pytest.raises(TypeError) as info:
        obl.lint(message)
    assert f"got {message.DESCRIPTOR.full_name}" in str(info.value)


def test_a_model_class_is_a_type_error():
    with pytest.raises(TypeError, match="the class ModelProto: pass an instance"):
        obl.lint(onnx.ModelProto)


@pytest.mark.parametrize("bad", [{"graph": 1}, (E1,), onnx.load(str(E1)).graph.node])
def test_other_wrong_types_are_type_errors(bad):
    with pytest.raises(TypeError, match="expects an onnx.ModelProto"):
        obl.lint(bad)


def test_shape_of_a_missing_value_is_a_key_error_naming_it():
    report = obl.lint(MODELS / "ok_subgraphs.onnx")
    with pytest.raises(KeyError) as info:
        report.shape("nope")
    assert info.value.args == ("nope",)
    # A subgraph's value is not the main graph's.
    assert "then_out" not in report.shapes
    with pytest.raises(KeyError):
        report.shape("then_out")
    assert report.shape("if_out") == [2, 3]
