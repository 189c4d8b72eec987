//! ONNX's `onnx/defs/quantization` operators: `QuantizeLinear`, `DequantizeLinear`,
//! `DynamicQuantizeLinear`. A rule sits in the folder of the `onnx/defs/<section>` that defines its
//! operator.

pub(crate) mod quant;
