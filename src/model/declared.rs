//! Types as a model declares them (`TypeProto`, ONNX IR.md "Static tensor shapes"), read into
//! the engine's [`Shape`] and element type.
//!
//! Declared dims follow the ONNX IR: `dim_value` is static, `dim_param` names a symbol shared by the
//! whole model (exporter expressions such as `2*s0` are parsed into the algebra), and a dim with
//! neither is unknown and unrelated to every other dim.

use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::{type_proto, TypeProto};
use crate::shape::{Dim, Shape};

/// The dims a `TypeProto` declares, when it is a (sparse) tensor type with a shape.
pub(crate) fn declared_dims(declared: &TypeProto) -> Option<&[Dimension]> {
    match declared.value.as_ref()? {
        type_proto::Value::TensorType(t) => t.shape.as_ref().map(|s| s.dim.as_slice()),
        type_proto::Value::SparseTensorType(t) => t.shape.as_ref().map(|s| s.dim.as_slice()),
        _ => None,
    }
}

/// The shape a `TypeProto` declares: `Unranked` when it has no shape or is not a tensor.
pub(crate) fn shape_of(declared: Option<&TypeProto>) -> Shape {
    match declared.and_then(declared_dims) {
        Some(dims) => Shape::Ranked(dims.iter().map(|d| dim_of(d.value.as_ref())).collect()),
        None => Shape::Unranked,
    }
}

/// The rank a `TypeProto` declares (0 when it declares none), without building the shape.
pub(crate) fn shape_rank(declared: Option<&TypeProto>) -> usize {
    declared
        .and_then(declared_dims)
        .map_or(0, <[Dimension]>::len)
}

/// The element type a `TypeProto` declares.
pub(crate) fn elem_of(declared: Option<&TypeProto>) -> Option<i32> {
    match declared?.value.as_ref()? {
        type_proto::Value::TensorType(t) => t.elem_type,
        type_proto::Value::SparseTensorType(t) => t.elem_type,
        _ => None,
    }
}

/// A declared dim as the engine reads it: a size, a `dim_param` expression, or unknown (absent
/// or negative).
pub(crate) fn dim_of(value: Option<&dimension::Value>) -> Dim {
    match value {
        Some(dimension::Value::DimValue(size)) if *size >= 0 => Dim::known(*size),
        Some(dimension::Value::DimParam(name)) => Dim::parse_dim_param(name),
        _ => Dim::Unknown,
    }
}

/// The static shape a tensor's `dims` give; a negative dim (invalid) is unknown, as in a
/// declaration.
pub(crate) fn tensor_shape(dims: &[i64]) -> Shape {
    Shape::Ranked(
        dims.iter()
            .map(|&size| dim_of(Some(&dimension::Value::DimValue(size))))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::tensor_shape;

    #[test]
    fn tensor_dims_are_static_and_negative_ones_unknown() {
        assert_eq!(tensor_shape(&[2, 0, 3]).to_string(), "[2, 0, 3]");
        assert_eq!(tensor_shape(&[-1, 4]).to_string(), "[?, 4]");
        assert_eq!(tensor_shape(&[]).to_string(), "[]");
    }
}
