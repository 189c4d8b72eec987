"""Seeded faults injected into real models.

Each kind breaks a model that onnxruntime runs (its valid twin, the unmodified
model, must stay clean); a fault is kept only when onnxruntime then rejects the
model with an error of the kind's own family (`ORT_ERR`), and the node it names
is where onnx-bcast-lint must report the kind's code (`WANT`).

broadcasting kinds (E1; W1 for the symbolic one):
  init_shape      an initializer of the wrong shape feeding a broadcasting op
  reshape_const   a wrong Reshape constant, failing several nodes downstream
  expand_target   a computed Expand target that is off by one on one axis
  gemm_c / prelu_slope   a wrong Gemm C / PRelu slope
  legacy_axis     opset < 7 broadcast=1 op with a wrong `axis`
  symbolic_meet   two different symbolic dims meeting in one Add

operator-constraint kinds (E4; W4 for the symbolic one), each kept only when
onnxruntime names the edited node itself:
  matmul_k        a MatMul/Gemm weight whose contraction dim K is K+1 (transA/transB honoured)
  conv_channels   a Conv weight whose input-channel dim C/group is changed
  bn_params       a BatchNormalization scale/bias/mean/var one longer than the channels
  contrib_bias    an onnxruntime-fused op's broadcast parameter one longer than the hidden size:
                  SkipLayerNormalization / SkipSimplifiedLayerNormalization gamma, beta or bias,
                  BiasGelu / FastGelu bias, (Simplified)LayerNormalization scale (E1)
  concat_dims     a Concat constant input with a wrong non-axis dim (or rank, for 1-D ones)
  reshape_count   a Reshape constant target (no -1, no 0) whose element count is not the input's
  split_sum       Split sizes that do not sum to the split axis
  axis_range      an axis out of range on Concat/Softmax/LogSoftmax/Gather/Flatten, or a
                  Transpose perm that is not a permutation
  rnn_weights     an LSTM/GRU/RNN W or R whose hidden part does not match hidden_size
  symbolic_k      a MatMul/Gemm weight replaced by a graph input whose K dim is a new symbol
"""
from __future__ import annotations

import copy
import json
import os
import pickle
import random
import re
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import onnx
from onnx import helper, numpy_helper

from .pool import run_jobs
from .score import run_engine

SEED = 8
PER_KIND = 40  # at most this many kept faults of each kind (CI time)
REAL_FAMILIES_EXCLUDED = {"onnx-node", "onnx-node-expanded"}
# Families added after the fault set was recorded (committed models, the offline optimizer): their
# candidates come after every other family's, so the faults recorded before them stay the same.
LATE_FAMILIES = {"patterns", "torch-cnn", "genai-builder", "tf2onnx", "keras3", "ort-offline"}
BCAST_OPS = {"Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual",
             "Max", "Min", "Where", "And", "Or", "Xor", "Mod", "BitShift", "Sum", "Mean"}
CONVERTER_BCAST = re.compile(r"multibroadcastable|unibroadcastable|broadcastable inputs")
BCAST_ERR = re.compile(r"broadcast|Incompatible dimensions|BroadcastIterator|invalid expand shape|"
                       r"axis == 1 \|\| axis == largest|Invalid bias shape|dimension mismatch", re.I)
# The code the engine must report at the node onnxruntime names, per kind (E1 by default).
WANT = {"symbolic_meet": "W1", "matmul_k": "E4", "conv_channels": "E4", "bn_params": "E4", "concat_dims": "E4",
        "reshape_count": "E4", "split_sum": "E4", "axis_range": "E4", "rnn_weights": "E4", "symbolic_k": "W4"}
# onnxruntime errors that count for each kind (BCAST_ERR by default): the messages onnxruntime 1.31
# (its kernels, and onnx's shape inference run at session creation) gives for these faults. onnx's
# generic "Dimension mismatch in unification" is accepted only for kinds whose edit leaves no other
# reason for it at the node onnxruntime names (which must be the edited node).
_K_ERR = (r"MatMul dimension mismatch|Incompatible dimensions for matrix multiplication|GEMM: Dimension mismatch|"
          r"Dimension mismatch in unification")
ORT_ERR = {
    "matmul_k": re.compile(_K_ERR),
    "symbolic_k": re.compile(_K_ERR),
    "conv_channels": re.compile(r"Input channels C is not equal to kernel channels \* group"),
    "bn_params": re.compile(r"Invalid input (scale|B|mean|var): 0th dimension != \d+|Dimension mismatch in unification"),
    "concat_dims": re.compile(r"All inputs to Concat must have same rank|input_rank == reference_rank|"
                              r"Ranks of input data are different|Non concat axis dimensions must match|"
                              r"Dimension mismatch in unification|Can't merge shape info\. Both inferred and declared "
                              r"dimension have values but they differ"),
    "reshape_count": re.compile(r"input_shape_size == requested_shape_size|cannot be reshaped to the requested shape|"
                                r"Input shape:\{[0-9,]*\}, requested shape:\{[0-9,-]*\}"),
    "split_sum": re.compile(r"Mismatch between the sum of 'split' \(\d+\) and the split dimension|"
                            r"Cannot split using values in 'split'"),
    "axis_range": re.compile(r"IsAxisInRange\(axis, tensor_rank\) was false|axis must be in \[-r(ank)?, r(ank)?-1\]|"
                             r"rank must be greater than axis|Invalid value\(-?\d+\) for attribute 'axis'|"
                             r"Attribute perm for Transpose has repeated value|is not in valid range|"
                             r"'axis' must be in \[-?\d+ , -?\d+\]"),
    "rnn_weights": re.compile(r"Input (W|R|B) must have shape \{"),
    "contrib_bias": re.compile(r"Last dimension of (gamma|beta|bias|skip) and input does not match|"
                               r"Input 1 dimension 0 should have same length as the last dimension of input 0|"
                               r"Scale and \(optional\) bias must match X\.shape"),
}
CONSTRAINT_OPS = {"matmul_k": ("MatMul", "Gemm"), "symbolic_k": ("MatMul", "Gemm"), "conv_channels": ("Conv",),
                  "bn_params": ("BatchNormalization",), "concat_dims": ("Concat",), "reshape_count": ("Reshape",),
                  "split_sum": ("Split",), "rnn_weights": ("LSTM", "GRU", "RNN"),
                  "axis_range": ("Concat", "Softmax", "LogSoftmax", "Gather", "Flatten", "Transpose")}


