#!/usr/bin/env python3
"""Checks the issue-37 round-3b contrib rules (the quantization, fused and miscellaneous
com.microsoft ops) against onnxruntime as `contrib_rules_check.py` does, with its helpers: each
case is a one-node model with symbolic dims; the linter's `--shapes` dims are evaluated at two
bindings and compared with the shapes onnxruntime produces when it runs the node (CPU), or, for
the CUDA-only ops its symbolic shape inference knows (`GemmFloat8`, `LongformerAttention`), with
that. Fault cases must get an error from the linter (E1/E4) and be rejected by onnxruntime.

    harness/.venv/bin/python tools/contrib_rules_check_3b.py target/debug/onnx-bcast-lint

Not here: `MatMulFpQ4` (its kernel refuses this machine: "not yet supported on this hardware
platform"), `SparseToDenseMatMul` (a sparse-tensor input), and the ops without a CPU kernel that
the symbolic inference does not know either (their rules follow the schemas, see each rule).
"""
import os
import sys

import numpy as np
from onnx import TensorProto as T
from onnx import helper as h

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import contrib_rules_check as base  # noqa: E402 (the shared helpers, beside this file)

MS, F, I64 = base.MS, base.F, base.I64
I32, I16, U8 = T.INT32, T.INT16, T.UINT8
ms = {"": 17, MS: 1}
model, scalar = base.model, base.scalar
_evaluate, _feeds = base.evaluate, base.feeds


def evaluate(dim, binding):
    """A fresh size the rule named (`Tokenizer#0`) is data-dependent: not compared."""
    if isinstance(dim, str) and "#" in dim:
        return None
    return _evaluate(dim, binding)


def feeds(m):
    """The shared feeds, with strings for string inputs and in-range ints for index inputs."""
    out = {k: np.asarray(v) for k, v in _feeds(m).items()}
    for vi in m.graph.input:
        t = vi.type.tensor_type
        if t.elem_type == T.STRING:
            out[vi.name] = np.full([d.dim_value for d in t.shape.dim], "ab cd", dtype=object)
        elif vi.name in ("bi",):
            out[vi.name] = np.zeros_like(out[vi.name])
    return out


base.evaluate, base.feeds = evaluate, feeds
del base.CASES[:]
case = base.case


def t(elem):
    return h.make_tensor_type_proto(elem, None)


