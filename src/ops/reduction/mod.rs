//! ONNX's `onnx/defs/reduction` operators: `Reduce*`, `ArgMax`, `ArgMin`. A rule sits in the folder
//! of the `onnx/defs/<section>` that defines its operator.

pub(crate) mod reduce;