def failing_node(msg):
    m = re.search(r"running \w+ node\. Name:'([^']*)'", msg)
    if m:
        return m.group(1)
    m = re.search(r"Node \(([^)]*)\) Op \(", msg)
    if m:
        return m.group(1)
    return None


def _name_nodes(model):
    """onnxruntime names the failing node: give every main-graph node a unique name."""
    seen = set()
    for k, n in enumerate(model.graph.node):
        if not n.name or n.name in seen:
            n.name = f"{n.name or n.op_type}__{k}"
        seen.add(n.name)


def _const_tensors(model):
    return {i.name: i for i in model.graph.initializer}


def _set_init(model, name, arr):
    for k, i in enumerate(model.graph.initializer):
        if i.name == name:
            model.graph.initializer[k].CopyFrom(numpy_helper.from_array(arr, name))
    for vi in model.graph.input:  # IR < 4: initializers are graph inputs too
        if vi.name == name:
            vi.type.tensor_type.ClearField("shape")
            for d in arr.shape:
                vi.type.tensor_type.shape.dim.add().dim_value = d


def _consumers(model):
    out = {}
    for k, n in enumerate(model.graph.node):
        for i in n.input:
            out.setdefault(i, []).append(k)
    return out


def gen_init_shape(model, shapes, rng, ctx=None):
    inits = _const_tensors(model)
    cands = []
    for k, n in enumerate(model.graph.node):
        if n.op_type in BCAST_OPS and n.domain in ("", "ai.onnx"):
            for j, x in enumerate(n.input):
                if x in inits and n.output[0] in shapes and len(inits[x].dims) > 0:
                    cands.append((k, j, x))
    rng.shuffle(cands)
    for k, j, x in cands[:3]:
        n = model.graph.node[k]
        arr = numpy_helper.to_array(inits[x])
        out = shapes[n.output[0]]
        r = arr.ndim
        axes = [a for a in range(r) if out[len(out) - r + a] > 1] if len(out) >= r else []
        if not axes:
            continue
        a = rng.choice(axes)
        new = list(arr.shape)
        new[a] = out[len(out) - r + a] + 1
        m = copy.deepcopy(model)
        _set_init(m, x, np.resize(arr, new).astype(arr.dtype))
        yield m, {"edited": n.name or f"n{k}", "detail": f"initializer {x} {list(arr.shape)} -> {new} into {n.op_type}"}


def _reshape_target(model, n):
    inits = _const_tensors(model)
    if len(n.input) > 1 and n.input[1] in inits:
        return n.input[1], numpy_helper.to_array(inits[n.input[1]])
    return None, None


def gen_reshape_const(model, shapes, rng, ctx=None):
    cands = [k for k, n in enumerate(model.graph.node) if n.op_type == "Reshape" and _reshape_target(model, n)[0]]
    rng.shuffle(cands)
    for k in cands[:4]:
        n = model.graph.node[k]
        name, t = _reshape_target(model, n)
        t = t.copy()
        pos = [i for i in range(len(t)) if t[i] > 1]
        new = None
        if len(pos) >= 2 and len({t[i] for i in pos}) > 1:
            a, b = rng.sample(pos, 2)
            while t[a] == t[b]:
                a, b = rng.sample(pos, 2)
            new = t.copy()
            new[a], new[b] = t[b], t[a]
        elif -1 in t and pos:
            a = rng.choice(pos)
            new = t.copy()
            new[a] = t[a] * 2
        if new is None:
            continue
        m = copy.deepcopy(model)
        _set_init(m, name, new)
        yield m, {"edited": n.name or f"n{k}", "detail": f"Reshape {n.name} target {t.tolist()} -> {new.tolist()}"}


def gen_expand_target(model, shapes, rng, ctx=None):
    cands = [k for k, n in enumerate(model.graph.node) if n.op_type == "Expand" and n.output[0] in shapes]
    rng.shuffle(cands)
    for k in cands[:3]:
        n = model.graph.node[k]
        out = shapes[n.output[0]]
        tl = (shapes.get(n.input[1]) or [0])[0]
        if not out or not tl or tl > len(out):
            continue
        ax = rng.randrange(tl)
        o = out[len(out) - tl + ax]
        delta = np.zeros(tl, np.int64)
        delta[ax] = o + 1 if o > 1 else 2
        m = copy.deepcopy(model)
        mn = m.graph.node[k]
        dn, sn = f"fault_delta_{k}", f"fault_shape_{k}"
        m.graph.initializer.append(numpy_helper.from_array(delta, dn))
        add = helper.make_node("Add", [mn.input[1], dn], [sn], name=f"fault_shape_add_{k}")
        mn.input[1] = sn
        m.graph.node.insert(k, add)
        yield m, {"edited": n.name or f"n{k}", "detail": f"Expand {n.name} target axis {ax} + {delta[ax]} (computed)"}


def _param_source(model, x):
    """(kind, name) where the values of x come from: an initializer, or ConstantOfShape(initializer)."""
    inits = _const_tensors(model)
    if x in inits:
        return "init", x
    for n in model.graph.node:
        if n.op_type == "ConstantOfShape" and n.output[0] == x and n.input[0] in inits:
            return "cos", n.input[0]
    return None, None


