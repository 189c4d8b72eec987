"""Seeded broadcasting faults injected into real models.

Each kind breaks a model that onnxruntime runs; a fault is kept only when
onnxruntime then rejects the model with a broadcasting error, and the node it
names is where onnx-bcast-lint must report E1 (W1 for the symbolic kind).

kinds:
  init_shape      an initializer of the wrong shape feeding a broadcasting op
  reshape_const   a wrong Reshape constant, failing several nodes downstream
  expand_target   a computed Expand target that is off by one on one axis
  gemm_c / prelu_slope   a wrong Gemm C / PRelu slope
  legacy_axis     opset < 7 broadcast=1 op with a wrong `axis`
  symbolic_meet   two different symbolic dims meeting in one Add
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
BCAST_OPS = {"Add", "Sub", "Mul", "Div", "Pow", "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual",
             "Max", "Min", "Where", "And", "Or", "Xor", "Mod", "BitShift", "Sum", "Mean"}
CONVERTER_BCAST = re.compile(r"multibroadcastable|unibroadcastable|broadcastable inputs")
BCAST_ERR = re.compile(r"broadcast|Incompatible dimensions|BroadcastIterator|invalid expand shape|"
                       r"axis == 1 \|\| axis == largest|Invalid bias shape|dimension mismatch", re.I)


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


def gen_init_shape(model, shapes, rng):
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


def gen_reshape_const(model, shapes, rng):
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


def gen_expand_target(model, shapes, rng):
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


def gen_gemm_c(model, shapes, rng):
    yield from _gen_param(model, shapes, rng, "Gemm", 2, "C")


def gen_prelu_slope(model, shapes, rng):
    yield from _gen_param(model, shapes, rng, "PRelu", 1, "slope")


def gen_legacy_axis(model, shapes, rng):
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


def gen_symbolic_meet(model, shapes, rng, env=None):
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


KINDS = {
    "init_shape": gen_init_shape,
    "reshape_const": gen_reshape_const,
    "expand_target": gen_expand_target,
    "gemm_c": gen_gemm_c,
    "prelu_slope": gen_prelu_slope,
    "legacy_axis": gen_legacy_axis,
    "symbolic_meet": gen_symbolic_meet,
}


def ort_check(job):
    """Pool task: does onnxruntime reject the faulted model with a broadcasting error?"""
    from .truth import _as_runnable, make_inputs, run_ort

    entry, root, path = job["entry"], job["root"], job["path"]
    model = onnx.load(path)
    env = dict(job["env"])
    extra = job.get("extra_input")
    if extra:
        env[extra["fresh"]] = env[extra["sym"]] + 1
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
        return {"id": job["id"], "rejected": bool(BCAST_ERR.search(msg)), "message": msg[:600], "node": node}


def run_all(root, out, entries, results, engine, workers=2, seed=SEED, per_kind=PER_KIND):
    fdir = os.path.join(out, "faults")
    os.makedirs(fdir, exist_ok=True)
    sources = [e for e in entries if e["family"] not in REAL_FAMILIES_EXCLUDED
               and results[e["id"]]["truth"]["status"] == "ok"]
    jobs, meta = [], {}
    for kind, gen in KINDS.items():
        n_kind = 0
        for e in sorted(sources, key=lambda e: e["id"]):
            if n_kind >= per_kind * 2:  # candidates; some are not rejected by onnxruntime
                break
            # one generator per (model, kind): a fault does not depend on which other models exist
            rng = random.Random(f"{seed}:{kind}:{e['id']}")
            truth = results[e["id"]]["truth_detail"]
            b0 = truth["bindings"][0]
            model = onnx.load(os.path.join(root, e["path"]))
            _name_nodes(model)
            try:
                made = list(gen(model, b0["shapes"], rng))
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
                if extra:  # the shared symbol must be > 1, or its peer simply broadcasts
                    env = next((b["env"] for b in truth["bindings"] if b["env"].get(extra["sym"], 0) > 1), None)
                    if env is None:
                        continue
                jobs.append({"id": fid, "entry": e, "root": root, "path": path, "env": env,
                             "extra_input": extra, "edited": info["edited"]})
                n_kind += 1
    checked = run_jobs("fault_ort_check", jobs, workers=workers)
    kept, kept_per_kind = [], {}
    for fid, m in meta.items():
        c = checked.get(fid, {})
        m["ort"] = c.get("message") or c.get("crashed")
        m["ort_node"] = c.get("node")
        if c.get("rejected") and m["ort_node"] and kept_per_kind.get(m["kind"], 0) < per_kind:
            kept_per_kind[m["kind"]] = kept_per_kind.get(m["kind"], 0) + 1
            kept.append(m)
    with ThreadPoolExecutor(max(1, workers)) as ex:
        eng = list(ex.map(lambda m: run_engine(engine, m["path"]), kept))
    rows = []
    for m, er in zip(kept, eng):
        want = {"W1"} if m["kind"] == "symbolic_meet" else {"E1"}
        model = onnx.load(m["path"], load_external_data=False)
        idx = next((k for k, n in enumerate(model.graph.node) if n.name == m["ort_node"]), None)
        diags = er["diagnostics"]
        at = [d for d in diags if (d.get("node") or {}).get("name") == m["ort_node"]
              or (idx is not None and (d.get("node") or {}).get("index") == idx and
                  (d.get("node") or {}).get("graph") in (None, "", model.graph.name, "main"))]
        hit = [d for d in at if d.get("code") in want]
        rows.append({
            "id": m["id"], "kind": m["kind"], "model": m["model"], "family": m["family"], "detail": m["detail"],
            "edited_node": m["edited"], "ort_node": m["ort_node"], "ort_node_index": idx, "ort": m["ort"],
            "engine_status": er["status"], "engine_error": er["error"],
            "detected": bool(hit),
            "codes_at_node": sorted({d.get("code") for d in at}),
            "codes_elsewhere": sorted({d.get("code") for d in diags if d not in at}),
        })
    with open(os.path.join(out, "faults.json"), "w") as f:
        json.dump({"generated": len(meta), "kept": len(kept), "rows": rows,
                   "rejected_not_kept": [{k: v for k, v in m.items() if k in ("id", "detail", "ort")}
                                         for m in meta.values() if m not in kept]}, f, indent=1)
    # no error on any model onnxruntime runs
    fps = [(mid, r["engine"]["errors_reported"]) for mid, r in results.items()
           if r["truth"]["status"] == "ok" and r["engine"]["errors_reported"]]
    lines = ["## faults (onnxruntime rejects each with a broadcasting error)", "",
             "| kind | generated | kept | detected at the right node | reported elsewhere only | missed |",
             "|---|---:|---:|---:|---:|---:|"]
    for kind in KINDS:
        gen_n = sum(1 for m in meta.values() if m["kind"] == kind)
        ks = [r for r in rows if r["kind"] == kind]
        det = sum(r["detected"] for r in ks)
        else_ = sum(1 for r in ks if not r["detected"] and r["codes_elsewhere"])
        lines.append(f"| {kind} | {gen_n} | {len(ks)} | {det} | {else_} | {len(ks) - det - else_} |")
    lines += ["", f"False positives: the engine reported an error on {len(fps)} of "
                  f"{sum(1 for r in results.values() if r['truth']['status'] == 'ok')} models onnxruntime runs"
              + (": " + ", ".join(m for m, _ in fps[:20]) if fps else ".")]
    return {"rows": rows, "table": "\n".join(lines), "false_positives": fps}
