"""Jobs run inside pool workers."""
from __future__ import annotations

import os

import onnx

from .score import onnx_infer
from .truth import main_graph_values, safe_truth


def truth_and_onnx(job):
    """Ground truth, ONNX's own inference and the loader counts for one model."""
    entry, root = job["entry"], job["root"]
    truth = safe_truth(entry, root)
    model = onnx.load(os.path.join(root, entry["path"]))
    _, _, prod = main_graph_values(model)
    inf = onnx_infer(model)
    return {
        "id": entry["id"],
        "truth": truth,
        "onnx": inf,
        "producers": {k: list(v) for k, v in prod.items()},
        "node_inputs": [list(n.input) for n in model.graph.node],
    }


def fault_ort_check(job):
    from .faults import ort_check

    return ort_check(job)
