#!/usr/bin/env python3
"""Synthetic but realistic transformer models for the benchmark (issue 6).

Each model is a stack of encoder blocks over symbolic `batch` and `seq` dims: an embedding
Gather, then per block LayerNormalization, Q/K/V MatMul + bias Add, Reshape and Transpose into
heads, scaled scores, a padding mask Unsqueezed and Expanded to a shape computed with
Shape/Gather/Unsqueeze/Concat, Where, Softmax, the context MatMul back through Transpose and
Reshape, the output projection, residual Adds and a ReLU feed-forward. 37 nodes per block.

    bench/.venv/bin/python bench/gen_models.py            # all models into bench/models/
    bench/.venv/bin/python bench/gen_models.py 10k own_10k   # some of them

Models:
- tx_10k, tx_100k, tx_1m: 10k, 100k and 1M nodes. Like ALBERT, the blocks share one small set of
  weights, so the file is dominated by nodes (about 140 bytes a node).
- own_10k, own_100k, own_1m: the same node counts, but every block has its own 16 weights (0.43
  initializers a node, as in real exports), kept small (d_model 8, ff 16) so the 1M model stays
  near 140 MB: the cost measured is the initializers' count, not their bytes.
- big_inline: about 1,100 nodes (30 blocks, d_model 1024, ff 4096, vocab 16000) with about
  1.5 GB of real float32 weights inline; big_external: the same graph with every weight moved to
  `big_external.data` through `onnx.external_data_helper` (the linter must never open it).

Deterministic: fixed IR version 9, opset 17 and random seed.
"""

import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, external_data_helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
OPSET = 17
IR = 9
NODES_PER_BLOCK = 37


