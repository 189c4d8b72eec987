"""dims, allow and limits, and check(): the command's --dim, --allow and --deny warnings."""

import pytest

import onnx_bcast_lint as obl
from conftest import MODELS

W1 = MODELS / "w1_symbolic.onnx"
W4 = MODELS / "w4_matmul_symbolic_k.onnx"
E1 = MODELS / "e1_static_mismatch.onnx"
OK = MODELS / "ok_symbolic_batch.onnx"


def codes(report):
    return [f.code for f in report.findings]


def test_dim_satisfying_the_condition_removes_the_warning():
    assert codes(obl.lint(W1)) == ["W1"]
    assert codes(obl.lint(W1, dims={"seq": 77})) == []
    assert codes(obl.lint(W1, dims={"seq": 1, "batch": 4})) == []


def test_dim_breaking_the_condition_is_an_error():
    report = obl.lint(W1, dims={"seq": 5})
    assert codes(report) == ["E1"] and not report.ok


def test_dim_on_an_operator_constraint():
    assert codes(obl.lint(W4)) == ["W4"]
    assert codes(obl.lint(W4, dims={"k": 64})) == []
    assert codes(obl.lint(W4, dims={"k": 63})) == ["E4"]


def test_bound_dims_reach_the_shapes():
    assert obl.lint(W1, dims={"seq": 77}).shape("z") == ["batch", 77]


@pytest.mark.parametrize("dims, error", [
    ({"seq": -1}, ValueError), ({"seq": "5"}, TypeError), ({"seq": 5.0}, TypeError),
    ({"seq": True}, TypeError), ({3: 5}, TypeError), ([("seq", 5)], TypeError),
])
def test_bad_dims(dims, error):
    with pytest.raises(error):
        obl.lint(W1, dims=dims)


def test_allow_drops_a_code():
    assert codes(obl.lint(E1, allow=["E1"])) == []
    assert codes(obl.lint(E1, allow=("e1",))) == []
    assert codes(obl.lint(E1, allow="E1")) == []
    assert codes(obl.lint(E1, allow=["W1"])) == ["E1"]
    report = obl.lint(MODELS / "i1_custom_op.onnx", allow=["I1"])
    assert codes(report) == ["E1"]


def test_unknown_code_names_the_known_ones():
    with pytest.raises(ValueError, match="E1, W1"):
        obl.lint(E1, allow=["E9"])
    with pytest.raises(TypeError):
        obl.lint(E1, allow=[1])
    with pytest.raises(TypeError, match="iterable of codes"):
        obl.lint(E1, allow=1)


def test_limits():
    with pytest.raises(obl.LoadError) as info:
        obl.lint(OK, limits=obl.Limits(max_nodes=3))
    assert info.value.code == "load/limit" and "node count" in info.value.message
    with pytest.raises(obl.LoadError):
        obl.lint(OK, limits={"max_nodes": 3})
    assert obl.lint(OK, limits=obl.Limits()).ok
    with pytest.raises(TypeError):
        obl.lint(OK, limits={"max_bananas": 3})
    with pytest.raises(TypeError):
        obl.lint(OK, limits=(1, 2, 3))
    with pytest.raises(ValueError):
        obl.lint(OK, limits=obl.Limits(max_rank=-1))


def test_check_raises_lint_error_with_the_report():
    with pytest.raises(obl.LintError) as info:
        obl.check(E1)
    error = info.value
    assert isinstance(error, ValueError)
    assert [f.code for f in error.report.errors] == ["E1"]
    assert [f.code for f in error.findings] == ["E1"]
    assert "E1 Add node `add`" in str(error)


def test_check_passes_warnings_unless_denied():
    report = obl.check(W1)
    assert codes(report) == ["W1"]
    with pytest.raises(obl.LintError) as info:
        obl.check(W1, deny_warnings=True)
    assert [f.code for f in info.value.findings] == ["W1"]
    assert obl.check(W1, deny_warnings=True, dims={"seq": 77}).ok


def test_check_clean_model_returns_report():
    report = obl.check(OK, deny_warnings=True)
    assert report.ok and not report.findings


def test_check_load_error_is_not_a_lint_error():
    with pytest.raises(obl.LoadError):
        obl.check(b"garbage")


def test_check_allow():
    assert obl.check(E1, allow=["E1"]).ok


INIT_INPUTS = MODELS / "ok_initializer_inputs.onnx"
NOTE = ("assuming initializers that are also graph inputs keep their values "
        "(--initializers-as-constants)")


def test_initializers_as_constants_recovers_dims_and_notes_dependent_findings():
    # IR 8: the Reshape target is an overridable default, unknown unless assumed constant.
    plain = obl.lint(INIT_INPUTS)
    assert plain.shape("y") == [None, None] and codes(plain) == []
    assumed = obl.lint(INIT_INPUTS, initializers_as_constants=True)
    assert assumed.shape("y") == ["2*batch", 3]
    assert codes(assumed) == ["W1"]
    assert assumed.findings[0].help.endswith(NOTE)
    checked = obl.check(INIT_INPUTS, initializers_as_constants=True)
    assert checked.shape("w") == ["2*batch", 3]
    with pytest.raises(obl.LintError):
        obl.check(INIT_INPUTS, initializers_as_constants=True, deny_warnings=True)
    many = obl.lint_many([INIT_INPUTS, W1], initializers_as_constants=True)
    assert [codes(r) for r in many] == [["W1"], ["W1"]]
    assert many[0].findings[0].help.endswith(NOTE)
    assert NOTE not in many[1].findings[0].help
    assert obl.lint_many([INIT_INPUTS])[0].shape("y") == [None, None]


def test_initializers_as_constants_must_be_a_bool():
    with pytest.raises(TypeError, match="initializers_as_constants"):
        obl.lint(INIT_INPUTS, initializers_as_constants="yes")
