"""The `ort-optimized` family: transformer models at the level onnxruntime's own tools write them.

Built with onnx.helper from fixed seeds (no torch needed, so `setup.sh --no-torch` rebuilds them):
  * fused graphs as `onnxruntime.transformers.optimizer.optimize_model` leaves them (com.microsoft
    EmbedLayerNormalization, Attention, SkipLayerNormalization, BiasGelu/FastGelu/Gelu/QuickGelu,
    MultiHeadAttention, GroupQueryAttention, RotaryEmbedding, SimplifiedLayerNormalization,
    SkipSimplifiedLayerNormalization, BiasAdd, BiasSplitGelu, FusedMatMul);
  * an unfused BERT encoder (the pattern exporters write) passed through `optimize_model`;
  * `quantize_dynamic` versions (DynamicQuantizeMatMul, QAttention, MatMulInteger,
    DynamicQuantizeLinear), a QOperator `quantize_static` CNN (QLinearConv/Add/Mul/..., QGemm)
    and 4-bit weight-only quantization (MatMulNBits, GatherBlockQuantized);
  * the torch and transformers models already collected (when torch was available) through
    `optimize_model` for their model types (family `ort-optimized-torch`).
  * one model of the forms the others do not write (`variants`: packed-QKV GroupQueryAttention,
    DynamicQuantizeMatMul, MatMulIntegerToFloat, FusedMatMul transposes, a 3-D mask and an
    attention_bias on Attention).
Every model has a dynamic sequence (or image) size, and a dynamic batch where the kernels take more
than one prompt; the harness runs it with two bindings.
"""
from __future__ import annotations

import os
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FAMILY = "ort-optimized"
# The torch/transformers exports through optimize_model: a family of its own, optional as theirs
# (expect.py), since a run without torch has none.
TORCH_FAMILY = "ort-optimized-torch"
MS = "com.microsoft"
F = TensorProto.FLOAT
I32 = TensorProto.INT32
I64 = TensorProto.INT64


