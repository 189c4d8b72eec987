#!/usr/bin/env python3
"""Checks the rules of the newer com.microsoft attention / sequence / MoE ops (issue 37 item 2:
QMoE, PagedAttention, SparsePagedAttention, GatedDeltaNet, LinearAttentionGate,
VarlenCausalConvWithState, GemmaRotaryEmbedding, MRotaryEmbedding, GatedRMSNorm,
BranchwiseRMSNorm, HyperConnectionPreMix/PostMix, EngramGate, NGramHashMapping,
VarlenNGramHashMapping, SparseAttentionIndexer, PackedSparseAttentionIndexer,
DynamicSparseAttention; and the older SparseAttention and DecoderMaskedSelfAttention) against
onnxruntime, as `contrib_rules_check.py` does and with its helpers: each case is a one-node
model with symbolic dims, the linter's `--shapes` dims are evaluated at two bindings and
compared with the shapes onnxruntime produces when it runs the node on CPU. Where onnxruntime
1.31 has no CPU kernel for the op, the reference is onnxruntime's own graph-level shape
inference: every output is declared with a sentinel shape, and the shape onnxruntime infers is
read from its "Error merging shape info" warning (a child process, so its log is captured).
Fault cases must get an error from the linter (E1/E4) and be rejected by the reference (the
kernel's run, or onnxruntime's inference for CUDA-only ops).

    harness/.venv/bin/python tools/contrib_rules_check_3a.py target/debug/onnx-bcast-lint
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
from onnx import TensorProto as T
from onnx import helper as h
from onnxruntime.capi import onnxruntime_pybind11_state as C

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from contrib_rules_check import MS, bind, evaluate, lint, model  # noqa: E402

F, H16, I32, I64, U8 = T.FLOAT, T.FLOAT16, T.INT32, T.INT64, T.UINT8
# C1 stands for B + 1 (a cumulative-length vector), K for the token count T = B * S.
BINDINGS = (
    {"B": 2, "S": 5, "T": 10, "C1": 3, "P": 3, "M": 16},
    {"B": 3, "S": 4, "T": 12, "C1": 4, "P": 2, "M": 12},
)
CPU_KERNELS = {k.op_name for k in C.get_all_opkernel_def() if k.domain == MS and k.provider == "CPUExecutionProvider"}
SENTINEL = 987654321


def typed(elem):
    return h.make_tensor_type_proto(elem, None)


def ms(op, inputs, outputs, attrs=None):
    """outputs: names (float) or (name, elem)."""
    outs = [o if isinstance(o, tuple) else (o, F) for o in outputs]
    return model(op, inputs, [n for n, _ in outs], attrs, MS, {"": 21, MS: 1}, out_types=[typed(e) for _, e in outs])


def values(m, binding, ints):
    """Feeds: random floats; integer inputs ones unless `ints` gives a function of the binding."""
    out = {}
    for vi in m.graph.input:
        t = vi.type.tensor_type
        shape = [d.dim_value for d in t.shape.dim]
        dtype = onnx.helper.tensor_dtype_to_np_dtype(t.elem_type)
        if vi.name in ints:
            out[vi.name] = np.array(ints[vi.name](binding), dtype).reshape(shape)
        elif dtype.kind == "f":
            out[vi.name] = (np.random.default_rng(0).random(shape) + 0.5).astype(dtype)
        else:
            out[vi.name] = np.ones(shape, dtype)
    return out


def run_cpu(m, binding, ints, shared):
    """Output shapes from onnxruntime's CPU kernel; `shared` maps outputs onto the inputs whose
    buffer they must reuse (SparseAttention's KV cache)."""
    sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    feed = values(m, binding, ints)
    if not shared:
        results = sess.run(None, feed)
        return {o.name: list(np.asarray(r).shape) for o, r in zip(sess.get_outputs(), results)}
    io = sess.io_binding()
    held = {n: ort.OrtValue.ortvalue_from_numpy(x) for n, x in feed.items()}
    for n, x in held.items():
        io.bind_ortvalue_input(n, x)
    for o in sess.get_outputs():
        if o.name in shared:
            io.bind_ortvalue_output(o.name, held[shared[o.name]])
        else:
            io.bind_output(o.name)
    sess.run_with_iobinding(io)
    return {o.name: list(r.shape()) for o, r in zip(sess.get_outputs(), io.get_outputs())}


CHILD = """import onnxruntime as ort, sys
so = ort.SessionOptions(); so.log_severity_level = 1
try:
    ort.InferenceSession(sys.argv[1], so, providers=["CPUExecutionProvider"])
except Exception as e:
    print("ERR", str(e).replace(chr(10), " "))
"""


def ort_inferred(m):
    """onnxruntime's graph-level inferred output shapes (None where it infers none) and whether
    its shape inference rejected the model."""
    m = onnx.ModelProto.FromString(m.SerializeToString())
    for o in m.graph.output:
        o.type.tensor_type.ClearField("shape")
        o.type.tensor_type.shape.dim.add().dim_value = SENTINEL
    with tempfile.NamedTemporaryFile(suffix=".onnx", delete=False) as f:
        f.write(m.SerializeToString())
    try:
        p = subprocess.run([sys.executable, "-c", CHILD, f.name], capture_output=True, text=True, check=False)
    finally:
        os.unlink(f.name)
    shapes = {o.name: None for o in m.graph.output}
    for line in (p.stderr + p.stdout).splitlines():
        found = re.search(r"output\. '([^']+)' source:\{([^}]*)\} target:", line)
        if found:
            shapes[found.group(1)] = [int(d) if int(d) >= 0 else None for d in found.group(2).split(",") if d]
    rejected = "ShapeInferenceError" in p.stdout
    return shapes, rejected


def reference(m, binding, ints, shared):
    """(shapes, which, rejected) at `binding`."""
    bound = bind(m, binding)
    if m.graph.node[0].op_type in CPU_KERNELS:
        try:
            return run_cpu(bound, binding, ints, shared), "ort", False
        except Exception as e:  # noqa: BLE001 (the kernel rejects the model)
            return {}, f"ort: {str(e).splitlines()[0][:160]}", True
    shapes, rejected = ort_inferred(bound)
    return shapes, "ort-inference", rejected


CASES = []


def case(name, m, faulty=False, ints=None, shared=None):
    CASES.append((name, m, faulty, ints or {}, shared or {}))


# QMoE (CPU): E = 4, hidden 8, inter 16, 4-bit weights.
qmoe_ok = [("x", F, ["T", 8]), ("r", F, ["T", 4]), ("w1", U8, [4, 16, 4]), ("s1", F, [4, 16]), None, ("w2", U8, [4, 8, 8]), ("s2", F, [4, 8])]
case("QMoE", ms("QMoE", qmoe_ok, ["y"], {"k": 2}))
case("QMoE dense", ms("QMoE", [("x", F, ["B", "S", 8]), ("r", F, ["T", 4])] + qmoe_ok[2:], ["y"], {"k": 2}))
case("QMoE router experts", ms("QMoE", [qmoe_ok[0], ("r", F, ["T", 5])] + qmoe_ok[2:], ["y"], {"k": 2}), True)
case("QMoE fc2 hidden", ms("QMoE", qmoe_ok[:5] + [("w2", U8, [4, 9, 8]), ("s2", F, [4, 9])], ["y"], {"k": 2}), True)
case("QMoE fused swiglu rows", ms("QMoE", qmoe_ok, ["y"], {"k": 2, "activation_type": "swiglu", "swiglu_fusion": 1}), True)

# LinearAttentionGate, GatedRMSNorm (CPU).
gate_in = [("a", F, ["B", "S", 4]), ("dt", F, [4]), ("ds", F, [4]), ("b", F, ["B", "S", 4])]
case("LinearAttentionGate", ms("LinearAttentionGate", gate_in, ["d", "be"]))
case("LinearAttentionGate dt_bias", ms("LinearAttentionGate", [gate_in[0], ("dt", F, [3])] + gate_in[2:], ["d", "be"]), True)
case("GatedRMSNorm", ms("GatedRMSNorm", [("x", F, ["B", "S", 32]), ("sc", F, [8]), ("g", F, ["B", "S", 32])], ["y"]))
case("GatedRMSNorm group", ms("GatedRMSNorm", [("x", F, ["B", "S", 32]), ("sc", F, [5]), ("g", F, ["B", "S", 32])], ["y"]), True)

# MRotaryEmbedding (CPU).
mrope = {"mrope_section": [2, 1, 1], "num_heads": 4}
pos = {"p": lambda b: np.zeros((3, b["B"], b["S"]), np.int64)}
case("MRotaryEmbedding", ms("MRotaryEmbedding", [("x", F, ["B", "S", 32]), ("p", I64, [3, "B", "S"]), ("c", F, [16, 4]), ("s", F, [16, 4])], ["y"], mrope), ints=pos)
case("MRotaryEmbedding 4-D", ms("MRotaryEmbedding", [("x", F, ["B", 4, "S", 8]), ("p", I64, [3, "B", "S"]), ("c", F, [16, 4]), ("s", F, [16, 4])], ["y"], {"mrope_section": [2, 1, 1]}), ints=pos)
case("MRotaryEmbedding sections", ms("MRotaryEmbedding", [("x", F, ["B", "S", 32]), ("p", I64, [3, "B", "S"]), ("c", F, [16, 4]), ("s", F, [16, 4])], ["y"], {"mrope_section": [2, 1, 2], "num_heads": 4}), True, pos)

# Hyper-connections and BranchwiseRMSNorm (CPU): streams (B, S, C = 4, H = 8).
streams = ("st", F, ["B", "S", 4, 8])
case("BranchwiseRMSNorm", ms("BranchwiseRMSNorm", [streams, ("sc", F, [4, 8])], ["y"]))
case("BranchwiseRMSNorm flattened", ms("BranchwiseRMSNorm", [("st", F, ["B", "S", 32]), ("sc", F, [8])], ["y"], {"num_branches": 4}))
case("BranchwiseRMSNorm scale", ms("BranchwiseRMSNorm", [streams, ("sc", F, [7])], ["y"]), True)
case("HyperConnectionPreMix", ms("HyperConnectionPreMix", [streams, ("pm", F, ["B", "S", 4, 1])], ["y"]))
case("HyperConnectionPreMix flattened", ms("HyperConnectionPreMix", [("st", F, ["B", "S", 32]), ("pm", F, ["B", "S", 32])], ["y"], {"num_branches": 4}))
case("HyperConnectionPreMix gate", ms("HyperConnectionPreMix", [streams, ("pm", F, ["B", "S", 3])], ["y"]), True)
post = [streams, ("bo", F, ["B", "S", 8]), ("pm", F, ["B", "S", 4]), ("sm", F, ["B", "S", 4, 4])]
case("HyperConnectionPostMix", ms("HyperConnectionPostMix", post, ["y"]))
case("HyperConnectionPostMix block_output", ms("HyperConnectionPostMix", [streams, ("bo", F, ["B", "S", 7])] + post[2:], ["y"]), True)

# EngramGate, NGramHashMapping, VarlenNGramHashMapping (CPU).
eg = [("k", F, ["B", "S", 4, 8]), ("q", F, ["B", "S", 4, 8]), ("v", F, ["B", "S", 8]), ("ks", F, [4, 8]), ("qs", F, [4, 8]), ("cs", F, [4, 8])]
case("EngramGate", ms("EngramGate", eg, ["o", "n"]))
case("EngramGate value", ms("EngramGate", eg[:2] + [("v", F, ["B", "S", 7])] + eg[3:], ["o", "n"]), True)
ng = {"pad_id": 0, "n_head_per_ngram": 2, "max_ngram_size": 3}
tables = {"vs": lambda b: [7, 11, 13, 17], "m": lambda b: [1, 3, 5]}
ng_in = [("ids", I64, ["B", "S"]), ("m", I64, [3]), ("vs", I64, [4]), ("pi", I64, ["B", 2])]
case("NGramHashMapping", ms("NGramHashMapping", ng_in, [("h", I64), ("p", I64)], ng), ints=tables)
case("NGramHashMapping past_ids", ms("NGramHashMapping", ng_in[:3] + [("pi", I64, ["B", 3])], [("h", I64), ("p", I64)], ng), True, tables)
cu = {"cu": lambda b: list(np.linspace(0, b["T"], b["C1"]).astype(int)), **tables}
vng_in = [("ids", I64, ["T"]), ("m", I64, [3]), ("vs", I64, [4]), ("cu", I32, ["C1"])]
case("VarlenNGramHashMapping", ms("VarlenNGramHashMapping", vng_in, [("h", I64), ("p", I64)], ng), ints=cu)
case("VarlenNGramHashMapping vocab_sizes", ms("VarlenNGramHashMapping", vng_in[:2] + [("vs", I64, [5])] + vng_in[3:], [("h", I64)], ng), True, {**cu, "vs": lambda b: [7, 11, 13, 17, 19]})

# SparseAttention (CPU; the KV cache is shared with the present outputs): 64-token cache in
# 16-token blocks, one dense causal layout.
sa_ints = {
    "br": lambda b: [0, 1, 3, 6, 10],
    "bc": lambda b: [0, 0, 1, 0, 1, 2, 0, 1, 2, 3],
    "tl": lambda b: [b["S"]],
    "kt": lambda b: [b["S"]] * b["B"],
}
sa_tail = [("pk", F, ["B", 2, 64, 8]), ("pv", F, ["B", 2, 64, 8]), ("br", I32, [1, 5]), ("bc", I32, [1, 10]), ("tl", I32, [1]), ("kt", I32, ["B"])]
sa = {"num_heads": 4, "kv_num_heads": 2, "sparse_block_size": 16}
kv_shared = {"pk2": "pk", "pv2": "pv"}
case("SparseAttention", ms("SparseAttention", [("q", F, ["B", "S", 32]), ("k", F, ["B", "S", 16]), ("v", F, ["B", "S", 16])] + sa_tail, ["y", "pk2", "pv2"], sa), ints=sa_ints, shared=kv_shared)
case("SparseAttention packed QKV", ms("SparseAttention", [("q", F, ["B", "S", 64]), None, None] + sa_tail, ["y", "pk2", "pv2"], sa), ints=sa_ints, shared=kv_shared)
case("SparseAttention packed width", ms("SparseAttention", [("q", F, ["B", "S", 60]), None, None] + sa_tail, ["y", "pk2", "pv2"], sa), True, sa_ints, kv_shared)

# CUDA-only ops: onnxruntime's inference is the reference.
paged = [("kc", H16, ["M", 16, 2, 8]), ("vc", H16, ["M", 16, 2, 8]), ("cu", I32, ["C1"]), ("ps", I32, ["B"]), ("bt", I32, ["B", 4])]
pa = {"num_heads": 4, "kv_num_heads": 2}
pa_out = [("y", H16), ("kco", H16), ("vco", H16)]
case("PagedAttention", ms("PagedAttention", [("q", H16, ["T", 32]), ("k", H16, ["T", 16]), ("v", H16, ["T", 16])] + paged, pa_out, pa))
case("PagedAttention packed QKV", ms("PagedAttention", [("q", H16, ["T", 64]), None, None] + paged, pa_out, pa))
case("PagedAttention packed width", ms("PagedAttention", [("q", H16, ["T", 60]), None, None] + paged, pa_out, pa), True)
sel = [None, ("si", I32, ["T", 6]), ("sc", I32, ["T"])]
case("SparsePagedAttention", ms("SparsePagedAttention", [("q", H16, ["T", 32]), ("k", H16, ["T", 16]), ("v", H16, ["T", 16])] + paged + sel, pa_out, pa))
case("SparsePagedAttention query rank", ms("SparsePagedAttention", [("q", H16, ["B", "S", 32]), ("k", H16, ["T", 16]), ("v", H16, ["T", 16])] + paged + sel, pa_out, pa), True)
gdn = [("q", F, ["T", 2, 8]), ("k", F, ["T", 2, 8]), ("v", F, ["T", 4, 6]), ("cu", I32, ["C1"]), ("d", F, ["T", 4]), ("b", F, ["T", 4]), ("st", F, ["B", 4, 6, 8])]
case("GatedDeltaNet", ms("GatedDeltaNet", gdn, ["y", "fs"]))
case("GatedDeltaNet packed QKV", ms("GatedDeltaNet", [("q", F, ["T", 56]), None, None] + gdn[3:], ["y", "fs"]))
case("GatedDeltaNet state update", ms("GatedDeltaNet", gdn + [None, None, ("cc", I32, ["B"])], ["y", "fs", "su"], {"state_update_capacity": 2}))
vc = [("x", F, ["T", 4]), ("w", F, [4, 1, 3]), ("cu", I32, ["C1"]), ("bias", F, [4]), ("st", F, ["B", 4, 4])]
case("VarlenCausalConvWithState", ms("VarlenCausalConvWithState", vc + [("cc", I32, ["B"])], ["y", "fs", "su"], {"dilation": 2, "state_update_capacity": 3}))
case("VarlenCausalConvWithState input rank", ms("VarlenCausalConvWithState", [("x", F, ["B", "T", 4])] + vc[1:], ["y", "fs"], {"dilation": 2}), True)
gem = [("e", F, ["B", "S", 8]), ("q", H16, ["B", 4, "S", 8]), ("qr", H16, ["B", 4, "S", 8]), ("k", H16, ["B", 4, "S", 8]), ("kr", H16, ["B", 4, "S", 8])]
case("GemmaRotaryEmbedding", ms("GemmaRotaryEmbedding", gem, [("o1", H16), ("o2", H16)]))
idx = [("q", F, ["B", "S", 32]), ("k", F, ["B", "S", 8]), ("qn", F, [8]), ("kn", F, [8]), ("c", F, [64, 4]), ("s", F, [64, 4]), None, ("pk", F, ["B", "P", 8])]
qsa = {"policy_mode": "qsa", "compress_ratio": 4, "token_budget": 8}
case("SparseAttentionIndexer qsa", ms("SparseAttentionIndexer", idx, [("si", I32), "pk2"], qsa))
case("SparseAttentionIndexer query width", ms("SparseAttentionIndexer", [("q", F, ["B", "S", 30])] + idx[1:], [("si", I32), "pk2"], qsa), True)
pidx = [("q", F, ["T", 32]), ("k", F, ["T", 8]), ("qn", F, [8]), ("kn", F, [8]), ("c", F, [64, 4]), ("s", F, [64, 4]), ("cu", I32, ["C1"]), ("psl", I32, ["B"]), None, None, None, None, ("pks", F, ["B", 6, 8]), ("pkb", F, ["B", 7, 8]), None, ("pst", I32, ["B", 2]), ("cc", I32, ["B"])]
pqsa = {**qsa, "state_capacity": 6, "state_update_capacity": 3}
pidx_out = [("si", I32), ("sc", I32), "pks2", "pkb2", "", ("pst2", I32), "su"]
case("PackedSparseAttentionIndexer qsa", ms("PackedSparseAttentionIndexer", pidx, pidx_out, pqsa))
case("PackedSparseAttentionIndexer state capacity", ms("PackedSparseAttentionIndexer", pidx[:12] + [("pks", F, ["B", 5, 8])] + pidx[13:], pidx_out, pqsa), True)
dsa = [("q", F, ["B", "S", 32]), ("k", F, ["B", "S", 16]), ("v", F, ["B", "S", 16]), ("pk", F, ["B", 2, "M", 8]), ("pv", F, ["B", 2, "M", 8]), None, None, ("si", I32, ["T", 6]), ("sc", I32, ["T"]), ("sk", I32, ["B"]), ("tl", I32, [1])]
case("DynamicSparseAttention", ms("DynamicSparseAttention", dsa, ["y", "pk2", "pv2"], {"num_heads": 4, "kv_num_heads": 2}))
case("DynamicSparseAttention packed QKV", ms("DynamicSparseAttention", [("q", F, ["B", "S", 64]), None, None] + dsa[3:], ["y", "pk2", "pv2"], {"num_heads": 4, "kv_num_heads": 2}))
case("DynamicSparseAttention query heads", ms("DynamicSparseAttention", [("q", F, ["B", "S", 30])] + dsa[1:], ["y", "pk2", "pv2"], {"num_heads": 4, "kv_num_heads": 2}), True)
dmsa = [("x", F, ["B", 1, 32]), ("w", F, [32, 96]), ("b", F, [96]), None, ("past", F, [2, "B", 4, "P", 8]), None, ("psl", I32, [1])]
case("DecoderMaskedSelfAttention", ms("DecoderMaskedSelfAttention", dmsa, ["y", "pr"], {"num_heads": 4}))


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/debug/onnx-bcast-lint")
    os.chdir(tempfile.mkdtemp())
    totals = {"dims": 0, "known": 0, "wrong": 0, "faults": 0, "found": 0}
    for name, m, faulty, ints, shared in CASES:
        # Empty output names stand for absent optional outputs.
        for o in list(m.graph.output):
            if not o.name:
                m.graph.output.remove(o)
        shapes, codes = lint(binary, m)
        errors = [c for c in codes if c in ("E1", "E4")]
        if faulty:
            totals["faults"] += 1
            _, which, rejected = reference(m, BINDINGS[0], ints, shared)
            totals["found"] += bool(errors) and rejected
            print(f"{'ok ' if errors and rejected else 'BAD'} {name}: linter {codes}, reference rejects: {rejected} ({which})")
            continue
        if errors:
            totals["wrong"] += 1
            print(f"BAD {name}: false alarm {codes}")
        notes = []
        for binding in BINDINGS:
            ref, which, rejected = reference(m, binding, ints, shared)
            if rejected:
                totals["wrong"] += 1
                notes.append(f"reference rejects the valid case: {which}")
            for out, dims in ref.items():
                got = shapes.get(out)
                if dims is None:
                    continue
                for i, want in enumerate(dims):
                    if want is None:
                        continue
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
    return 1 if totals["wrong"] or totals["found"] != totals["faults"] else 0


if __name__ == "__main__":
    sys.exit(main())
