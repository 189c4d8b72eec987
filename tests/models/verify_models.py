"""Check the committed fixtures against make_models.py and onnxruntime.

Same venv as make_models.py (see its docstring). Run:

    /tmp/fixvenv/bin/python tests/models/verify_models.py

It checks, and prints one line per fixture (PASS, FAIL, or INFO when nothing is required):
- determinism: make_models.py run twice into fresh directories gives identical bytes, equal to
  the committed files; every .onnx here is one make_models.py writes;
- every fixture against its CASES entry (below), which gives the sizes and input values it is run
  at: ok_* run (ok_external_data with its data file recreated in a temporary directory, since
  that file is deliberately absent from the repo); e1_*/e4_* fail at every binding; w1_*/w4_* run
  where the finding's condition holds and fail where it does not; w2_* run in ORT while onnx strict
  inference rejects them; i1_custom_op's unrelated Add still fails once the custom op is swapped
  for Identity; i1_future_opset runs at opset 18; e3_* and load_* (the Python protobuf parser's
  verdict, for comparison with the Rust loader) are informative;
- a fixture without a CASES entry, a dim its entry gives no size, or a check that raises is a
  FAIL naming it, and the run goes on.
Prints the PASS/FAIL/INFO counts and the time taken; exits 1 if any expectation fails.
"""

from __future__ import annotations

import filecmp
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx.reference import ReferenceEvaluator

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import make_models  # noqa: E402

ort.set_default_logger_severity(4)

NP_TYPES = {
    onnx.TensorProto.FLOAT: np.float32,
    onnx.TensorProto.INT64: np.int64,
    onnx.TensorProto.INT32: np.int32,  # com.microsoft Attention's mask
    onnx.TensorProto.BOOL: np.bool_,
}

# What each fixture's name claims, as bindings to run it at. A binding maps a symbolic dim to a
# size, or a graph input to its value (a list or number); dims and inputs it leaves out take
# DEFAULT_DIMS and the generated data of `feeds`. Every fixture make_models.py writes needs an
# entry here (a missing one is a FAIL naming it), and the entry must fit its prefix:
#   ok_*       runs: bindings ORT must run at; fails: sizes outside the model's scope where ORT
#              fails although the linter rightly says nothing (shown, documented in the README);
#   e1_*, e4_* fails: ORT (or the numpy/reference engine) must fail at every binding;
#   w1_*, w4_* runs: bindings meeting the finding's condition (must run); fails: bindings
#              breaking it (must fail);
#   w2_*       ORT runs it and onnx strict shape inference rejects it;
#   e3_*, load_* informative only (ORT's / Python protobuf's verdict is printed).
# `engine` is "ort", "legacy" (the numpy opset-6 rule below: ORT has no opset-6 kernels) or
# "reference" (onnx.reference, where the README says ORT lags the operator doc).
DEFAULT_DIMS = {"batch": 2, "seq": 5}


@dataclass(frozen=True)
class Case:
    """The bindings one fixture is checked at (see the table's comment above)."""

    runs: tuple[dict, ...] = ()
    fails: tuple[dict, ...] = ()
    engine: str = "ort"
    note: str = ""


def case(runs=(), fails=(), engine="ort", note="") -> Case:
    """A Case from lists, so the table below reads without tuple punctuation."""
    return Case(tuple(runs), tuple(fails), engine, note)


STATIC = case(fails=[{}])