class _G:
    """A small graph builder: seeded initializers, nodes, unique names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def w(self, *shape, scale=0.1, dtype=np.float32):
        name = f"w{len(self.inits)}"
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(dtype), name))
        return name

    def const(self, values, dtype):
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(values, dtype=dtype), name))
        return name

    def op(self, op_type, inputs, n_out=1, domain="", **attrs):
        self.n += 1
        outs = [f"{op_type.lower()}_{self.n}_{k}" for k in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=f"{op_type}_{self.n}", domain=domain, **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, name, inputs, outputs, opset=17):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset), helper.make_opsetid(MS, 1)])
        m.ir_version = 8
        return m


def _out(name, rank_dims=None):
    return helper.make_tensor_value_info(name, F, rank_dims)


def bert_fused(seed=0, hidden=32, heads=4, layers=2):
    """EmbedLayerNormalization, Attention (mask index and raw 2-D mask), SkipLayerNormalization
    with bias, BiasGelu, FastGelu, Gelu: BERT as optimize_model(model_type='bert') fuses it."""
    g = _G(seed)
    emb, mask_index = g.op("EmbedLayerNormalization",
                           ["input_ids", "segment_ids", g.w(50, hidden), g.w(64, hidden), g.w(2, hidden),
                            g.w(hidden, scale=1.0), g.w(hidden), "attention_mask"], 2, MS, epsilon=1e-12)
    x = emb
    for layer in range(layers):
        mask = mask_index if layer == 0 else "attention_mask"
        att = g.op("Attention", [x, g.w(hidden, 3 * hidden), g.w(3 * hidden), mask], 1, MS, num_heads=heads)
        proj = g.op("MatMul", [att, g.w(hidden, hidden)])
        ln1 = g.op("SkipLayerNormalization", [proj, x, g.w(hidden, scale=1.0), g.w(hidden), g.w(hidden)], 1, MS,
                   epsilon=1e-12)
        up = g.op("MatMul", [ln1, g.w(hidden, 4 * hidden)])
        if layer == 0:
            act = g.op("BiasGelu", [up, g.w(4 * hidden)], 1, MS)
        else:
            act = g.op("FastGelu", [up, g.w(4 * hidden)], 1, MS)
            act = g.op("Gelu", [act], 1, MS)
        down = g.op("MatMul", [act, g.w(4 * hidden, hidden)])
        outs = g.op("SkipLayerNormalization", [down, ln1, g.w(hidden, scale=1.0), g.w(hidden), g.w(hidden)], 4, MS,
                    epsilon=1e-12)
        x = outs[0]
        g.nodes[-1].output[1] = ""
        g.nodes[-1].output[2] = ""
    ins = [helper.make_tensor_value_info(n, I32, ["batch", "sequence"])
           for n in ("input_ids", "segment_ids", "attention_mask")]
    return g.model("bert_fused", ins, [_out(x, ["batch", "sequence", hidden])])


def gpt2_fused(seed=1, hidden=32, heads=4):
    """GPT-2 with past: unidirectional Attention with past/present, LayerNormalization,
    FastGelu, SkipLayerNormalization, an attention_bias input."""
    g = _G(seed)
    pos = g.op("Gather", [g.w(64, hidden), "position_ids"])
    tok = g.op("Gather", [g.w(50, hidden), "input_ids"])
    x = g.op("Add", [tok, pos])
    ln = g.op("LayerNormalization", [x, g.w(hidden, scale=1.0), g.w(hidden)], epsilon=1e-5)
    att, present = g.op("Attention", [ln, g.w(hidden, 3 * hidden), g.w(3 * hidden), "", "past"], 2, MS,
                        num_heads=heads, unidirectional=1)
    proj = g.op("MatMul", [att, g.w(hidden, hidden)])
    ln2 = g.op("SkipLayerNormalization", [proj, x, g.w(hidden, scale=1.0), g.w(hidden), g.w(hidden)], 4, MS)
    g.nodes[-1].output[1] = ""
    g.nodes[-1].output[2] = ""
    up = g.op("MatMul", [ln2[0], g.w(hidden, 4 * hidden)])
    act = g.op("FastGelu", [up, g.w(4 * hidden)], 1, MS)
    down = g.op("MatMul", [act, g.w(4 * hidden, hidden)])
    y = g.op("Add", [down, ln2[3]])
    ins = [helper.make_tensor_value_info("input_ids", I64, ["batch", "sequence"]),
           helper.make_tensor_value_info("position_ids", I64, ["batch", "sequence"]),
           helper.make_tensor_value_info("past", F, [2, "batch", heads, "past_sequence", hidden // heads])]
    return g.model("gpt2_fused", ins, [_out(y), _out(present)])


def llama_fused(seed=2, hidden=32, heads=4, kv_heads=2):
    """LLaMA-style decoder with past: SimplifiedLayerNormalization, RotaryEmbedding,
    GroupQueryAttention (seqlens_k and total_sequence_length computed in the graph),
    SkipSimplifiedLayerNormalization, QuickGelu gating."""
    g = _G(seed)
    head = hidden // heads
    x = g.op("Gather", [g.w(50, hidden), "input_ids"])
    ln = g.op("SimplifiedLayerNormalization", [x, g.w(hidden, scale=1.0)], axis=-1, epsilon=1e-6)
    q = g.op("MatMul", [ln, g.w(hidden, hidden)])
    k = g.op("MatMul", [ln, g.w(hidden, kv_heads * head)])
    v = g.op("MatMul", [ln, g.w(hidden, kv_heads * head)])
    cos = g.w(64, head // 2, scale=1.0)
    sin = g.w(64, head // 2, scale=1.0)
    q = g.op("RotaryEmbedding", [q, "position_ids", cos, sin], 1, MS, num_heads=heads)
    k = g.op("RotaryEmbedding", [k, "position_ids", cos, sin], 1, MS, num_heads=kv_heads)
    # total = past + sequence, seqlens_k = total - 1 for every batch row (no padding).
    past_len = g.op("Gather", [g.op("Shape", ["past_key"]), g.const(2, np.int64)])
    seq_len = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const(1, np.int64)])
    batch = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const([0], np.int64)])
    total = g.op("Cast", [g.op("Add", [past_len, seq_len])], to=I32)
    seqlens = g.op("Expand", [g.op("Sub", [total, g.const(1, np.int32)]), batch])
    att, pk, pv = g.op("GroupQueryAttention", [q, k, v, "past_key", "past_value", seqlens, total], 3, MS,
                       num_heads=heads, kv_num_heads=kv_heads)
    proj = g.op("MatMul", [att, g.w(hidden, hidden)])
    outs = g.op("SkipSimplifiedLayerNormalization", [proj, x, g.w(hidden, scale=1.0)], 4, MS, epsilon=1e-6)
    g.nodes[-1].output[1] = ""
    g.nodes[-1].output[2] = ""
    gate = g.op("QuickGelu", [g.op("MatMul", [outs[0], g.w(hidden, 2 * hidden)])], 1, MS, alpha=1.702)
    up = g.op("MatMul", [outs[0], g.w(hidden, 2 * hidden)])
    down = g.op("MatMul", [g.op("Mul", [gate, up]), g.w(2 * hidden, hidden)])
    y = g.op("Add", [down, outs[3]])
    past = ["batch", kv_heads, "past_sequence", head]
    ins = [helper.make_tensor_value_info("input_ids", I64, ["batch", "sequence"]),
           helper.make_tensor_value_info("position_ids", I64, ["batch", "sequence"]),
           helper.make_tensor_value_info("past_key", F, past),
           helper.make_tensor_value_info("past_value", F, past)]
    return g.model("llama_fused", ins, [_out(y), _out(pk), _out(pv)])


def mha_fused(seed=3, hidden=32, heads=4, channels=16):
    """Cross attention with MultiHeadAttention (bias, key padding mask), self attention with
    past and present, FusedMatMul with transposes. (BiasAdd and BiasSplitGelu, which optimize_model
    writes for diffusion models, have CUDA kernels only: a CPU run cannot check them.)"""
    g = _G(seed)
    q = g.op("MatMul", ["query", g.w(hidden, hidden)])
    k = g.op("MatMul", ["memory", g.w(hidden, hidden)])
    v = g.op("MatMul", ["memory", g.w(hidden, hidden)])
    cross = g.op("MultiHeadAttention", [q, k, v, g.w(3 * hidden), "key_padding_mask"], 1, MS, num_heads=heads)
    q2, k2, v2 = (g.op("MatMul", [cross, g.w(hidden, hidden)]) for _ in range(3))
    self_att, present_k, present_v = g.op("MultiHeadAttention", [q2, k2, v2, "", "", "", "past_key", "past_value"],
                                          3, MS, num_heads=heads)
    scores = g.op("FusedMatMul", [self_att, cross], 1, MS, transB=1, alpha=0.125)
    mixed = g.op("FusedMatMul", [scores, cross], 1, MS)
    c = g.op("MatMul", [mixed, g.w(hidden, channels)])
    y = g.op("Add", [c, g.op("MatMul", [self_att, g.w(hidden, channels)])])
    ins = [helper.make_tensor_value_info("query", F, ["batch", "sequence", hidden]),
           helper.make_tensor_value_info("memory", F, ["batch", "memory_sequence", hidden]),
           helper.make_tensor_value_info("key_padding_mask", I32, ["batch", "memory_sequence"]),
           helper.make_tensor_value_info("past_key", F, ["batch", heads, "past_sequence", hidden // heads]),
           helper.make_tensor_value_info("past_value", F, ["batch", heads, "past_sequence", hidden // heads])]
    return g.model("mha_fused", ins, [_out(y), _out(present_k), _out(present_v)])


def variants(seed=7, hidden=32, heads=4, kv_heads=2):
    """Forms the other models do not write: GroupQueryAttention on packed QKV without past,
    DynamicQuantizeMatMul and MatMulIntegerToFloat with a bias, FusedMatMul with transA,
    Attention with a 3-D mask and an attention_bias, QuickGelu."""
    g = _G(seed)
    head = hidden // heads
    qkv = g.op("MatMul", ["x", g.w(hidden, (heads + 2 * kv_heads) * head)])
    seq_len = g.op("Gather", [g.op("Shape", ["x"]), g.const(1, np.int64)])
    batch = g.op("Gather", [g.op("Shape", ["x"]), g.const([0], np.int64)])
    total = g.op("Cast", [seq_len], to=I32)
    seqlens = g.op("Expand", [g.op("Sub", [total, g.const(1, np.int32)]), batch])
    gqa = g.op("GroupQueryAttention", [qkv, "", "", "", "", seqlens, total], 1, MS,
               num_heads=heads, kv_num_heads=kv_heads)
    w8 = g.const(np.random.default_rng(seed).integers(0, 255, (hidden, 16)), np.uint8)
    dq = g.op("DynamicQuantizeMatMul", [gqa, w8, g.const([0.01], np.float32), g.const([3], np.uint8),
                                         g.w(16)], 1, MS)
    a_q, a_scale, a_zp = g.op("DynamicQuantizeLinear", [gqa], 3)
    mi = g.op("MatMulIntegerToFloat", [a_q, w8, a_scale, g.const([0.01], np.float32), a_zp,
                                       g.const([3], np.uint8), g.w(16)], 1, MS)
    both = g.op("QuickGelu", [g.op("Add", [dq, mi])], 1, MS)
    gram = g.op("FusedMatMul", [both, both], 1, MS, transA=1)  # (b, 16, s) x (b, s, 16)
    back = g.op("MatMul", [g.op("FusedMatMul", [both, gram], 1, MS, transB=1, alpha=0.5), g.w(16, hidden)])
    att = g.op("Attention", [back, g.w(hidden, 3 * hidden), g.w(3 * hidden), "mask3", "", "attention_bias"], 1, MS,
               num_heads=heads)
    ins = [helper.make_tensor_value_info("x", F, [1, "sequence", hidden]),
           helper.make_tensor_value_info("mask3", I32, [1, "sequence", "sequence"]),
           helper.make_tensor_value_info("attention_bias", F, [1, heads, "sequence", "sequence"])]
    return g.model("variants", ins, [_out(att)])


def bert_unfused(seed=4, hidden=32, heads=4, layers=2):
    """A BERT encoder as the torch exporter writes it (embeddings, LayerNormalization decomposed,
    attention with Reshape/Transpose and an additive mask, Erf Gelu), for optimize_model."""
    g = _G(seed)
    head = hidden // heads

    def layer_norm(x):
        mean = g.op("ReduceMean", [x], axes=[-1])
        d = g.op("Sub", [x, mean])
        var = g.op("ReduceMean", [g.op("Pow", [d, g.const(2.0, np.float32)])], axes=[-1])
        std = g.op("Sqrt", [g.op("Add", [var, g.const(1e-12, np.float32)])])
        return g.op("Add", [g.op("Mul", [g.op("Div", [d, std]), g.w(hidden, scale=1.0)]), g.w(hidden)])

    def linear(x, n_in, n_out):
        return g.op("Add", [g.w(n_out), g.op("MatMul", [x, g.w(n_in, n_out)])])

    seq = g.op("Gather", [g.op("Shape", ["input_ids"]), g.const(1, np.int64)])
    positions = g.op("Unsqueeze", [g.op("Range", [g.const(0, np.int64), seq, g.const(1, np.int64)]),
                                   g.const([0], np.int64)])
    emb = g.op("Add", [g.op("Add", [g.op("Gather", [g.w(50, hidden), "input_ids"]),
                                    g.op("Gather", [g.w(2, hidden), "token_type_ids"])]),
                       g.op("Gather", [g.w(64, hidden), positions])])
    x = layer_norm(emb)
    m = g.op("Unsqueeze", [g.op("Unsqueeze", ["attention_mask", g.const([1], np.int64)]), g.const([2], np.int64)])
    m = g.op("Cast", [m], to=F)
    m = g.op("Mul", [g.op("Sub", [g.const(1.0, np.float32), m]), g.const(-10000.0, np.float32)])
    shape4 = g.const([0, 0, heads, head], np.int64)
    shape3 = g.const([0, 0, hidden], np.int64)
    for _ in range(layers):
        q = g.op("Transpose", [g.op("Reshape", [linear(x, hidden, hidden), shape4])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [linear(x, hidden, hidden), shape4])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [linear(x, hidden, hidden), shape4])], perm=[0, 2, 1, 3])
        s = g.op("Div", [g.op("MatMul", [q, k]), g.const(float(np.sqrt(head)), np.float32)])
        p = g.op("Softmax", [g.op("Add", [s, m])], axis=-1)
        ctx = g.op("Reshape", [g.op("Transpose", [g.op("MatMul", [p, v])], perm=[0, 2, 1, 3]), shape3])
        x = layer_norm(g.op("Add", [linear(ctx, hidden, hidden), x]))
        h = linear(x, hidden, 4 * hidden)
        gelu = g.op("Mul", [g.op("Mul", [h, g.op("Add", [g.op("Erf", [g.op("Div", [h, g.const(1.4142135, np.float32)])]),
                                                          g.const(1.0, np.float32)])]),
                            g.const(0.5, np.float32)])
        x = layer_norm(g.op("Add", [linear(gelu, 4 * hidden, hidden), x]))
    ins = [helper.make_tensor_value_info(n, I64, ["batch", "sequence"])
           for n in ("input_ids", "token_type_ids", "attention_mask")]
    return g.model("bert_unfused", ins, [_out(x, ["batch", "sequence", hidden])], opset=13)


def cnn_float(seed=5):
    """A small CNN (Conv, Add, Mul, Sigmoid, LeakyRelu, AveragePool, Concat, GlobalAveragePool,
    Gemm) for a QOperator `quantize_static`."""
    g = _G(seed)
    c1 = g.op("Relu", [g.op("Conv", ["image", g.w(8, 3, 3, 3), g.w(8)], pads=[1, 1, 1, 1])])
    c2 = g.op("Conv", [c1, g.w(8, 8, 3, 3), g.w(8)], pads=[1, 1, 1, 1])
    s = g.op("Add", [c1, c2])
    s = g.op("Mul", [s, g.op("Sigmoid", [s])])
    s = g.op("LeakyRelu", [s], alpha=0.1)
    p = g.op("AveragePool", [s], kernel_shape=[2, 2], strides=[2, 2])
    c3 = g.op("Conv", [p, g.w(8, 8, 1, 1), g.w(8)])
    cat = g.op("Concat", [p, c3], axis=1)
    gap = g.op("Flatten", [g.op("GlobalAveragePool", [cat])])
    y = g.op("Gemm", [gap, g.w(10, 16), g.w(10)], transB=1)
    ins = [helper.make_tensor_value_info("image", F, ["batch", 3, "height", "width"])]
    return g.model("cnn_float", ins, [_out(y)], opset=13)


def _quantize_dynamic(model, **kw):
    from onnxruntime.quantization import quantize_dynamic

    # optimize_model writes com.microsoft nodes without importing the domain (onnxruntime runs
    # them as version 1); the quantizer's onnx inference refuses such a model, so the copy it is
    # given imports the domain, as a user fixing that error would. The *_optimized models keep
    # the import missing, so that form stays measured.
    uses = {n.domain for n in model.graph.node}
    if "com.microsoft" in uses and all(o.domain != "com.microsoft" for o in model.opset_import):
        model = onnx.ModelProto.FromString(model.SerializeToString())
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.onnx"), os.path.join(d, "out.onnx")
        onnx.save(model, src)
        # Contrib-op outputs have no type for onnx's inference: name the float default.
        extra = dict(kw.pop("extra_options", {}), DefaultTensorType=TensorProto.FLOAT)
        quantize_dynamic(src, dst, extra_options=extra, **kw)
        return onnx.load(dst)


def _quantize_static_qoperator(model, feeds):
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, quantize_static

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(feeds)

        def get_next(self):
            return next(self.it, None)

    # optimize_model writes com.microsoft nodes without importing the domain (onnxruntime runs
    # them as version 1); the quantizer's onnx inference refuses such a model, so the copy it is
    # given imports the domain, as a user fixing that error would. The *_optimized models keep
    # the import missing, so that form stays measured.
    uses = {n.domain for n in model.graph.node}
    if "com.microsoft" in uses and all(o.domain != "com.microsoft" for o in model.opset_import):
        model = onnx.ModelProto.FromString(model.SerializeToString())
        model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.onnx"), os.path.join(d, "out.onnx")
        onnx.save(model, src)
        quantize_static(src, dst, Reader(), quant_format=QuantFormat.QOperator, per_channel=False)
        return onnx.load(dst)


def _weight_only_4bit(model):
    from onnxruntime.quantization.matmul_nbits_quantizer import DefaultWeightOnlyQuantConfig, MatMulNBitsQuantizer

    try:
        cfg = DefaultWeightOnlyQuantConfig(block_size=16, is_symmetric=False,
                                           op_types_to_quantize=("MatMul", "Gather"), quant_axes=(("Gather", 1),))
    except TypeError:
        cfg = DefaultWeightOnlyQuantConfig(block_size=16, is_symmetric=False)
    q = MatMulNBitsQuantizer(model, algo_config=cfg)
    q.process()
    return q.model.model


def _optimize(model, model_type, heads, hidden):
    from onnxruntime.transformers.optimizer import optimize_model

    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "in.onnx")
        onnx.save(model, src)
        opt = optimize_model(src, model_type=model_type, num_heads=heads, hidden_size=hidden, opt_level=0)
        return opt.model


# The torch/transformers exports (exports_torch.py) and the model type optimize_model takes.
TORCH_TYPES = {"transformers/bert": ("bert", 4, 32), "transformers/distilbert": ("bert", 4, 32),
               "transformers/gpt2": ("gpt2", 4, 32), "torch/encoder": ("bert", 4, 32),
               "torch/attention": ("bert", 3, 24), "torch/mlp": ("bert", 0, 0)}


def export_all(col):
    """Adds every ort-optimized model to the collector; a model that cannot be built is recorded
    as skipped with the reason."""
    import warnings

    warnings.filterwarnings("ignore")
    built = {}

    def add(name, make, source, hints=None, family=FAMILY):
        try:
            model = make()
            col.add(family, name, model, source, hints=hints)
            built[name] = model
        except Exception as e:  # recorded, not dropped
            col.skipped.append({"id": f"{family}/{name}", "reason": f"{type(e).__name__}: {str(e)[:300]}"})

    helper_src = "onnx.helper, seed {}, fused as optimize_model writes it"
    add("bert_fused", bert_fused, helper_src.format(0))
    add("gpt2_fused", gpt2_fused, helper_src.format(1))
    # GroupQueryAttention takes a prompt with a past only for one sequence: one binding decodes
    # one token for two sequences, the other continues a single prompt.
    gqa = {"bindings": [{"batch": 2, "sequence": 1, "past_sequence": 7},
                        {"batch": 1, "sequence": 5, "past_sequence": 3}]}
    add("llama_fused", llama_fused, helper_src.format(2), gqa)
    add("mha_fused", mha_fused, helper_src.format(3))
    add("variants", variants, helper_src.format(7))
    add("bert_optimized", lambda: _optimize(bert_unfused(), "bert", 4, 32),
        "onnx.helper BERT (seed 4) through optimize_model(model_type='bert')")
    add("bert_fused_qdynamic", lambda: _quantize_dynamic(built["bert_fused"]),
        "bert_fused through quantize_dynamic")
    add("gpt2_fused_qdynamic", lambda: _quantize_dynamic(built["gpt2_fused"]),
        "gpt2_fused through quantize_dynamic")
    add("bert_optimized_qdynamic", lambda: _quantize_dynamic(built["bert_optimized"]),
        "bert_optimized through quantize_dynamic")
    add("llama_fused_int4", lambda: _weight_only_4bit(built["llama_fused"]),
        "llama_fused through MatMulNBitsQuantizer (4 bits, block 16)", gqa)
    rng = np.random.default_rng(6)
    feeds = [{"image": rng.standard_normal((1, 3, 16, 16)).astype(np.float32)} for _ in range(4)]
    add("cnn_qoperator", lambda: _quantize_static_qoperator(cnn_float(), feeds),
        "onnx.helper CNN (seed 5) through quantize_static(QOperator)")
    for entry in list(col.entries):
        kind = TORCH_TYPES.get(entry["id"])
        if kind is None:
            continue
        model_type, heads, hidden = kind
        base = entry["id"].replace("/", "_")
        path = os.path.join(col.root, entry["path"])
        add(f"{base}_optimized", lambda: _optimize(onnx.load(path), model_type, heads, hidden),
            f"{entry['id']} through optimize_model(model_type='{model_type}')", family=TORCH_FAMILY)
        add(f"{base}_qdynamic", lambda: _quantize_dynamic(built[f"{base}_optimized"]),
            f"{entry['id']} optimized, through quantize_dynamic", family=TORCH_FAMILY)