def _gen_param(model, shapes, rng, op, slot, label):
    cands = [k for k, n in enumerate(model.graph.node) if n.op_type == op and len(n.input) > slot
             and _param_source(model, n.input[slot])[0]]
    rng.shuffle(cands)
    for k in cands[:3]:
        n = model.graph.node[k]
        kind, name = _param_source(model, n.input[slot])
        src = _const_tensors(model)[name]
        m = copy.deepcopy(model)
        if kind == "init":
            arr = numpy_helper.to_array(src)
            if arr.ndim == 0:
                continue
            new = list(arr.shape)
            ax = max(range(arr.ndim), key=lambda a: new[a])
            new[ax] += 1
            _set_init(m, name, np.resize(arr, new).astype(arr.dtype))
            detail = f"{op} {label} {list(arr.shape)} -> {new}"
        else:
            dims = numpy_helper.to_array(src).copy()
            if dims.size == 0:
                continue
            ax = int(np.argmax(dims))
            old = dims.tolist()
            dims[ax] += 1
            _set_init(m, name, dims)
            detail = f"{op} {label} (ConstantOfShape {name}) {old} -> {dims.tolist()}"
        yield m, {"edited": n.name or f"n{k}", "detail": detail}


def gen_gemm_c(model, shapes, rng, ctx=None):
    yield from _gen_param(model, shapes, rng, "Gemm", 2, "C")


def gen_prelu_slope(model, shapes, rng, ctx=None):
    yield from _gen_param(model, shapes, rng, "PRelu", 1, "slope")


# onnxruntime's fused ops and their parameters added to (or scaling) the hidden axis.
CONTRIB_PARAMS = (("SkipLayerNormalization", 2, "gamma"), ("SkipLayerNormalization", 3, "beta"),
                  ("SkipLayerNormalization", 4, "bias"), ("SkipSimplifiedLayerNormalization", 2, "gamma"),
                  ("SkipSimplifiedLayerNormalization", 3, "bias"), ("BiasGelu", 1, "bias"), ("FastGelu", 1, "bias"),
                  ("SimplifiedLayerNormalization", 1, "scale"), ("LayerNormalization", 1, "scale"))


def gen_contrib_bias(model, shapes, rng, ctx=None):
    for op, slot, label in CONTRIB_PARAMS:
        yield from _gen_param(model, shapes, rng, op, slot, label)


def gen_legacy_axis(model, shapes, rng, ctx=None):
    opset = max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [99])
    if opset >= 7:
        return
    cands = []
    for k, n in enumerate(model.graph.node):
        attrs = {a.name: a for a in n.attribute}
        if "broadcast" in attrs and attrs["broadcast"].i == 1 and n.output[0] in shapes and n.op_type != "Gemm":
            cands.append(k)
    rng.shuffle(cands)
    for k in cands[:3]:
        n = model.graph.node[k]
        rank = len(shapes[n.output[0]])
        attrs = {a.name: a for a in n.attribute}
        cur = attrs["axis"].i if "axis" in attrs else None
        choices = [a for a in range(rank) if a != cur]
        if not choices:
            continue
        axis = rng.choice(choices)
        m = copy.deepcopy(model)
        mn = m.graph.node[k]
        for a in list(mn.attribute):
            if a.name == "axis":
                mn.attribute.remove(a)
        mn.attribute.append(helper.make_attribute("axis", axis))
        yield m, {"edited": n.name or f"n{k}", "detail": f"{n.op_type} {n.name} broadcast axis {cur} -> {axis}"}


def gen_symbolic_meet(model, shapes, rng, ctx=None):
    init = {i.name for i in model.graph.initializer}
    cands = []
    for vi in model.graph.input:
        if vi.name in init or not vi.type.tensor_type.HasField("shape"):
            continue
        if vi.type.tensor_type.elem_type not in (onnx.TensorProto.FLOAT, onnx.TensorProto.DOUBLE,
                                                 onnx.TensorProto.FLOAT16, onnx.TensorProto.INT64):
            continue
        for ax, d in enumerate(vi.type.tensor_type.shape.dim):
            if d.dim_param and d.dim_param not in ("?",):
                cands.append((vi, ax, d.dim_param))
    rng.shuffle(cands)
    for vi, ax, sym in cands[:1]:
        rank = len(vi.type.tensor_type.shape.dim)
        m = copy.deepcopy(model)
        fresh = f"fault_{re.sub(r'[^A-Za-z0-9_]', '_', sym)}_other"
        dims = [1] * rank
        dims[ax] = fresh
        yname, xname = f"{vi.name}__fault_peer", f"{vi.name}__fault_sum"
        m.graph.input.append(helper.make_tensor_value_info(yname, vi.type.tensor_type.elem_type, dims))
        for n in m.graph.node:
            for j, x in enumerate(n.input):
                if x == vi.name:
                    n.input[j] = xname
        for o in m.graph.output:
            if o.name == vi.name:
                return
        m.graph.node.insert(0, helper.make_node("Add", [vi.name, yname], [xname], name="fault_symbolic_add"))
        yield m, {"edited": "fault_symbolic_add", "detail": f"{vi.name}[{ax}]={sym} meets {yname}[{ax}]={fresh} in Add",
                  "extra_input": {"name": yname, "axis": ax, "rank": rank, "sym": sym, "fresh": fresh,
                                  "elem": vi.type.tensor_type.elem_type}}


