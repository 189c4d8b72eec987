"""Family `patterns`: issue 38's shape arithmetic as exporters write it, built with onnx.helper.

Each model reproduces one exporter's pattern inside enough of a network that the dims lost
there would darken what follows (as in the real models), with symbolic inputs and two
bindings the harness runs in onnxruntime:
  * `tv_pad32_static` / `tv_pad32_dynamic`: torchvision's detection transform pads an image to
    a multiple of 32 (`_onnx_batch_images`: ReduceMax over the stacked sizes cast to float, Div,
    Ceil, Mul, Cast back, Sub) and `F.pad`'s exported pads layout (Concat, Reshape [-1, 2],
    reversed Slice, Transpose, Reshape [-1]); then a backbone and an anchor `Range`.
  * `wav2vec2_posconv`: the feature extractor's strided convolutions, the positional
    convolution padded by K/2 and its last step sliced off (`max(n, 0)`), added to its input.
  * `sdpa_repeat_kv`: grouped-query attention's `repeat_kv` (an `Expand` to a target made by
    Shape -> Gather -> Concat with n_rep, a `Reshape` to kv * n_rep heads) and DeBERTa-style
    relative positions expanded to the scores' shape.
  * `moe_tile`: mixture-of-experts routing repeats every token top_k times with a `Tile` whose
    repeats are `Constant`s multiplied together.
  * `vit_interpolate_pos`: a ViT with dynamic height and width: the position table reshaped to
    a grid of side `Cast(Pow(16.0, 0.5))`, resized to the patch grid, added to the patches.
  * `tf2onnx_split_pads`: a UNet step as tf2onnx writes it: a strided `ConvTranspose` cropped
    with a `Pad` whose NHWC pads vector its transpose optimizer reorders with Split -> Concat.

    cd harness && .venv/bin/python -m generate.patterns
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from .common import Writer

FAMILY = "patterns"
F, I64 = TensorProto.FLOAT, TensorProto.INT64
SOURCE = "onnx.helper, seed {}: issue 38's {} pattern (generate/patterns.py)"


class G:
    """A small graph builder with seeded weights and unique value names."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.nodes, self.inits, self.n = [], [], 0

    def w(self, *shape, scale=0.2):
        name = f"w{len(self.inits)}"
        self.inits.append(numpy_helper.from_array((self.rng.standard_normal(shape) * scale).astype(np.float32), name))
        return name

    def i64(self, *values):
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))
        return name

    def s64(self, value):
        """A scalar int64 initializer."""
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=np.int64), name))
        return name

    def f32(self, value):
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(np.asarray(value, dtype=np.float32), name))
        return name

    def constant(self, array):
        """A `Constant` node (not an initializer), as torch.onnx writes literals."""
        return self.op("Constant", [], value=numpy_helper.from_array(np.asarray(array)))

    def op(self, op_type, inputs, n_out=1, **attrs):
        self.n += 1
        outs = [f"{op_type.lower()}_{self.n}_{k}" for k in range(n_out)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=f"/{op_type}_{self.n}", **attrs))
        return outs[0] if n_out == 1 else outs

    def dim(self, x, axis):
        """A scalar int64 dim of x: Shape -> Gather, as torch exports `x.shape[i]`."""
        return self.op("Gather", [self.op("Shape", [x]), self.s64(axis)], axis=0)

    def vec(self, *parts):
        """Concat of 1-D pieces; scalars are unsqueezed first."""
        return self.op("Concat", [self.op("Unsqueeze", [p, self.i64(0)]) if s else p for p, s in parts], axis=0)

    def model(self, name, inputs, outputs, opset=17):
        graph = helper.make_graph(self.nodes, name, inputs, [helper.make_tensor_value_info(o, F, None)
                                                             for o in outputs], self.inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        return m


def tv_pad32(image_dims, seed):
    g = G(seed)
    img = "image"
    sizes = []
    for ax in range(3):
        d = g.dim(img, ax)
        # torch.max(torch.stack([img.shape[i] for img in images]).to(torch.float32)).to(torch.int64)
        stacked = g.op("Cast", [g.vec((d, True))], to=F)
        sizes.append((d, g.op("Cast", [g.op("ReduceMax", [stacked], keepdims=0)], to=I64)))
    padded_sizes = [sizes[0][1]]
    for ax in (1, 2):
        up = g.op("Ceil", [g.op("Div", [g.op("Cast", [sizes[ax][1]], to=F), g.f32(32.0)])])
        padded_sizes.append(g.op("Cast", [g.op("Mul", [up, g.f32(32.0)])], to=I64))
    extra = [g.op("Sub", [m, d]) for m, (d, _) in zip(padded_sizes, sizes)]
    # F.pad(img, (0, p2, 0, p1, 0, p0)) as torch.onnx lays the pads out for ONNX.
    zero = g.i64(0)
    torch_pads = g.op("Concat", [zero, g.op("Unsqueeze", [extra[2], g.i64(0)]), zero,
                                 g.op("Unsqueeze", [extra[1], g.i64(0)]), zero,
                                 g.op("Unsqueeze", [extra[0], g.i64(0)])], axis=0)
    pairs = g.op("Reshape", [torch_pads, g.i64(-1, 2)])
    rev = g.op("Slice", [pairs, g.i64(-1), g.i64(-(2 ** 63)), g.i64(0), g.i64(-1)])
    pads = g.op("Reshape", [g.op("Transpose", [rev], perm=[1, 0]), g.i64(-1)])
    padded = g.op("Pad", [img, g.op("Cast", [pads], to=I64), g.f32(0.0)])
    batch = g.op("Unsqueeze", [padded, g.i64(0)])
    x = g.op("Relu", [g.op("Conv", [batch, g.w(8, 3, 3, 3), g.w(8)], strides=[2, 2], pads=[1, 1, 1, 1])])
    feat = g.op("Relu", [g.op("Conv", [x, g.w(8, 8, 3, 3), g.w(8)], strides=[2, 2], pads=[1, 1, 1, 1])])
    head = g.op("Conv", [feat, g.w(6, 8, 1, 1), g.w(6)])
    # The anchor generator: shifts over the feature map's width, stride = image size / feature size.
    fw = g.dim(feat, 3)
    stride = g.op("Div", [g.dim(batch, 3), fw])
    shifts = g.op("Mul", [g.op("Range", [g.s64(0), fw, g.s64(1)]), stride])
    anchors = g.op("Cast", [g.op("Unsqueeze", [shifts, g.i64(1)])], to=F)
    grid = g.op("Add", [anchors, g.w(1, 4)])
    name = "tv_pad32_static" if all(isinstance(d, int) for d in image_dims) else "tv_pad32_dynamic"
    return g.model(name, [helper.make_tensor_value_info(img, F, image_dims)], [head, grid])


def wav2vec2_posconv(seed=2):
    g = G(seed)
    x = g.op("Unsqueeze", ["input_values", g.i64(1)])
    x = g.op("Relu", [g.op("Conv", [x, g.w(8, 1, 10), g.w(8)], strides=[5])])
    x = g.op("Relu", [g.op("Conv", [x, g.w(8, 8, 3), g.w(8)], strides=[2])])
    x = g.op("Relu", [g.op("Conv", [x, g.w(8, 8, 3), g.w(8)], strides=[2])])
    h = g.op("MatMul", [g.op("Transpose", [x], perm=[0, 2, 1]), g.w(8, 16)])
    # Wav2Vec2PositionalConvEmbedding: Conv1d(K=4, padding=2, groups=4), SamePad drops the last step.
    pc = g.op("Conv", [g.op("Transpose", [h], perm=[0, 2, 1]), g.w(16, 4, 4), g.w(16)], pads=[2, 2], group=4)
    pc = g.op("Slice", [pc, g.i64(0), g.i64(-1), g.i64(2)])
    pos = g.op("Transpose", [g.op("Relu", [pc])], perm=[0, 2, 1])
    y = g.op("Add", [h, pos])
    y = g.op("LayerNormalization", [y, g.w(16), g.w(16)], axis=-1)
    out = g.op("MatMul", [y, g.w(16, 5)])
    return g.model("wav2vec2_posconv", [helper.make_tensor_value_info("input_values", F, ["batch", "samples"])],
                   [out])


def sdpa_repeat_kv(seed=3, hidden=32, heads=4, kv=2, dh=8):
    g = G(seed)
    x = "hidden_states"
    b, s = g.dim(x, 0), g.dim(x, 1)

    def proj(n_heads):
        y = g.op("MatMul", [x, g.w(hidden, n_heads * dh)])
        y = g.op("Reshape", [y, g.vec((b, True), (s, True), (g.i64(n_heads), False), (g.i64(dh), False))])
        return g.op("Transpose", [y], perm=[0, 2, 1, 3])

    q, k, v = proj(heads), proj(kv), proj(kv)
    n_rep = heads // kv

    def repeat_kv(t):
        tb, tk, ts, td = (g.dim(t, i) for i in range(4))
        u = g.op("Unsqueeze", [t, g.i64(2)])
        e = g.op("Expand", [u, g.vec((tb, True), (tk, True), (g.i64(n_rep), False), (ts, True), (td, True))])
        merged = g.op("Mul", [tk, g.constant(np.int64(n_rep))])
        return g.op("Reshape", [e, g.vec((tb, True), (merged, True), (ts, True), (td, True))])

    k, v = repeat_kv(k), repeat_kv(v)
    scores = g.op("Div", [g.op("MatMul", [q, g.op("Transpose", [k], perm=[0, 1, 3, 2])]), g.f32(dh ** 0.5)])
    # DeBERTa-style relative positions, expanded to the scores' [batch, heads, q_len, k_len].
    r = g.op("Range", [g.s64(0), s, g.s64(1)])
    rel = g.op("Sub", [g.op("Unsqueeze", [r, g.i64(1)]), g.op("Unsqueeze", [r, g.i64(0)])])
    rel = g.op("Unsqueeze", [rel, g.i64(0, 1)])
    target = g.vec((g.dim(q, 0), True), (g.dim(q, 1), True), (g.dim(q, 2), True), (g.dim(k, 2), True))
    bias = g.op("Mul", [g.op("Cast", [g.op("Expand", [rel, target])], to=F), g.f32(0.01)])
    att = g.op("Softmax", [g.op("Add", [scores, bias])], axis=-1)
    y = g.op("Transpose", [g.op("MatMul", [att, v])], perm=[0, 2, 1, 3])
    y = g.op("Reshape", [y, g.vec((b, True), (s, True), (g.i64(hidden), False))])
    out = g.op("MatMul", [y, g.w(hidden, hidden)])
    return g.model("sdpa_repeat_kv", [helper.make_tensor_value_info(x, F, ["batch", "sequence", hidden])], [out])


def moe_tile(seed=4, hidden=16, experts=4, top_k=2):
    g = G(seed)
    x = g.op("Reshape", ["hidden_states", g.i64(-1, hidden)])  # [tokens, hidden]
    logits = g.op("MatMul", [x, g.w(hidden, experts)])
    weights, _ = g.op("TopK", [g.op("Softmax", [logits], axis=-1), g.i64(top_k)], n_out=2, axis=-1)
    # Every token repeated top_k times: repeats [1, top_k * 1, 1] from Constants multiplied.
    reps = g.op("Concat", [g.constant(np.array([1], np.int64)),
                           g.op("Mul", [g.constant(np.array([top_k], np.int64)), g.constant(np.array([1], np.int64))]),
                           g.constant(np.array([1], np.int64))], axis=0)
    tiled = g.op("Tile", [g.op("Unsqueeze", [x, g.i64(1)]), reps])  # [tokens, top_k, hidden]
    expert_out = g.op("Relu", [g.op("MatMul", [tiled, g.w(hidden, hidden)])])
    mixed = g.op("ReduceSum", [g.op("Mul", [expert_out, g.op("Unsqueeze", [weights, g.i64(2)])]), g.i64(1)],
                 keepdims=0)
    out = g.op("Reshape", [mixed, g.op("Shape", ["hidden_states"])])
    return g.model("moe_tile", [helper.make_tensor_value_info("hidden_states", F, ["batch", "sequence", hidden])],
                   [out])


def vit_interpolate_pos(seed=5, dim=16, patch=4, positions=16):
    g = G(seed)
    px = "pixel_values"
    emb = g.op("Conv", [px, g.w(dim, 3, patch, patch), g.w(dim)], strides=[patch, patch])
    b = g.dim(px, 0)
    emb = g.op("Transpose", [g.op("Reshape", [emb, g.vec((b, True), (g.i64(dim), False), (g.i64(-1), False))])],
               perm=[0, 2, 1])
    cls = g.op("Expand", [g.w(1, 1, dim), g.vec((b, True), (g.i64(1, dim), False))])
    emb = g.op("Concat", [cls, emb], axis=1)
    table = g.w(1, positions + 1, dim)
    class_pos = g.op("Slice", [table, g.i64(0), g.i64(1), g.i64(1)])
    patch_pos = g.op("Slice", [table, g.i64(1), g.i64(2 ** 62), g.i64(1)])
    side = g.op("Cast", [g.op("Pow", [g.constant(np.float32(positions)), g.constant(np.float32(0.5))])], to=I64)
    grid = g.op("Reshape", [patch_pos, g.vec((g.i64(1), False), (side, True), (side, True), (g.i64(dim), False))])
    grid = g.op("Transpose", [grid], perm=[0, 3, 1, 2])
    new_h = g.op("Div", [g.dim(px, 2), g.s64(patch)])
    new_w = g.op("Div", [g.dim(px, 3), g.s64(patch)])
    sizes = g.vec((g.i64(1, dim), False), (new_h, True), (new_w, True))
    grid = g.op("Resize", [grid, "", "", sizes], mode="cubic")
    pp = g.op("Reshape", [g.op("Transpose", [grid], perm=[0, 2, 3, 1]), g.i64(1, -1, dim)])
    pos = g.op("Concat", [class_pos, pp], axis=1)
    y = g.op("LayerNormalization", [g.op("Add", [emb, pos]), g.w(dim), g.w(dim)], axis=-1)
    return g.model("vit_interpolate_pos", [helper.make_tensor_value_info(px, F, ["batch", 3, "height", "width"])],
                   [y])


def tf2onnx_split_pads(seed=6):
    g = G(seed)
    x = "input"
    down = g.op("Relu", [g.op("Conv", [x, g.w(8, 4, 3, 3), g.w(8)], strides=[2, 2], pads=[1, 1, 1, 1])])
    # Conv2DTranspose(padding='same'): ConvTranspose with pads gives 2*h-1, the Pad adds the last row/column.
    up = g.op("ConvTranspose", [down, g.w(8, 4, 3, 3), g.w(4)], strides=[2, 2], pads=[1, 1, 1, 1])
    nhwc = g.i64(0, 0, 0, 0, 0, 1, 1, 0)  # begins [n, h, w, c], ends [n, h, w, c]
    parts = g.op("Split", [nhwc, g.i64(*([1] * 8))], n_out=8, axis=0)
    nchw = g.op("Concat", [parts[i] for i in (0, 3, 1, 2, 4, 7, 5, 6)], axis=0)
    up = g.op("Pad", [up, nchw])
    merged = g.op("Concat", [up, x], axis=1)
    y = g.op("Conv", [merged, g.w(4, 8, 3, 3), g.w(4)], pads=[1, 1, 1, 1])
    # The small form: [N, 4] padded by Concat(Split([0, 0, 1, 1])) is [N, 6].
    flat = g.op("ReduceMean", [y], axes=[2, 3], keepdims=0)
    small = g.op("Split", [g.i64(0, 0, 1, 1), g.i64(1, 1, 1, 1)], n_out=4, axis=0)
    wide = g.op("Pad", [flat, g.op("Concat", [small[0], small[2], small[1], small[3]], axis=0)])
    return g.model("tf2onnx_split_pads", [helper.make_tensor_value_info(x, F, ["N", 4, "H", "W"])], [y, wide],
                   opset=13)


def main():
    w = Writer([FAMILY])
    specs = [
        ("tv_pad32_static", lambda: tv_pad32([3, 300, 250], 1), "torchvision detection pad-to-32", {}),
        ("tv_pad32_dynamic", lambda: tv_pad32([3, "height", "width"], 1), "torchvision detection pad-to-32",
         {"bindings": [{"height": 70, "width": 45}, {"height": 64, "width": 100}]}),
        ("wav2vec2_posconv", wav2vec2_posconv, "wav2vec2 max(n, 0)",
         {"bindings": [{"batch": 1, "samples": 400}, {"batch": 2, "samples": 1000}]}),
        ("sdpa_repeat_kv", sdpa_repeat_kv, "computed Expand target (repeat_kv, relative positions)", {}),
        ("moe_tile", moe_tile, "computed Tile repeats (MoE routing)", {}),
        ("vit_interpolate_pos", vit_interpolate_pos, "ViT Cast(Pow(n, 0.5)) grid",
         {"bindings": [{"batch": 1, "height": 32, "width": 32}, {"batch": 2, "height": 16, "width": 24}]}),
        ("tf2onnx_split_pads", tf2onnx_split_pads, "tf2onnx Split -> Concat pads",
         {"bindings": [{"N": 1, "H": 8, "W": 8}, {"N": 2, "H": 12, "W": 16}]}),
    ]
    for k, (name, make, what, hints) in enumerate(specs):
        try:
            w.add(FAMILY, name, make(), SOURCE.format(k, what), hints)
        except Exception as e:  # recorded in index.json, not dropped
            w.skip(FAMILY, name, f"{type(e).__name__}: {str(e)[:300]}")
    w.save()


if __name__ == "__main__":
    main()
