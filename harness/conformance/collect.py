"""Collect the conformance models into harness/models/ and write manifest.json.

Sources (all from installed PyPI packages, nothing from a model hub):
  * onnx backend node tests, generated from onnx's own case code;
  * real models shipped in packages (onnx test data, silero-vad, rapidocr,
    onnxruntime.datasets);
  * models exported here with fixed seeds (scikit-learn via skl2onnx; torch and
    transformers when torch is importable, see exports_torch.py);
  * onnxruntime-optimized and -quantized transformer models (exports_ort.py), built with
    onnx.helper and onnxruntime's own tools, so they need no torch;
  * committed models (harness/committed/, listed in its index.json), made offline by the
    generators in harness/generate/ with exporters CI does not install (torch, the GenAI model
    builder, tensorflow/tf2onnx, Keras 3) and issue 38's patterns built with onnx.helper;
  * onnxruntime's offline optimizer at each level over the CNN exports (ort_offline.py).
"""
from __future__ import annotations

import argparse
import glob
import importlib.util
import json
import os
import pickle
import sys
import time
import traceback
import warnings

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pkg_dir(name):
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return list(spec.submodule_search_locations)[0]


def loader_counts(model: onnx.ModelProto) -> dict:
    g = model.graph
    return {"nodes": len(g.node), "initializers": len(g.initializer), "value_info": len(g.value_info)}


class Collector:
    def __init__(self, root):
        self.root = root
        self.entries = []
        self.skipped = []  # models that could not even be collected, with reason

    def add(self, family, name, model_or_path, source, data=None, hints=None):
        mid = f"{family}/{name}"
        rel = os.path.join("models", family, name + ".onnx")
        path = os.path.join(self.root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(model_or_path, str):
            model = onnx.load(model_or_path)
            with open(model_or_path, "rb") as src, open(path, "wb") as dst:
                dst.write(src.read())
        else:
            model = model_or_path
            onnx.save(model, path)
        entry = {
            "id": mid,
            "family": family,
            "source": source,
            "path": rel,
            "data": None,
            "hints": hints or {},
            "loader": loader_counts(model),
            "opset": max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [0]),
            "ir_version": model.ir_version,
        }
        if data is not None:
            drel = os.path.join("models", family, name + ".data.pkl")
            with open(os.path.join(self.root, drel), "wb") as f:
                pickle.dump(data, f)
            entry["data"] = drel
        self.entries.append(entry)
        return entry


def _to_py(x):
    if isinstance(x, onnx.TensorProto):
        return numpy_helper.to_array(x)
    if isinstance(x, (np.generic,)):
        return np.asarray(x)
    return x


def collect_node_tests(col: Collector, limit=None):
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases()
    n = 0
    for c in sorted(cases, key=lambda c: c.name):
        if limit and n >= limit:
            break
        family = "onnx-node-expanded" if "_expanded" in c.name else "onnx-node"
        model = c.model
        inputs, outputs = c.data_sets[0]
        in_names = [i.name for i in model.graph.input]
        out_names = [o.name for o in model.graph.output]
        data = {
            "inputs": {k: _to_py(v) for k, v in zip(in_names, inputs)},
            "outputs": {k: _to_py(v) for k, v in zip(out_names, outputs)},
        }
        try:
            col.add(family, c.name, model, "onnx.backend.test.case.node.collect_testcases()", data=data)
            n += 1
        except Exception as e:  # pragma: no cover - recorded, not dropped
            col.skipped.append({"id": f"{family}/{c.name}", "reason": f"collect: {type(e).__name__}: {e}"})


def _read_pb_dataset(model, ds_dir):
    init = {i.name for i in model.graph.initializer}
    in_names = [i.name for i in model.graph.input if i.name not in init]
    inputs = {}
    for k, name in enumerate(in_names):
        p = os.path.join(ds_dir, f"input_{k}.pb")
        if not os.path.exists(p):
            return None
        t = onnx.TensorProto()
        with open(p, "rb") as f:
            t.ParseFromString(f.read())
        inputs[name] = numpy_helper.to_array(t)
    return {"inputs": inputs, "outputs": {}}


def collect_onnx_data(col: Collector):
    base = _pkg_dir("onnx")
    root = os.path.join(base, "backend", "test", "data")
    for sub in ("light", "simple", "pytorch-converted", "pytorch-operator"):
        family = f"onnx-{sub}"
        if sub == "light":
            for p in sorted(glob.glob(os.path.join(root, sub, "*.onnx"))):
                name = os.path.basename(p)[: -len(".onnx")]
                col.add(family, name, p, f"onnx/backend/test/data/{sub}")
            continue
        for d in sorted(glob.glob(os.path.join(root, sub, "*"))):
            p = os.path.join(d, "model.onnx")
            if not os.path.exists(p):
                continue
            name = os.path.basename(d)
            model = onnx.load(p)
            data = _read_pb_dataset(model, os.path.join(d, "test_data_set_0"))
            col.add(family, name, p, f"onnx/backend/test/data/{sub}", data=data)