# ------------------------------------------------------ operator constraints ---
def _const_arrays(model):
    """name -> array for the main graph's initializers and Constant(value=tensor) outputs."""
    out = {i.name: i for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant" and n.domain in ("", "ai.onnx") and len(n.attribute) == 1 \
                and n.attribute[0].name == "value":
            out[n.output[0]] = n.attribute[0].t
    res = {}
    for k, t in out.items():
        try:
            res[k] = numpy_helper.to_array(t)
        except Exception:  # external data, odd types: not a candidate
            continue
    return res


def _set_const(model, name, arr):
    """Replace the value of an initializer or of a Constant node's output."""
    if any(i.name == name for i in model.graph.initializer):
        _set_init(model, name, arr)
        return
    for n in model.graph.node:
        if n.op_type == "Constant" and n.output[0] == name:
            n.attribute[0].t.CopyFrom(numpy_helper.from_array(arr, n.attribute[0].t.name or name))
            return
    raise KeyError(name)


def _resizable(model):
    """name -> (shape, how, source, array, name) for the values whose shape a fault can change: initializers and
    Constant outputs (how 'array'), and ConstantOfShape outputs whose shape is such a constant (how 'cos',
    source the shape constant; onnx's light models hold their weights so)."""
    consts = _const_arrays(model)
    out = {k: (list(v.shape), "array", k, v, k) for k, v in consts.items()}
    cons = _consumers(model)
    for n in model.graph.node:
        if n.op_type == "ConstantOfShape" and n.input and n.input[0] in consts and consts[n.input[0]].ndim == 1 \
                and _single_use(model, n.input[0], cons):
            out[n.output[0]] = ([int(d) for d in consts[n.input[0]]], "cos", n.input[0], consts[n.input[0]],
                                n.output[0])
    return out


def _resize(m, entry, new):
    """Give the value described by `entry` (from `_resizable`) the shape `new` in model m."""
    shape, how, source, arr, name = entry
    for j in reversed(range(len(m.graph.value_info))):  # its declared shape was the old one
        if m.graph.value_info[j].name == name:
            del m.graph.value_info[j]
    if how == "array":
        _set_const(m, source, np.resize(arr, new).astype(arr.dtype))
    else:
        _set_const(m, source, np.array(new, dtype=arr.dtype))


def _single_use(model, name, cons=None):
    """Used by exactly one node input and not a graph output: editing it breaks one node only."""
    cons = cons if cons is not None else _consumers(model)
    return len(cons.get(name, [])) == 1 and all(o.name != name for o in model.graph.output)


def _attrs(n):
    return {a.name: helper.get_attribute_value(a) for a in n.attribute}


def _set_attr(n, name, value):
    for a in list(n.attribute):
        if a.name == name:
            n.attribute.remove(a)
    n.attribute.append(helper.make_attribute(name, value))


def _onnx_nodes(model, ops):
    return [k for k, n in enumerate(model.graph.node) if n.op_type in ops and n.domain in ("", "ai.onnx")]


def _opset(model):
    return max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [99])


def _fixed_shape(ctx, name):
    """The shape of `name` when it is the same whatever the model's input dims (as far as the
    runs show): the model has no symbolic input dims, or every binding gave it the same shape."""
    ctx = ctx or {}
    seen = [s.get(name) for s in ctx.get("all_shapes", [])]
    if not seen or any(s is None for s in seen) or any(s != seen[0] for s in seen):
        return None
    return seen[0] if ctx.get("static") or len(seen) > 1 else None


def _fixed_dim(ctx, name, axis):
    """Dim `axis` of `name` when it does not depend on the model's input dims (see `_fixed_shape`):
    a constraint broken against it fails for every input (E4, not W4)."""
    ctx = ctx or {}
    seen = [s.get(name) for s in ctx.get("all_shapes", [])]
    if not seen or any(s is None or not -len(s) <= axis < len(s) for s in seen):
        return None
    dims = {s[axis] for s in seen}
    if len(dims) != 1 or not (ctx.get("static") or len(seen) > 1):
        return None
    return dims.pop()


def _contraction_axis(n, slot, rank):
    """The axis of input `slot` of MatMul/Gemm node n that is contracted (K)."""
    if n.op_type == "MatMul":
        if rank == 0:
            return None
        return rank - 1 if slot == 0 else (rank - 2 if rank >= 2 else 0)
    if rank != 2:
        return None
    t = _attrs(n).get("transA" if slot == 0 else "transB", 0)
    return (0 if t else 1) if slot == 0 else (1 if t else 0)


def _k_candidates(model):
    vals, cons = _resizable(model), _consumers(model)
    cands = []
    for k in _onnx_nodes(model, ("MatMul", "Gemm")):
        n = model.graph.node[k]
        for slot in (0, 1):
            x = n.input[slot] if len(n.input) > slot else ""
            if x in vals and _single_use(model, x, cons) and not (slot == 0 and n.input[1] in vals):
                ax = _contraction_axis(n, slot, len(vals[x][0]))
                if ax is not None:
                    cands.append((k, slot, x, ax))
    return vals, cands


def gen_matmul_k(model, shapes, rng, ctx=None):
    vals, cands = _k_candidates(model)
    fixed = []
    for k, slot, x, ax in cands:  # the other operand's K must not depend on the model's input dims
        n = model.graph.node[k]
        other = n.input[1 - slot]
        rank = len((shapes.get(other) or []))
        oax = _contraction_axis(n, 1 - slot, rank) if rank else None
        if oax is not None and _fixed_dim(ctx, other, oax) is not None:
            fixed.append((k, slot, x, ax))
    cands = fixed
    rng.shuffle(cands)
    for k, slot, x, ax in cands[:3]:
        n, shape = model.graph.node[k], vals[x][0]
        new = list(shape)
        new[ax] += 1
        m = copy.deepcopy(model)
        _resize(m, vals[x], new)
        yield m, {"edited": n.name, "detail": f"{n.op_type} {n.name} input {slot} {x} {shape} -> {new} "
                                              f"(contraction axis {ax}: K {shape[ax]} -> {new[ax]})"}


