"""Build the committed ONNX fixtures of onnx-bcast-lint's tests.

The generated files are committed so that the Rust tests need no Python; rerun this script only
when a fixture changes, then review the diff of tests/models/ like code.

Set up once (pinned so that the bytes written here do not drift with the onnx package):

    python3 -m venv /tmp/fixvenv
    /tmp/fixvenv/bin/pip install onnx==1.23.2 numpy onnxruntime

Regenerate (writes next to this file, whatever the working directory):

    /tmp/fixvenv/bin/python tests/models/make_models.py

Determinism: fixed IR version and opsets, weights derived from np.arange (no randomness), no
timestamps or producer versions, and every file is written from
`SerializeToString(deterministic=True)` or from bytes built here. Running the script twice gives
byte-identical files; tests/models/verify_models.py checks that and runs the fixtures in
onnxruntime.

Naming: a file's name starts with the outcome the linter must report (`ok_`, `e1_`, `w1_`, `e2_`,
`e3_`, `i1_`, `load_`); README.md lists file, purpose and expected codes.

Malformed files (`load_*`) are written as raw protobuf bytes, because onnx.helper cannot express
them; the small protobuf encoder below follows
https://protobuf.dev/programming-guides/encoding/.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent

IR_VERSION = 10
OPSET = 18  # ai.onnx opset of every fixture unless its builder says otherwise
LEGACY_OPSET = 6  # last opset with the `broadcast`/`axis` attributes on Add/Mul
PRODUCER = "onnx-bcast-lint make_models.py"

F = TensorProto.FLOAT
I64 = TensorProto.INT64
BOOL = TensorProto.BOOL

# name -> builder; filled by the @fixture decorator in definition order.
BUILDERS: dict[str, object] = {}


def fixture(name):
    def register(fn):
        BUILDERS[name] = fn
        return fn

    return register


# --------------------------------------------------------------------------- helpers


def weights(shape, scale=0.1, offset=3):
    """Deterministic float32 weights: a small repeating ramp, never random."""
    n = int(np.prod(shape)) if shape else 1
    return (((np.arange(n) % 7) - offset) * scale).astype(np.float32).reshape(shape)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def i64s(name, values):
    return numpy_helper.from_array(np.asarray(values, dtype=np.int64), name)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def model(graph, opset=OPSET, extra_opsets=(), functions=(), ir_version=IR_VERSION):
    opsets = [helper.make_opsetid("", opset)]
    opsets += [helper.make_opsetid(d, v) for d, v in extra_opsets]
    m = helper.make_model(graph, opset_imports=opsets, functions=list(functions))
    m.ir_version = ir_version
    m.producer_name = PRODUCER
    return m


def graph(nodes, name, inputs, outputs, initializer=(), value_info=(), sparse=()):
    return helper.make_graph(
        nodes,
        name,
        inputs,
        outputs,
        initializer=list(initializer),
        value_info=list(value_info),
        sparse_initializer=list(sparse),
    )


def node(op, inputs, outputs, name=None, domain=None, **attrs):
    return helper.make_node(op, inputs, outputs, name=name, domain=domain, **attrs)


# --------------------------------------------------------------------------- raw protobuf


def varint(value: int) -> bytes:
    """Base-128 varint; negative int64 values use their 64-bit two's complement (10 bytes)."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def tag(field: int, wire_type: int) -> bytes:
    return varint((field << 3) | wire_type)


def ld(field: int, payload: bytes) -> bytes:
    """A length-delimited field (wire type 2): strings, bytes, sub-messages, packed repeats."""
    return tag(field, 2) + varint(len(payload)) + payload


def vint(field: int, value: int) -> bytes:
    """A varint field (wire type 0)."""
    return tag(field, 0) + varint(value)


# Field numbers from proto/onnx.proto.
MODEL_IR_VERSION, MODEL_OPSET_IMPORT, MODEL_PRODUCER_NAME, MODEL_GRAPH = 1, 8, 2, 7
OPSET_DOMAIN, OPSET_VERSION = 1, 2
GRAPH_NODE, GRAPH_NAME, GRAPH_INITIALIZER, GRAPH_INPUT, GRAPH_OUTPUT = 1, 2, 5, 11, 12
NODE_INPUT, NODE_OUTPUT, NODE_NAME, NODE_OP_TYPE, NODE_ATTRIBUTE = 1, 2, 3, 4, 5
ATTR_NAME, ATTR_G, ATTR_TYPE = 1, 6, 20
ATTR_TYPE_GRAPH = 5
VI_NAME = 1
TENSOR_DIMS, TENSOR_DATA_TYPE, TENSOR_NAME, TENSOR_RAW_DATA = 1, 2, 8, 9


def model_header(opset=OPSET) -> bytes:
    """ModelProto fields before the graph: ir_version, producer_name, opset_import."""
    return (
        vint(MODEL_IR_VERSION, IR_VERSION)
        + ld(MODEL_PRODUCER_NAME, PRODUCER.encode())
        + ld(MODEL_OPSET_IMPORT, ld(OPSET_DOMAIN, b"") + vint(OPSET_VERSION, opset))
    )


# =========================================================================== ok_*: must load


@fixture("ok_subgraphs.onnx")
def ok_subgraphs():
    """If (both branches read outer `w`; else holds a nested If), Loop reading outer `w`, Scan."""
    x = vi("x", F, [2, 3])
    cond = vi("cond", BOOL, [])
    w = init("w", weights([3]))
    trip = i64s("trip", 3)
    keep_going = numpy_helper.from_array(np.array(True), "keep_going")

    # The nested If inside the else branch reads `x`, `w` and `cond` from two scopes up.
    inner_then = graph(
        [node("Mul", ["x", "w"], ["inner_then_out"], name="inner_mul")],
        "inner_then",
        [],
        [vi("inner_then_out", F, [2, 3])],
    )
    inner_else = graph(
        [node("Sub", ["x", "w"], ["inner_else_out"], name="inner_sub")],
        "inner_else",
        [],
        [vi("inner_else_out", F, [2, 3])],
    )
    then_branch = graph(
        [node("Add", ["x", "w"], ["then_out"], name="then_add")],
        "then_branch",
        [],
        [vi("then_out", F, [2, 3])],
    )
    else_branch = graph(
        [
            node("Not", ["cond"], ["not_cond"], name="else_not"),
            node(
                "If",
                ["not_cond"],
                ["else_out"],
                name="nested_if",
                then_branch=inner_then,
                else_branch=inner_else,
            ),
        ],
        "else_branch",
        [],
        [vi("else_out", F, [2, 3])],
    )

    # Loop body: (iter, cond, v) -> (cond, v + w); `w` comes from the outer graph.
    loop_body = graph(
        [
            node("Identity", ["cond_in"], ["cond_out"], name="body_cond"),
            node("Add", ["v_in", "w"], ["v_out"], name="body_add"),
        ],
        "loop_body",
        [vi("iter", I64, []), vi("cond_in", BOOL, []), vi("v_in", F, [2, 3])],
        [vi("cond_out", BOOL, []), vi("v_out", F, [2, 3])],
    )

    # Scan over the rows of x: running sum state [3], per-row output [3].
    scan_body = graph(
        [
            node("Add", ["s_in", "row"], ["s_out"], name="scan_add"),
            node("Identity", ["s_out"], ["row_out"], name="scan_copy"),
        ],
        "scan_body",
        [vi("s_in", F, [3]), vi("row", F, [3])],
        [vi("s_out", F, [3]), vi("row_out", F, [3])],
    )

    nodes = [
        node("If", ["cond"], ["if_out"], name="if", then_branch=then_branch,
             else_branch=else_branch),
        node("Loop", ["trip", "keep_going", "x"], ["loop_out"], name="loop", body=loop_body),
        node("Scan", ["w", "x"], ["scan_state", "scan_rows"], name="scan", body=scan_body,
             num_scan_inputs=1),
    ]
    g = graph(
        nodes,
        "ok_subgraphs",
        [x, cond],
        [
            vi("if_out", F, [2, 3]),
            vi("loop_out", F, [2, 3]),
            vi("scan_state", F, [3]),
            vi("scan_rows", F, [2, 3]),
        ],
        initializer=[w, trip, keep_going],
    )
    return model(g)


EXTERNAL_DATA_FILE = "ok_external_data.weights.bin"


def external_tensor(name, shape, offset):
    """A float tensor whose bytes live in EXTERNAL_DATA_FILE; shape comes from dims only."""
    t = TensorProto()
    t.name = name
    t.data_type = F
    t.dims.extend(shape)
    t.data_location = TensorProto.EXTERNAL
    length = int(np.prod(shape)) * 4
    for key, value in (("location", EXTERNAL_DATA_FILE), ("offset", str(offset)),
                       ("length", str(length))):
        entry = t.external_data.add()
        entry.key = key
        entry.value = value
    return t


def external_data_bytes():
    """Contents the absent data file would have; verify_models.py writes it in a temp dir."""
    return weights([3, 4]).tobytes() + weights([4], offset=1).tobytes()