# Per-model knowledge for the real models whose inputs have constraints that
# cannot be read off the graph. `bindings` give values to dim_params and to
# anonymous dims ("input:axis"); `values` fix whole inputs.
SILERO_HINTS = {
    "silero_vad": {
        "bindings": [{"input:0": 1, "input:1": 512, "state:1": 1}, {"input:0": 3, "input:1": 512, "state:1": 3}],
        "values": {"sr": 16000},
    },
    "silero_vad_16k_op15": {
        "bindings": [{"batch": 1, "sequence": 512}, {"batch": 3, "sequence": 512}],
        "values": {"sr": 16000},
    },
    "silero_vad_half": {"bindings": [{"batch": 1, "sequence": 512}, {"batch": 3, "sequence": 512}], "values": {"sr": 16000}},
    "silero_vad_op18_ifless": {
        "bindings": [{"batch": 1, "sequence": 512}, {"batch": 3, "sequence": 512}],
        "values": {"sr": 16000},
    },
    "silero_vad_16k_sequence": {"bindings": [{"sequence_length": 2}, {"sequence_length": 5}]},
}
RAPIDOCR_HINTS = {
    "ch_PP-OCRv4_det_infer": {
        "bindings": [
            {"p2o.DynamicDimension.0": 1, "p2o.DynamicDimension.1": 64, "p2o.DynamicDimension.2": 96},
            {"p2o.DynamicDimension.0": 2, "p2o.DynamicDimension.1": 96, "p2o.DynamicDimension.2": 160},
        ]
    },
    "ch_PP-OCRv4_rec_infer": {
        "bindings": [
            {"p2o.DynamicDimension.0": 1, "x:2": 48, "p2o.DynamicDimension.1": 160},
            {"p2o.DynamicDimension.0": 2, "x:2": 48, "p2o.DynamicDimension.1": 320},
        ]
    },
    "ch_ppocr_mobile_v2.0_cls_infer": {
        "bindings": [{"x:0": 1, "x:2": 48, "x:3": 192}, {"x:0": 3, "x:2": 48, "x:3": 192}]
    },
}


def collect_packaged(col: Collector):
    d = _pkg_dir("silero_vad")
    if d:
        for p in sorted(glob.glob(os.path.join(d, "data", "*.onnx"))):
            name = os.path.basename(p)[:-5]
            col.add("silero-vad", name, p, "silero-vad (PyPI)", hints=SILERO_HINTS.get(name, {}))
    else:
        col.skipped.append({"id": "silero-vad/*", "reason": "package silero-vad not installed"})
    d = _pkg_dir("rapidocr_onnxruntime")
    if d:
        for p in sorted(glob.glob(os.path.join(d, "**", "*.onnx"), recursive=True)):
            name = os.path.basename(p)[:-5]
            col.add("rapidocr", name, p, "rapidocr-onnxruntime (PyPI)", hints=RAPIDOCR_HINTS.get(name, {}))
    else:
        col.skipped.append({"id": "rapidocr/*", "reason": "package rapidocr-onnxruntime not installed"})
    d = _pkg_dir("onnxruntime")
    for p in sorted(glob.glob(os.path.join(d, "datasets", "*.onnx"))):
        name = os.path.basename(p)[:-5]
        col.add("ort-datasets", name, p, "onnxruntime/datasets")


