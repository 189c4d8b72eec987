#!/usr/bin/env python3
"""Checks the issue-37 rules (Optional*, SequenceMap, LinearAttention, the ai.onnx.preview and
ai.onnx.preview.training ops, Attention-23's and RotaryEmbedding-23's input agreements, and the
com.microsoft NhwcConv, NhwcFusedConv, NhwcMaxPool, QLinearConv, GemmFastGelu, GroupNorm,
SkipGroupNorm, BiasSoftmax, TransposeMatMul, DynamicQuantizeLSTM, NGramRepeatBlock, MatMulBnb4,
QuantizeLinear, DequantizeLinear, DecoderMaskedMultiHeadAttention) against a
reference, as the harness does: each case is a one-node model with symbolic dims; the linter's
`--shapes` dims are evaluated at two bindings and compared with the shapes onnxruntime produces
when it runs the node (CPU), or, where onnxruntime has no CPU kernel, with
`onnx.shape_inference.infer_shapes(strict_mode=True)` on the model with the dims bound. Fault
cases must get an error from the linter (E1/E4) and be rejected by the reference.

    harness/.venv/bin/python tools/contrib_rules_check.py target/debug/onnx-bcast-lint \
        [harness/models/onnx-node]

With the directory of ONNX's backend test models, it also compares the output shapes inferred
for the new ops' test models with the outputs recorded beside them.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import onnx
import onnxruntime as ort
import sympy
from onnx import TensorProto as T
from onnx import helper as h
from onnxruntime.tools.symbolic_shape_infer import SymbolicShapeInference

MS = "com.microsoft"
F, U8, I64 = T.FLOAT, T.UINT8, T.INT64
BINDINGS = ({"B": 2, "S": 5, "H": 6, "W": 8, "N": 1}, {"B": 3, "S": 7, "H": 10, "W": 4, "N": 2})


def model(op, inputs, outputs, attrs=None, domain="", opsets=None, inits=(), out_types=None):
    """inputs: (name, elem, dims) with dims of ints/strs, or None for an absent input; outputs
    are float tensors unless `out_types` gives their type protos."""
    vis = [h.make_tensor_value_info(n, e, d) for n, e, d in (i for i in inputs if i) if n not in {t.name for t in inits}]
    names = [i[0] if i else "" for i in inputs]
    node = h.make_node(op, names, outputs, domain=domain, **(attrs or {}))
    types = out_types or [h.make_tensor_type_proto(F, None)] * len(outputs)
    outs = [h.make_value_info(o, t) for o, t in zip(outputs, types)]
    graph = h.make_graph([node], "g", vis, outs, initializer=list(inits))
    imports = [h.make_opsetid(d, v) for d, v in (opsets or {"": 21}).items()]
    if domain and domain not in (opsets or {}):
        imports.append(h.make_opsetid(domain, 1))
    m = h.make_model(graph, opset_imports=imports)
    m.ir_version = 10
    return m


def lint(binary, m):
    with tempfile.NamedTemporaryFile(suffix=".onnx") as f:
        onnx.save(m, f.name)
        out = subprocess.run([binary, "--format", "json", "--shapes", f.name], capture_output=True, text=True)
    report = json.loads(out.stdout)["files"][0]
    return report.get("shapes", {}), [d["code"] for d in report["diagnostics"]]


def evaluate(dim, binding):
    if dim is None or isinstance(dim, int):
        return dim
    expr = re.sub(r"[A-Za-z_][A-Za-z_0-9]*", lambda t: t.group(0) if t.group(0) in ("min", "max") else str(binding[t.group(0)]), dim)
    return eval(expr.replace("/", "//"), {"min": min, "max": max})  # noqa: S307 (the linter's own output)


def bind(m, binding):
    m = onnx.ModelProto.FromString(m.SerializeToString())
    for vi in m.graph.input:
        for d in vi.type.tensor_type.shape.dim:
            if d.dim_param:
                d.dim_value = binding[d.dim_param]
    return m


def feeds(m):
    out = {}
    for vi in m.graph.input:
        t = vi.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        out[vi.name] = (np.random.default_rng(0).random(shape) + 0.5).astype(dtype) if dtype.kind == "f" else np.ones(shape, dtype)
    return out


LACKS = ("NOT_IMPLEMENTED", "not a registered function/op", "Current official support", "Could not find an implementation")


def reference(symbolic, binding):
    """Output shapes at `binding` from onnxruntime (CPU), else from onnxruntime's symbolic shape
    inference (com.microsoft ops without a CPU kernel) or onnx's strict inference; and which."""
    m = bind(symbolic, binding)
    try:
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    except Exception as e:  # noqa: BLE001 (a kernel onnxruntime lacks, or a model it rejects)
        # Fall back only where onnxruntime cannot run the op at all: no CPU kernel, no schema, or
        # an opset newer than it supports (27); any other failure is a real disagreement.
        if not any(why in str(e) for why in LACKS):
            raise
        if m.graph.node[0].domain == MS:
            # NhwcConv, GroupNorm, SkipGroupNorm, BiasSoftmax run on CUDA only: onnxruntime's
            # own symbolic shape inference stands in, on the symbolic model, evaluated here.
            try:
                inferred = SymbolicShapeInference.infer_shapes(symbolic, auto_merge=False, guess_output_rank=False)
            except Exception:  # noqa: BLE001 ("Incomplete symbolic shape inference": no reference)
                return {}, "no reference"
            which = "ort-symbolic"
        else:
            inferred = onnx.shape_inference.infer_shapes(m, strict_mode=True)
            which = "onnx"
        values = {v.name: v for v in list(inferred.graph.value_info) + list(inferred.graph.output)}
        shapes = {}
        for o in m.graph.node[0].output:
            t = values[o].type.tensor_type if o in values else None
            if t is None or not t.HasField("shape"):
                shapes[o] = None
                continue
            shapes[o] = [d.dim_value if d.HasField("dim_value") else sym_value(d.dim_param, binding) for d in t.shape.dim]
        return shapes, which
    results = sess.run(None, feeds(m))
    return {o.name: (list(np.asarray(r).shape) if isinstance(r, (np.ndarray, np.bool_)) else None) for o, r in zip(sess.get_outputs(), results)}, "ort"


