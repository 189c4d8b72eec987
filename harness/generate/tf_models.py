"""Families `tf2onnx` and `keras3`: tiny Keras models (seed 0, random weights) exported to ONNX by
tf2onnx (`tf2onnx.convert.from_function`, opset 17) and by Keras 3's own exporter
(`model.export(path, format="onnx")`), committed because CI installs no tensorflow.

Models: a UNet step (Conv2DTranspose 'same' + skip Concatenate), an EfficientNet-style stack of
strided depthwise convolutions with squeeze-and-excitation, an LSTM/GRU text classifier and a
small causal Transformer block; image sizes, batch and sequence length dynamic.

    python3 -m venv /tmp/venv-tf && /tmp/venv-tf/bin/pip install tensorflow-cpu tf2onnx onnx onnxruntime
    cd harness && /tmp/venv-tf/bin/python -m generate.tf_models
"""
from __future__ import annotations

import os
import tempfile

from .common import Writer

# Per model: the example sizes of each input's dynamic axes (one tuple per binding).
IMAGE = {0: (1, 2), 1: (32, 48), 2: (32, 40)}
TOKENS = {0: (1, 2), 1: (7, 12)}


def models(keras, tf):
    L = keras.layers

    def unet():
        x = keras.Input((None, None, 3), name="image")
        a = L.Conv2D(8, 3, padding="same", activation="relu")(x)
        b = L.Conv2D(16, 3, strides=2, padding="same", activation="relu")(a)
        b = L.BatchNormalization()(b)
        u = L.Conv2DTranspose(8, 3, strides=2, padding="same")(b)
        y = L.Conv2D(1, 1, activation="sigmoid")(L.Concatenate()([u, a]))
        return keras.Model(x, y, name="unet")

    def effnet():
        x = keras.Input((None, None, 3), name="image")
        h = L.Conv2D(8, 3, strides=2, padding="same", activation="swish")(x)
        for filters in (8, 16, 16, 24):
            d = L.DepthwiseConv2D(3, strides=2, padding="same", activation="swish")(h)
            d = L.BatchNormalization()(d)
            s = L.GlobalAveragePooling2D(keepdims=True)(d)
            s = L.Conv2D(4, 1, activation="swish")(s)
            s = L.Conv2D(d.shape[-1], 1, activation="sigmoid")(s)
            h = L.Conv2D(filters, 1)(L.Multiply()([d, s]))
        y = L.Dense(10)(L.GlobalAveragePooling2D()(h))
        return keras.Model(x, y, name="effnet")

    def lstm():
        x = keras.Input((None,), dtype="int32", name="tokens")
        h = L.Embedding(100, 16)(x)
        h = L.LSTM(16, return_sequences=True)(h)
        h = L.GRU(8)(h)
        return keras.Model(x, L.Dense(3)(h), name="lstm")

    class Positions(L.Layer):
        """Adds a learned embedding of each position: `arange(seq)` from the input's shape."""

        def __init__(self):
            super().__init__()
            self.table = L.Embedding(64, 16)

        def call(self, h):
            n = keras.ops.shape(h)[1]
            return h + keras.ops.expand_dims(self.table(keras.ops.arange(n)), 0)

    def transformer():
        x = keras.Input((None,), dtype="int32", name="tokens")
        h = Positions()(L.Embedding(100, 16)(x))
        a = L.MultiHeadAttention(2, 8)(h, h, use_causal_mask=True)
        h = L.LayerNormalization()(h + a)
        h = L.LayerNormalization()(h + L.Dense(16)(L.Dense(32, activation="relu")(h)))
        return keras.Model(x, L.Dense(5)(h), name="transformer")

    return [("unet", unet, IMAGE), ("effnet", effnet, IMAGE), ("lstm", lstm, TOKENS),
            ("transformer", transformer, TOKENS)]


def bindings(model, sizes):
    """Two bindings of the model's input dims, from the example sizes of each axis: by dim_param
    (what onnxruntime's inputs are made from) and by `input:axis`, the name the engine gives an
    axis whose dim_param is an exporter's placeholder (tf2onnx's `unk__N`)."""
    out = [{}, {}]
    for vi in model.graph.input:
        for ax, d in enumerate(vi.type.tensor_type.shape.dim):
            if ax in sizes and not d.HasField("dim_value"):
                keys = [d.dim_param, f"{vi.name}:{ax}"] if d.dim_param else [f"{vi.name}:{ax}"]
                for b in range(2):
                    out[b].update({k: sizes[ax][b] for k in keys})
    return {"bindings": out}


def main():
    import keras
    import onnx
    import tensorflow as tf
    import tf2onnx

    w = Writer(["tf2onnx", "keras3"])
    versions = f"tensorflow {tf.__version__}, keras {keras.__version__}"
    for name, make, sizes in models(keras, tf):
        keras.utils.set_random_seed(0)
        try:
            m = make()
        except Exception as e:
            for fam in ("tf2onnx", "keras3"):
                w.skip(fam, name, f"keras model: {type(e).__name__}: {str(e)[:300]}")
            continue
        spec = [tf.TensorSpec(t.shape, t.dtype, name=t.name) for t in m.inputs]
        try:
            fn = tf.function(lambda *a: m(*a, training=False), input_signature=spec)
            proto, _ = tf2onnx.convert.from_function(fn, input_signature=spec, opset=17)
            w.add("tf2onnx", name, proto, f"{versions}, tf2onnx {tf2onnx.__version__} from_function, opset 17, "
                  "seed 0", bindings(proto, sizes))
        except Exception as e:
            w.skip("tf2onnx", name, f"{type(e).__name__}: {str(e)[:300]}")
        try:
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, f"{name}.onnx")
                m.export(path, format="onnx")
                proto = onnx.load(path)
            w.add("keras3", name, proto, f"{versions}, keras Model.export(format='onnx'), seed 0",
                  bindings(proto, sizes))
        except Exception as e:
            w.skip("keras3", name, f"{type(e).__name__}: {str(e)[:300]}")
    w.save()


if __name__ == "__main__":
    main()
