"""Runtime truth: the real shape of every main-graph value under concrete bindings.

For each model: choose values for its symbolic input dims (two bindings when the
model has any), build inputs of the right dtype and range, run onnxruntime with
graph optimisations disabled and every node output of the main graph exposed as
a graph output, and record the shape of every value with the binding.
Models that cannot be run are recorded with the reason.
"""
from __future__ import annotations

import copy
import os
import pickle
import time
import traceback

import numpy as np
import onnx
from onnx import TensorProto, helper

DISTINCT = ([2, 5, 7, 3, 6, 9, 4, 8, 10, 11, 12, 13], [3, 6, 4, 5, 7, 10, 9, 11, 12, 13, 14, 15])
UNIFORM = (4, 6)
SEED = 1234
# Exporters write these dim_params to mean "unknown", not "all equal": the
# harness binds each such axis on its own (key "input:axis").
ANON_PARAMS = {"?", "-1", "None", "unk"}


def main_graph_values(model):
    """(inputs, initializers, producers) of the main graph.

    producers: value name -> (node index, op_type, domain)."""
    g = model.graph
    inits = [i.name for i in g.initializer]
    iset = set(inits)
    inputs = [i.name for i in g.input if i.name not in iset]
    prod = {}
    for k, n in enumerate(g.node):
        for o in n.output:
            if o:
                prod[o] = (k, n.op_type, n.domain)
    return inputs, inits, prod


def input_dim_keys(vi):
    """Per axis: ('int', v) | ('sym', name) | ('anon', 'input:axis'); None if no shape."""
    t = vi.type
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return None
    out = []
    for ax, d in enumerate(t.tensor_type.shape.dim):
        if d.HasField("dim_value") and d.dim_value >= 0:
            out.append(("int", d.dim_value))
        elif d.HasField("dim_param") and d.dim_param and d.dim_param not in ANON_PARAMS:
            out.append(("sym", d.dim_param))
        else:
            out.append(("anon", f"{vi.name}:{ax}"))
    return out


def symbols_of(model):
    init = {i.name for i in model.graph.initializer}
    order = []
    for vi in model.graph.input:
        if vi.name in init:
            continue
        for kind, v in input_dim_keys(vi) or []:
            if kind != "int" and v not in order:
                order.append(v)
    return order


def candidate_bindings(model, entry):
    """List (per binding) of candidate envs, tried in order."""
    syms = symbols_of(model)
    hints = entry.get("hints", {})
    if hints.get("bindings"):
        return [[dict(b)] for b in hints["bindings"]]
    if not syms:
        return [[{}]]
    out = []
    for b in range(2):
        distinct = {s: DISTINCT[b][i % len(DISTINCT[b])] for i, s in enumerate(syms)}
        uniform = {s: UNIFORM[b] for s in syms}
        out.append([distinct, uniform])
    return out


_NP = {
    TensorProto.FLOAT: np.float32, TensorProto.DOUBLE: np.float64, TensorProto.FLOAT16: np.float16,
    TensorProto.INT64: np.int64, TensorProto.INT32: np.int32, TensorProto.INT16: np.int16, TensorProto.INT8: np.int8,
    TensorProto.UINT8: np.uint8, TensorProto.UINT16: np.uint16, TensorProto.UINT32: np.uint32,
    TensorProto.UINT64: np.uint64, TensorProto.BOOL: np.bool_,
}


def _int_upper_bounds(model):
    """Integer inputs used as Gather indices into a constant table: exclusive upper bound."""
    consts = {i.name: list(i.dims) for i in model.graph.initializer}
    for n in model.graph.node:
        if n.op_type == "Constant":
            for a in n.attribute:
                if a.name == "value":
                    consts[n.output[0]] = list(a.t.dims)
    bounds = {}
    for n in model.graph.node:
        if n.op_type == "Gather" and len(n.input) > 1 and n.input[0] in consts:
            axis = next((a.i for a in n.attribute if a.name == "axis"), 0)
            dims = consts[n.input[0]]
            if dims:
                b = dims[axis]
                bounds[n.input[1]] = min(b, bounds.get(n.input[1], b))
    return bounds


