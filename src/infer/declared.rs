//! Shapes as a model declares them (`TypeProto`), and small integer tensors as data.
//!
//! Declared dims follow the ONNX IR: `dim_value` is static, `dim_param` names a symbol shared by the
//! whole model (exporter expressions such as `2*s0` are parsed into the algebra), and a dim with
//! neither is unknown and unrelated to every other dim.

use crate::proto::tensor_shape_proto::dimension;
use crate::proto::{type_proto, TensorProto, TypeProto};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// `TensorProto.DataType` codes the engine reasons about.
pub(crate) mod elem {
    /// `INT32`.
    pub(crate) const INT32: i32 = 6;
    /// `INT64`.
    pub(crate) const INT64: i32 = 7;
    /// `BOOL`.
    pub(crate) const BOOL: i32 = 9;
}

/// Largest tensor whose elements are carried as data (shape computations are tiny; weights are not
/// read).
pub(crate) const MAX_VALUE_ELEMENTS: usize = 4096;

/// The shape a `TypeProto` declares: `Unranked` when it has no shape or is not a tensor.
pub(crate) fn shape_of(declared: Option<&TypeProto>) -> Shape {
    let shape = match declared.and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::TensorType(t)) => t.shape.as_ref(),
        Some(type_proto::Value::SparseTensorType(t)) => t.shape.as_ref(),
        _ => None,
    };
    match shape {
        Some(shape) => Shape::Ranked(shape.dim.iter().map(|d| dim_of(d.value.as_ref())).collect()),
        None => Shape::Unranked,
    }
}

/// The rank a `TypeProto` declares (0 when it declares none), without building the shape.
pub(crate) fn shape_rank(declared: Option<&TypeProto>) -> usize {
    match declared.and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::TensorType(t)) => t.shape.as_ref().map_or(0, |s| s.dim.len()),
        Some(type_proto::Value::SparseTensorType(t)) => t.shape.as_ref().map_or(0, |s| s.dim.len()),
        _ => 0,
    }
}

/// The element type a `TypeProto` declares.
pub(crate) fn elem_of(declared: Option<&TypeProto>) -> Option<i32> {
    match declared?.value.as_ref()? {
        type_proto::Value::TensorType(t) => t.elem_type,
        type_proto::Value::SparseTensorType(t) => t.elem_type,
        _ => None,
    }
}

fn dim_of(value: Option<&dimension::Value>) -> Dim {
    match value {
        Some(dimension::Value::DimValue(size)) if *size >= 0 => Dim::known(*size),
        Some(dimension::Value::DimParam(name)) => Dim::parse_dim_param(name),
        _ => Dim::Unknown,
    }
}

pub(crate) use crate::model::tensor_type;

/// The elements of a small integer tensor (initializer or `Constant`), as dims. External data is
/// never opened: such tensors give `None`.
pub(crate) fn int_values(tensor: &TensorProto) -> Option<ValueTensor> {
    let shape: Vec<usize> = tensor
        .dims
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    let count = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))?;
    if count > MAX_VALUE_ELEMENTS || tensor.data_location == Some(1) {
        return None;
    }
    let data: Vec<i64> = match tensor.data_type? {
        elem::INT64 => match &tensor.raw_data {
            Some(raw) => raw
                .chunks_exact(8)
                .map(|c| <[u8; 8]>::try_from(c).map(i64::from_le_bytes).ok())
                .collect::<Option<_>>()?,
            None => tensor.int64_data.clone(),
        },
        elem::INT32 => match &tensor.raw_data {
            Some(raw) => raw
                .chunks_exact(4)
                .map(|c| {
                    <[u8; 4]>::try_from(c)
                        .map(|b| i64::from(i32::from_le_bytes(b)))
                        .ok()
                })
                .collect::<Option<_>>()?,
            None => tensor.int32_data.iter().map(|&v| i64::from(v)).collect(),
        },
        elem::BOOL => match &tensor.raw_data {
            Some(raw) => raw.iter().map(|&b| i64::from(b != 0)).collect(),
            None => tensor
                .int32_data
                .iter()
                .map(|&v| i64::from(v != 0))
                .collect(),
        },
        _ => return None,
    };
    if data.len() != count {
        return None;
    }
    Some(ValueTensor {
        shape,
        data: data.into_iter().map(Dim::known).collect(),
    })
}