CASES: dict[str, Case] = {
    # Well-formed.
    "ok_attention24_short_mask.onnx": case(runs=[{}], engine="reference",
                                           note="ORT 1.31 refuses the short mask (README)"),
    "ok_captured_scales.onnx": case(runs=[{"cond": True}, {"cond": False}]),
    "ok_constant_forms.onnx": case(runs=[{}]),
    "ok_contrib_attention.onnx": case(runs=[{"batch": 2, "seq": 5}, {"batch": 1, "seq": 1}]),
    "ok_declared_counts.onnx": case(runs=[{}]),
    "ok_detection_head.onnx": case(runs=[{"anchors": 6}, {"anchors": 20}]),
    "ok_external_data.onnx": case(runs=[{}]),  # checked with its data file recreated
    "ok_initializer_inputs.onnx": case(
        runs=[{"batch": 1}], fails=[{"batch": 2}],
        note="the defaults only fit batch 1: the W1 of --initializers-as-constants"),
    "ok_legacy_broadcast.onnx": case(runs=[{}], engine="legacy"),
    "ok_local_function.onnx": case(runs=[{}]),
    "ok_loop_declared_body.onnx": case(
        runs=[{"trips": 1}], fails=[{"trips": 0}, {"trips": 2}],
        note="x_final is [3 + trips]: the linter leaves it unknown, so the Add is not judged"),
    "ok_named_sizes.onnx": case(runs=[{"n": 2, "k": [5], "h": 9, "w": 14},
                                      {"n": 3, "k": [1], "h": 16, "w": 16}]),
    "ok_narrowing_cast.onnx": case(runs=[{"batch": 2, "seq": 5}, {"batch": 1, "seq": 1}]),
    "ok_optional_inputs.onnx": case(runs=[{}]),
    "ok_prelu_per_channel_opset6.onnx": case(runs=[{}], engine="reference"),
    "ok_slice_computed_bounds.onnx": case(runs=[{"n": 1, "m": 1}, {"n": 5, "m": 7},
                                               {"n": 0, "m": 2}, {"n": 2, "m": 10}]),
    "ok_sparse_initializer.onnx": case(runs=[{}]),
    "ok_subgraphs.onnx": case(runs=[{"cond": True}, {"cond": False}]),
    "ok_symbolic_batch.onnx": case(runs=[{"batch": 2, "seq": 5}, {"batch": 1, "seq": 1}]),
    "ok_unnamed_nodes.onnx": case(runs=[{}]),
    # Errors: fail for every input.
    "e1_contrib_skip_bias.onnx": case(fails=[{"batch": 2, "seq": 5}, {"batch": 1, "seq": 1}]),
    "e1_declared_size.onnx": case(fails=[{"starts": [0], "ends": [6]}]),
    # h or w <= 3 fails at the Conv (empty output), larger ones at the Add.
    "e1_empty_patch_grid.onnx": case(fails=[{"h": 1, "w": 1}, {"h": 3, "w": 8}, {"h": 8, "w": 2},
                                            {"h": 4, "w": 4}, {"h": 16, "w": 12}]),
    "e1_expand.onnx": STATIC,
    "e1_expand_computed.onnx": case(fails=[{"batch": 1}, {"batch": 2}]),
    "e1_gemm_c.onnx": STATIC,
    "e1_layernorm_scale.onnx": STATIC,
    "e1_legacy_axis.onnx": case(fails=[{}], engine="legacy"),
    "e1_matmul_batch.onnx": STATIC,
    "e1_prelu_slope.onnx": STATIC,
    "e1_reshape_upstream.onnx": STATIC,
    "e1_static_mismatch.onnx": STATIC,
    "e1_transposed_table.onnx": STATIC,
    "e1_where.onnx": STATIC,
    "e4_attention_no_heads.onnx": STATIC,
    "e4_initializer_vs_input.onnx": STATIC,
    "e4_matmul_k.onnx": STATIC,
    # Holds only for batch = 0 or seq = 0: every non-empty input fails.
    "e4_reshape_count_empty_only.onnx": case(fails=[{"batch": 1, "seq": 1}, {"batch": 2, "seq": 5},
                                                    {"batch": 3, "seq": 1}]),
    # Conditional: the finding's condition, met and broken.
    "w1_chain_once.onnx": case(runs=[{"seq": 77}, {"seq": 1}], fails=[{"seq": 5}, {"seq": 2}]),
    "w1_conv_frames.onnx": case(runs=[{"batch": 1, "samples": s} for s in (20, 40, 79)],
                                fails=[{"batch": 1, "samples": s} for s in (19, 80, 100)]),
    "w1_emptiable_patch_grid.onnx": case(
        runs=[{"h": 1, "w": 1}, {"h": 3, "w": 8}, {"h": 8, "w": 2}],
        fails=[{"h": 8, "w": 8}, {"h": 4, "w": 4}]),
    "w1_expand_swapped_target.onnx": case(
        runs=[{"batch": 2, "seq": 2}, {"batch": 1, "seq": 5}, {"batch": 4, "seq": 1}],
        fails=[{"batch": 3, "seq": 2}]),
    "w1_forced_one.onnx": case(runs=[{"n": 1}], fails=[{"n": 3}, {"n": 4}]),
    # x's non-zero entries make `NonZero#0`: 1 and 4 meet the condition, 2 breaks it.
    "w1_nonzero_count.onnx": case(runs=[{"x": [0.0, 3.0, 0.0]}, {"x": [1.0, 2.0, 3.0, 4.0, 0.0]}],
                                  fails=[{"x": [1.0, 2.0]}, {"x": [0.0, 1.0, 0.0, 2.0]}]),
    "w1_position_table.onnx": case(runs=[{"seq": 1}, {"seq": 64}], fails=[{"seq": 65}]),
    "w1_stride_divisibility.onnx": case(runs=[{"H": h} for h in (1, 4, 29, 32, 61, 64)],
                                        fails=[{"H": h} for h in (5, 28, 33, 60)]),
    "w1_symbolic.onnx": case(runs=[{"seq": 77}, {"seq": 1}, {"batch": 3, "seq": 77}],
                             fails=[{"seq": 5}]),
    "w1_two_symbols.onnx": case(runs=[{"n": 1, "m": 1}, {"n": 4, "m": 4}, {"n": 1, "m": 6}],
                                fails=[{"n": 2, "m": 3}]),
    "w4_conv_declared_downstream.onnx": case(runs=[{"n": 8}, {"n": 20}],
                                             fails=[{"n": 7}, {"n": 4}]),
    # sr 16000 takes the then branch (kernel 256), any other rate the else branch (kernel 128).
    "w4_if_declared_outputs.onnx": case(
        runs=[{"n": 256, "sr": 16000}, {"n": 200, "sr": 8000}, {"n": 128, "sr": 8000}],
        fails=[{"n": 200, "sr": 16000}, {"n": 127, "sr": 8000}]),
    "w4_matmul_symbolic_k.onnx": case(runs=[{"k": 64}], fails=[{"k": 63}, {"k": 1}]),
    "w4_strided_convs_fold.onnx": case(
        runs=[{"H": 8, "W": 8}, {"H": 9, "W": 30}],
        fails=[{"H": 7, "W": 8}, {"H": 8, "W": 7}, {"H": 1, "W": 1}]),
    "w4_unbatched_branch.onnx": case(runs=[{"n": 2, "t": 1}], fails=[{"n": 2, "t": 2}]),
    # With t = 2 the If takes its else branch, so the Squeeze the W4 is on never runs: ORT fails
    # at the Gemm instead (it runs nodes that feed no output). The Squeeze's condition is one the
    # branch guarantees (the README: conditions are not yet carried into branches).
    "w4_unbatched_branch_unused.onnx": case(runs=[{"n": 2, "t": 1}], fails=[{"n": 2, "t": 2}]),
    # Declared shapes contradicting the inferred ones: ORT runs them.
    "w2_declared_mismatch.onnx": case(runs=[{}]),
    "w2_output_mismatch.onnx": case(runs=[{}]),
    # Unsupported ops and opsets: checked by check_i1.
    "i1_custom_op.onnx": STATIC,
    "i1_future_opset.onnx": STATIC,
}
INFO_PREFIXES = ("e3", "load")