@fixture("ok_external_data.onnx")
def ok_external_data():
    """Initializers stored as external data; the data file is deliberately not committed."""
    g = graph(
        [
            node("MatMul", ["x", "W"], ["xw"], name="matmul"),
            node("Add", ["xw", "b"], ["y"], name="bias"),
        ],
        "ok_external_data",
        [vi("x", F, [2, 3])],
        [vi("y", F, [2, 4])],
        initializer=[external_tensor("W", [3, 4], 0), external_tensor("b", [4], 48)],
    )
    return model(g)


@fixture("ok_unnamed_nodes.onnx")
def ok_unnamed_nodes():
    """Nodes without names: one with `name` absent, one with `name` present but empty."""
    relu = node("Relu", ["x"], ["r"])  # name field absent
    add = node("Add", ["r", "b"], ["a"])
    add.name = ""  # name field present, empty string
    mul = node("Mul", ["a", "b"], ["y"])
    mul.name = ""
    g = graph(
        [relu, add, mul],
        "ok_unnamed_nodes",
        [vi("x", F, [2, 3])],
        [vi("y", F, [2, 3])],
        initializer=[init("b", weights([3]))],
    )
    return model(g)


@fixture("ok_optional_inputs.onnx")
def ok_optional_inputs():
    """Absent optional inputs spelled as empty names: Clip without min, Resize without roi."""
    g = graph(
        [
            node("Clip", ["x", "", "hi"], ["clipped"], name="clip_no_min"),
            node("Resize", ["clipped", "", "scales"], ["y"], name="resize_no_roi",
                 mode="nearest"),
        ],
        "ok_optional_inputs",
        [vi("x", F, [1, 1, 2, 3])],
        [vi("y", F, [1, 1, 4, 6])],
        initializer=[
            init("hi", np.array(0.5, dtype=np.float32)),
            init("scales", np.array([1, 1, 2, 2], dtype=np.float32)),
        ],
    )
    return model(g)


@fixture("ok_captured_scales.onnx")
def ok_captured_scales():
    """Both branches of an If resize `x` by `scales`, a float initializer of the main graph
    that they capture: the scales are read as data through the capture (y: [1, 1, 4, 6])."""
    def branch(name):
        return helper.make_graph(
            [node("Resize", ["x", "", "scales"], [name + "_y"], name=name + "_resize",
                  mode="nearest")],
            name, [], [helper.make_tensor_value_info(name + "_y", F, None)],
        )
    g = graph(
        [node("If", ["cond"], ["y"], name="if", then_branch=branch("then"),
              else_branch=branch("else"))],
        "ok_captured_scales",
        [vi("x", F, [1, 1, 2, 3]), vi("cond", BOOL, [])],
        [helper.make_tensor_value_info("y", F, None)],
        initializer=[init("scales", np.array([1, 1, 2, 2], dtype=np.float32))],
    )
    return model(g)


@fixture("ok_local_function.onnx")
def ok_local_function():
    """A model-local FunctionProto (local.fns::AddRelu) called from the main graph."""
    fn = helper.make_function(
        "local.fns",
        "AddRelu",
        ["a", "b"],
        ["c"],
        [node("Add", ["a", "b"], ["t"]), node("Relu", ["t"], ["c"])],
        opset_imports=[helper.make_opsetid("", OPSET)],
    )
    g = graph(
        [node("AddRelu", ["x", "bias"], ["y"], name="call", domain="local.fns")],
        "ok_local_function",
        [vi("x", F, [2, 3])],
        [vi("y", F, [2, 3])],
        initializer=[init("bias", weights([3]))],
    )
    return model(g, extra_opsets=[("local.fns", 1)], functions=[fn])


@fixture("ok_symbolic_batch.onnx")
def ok_symbolic_batch():
    """One attention block over symbolic [batch, seq]: every broadcast is valid for all sizes."""
    vocab, d, heads = 16, 8, 2
    dh = d // heads
    inits = [
        init("emb", weights([vocab, d])),
        init("ln_scale", np.ones([d], dtype=np.float32)),
        init("ln_bias", np.zeros([d], dtype=np.float32)),
        init("wq", weights([d, d], offset=1)),
        init("bq", weights([d], offset=2)),
        init("wk", weights([d, d], offset=2)),
        init("bk", weights([d], offset=4)),
        init("wv", weights([d, d], offset=5)),
        init("bv", weights([d], offset=0)),
        init("wo", weights([d, d], offset=6)),
        init("bo", weights([d], offset=3)),
        i64s("i0", [0]),
        i64s("i1", [1]),
        i64s("n_heads", [heads]),
        i64s("head_dim", [dh]),
        i64s("model_dim", [d]),
        i64s("mask_axes", [1, 2]),
        init("inv_sqrt_dh", np.array(1.0 / np.sqrt(dh), dtype=np.float32)),
        init("neg_big", np.array(-1e4, dtype=np.float32)),
    ]
    nodes = [
        node("Gather", ["emb", "ids"], ["h0"], name="embed"),  # [batch, seq, d]
        node("LayerNormalization", ["h0", "ln_scale", "ln_bias"], ["h1"], name="ln", axis=-1),
        # Head-split target [batch, seq, heads, dh] computed from the runtime shape.
        node("Shape", ["h1"], ["h1_shape"], name="shape"),
        node("Gather", ["h1_shape", "i0"], ["batch"], name="get_batch", axis=0),
        node("Gather", ["h1_shape", "i1"], ["seq"], name="get_seq", axis=0),
        node("Concat", ["batch", "seq", "n_heads", "head_dim"], ["split_shape"],
             name="split_shape", axis=0),
        node("Concat", ["batch", "seq", "model_dim"], ["merge_shape"], name="merge_shape",
             axis=0),
        node("Concat", ["batch", "n_heads", "seq", "seq"], ["score_shape"],
             name="score_shape", axis=0),
    ]
    for p in ("q", "k", "v"):
        nodes += [
            node("MatMul", ["h1", f"w{p}"], [f"{p}_mm"], name=f"{p}_proj"),
            node("Add", [f"{p}_mm", f"b{p}"], [f"{p}_lin"], name=f"{p}_bias"),
            node("Reshape", [f"{p}_lin", "split_shape"], [f"{p}_split"], name=f"{p}_split"),
        ]
    nodes += [
        node("Transpose", ["q_split"], ["qh"], name="q_heads", perm=[0, 2, 1, 3]),
        node("Transpose", ["k_split"], ["kt"], name="k_heads_t", perm=[0, 2, 3, 1]),
        node("Transpose", ["v_split"], ["vh"], name="v_heads", perm=[0, 2, 1, 3]),
        node("MatMul", ["qh", "kt"], ["scores_raw"], name="scores"),  # [b, h, s, s]
        node("Mul", ["scores_raw", "inv_sqrt_dh"], ["scores"], name="scale"),
        # Padding mask [batch, seq] -> [batch, 1, 1, seq] -> expanded to [b, h, s, s].
        node("Unsqueeze", ["mask", "mask_axes"], ["mask4"], name="mask_unsqueeze"),
        node("Expand", ["mask4", "score_shape"], ["mask_full"], name="mask_expand"),
        node("Where", ["mask_full", "scores", "neg_big"], ["masked"], name="apply_mask"),
        node("Softmax", ["masked"], ["probs"], name="softmax", axis=-1),
        node("MatMul", ["probs", "vh"], ["ctx"], name="context"),  # [b, h, s, dh]
        node("Transpose", ["ctx"], ["ctx_t"], name="merge_heads_t", perm=[0, 2, 1, 3]),
        node("Reshape", ["ctx_t", "merge_shape"], ["ctx_m"], name="merge_heads"),
        node("MatMul", ["ctx_m", "wo"], ["o_mm"], name="o_proj"),
        node("Add", ["o_mm", "bo"], ["o"], name="o_bias"),
        node("Add", ["h0", "o"], ["y"], name="residual"),
    ]
    g = graph(
        nodes,
        "ok_symbolic_batch",
        [vi("ids", I64, ["batch", "seq"]), vi("mask", BOOL, ["batch", "seq"])],
        [vi("y", F, ["batch", "seq", d])],
        initializer=inits,
    )
    return model(g)


@fixture("ok_sparse_initializer.onnx")
def ok_sparse_initializer():
    """A [3, 4] initializer stored in graph.sparse_initializer (COO, linearised indices)."""
    values = init("S", np.array([1.0, 2.0, 3.0], dtype=np.float32))
    indices = i64s("S_indices", [0, 5, 11])
    sparse = helper.make_sparse_tensor(values, indices, [3, 4])
    g = graph(
        [node("Add", ["x", "S"], ["y"], name="add_sparse")],
        "ok_sparse_initializer",
        [vi("x", F, [3, 4])],
        [vi("y", F, [3, 4])],
        sparse=[sparse],
    )
    return model(g)