# MatMulInteger16, ExpandDims, Inverse, CDist
case("MatMulInteger16", model("MatMulInteger16", [("a", I16, ["B", "S", 4]), ("b", I16, [4, 5])], ["y"], {}, MS, ms, out_types=[t(I32)]))
case("MatMulInteger16 K", model("MatMulInteger16", [("a", I16, ["B", "S", 4]), ("b", I16, [5, 5])], ["y"], {}, MS, ms, out_types=[t(I32)]), True)
axis = lambda v: h.make_tensor("axis", I32, [], [v])  # noqa: E731
case("ExpandDims -1", model("ExpandDims", [("x", F, ["B", "S"]), ("axis", I32, [])], ["y"], {}, MS, ms, [axis(-1)]))
case("ExpandDims 1", model("ExpandDims", [("x", F, ["B", "S"]), ("axis", I32, [])], ["y"], {}, MS, ms, [axis(1)]))
case("ExpandDims out of range", model("ExpandDims", [("x", F, ["B", "S"]), ("axis", I32, [])], ["y"], {}, MS, ms, [axis(3)]), True)
case("Inverse", model("Inverse", [("x", F, ["B", 3, 3])], ["y"], {}, MS, ms))
case("Inverse not square", model("Inverse", [("x", F, ["B", 3, 4])], ["y"], {}, MS, ms), True)
case("CDist", model("CDist", [("a", F, ["B", 4]), ("b", F, ["S", 4])], ["y"], {}, MS, ms))
case("CDist columns", model("CDist", [("a", F, ["B", 4]), ("b", F, ["S", 3])], ["y"], {}, MS, ms), True)
# ScaledSiLU, GatedAdd
case("ScaledSiLU", model("ScaledSiLU", [("x", F, ["B", "S"]), ("s", F, [])], ["y"], {}, MS, ms))
case("ScaledSiLU scale of (1)", model("ScaledSiLU", [("x", F, ["B", "S"]), ("s", F, [1])], ["y"], {}, MS, ms), True)
case("GatedAdd", model("GatedAdd", [("x", F, ["B", "S", 4]), ("y", F, ["B", "S", 4]), ("g", F, ["B", "S", 1])], ["o"], {}, MS, ms))
case("GatedAdd gate width", model("GatedAdd", [("x", F, ["B", "S", 4]), ("y", F, ["B", "S", 4]), ("g", F, ["B", "S", 4])], ["o"], {}, MS, ms), True)
case("GatedAdd Y broadcast", model("GatedAdd", [("x", F, [2, "S", 4]), ("y", F, [1, "S", 4]), ("g", F, [2, "S", 1])], ["o"], {}, MS, ms), True)
# WordConvEmbedding, MaxpoolWithMask, CropAndResize, UnfoldTensor, ConvTransposeWithDynamicPads
wce = [h.make_tensor("w", F, [16, 1, 2, 8], [0.1] * 256), h.make_tensor("bias", F, [16], [0.0] * 16), h.make_tensor("c", F, [30, 8], [0.1] * 240)]
case("WordConvEmbedding", model("WordConvEmbedding", [("seq", I32, ["S", 7]), ("w", F, [16, 1, 2, 8]), ("bias", F, [16]), ("c", F, [30, 8])], ["y"], {}, MS, ms, wce))
wce_bad = [wce[0], h.make_tensor("bias", F, [12], [0.0] * 12), wce[2]]
case("WordConvEmbedding bias", model("WordConvEmbedding", [("seq", I32, ["S", 7]), ("w", F, [16, 1, 2, 8]), ("bias", F, [12]), ("c", F, [30, 8])], ["y"], {}, MS, ms, wce_bad), True)
pool = {"kernel_shape": [2, 2], "strides": [2, 2]}
case("MaxpoolWithMask", model("MaxpoolWithMask", [("x", F, ["N", 3, "H", "W"]), ("m", I32, [1, 3, "H", "W"])], ["y"], pool, MS, ms))
case("MaxpoolWithMask any mask N and C", model("MaxpoolWithMask", [("x", F, ["N", 3, "H", "W"]), ("m", I32, [3, 5, "H", "W"])], ["y"], pool, MS, ms))
case("MaxpoolWithMask mask width", model("MaxpoolWithMask", [("x", F, ["N", 3, 8, 8]), ("m", I32, [1, 3, 8, 4])], ["y"], pool, MS, ms), True)
crop = [h.make_tensor("cs", I32, [2], [5, 6])]
case("CropAndResize", model("CropAndResize", [("x", F, ["B", 3, "H", "W"]), ("r", F, ["S", 4]), ("bi", I32, ["S"]), ("cs", I32, [2])], ["y"], {}, MS, ms, crop))
case("CropAndResize rois width", model("CropAndResize", [("x", F, ["B", 3, "H", "W"]), ("r", F, ["S", 5]), ("bi", I32, ["S"]), ("cs", I32, [2])], ["y"], {}, MS, ms, crop), True)
unfold = {"dim": 1, "size": 3, "step": 2}
case("UnfoldTensor", model("UnfoldTensor", [("x", F, ["B", "H", 3])], ["y"], unfold, MS, ms))
case("UnfoldTensor size", model("UnfoldTensor", [("x", F, ["B", 2, 3])], ["y"], unfold, MS, ms), True)
ctw = [h.make_tensor("w", F, [3, 2, 3, 3], [0.1] * 54), h.make_tensor("p", I64, [4], [1, 1, 1, 1])]
case("ConvTransposeWithDynamicPads", model("ConvTransposeWithDynamicPads", [("x", F, ["N", 3, "H", "W"]), ("w", F, [3, 2, 3, 3]), ("p", I64, [4])], ["y"], {"strides": [2, 2]}, MS, ms, ctw))
case("ConvTransposeWithDynamicPads no pads", model("ConvTransposeWithDynamicPads", [("x", F, ["N", 3, "H", "W"]), ("w", F, [3, 2, 3, 3])], ["y"], {"strides": [2, 2]}, MS, ms, ctw[:1]), True)
# DynamicTimeWarping, BifurcationDetector, AttnLSTM
case("DynamicTimeWarping", model("DynamicTimeWarping", [("x", F, ["H", "W"])], ["y"], {}, MS, ms, out_types=[t(I32)]))
case("DynamicTimeWarping batch of 2", model("DynamicTimeWarping", [("x", F, [2, "H", "W"])], ["y"], {}, MS, ms, out_types=[t(I32)]), True)
prev = [h.make_tensor("p", I64, [], [0])]
bif = [("s", I64, [10]), ("c", I64, ["S"]), ("p", I64, [])]
case("BifurcationDetector", model("BifurcationDetector", bif, ["tok", "idx"], {}, MS, ms, prev, [t(I64), t(I64)]))
case("BifurcationDetector prediction", model("BifurcationDetector", bif + [("pt", I64, [11])], ["tok", "idx"], {}, MS, ms, prev, [t(I64), t(I64)]))
case("BifurcationDetector prediction length", model("BifurcationDetector", bif + [("pt", I64, [6])], ["tok", "idx"], {}, MS, ms, prev, [t(I64), t(I64)]), True)
lstm = [("x", F, [5, "B", 3]), ("w", F, [1, 16, 12]), ("r", F, [1, 16, 4]), ("b", F, [1, 32]), None, ("ih", F, [1, "B", 4]), ("ic", F, [1, "B", 4]), ("p", F, [1, 12]),
        ("qw", F, [1, 4, 6]), ("mw", F, [1, 8, 6]), ("v", F, [1, 6]), ("m", F, ["B", 7, 8]), None, ("aw", F, [1, 12, 9])]