failures: list[str] = []
counts = {"PASS": 0, "FAIL": 0, "INFO": 0}


def legacy_binary(op: str, a: np.ndarray, b: np.ndarray, attrs: dict) -> np.ndarray:
    """Opset 6 Add/Mul with the `broadcast`/`axis` attributes, written from the operator doc
    (onnx.defs.get_schema("Add", 6).doc): B is one element, or its shape is a contiguous run of
    A's shape starting at `axis` (suffix match when `axis` is absent). Raises on anything else."""
    if attrs.get("broadcast", 0) != 1:
        if a.shape != b.shape:
            raise ValueError(f"shapes {a.shape} and {b.shape} differ without broadcast=1")
    elif b.size != 1:
        axis = attrs.get("axis", a.ndim - b.ndim)
        if a.shape[axis : axis + b.ndim] != b.shape:
            raise ValueError(f"B {b.shape} is not A {a.shape} from axis {axis}")
        b = b.reshape(b.shape + (1,) * (a.ndim - axis - b.ndim))
    else:
        b = b.reshape(())
    return {"Add": np.add, "Mul": np.multiply}[op](a, b)


def run_legacy(m: onnx.ModelProto, binding: dict) -> tuple[str, str]:
    """onnxruntime has no opset 6 kernels, so evaluate the (Add/Mul only) graph in numpy."""
    env = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    env.update(feeds(m, binding))
    try:
        for n in m.graph.node:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
            env[n.output[0]] = legacy_binary(n.op_type, env[n.input[0]], env[n.input[1]], attrs)
    except ValueError as e:
        return "run", str(e)
    return "ran", ""


