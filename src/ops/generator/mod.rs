//! ONNX's `onnx/defs/generator` operators: `Constant` (and the tensor generators whose rules live
//! here). A rule sits in the folder of the `onnx/defs/<section>` that defines its operator.

pub(crate) mod constant;
pub(crate) mod random;
pub(crate) mod shape_to_data;
