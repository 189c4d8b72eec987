//! ONNX's `onnx/defs/object_detection` operators: `NonMaxSuppression`, `RoiAlign`. A rule sits in
//! the folder of the `onnx/defs/<section>` that defines its operator.

pub(crate) mod nms;
pub(crate) mod roi_align;