def gen_symbolic_k(model, shapes, rng, ctx=None):
    vals, cands = _k_candidates(model)
    cands = [c for c in cands if c[1] == 1 and vals[c[2]][1] == "array" and len(vals[c[2]][0]) == 2]
    rng.shuffle(cands)
    for k, slot, x, ax in cands[:1]:
        n, shape = model.graph.node[k], vals[x][0]
        fresh = f"fault_K_{k}"
        dims = list(shape)
        dims[ax] = fresh
        m = copy.deepcopy(model)
        elem = helper.np_dtype_to_tensor_dtype(vals[x][3].dtype)
        for field in (m.graph.initializer, m.graph.input, m.graph.value_info):  # IR < 4: a graph input too
            for j, v in enumerate(field):
                if v.name == x:
                    del field[j]
                    break
        const = next((j for j, c in enumerate(m.graph.node) if c.op_type == "Constant" and c.output[0] == x), None)
        yname = f"{x}__fault_symbolic"
        m.graph.input.append(helper.make_tensor_value_info(yname, elem, dims))
        m.graph.node[k].input[slot] = yname
        if const is not None:  # a weight held by a Constant node: the node goes
            del m.graph.node[const]
        yield m, {"edited": n.name, "detail": f"{n.op_type} {n.name} weight {x} {shape} -> graph input {yname} "
                                              f"{dims} (K {shape[ax]} vs {fresh}; run with {fresh}={shape[ax] + 1})",
                  "extra_input": {"name": yname, "fresh": fresh, "value": int(shape[ax]) + 1, "elem": elem}}


def gen_conv_channels(model, shapes, rng, ctx=None):
    vals, cons = _resizable(model), _consumers(model)
    cands = [k for k in _onnx_nodes(model, ("Conv",)) if len(model.graph.node[k].input) > 1
             and model.graph.node[k].input[1] in vals and len(vals[model.graph.node[k].input[1]][0]) >= 3
             and _single_use(model, model.graph.node[k].input[1], cons)
             and _fixed_dim(ctx, model.graph.node[k].input[0], 1) is not None]  # C of the input
    rng.shuffle(cands)
    for k in cands[:3]:
        n = model.graph.node[k]
        shape = vals[n.input[1]][0]
        new = list(shape)
        new[1] += 1
        m = copy.deepcopy(model)
        _resize(m, vals[n.input[1]], new)
        yield m, {"edited": n.name, "detail": f"Conv {n.name} weight {n.input[1]} {shape} -> {new} "
                                              f"(C/group {shape[1]} -> {new[1]}, group {_attrs(n).get('group', 1)})"}


BN_SLOTS = {1: "scale", 2: "B", 3: "mean", 4: "var"}


def gen_bn_params(model, shapes, rng, ctx=None):
    vals, cons = _resizable(model), _consumers(model)
    cands = []
    for k in _onnx_nodes(model, ("BatchNormalization",)):
        n = model.graph.node[k]
        if _fixed_dim(ctx, n.input[0], 1) is None:  # C of the input
            continue
        slots = [j for j in BN_SLOTS if len(n.input) > j and n.input[j] in vals and len(vals[n.input[j]][0]) == 1
                 and _single_use(model, n.input[j], cons)]
        if slots:
            cands.append((k, rng.choice(slots)))
    rng.shuffle(cands)
    for k, j in cands[:3]:
        n = model.graph.node[k]
        shape = vals[n.input[j]][0]
        new = [shape[0] + 1]
        m = copy.deepcopy(model)
        _resize(m, vals[n.input[j]], new)
        yield m, {"edited": n.name, "detail": f"BatchNormalization {n.name} {BN_SLOTS[j]} {n.input[j]} "
                                              f"{shape} -> {new}"}


def gen_concat_dims(model, shapes, rng, ctx=None):
    vals, cons = _resizable(model), _consumers(model)
    cands = []
    for k in _onnx_nodes(model, ("Concat",)):
        n = model.graph.node[k]
        if len(n.input) < 2:
            continue
        for j, x in enumerate(n.input):
            if x in vals and len(vals[x][0]) >= 1 and _single_use(model, x, cons):
                cands.append((k, j, x))
    rng.shuffle(cands)
    for k, j, x in cands[:3]:
        n, shape = model.graph.node[k], vals[x][0]
        axis = _attrs(n).get("axis", 0)
        axis = axis + len(shape) if axis < 0 else axis
        others = [a for a in range(len(shape)) if a != axis]
        if others:
            if _fixed_shape(ctx, n.output[0]) is None:
                continue  # the other inputs' dims must not depend on the model's input dims
            a = rng.choice(others)
            new = list(shape)
            new[a] += 1
            what = f"non-axis dim {a} (axis {axis})"
        else:  # a 1-D input: give it a rank the others do not have
            new = [1] + list(shape)
            what = "rank 1 -> 2"
        m = copy.deepcopy(model)
        _resize(m, vals[x], new)
        yield m, {"edited": n.name, "detail": f"Concat {n.name} input {j} {x} {shape} -> {new}: {what}"}


def gen_reshape_count(model, shapes, rng, ctx=None):
    consts, cons = _const_arrays(model), _consumers(model)
    cands = [k for k in _onnx_nodes(model, ("Reshape",)) if len(model.graph.node[k].input) > 1
             and model.graph.node[k].input[1] in consts and consts[model.graph.node[k].input[1]].ndim == 1
             and _single_use(model, model.graph.node[k].input[1], cons)]
    rng.shuffle(cands)
    for k in cands[:3]:
        n = model.graph.node[k]
        t = consts[n.input[1]].astype(np.int64)
        src = _fixed_shape(ctx, n.input[0])
        if not src:
            continue  # the input's element count must not depend on the model's input dims (else: W4)
        if t.size and (t > 0).all():
            base, how = t.copy(), "target"
        else:  # -1 or 0 in it: write the real output shape
            out = _fixed_shape(ctx, n.output[0])
            if not out or 0 in out:
                continue
            base, how = np.array(out, np.int64), "real output shape"
        new = base.copy()
        ax = rng.randrange(len(new))
        new[ax] += 1
        m = copy.deepcopy(model)
        _set_const(m, n.input[1], new.astype(consts[n.input[1]].dtype))
        yield m, {"edited": n.name, "detail": f"Reshape {n.name} target {t.tolist()} -> {new.tolist()} ({how} with "
                                              f"axis {ax} + 1: {int(np.prod(base))} -> {int(np.prod(new))} elements)"}


