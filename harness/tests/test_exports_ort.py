"""The ort-optimized family: its fused models run in onnxruntime under two bindings, and the
ratchet does not count the family missing from a collection older than its step."""
import numpy as np
import pytest

from conformance import exports_ort
from conformance.expect import check, collected
from conformance.truth import make_inputs, run_ort

BINDINGS = {
    "bert_fused": [{"batch": 2, "sequence": 5}, {"batch": 3, "sequence": 6}],
    "gpt2_fused": [{"batch": 2, "sequence": 5, "past_sequence": 7}, {"batch": 3, "sequence": 1, "past_sequence": 0}],
    "llama_fused": [{"batch": 2, "sequence": 1, "past_sequence": 7}, {"batch": 1, "sequence": 5, "past_sequence": 3}],
    "mha_fused": [{"batch": 2, "sequence": 5, "memory_sequence": 7, "past_sequence": 4},
                  {"batch": 1, "sequence": 3, "memory_sequence": 2, "past_sequence": 0}],
    "variants": [{"sequence": 5}, {"sequence": 3}],
}


@pytest.mark.parametrize("name", sorted(BINDINGS))
def test_fused_models_run_with_two_bindings(name):
    model = getattr(exports_ort, name)()
    ops = {n.op_type for n in model.graph.node if n.domain == exports_ort.MS}
    assert ops, "a fused model holds com.microsoft ops"
    for env in BINDINGS[name]:
        feeds = make_inputs(model, env, {"hints": {}}, np.random.default_rng(0))
        shapes = run_ort(model, feeds)
        out = model.graph.output[0].name
        assert shapes[out][1] == env["sequence"]


def test_missing_family_is_forgiven_only_before_its_step():
    old = {"models": {"ort-optimized/bert_fused": {"known": 55, "all_correct": True, "clean": True}}, "faults": {}}
    new = {"models": {}, "faults": {}}
    assert not collected("ort-optimized", {"steps": ["node tests"]})
    assert check(old, new, {"steps": ["node tests"]}, partial=False) == []
    problems = check(old, new, {"steps": ["node tests", "ort-optimized"]}, partial=False)
    assert problems == ["ort-optimized/bert_fused: recorded model missing from this run"]
    assert collected("onnx-node", {})
