//! onnx-bcast-lint: finds broadcasting bugs in ONNX models before they ship.
//!
//! Pipeline: `load -> graph -> infer -> check -> report`, each stage using only earlier ones.

pub mod error;
pub mod model;
pub mod proto;
pub mod shape;

pub use error::{Limits, LoadError};