def const(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


class Builder:
    """Accumulates nodes with unique names, like an exporter's `/encoder/layer.3/...`."""

    def __init__(self):
        self.nodes = []

    def add(self, op, inputs, name, **attrs):
        out = name + "_out"
        self.nodes.append(helper.make_node(op, inputs, [out], name=name, **attrs))
        return out


def block(b, x, i, w, heads, d_model):
    """One encoder block; `w(key)` names the block's (or the shared) weight `key`."""
    p = f"/layer.{i}"
    h = b.add("LayerNormalization", [x, w("ln1_g"), w("ln1_b")], p + "/ln1", axis=-1)
    proj = {}
    for part, perm in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
        m = b.add("MatMul", [h, w("w" + part)], f"{p}/attn/{part}/MatMul")
        a = b.add("Add", [m, w("b" + part)], f"{p}/attn/{part}/Add")
        r = b.add("Reshape", [a, "heads_shape"], f"{p}/attn/{part}/Reshape")
        proj[part] = b.add("Transpose", [r], f"{p}/attn/{part}/Transpose", perm=perm)
    scores = b.add("MatMul", [proj["q"], proj["k"]], p + "/attn/scores")
    scaled = b.add("Div", [scores, "scale"], p + "/attn/scale")
    # The padding mask [batch, seq] -> [batch, 1, 1, seq] -> [batch, heads, seq, seq], with the
    # target computed from the activations' shape as exporters write it.
    shape = b.add("Shape", [x], p + "/mask/Shape")
    bat = b.add("Gather", [shape, "idx0"], p + "/mask/Gather_batch", axis=0)
    seq = b.add("Gather", [shape, "idx1"], p + "/mask/Gather_seq", axis=0)
    bat1 = b.add("Unsqueeze", [bat, "axes0"], p + "/mask/Unsqueeze_batch")
    seq1 = b.add("Unsqueeze", [seq, "axes0"], p + "/mask/Unsqueeze_seq")
    target = b.add("Concat", [bat1, "num_heads", seq1, seq1], p + "/mask/Concat", axis=0)
    mask = b.add("Expand", ["mask4", target], p + "/mask/Expand")
    masked = b.add("Where", [mask, scaled, "neg_inf"], p + "/attn/Where")
    probs = b.add("Softmax", [masked], p + "/attn/Softmax", axis=-1)
    ctx = b.add("MatMul", [probs, proj["v"]], p + "/attn/context")
    ctx_t = b.add("Transpose", [ctx], p + "/attn/context/Transpose", perm=[0, 2, 1, 3])
    merged = b.add("Reshape", [ctx_t, "model_shape"], p + "/attn/context/Reshape")
    o = b.add("MatMul", [merged, w("wo")], p + "/attn/out/MatMul")
    o = b.add("Add", [o, w("bo")], p + "/attn/out/Add")
    x = b.add("Add", [x, o], p + "/attn/residual")
    h = b.add("LayerNormalization", [x, w("ln2_g"), w("ln2_b")], p + "/ln2", axis=-1)
    f = b.add("MatMul", [h, w("w1")], p + "/ffn/in/MatMul")
    f = b.add("Add", [f, w("b1")], p + "/ffn/in/Add")
    f = b.add("Relu", [f], p + "/ffn/Relu")
    f = b.add("MatMul", [f, w("w2")], p + "/ffn/out/MatMul")
    f = b.add("Add", [f, w("b2")], p + "/ffn/out/Add")
    return b.add("Add", [x, f], p + "/ffn/residual")


def weights(rng, prefix, d_model, d_ff):
    f32 = np.float32

    def rand(*shape):
        return rng.standard_normal(shape, dtype=f32) * f32(0.02)

    return {
        f"{prefix}ln1_g": np.ones(d_model, f32),
        f"{prefix}ln1_b": np.zeros(d_model, f32),
        f"{prefix}wq": rand(d_model, d_model),
        f"{prefix}bq": rand(d_model),
        f"{prefix}wk": rand(d_model, d_model),
        f"{prefix}bk": rand(d_model),
        f"{prefix}wv": rand(d_model, d_model),
        f"{prefix}bv": rand(d_model),
        f"{prefix}wo": rand(d_model, d_model),
        f"{prefix}bo": rand(d_model),
        f"{prefix}ln2_g": np.ones(d_model, f32),
        f"{prefix}ln2_b": np.zeros(d_model, f32),
        f"{prefix}w1": rand(d_model, d_ff),
        f"{prefix}b1": rand(d_ff),
        f"{prefix}w2": rand(d_ff, d_model),
        f"{prefix}b2": rand(d_model),
    }


def transformer(blocks, d_model, d_ff, heads, vocab, shared, seed=0):
    rng = np.random.default_rng(seed)
    b = Builder()
    inits = {
        "embedding": rng.standard_normal((vocab, d_model), dtype=np.float32) * np.float32(0.02),
        "heads_shape": np.array([0, 0, heads, d_model // heads], np.int64),
        "model_shape": np.array([0, 0, d_model], np.int64),
        "scale": np.array(np.sqrt(d_model // heads), np.float32),
        "idx0": np.array(0, np.int64),
        "idx1": np.array(1, np.int64),
        "axes0": np.array([0], np.int64),
        "axes12": np.array([1, 2], np.int64),
        "num_heads": np.array([heads], np.int64),
        "neg_inf": np.array(-1e4, np.float32),
    }
    if shared:
        inits.update(weights(rng, "shared/", d_model, d_ff))
    x = b.add("Gather", ["embedding", "input_ids"], "/embeddings/Gather", axis=0)
    b.add("Unsqueeze", ["attention_mask", "axes12"], "/mask/Unsqueeze")
    b.nodes[-1].output[0] = "mask4"
    for i in range(blocks):
        if shared:
            def w(key):
                return "shared/" + key
        else:
            prefix = f"layer.{i}/"
            inits.update(weights(rng, prefix, d_model, d_ff))

            def w(key, prefix=prefix):
                return prefix + key
        x = block(b, x, i, w, heads, d_model)
    b.add("LayerNormalization", [x, w("ln1_g"), w("ln1_b")], "/final_ln", axis=-1)
    b.nodes[-1].output[0] = "last_hidden_state"
    graph = helper.make_graph(
        b.nodes,
        "encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.BOOL, ["batch", "seq"]),
        ],
        [
            helper.make_tensor_value_info(
                "last_hidden_state", TensorProto.FLOAT, ["batch", "seq", d_model]
            )
        ],
        [const(name, array) for name, array in inits.items()],
    )
    model = helper.make_model(
        graph,
        producer_name="onnx-bcast-lint bench/gen_models.py",
        opset_imports=[helper.make_opsetid("", OPSET)],
        ir_version=IR,
    )
    return model


def blocks_for(nodes):
    return max(1, round((nodes - 3) / NODES_PER_BLOCK))


def small(name, nodes):
    model = transformer(blocks_for(nodes), d_model=64, d_ff=256, heads=4, vocab=1000, shared=True)
    save_small(name, nodes, model)


def own(name, nodes):
    model = transformer(blocks_for(nodes), d_model=8, d_ff=16, heads=2, vocab=1000, shared=False)
    save_small(name, nodes, model)


def save_small(name, nodes, model):
    path = os.path.join(OUT, name + ".onnx")
    onnx.save(model, path)
    if nodes <= 10_000:
        onnx.checker.check_model(path, full_check=True)
    print(f"{path}: {len(model.graph.node)} nodes, {os.path.getsize(path)} bytes")


def big():
    model = transformer(30, d_model=1024, d_ff=4096, heads=16, vocab=16000, shared=False)
    inline = os.path.join(OUT, "big_inline.onnx")
    onnx.save(model, inline)
    print(f"{inline}: {len(model.graph.node)} nodes, {os.path.getsize(inline)} bytes")
    external = os.path.join(OUT, "big_external.onnx")
    data = "big_external.data"
    external_data_helper.convert_model_to_external_data(
        model, all_tensors_to_one_file=True, location=data, size_threshold=1024
    )
    onnx.save(model, external)
    onnx.checker.check_model(external, full_check=True)
    print(
        f"{external}: {os.path.getsize(external)} bytes + "
        f"{os.path.getsize(os.path.join(OUT, data))} bytes of external data"
    )


SIZES = {"10k": 10_000, "100k": 100_000, "1m": 1_000_000}


def main(argv):
    os.makedirs(OUT, exist_ok=True)
    wanted = argv or ["10k", "100k", "1m", "own_10k", "own_100k", "own_1m", "big"]
    for which in wanted:
        if which.startswith("own_") and which[4:] in SIZES:
            own(which, SIZES[which[4:]])
        elif which == "10k":
            small("tx_10k", 10_000)
        elif which == "100k":
            small("tx_100k", 100_000)
        elif which == "1m":
            small("tx_1m", 1_000_000)
        elif which == "big":
            big()
        else:
            sys.exit(f"unknown model {which!r}: 10k, 100k, 1m, own_10k, own_100k, own_1m or big")


if __name__ == "__main__":
    main(sys.argv[1:])
