"""Check the committed fixtures against make_models.py and onnxruntime.

Same venv as make_models.py (see its docstring). Run:

    /tmp/fixvenv/bin/python tests/models/verify_models.py

It checks, and prints one line per fixture:
- determinism: make_models.py run twice into fresh directories gives identical bytes, equal to
  the committed files;
- ok_*: onnxruntime loads and runs the model (ok_external_data with its data file recreated in a
  temporary directory, since that file is deliberately absent from the repo);
- e1_*: onnxruntime rejects the model, at session creation or at run time (which one is printed);
- w1_*: onnxruntime runs it for sizes that satisfy the condition and fails for sizes that do not;
- i1_custom_op: the unrelated Add still fails once the custom op is swapped for Identity;
- load_*: the Python protobuf parser's verdict, for comparison with the Rust loader.
Exits 1 if any expectation fails.
"""

from __future__ import annotations

import filecmp
import shutil
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

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

# Sizes for symbolic dims: GOOD satisfy every fixture's condition, BAD break the W1 ones.
GOOD = {"batch": 2, "seq": 5, "n": 1, "m": 1}
BAD = {
    "w1_symbolic.onnx": {"batch": 2, "seq": 5},
    "w1_two_symbols.onnx": {"n": 2, "m": 3},
    "w1_forced_one.onnx": {"n": 3},
    "w1_emptiable_patch_grid.onnx": {"h": 8, "w": 8},
    "w1_expand_swapped_target.onnx": {"batch": 3, "seq": 2},
}
EXTRA_GOOD = {
    "w1_symbolic.onnx": [{"batch": 2, "seq": 1}, {"batch": 3, "seq": 77}],
    "w1_two_symbols.onnx": [{"n": 4, "m": 4}, {"n": 1, "m": 6}],
    "w1_forced_one.onnx": [{"n": 1}],
    # The grid is empty there and nothing fails: the Add runs.
    "w1_emptiable_patch_grid.onnx": [{"h": 3, "w": 8}, {"h": 8, "w": 2}],
    "w1_expand_swapped_target.onnx": [{"batch": 1, "seq": 5}, {"batch": 4, "seq": 1}],
}
GOOD_OVERRIDE = {
    "w1_symbolic.onnx": {"batch": 2, "seq": 77},
    "w1_emptiable_patch_grid.onnx": {"h": 1, "w": 1},
    "w1_expand_swapped_target.onnx": {"batch": 2, "seq": 2},
}
# E1s said to fail for every non-empty input, checked at sizes on both sides of the condition.
EVERY_SIZE_FAILS = {
    # h or w <= 3 fails at the Conv (empty output), larger ones at the Add.
    "e1_empty_patch_grid.onnx": [{"h": 1, "w": 1}, {"h": 3, "w": 8}, {"h": 8, "w": 2},
                                 {"h": 4, "w": 4}, {"h": 16, "w": 12}],
}

failures: list[str] = []

LEGACY = {"ok_legacy_broadcast.onnx", "e1_legacy_axis.onnx"}


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


def run_legacy(path: Path) -> tuple[str, str]:
    """onnxruntime has no opset 6 kernels, so evaluate the (Add/Mul only) graph in numpy."""
    m = onnx.load(str(path))
    env = {t.name: onnx.numpy_helper.to_array(t) for t in m.graph.initializer}
    env.update(feeds(m, GOOD))
    try:
        for n in m.graph.node:
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
            env[n.output[0]] = legacy_binary(n.op_type, env[n.input[0]], env[n.input[1]], attrs)
    except ValueError as e:
        return "run", str(e)
    return "ran", ""


def report(name: str, ok: bool, what: str) -> None:
    print(f"{'PASS' if ok else 'FAIL'}  {name}: {what}")
    if not ok:
        failures.append(name)


def feeds(model: onnx.ModelProto, sizes: dict[str, int]) -> dict[str, np.ndarray]:
    inits = {t.name for t in model.graph.initializer}
    out = {}
    for inp in model.graph.input:
        if inp.name in inits:
            continue
        tt = inp.type.tensor_type
        shape = [d.dim_value if d.HasField("dim_value") else sizes[d.dim_param]
                 for d in tt.shape.dim]
        n = int(np.prod(shape)) if shape else 1
        dtype = NP_TYPES[tt.elem_type]
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


def run(path: Path, sizes: dict[str, int], model: onnx.ModelProto | None = None):
    """Returns (stage, error): stage is 'ran', 'session' or 'run'."""
    model = model if model is not None else onnx.load(str(path), load_external_data=False)
    try:
        if model is not None and path is None:
            sess = ort.InferenceSession(model.SerializeToString())
        else:
            sess = ort.InferenceSession(str(path))
    except Exception as e:  # noqa: BLE001 - any ORT failure is the verdict we record
        return "session", str(e).splitlines()[0][:160]
    try:
        sess.run(None, feeds(model, sizes))
    except Exception as e:  # noqa: BLE001
        return "run", str(e).splitlines()[0][:160]
    return "ran", ""


