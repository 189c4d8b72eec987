#!/usr/bin/env python3
"""Checks the generation-loop rules (com.microsoft `GreedySearch`, `Sampling`, `BeamSearch`;
`src/ops/contrib/generation.rs`) against onnxruntime, with `contrib_rules_check.py`'s helpers.
Each case is one generation node around the smallest GPT-2-style decoder subgraph (inputs
`input_ids` (B, S) int32, `position_ids`, `attention_mask`, `past_0` (2, B, N, P, H); outputs
`logits` (B, S, V), `present_0` (2, B, N, P+S, H)), with symbolic batch and prompt length. The
scalar inputs the rule reads as values (`max_length`, `num_beams`, `num_return_sequences`) are
initializers, so the model is written once per binding; the linter's `--shapes` dims, evaluated
at that binding, are compared with the shapes onnxruntime's CPU kernel returns. Fault cases must
get an error from the linter (E1/E4) and be rejected by onnxruntime.

    harness/.venv/bin/python tools/contrib_rules_check_gen.py target/debug/onnx-bcast-lint

Not compared: `Sampling`'s `filtered_logits`, which onnxruntime's CPU kernel does not return.
Not here: `WhisperBeamSearch` and `BeamSearch` with `model_type` 1 or 2 (they need an encoder
subgraph as well as the decoder).
"""
import json
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto as T
from onnx import helper as h

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contrib_rules_check as base  # noqa: E402 (the shared helpers, beside this file)

MS, F, I32 = base.MS, base.F, T.INT32
VOCAB, HEADS, HEAD = 8, 1, 2
BINDINGS = ({"B": 2, "S": 3, "M": 7, "K": 3, "R": 2}, {"B": 3, "S": 5, "M": 9, "K": 4, "R": 3})


def decoder():
    """logits = an embedding of the token ids; present = past ++ a per-token projection along the
    sequence axis, so the loop's caches grow as onnxruntime expects."""
    rng = np.random.default_rng(0)
    emb = h.make_tensor("emb", F, [VOCAB, VOCAB], rng.standard_normal(VOCAB * VOCAB).tolist())
    kv = h.make_tensor("kv", F, [VOCAB, 2 * HEADS * HEAD], rng.standard_normal(VOCAB * 2 * HEADS * HEAD).tolist())
    shape = h.make_tensor("kv_shape", T.INT64, [5], [0, 0, 2, HEADS, HEAD])
    nodes = [
        h.make_node("Gather", ["emb", "input_ids"], ["logits"]),
        h.make_node("Gather", ["kv", "input_ids"], ["kv_flat"]),
        h.make_node("Reshape", ["kv_flat", "kv_shape"], ["kv_5d"]),
        h.make_node("Transpose", ["kv_5d"], ["kv_new"], perm=[2, 0, 3, 1, 4]),
        h.make_node("Concat", ["past_0", "kv_new"], ["present_0"], axis=3),
    ]
    inputs = [
        h.make_tensor_value_info("input_ids", I32, ["b", "s"]),
        h.make_tensor_value_info("position_ids", I32, ["b", "s"]),
        h.make_tensor_value_info("attention_mask", I32, ["b", "t"]),
        h.make_tensor_value_info("past_0", F, [2, "b", HEADS, "p", HEAD]),
    ]
    outputs = [
        h.make_tensor_value_info("logits", F, ["b", "s", VOCAB]),
        h.make_tensor_value_info("present_0", F, [2, "b", HEADS, "t", HEAD]),
    ]
    return h.make_graph(nodes, "decoder", inputs, outputs, initializer=[emb, kv, shape])


def i32(name, v):
    return h.make_tensor(name, I32, [1], [v])


def f32(name, v):
    return h.make_tensor(name, F, [1], [v])


