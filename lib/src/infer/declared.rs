//! Shapes as a model declares them (`TypeProto`), and small integer tensors as data.
//!
//! Declared dims follow the ONNX IR: `dim_value` is static, `dim_param` names a symbol shared by the
//! whole model (exporter expressions such as `2*s0` are parsed into the algebra), and a dim with
//! neither is unknown and unrelated to every other dim.

use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::{type_proto, TensorProto, TypeProto};
use crate::shape::real::{Real, Width};
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
    /// `FLOAT`.
    pub(crate) const FLOAT: i32 = 1;
    /// `DOUBLE`.
    pub(crate) const DOUBLE: i32 = 11;
}

/// Whether `elem` is a floating-point `TensorProto.DataType` (FLOAT, FLOAT16, DOUBLE,
/// BFLOAT16): its carried elements are integral floats, which integer folding must not see.
pub(crate) fn is_float(elem: Option<i32>) -> bool {
    matches!(elem, Some(1 | 10 | 11 | 16))
}

/// Largest tensor whose elements are carried as data (shape computations are tiny; weights are not
/// read).
pub(crate) const MAX_VALUE_ELEMENTS: usize = 4096;

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

pub(crate) use crate::model::tensor_type;

/// The static shape and element count of a small tensor whose data is in the file.
fn small_shape(tensor: &TensorProto) -> Option<(Vec<usize>, usize)> {
    let shape: Vec<usize> = tensor
        .dims
        .iter()
        .map(|&d| usize::try_from(d).ok())
        .collect::<Option<_>>()?;
    let count = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))?;
    (count <= MAX_VALUE_ELEMENTS && tensor.data_location != Some(1)).then_some((shape, count))
}

/// The elements of a small integer or bool tensor (initializer or `Constant`), as dims. External
/// data is never opened: such tensors give `None`. Floating-point tensors are [`real_values`].
pub(crate) fn int_values(tensor: &TensorProto) -> Option<ValueTensor> {
    let (shape, count) = small_shape(tensor)?;
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

/// The elements of a small `FLOAT` or `DOUBLE` tensor (Resize scales, constants of float shape
/// arithmetic), exactly as stored. Other float widths and external data give `None`.
pub(crate) fn real_values(tensor: &TensorProto) -> Option<ValueTensor<Real>> {
    let (shape, count) = small_shape(tensor)?;
    let data: Vec<f64> = match tensor.data_type? {
        elem::FLOAT => match &tensor.raw_data {
            Some(raw) => raw
                .chunks_exact(4)
                .map(|c| {
                    <[u8; 4]>::try_from(c)
                        .ok()
                        .map(f32::from_le_bytes)
                        .map(f64::from)
                })
                .collect::<Option<_>>()?,
            None => tensor.float_data.iter().map(|&v| f64::from(v)).collect(),
        },
        elem::DOUBLE => match &tensor.raw_data {
            Some(raw) => raw
                .chunks_exact(8)
                .map(|c| <[u8; 8]>::try_from(c).ok().map(f64::from_le_bytes))
                .collect::<Option<_>>()?,
            None => tensor.double_data.clone(),
        },
        _ => return None,
    };
    if data.len() != count {
        return None;
    }
    ValueTensor::new(shape, data.into_iter().map(Real::Num).collect())
}

/// The float width of a `TensorProto.DataType`, for those whose values are carried.
pub(crate) fn width_of(elem: Option<i32>) -> Option<Width> {
    match elem? {
        elem::FLOAT => Some(Width::F32),
        elem::DOUBLE => Some(Width::F64),
        _ => None,
    }
}

/// A main-graph input's shape with each anonymous axis (no `dim_value`, and no `dim_param` that
/// names a symbol: `?`, `-1`, `unk__3`, nothing) given its own symbol `input:axis`.
///
/// The IR makes such a dim unknown and unrelated to every other dim, but it is still one size
/// per run: naming it keeps it unrelated to the other axes while every value derived from it
/// compares equal to it. The name holds a `:`, so no identifier-like `dim_param` can be it.
///
/// Used for main-graph inputs only (a body's inputs may change between iterations).
pub(crate) fn name_anonymous(input: &str, shape: Shape) -> Shape {
    match shape {
        Shape::Ranked(dims) => Shape::Ranked(
            dims.into_iter()
                .enumerate()
                .map(|(axis, d)| match d {
                    Dim::Unknown => Dim::sym(&format!("{input}:{axis}")),
                    d => d,
                })
                .collect(),
        ),
        Shape::Unranked => Shape::Unranked,
    }
}

#[cfg(test)]
mod tests {
    use super::{elem, int_values, real_values};
    use crate::proto::TensorProto;
    use crate::shape::real::Real;
    use crate::shape::Dim;

    fn floats(values: &[f32]) -> TensorProto {
        TensorProto {
            dims: vec![i64::try_from(values.len()).unwrap()],
            data_type: Some(elem::FLOAT),
            float_data: values.to_vec(),
            ..TensorProto::default()
        }
    }

    #[test]
    fn anonymous_input_axes_get_their_own_symbols() {
        use super::name_anonymous;
        use crate::shape::Shape;
        let declared = Shape::Ranked(vec![
            Dim::Unknown,
            Dim::known(3),
            Dim::Unknown,
            Dim::sym("w"),
        ]);
        let named = name_anonymous("x", declared);
        assert_eq!(named.to_string(), "[`x:0`, 3, `x:2`, w]");
        let dims = named.dims().unwrap();
        // Two anonymous axes stay unrelated: neither equal nor provably different.
        assert_eq!(dims[0].eq_dim(&dims[2]), crate::shape::Tri::Unknown);
        assert_eq!(name_anonymous("x", Shape::Unranked), Shape::Unranked);
    }

    #[test]
    fn float_tensors_are_read_exactly() {
        let got = real_values(&floats(&[1.0, 0.1, 2.0, -0.0])).unwrap();
        let want = [1.0, f64::from(0.1f32), 2.0, -0.0].map(Real::Num);
        assert_eq!(got.data, want);
        // Floats are not integers: integer folding never sees them.
        assert_eq!(int_values(&floats(&[2.0])), None);
        let raw = TensorProto {
            dims: vec![2],
            data_type: Some(elem::DOUBLE),
            raw_data: Some(
                [4.0f64, 0.1]
                    .iter()
                    .flat_map(|v| v.to_le_bytes())
                    .collect::<Vec<u8>>()
                    .into(),
            ),
            ..TensorProto::default()
        };
        assert_eq!(real_values(&raw).unwrap().data, [4.0, 0.1].map(Real::Num));
        let short = TensorProto {
            dims: vec![3],
            ..floats(&[1.0])
        };
        assert_eq!(real_values(&short), None);
    }
}
