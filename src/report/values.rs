//! JSON values shared by the machine formats: a dim, a shape, a finding's facts. Below
//! `json.rs`, `sarif.rs` and `provenance.rs`, so the formats share them without importing each
//! other (issue 33).

use serde_json::Value;

use crate::diag::Finding;
use crate::shape::{Dim, Shape};

/// The finding's facts, tagged by `kind` (README, "JSON output"); what the message states.
pub fn facts_json(finding: &Finding) -> Value {
    serde_json::to_value(&finding.facts).unwrap_or(Value::Null)
}

/// A shape as JSON: a list of dims, or null for an unknown rank.
pub(super) fn shape_json(shape: &Shape) -> Value {
    match shape.dims() {
        None => Value::Null,
        Some(dims) => Value::Array(dims.iter().map(dim_json).collect()),
    }
}

/// A dim as JSON: an integer, a symbolic expression's text, or null.
pub(super) fn dim_json(dim: &Dim) -> Value {
    match dim {
        Dim::Known(size) => Value::from(*size),
        Dim::Sym(_) => Value::String(dim.to_string()),
        Dim::Unknown => Value::Null,
    }
}