def generation(op, binding, values, outputs, extra=None, ids=("B", "S"), attrs=None):
    """One `op` node: `values` maps an input slot to (name, initializer value or binding key);
    `extra` maps a slot to a graph input (name, elem, dims)."""
    names = {
        "GreedySearch": ["input_ids", "max_length", "min_length", "repetition_penalty", "vocab_mask", "prefix_vocab_mask", "attention_mask"],
        "Sampling": ["input_ids", "max_length", "min_length", "repetition_penalty", "vocab_mask", "prefix_vocab_mask", "attention_mask", "presence_mask", "seed"],
        "BeamSearch": ["input_ids", "max_length", "min_length", "num_beams", "num_return_sequences", "length_penalty", "repetition_penalty", "vocab_mask", "prefix_vocab_mask", "attention_mask"],
    }[op]
    slots = [None] * len(names)
    inits, vis = [], [h.make_tensor_value_info("input_ids", I32, list(ids))]
    slots[0] = "input_ids"
    for slot, value in values.items():
        v = binding[value] if isinstance(value, str) else value
        inits.append(f32(names[slot], v) if isinstance(v, float) else i32(names[slot], v))
        slots[slot] = names[slot]
    for slot, (name, elem, dims) in (extra or {}).items():
        vis.append(h.make_tensor_value_info(name, elem, dims))
        slots[slot] = name
    while slots and slots[-1] is None:
        slots.pop()
    a = {"decoder": decoder(), "eos_token_id": VOCAB - 1, "pad_token_id": 0, "model_type": 0, **(attrs or {})}
    node = h.make_node(op, [s or "" for s in slots], outputs, domain=MS, **a)
    outs = [h.make_tensor_value_info(o, I32 if o == "sequences" else F, None) for o in outputs]
    graph = h.make_graph([node], "g", vis, outs, initializer=inits)
    m = h.make_model(graph, opset_imports=[h.make_opsetid("", 17), h.make_opsetid(MS, 1)])
    m.ir_version = 8
    return m


def run(m):
    options = ort.SessionOptions()
    options.log_severity_level = 3
    sess = ort.InferenceSession(m.SerializeToString(), options, providers=["CPUExecutionProvider"])
    results = sess.run(None, base.feeds(m))
    # Sampling's filtered_logits comes back as None on CPU: nothing to compare.
    return {o.name: list(r.shape) for o, r in zip(sess.get_outputs(), results) if isinstance(r, np.ndarray)}


CASES = []


def case(name, build, faulty=False):
    """`build(binding)` writes the model for one binding."""
    CASES.append((name, build, faulty))


