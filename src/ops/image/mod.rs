//! ONNX's `onnx/defs/image` operators: `ImageDecoder`. A rule sits in the folder of the
//! `onnx/defs/<section>` that defines its operator.

pub(crate) mod decoder;