def collect_sklearn(col: Collector):
    from skl2onnx import to_onnx
    from skl2onnx.common.data_types import FloatTensorType
    from sklearn.cluster import KMeans
    from sklearn.datasets import make_classification, make_regression
    from sklearn.decomposition import PCA, TruncatedSVD
    from sklearn.ensemble import GradientBoostingRegressor, RandomForestClassifier
    from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.neural_network import MLPClassifier, MLPRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import MinMaxScaler, PolynomialFeatures, StandardScaler
    from sklearn.svm import SVC
    from sklearn.tree import DecisionTreeRegressor

    Xc, yc = make_classification(n_samples=120, n_features=8, n_informative=5, n_classes=3, random_state=0)
    Xr, yr = make_regression(n_samples=120, n_features=6, random_state=0)
    Xc, Xr = Xc.astype(np.float32), Xr.astype(np.float32)
    cases = [
        ("scaler_logreg", make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)), Xc, yc),
        ("pca_mlp_clf", make_pipeline(StandardScaler(), PCA(4, random_state=0), MLPClassifier(hidden_layer_sizes=(16, 8), max_iter=300, random_state=0)), Xc, yc),
        ("minmax_svc", make_pipeline(MinMaxScaler(), SVC(probability=False, random_state=0)), Xc, yc),
        ("rf_clf", RandomForestClassifier(n_estimators=5, max_depth=4, random_state=0), Xc, yc),
        ("knn_clf", make_pipeline(StandardScaler(), KNeighborsClassifier(3)), Xc, yc),
        ("kmeans", KMeans(4, n_init=2, random_state=0), Xc, None),
        ("poly_ridge", make_pipeline(PolynomialFeatures(2), Ridge()), Xr, yr),
        ("svd_linreg", make_pipeline(TruncatedSVD(3, random_state=0), LinearRegression()), Xr, yr),
        ("mlp_reg", make_pipeline(StandardScaler(), MLPRegressor(hidden_layer_sizes=(12,), max_iter=300, random_state=0)), Xr, yr),
        ("gbr", GradientBoostingRegressor(n_estimators=5, max_depth=3, random_state=0), Xr, yr),
        ("tree_reg", DecisionTreeRegressor(max_depth=4, random_state=0), Xr, yr),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, est, X, y in cases:
            try:
                est.fit(X, y) if y is not None else est.fit(X)
                opts = {id(est): {"zipmap": False}} if hasattr(est, "predict_proba") else None
                onx = to_onnx(
                    est,
                    initial_types=[("X", FloatTensorType([None, X.shape[1]]))],
                    options=opts,
                    target_opset={"": 17, "ai.onnx.ml": 3},
                )
                col.add("sklearn", name, onx, "scikit-learn + skl2onnx, seed 0",
                        hints={"input_scale": float(np.abs(X).max())})
            except Exception as e:
                col.skipped.append({"id": f"sklearn/{name}", "reason": f"export: {type(e).__name__}: {e}"})


def collect_committed(col: Collector):
    """Every model harness/committed/index.json lists, under its family, with its source and hints."""
    root = os.path.join(HERE, "committed")
    index = os.path.join(root, "index.json")
    if not os.path.exists(index):
        col.skipped.append({"id": "committed/*", "reason": "harness/committed/index.json missing"})
        return
    with open(index) as f:
        doc = json.load(f)
    for e in doc.get("models", []):
        col.add(e["family"], e["name"], os.path.join(root, e["path"]), e["source"], hints=e.get("hints") or {})
    for s in doc.get("skipped", []):
        col.skipped.append({"id": f"{s['family']}/{s['name']}", "reason": f"not generated: {s['reason']}"})


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--root", default=HERE)
    ap.add_argument("--no-torch", action="store_true", help="skip torch/transformers exports")
    ap.add_argument("--node-limit", type=int, default=None, help="only the first N node tests (debugging)")
    args = ap.parse_args(argv)
    col = Collector(args.root)
    t0 = time.time()
    steps = [("node tests", lambda: collect_node_tests(col, args.node_limit)),
             ("onnx data", lambda: collect_onnx_data(col)),
             ("packaged", lambda: collect_packaged(col)),
             ("sklearn", lambda: collect_sklearn(col)),
             ("committed", lambda: collect_committed(col))]
    if not args.no_torch:
        def torch_step():
            try:
                import torch  # noqa: F401
            except Exception as e:
                col.skipped.append({"id": "torch/*", "reason": f"torch not importable: {e}"})
                col.skipped.append({"id": "transformers/*", "reason": f"torch not importable: {e}"})
                return
            from conformance import exports_torch

            exports_torch.export_all(col)
        steps.append(("torch", torch_step))

    def ort_step():
        # After the torch step: the torch/transformers exports are optimized here too.
        from conformance import exports_ort

        exports_ort.export_all(col)

    steps.append(("ort-optimized", ort_step))

    def offline_step():
        from conformance import ort_offline

        ort_offline.export_all(col)

    steps.append(("ort-offline", offline_step))
    for label, fn in steps:
        t = time.time()
        try:
            fn()
        except Exception as e:
            traceback.print_exc()
            col.skipped.append({"id": f"{label}/*", "reason": f"{type(e).__name__}: {e}"})
        print(f"collect: {label}: {time.time() - t:.1f}s", file=sys.stderr)
    manifest = {"created": time.strftime("%Y-%m-%dT%H:%M:%S"), "models": col.entries, "skipped": col.skipped,
                "torch": not args.no_torch, "steps": [label for label, _ in steps]}
    os.makedirs(os.path.join(args.root, "models"), exist_ok=True)
    with open(os.path.join(args.root, "models", "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1)
    counts = {}
    for e in col.entries:
        counts[e["family"]] = counts.get(e["family"], 0) + 1
    print(f"collect: {len(col.entries)} models in {time.time() - t0:.1f}s: {json.dumps(counts)}", file=sys.stderr)
    for s in col.skipped:
        print(f"collect: skipped {s['id']}: {s['reason']}", file=sys.stderr)


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    main()