def check_determinism() -> None:
    with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
        make_models.main(Path(a))
        make_models.main(Path(b))
        names = sorted(make_models.BUILDERS)
        same_runs = all(filecmp.cmp(Path(a) / n, Path(b) / n, shallow=False) for n in names)
        same_disk = all(filecmp.cmp(Path(a) / n, HERE / n, shallow=False) for n in names)
        report("determinism", same_runs, "two runs give identical bytes")
        report("committed", same_disk, "committed files equal a fresh run")


def main() -> int:
    check_determinism()
    for name in sorted(make_models.BUILDERS):
        path = HERE / name
        prefix = name.split("_")[0]
        if name in LEGACY:
            stage, err = run(path, GOOD)
            ort_note = f"onnxruntime: {stage} {err[:70]}"
            stage, err = run_legacy(path)
            want = "ran" if prefix == "ok" else "run"
            report(name, stage == want, f"numpy opset-6 rule {stage} {err}; {ort_note}")
            continue
        if prefix == "ok":
            if name == "ok_external_data.onnx":
                with tempfile.TemporaryDirectory() as tmp:
                    shutil.copy(path, tmp)
                    data = Path(tmp) / make_models.EXTERNAL_DATA_FILE
                    data.write_bytes(make_models.external_data_bytes())
                    stage, err = run(Path(tmp) / name, GOOD)
                absent = not (HERE / make_models.EXTERNAL_DATA_FILE).exists()
                stage_alone, _ = run(path, GOOD)
                report(name, stage == "ran" and absent and stage_alone != "ran",
                       f"runs with the data file ({stage} {err}); without it ORT: {stage_alone}")
                continue
            stage, err = run(path, GOOD)
            if name == "ok_subgraphs.onnx" and stage == "ran":
                m = onnx.load(str(path))
                f = feeds(m, GOOD)
                f["cond"] = np.array(False)
                ort.InferenceSession(str(path)).run(None, f)
            try:
                onnx.checker.check_model(onnx.load(str(path)), full_check=True)
                checker = "onnx checker ok"
            except Exception as e:  # noqa: BLE001
                checker = "onnx checker: " + str(e).splitlines()[0][:100]
            report(name, stage == "ran", f"onnxruntime {stage} {err}; {checker}")
        elif prefix == "e1" and name in EVERY_SIZE_FAILS:
            verdicts = [run(path, sizes) for sizes in EVERY_SIZE_FAILS[name]]
            real = all(stage != "ran" and "NOT_IMPLEMENTED" not in err for stage, err in verdicts)
            report(name, real, "onnxruntime fails at every size: "
                               + "; ".join(f"{stage} {err[:60]}" for stage, err in verdicts))
        elif prefix == "e1":
            stage, err = run(path, GOOD)
            real = stage != "ran" and "NOT_IMPLEMENTED" not in err
            report(name, real, f"onnxruntime fails at {stage}: {err}")
        elif prefix == "w1":
            sizes_good = [GOOD_OVERRIDE.get(name, GOOD)] + EXTRA_GOOD[name]
            verdicts = [run(path, s)[0] for s in sizes_good]
            bad_stage, bad_err = run(path, BAD[name])
            ok = all(v == "ran" for v in verdicts) and bad_stage != "ran"
            report(name, ok, f"runs for {sizes_good}; {BAD[name]} fails at {bad_stage}: "
                             f"{bad_err}")
        elif prefix == "e2":
            stage, err = run(path, GOOD)
            try:
                onnx.shape_inference.infer_shapes(onnx.load(str(path)), strict_mode=True)
                strict = "accepts it"
            except Exception as e:  # noqa: BLE001
                strict = "rejects it: " + str(e).splitlines()[-1][:110]
            report(name, strict != "accepts it",
                   f"onnxruntime {stage} (value_info is not enforced); onnx strict inference "
                   f"{strict}")
        elif prefix == "e3":
            stage, err = run(path, GOOD)
            # Not a requirement: ORT's verdict is informative only.
            print(f"INFO  {name}: onnxruntime {stage} {err}")
        elif prefix == "i1":
            stage, err = run(path, GOOD)
            m = onnx.load(str(path))
            for n in m.graph.node:
                if n.domain == "com.example":
                    n.op_type, n.domain = "Identity", ""
                    del n.attribute[:]
            stage2, err2 = run(None, GOOD, model=m)
            report(name, stage != "ran" and stage2 != "ran",
                   f"as is: {stage} {err}; custom op -> Identity: Add fails at {stage2}: {err2}")
        elif prefix == "load":
            try:
                m = onnx.ModelProto()
                m.ParseFromString(path.read_bytes())
                verdict = f"parses (graph present: {m.HasField('graph')})"
            except Exception as e:  # noqa: BLE001
                verdict = f"parse error: {type(e).__name__}: {str(e)[:100]}"
            print(f"INFO  {name}: python protobuf {verdict}")
    print("all expectations met" if not failures else f"FAILED: {failures}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