def sym_value(expr, binding):
    """A symbolic-inference dim (`floor(H/2) + 1`) at `binding`; None when it is not a formula of
    the bound names (an unknown dim)."""
    if not expr:
        return None
    try:
        names = {k: sympy.Symbol(k) for k in binding}
        value = sympy.sympify(expr, locals=names).subs({names[k]: v for k, v in binding.items()})
    except (sympy.SympifyError, TypeError):
        return None
    return int(value) if value.is_number else None


def scalar(name, elem=F, value=1.0):
    return h.make_tensor(name, elem, [], [value])


CASES = []


def case(name, m, faulty=False):
    CASES.append((name, m, faulty))


# ai.onnx
optional_f = h.make_optional_type_proto(h.make_tensor_type_proto(F, None))
case("Optional-15", model("Optional", [("x", F, ["B", 3])], ["o"], opsets={"": 18}, out_types=[optional_f]))
case("OptionalHasElement-18", model("OptionalHasElement", [("x", F, ["B", 3])], ["o"], opsets={"": 18}, out_types=[h.make_tensor_type_proto(T.BOOL, None)]))
case("OptionalGetElement-18 on a tensor", model("OptionalGetElement", [("x", F, ["B", "S"])], ["o"], opsets={"": 18}))
la = {"q_num_heads": 4, "kv_num_heads": 2, "update_rule": "gated_delta"}
case("LinearAttention-27", model("LinearAttention", [("q", F, ["B", "S", 32]), ("k", F, ["B", "S", 16]), ("v", F, ["B", "S", 24]), ("p", F, ["B", 2, 8, 12]), ("d", F, ["B", "S", 2]), ("b", F, ["B", "S", 1])], ["y", "st"], la, opsets={"": 27}))
case("LinearAttention-27 d_k mismatch", model("LinearAttention", [("q", F, ["B", "S", 32]), ("k", F, ["B", "S", 18]), ("v", F, ["B", "S", 24]), None, ("d", F, ["B", "S", 2]), ("b", F, ["B", "S", 1])], ["y", "st"], la, opsets={"": 27}), True)
# ai.onnx.preview, ai.onnx.preview.training
P, TR = "ai.onnx.preview", "ai.onnx.preview.training"
case("FlexAttention-1", model("FlexAttention", [("q", F, ["B", 4, "S", 8]), ("k", F, ["B", 2, "H", 8]), ("v", F, ["B", 2, "H", 6])], ["y"], domain=P, opsets={"": 23, P: 1}))
case("FlexAttention-1 heads", model("FlexAttention", [("q", F, ["B", 4, "S", 8]), ("k", F, ["B", 3, "H", 8]), ("v", F, ["B", 3, "H", 6])], ["y"], domain=P, opsets={"": 23, P: 1}), True)
opt = [("r", F, []), ("t", I64, [])]
case("Adagrad-1", model("Adagrad", opt + [("x", F, ["B", 4]), ("g", F, ["B", 4]), ("hh", F, ["B", 4])], ["x2", "h2"], domain=TR, opsets={"": 21, TR: 1}))
case("Adam-1", model("Adam", opt + [("x", F, ["S", 4]), ("g", F, ["S", 4]), ("v", F, ["S", 4]), ("hh", F, ["S", 4])], ["x2", "v2", "h2"], domain=TR, opsets={"": 21, TR: 1}))
case("Momentum-1", model("Momentum", opt + [("x", F, ["B", 4]), ("g", F, ["B", 4]), ("v", F, ["B", 4])], ["x2", "v2"], {"alpha": 0.9, "beta": 0.1, "norm_coefficient": 0.0, "mode": "standard"}, domain=TR, opsets={"": 21, TR: 1}))
# com.microsoft
ms = {"": 17, MS: 1}
case("NhwcConv", model("NhwcConv", [("x", F, ["N", "H", "W", 3]), ("w", F, [8, 3, 3, 3]), ("b", F, [8])], ["y"], {"strides": [2, 2], "pads": [1, 1, 1, 1]}, MS, ms))
case("NhwcFusedConv", model("NhwcFusedConv", [("x", T.FLOAT16, ["N", "H", "W", 4]), ("w", T.FLOAT16, [8, 4, 1, 1]), ("b", T.FLOAT16, [8])], ["y"], {"activation": "Relu"}, MS, ms, out_types=[h.make_tensor_type_proto(T.FLOAT16, None)]))
case("GemmFastGelu", model("GemmFastGelu", [("x", F, ["B", "S", 16]), ("w", F, [16, 32]), ("bias", F, [32])], ["y"], {}, MS, ms))
case("GemmFastGelu K", model("GemmFastGelu", [("x", F, ["B", "S", 16]), ("w", F, [15, 32])], ["y"], {}, MS, ms), True)
case("TransposeMatMul", model("TransposeMatMul", [("a", F, ["B", 16, "S"]), ("b", F, [32, 16])], ["y"], {"transA": 1, "transB": 1}, MS, ms))
case("TransposeMatMul K", model("TransposeMatMul", [("a", F, ["B", 16, "S"]), ("b", F, [32, 15])], ["y"], {"transA": 1, "transB": 1}, MS, ms), True)
case("GroupNorm", model("GroupNorm", [("x", F, ["N", "H", "W", 32]), ("g", F, [32]), ("bt", F, [32])], ["y"], {"groups": 8, "activation": 0, "epsilon": 1e-5}, MS, ms))
case("SkipGroupNorm", model("SkipGroupNorm", [("x", F, ["N", "H", "W", 32]), ("g", F, [32]), ("bt", F, [32]), ("s", F, ["N", 32])], ["y", "sum"], {"groups": 8, "activation": 0, "epsilon": 1e-5}, MS, ms))
case("BiasSoftmax", model("BiasSoftmax", [("d", F, ["B", 4, "S", "S"]), ("bias", F, ["B", 1, 1, "S"])], ["y"], {"axis": 3, "is_inner_broadcast": 0}, MS, ms))
q = [("xs", F, []), ("xz", U8, []), None, ("ws", F, []), ("wz", U8, []), ("ys", F, []), ("yz", U8, [])]
qinits = [scalar("xs"), scalar("xz", U8, 0), h.make_tensor("w", U8, [8, 3, 3, 3], [1] * 216), scalar("ws"), scalar("wz", U8, 0), scalar("ys"), scalar("yz", U8, 0)]
qin = [("x", U8, ["N", "H", "W", 3])] + q[:2] + [("w", U8, [8, 3, 3, 3])] + q[3:]
u8 = h.make_tensor_type_proto(U8, None)
case("QLinearConv channels_last", model("QLinearConv", qin, ["y"], {"channels_last": 1, "pads": [1, 1, 1, 1]}, MS, ms, qinits, [u8]))
qbad = [("x", U8, ["N", "H", "W", 4])] + q[:2] + [("w", U8, [8, 3, 3, 3])] + q[3:]
case("QLinearConv channels_last channels", model("QLinearConv", qbad, ["y"], {"channels_last": 1}, MS, ms, qinits, [u8]), True)
case("NhwcMaxPool", model("NhwcMaxPool", [("x", U8, ["N", "H", "W", 5])], ["y"], {"kernel_shape": [2, 2], "strides": [2, 2]}, MS, ms, out_types=[u8]))

