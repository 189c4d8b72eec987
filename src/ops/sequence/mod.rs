//! ONNX's `onnx/defs/sequence` operators. A rule sits in the folder of the `onnx/defs/<section>`
//! that defines its operator.

pub(crate) mod sequence;
