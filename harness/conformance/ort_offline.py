"""The `ort-offline` family: onnxruntime's offline graph optimizer (CPU) applied to the harness's
CNN exports, at each level (`SessionOptions.optimized_model_filepath` with ORT_ENABLE_BASIC,
ORT_ENABLE_EXTENDED, ORT_ENABLE_ALL), as a user saving an optimized model gets it: FusedConv,
FusedGemm, folded shape subgraphs, and at ALL the NCHWc layout ops where the CPU has them.

Built at collection time from models that need no torch (the committed `torch-cnn` exports,
exports_ort.cnn_float and onnx-light's SqueezeNet), with the onnxruntime that constraints.txt pins.
"""
from __future__ import annotations

import os
import tempfile

import onnx

FAMILY = "ort-offline"
LEVELS = ("basic", "extended", "all")
# A static CNN ONNX ships (onnx-light), optimized as it is: the layout ops of ORT_ENABLE_ALL. (Its
# weights are ConstantOfShape nodes the optimizer folds into initializers: 3.7 MB per level here,
# 100 MB for light_resnet50, which is left out.)
LIGHT = ("onnx-light/light_squeezenet",)


def optimize(model, level):
    """The model onnxruntime writes after optimizing `model` at `level` on the CPU."""
    import onnxruntime as ort

    levels = {"basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
              "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
              "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL}
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.onnx"), os.path.join(d, "out.onnx")
        onnx.save(model, src)
        so = ort.SessionOptions()
        so.graph_optimization_level = levels[level]
        so.optimized_model_filepath = dst
        so.log_severity_level = 3
        ort.InferenceSession(src, so, providers=["CPUExecutionProvider"])
        return onnx.load(dst)


def export_all(col):
    """Adds each source CNN at each level; a model that cannot be built is recorded as skipped."""
    from . import exports_ort

    sources = [("cnn_float", exports_ort.cnn_float, "exports_ort.cnn_float (onnx.helper, seed 5)", {})]
    for entry in list(col.entries):
        if entry["family"] == "torch-cnn" or entry["id"] in LIGHT:
            path = os.path.join(col.root, entry["path"])
            sources.append((entry["id"].split("/", 1)[1], lambda p=path: onnx.load(p), entry["id"],
                            entry.get("hints") or {}))
    for name, load, what, hints in sources:
        for level in LEVELS:
            mid = f"{name}_{level}"
            try:
                col.add(FAMILY, mid, optimize(load(), level),
                        f"{what} through onnxruntime's offline optimizer (ORT_ENABLE_{level.upper()}, CPU)",
                        hints=hints)
            except Exception as e:  # recorded, not dropped
                col.skipped.append({"id": f"{FAMILY}/{mid}", "reason": f"{type(e).__name__}: {str(e)[:300]}"})
