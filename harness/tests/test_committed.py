"""The committed models (harness/committed/): listed, present, reproducible, and optimized offline."""
import json
import os

import onnx
import pytest

from conformance.expect import STEP_OF_FAMILY
from generate import patterns
from generate.common import COMMITTED, INDEX


def _index():
    with open(INDEX) as f:
        return json.load(f)


def test_every_listed_model_is_committed_and_loads():
    doc = _index()
    assert doc["models"], "index.json lists no model"
    for e in doc["models"]:
        model = onnx.load(os.path.join(COMMITTED, e["path"]))
        assert model.graph.node, e["path"]
        # A family absent from an older manifest is not a regression: expect.py must know its step.
        assert STEP_OF_FAMILY.get(e["family"]) == "committed", e["family"]


def test_the_patterns_are_what_their_generator_builds():
    built = {"tv_pad32_static": lambda: patterns.tv_pad32([3, 300, 250], 1),
             "tv_pad32_dynamic": lambda: patterns.tv_pad32([3, "height", "width"], 1),
             "wav2vec2_posconv": patterns.wav2vec2_posconv, "sdpa_repeat_kv": patterns.sdpa_repeat_kv,
             "moe_tile": patterns.moe_tile, "vit_interpolate_pos": patterns.vit_interpolate_pos,
             "tf2onnx_split_pads": patterns.tf2onnx_split_pads}
    listed = {e["name"]: e for e in _index()["models"] if e["family"] == "patterns"}
    assert set(listed) == set(built)
    for name, make in built.items():
        with open(os.path.join(COMMITTED, listed[name]["path"]), "rb") as f:
            assert f.read() == make().SerializeToString(), name


def test_offline_optimizer_fuses_only_from_the_extended_level():
    pytest.importorskip("onnxruntime")
    from conformance import exports_ort, ort_offline

    ops = {level: {n.op_type for n in ort_offline.optimize(exports_ort.cnn_float(), level).graph.node}
           for level in ort_offline.LEVELS}
    assert "FusedConv" not in ops["basic"] and "Conv" in ops["basic"]
    assert "FusedConv" in ops["extended"]
