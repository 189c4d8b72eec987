//! onnx-bcast-lint: finds broadcasting bugs in ONNX models before they ship.
//!
//! Pipeline: `load -> graph -> infer -> check -> report`, each stage using only earlier ones.

pub mod proto;
pub mod shape;