case("AttnLSTM", model("AttnLSTM", lstm, ["y", "yh", "yc"], {"hidden_size": 4}, MS, ms))
lstm_bad = lstm[:1] + [("w", F, [1, 16, 3])] + lstm[2:]
case("AttnLSTM W without the attention width", model("AttnLSTM", lstm_bad, ["y", "yh", "yc"], {"hidden_size": 4}, MS, ms), True)
# MurmurHash3, Tokenizer, SampleOp
case("MurmurHash3", model("MurmurHash3", [("x", I32, ["B", "S"])], ["y"], {}, MS, ms, out_types=[t(T.UINT32)]))
tok = {"mark": 0, "pad_value": "#", "separators": [" "], "mincharnum": 1}
case("Tokenizer", model("Tokenizer", [("x", T.STRING, ["B", "S"])], ["y"], tok, MS, ms, out_types=[t(T.STRING)]))
case("Tokenizer rank 3", model("Tokenizer", [("x", T.STRING, ["B", "S", 2])], ["y"], tok, MS, ms, out_types=[t(T.STRING)]), True)
case("SampleOp", model("SampleOp", [("x", F, ["B", "S"])], ["y"], {}, MS, ms))
# CUDA-only, against onnxruntime's symbolic shape inference (and its schema inference for faults).
case("GemmFloat8", model("GemmFloat8", [("a", F, ["B", 16]), ("b", F, [32, 16])], ["y"], {"transB": 1}, MS, ms))
case("GemmFloat8 rank 3", model("GemmFloat8", [("a", F, ["B", "S", 16]), ("b", F, [32, 16])], ["y"], {"transB": 1}, MS, ms), True)
lf = [("x", F, ["B", 8, 16]), ("w", F, [16, 48]), ("bias", F, [48]), ("m", F, ["B", 8]), ("gw", F, [16, 48]), ("gb", F, [48]), ("g", I32, ["B", 8])]
case("LongformerAttention", model("LongformerAttention", lf, ["y"], {"num_heads": 4, "window": 2}, MS, ms))

if __name__ == "__main__":
    sys.exit(base.main())