def gen_split_sum(model, shapes, rng, ctx=None):
    consts, cons = _const_arrays(model), _consumers(model)
    cands = _onnx_nodes(model, ("Split",))
    rng.shuffle(cands)
    for k in cands[:3]:
        n = model.graph.node[k]
        at = _attrs(n)
        src = _fixed_shape(ctx, n.input[0])
        if "split" in at:
            sizes, where = list(at["split"]), "attribute"
        elif len(n.input) > 1 and n.input[1] in consts and _single_use(model, n.input[1], cons):
            sizes, where = consts[n.input[1]].astype(np.int64).tolist(), "input"
        elif src is not None and not (len(n.input) > 1 and n.input[1]):
            axis = at.get("axis", 0)
            d, parts = src[axis], len(n.output)
            if d % parts:
                continue
            sizes, where = [d // parts] * parts, "attribute" if _opset(model) < 13 else "new input"
        else:
            continue
        if src is None or len(sizes) < 2:
            continue  # the axis dim must not depend on the inputs' dims
        new = list(sizes)
        j = rng.randrange(len(new))
        new[j] += 1
        m = copy.deepcopy(model)
        mn = m.graph.node[k]
        if where == "attribute":
            _set_attr(mn, "split", new)
        elif where == "input":
            _set_const(m, n.input[1], np.array(new, np.int64))
        else:
            sname = f"fault_split_{k}"
            m.graph.initializer.append(numpy_helper.from_array(np.array(new, np.int64), sname))
            if len(mn.input) > 1:
                mn.input[1] = sname
            else:
                mn.input.append(sname)
            for a in list(mn.attribute):
                if a.name == "num_outputs":
                    mn.attribute.remove(a)
        yield m, {"edited": n.name, "detail": f"Split {n.name} sizes ({where}) {sizes} -> {new} "
                                              f"(axis dim {src[at.get('axis', 0)]})"}


def gen_axis_range(model, shapes, rng, ctx=None):
    cands = [k for k in _onnx_nodes(model, CONSTRAINT_OPS["axis_range"])
             if model.graph.node[k].input and model.graph.node[k].input[0] in shapes]
    rng.shuffle(cands)
    for k in cands[:3]:
        n = model.graph.node[k]
        r = len(shapes[n.input[0]])
        at = _attrs(n)
        m = copy.deepcopy(model)
        mn = m.graph.node[k]
        if n.op_type == "Transpose":
            if r < 2:
                continue
            perm = list(at.get("perm", list(range(r))[::-1]))
            new = list(perm)
            j = rng.randrange(r)
            new[j] = perm[(j + 1) % r]  # a duplicate: not a permutation
            _set_attr(mn, "perm", new)
            detail = f"Transpose {n.name} perm {perm} -> {new} (rank {r})"
        else:
            if r == 0:
                continue
            default = -1 if n.op_type in ("Softmax", "LogSoftmax") and _opset(model) >= 13 else \
                (1 if n.op_type in ("Softmax", "LogSoftmax", "Flatten") else 0)
            new = r + 1 if n.op_type == "Flatten" else r
            _set_attr(mn, "axis", new)
            detail = f"{n.op_type} {n.name} axis {at.get('axis', default)} -> {new} (input rank {r})"
        yield m, {"edited": n.name, "detail": detail}


RNN_GATES = {"LSTM": 4, "GRU": 3, "RNN": 1}


def gen_rnn_weights(model, shapes, rng, ctx=None):
    vals, cons = _resizable(model), _consumers(model)
    cands = []
    for k in _onnx_nodes(model, ("LSTM", "GRU", "RNN")):
        n = model.graph.node[k]
        for j in (1, 2):
            if len(n.input) > j and n.input[j] in vals and len(vals[n.input[j]][0]) == 3 \
                    and _single_use(model, n.input[j], cons):
                cands.append((k, j))
    rng.shuffle(cands)
    for k, j in cands[:2]:
        n = model.graph.node[k]
        shape = vals[n.input[j]][0]
        hidden = _attrs(n).get("hidden_size")
        new = list(shape)
        if j == 1:  # W [dirs, gates*hidden, input]: one more hidden unit
            new[1] += RNN_GATES[n.op_type]
        else:  # R [dirs, gates*hidden, hidden]: the recurrence of a hidden size one larger
            new[2] += 1
        m = copy.deepcopy(model)
        _resize(m, vals[n.input[j]], new)
        yield m, {"edited": n.name, "detail": f"{n.op_type} {n.name} {'W' if j == 1 else 'R'} {n.input[j]} "
                                              f"{shape} -> {new} (hidden_size {hidden})"}


KINDS = {
    "init_shape": gen_init_shape,
    "reshape_const": gen_reshape_const,
    "expand_target": gen_expand_target,
    "gemm_c": gen_gemm_c,
    "prelu_slope": gen_prelu_slope,
    "legacy_axis": gen_legacy_axis,
    "symbolic_meet": gen_symbolic_meet,
    "matmul_k": gen_matmul_k,
    "conv_channels": gen_conv_channels,
    "bn_params": gen_bn_params,
    "concat_dims": gen_concat_dims,
    "reshape_count": gen_reshape_count,
    "split_sum": gen_split_sum,
    "axis_range": gen_axis_range,
    "rnn_weights": gen_rnn_weights,
    "symbolic_k": gen_symbolic_k,
    "contrib_bias": gen_contrib_bias,
}


def ort_check(job):
    """Pool task: does onnxruntime reject the faulted model, and naming which node?

    Whether the error is of the fault's own kind is decided by `ort_accepts` (main process)."""
    from .truth import _as_runnable, make_inputs, run_ort

    entry, root, path = job["entry"], job["root"], job["path"]
    model = onnx.load(path)
    env = dict(job["env"])
    extra = job.get("extra_input")
    if extra:
        env[extra["fresh"]] = env[extra["sym"]] + 1 if "sym" in extra else extra["value"]
    try:
        if entry.get("data"):
            with open(os.path.join(root, entry["data"]), "rb") as f:
                feeds = dict(pickle.load(f)["inputs"])
        else:
            feeds = {}
        if not feeds or extra:
            base = make_inputs(model, env, entry, np.random.default_rng(1234))
            base.update(feeds)
            feeds = base
        runnable, via = _as_runnable(model)
        run_ort(runnable, feeds)
        return {"id": job["id"], "rejected": False, "message": "onnxruntime ran it"}
    except Exception as e:
        msg = str(e)
        node = failing_node(msg)
        if "version_converter" in msg and CONVERTER_BCAST.search(msg):
            # onnxruntime has no kernels below opset 7; the converter that lifts the model
            # to opset 7 rejects the broadcast of the edited node itself.
            msg = "rejected by onnx's version converter (opset<7 model; onnxruntime needs opset>=7): " + msg
            node = job["edited"]
        return {"id": job["id"], "rejected": True, "message": msg[:600], "node": node}


def ort_accepts(kind, message):
    """Is onnxruntime's error `message` one of the errors the fault `kind` is about?"""
    return bool(message) and bool(ORT_ERR.get(kind, BCAST_ERR).search(message))


def keep_decision(kind, check, edited):
    """Why a generated fault is kept (None) or not (a short reason), from its onnxruntime check."""
    if not check.get("rejected"):
        return check.get("crashed") and "onnxruntime check crashed" or "onnxruntime ran it"
    if not ort_accepts(kind, check.get("message")):
        return "onnxruntime failed with an error of another kind"
    if not check.get("node"):
        return "onnxruntime named no node"
    if kind in CONSTRAINT_OPS and check["node"] != edited:
        return f"onnxruntime named node {check['node']}, not the edited {edited}"
    return None


def node_findings(model, node_name, diags):
    """(findings at the node onnxruntime named, the others): by name, or by index in the main graph."""
    idx = next((k for k, n in enumerate(model.graph.node) if n.name == node_name), None)
    at = [d for d in diags if (d.get("node") or {}).get("name") == node_name
          or (idx is not None and (d.get("node") or {}).get("index") == idx and
              (d.get("node") or {}).get("graph") in (None, "", model.graph.name, "main"))]
    return idx, at, [d for d in diags if d not in at]


# Kinds whose fault surfaces downstream of the edit: onnxruntime names the node where its load-time
# inference (or its kernels) first trips, but an operator constraint on the path from the edited
# node to it (a Conv whose channels no longer match, a Gemm whose K no longer does) is the same
# fault found earlier. An error (E1 or E4) there or at the named node is the right report.
DOWNSTREAM_KINDS = {"reshape_const"}


def path_between(model, edited, ort_node):
    """Names of the main-graph nodes downstream of `edited` and upstream of `ort_node` (both included)."""
    nodes = list(model.graph.node)
    producer = {o: n.name for n in nodes for o in n.output}
    by_name = {n.name: n for n in nodes}
    down, frontier = {edited}, [edited]
    consumers = {}
    for n in nodes:
        for i in n.input:
            if i in producer:
                consumers.setdefault(producer[i], []).append(n.name)
    while frontier:
        for c in consumers.get(frontier.pop(), []):
            if c not in down:
                down.add(c)
                frontier.append(c)
    up, frontier = {ort_node}, [ort_node]
    while frontier:
        node = by_name.get(frontier.pop())
        for i in (node.input if node is not None else []):
            p = producer.get(i)
            if p is not None and p not in up:
                up.add(p)
                frontier.append(p)
    return down & up


def classify(kind, at, elsewhere, between=()):
    """'right' (the kind's code at the node; for DOWNSTREAM_KINDS, an error at the node or on the
    path from the edit to it), 'other_code' (another error or warning at the node), 'elsewhere'
    (errors or warnings only at other nodes; the caller leaves out those of the valid twin) or
    'missed'."""
    want = WANT.get(kind, "E1")
    if any(d.get("code") == want for d in at):
        return "right"
    if kind in DOWNSTREAM_KINDS:
        on_path = [d for d in elsewhere if (d.get("node") or {}).get("name") in between]
        if any(d.get("code") in ("E1", "E4") for d in at + on_path):
            return "right"
    serious = ("error", "warning")
    if any(d.get("severity") in serious for d in at):
        return "other_code"
    if any(d.get("severity") in serious for d in elsewhere):
        return "elsewhere"
    return "missed"


def _round_robin(sources):
    """Sources ordered family by family in turn (each family by id): a per-kind candidate budget
    then spreads over the families instead of filling up with the first one."""
    fams = {}
    for e in sorted(sources, key=lambda e: e["id"]):
        fams.setdefault(e["family"], []).append(e)
    out, lists = [], [fams[f] for f in sorted(fams)]
    while any(lists):
        for lst in lists:
            if lst:
                out.append(lst.pop(0))
    return out


def _brief(d):
    node = d.get("node") or {}
    return {"code": d.get("code"), "severity": d.get("severity"), "node": node.get("name"),
            "index": node.get("index"), "message": (d.get("message") or "")[:300]}


def run_all(root, out, entries, results, engine, workers=2, seed=SEED, per_kind=PER_KIND):
    from .truth import symbols_of

    fdir = os.path.join(out, "faults")
    os.makedirs(fdir, exist_ok=True)
    real = [e for e in entries if e["family"] not in REAL_FAMILIES_EXCLUDED
            and results[e["id"]]["truth"]["status"] == "ok"]
    sources = (_round_robin([e for e in real if e["family"] not in LATE_FAMILIES])
               + _round_robin([e for e in real if e["family"] in LATE_FAMILIES]))
    jobs, meta = [], {}
    n_kind = {kind: 0 for kind in KINDS}
    for e in sources:
        if all(n >= per_kind * 2 for n in n_kind.values()):  # candidates; some are not rejected by onnxruntime
            break
        truth = results[e["id"]]["truth_detail"]
        b0 = truth["bindings"][0]
        model = onnx.load(os.path.join(root, e["path"]))
        _name_nodes(model)
        ctx = {"static": not symbols_of(model), "all_shapes": [b["shapes"] for b in truth["bindings"]]}
        for kind, gen in KINDS.items():
            if n_kind[kind] >= per_kind * 2:
                continue
            # one generator per (model, kind): a fault does not depend on which other models exist
            rng = random.Random(f"{seed}:{kind}:{e['id']}")
            try:
                made = list(gen(model, b0["shapes"], rng, ctx))
            except Exception as ex:  # a generator bug must not stop the run
                made = []
                print(f"faults: {kind} on {e['id']}: {type(ex).__name__}: {ex}")
            for i, (m, info) in enumerate(made[:1]):
                fid = f"{e['id']}/{kind}{i}"
                path = os.path.join(fdir, fid.replace("/", "__") + ".onnx")
                onnx.save(m, path)
                meta[fid] = {"id": fid, "kind": kind, "model": e["id"], "family": e["family"], "path": path, **info}
                env = b0["env"]
                extra = info.get("extra_input")
                if extra and "sym" in extra:  # the shared symbol must be > 1, or its peer simply broadcasts
                    env = next((b["env"] for b in truth["bindings"] if b["env"].get(extra["sym"], 0) > 1), None)
                    if env is None:
                        meta[fid]["not_kept"] = "no binding with the shared symbol > 1"
                        continue
                jobs.append({"id": fid, "entry": e, "root": root, "path": path, "env": env,
                             "extra_input": extra, "edited": info["edited"]})
                n_kind[kind] += 1
    checked = run_jobs("fault_ort_check", jobs, workers=workers)
    kept, kept_per_kind = [], {}
    for fid, m in meta.items():
        if "not_kept" in m:
            continue
        c = checked.get(fid, {})
        m["ort"] = c.get("message") or c.get("crashed")
        m["ort_node"] = c.get("node")
        why = keep_decision(m["kind"], c, m["edited"])
        if why is None and kept_per_kind.get(m["kind"], 0) >= per_kind:
            why = f"over the {per_kind} kept faults of this kind"
        if why:
            m["not_kept"] = why
            continue
        kept_per_kind[m["kind"]] = kept_per_kind.get(m["kind"], 0) + 1
        kept.append(m)
    with ThreadPoolExecutor(max(1, workers)) as ex:
        eng = list(ex.map(lambda m: run_engine(engine, m["path"]), kept))
    rows = []
    for m, er in zip(kept, eng):
        model = onnx.load(m["path"], load_external_data=False)
        idx, at, elsewhere = node_findings(model, m["ort_node"], er["diagnostics"])
        twin = results.get(m["model"], {}).get("engine", {})
        # elsewhere: only what the valid twin does not have already (its own warnings are not a detection)
        had = {tuple(f) for f in twin.get("findings", [])}
        new_elsewhere = [d for d in elsewhere if (str(d.get("code")), str((d.get("node") or {}).get("name"))) not in had]
        between = path_between(model, m["edited"], m["ort_node"]) if m["kind"] in DOWNSTREAM_KINDS else ()
        outcome = classify(m["kind"], at, new_elsewhere, between)
        rows.append({
            "id": m["id"], "kind": m["kind"], "model": m["model"], "family": m["family"], "detail": m["detail"],
            "edited_node": m["edited"], "ort_node": m["ort_node"], "ort_node_index": idx, "ort": m["ort"],
            "want": WANT.get(m["kind"], "E1"), "engine_status": er["status"], "engine_error": er["error"],
            "detected": outcome == "right", "outcome": outcome,
            "codes_at_node": sorted({d.get("code") for d in at}),
            "codes_elsewhere": sorted({d.get("code") for d in elsewhere}),
            "engine_at_node": [_brief(d) for d in at],
            "engine_elsewhere": [_brief(d) for d in new_elsewhere
                                 if d.get("severity") in ("error", "warning")][:5],
            "twin": m["model"], "twin_clean": twin.get("status") == "ok" and not twin.get("errors_reported"),
        })
    not_kept = [{k: v for k, v in m.items() if k in ("id", "kind", "detail", "edited", "ort", "ort_node", "not_kept")}
                for m in meta.values() if "not_kept" in m]
    with open(os.path.join(out, "faults.json"), "w") as f:
        json.dump({"generated": len(meta), "kept": len(kept), "rows": rows, "not_kept": not_kept}, f, indent=1)
    lines = ["## faults (onnxruntime rejects each; the engine must report the kind's code at the node onnxruntime "
             "names)", "",
             "| kind | want | generated | kept | detected (right code, right node) | other code at the node | "
             "elsewhere only (not in the twin) | missed | twin clean |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for kind in KINDS:
        gen_n = sum(1 for m in meta.values() if m["kind"] == kind)
        ks = [r for r in rows if r["kind"] == kind]
        cnt = {o: sum(1 for r in ks if r["outcome"] == o) for o in ("right", "other_code", "elsewhere", "missed")}
        lines.append(f"| {kind} | {WANT.get(kind, 'E1')} | {gen_n} | {len(ks)} | {cnt['right']} | "
                     f"{cnt['other_code']} | {cnt['elsewhere']} | {cnt['missed']} | "
                     f"{sum(r['twin_clean'] for r in ks)}/{len(ks)} |")
    return {"rows": rows, "table": "\n".join(lines)}
