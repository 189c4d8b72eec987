//! ONNX's `onnx/defs/traditionalml` operators (the `ai.onnx.ml` domain). A rule sits in the folder
//! of the `onnx/defs/<section>` that defines its operator.

pub(crate) mod category_mapper;
pub(crate) mod ml;