# onnxruntime 1.31's BeamSearch kernel needs min_length, which its schema calls optional (without
# it the run fails with "Node input max_length is required").
beam_values = {1: "M", 2: 1, 3: "K", 4: "R", 5: 1.0}
case("GreedySearch", lambda b: generation("GreedySearch", b, {1: "M"}, ["sequences"]))
case("GreedySearch vocab_size attribute", lambda b: generation("GreedySearch", b, {1: "M", 3: 1.0}, ["sequences"], attrs={"vocab_size": VOCAB}))
case("GreedySearch attention_mask", lambda b: generation("GreedySearch", b, {1: "M"}, ["sequences"], {6: ("mask", I32, ["B", "S"])}))
case("Sampling", lambda b: generation("Sampling", b, {1: "M"}, ["sequences"], attrs={"vocab_size": VOCAB}))
case("Sampling filtered_logits", lambda b: generation("Sampling", b, {1: "M"}, ["sequences", "filtered_logits"], attrs={"vocab_size": VOCAB}))
case("Sampling presence_mask", lambda b: generation("Sampling", b, {1: "M"}, ["sequences"], {7: ("presence", I32, ["B", VOCAB])}, attrs={"vocab_size": VOCAB}))
case("BeamSearch", lambda b: generation("BeamSearch", b, beam_values, ["sequences", "sequences_scores"]))
case("BeamSearch scores", lambda b: generation("BeamSearch", b, beam_values, ["sequences", "sequences_scores", "scores"], attrs={"vocab_size": VOCAB}))
case("BeamSearch masks", lambda b: generation("BeamSearch", b, beam_values, ["sequences", "sequences_scores"], {7: ("vmask", I32, [VOCAB]), 9: ("mask", I32, ["B", "S"])}, attrs={"vocab_size": VOCAB}))
# Only beam search caps max_length at 4096: greedy search and sampling run to 5000.
case("GreedySearch max_length above 4096", lambda b: generation("GreedySearch", b, {1: 5000}, ["sequences"]))
case("Sampling max_length above 4096", lambda b: generation("Sampling", b, {1: 5000}, ["sequences"], attrs={"vocab_size": VOCAB}))
# Faults: values and mask shapes the kernels' input checks refuse.
case("GreedySearch max_length not above the prompt", lambda b: generation("GreedySearch", b, {1: 4}, ["sequences"], ids=("B", 4)), True)
case("GreedySearch max_length 0", lambda b: generation("GreedySearch", b, {1: 0}, ["sequences"]), True)
case("BeamSearch max_length above 4096", lambda b: generation("BeamSearch", b, {**beam_values, 1: 5000}, ["sequences", "sequences_scores"]), True)
case("GreedySearch attention_mask rank", lambda b: generation("GreedySearch", b, {1: "M"}, ["sequences"], {6: ("mask", I32, ["B", "S", 1])}), True)
case("BeamSearch attention_mask length", lambda b: generation("BeamSearch", b, beam_values, ["sequences", "sequences_scores"], {9: ("mask", I32, [2, 4])}, ids=(2, 3)), True)
case("Sampling presence_mask batch", lambda b: generation("Sampling", b, {1: "M"}, ["sequences"], {7: ("presence", I32, [4, VOCAB])}, ids=(2, "S"), attrs={"vocab_size": VOCAB}), True)
case("BeamSearch num_return_sequences above num_beams", lambda b: generation("BeamSearch", b, {1: "M", 2: 1, 3: 2, 4: 3, 5: 1.0}, ["sequences", "sequences_scores"]), True)
case("BeamSearch num_beams above 128", lambda b: generation("BeamSearch", b, {1: "M", 2: 1, 3: 129, 4: 1, 5: 1.0}, ["sequences", "sequences_scores"]), True)
case("BeamSearch vocab_mask length", lambda b: generation("BeamSearch", b, beam_values, ["sequences", "sequences_scores"], {7: ("vmask", I32, [VOCAB - 1])}, attrs={"vocab_size": VOCAB}), True)


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/onnx-bcast-lint")
    start = time.monotonic()
    totals = {"cases": len(CASES), "dims": 0, "known": 0, "wrong": 0, "faults": 0, "found": 0}
    for name, build, faulty in CASES:
        if faulty:
            m = build(BINDINGS[0])
            _, codes = base.lint(binary, m)
            errors = [c for c in codes if c in ("E1", "E4")]
            try:
                run(base.bind(m, BINDINGS[0]))
                rejected = ""
            except Exception as e:  # noqa: BLE001 (onnxruntime rejects the fault)
                rejected = str(e).splitlines()[0][-160:]
            totals["faults"] += 1
            totals["found"] += bool(errors) and bool(rejected)
            print(f"{'ok ' if errors and rejected else 'BAD'} {name}: linter {codes}, onnxruntime: {rejected or 'ran'}")
            continue
        notes, seen = [], {}
        for binding in BINDINGS:
            m = build(binding)
            shapes, codes = base.lint(binary, m)
            seen = shapes
            if any(c in ("E1", "E4") for c in codes):
                totals["wrong"] += 1
                notes.append(f"false alarm {codes}")
            for out, dims in run(base.bind(m, binding)).items():
                got = shapes.get(out)
                for i, want in enumerate(dims):
                    totals["dims"] += 1
                    have = base.evaluate(got[i], binding) if got is not None and i < len(got) else None
                    if have is None:
                        continue
                    totals["known"] += 1
                    if have != want:
                        totals["wrong"] += 1
                        notes.append(f"{out}[{i}] {have} vs {want} at {binding}")
        print(f"{'BAD' if notes else 'ok '} {name}: {seen} {' '.join(notes)}")
    totals["seconds"] = round(time.monotonic() - start, 1)
    print(json.dumps(totals))
    return 1 if totals["wrong"] or totals["found"] != totals["faults"] else 0


if __name__ == "__main__":
    sys.exit(main())