@fixture("ok_constant_forms.onnx")
def ok_constant_forms():
    """Constant in each attribute form: value, sparse_value, value_float(s), value_int(s),
    value_string(s); the numeric ones feed broadcasts whose shapes come only from them."""
    sparse = helper.make_sparse_tensor(
        init("sv", np.array([5.0], dtype=np.float32)), i64s("sv_idx", [4]), [2, 3]
    )
    nodes = [
        node("Constant", [], ["c_tensor"], name="c_value", value=init("t", weights([2, 3]))),
        node("Constant", [], ["c_sparse"], name="c_sparse_value", sparse_value=sparse),
        node("Constant", [], ["c_float"], name="c_value_float", value_float=2.0),
        node("Constant", [], ["c_floats"], name="c_value_floats", value_floats=[1.0, 2.0, 3.0]),
        node("Constant", [], ["c_int"], name="c_value_int", value_int=3),
        node("Constant", [], ["c_ints"], name="c_value_ints", value_ints=[2, 3]),
        node("Constant", [], ["c_string"], name="c_value_string", value_string="label"),
        node("Constant", [], ["c_strings"], name="c_value_strings", value_strings=["a", "b"]),
        node("Reshape", ["x", "c_ints"], ["x23"], name="reshape"),  # [6] -> [2, 3]
        node("Add", ["x23", "c_tensor"], ["a1"], name="add_tensor"),
        node("Add", ["a1", "c_sparse"], ["a2"], name="add_sparse"),
        node("Mul", ["a2", "c_float"], ["a3"], name="mul_scalar"),
        node("Add", ["a3", "c_floats"], ["a4"], name="add_row"),
        node("Cast", ["c_int"], ["c_int_f"], name="cast_int", to=F),
        node("Mul", ["a4", "c_int_f"], ["y"], name="mul_int"),
    ]
    g = graph(
        nodes,
        "ok_constant_forms",
        [vi("x", F, [6])],
        [vi("y", F, [2, 3]), vi("c_string", TensorProto.STRING, []),
         vi("c_strings", TensorProto.STRING, [2])],
    )
    return model(g)


@fixture("ok_legacy_broadcast.onnx")
def ok_legacy_broadcast():
    """Opset 6 limited broadcast used correctly: axis=1, suffix match, one-element B."""
    g = graph(
        [
            node("Add", ["a", "b_axis1"], ["s1"], name="add_axis1", broadcast=1, axis=1),
            node("Mul", ["s1", "b_suffix"], ["s2"], name="mul_suffix", broadcast=1),
            node("Add", ["s2", "b_one"], ["y"], name="add_one_element", broadcast=1),
        ],
        "ok_legacy_broadcast",
        # IR 3 requires every initializer to be listed as a graph input too.
        [vi("a", F, [2, 3, 4, 5]), vi("b_axis1", F, [3, 4]), vi("b_suffix", F, [4, 5]),
         vi("b_one", F, [1])],
        [vi("y", F, [2, 3, 4, 5])],
        initializer=[
            init("b_axis1", weights([3, 4])),
            init("b_suffix", weights([4, 5], offset=1)),
            init("b_one", np.array([0.5], dtype=np.float32)),
        ],
    )
    return model(g, opset=LEGACY_OPSET, ir_version=3)


# =========================================================================== E1: never broadcast


@fixture("ok_detection_head.onnx")
def ok_detection_head():
    """Post-processing after NonMaxSuppression: the selected count is one data-dependent size
    n; the class and box columns are gathered, the boxes picked from the flattened anchors, each
    box offset by its class (batched-NMS's trick, a [n, 4] + [n, 1] broadcast) and the class
    appended (Concat to [n, 5]). Every value after NMS carries n, so the broadcast holds."""
    g = graph(
        [
            node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou"], ["selected"],
                 name="/postprocess/nms"),
            node("Gather", ["selected", "col_class"], ["cls"], name="/postprocess/class", axis=1),
            node("Gather", ["selected", "col_box"], ["box_index"], name="/postprocess/index", axis=1),
            node("Reshape", ["boxes", "flat"], ["all_boxes"], name="/postprocess/flatten"),
            node("Gather", ["all_boxes", "box_index"], ["picked"], name="/postprocess/pick", axis=0),
            node("Cast", ["cls"], ["cls_f"], name="/postprocess/cast", to=F),
            node("Unsqueeze", ["cls_f", "one"], ["cls_col"], name="/postprocess/column"),
            node("Mul", ["cls_col", "spread"], ["offset"], name="/postprocess/offset"),
            node("Add", ["picked", "offset"], ["shifted"], name="/postprocess/shift"),
            node("Concat", ["picked", "cls_col"], ["detections"], name="/postprocess/concat", axis=1),
        ],
        "ok_detection_head",
        [vi("boxes", F, [1, "anchors", 4]), vi("scores", F, [1, 3, "anchors"])],
        [vi("detections", F, None), vi("shifted", F, None)],
        initializer=[
            i64s("max_out", [10]),
            init("iou", np.array([0.5], dtype=np.float32)),
            init("col_class", np.array(1, dtype=np.int64)),
            init("col_box", np.array(2, dtype=np.int64)),
            i64s("flat", [-1, 4]),
            i64s("one", [1]),
            init("spread", np.array([4096.0], dtype=np.float32)),
        ],
    )
    return model(g)


@fixture("ok_named_sizes.onnx")
def ok_named_sizes():
    """Sizes taken from values the engine cannot compute. A `k` given as a graph input feeds
    two `TopK` nodes, whose outputs are added; torchvision's resize computes the output size of
    a `Resize` in float (`floor(h * 0.7)`), and the same `sizes` value resizes two tensors that
    are then added. Each unknown element is named once (`TopK#0`, `Resize#1`...), where a size is
    first taken from it, and every reader of the value shares the name, so both `Add`
    broadcasts are proven."""
    g = graph(
        [
            node("TopK", ["scores", "k"], ["top_a", "index_a"], name="/head/topk_scores", axis=1),
            node("TopK", ["logits", "k"], ["top_b", "index_b"], name="/head/topk_logits", axis=1),
            node("Add", ["top_a", "top_b"], ["top_sum"], name="/head/add"),
            node("Shape", ["image"], ["image_shape"], name="/resize/shape", start=2),
            node("Cast", ["image_shape"], ["hw"], name="/resize/cast", to=F),
            node("Mul", ["hw", "ratio"], ["scaled"], name="/resize/scale"),
            node("Floor", ["scaled"], ["floored"], name="/resize/floor"),
            node("Cast", ["floored"], ["new_hw"], name="/resize/size", to=TensorProto.INT64),
            node("Concat", ["nc", "new_hw"], ["sizes"], name="/resize/sizes", axis=0),
            node("Resize", ["image", "", "", "sizes"], ["small"], name="/resize/image"),
            node("Resize", ["mask", "", "", "sizes"], ["small_mask"], name="/resize/mask"),
            node("Mul", ["small", "small_mask"], ["masked"], name="/resize/apply"),
        ],
        "ok_named_sizes",
        [
            vi("scores", F, ["n", 100]),
            vi("logits", F, ["n", 50]),
            vi("k", TensorProto.INT64, [1]),
            vi("image", F, [1, 3, "h", "w"]),
            vi("mask", F, [1, 3, "h", "w"]),
        ],
        [vi("top_sum", F, None), vi("masked", F, None)],
        initializer=[
            init("ratio", np.array([0.7], dtype=np.float32)),
            i64s("nc", [1, 3]),
        ],
    )
    return model(g)


def unbatched_branch_model(name, used):
    """TorchScript's export of a module that takes batched and unbatched inputs: `If(Equal(t,
    1))` squeezes axis 2 away ([n, 8]) or keeps it ([n, 8, t]), and a Gemm, which takes only 2-D
    inputs, follows. Every run taking the else branch fails at the Gemm, so every run the model
    accepts takes the then branch. With `used` false the Gemm's output is no graph output."""
    then_branch = helper.make_graph(
        [node("Squeeze", ["x", "axis2"], ["squeezed"], name="/rnn/squeeze")],
        "then", [], [vi("squeezed", F, None)])
    else_branch = helper.make_graph(
        [node("Identity", ["x"], ["kept"], name="/rnn/keep")],
        "else", [], [vi("kept", F, None)])
    outputs = [vi("y", F, None)] if used else [vi("frames", F, None)]
    g = graph(
        [
            node("Shape", ["x"], ["shape"], name="/rnn/shape"),
            node("Gather", ["shape", "two"], ["t"], name="/rnn/frames", axis=0),
            node("Equal", ["t", "one"], ["single"], name="/rnn/single"),
            node("If", ["single"], ["frames"], name="/rnn/unbatch",
                 then_branch=then_branch, else_branch=else_branch),
            node("Gemm", ["frames", "w"], ["y"], name="/rnn/cell"),
        ],
        name,
        [vi("x", F, ["n", 8, "t"])],
        outputs,
        initializer=[
            init("two", np.array(2, dtype=np.int64)),
            init("one", np.array(1, dtype=np.int64)),
            i64s("axis2", [2]),
            init("w", weights([8, 4])),
        ],
    )
    return model(g)


@fixture("w4_unbatched_branch.onnx")
def w4_unbatched_branch():
    """Runs with t = 1 and fails with t = 2 (the Gemm): the If's output is [n, 8], y is [n, 4]."""
    return unbatched_branch_model("w4_unbatched_branch", used=True)