def make_inputs(model, env, entry, rng):
    init = {i.name for i in model.graph.initializer}
    values = entry.get("hints", {}).get("values", {})
    bounds = _int_upper_bounds(model)
    feeds = {}
    for vi in model.graph.input:
        if vi.name in init:
            continue
        keys = input_dim_keys(vi)
        if keys is None:
            raise RuntimeError(f"input {vi.name} has no tensor shape; cannot build it")
        shape = tuple(v if k == "int" else env[v] for k, v in keys)
        et = vi.type.tensor_type.elem_type
        dt = _NP.get(et)
        if dt is None:
            raise RuntimeError(f"input {vi.name}: element type {TensorProto.DataType.Name(et)} not generated")
        if vi.name in values:
            feeds[vi.name] = np.full(shape, values[vi.name], dtype=dt)
        elif dt == np.bool_:
            feeds[vi.name] = rng.integers(0, 2, size=shape).astype(np.bool_)
        elif np.issubdtype(dt, np.integer):
            lname = vi.name.lower()
            if "mask" in lname:
                a = rng.integers(0, 2, size=shape)
                if a.ndim:
                    a[..., 0] = 1
                feeds[vi.name] = a.astype(dt)
            else:
                hi = bounds.get(vi.name, 2)
                feeds[vi.name] = rng.integers(0, max(hi, 1), size=shape).astype(dt)
        else:
            feeds[vi.name] = rng.standard_normal(size=shape).astype(dt)
    return feeds


def _infer_types(model):
    try:
        inf = onnx.shape_inference.infer_shapes(model, strict_mode=False)
    except Exception:
        return {}
    out = {}
    for vi in list(inf.graph.value_info) + list(inf.graph.output):
        t = vi.type
        if t.HasField("tensor_type") and t.tensor_type.elem_type:
            out[vi.name] = t.tensor_type.elem_type
    return out


def expose_all(model):
    """Copy of model with every main-graph node output as a graph output."""
    m = copy.deepcopy(model)
    have = {o.name for o in m.graph.output}
    types = _infer_types(m)
    for n in m.graph.node:
        for o in n.output:
            if o and o not in have:
                have.add(o)
                if o in types:
                    m.graph.output.append(helper.make_tensor_value_info(o, types[o], None))
                else:
                    m.graph.output.append(onnx.ValueInfoProto(name=o))
    return m


def _session(model):
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    so.log_severity_level = 4
    return ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])


def run_ort(model, feeds):
    """name -> shape (list) for every output of model; non-tensor outputs skipped."""
    sess = _session(model)
    names = [o.name for o in sess.get_outputs()]
    res = sess.run(names, feeds)
    shapes = {}
    for n, r in zip(names, res):
        if isinstance(r, np.ndarray):
            shapes[n] = list(r.shape)
    return shapes


def _short(e):
    s = f"{type(e).__name__}: {e}"
    return s if len(s) < 400 else s[:400] + "..."


_ORT_MAX_IR = []


def ort_max_ir():
    """Highest IR version this onnxruntime loads (read from its own error message)."""
    if not _ORT_MAX_IR:
        import re

        g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
        m.ir_version = 99
        try:
            _session(m)
            _ORT_MAX_IR.append(99)
        except Exception as e:
            hit = re.search(r"max supported IR version: (\d+)", str(e))
            _ORT_MAX_IR.append(int(hit.group(1)) if hit else 10)
    return _ORT_MAX_IR[0]


_ORT_MAX_OPSET = []


def ort_max_opset():
    """Highest ai.onnx opset this onnxruntime accepts (probed)."""
    if not _ORT_MAX_OPSET:
        found = 7
        for v in range(max(onnx.defs.onnx_opset_version(), 40), 6, -1):
            g = helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "probe",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
            m = helper.make_model(g, opset_imports=[helper.make_opsetid("", v)])
            m.ir_version = min(m.ir_version, ort_max_ir())
            try:
                _session(m)
                found = v
                break
            except Exception:
                continue
        _ORT_MAX_OPSET.append(found)
    return _ORT_MAX_OPSET[0]


def _stamp_down(model, target):
    """Restamp ai.onnx opset to `target` when no op of the model changed between the two."""
    from onnx import defs

    cur = max(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))

    def same(g):
        for n in g.node:
            if n.domain not in ("", "ai.onnx"):
                continue
            try:
                if defs.get_schema(n.op_type, cur).since_version != defs.get_schema(n.op_type, target).since_version:
                    return False
            except Exception:
                return False
            for a in n.attribute:
                for sub in ([a.g] if a.HasField("g") else []) + list(a.graphs):
                    if not same(sub):
                        return False
        return True

    if not same(model.graph):
        return None
    m = copy.deepcopy(model)
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = target
    return m


def _as_runnable(model):
    """What onnxruntime gets: ai.onnx opset >= 7 (older models are converted) and an
    IR version it loads (newer onnx packages stamp test models with a newer IR)."""
    notes = []
    opset = max([o.version for o in model.opset_import if o.domain in ("", "ai.onnx")] or [99])
    if opset < 7:
        from onnx import version_converter

        model = version_converter.convert_version(model, 7)
        notes.append("opset7-conversion")
    if opset > ort_max_opset() and opset != 99:
        down = _stamp_down(model, ort_max_opset())
        if down is not None:
            model = down
            notes.append(f"opset restamped {opset}->{ort_max_opset()} (no op changed)")
    if model.ir_version > ort_max_ir():
        model = copy.deepcopy(model)
        model.ir_version = ort_max_ir()
        notes.append(f"ir_version lowered to {ort_max_ir()}")
    return model, ", ".join(notes) or None