# issue 37, round 3: the Attention-23 and RotaryEmbedding-23 input agreements, and the contrib ops
# onnxruntime's quantization tools and beam-search converter write.
at = {"": 23}
case("Attention-23 GQA", model("Attention", [("q", F, ["B", 4, "S", 8]), ("k", F, ["B", 2, "H", 8]), ("v", F, ["B", 2, "H", 6])], ["y"], opsets=at))
case("Attention-23 q heads % kv heads", model("Attention", [("q", F, ["B", 3, "S", 8]), ("k", F, ["B", 2, "H", 8]), ("v", F, ["B", 2, "H", 8])], ["y"], opsets=at), True)
case("Attention-23 3-D hidden % heads", model("Attention", [("q", F, ["B", "S", 30]), ("k", F, ["B", "H", 16]), ("v", F, ["B", "H", 16])], ["y"], {"q_num_heads": 4, "kv_num_heads": 2}, opsets=at), True)
case("Attention-23 past", model("Attention", [("q", F, ["B", 4, "S", 8]), ("k", F, ["B", 2, "H", 8]), ("v", F, ["B", 2, "H", 8]), None, ("pk", F, ["B", 2, 3, 8]), ("pv", F, ["B", 2, 3, 8])], ["y", "pk2", "pv2"], opsets=at))
case("Attention-23 past head size", model("Attention", [("q", F, ["B", 4, "S", 8]), ("k", F, ["B", 2, "H", 8]), ("v", F, ["B", 2, "H", 8]), None, ("pk", F, ["B", 2, 3, 6]), ("pv", F, ["B", 2, 3, 8])], ["y", "pk2", "pv2"], opsets=at), True)
case("RotaryEmbedding-23", model("RotaryEmbedding", [("x", F, ["B", 4, "S", 8]), ("c", F, ["B", "S", 4]), ("s", F, ["B", "S", 4])], ["y"], opsets=at))
case("RotaryEmbedding-23 cache width", model("RotaryEmbedding", [("x", F, ["B", 4, "S", 8]), ("c", F, ["B", "S", 3]), ("s", F, ["B", "S", 3])], ["y"], opsets=at), True)
I8 = T.INT8
lstm = [("x", F, ["S", "B", 3]), ("w", I8, [1, 3, 16]), ("r", I8, [1, 4, 16]), None, None, None, None, None, ("ws", F, [1]), ("wz", I8, [1]), ("rs", F, [1]), ("rz", I8, [1])]
case("DynamicQuantizeLSTM", model("DynamicQuantizeLSTM", lstm, ["y", "yh", "yc"], {"hidden_size": 4}, MS, ms))
lstm_bad = lstm[:1] + [("w", I8, [1, 16, 3])] + lstm[2:]
case("DynamicQuantizeLSTM W not transposed", model("DynamicQuantizeLSTM", lstm_bad, ["y", "yh", "yc"], {"hidden_size": 4}, MS, ms), True)
case("NGramRepeatBlock", model("NGramRepeatBlock", [("ids", I64, ["B", "S"]), ("sc", F, ["B", 10])], ["y"], {"ngram_size": 2}, MS, ms))
case("NGramRepeatBlock batch", model("NGramRepeatBlock", [("ids", I64, [2, "S"]), ("sc", F, [3, 10])], ["y"], {"ngram_size": 2}, MS, ms), True)
bnb4 = {"K": 32, "N": 16, "block_size": 16, "quant_type": 1}
case("MatMulBnb4", model("MatMulBnb4", [("a", F, ["B", "S", 32]), ("b", U8, [256]), ("m", F, [32])], ["y"], bnb4, MS, ms))
case("MatMulBnb4 K", model("MatMulBnb4", [("a", F, ["B", "S", 33]), ("b", U8, [256]), ("m", F, [32])], ["y"], bnb4, MS, ms), True)
case("QuantizeLinear (com.microsoft)", model("QuantizeLinear", [("x", F, ["B", 3, "S"]), ("s", F, [3]), ("z", U8, [3])], ["y"], {"axis": 1}, MS, ms, out_types=[u8]))
case("DequantizeLinear (com.microsoft) per-axis", model("DequantizeLinear", [("x", U8, ["B", 3, "S"]), ("s", F, [4]), ("z", U8, [4])], ["y"], {"axis": 1}, MS, ms), True)