def report(name: str, ok: bool, what: str) -> None:
    verdict = "PASS" if ok else "FAIL"
    counts[verdict] += 1
    print(f"{verdict}  {name}: {what}")
    if not ok:
        failures.append(name)


class MissingBinding(Exception):
    """A symbolic dim the fixture's CASES entry (and DEFAULT_DIMS) gives no size."""


def feeds(model: onnx.ModelProto, binding: dict) -> dict[str, np.ndarray]:
    inits = {t.name for t in model.graph.initializer}
    out = {}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        tt = inp.type.tensor_type
        dtype = NP_TYPES[tt.elem_type]
        if inp.name in binding:
            out[inp.name] = np.asarray(binding[inp.name], dtype=dtype)
            continue
        shape = []
        for d in tt.shape.dim:
            if d.HasField("dim_value"):
                shape.append(d.dim_value)
            elif d.dim_param in binding or d.dim_param in DEFAULT_DIMS:
                shape.append(binding.get(d.dim_param, DEFAULT_DIMS.get(d.dim_param)))
            else:
                raise MissingBinding(f"no size for dim '{d.dim_param}' of input '{inp.name}': "
                                     "give it in the fixture's CASES entry")
        n = int(np.prod(shape)) if shape else 1
        if dtype is np.bool_:
            data = (np.arange(n) % 3) != 2  # mostly True, never all False
        elif dtype is np.int32:
            data = np.ones(n)  # a 0/1 attention mask: keep every position
        elif dtype is np.int64:
            data = np.arange(n) % 16
        else:
            data = ((np.arange(n) % 5) - 2) * 0.25
        out[inp.name] = np.asarray(data, dtype=dtype).reshape(shape)
    return out


def run(path: Path | None, binding: dict, model: onnx.ModelProto | None = None,
        engine: str = "ort") -> tuple[str, str]:
    """Returns (stage, error): stage is 'ran', 'session' or 'run'. `path` None runs `model`."""
    if model is None:
        model = onnx.load(str(path), load_external_data=False)
    inputs = feeds(model, binding)
    if engine == "legacy":
        return run_legacy(model, binding)
    try:
        if engine == "reference":
            sess = ReferenceEvaluator(model)
        elif path is None:
            sess = ort.InferenceSession(model.SerializeToString())
        else:
            sess = ort.InferenceSession(str(path))
    except Exception as e:  # noqa: BLE001 - any failure is the verdict we record
        return "session", brief(e)
    try:
        sess.run(None, inputs)
    except Exception as e:  # noqa: BLE001
        return "run", brief(e)
    return "ran", ""


# ORT's boilerplate around the part that says which node failed and why.
ORT_NOISE = re.compile(r"\[ONNXRuntimeError\] : \d+ : \w+ : |Non-zero status code returned while "
                       r"running |Load model from \S+ failed:|/onnxruntime_src/\S+ ")


