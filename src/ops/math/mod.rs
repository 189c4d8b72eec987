//! ONNX's `onnx/defs/math` operators: element-wise arithmetic and activations, matrix products,
//! `Einsum`, `Expand`. A rule sits in the folder of the `onnx/defs/<section>` that defines its
//! operator.

pub(crate) mod einsum;
pub(crate) mod elementwise;
pub(crate) mod expand;
pub(crate) mod linalg;
pub(crate) mod top_k;
