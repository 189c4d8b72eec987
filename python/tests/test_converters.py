"""Round trips through real model builders: onnx.helper, skl2onnx, torch.onnx (when installed)."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_bcast_lint as obl


def mlp(bias_size=16):
    """``y = Relu(x [batch, 8] @ W [8, 16] + b [bias_size])``, batch symbolic."""
    rng = np.random.default_rng(0)
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "W"], ["h"], name="matmul"),
            helper.make_node("Add", ["h", "b"], ["hb"], name="bias"),
            helper.make_node("Relu", ["hb"], ["y"], name="relu"),
        ],
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 16])],
        initializer=[
            numpy_helper.from_array(rng.standard_normal((8, 16)).astype(np.float32), "W"),
            numpy_helper.from_array(np.zeros(bias_size, np.float32), "b"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=10)
    onnx.checker.check_model(model)
    return model


def test_onnx_helper_model_is_clean_and_shapes_agree_with_onnx():
    model = mlp()
    report = obl.check(model, deny_warnings=True)
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    for info in inferred.graph.value_info:
        dims = [d.dim_value if d.HasField("dim_value") else d.dim_param
                for d in info.type.tensor_type.shape.dim]
        assert report.shape(info.name) == dims
    assert report.shape("y") == ["batch", 16]


def test_onnx_helper_seeded_fault_is_e1():
    report = obl.lint(mlp(bias_size=15))
    (finding,) = report.errors
    assert finding.code == "E1" and finding.node.name == "bias"
    assert dict(finding.inputs) == {"h": ["batch", 16], "b": [15]}


def test_onnx_helper_file_round_trip(tmp_path):
    path = tmp_path / "mlp.onnx"
    onnx.save(mlp(bias_size=15), str(path))
    assert [f.code for f in obl.lint(path).findings] == ["E1"]


def sklearn_pipeline():
    import skl2onnx
    from sklearn.datasets import load_iris
    from sklearn.decomposition import PCA
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = load_iris(return_X_y=True)
    x = x.astype(np.float32)
    pipe = make_pipeline(StandardScaler(), PCA(n_components=3), LogisticRegression(max_iter=500))
    pipe.fit(x, y)
    return skl2onnx.to_onnx(pipe, x[:1], target_opset={"": 18, "ai.onnx.ml": 3})


def test_sklearn_pipeline_is_clean():
    model = sklearn_pipeline()
    report = obl.check(model, deny_warnings=True)
    assert not [f for f in report.findings if f.code != "I1"]
    assert report.shape("probabilities")[1:] == [3]


def test_sklearn_pipeline_with_a_seeded_broadcast_fault_gives_e1():
    model = sklearn_pipeline()
    # PCA exports as Sub(x, mean) then MatMul: give the mean one element too many.
    sub = next(n for n in model.graph.node if n.op_type == "Sub")
    inits = {t.name: t for t in model.graph.initializer}
    name = next(i for i in sub.input if i in inits)
    mean = numpy_helper.to_array(inits[name])
    inits[name].CopyFrom(numpy_helper.from_array(np.append(mean, 0).astype(mean.dtype), name))
    with pytest.raises(obl.LintError) as info:
        obl.check(model)
    (finding,) = info.value.report.errors
    assert finding.code == "E1" and finding.node.op_type == "Sub"
    assert finding.node.name == sub.name


def test_torch_export(tmp_path):
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.linear = torch.nn.Linear(8, 16)

        def forward(self, x):
            return torch.relu(self.linear(x)) + torch.ones(16)

    path = tmp_path / "net.onnx"
    kw = dict(input_names=["x"], output_names=["y"], dynamic_axes={"x": {0: "batch"}})
    try:
        torch.onnx.export(Net(), (torch.randn(2, 8),), str(path), dynamo=False, **kw)
    except TypeError:  # a torch without the dynamo flag
        torch.onnx.export(Net(), (torch.randn(2, 8),), str(path), **kw)
    report = obl.check(path, deny_warnings=True)
    assert report.ok
    assert report.shape("y")[1:] == [16]