# issue 37 item 2: DecoderMaskedMultiHeadAttention runs on CPU (one token; a past only with a
# shared buffer, `past_sequence_length` its filled length).
dm = [("q", F, ["B", 1, 32]), ("k", F, ["B", 1, 32]), ("v", F, ["B", 1, 32])]
dm_past = dm + [None, None, ("pk", F, ["B", 4, "S", 8]), ("pv", F, ["B", 4, "S", 8]), ("psl", T.INT32, [1])]
dm_share = {"num_heads": 4, "past_present_share_buffer": 1}
case("DecoderMaskedMultiHeadAttention", model("DecoderMaskedMultiHeadAttention", dm, ["y"], {"num_heads": 4}, MS, ms))
case("DecoderMaskedMultiHeadAttention shared past", model("DecoderMaskedMultiHeadAttention", dm_past, ["y", "pk2", "pv2"], dm_share, MS, ms))
dm_cross = [("q", F, ["B", 1, 32]), ("k", F, ["B", 4, "S", 8]), ("v", F, ["B", 4, "S", 8])]
case("DecoderMaskedMultiHeadAttention cross", model("DecoderMaskedMultiHeadAttention", dm_cross, ["y"], {"num_heads": 4}, MS, ms))
dm_two = [("q", F, ["B", 2, 32]), ("k", F, ["B", 2, 32]), ("v", F, ["B", 2, 32])]
case("DecoderMaskedMultiHeadAttention two tokens", model("DecoderMaskedMultiHeadAttention", dm_two, ["y"], {"num_heads": 4}, MS, ms), True)
dm_30 = [("q", F, ["B", 1, 30]), ("k", F, ["B", 1, 30]), ("v", F, ["B", 1, 30])]
case("DecoderMaskedMultiHeadAttention hidden % heads", model("DecoderMaskedMultiHeadAttention", dm_30, ["y"], {"num_heads": 4}, MS, ms), True)
dm_head = dm_past[:6] + [("pv", F, ["B", 4, "S", 4])] + dm_past[7:]
case("DecoderMaskedMultiHeadAttention past_value head size", model("DecoderMaskedMultiHeadAttention", dm_head, ["y", "pk2", "pv2"], dm_share, MS, ms), True)