def brief(e: Exception) -> str:
    text = ORT_NOISE.sub("", str(e).splitlines()[0] if str(e) else "")
    return text[:160] or type(e).__name__


def show(binding: dict) -> str:
    return ",".join(f"{k}={v}" for k, v in binding.items()) or "as is"


def verdicts(path: Path, bindings: tuple[dict, ...], engine: str) -> list[tuple[str, str]]:
    return [run(path, b, engine=engine) for b in bindings]


def real_failure(stage: str, err: str) -> bool:
    """ORT failing for lack of a kernel says nothing about the model."""
    return stage != "ran" and "NOT_IMPLEMENTED" not in err


def summary(bindings: tuple[dict, ...], results: list[tuple[str, str]]) -> str:
    return "; ".join(f"{show(b)}: {stage}{' ' + err[:90] if err else ''}"
                     for b, (stage, err) in zip(bindings, results)) or "(no bindings given)"


def ort_note(path: Path, c: Case) -> str:
    """For fixtures judged by another engine, what onnxruntime says (informative)."""
    if c.engine == "ort":
        return ""
    stage, err = run(path, c.runs[0] if c.runs else c.fails[0])
    return f"; onnxruntime: {stage} {err[:70]}"


def check_ok(name: str, path: Path, c: Case) -> None:
    if name == "ok_external_data.onnx":
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copy(path, tmp)
            data = Path(tmp) / make_models.EXTERNAL_DATA_FILE
            data.write_bytes(make_models.external_data_bytes())
            stage, err = run(Path(tmp) / name, {})
        absent = not (HERE / make_models.EXTERNAL_DATA_FILE).exists()
        stage_alone, _ = run(path, {})
        report(name, stage == "ran" and absent and stage_alone != "ran",
               f"runs with the data file ({stage} {err}); without it ORT: {stage_alone}")
        return
    ran = verdicts(path, c.runs, c.engine)
    outside = verdicts(path, c.fails, c.engine)
    try:
        onnx.checker.check_model(onnx.load(str(path)), full_check=True)
        checker = "onnx checker ok"
    except Exception as e:  # noqa: BLE001
        checker = "onnx checker: " + str(e).splitlines()[0][:100]
    ok = bool(ran) and all(s == "ran" for s, _ in ran) and all(s != "ran" for s, _ in outside)
    what = f"{c.engine} runs at {summary(c.runs, ran)}"
    if c.fails:
        what += f"; outside its scope ({c.note}) fails at {summary(c.fails, outside)}"
    elif c.note:
        what += f" ({c.note})"
    report(name, ok, f"{what}{ort_note(path, c)}; {checker}")


def check_always_fails(name: str, path: Path, c: Case) -> None:
    res = verdicts(path, c.fails, c.engine)
    ok = bool(res) and not c.runs and all(real_failure(s, e) for s, e in res)
    report(name, ok, f"{c.engine} fails at {summary(c.fails, res)}{ort_note(path, c)}")


def check_condition(name: str, path: Path, c: Case) -> None:
    ran = verdicts(path, c.runs, c.engine)
    res = verdicts(path, c.fails, c.engine)
    ok = (bool(ran) and bool(res) and all(s == "ran" for s, _ in ran)
          and all(real_failure(s, e) for s, e in res))
    report(name, ok, f"condition met, runs at {summary(c.runs, ran)}; broken, fails at "
                     f"{summary(c.fails, res)}")


def check_w2(name: str, path: Path, c: Case) -> None:
    ran = verdicts(path, c.runs, c.engine)
    try:
        onnx.shape_inference.infer_shapes(onnx.load(str(path)), strict_mode=True)
        strict = "accepts it"
    except Exception as e:  # noqa: BLE001
        strict = "rejects it: " + str(e).splitlines()[-1][:110]
    ok = bool(ran) and all(s == "ran" for s, _ in ran) and strict != "accepts it"
    report(name, ok, f"onnxruntime runs at {summary(c.runs, ran)} (value_info is not "
                     f"enforced); onnx strict inference {strict}")


