"""Every accepted model form gives the same report; anything else is a TypeError naming them."""

import io
import os
import pathlib

import onnx
import pytest

import onnx_bcast_lint as obl
from conftest import MODELS

E1 = MODELS / "e1_static_mismatch.onnx"


def codes(report):
    return [f.code for f in report.findings]


def forms():
    data = E1.read_bytes()

    class Proto:  # any object with SerializeToString, as onnx is not a dependency
        def SerializeToString(self):
            return data

    return {
        "str": str(E1),
        "pathlib": E1,
        "bytes path": os.fsencode(E1),
        "bytes": data,
        "bytearray": bytearray(data),
        "memoryview": memoryview(data),
        "BytesIO": io.BytesIO(data),
        "ModelProto": onnx.load(str(E1)),
        "SerializeToString": Proto(),
    }


@pytest.mark.parametrize("form", list(forms()))
def test_every_form_gives_the_same_findings(form):
    model = forms()[form]
    if form == "bytes path":
        report = obl.lint(os.fsdecode(model))
    else:
        report = obl.lint(model)
    reference = obl.lint(E1)
    assert codes(report) == ["E1"]
    assert [(f.code, f.message, f.inputs) for f in report.findings] == [
        (f.code, f.message, f.inputs) for f in reference.findings
    ]
    assert report.shapes == reference.shapes


def test_binary_file_object_keeps_its_name():
    with open(E1, "rb") as f:
        report = obl.lint(f)
    assert codes(report) == ["E1"]
    assert report.path == str(E1)


def test_path_report_is_labelled_with_the_path_as_given():
    assert obl.lint(str(E1)).path == str(E1)
    assert obl.lint(E1.read_bytes()).path == "<bytes>"


def test_model_proto_is_linted_with_byte_ranges():
    proto = onnx.load(str(E1))
    finding = obl.lint(proto).findings[0]
    assert finding.node is not None and finding.node.byte_range is not None


def test_text_file_object_is_a_type_error(tmp_path):
    with open(E1, "r", encoding="latin-1") as f:
        with pytest.raises(TypeError, match="binary mode"):
            obl.lint(f)


@pytest.mark.parametrize("bad", [42, None, 1.5, ["a.onnx"], object()])
def test_wrong_type_names_the_accepted_ones(bad):
    with pytest.raises(TypeError) as info:
        obl.lint(bad)
    message = str(info.value)
    for accepted in ("ModelProto", "bytes", "os.PathLike", "binary file object"):
        assert accepted in message


def test_lint_many_rejects_a_single_path():
    with pytest.raises(TypeError, match="iterable of models"):
        obl.lint_many(str(E1))


def test_missing_file_is_a_load_error():
    with pytest.raises(obl.LoadError) as info:
        obl.lint(MODELS / "does_not_exist.onnx")
    assert info.value.code == "load/io"
    assert info.value.offset is None