NEW_OPS = ("optional", "sequence_map", "linear_attention", "flexattention", "adagrad", "adam", "momentum")


def backend(binary, directory):
    """ONNX's backend test models of the new ops (`<name>.onnx` beside `<name>.data.pkl`, the
    harness's copy): every output shape the linter infers must be the recorded output's."""
    import glob
    import pickle

    dims = known = wrong = 0
    for path in sorted(glob.glob(os.path.join(directory, "test_*.onnx"))):
        if not any(op in os.path.basename(path) for op in NEW_OPS):
            continue
        with open(path[: -len(".onnx")] + ".data.pkl", "rb") as f:
            outputs = pickle.load(f)["outputs"]  # noqa: S301 (the harness's own recording)
        shapes, codes = lint(binary, onnx.load(path))
        for name, array in outputs.items():
            if not isinstance(array, np.ndarray):
                continue
            got = shapes.get(name)
            for i, want in enumerate(array.shape):
                dims += 1
                have = got[i] if got is not None and i < len(got) else None
                if isinstance(have, int):
                    known += 1
                    wrong += have != want
                    if have != want:
                        print(f"BAD {os.path.basename(path)} {name}[{i}] {have} vs {want}")
        if any(c in ("E1", "E4", "W1", "W4", "W2") for c in codes):
            wrong += 1
            print(f"BAD {os.path.basename(path)}: {codes}")
    print(json.dumps({"backend_dims": dims, "known": known, "wrong": wrong}))
    return wrong


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/onnx-bcast-lint")
    if len(sys.argv) > 2:
        sys.argv[2] = os.path.abspath(sys.argv[2])
    # onnxruntime's symbolic inference leaves a temporary model in the working directory.
    os.chdir(tempfile.mkdtemp())
    totals = {"dims": 0, "known": 0, "wrong": 0, "faults": 0, "found": 0}
    for name, m, faulty in CASES:
        shapes, codes = lint(binary, m)
        errors = [c for c in codes if c in ("E1", "E4")]
        if faulty:
            totals["faults"] += 1
            try:
                reference(m, BINDINGS[0])
                rejected = False
            except Exception:  # noqa: BLE001 (the reference rejects the fault)
                rejected = True
            totals["found"] += bool(errors) and rejected
            print(f"{'ok ' if errors and rejected else 'BAD'} {name}: linter {codes}, reference rejects: {rejected}")
            continue
        if errors:
            totals["wrong"] += 1
            print(f"BAD {name}: false alarm {codes}")
        notes = []
        for binding in BINDINGS:
            ref, which = reference(m, binding)
            for out, dims in ref.items():
                got = shapes.get(out)
                if dims is None:
                    continue
                for i, want in enumerate(dims):
                    totals["dims"] += 1
                    have = evaluate(got[i], binding) if got is not None and i < len(got) else None
                    if have is None:
                        continue
                    totals["known"] += 1
                    if have != want:
                        totals["wrong"] += 1
                        notes.append(f"{out}[{i}] {have} vs {want}")
        print(f"{'BAD' if notes else 'ok '} {name} ({which}): {shapes} {' '.join(notes)}")
    print(json.dumps(totals))
    if len(sys.argv) > 2:
        totals["wrong"] += backend(binary, os.path.abspath(sys.argv[2]))
    return 1 if totals["wrong"] or totals["found"] != totals["faults"] else 0


if __name__ == "__main__":
    sys.exit(main())