@fixture("w4_if_declared_outputs.onnx")
def w4_if_declared_outputs():
    """silero-vad's shape: an `If` on the sample rate whose branches frame the audio with strided
    convolutions (kernel 256 stride 128 at 16 kHz, kernel 128 stride 64 at 8 kHz), each branch
    declaring its output's rank without sizes. Unbound: a W4 in each branch (n ≥ 256, n ≥ 128).
    With n = 200 the 16 kHz branch fails (E4); its output is then unknown but for the declared
    rank, which must not read as the branches differing (that settled the If on the 8 kHz branch
    and left the failing one unchecked)."""
    def branch(tag, kernel):
        return helper.make_graph(
            [node("Conv", ["frames", f"w{kernel}"], [f"out_{tag}"], name=f"/{tag}/stft/Conv",
                  kernel_shape=[kernel], strides=[kernel // 2])],
            tag, [], [vi(f"out_{tag}", F, [None, None, None])])
    g = graph(
        [
            node("Unsqueeze", ["x", "one"], ["frames"], name="/frames"),
            node("Equal", ["sr", "rate16k"], ["is16k"], name="/is16k"),
            node("If", ["is16k"], ["y"], name="/rate",
                 then_branch=branch("then", 256), else_branch=branch("else", 128)),
        ],
        "w4_if_declared_outputs",
        [vi("x", F, ["batch", "n"]), vi("sr", I64, [])],
        [vi("y", F, None)],
        initializer=[i64s("one", [1]), init("rate16k", np.array(16000, dtype=np.int64)),
                     init("w256", weights([4, 1, 256])), init("w128", weights([4, 1, 128]))],
    )
    return model(g)


@fixture("w4_conv_declared_downstream.onnx")
def w4_conv_declared_downstream():
    """A framing Conv (kernel 8, stride 8) that needs n ≥ 8, then a mean over the frames added to
    a state [batch, 4]. The mean's value_info declares its rows as the exporter named them
    (`ReduceMean/r_dim_0`, as PyTorch's exporter writes `<op><value>_dim_<axis>`). With n = 4 the
    Conv fails (E4); the mean is downstream of that failure and raises nothing (its declaration
    would make the Add's rows `ReduceMean/r_dim_0` against `batch`: a second finding of one
    fault)."""
    g = graph(
        [
            node("Unsqueeze", ["x", "one"], ["wave"], name="/wave"),
            node("Conv", ["wave", "w"], ["frames"], name="/conv", kernel_shape=[8], strides=[8]),
            node("ReduceMean", ["frames", "two"], ["r"], name="/mean", keepdims=0),
            node("Add", ["r", "state"], ["y"], name="/add"),
        ],
        "w4_conv_declared_downstream",
        [vi("x", F, ["batch", "n"]), vi("state", F, ["batch", 4])],
        [vi("y", F, None)],
        initializer=[i64s("one", [1]), i64s("two", [2]), init("w", weights([4, 1, 8]))],
        value_info=[vi("r", F, ["ReduceMean/r_dim_0", 4])],
    )
    return model(g)


@fixture("w1_nonzero_count.onnx")
def w1_nonzero_count():
    """NonZero's count is data-dependent (a fresh symbol the engine makes); adding a [4] to the
    indices of the non-zero entries holds only if that count is 1 or 4. No `--dim` can bind the
    count: the help says where it comes from instead."""
    g = graph(
        [
            node("NonZero", ["x"], ["idx"], name="/nonzero"),
            node("Add", ["idx", "offsets"], ["y"], name="/shift"),
        ],
        "w1_nonzero_count",
        [vi("x", F, ["batch"])],
        [vi("y", I64, None)],
        initializer=[i64s("offsets", [0, 1, 2, 3])],
    )
    return model(g)


@fixture("w4_unbatched_branch_unused.onnx")
def w4_unbatched_branch_unused():
    """The same If, its output a graph output, and the Gemm's output unused. onnxruntime still
    runs the Gemm (and fails with t = 2), but nothing in ONNX makes a runtime run a node that
    feeds no output, so nothing proves which branch runs: `frames` stays of unknown rank."""
    return unbatched_branch_model("w4_unbatched_branch_unused", used=False)


def single_node(name, op, inputs, outputs, inits=(), opset=OPSET, **attrs):
    """One node whose graph inputs are the `inputs` not given as initializers."""
    init_names = {t.name for t in inits}
    g = graph(
        [node(op, [n for n, _, _ in inputs], [n for n, _, _ in outputs], name=op.lower(),
              **attrs)],
        name,
        [vi(n, e, s) for n, e, s in inputs if n not in init_names],
        [vi(n, e, s) for n, e, s in outputs],
        initializer=inits,
    )
    return model(g, opset=opset)


@fixture("e1_static_mismatch.onnx")
def e1_static_mismatch():
    """Add([2, 3], [4]): axis 1 is 3 vs 4."""
    return single_node("e1_static_mismatch", "Add",
                       [("x", F, [2, 3]), ("y", F, [4])], [("z", F, None)],
                       inits=[init("y", weights([4]))])


@fixture("e1_contrib_skip_bias.onnx")
def e1_contrib_skip_bias():
    """com.microsoft SkipLayerNormalization(input [batch, seq, 8], skip, gamma [8], beta [8],
    bias [4]) as onnxruntime's optimizer fuses it: the bias cannot broadcast to the hidden axis
    (8 vs 4)."""
    inits = [init("gamma", weights([8])), init("beta", weights([8])), init("bias", weights([4]))]
    g = graph(
        [node("SkipLayerNormalization", ["x", "skip", "gamma", "beta", "bias"], ["y"], name="skip_ln",
              domain="com.microsoft", epsilon=1e-5)],
        "e1_contrib_skip_bias",
        [vi("x", F, ["batch", "seq", 8]), vi("skip", F, ["batch", "seq", 8])],
        [vi("y", F, None)],
        initializer=inits,
    )
    return model(g, extra_opsets=[("com.microsoft", 1)])


@fixture("ok_contrib_attention.onnx")
def ok_contrib_attention():
    """A BERT layer as onnxruntime's optimizer writes it: com.microsoft Attention (raw 2-D mask),
    SkipLayerNormalization with bias, FastGelu; every dim follows batch and seq."""
    inits = [init("qkv_w", weights([8, 24])), init("qkv_b", weights([24])), init("up_w", weights([8, 16])),
             init("up_b", weights([16])), init("gamma", weights([8])), init("beta", weights([8])),
             init("ln_b", weights([8]))]
    g = graph(
        [node("Attention", ["x", "qkv_w", "qkv_b", "mask"], ["att"], name="attention",
              domain="com.microsoft", num_heads=2),
         node("SkipLayerNormalization", ["att", "x", "gamma", "beta", "ln_b"], ["ln"], name="skip_ln",
              domain="com.microsoft"),
         node("MatMul", ["ln", "up_w"], ["up"], name="up"),
         node("FastGelu", ["up", "up_b"], ["y"], name="gelu", domain="com.microsoft")],
        "ok_contrib_attention",
        [vi("x", F, ["batch", "seq", 8]), vi("mask", TensorProto.INT32, ["batch", "seq"])],
        [vi("y", F, ["batch", "seq", 16])],
        initializer=inits,
    )
    return model(g, extra_opsets=[("com.microsoft", 1)])


@fixture("e1_where.onnx")
def e1_where():
    """Where(cond [2, 3], x [2, 3], y [2]): y's last axis 2 vs 3."""
    return single_node("e1_where", "Where",
                       [("cond", BOOL, [2, 3]), ("x", F, [2, 3]), ("y", F, [2])],
                       [("z", F, None)])


@fixture("e1_matmul_batch.onnx")
def e1_matmul_batch():
    """MatMul([2, 3, 4], [5, 4, 6]): matrix dims agree, batch dims 2 vs 5 do not."""
    return single_node("e1_matmul_batch", "MatMul",
                       [("a", F, [2, 3, 4]), ("b", F, [5, 4, 6])], [("c", F, None)])


@fixture("e1_gemm_c.onnx")
def e1_gemm_c():
    """Gemm(A [2, 3], B [3, 4], C [3]): C must broadcast one way to [2, 4]; 3 vs 4."""
    return single_node("e1_gemm_c", "Gemm",
                       [("A", F, [2, 3]), ("B", F, [3, 4]), ("C", F, [3])], [("Y", F, None)],
                       inits=[init("B", weights([3, 4])), init("C", weights([3]))])


@fixture("e1_prelu_slope.onnx")
def e1_prelu_slope():
    """PRelu(x [2, 3, 4], slope [3]): a per-channel slope needs [3, 1]; as is, 3 vs 4."""
    return single_node("e1_prelu_slope", "PRelu",
                       [("x", F, [2, 3, 4]), ("slope", F, [3])], [("y", F, None)],
                       inits=[init("slope", weights([3]))])


@fixture("e1_layernorm_scale.onnx")
def e1_layernorm_scale():
    """LayerNormalization over the last axis of [2, 3, 4] with scale [3] (bias [4] is right)."""
    return single_node("e1_layernorm_scale", "LayerNormalization",
                       [("x", F, [2, 3, 4]), ("scale", F, [3]), ("bias", F, [4])],
                       [("y", F, None)],
                       inits=[init("scale", np.ones([3], np.float32)),
                              init("bias", np.zeros([4], np.float32))],
                       axis=-1)


@fixture("e1_expand.onnx")
def e1_expand():
    """Expand(x [3, 4], shape = Constant [2, 5]): 4 vs 5 under the bidirectional rule."""
    g = graph(
        [
            node("Constant", [], ["target"], name="target", value=i64s("t", [2, 5])),
            node("Expand", ["x", "target"], ["y"], name="expand"),
        ],
        "e1_expand",
        [vi("x", F, [3, 4])],
        [vi("y", F, None)],
    )
    return model(g)


@fixture("e1_expand_computed.onnx")
def e1_expand_computed():
    """Expand(x [batch, 3], Concat(Shape(x)[0:1], [4])): 3 vs 4 whatever batch is."""
    g = graph(
        [
            node("Shape", ["x"], ["x_shape"], name="shape"),
            node("Gather", ["x_shape", "i0"], ["batch"], name="get_batch", axis=0),
            node("Concat", ["batch", "four"], ["target"], name="target", axis=0),
            node("Expand", ["x", "target"], ["y"], name="expand"),
        ],
        "e1_expand_computed",
        [vi("x", F, ["batch", 3])],
        [vi("y", F, None)],
        initializer=[i64s("i0", [0]), i64s("four", [4])],
    )
    return model(g)


@fixture("e1_reshape_upstream.onnx")
def e1_reshape_upstream():
    """Reshape to [2, 3, 4] (meant [2, 4, 3]); four nodes later Add(.. [2, 4, 3], bias [4])."""
    g = graph(
        [
            node("Reshape", ["x", "wrong_shape"], ["r"], name="reshape"),
            node("Relu", ["r"], ["a"], name="relu"),
            node("Transpose", ["a"], ["t"], name="transpose", perm=[0, 2, 1]),
            node("Mul", ["t", "gain"], ["m"], name="gain"),
            node("Add", ["m", "bias"], ["y"], name="bias"),
        ],
        "e1_reshape_upstream",
        [vi("x", F, [2, 12])],
        [vi("y", F, None)],
        initializer=[
            i64s("wrong_shape", [2, 3, 4]),
            init("gain", np.array(2.0, dtype=np.float32)),
            init("bias", weights([4])),
        ],
    )
    return model(g)


@fixture("e1_transposed_table.onnx")
def e1_transposed_table():
    """Add(x [2, 3], Transpose(w [3, 4])): axis 0 clashes (2 vs 4). The 4 is axis 1 of
    initializer w: its provenance goes through the Transpose's perm."""
    g = graph(
        [
            node("Transpose", ["w"], ["wt"], name="transpose", perm=[1, 0]),
            node("Add", ["x", "wt"], ["y"], name="add_transposed"),
        ],
        "e1_transposed_table",
        [vi("x", F, [2, 3])],
        [vi("y", F, None)],
        initializer=[init("w", weights([3, 4]))],
    )
    return model(g)


@fixture("e1_legacy_axis.onnx")
def e1_legacy_axis():
    """Opset 6 Add(A [2, 3, 4, 5], B [3, 4], broadcast=1, axis=2): B would need [4, 5]."""
    g = graph(
        [node("Add", ["a", "b"], ["y"], name="add", broadcast=1, axis=2)],
        "e1_legacy_axis",
        [vi("a", F, [2, 3, 4, 5]), vi("b", F, [3, 4])],  # IR 3: initializers are inputs too
        [vi("y", F, [2, 3, 4, 5])],
        initializer=[init("b", weights([3, 4]))],
    )
    return model(g, opset=LEGACY_OPSET, ir_version=3)


# =========================================================================== W1: conditional


@fixture("e4_matmul_k.onnx")
def e4_matmul_k():
    """MatMul(a [2, 3], w [4, 5]): the contracted dims K disagree (3 vs 4)."""
    return single_node("e4_matmul_k", "MatMul",
                       [("a", F, [2, 3]), ("w", F, [4, 5])], [("c", F, None)],
                       inits=[init("w", weights([4, 5]))])


@fixture("w4_matmul_symbolic_k.onnx")
def w4_matmul_symbolic_k():
    """MatMul(a [batch, k], w [64, 8]): valid only if k = 64."""
    return single_node("w4_matmul_symbolic_k", "MatMul",
                       [("a", F, ["batch", "k"]), ("w", F, [64, 8])], [("c", F, None)],
                       inits=[init("w", weights([64, 8]))])


@fixture("e4_attention_no_heads.onnx")
def e4_attention_no_heads():
    """Opset 23 Attention with 3-D Q/K/V and no q_num_heads/kv_num_heads, feeding an Add."""
    g = graph(
        [
            node("Attention", ["q", "k", "v"], ["y"], name="attn"),
            node("Add", ["y", "bias"], ["z"], name="add_bias"),
        ],
        "e4_attention_no_heads",
        [vi("q", F, [2, 4, 16]), vi("k", F, [2, 6, 16]), vi("v", F, [2, 6, 16])],
        [vi("z", F, None)],
        initializer=[init("bias", weights([16]))],
    )
    return model(g, opset=23)


@fixture("e4_initializer_vs_input.onnx")
def e4_initializer_vs_input():
    """Graph input `w` declared [3, 4] whose initializer (its default, IR 8) is [4, 3]."""
    g = graph([node("Add", ["x", "w"], ["z"], name="add")],
              "e4_initializer_vs_input",
              [vi("x", F, [4, 3]), vi("w", F, [3, 4])], [vi("z", F, None)],
              initializer=[init("w", weights([4, 3]))])
    return model(g, ir_version=8)


@fixture("ok_attention24_short_mask.onnx")
def ok_attention24_short_mask():
    """Opset 24 Attention whose mask's last dim (4) is shorter than total_sequence_length (6)."""
    return single_node("ok_attention24_short_mask", "Attention",
                       [("q", F, [2, 3, 4, 8]), ("k", F, [2, 3, 6, 8]), ("v", F, [2, 3, 6, 8]),
                        ("mask", F, [4, 4])],
                       [("y", F, None)], opset=24)


@fixture("ok_prelu_per_channel_opset6.onnx")
def ok_prelu_per_channel_opset6():
    """Opset 6 PRelu(x [2, 3, 4, 5], slope [3]): one slope per channel, as ONNX's
    pytorch-converted PReLU_*_multiparam tests have it."""
    x = helper.make_tensor_value_info("x", F, [2, 3, 4, 5])
    slope = helper.make_tensor_value_info("slope", F, [3])
    g = graph([node("PRelu", ["x", "slope"], ["y"], name="prelu")],
              "ok_prelu_per_channel_opset6", [x, slope], [vi("y", F, None)],
              initializer=[init("slope", weights([3]))])
    return model(g, opset=6, ir_version=3)


@fixture("ok_declared_counts.onnx")
def ok_declared_counts():
    """Data-dependent counts the model declares: NonZero's [2, 3] (adopted: a [2, 2] input has
    at most 4 non-zero entries), Unique's values `k` (a dim_param, adopted by every output that
    shares the count), Compress's [5, 2] (not adopted: a 3-long condition keeps at most 3)."""
    g = graph(
        [
            node("NonZero", ["x"], ["nz"], name="nonzero"),
            node("Transpose", ["nz"], ["nz_t"], name="transpose"),
            node("Unique", ["x"], ["u", "u_idx", "u_inv", "u_counts"], name="unique"),
            node("Compress", ["data", "keep"], ["kept"], name="compress", axis=0),
        ],
        "ok_declared_counts",
        [vi("x", F, [2, 2]), vi("data", F, [3, 2]), vi("keep", BOOL, [3])],
        [vi("nz_t", I64, None), vi("u", F, ["k"]), vi("u_counts", I64, None),
         vi("kept", F, [5, 2])],
        value_info=[vi("nz", I64, [2, 3])],
    )
    return model(g)


@fixture("e1_declared_size.onnx")
def e1_declared_size():
    """A finding that hangs on a declared size (issue 38, item 4): `Slice(x [3, 8])` with bounds
    the engine cannot read gives [3, ?]; the `value_info` of `s` declares [3, 6], taken for
    the unknown axis; `Add(s, b [5])` then clashes 6 against 5, and the help says the 6 is the
    declaration's. `t`'s declaration [4, 6] contradicts the inferred [3, ?] (W2): none of its
    sizes is taken, so `Add(t, b)` reports nothing."""
    g = graph(
        [
            node("Slice", ["x", "starts", "ends", "axes"], ["s"], name="slice_s"),
            node("Add", ["s", "b"], ["y"], name="add_s"),
            node("Slice", ["x", "starts", "ends", "axes"], ["t"], name="slice_t"),
            node("Add", ["t", "b"], ["z"], name="add_t"),
        ],
        "e1_declared_size",
        [vi("x", F, [3, 8]), vi("starts", I64, [1]), vi("ends", I64, [1])],
        [vi("y", F, None), vi("z", F, None)],
        initializer=[init("b", weights([5])), i64s("axes", [1])],
        value_info=[vi("s", F, [3, 6]), vi("t", F, [4, 6])],
    )
    return model(g)


@fixture("ok_loop_declared_body.onnx")
def ok_loop_declared_body():
    """A Loop whose carried value grows by one element per iteration (`Concat` with [1]), while
    the body declares it [3] in and [4] out, as a trace of one iteration would. The declarations
    contradict the iterations after the first, so the engine takes neither: `x_final` is [?]
    (onnxruntime: [4] after one iteration, [5] after two), and `Add(x_final, w [4])`, which
    fails from two iterations on, is left to the run-time check."""
    body = graph(
        [node("Concat", ["x_in", "one"], ["x_out"], name="grow", axis=0),
         node("Identity", ["cond_in"], ["cond_out"], name="keep_going")],
        "body",
        [vi("i", I64, []), vi("cond_in", BOOL, []), vi("x_in", F, [3])],
        [vi("cond_out", BOOL, []), vi("x_out", F, [4])],
        initializer=[init("one", np.ones([1], dtype=np.float32))],
    )
    g = graph(
        [node("Loop", ["trips", "", "x0"], ["x_final"], name="loop", body=body),
         node("Add", ["x_final", "w"], ["y"], name="add")],
        "ok_loop_declared_body",
        [vi("trips", I64, []), vi("x0", F, [3])],
        [vi("y", F, None)],
        initializer=[init("w", weights([4]))],
    )
    return model(g)


@fixture("ok_slice_computed_bounds.onnx")
def ok_slice_computed_bounds():
    """Slice bounds computed from `Shape` (issue 38, item 3), of a sign that depends on the
    sizes: `x[n-2 : n-1]` (negative, hence counted from the end, while n < 2: one element from
    n = 2 on, none below), `x[m-3:]` (m-3 < 0 counts from the end of x: stays unknown) and
    `x[:m-3]` likewise. onnxruntime at (n, m) = (1, 1): [0], [1], [0]; at (5, 7): [1], [1], [4]."""
    g = graph(
        [
            node("Shape", ["x"], ["xs"], name="shape_x"),
            node("Shape", ["y"], ["ys"], name="shape_y"),
            node("Sub", ["xs", "two"], ["n2"], name="n_minus_2"),
            node("Sub", ["xs", "one"], ["n1"], name="n_minus_1"),
            node("Sub", ["ys", "three"], ["m3"], name="m_minus_3"),
            node("Slice", ["x", "n2", "n1"], ["inner"], name="inner"),
            node("Slice", ["x", "m3", "end"], ["tail"], name="tail"),
            node("Slice", ["x", "zero", "m3"], ["head"], name="head"),
        ],
        "ok_slice_computed_bounds",
        [vi("x", F, ["n"]), vi("y", F, ["m"])],
        [vi("inner", F, None), vi("tail", F, None), vi("head", F, None)],
        initializer=[i64s("one", [1]), i64s("two", [2]), i64s("three", [3]),
                     i64s("zero", [0]), i64s("end", [2**63 - 1])],
    )
    return model(g)


@fixture("ok_narrowing_cast.onnx")
def ok_narrowing_cast():
    """Shape values through integer Casts: to int32 and back a symbolic shape is kept, to int16
    it is unknown (a size of 40000 wraps), and a known 300 cast to uint8 is 44 (the Cast doc's
    two's complement rule)."""
    g = graph(
        [
            node("Shape", ["s"], ["sh"], name="shape"),
            node("Cast", ["sh"], ["sh32"], name="to_int32", to=TensorProto.INT32),
            node("Cast", ["sh32"], ["back32"], name="from_int32", to=I64),
            node("Expand", ["one", "back32"], ["e32"], name="expand32"),
            node("Cast", ["sh"], ["sh16"], name="to_int16", to=TensorProto.INT16),
            node("Cast", ["sh16"], ["back16"], name="from_int16", to=I64),
            node("Expand", ["one", "back16"], ["e16"], name="expand16"),
            node("Cast", ["n300"], ["n8"], name="to_uint8", to=TensorProto.UINT8),
            node("Cast", ["n8"], ["n44"], name="from_uint8", to=I64),
            node("ConstantOfShape", ["n44"], ["zeros"], name="zeros"),
        ],
        "ok_narrowing_cast",
        [vi("s", F, ["batch", "seq"])],
        [vi("e32", F, None), vi("e16", F, None), vi("zeros", F, None)],
        initializer=[init("one", np.ones([1], dtype=np.float32)), i64s("n300", [300])],
    )
    return model(g)


@fixture("ok_initializer_inputs.onnx")
def ok_initializer_inputs():
    """IR 8 model whose Reshape target [-1, 3] and bias are initializers also listed as graph
    inputs (overridable defaults): their values are unknown by default, so nothing is reported;
    with --initializers-as-constants y is [2*batch, 3] and the Add with `other` [batch, 3] is a
    W1 (valid only if batch is 0 or 1) whose help notes the assumption."""
    g = graph(
        [
            node("Reshape", ["x", "target"], ["y"], name="reshape"),
            node("Add", ["y", "bias"], ["z"], name="add_bias"),
            node("Add", ["z", "other"], ["w"], name="add_other"),
        ],
        "ok_initializer_inputs",
        [vi("x", F, ["batch", 6]), vi("target", I64, [2]), vi("bias", F, [3]),
         vi("other", F, ["batch", 3])],
        [vi("w", F, None)],
        initializer=[i64s("target", [-1, 3]), init("bias", weights([3]))],
    )
    return model(g, ir_version=8)


@fixture("i1_future_opset.onnx")
def i1_future_opset():
    """Add at an opset newer than the engine's schema table (99): its version is unknown."""
    return single_node("i1_future_opset", "Add",
                       [("x", F, [2, 3]), ("y", F, [3])], [("z", F, None)], opset=99)


@fixture("w1_symbolic.onnx")
def w1_symbolic():
    """Add([batch, seq], [batch, 77]): valid only if seq is 1 or 77."""
    return single_node("w1_symbolic", "Add",
                       [("x", F, ["batch", "seq"]), ("y", F, ["batch", 77])], [("z", F, None)])


@fixture("w1_chain_once.onnx")
def w1_chain_once():
    """Add(x [batch, seq], y [batch, 77]) then Add(that, x): both need seq in {1, 77}: one W1."""
    g = graph(
        [
            node("Add", ["x", "y"], ["s"], name="add_first"),
            node("Add", ["s", "x"], ["z"], name="add_again"),
        ],
        "w1_chain_once",
        [vi("x", F, ["batch", "seq"]), vi("y", F, ["batch", 77])],
        [vi("z", F, None)],
    )
    return model(g)


@fixture("w1_two_symbols.onnx")
def w1_two_symbols():
    """Add([n], [m]): valid only if n = m, n = 1 or m = 1."""
    return single_node("w1_two_symbols", "Add",
                       [("x", F, ["n"]), ("y", F, ["m"])], [("z", F, None)])


@fixture("w1_forced_one.onnx")
def w1_forced_one():
    """Add([n], [3]) needs n in {1, 3}; Add([n], [4]) needs n in {1, 4}: together n = 1."""
    g = graph(
        [
            node("Add", ["x", "three"], ["y3"], name="add_three"),
            node("Add", ["x", "four"], ["y4"], name="add_four"),
        ],
        "w1_forced_one",
        [vi("x", F, ["n"])],
        [vi("y3", F, None), vi("y4", F, None)],
        initializer=[init("three", weights([3])), init("four", weights([4]))],
    )
    return model(g)


@fixture("w1_position_table.onnx")
def w1_position_table():
    """BERT-like embeddings: token rows [batch, seq, 8] plus the first seq rows of a 64-row
    position table (Slice ends = seq): [min(seq, 64), 8]. Valid only if seq <= 64."""
    g = graph(
        [
            node("Shape", ["input_ids"], ["ids_shape"], name="/embeddings/Shape"),
            node("Gather", ["ids_shape", "one"], ["seq_len"], name="/embeddings/Gather", axis=0),
            node("Slice", ["position_embeddings.weight", "zero", "seq_len", "zero"],
                 ["positions"], name="/embeddings/Slice"),
            node("Gather", ["word_embeddings.weight", "input_ids"], ["words"],
                 name="/embeddings/word_embeddings/Gather", axis=0),
            node("Add", ["words", "positions"], ["embeddings"], name="/embeddings/Add"),
        ],
        "w1_position_table",
        [vi("input_ids", I64, ["batch", "seq"])],
        [vi("embeddings", F, None)],
        initializer=[
            init("position_embeddings.weight", weights([64, 8])),
            init("word_embeddings.weight", weights([100, 8])),
            i64s("zero", [0]),
            i64s("one", [1]),
        ],
    )
    return model(g)


@fixture("w1_stride_divisibility.onnx")
def w1_stride_divisibility():
    """PaddleOCR-det-like feature pyramid: five 3x3 stride-2 convolutions (padding 1) halve the
    height H, rounding up, five times; the deepest map, upsampled 8x, is added to the second
    (height ceil(H/4)). Valid only if H <= 4 or ceil(H/4) is a multiple of 8 (H a multiple of 32
    is what such models document)."""
    nodes = []
    prev = "x"
    for i in range(1, 6):
        nodes.append(node("Conv", [prev, "w", "b"], [f"c{i}"], name=f"/backbone/conv{i}",
                          kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
        prev = f"c{i}"
    nodes.append(node("Resize", ["c5", "", "scales"], ["up"], name="/neck/Resize",
                      mode="nearest"))
    nodes.append(node("Add", ["up", "c2"], ["fused"], name="/neck/Add"))
    g = graph(
        nodes,
        "w1_stride_divisibility",
        [vi("x", F, [1, 4, "H", 32])],
        [vi("fused", F, None)],
        initializer=[
            init("w", weights([4, 4, 3, 3])),
            init("b", weights([4])),
            init("scales", np.asarray([1, 1, 8, 8], dtype=np.float32)),
        ],
    )
    return model(g)


@fixture("w1_conv_frames.onnx")
def w1_conv_frames():
    """wav2vec2-like feature encoder with an off-by-one: convolutions of stride 5, 2 and 2
    (kernels equal to the strides) turn `samples` into frames = samples/5/2/2; the frames after
    the first two (Slice 2:, max(frames-2, 0)) are added to the frames but the last (a Pad of -1,
    frames-1). Valid only while the shorter side can broadcast: frames <= 3, samples < 80. (With
    Slice 1: the sizes are frames-1 and max(frames-1, 0), equal wherever the Pad's output exists:
    valid, issue 38.)"""
    g = graph(
        [
            node("Unsqueeze", ["input_values", "one"], ["wave"], name="/feature_extractor/Unsqueeze"),
            node("Conv", ["wave", "k5"], ["f1"], name="/feature_extractor/conv0",
                 kernel_shape=[5], strides=[5]),
            node("Conv", ["f1", "k2"], ["f2"], name="/feature_extractor/conv1",
                 kernel_shape=[2], strides=[2]),
            node("Conv", ["f2", "k2"], ["frames"], name="/feature_extractor/conv2",
                 kernel_shape=[2], strides=[2]),
            node("Slice", ["frames", "two", "big", "two"], ["later"], name="/encoder/Slice"),
            node("Pad", ["frames", "crop_last"], ["pairs"], name="/encoder/pos_conv/Pad"),
            node("Add", ["later", "pairs"], ["hidden"], name="/encoder/Add"),
        ],
        "w1_conv_frames",
        [vi("input_values", F, ["batch", "samples"])],
        [vi("hidden", F, None)],
        initializer=[
            init("k5", weights([1, 1, 5])),
            init("k2", weights([1, 1, 2])),
            i64s("one", [1]),
            i64s("two", [2]),
            i64s("big", [2**62]),
            i64s("crop_last", [0, 0, 0, 0, 0, -1]),
        ],
    )
    return model(g)


@fixture("w4_strided_convs_fold.onnx")
def w4_strided_convs_fold():
    """Three stride-2 convolutions (kernel 2, no padding) need H >= 2, H >= 4 and H >= 8 (and the
    same of W) for their outputs to have a size of at least 1: the last implies the others, so one
    W4 states H >= 8 and W >= 8 and names the other two nodes (issue 37, EfficientNet)."""
    g = graph(
        [
            node("Conv", ["image", "k"], ["c1"], name="conv1", kernel_shape=[2, 2], strides=[2, 2]),
            node("Conv", ["c1", "k"], ["c2"], name="conv2", kernel_shape=[2, 2], strides=[2, 2]),
            node("Conv", ["c2", "k"], ["c3"], name="conv3", kernel_shape=[2, 2], strides=[2, 2]),
        ],
        "w4_strided_convs_fold",
        [vi("image", F, [1, 1, "H", "W"])],
        [vi("c3", F, None)],
        initializer=[init("k", weights([1, 1, 2, 2]))],
    )
    return model(g)


@fixture("e4_reshape_count_empty_only.onnx")
def e4_reshape_count_empty_only():
    """A Reshape to [batch, seq, 3] (taken from the input's own Shape) of a [batch, seq, 4] input:
    the element counts agree only when batch = 0 or seq = 0, so it fails for every non-empty input:
    an error, not a warning (issue 37)."""
    g = graph(
        [
            node("Shape", ["x"], ["s"], name="shape", end=2),
            node("Concat", ["s", "three"], ["target"], name="target", axis=0),
            node("Reshape", ["x", "target"], ["y"], name="reshape"),
        ],
        "e4_reshape_count_empty_only",
        [vi("x", F, ["batch", "seq", 4])],
        [vi("y", F, None)],
        initializer=[i64s("three", [3])],
    )
    return model(g)


@fixture("e1_empty_patch_grid.onnx")
def e1_empty_patch_grid():
    """A ViT-like patch grid with an off-by-one (vit_interpolate_pos, issue 37): a stride-4 Conv
    makes h/4 x w/4 patches, flattened to (h/4)*(w/4) tokens; the tokens with 2 extra columns are
    added to the tokens with 1. That broadcast holds only if (h/4)*(w/4) = 0, i.e. h <= 3 or
    w <= 3, where the Conv's output is empty and the Conv fails: it fails for every non-empty
    input, an E1 naming the Conv. The Conv's own W4 (h >= 4, w >= 4) stays."""
    g = graph(
        [
            node("Conv", ["image", "k"], ["patches"], name="patch_embed", kernel_shape=[4, 4],
                 strides=[4, 4]),
            node("Flatten", ["patches"], ["tokens"], name="flatten", axis=2),
            node("Concat", ["tokens", "two_cols"], ["wide"], name="with_two", axis=1),
            node("Concat", ["tokens", "one_col"], ["narrow"], name="with_one", axis=1),
            node("Add", ["wide", "narrow"], ["y"], name="add_positions"),
        ],
        "e1_empty_patch_grid",
        [vi("image", F, [1, 3, "h", "w"])],
        [vi("y", F, None)],
        initializer=[
            init("k", weights([4, 3, 4, 4])),
            init("two_cols", weights([4, 2])),
            init("one_col", weights([4, 1])),
        ],
    )
    return model(g)


@fixture("w1_emptiable_patch_grid.onnx")
def w1_emptiable_patch_grid():
    """The same tokens and Add as e1_empty_patch_grid, but the h/4 x w/4 grid is a Slice of the
    image (ends from its Shape / 4), which is legitimately empty for h <= 3 or w <= 3: nothing
    fails there, and the Add runs ([3, 2] + [3, 1]). So the condition (h <= 3 or w <= 3) is a
    real deployment and stays a W1."""
    g = graph(
        [
            node("Shape", ["image"], ["size"], name="size", start=2),
            node("Div", ["size", "four"], ["quarter"], name="quarter"),
            node("Slice", ["image", "zeros", "quarter", "axes"], ["grid"], name="grid"),
            node("Flatten", ["grid"], ["tokens"], name="flatten", axis=2),
            node("Concat", ["tokens", "two_cols"], ["wide"], name="with_two", axis=1),
            node("Concat", ["tokens", "one_col"], ["narrow"], name="with_one", axis=1),
            node("Add", ["wide", "narrow"], ["y"], name="add_positions"),
        ],
        "w1_emptiable_patch_grid",
        [vi("image", F, [1, 3, "h", "w"])],
        [vi("y", F, None)],
        initializer=[
            i64s("four", [4, 4]),
            i64s("zeros", [0, 0]),
            i64s("axes", [2, 3]),
            init("two_cols", weights([3, 2])),
            init("one_col", weights([3, 1])),
        ],
    )
    return model(g)


@fixture("w1_expand_swapped_target.onnx")
def w1_expand_swapped_target():
    """A mask m [batch, 1] expanded to a target built from x's Shape with its two elements
    swapped ([seq, batch] for [batch, seq]), then added to x (issue 37, one fault one finding).
    The Expand needs seq = batch, batch = 1 or seq = 1, and so does the Add (the same clause,
    written in another order): one W1 at the Expand, whose help names the Add."""
    g = graph(
        [
            node("Shape", ["x"], ["size"], name="size"),
            node("Gather", ["size", "one"], ["rows"], name="rows", axis=0),
            node("Gather", ["size", "zero"], ["cols"], name="cols", axis=0),
            node("Concat", ["rows", "cols"], ["target"], name="target", axis=0),
            node("Expand", ["m", "target"], ["mask"], name="expand_mask"),
            node("Add", ["x", "mask"], ["y"], name="add_mask"),
        ],
        "w1_expand_swapped_target",
        [vi("x", F, ["batch", "seq"]), vi("m", F, ["batch", 1])],
        [vi("y", F, None)],
        initializer=[i64s("zero", [0]), i64s("one", [1])],
    )
    return model(g)


# =========================================================================== W2: declared shape


@fixture("w2_declared_mismatch.onnx")
def w2_declared_mismatch():
    """value_info declares r: [2, 5]; Relu of x [2, 3] gives [2, 3]."""
    g = graph(
        [
            node("Relu", ["x"], ["r"], name="relu"),
            node("Add", ["r", "b"], ["y"], name="add"),
        ],
        "w2_declared_mismatch",
        [vi("x", F, [2, 3])],
        [vi("y", F, [2, 3])],
        initializer=[init("b", weights([3]))],
        value_info=[vi("r", F, [2, 5])],
    )
    return model(g)


@fixture("w2_output_mismatch.onnx")
def w2_output_mismatch():
    """The graph output y is declared [2, 4]; Add([2, 3], [3]) gives [2, 3]."""
    g = graph(
        [node("Add", ["x", "b"], ["y"], name="add")],
        "w2_output_mismatch",
        [vi("x", F, [2, 3])],
        [vi("y", F, [2, 4])],
        initializer=[init("b", weights([3]))],
    )
    return model(g)


# =========================================================================== E3: structure


@fixture("e3_cycle.onnx")
def e3_cycle():
    """a = Add(x, c); c = Relu(a): a two-node cycle."""
    g = graph(
        [
            node("Add", ["x", "c"], ["a"], name="add"),
            node("Relu", ["a"], ["c"], name="relu"),
        ],
        "e3_cycle",
        [vi("x", F, [2, 3])],
        [vi("a", F, [2, 3])],
    )
    return model(g)


@fixture("e3_undefined_input.onnx")
def e3_undefined_input():
    """Add reads `ghost`, which no input, initializer or node defines."""
    g = graph(
        [node("Add", ["x", "ghost"], ["y"], name="add")],
        "e3_undefined_input",
        [vi("x", F, [2, 3])],
        [vi("y", F, [2, 3])],
    )
    return model(g)


@fixture("e3_duplicate_producer.onnx")
def e3_duplicate_producer():
    """Two nodes both write `y`."""
    g = graph(
        [
            node("Relu", ["x"], ["y"], name="relu"),
            node("Neg", ["x"], ["y"], name="neg"),
            node("Add", ["y", "x"], ["z"], name="add"),
        ],
        "e3_duplicate_producer",
        [vi("x", F, [2, 3])],
        [vi("z", F, [2, 3])],
    )
    return model(g)


@fixture("e3_no_op_type.onnx")
def e3_no_op_type():
    """The middle node has no op_type field at all."""
    blank = onnx.NodeProto()
    blank.name = "mystery"
    blank.input.append("r")
    blank.output.append("m")
    g = graph(
        [
            node("Relu", ["x"], ["r"], name="relu"),
            blank,
            node("Add", ["m", "x"], ["y"], name="add"),
        ],
        "e3_no_op_type",
        [vi("x", F, [2, 3])],
        [vi("y", F, [2, 3])],
    )
    return model(g)


# =========================================================================== I1: unknown op


@fixture("i1_custom_op.onnx")
def i1_custom_op():
    """com.example::FancyNorm (unknown) on one path; an unrelated Add([2, 3], [4]) on another."""
    g = graph(
        [
            node("FancyNorm", ["x"], ["fx"], name="fancy", domain="com.example", eps=1e-5),
            node("Relu", ["fx"], ["y"], name="relu"),
            node("Add", ["p", "q"], ["z"], name="add"),
        ],
        "i1_custom_op",
        [vi("x", F, [2, 3]), vi("p", F, [2, 3])],
        [vi("y", F, None), vi("z", F, None)],
        initializer=[init("q", weights([4]))],
    )
    return model(g, extra_opsets=[("com.example", 1)])


# =========================================================================== load_*: unreadable


@fixture("load_empty.onnx")
def load_empty():
    """Zero bytes."""
    return b""


@fixture("load_garbage.onnx")
def load_garbage():
    """Text, not protobuf: the first byte 'G' (0x47) is field 8 with wire type 7, which does not
    exist."""
    return b"GARBAGE: this is not a protobuf-encoded ONNX model.\n"


def small_valid_model():
    g = graph(
        [node("Add", ["x", "w"], ["y"], name="add")],
        "truncated",
        [vi("x", F, [4, 4])],
        [vi("y", F, [4, 4])],
        initializer=[init("w", weights([4, 4]))],
    )
    return model(g)


@fixture("load_truncated.onnx")
def load_truncated():
    """A valid model cut 10 bytes into the 64-byte raw_data of its initializer."""
    data = small_valid_model().SerializeToString(deterministic=True)
    payload = weights([4, 4]).tobytes()
    start = data.index(payload)
    assert data.count(payload) == 1
    return data[: start + 10]


@fixture("load_wrong_wire_type.onnx")
def load_wrong_wire_type():
    """ModelProto.graph (field 7, a message) sent as a varint. Strict decoders (prost) reject
    it; some (Python upb) keep it as an unknown field, see README.md."""
    return model_header() + vint(MODEL_GRAPH, 1)


NESTED_IF_DEPTH = 10_000


@fixture("load_nested_if_10000.onnx")
def load_nested_if():
    """If nodes nested NESTED_IF_DEPTH deep through then_branch, built iteratively.

    Every graph level is encoded with its output before its node and the node's then_branch
    attribute last, so each level is a pure prefix of the bytes of the level it contains. The
    message lengths are computed from the innermost level out, then the prefixes are joined from
    the outermost level in; nothing recurses.
    """
    y_out = ld(GRAPH_OUTPUT, ld(VI_NAME, b"y"))
    else_graph = y_out + ld(GRAPH_NODE, ld(NODE_INPUT, b"c") + ld(NODE_OUTPUT, b"y")
                            + ld(NODE_OP_TYPE, b"Identity"))
    else_attr = ld(NODE_ATTRIBUTE, ld(ATTR_NAME, b"else_branch") + vint(ATTR_TYPE, ATTR_TYPE_GRAPH)
                   + ld(ATTR_G, else_graph))
    node_head = (ld(NODE_INPUT, b"c") + ld(NODE_OUTPUT, b"y") + ld(NODE_OP_TYPE, b"If")
                 + else_attr)
    then_head = ld(ATTR_NAME, b"then_branch") + vint(ATTR_TYPE, ATTR_TYPE_GRAPH)

    innermost = else_graph  # level 0: Identity(c) -> y
    prefixes = []
    inner_len = len(innermost)
    for _ in range(NESTED_IF_DEPTH):
        attr_len = len(then_head) + len(tag(ATTR_G, 2)) + len(varint(inner_len)) + inner_len
        node_len = len(node_head) + len(tag(NODE_ATTRIBUTE, 2)) + len(varint(attr_len)) + attr_len
        prefix = (y_out + tag(GRAPH_NODE, 2) + varint(node_len) + node_head
                  + tag(NODE_ATTRIBUTE, 2) + varint(attr_len) + then_head
                  + tag(ATTR_G, 2) + varint(inner_len))
        prefixes.append(prefix)
        inner_len = len(prefix) + inner_len
    top_graph = b"".join(reversed(prefixes)) + innermost
    assert len(top_graph) == inner_len
    graph_fields = (
        ld(GRAPH_NAME, b"nested_if")
        + ld(GRAPH_INPUT, vi("c", BOOL, []).SerializeToString(deterministic=True))
    )
    # The top graph's own output/node come from the outermost prefix; prepend name and input.
    return model_header() + ld(MODEL_GRAPH, graph_fields + top_graph)


HUGE_RANK = 10_000_000


@fixture("load_huge_rank.onnx")
def load_huge_rank():
    """An initializer of rank 10^7, every dim 1, dims packed (one byte each): ~10 MB of 0x01."""
    tensor = (
        ld(TENSOR_DIMS, b"\x01" * HUGE_RANK)
        + vint(TENSOR_DATA_TYPE, F)
        + ld(TENSOR_NAME, b"W")
        + ld(TENSOR_RAW_DATA, np.array([1.0], dtype=np.float32).tobytes())
    )
    g = graph([node("Identity", ["W"], ["y"], name="id")], "load_huge_rank", [],
              [vi("y", F, None)])
    graph_bytes = g.SerializeToString(deterministic=True) + ld(GRAPH_INITIALIZER, tensor)
    return model_header() + ld(MODEL_GRAPH, graph_bytes)


def bad_dims_model(name, dims):
    w = TensorProto()
    w.name = "W"
    w.data_type = F
    w.dims.extend(dims)
    w.raw_data = b""
    g = graph(
        [node("Add", ["x", "W"], ["y"], name="add")],
        name,
        [vi("x", F, [2, 3])],
        [vi("y", F, None)],
        initializer=[w],
    )
    return model(g)


@fixture("load_negative_dims.onnx")
def load_negative_dims():
    """Initializer W with dims [2, -3] (and no data)."""
    return bad_dims_model("load_negative_dims", [2, -3])


@fixture("load_overflow_dims.onnx")
def load_overflow_dims():
    """Initializer W with dims [2^32, 2^32, 4]: the element count 2^66 overflows i64."""
    return bad_dims_model("load_overflow_dims", [1 << 32, 1 << 32, 4])


@fixture("load_no_graph.onnx")
def load_no_graph():
    """A ModelProto with ir_version and opset_import but no graph field."""
    m = onnx.ModelProto()
    m.ir_version = IR_VERSION
    m.producer_name = PRODUCER
    m.opset_import.append(helper.make_opsetid("", OPSET))
    return m


# --------------------------------------------------------------------------- main


def to_bytes(obj) -> bytes:
    if isinstance(obj, (bytes, bytearray)):
        return bytes(obj)
    return obj.SerializeToString(deterministic=True)


def build_all() -> dict[str, bytes]:
    return {name: to_bytes(fn()) for name, fn in BUILDERS.items()}


def main(out_dir: Path = HERE) -> None:
    for name, data in build_all().items():
        (out_dir / name).write_bytes(data)
    # A directory with a model's name: reading it must fail cleanly, not as "empty file".
    directory = out_dir / "load_directory.onnx"
    directory.mkdir(exist_ok=True)
    (directory / ".gitkeep").write_bytes(b"")
    print(f"wrote {len(BUILDERS)} fixtures and load_directory.onnx/ to {out_dir}")


if __name__ == "__main__":
    main(Path(os.environ.get("FIXTURE_OUT_DIR", HERE)))
