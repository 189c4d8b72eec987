"""Inferred shapes (engine and ONNX) scored against runtime truth."""
from __future__ import annotations

import json
import os
import subprocess
import time

import onnx

from .symexpr import ExprError, Unbound, evaluate, parse

ENGINE_TIMEOUT = 120


# ----------------------------------------------------------------- engine ---
def run_engine(binary, model_path, timeout=ENGINE_TIMEOUT):
    """Run onnx-bcast-lint on one model; never raises.

    Returns {"status": "ok"|"failed", "error", "exit", "time", "shapes", "diagnostics"}."""
    res = {"status": "failed", "error": None, "exit": None, "time": None, "shapes": {}, "diagnostics": []}
    if not binary or not os.path.exists(binary):
        res["error"] = f"binary not found: {binary}"
        return res
    t0 = time.time()
    try:
        p = subprocess.run([binary, "--format", "json", "--shapes", model_path], capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        res["error"] = f"timeout after {timeout}s"
        res["time"] = round(time.time() - t0, 3)
        return res
    except OSError as e:
        res["error"] = f"cannot execute: {e}"
        return res
    res["time"] = round(time.time() - t0, 4)
    res["exit"] = p.returncode
    if p.returncode not in (0, 1, 2):
        res["error"] = f"exit code {p.returncode}: {p.stderr.decode(errors='replace')[-300:]}"
        return res
    try:
        doc = json.loads(p.stdout)
        f = doc["files"][0]
    except Exception as e:
        tail = (p.stderr or p.stdout).decode(errors="replace").strip()[-300:]
        res["error"] = f"no JSON report (exit {p.returncode}): {type(e).__name__}: {e}; output: {tail!r}"
        return res
    if f.get("status") != "ok":
        err = f.get("error") or {}
        res["error"] = f"file status {f.get('status')}: {err.get('code')}: {err.get('message')}"
        res["diagnostics"] = f.get("diagnostics") or []
        return res
    res["status"] = "ok"
    res["stats"] = f.get("stats") or {}
    res["shapes"] = f.get("shapes") or {}
    res["diagnostics"] = f.get("diagnostics") or []
    return res


# ------------------------------------------------------------------- onnx ---
def _dims_of(t):
    if not t.HasField("tensor_type") or not t.tensor_type.HasField("shape"):
        return None
    out = []
    for d in t.tensor_type.shape.dim:
        if d.HasField("dim_value") and d.dim_value >= 0:
            out.append(int(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param and not d.dim_param.startswith("unk__"):
            out.append(d.dim_param)
        else:
            out.append(None)
    return out


def onnx_infer(model):
    """ONNX's own inference in the contract's shape format (unk__N -> unknown)."""
    res = {"status": "ok", "mode": "strict", "error": None, "time": None, "shapes": {}}
    t0 = time.time()
    try:
        inf = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    except Exception as e:
        res["mode"] = "non-strict"
        res["error"] = f"strict: {type(e).__name__}: {str(e)[:300]}"
        try:
            inf = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
        except Exception as e2:
            res["status"] = "failed"
            res["error"] += f"; non-strict: {type(e2).__name__}: {str(e2)[:300]}"
            res["time"] = round(time.time() - t0, 4)
            return res
    res["time"] = round(time.time() - t0, 4)
    g = inf.graph
    shapes = {}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        shapes[vi.name] = _dims_of(vi.type)
    for i in g.initializer:
        shapes[i.name] = [int(d) for d in i.dims]
    res["shapes"] = shapes
    return res


# ---------------------------------------------------------------- scoring ---
def _eval_dim(d, env):
    """('unknown'|'unevaluable'|'value', value)."""
    if d is None:
        return "unknown", None
    if isinstance(d, bool):
        return "unevaluable", None
    if isinstance(d, int):
        return "value", d
    if isinstance(d, str):
        try:
            return "value", evaluate(d, env)
        except Unbound:
            return "unevaluable", None
        except (ExprError, ZeroDivisionError):
            return "unevaluable", None
    return "unevaluable", None


def empty_counts():
    return {"values": 0, "dims": 0, "known": 0, "unevaluable": 0, "correct": 0, "wrong": 0,
            "rank_known": 0, "rank_correct": 0}


def add_counts(a, b):
    for k, v in b.items():
        a[k] = a.get(k, 0) + v
    return a


def _bare_fresh(d):
    """The engine's fresh symbol (`NonZero#3`, `Resize#0`: its names of data-dependent sizes
    contain '#') when the dim is that symbol alone, else None."""
    if not isinstance(d, str) or "#" not in d:
        return None
    try:
        node = parse(d)
    except ExprError:
        return None
    return node.value if node.kind == "name" and "#" in node.value else None


def _fresh_values(binds, shapes, names):
    """Per binding, what each fresh symbol is at run time, read where a dim is the bare symbol,
    and the symbols read with two different values there (each is one size, so that is a wrong
    inference). Dims built from the symbols (`(Resize#0+1)/2`) are then evaluated and checked
    like any other, rather than left unevaluable."""
    envs, conflicts = [], []
    for b in binds:
        seen, bad = {}, set()
        for name in names:
            inferred, real = shapes.get(name), b["shapes"].get(name)
            if not isinstance(inferred, list) or real is None or len(inferred) != len(real):
                continue
            for d, v in zip(inferred, real):
                sym = _bare_fresh(d)
                if sym is None:
                    continue
                if seen.setdefault(sym, v) != v:
                    bad.add(sym)
        env = dict(b["env"])
        env.update({k: v for k, v in seen.items() if k not in bad})
        envs.append(env)
        conflicts.append(bad)
    return envs, conflicts


def score(truth, producers, shapes):
    """Score inferred `shapes` (name -> dims|None) on node outputs of the main graph.

    Returns (counts, per_op counts, wrong list)."""
    total, per_op, wrong = empty_counts(), {}, []
    binds = truth.get("bindings") or []
    if not binds:
        return total, per_op, wrong
    names = [n for n in producers if any(n in b["shapes"] for b in binds)]
    envs, conflicts = _fresh_values(binds, shapes, names)
    clashing = set().union(*conflicts)
    for name in names:
        idx, op, dom = producers[name]
        opk = op if dom in ("", "ai.onnx") else f"{dom}:{op}"
        c = empty_counts()
        truths = [(env, b["shapes"][name]) for b, env in zip(binds, envs) if name in b["shapes"]]
        rank = len(truths[0][1])
        inferred = shapes.get(name)
        c["values"] = 1
        c["dims"] = rank
        if inferred is not None and isinstance(inferred, list):
            c["rank_known"] = 1
            if len(inferred) != rank:
                c["known"] = rank
                c["wrong"] = rank
                wrong.append({"value": name, "node": idx, "op": opk, "axis": None, "inferred": inferred,
                              "truth": [t for _, t in truths], "why": "rank"})
            else:
                c["rank_correct"] = 1
                for ax in range(rank):
                    d = inferred[ax]
                    kinds, ok = set(), True
                    got = []
                    for env, t in truths:
                        kind, v = _eval_dim(d, env)
                        kinds.add(kind)
                        got.append(v)
                        if kind == "value" and v != t[ax]:
                            ok = False
                    if "unknown" in kinds:
                        continue
                    c["known"] += 1
                    if _bare_fresh(d) in clashing:
                        # One symbol, two sizes in one run: not a size at all.
                        c["wrong"] += 1
                        wrong.append({"value": name, "node": idx, "op": opk, "axis": ax, "inferred": d,
                                      "truth": [t[ax] for _, t in truths], "why": "fresh symbol with two sizes"})
                    elif "unevaluable" in kinds:
                        c["unevaluable"] += 1
                    elif ok:
                        c["correct"] += 1
                    else:
                        c["wrong"] += 1
                        wrong.append({"value": name, "node": idx, "op": opk, "axis": ax, "inferred": d,
                                      "evaluated": got, "truth": [t[ax] for _, t in truths],
                                      "env": [e for e, _ in truths]})
        add_counts(total, c)
        add_counts(per_op.setdefault(opk, empty_counts()), c)
    return total, per_op, wrong


def pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "-"


def coverage(c):
    return pct(c["known"], c["dims"])


def accuracy(c):
    return pct(c["correct"], c["known"] - c["unevaluable"])