def compute_truth(entry, root):
    t0 = time.time()
    model = onnx.load(os.path.join(root, entry["path"]))
    inputs, inits, prod = main_graph_values(model)
    init_shapes = {i.name: list(i.dims) for i in model.graph.initializer}
    truth = {"id": entry["id"], "status": "failed", "reason": None, "via": None, "notes": [], "bindings": []}
    data = None
    if entry.get("data"):
        with open(os.path.join(root, entry["data"]), "rb") as f:
            data = pickle.load(f)
    try:
        runnable, via = _as_runnable(model)
    except Exception as e:
        runnable, via = None, None
        truth["notes"].append("opset<7 and version conversion failed: " + _short(e))
    truth["via"] = "ort" + (f" ({via})" if via else "")

    def record(feeds, out_shapes, env):
        shapes = {}
        for n in inputs:
            if n in feeds and isinstance(feeds[n], np.ndarray):
                shapes[n] = list(feeds[n].shape)
        for n in inits:
            shapes[n] = init_shapes[n]
        for n in prod:
            if n in out_shapes:
                shapes[n] = out_shapes[n]
        full = dict(env)
        # An "anonymous" dim_param such as "?" is also bound by name when all its uses agree.
        seen = {}
        for vi in model.graph.input:
            t = vi.type.tensor_type
            for ax, d in enumerate(t.shape.dim if t.HasField("shape") else []):
                key = f"{vi.name}:{ax}"
                if d.HasField("dim_param") and d.dim_param in ANON_PARAMS and key in env:
                    seen.setdefault(d.dim_param, set()).add(env[key])
        for p, vals in seen.items():
            if len(vals) == 1:
                full[p] = vals.pop()
        return {"env": full, "shapes": shapes}

    errors = []
    if data is not None and data.get("inputs") is not None:
        feeds = data["inputs"]
        env = {}
        for vi in model.graph.input:
            v = feeds.get(vi.name)
            if isinstance(v, np.ndarray):
                for (kind, key), d in zip(input_dim_keys(vi) or [], v.shape):
                    if kind != "int":
                        env[key] = int(d)
        candidates = [[(env, feeds)]]
    else:
        candidates = []
        rng_seed = SEED
        try:
            for cands in candidate_bindings(model, entry):
                row = []
                for env in cands:
                    rng = np.random.default_rng(rng_seed)
                    row.append((env, make_inputs(model, env, entry, rng)))
                candidates.append(row)
                rng_seed += 1
        except Exception as e:
            truth["reason"] = "cannot build inputs: " + _short(e)
            candidates = []

    if runnable is not None:
        exposed = None
        for row in candidates:
            done = False
            for env, feeds in row:
                try:
                    if exposed is None:
                        exposed = expose_all(runnable)
                    shapes = run_ort(exposed, feeds)
                    truth["bindings"].append(record(feeds, shapes, env))
                    done = True
                    break
                except Exception as e:
                    err = _short(e)
                    # Does the unmodified model run? Then only exposing failed.
                    try:
                        shapes = run_ort(runnable, feeds)
                        truth["bindings"].append(record(feeds, shapes, env))
                        truth["notes"].append("intermediates could not be exposed: " + err)
                        done = True
                        break
                    except Exception as e2:
                        errors.append(f"binding {env}: " + _short(e2))
            if not done and truth["bindings"]:
                truth["notes"].append("second binding failed: " + errors[-1])
    if truth["bindings"]:
        truth["status"] = "ok"
    elif data is not None and data.get("outputs"):
        # onnxruntime cannot run it: the node test's expected outputs still give real shapes.
        feeds = data["inputs"]
        outs = {k: list(np.asarray(v).shape) for k, v in data["outputs"].items() if isinstance(v, np.ndarray)}
        env = candidates[0][0][0] if candidates else {}
        truth["bindings"].append(record(feeds, outs, env))
        truth["status"] = "expected-only"
        truth["via"] = "expected outputs"
        truth["reason"] = "onnxruntime: " + (errors[0] if errors else truth["notes"][0] if truth["notes"] else "?")
    else:
        truth["reason"] = truth["reason"] or ("onnxruntime: " + errors[0] if errors else "; ".join(truth["notes"]) or "?")
    truth["time"] = round(time.time() - t0, 3)
    return truth


def safe_truth(entry, root):
    try:
        return compute_truth(entry, root)
    except Exception as e:
        return {"id": entry["id"], "status": "failed", "reason": "harness: " + _short(e), "notes": [traceback.format_exc()[-800:]],
                "bindings": [], "via": None}