def check_i1(name: str, path: Path, c: Case) -> None:
    stage, err = run(path, {})
    m = onnx.load(str(path))
    if name == "i1_future_opset.onnx":
        # ORT refuses the opset; at the newest opset the engine knows, the same graph runs.
        for o in m.opset_import:
            if o.domain in ("", "ai.onnx"):
                o.version = 18
        stage2, err2 = run(None, {}, model=m)
        report(name, stage == "session" and "opset" in err.lower() and stage2 == "ran",
               f"as is: {stage} {err[:90]}; at opset 18: {stage2} {err2}")
        return
    for n in m.graph.node:
        if n.domain == "com.example":
            n.op_type, n.domain = "Identity", ""
            del n.attribute[:]
    stage2, err2 = run(None, {}, model=m)
    report(name, stage != "ran" and real_failure(stage2, err2),
           f"as is: {stage} {err}; custom op -> Identity: Add fails at {stage2}: {err2}")


def note(name: str, what: str) -> None:
    counts["INFO"] += 1
    print(f"INFO  {name}: {what}")


def info(name: str, path: Path) -> None:
    if name.startswith("load"):
        try:
            m = onnx.ModelProto()
            m.ParseFromString(path.read_bytes())
            verdict = f"parses (graph present: {m.HasField('graph')})"
        except Exception as e:  # noqa: BLE001
            verdict = f"parse error: {type(e).__name__}: {str(e)[:100]}"
        note(name, f"python protobuf {verdict}")
    else:
        stage, err = run(path, {})
        note(name, f"onnxruntime {stage} {err}")


CHECKS = {"ok": check_ok, "e1": check_always_fails, "e4": check_always_fails,
          "w1": check_condition, "w4": check_condition, "w2": check_w2, "i1": check_i1}


def check_determinism() -> None:
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        make_models.main(Path(a))
        make_models.main(Path(b))
        names = sorted(make_models.BUILDERS)
        same_runs = all(filecmp.cmp(Path(a) / n, Path(b) / n, shallow=False) for n in names)
        same_disk = all(filecmp.cmp(Path(a) / n, HERE / n, shallow=False) for n in names)
        report("determinism", same_runs, "two runs give identical bytes")
        report("committed", same_disk, "committed files equal a fresh run")


def check_known() -> None:
    """Every fixture on disk is written by make_models.py, and every one written has an entry."""
    written = set(make_models.BUILDERS) | {"load_directory.onnx"}
    on_disk = {p.name for p in HERE.glob("*.onnx")}
    stray = sorted(on_disk - written)
    report("written", not stray, "every .onnx here is written by make_models.py"
                                 + (f"; not: {', '.join(stray)}" if stray else ""))
    for name in sorted(written):
        prefix = name.split("_")[0]
        if name not in CASES and prefix not in INFO_PREFIXES:
            report(name, False, "verify_models.py has no CASES entry for it: add the bindings "
                                "at which onnxruntime must run / fail (see the table's comment)")


def main() -> int:
    start = time.monotonic()
    check_determinism()
    check_known()
    for name in sorted(set(make_models.BUILDERS) | {"load_directory.onnx"}):
        path = HERE / name
        prefix = name.split("_")[0]
        try:
            if prefix in INFO_PREFIXES:
                info(name, path)
            elif name not in CASES:
                continue  # reported by check_known
            elif prefix not in CHECKS:
                report(name, False, f"no check for the prefix '{prefix}' in verify_models.py")
            else:
                CHECKS[prefix](name, path, CASES[name])
        except Exception as e:  # noqa: BLE001 - one broken fixture must not hide the rest
            report(name, False, f"verify_models.py could not check it: {type(e).__name__}: {e}")
    stray = sorted(set(CASES) - set(make_models.BUILDERS))
    if stray:
        report("cases", False, f"CASES entries for fixtures make_models.py does not write: {stray}")
    print(" ".join(f"{k} {v}" for k, v in counts.items()),
          f"in {time.monotonic() - start:.1f}s")
    print("all expectations met" if not failures else f"FAILED: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
