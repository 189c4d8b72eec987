//! Constant tensors (initializers, `Constant` attributes) read as data: the elements of small
//! integer and floating-point tensors whose bytes are in the file (ONNX IR.md "Tensors"; external
//! data is never opened).

use super::dtype::elem;
use crate::proto::TensorProto;
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;
use crate::shape::Dim;

/// Largest tensor whose elements are carried as data (shape computations are tiny; weights are not
/// read).
pub(crate) const MAX_VALUE_ELEMENTS: usize = crate::limits::TENSOR_VALUE_ELEMENTS;

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
    // One pass from the stored bytes to the elements, and nothing built for a tensor whose
    // element count is not its dims' (as `chunks_exact`, a partial last element is ignored): a
    // model whose layers have their own weights decodes each weight a rule reads.
    let mut data: Vec<Real> = Vec::with_capacity(count);
    match (tensor.data_type?, &tensor.raw_data) {
        (elem::FLOAT, Some(raw)) if raw.len() / 4 == count => data.extend(
            raw.chunks_exact(4)
                .filter_map(|c| <[u8; 4]>::try_from(c).ok())
                .map(|b| Real::Num(f64::from(f32::from_le_bytes(b)))),
        ),
        (elem::FLOAT, None) if tensor.float_data.len() == count => {
            data.extend(tensor.float_data.iter().map(|&v| Real::Num(f64::from(v))));
        }
        (elem::DOUBLE, Some(raw)) if raw.len() / 8 == count => data.extend(
            raw.chunks_exact(8)
                .filter_map(|c| <[u8; 8]>::try_from(c).ok())
                .map(|b| Real::Num(f64::from_le_bytes(b))),
        ),
        (elem::DOUBLE, None) if tensor.double_data.len() == count => {
            data.extend(tensor.double_data.iter().map(|&v| Real::Num(v)));
        }
        _ => return None,
    }
    // `chunks_exact` gives whole chunks only, so no element was dropped; `new` still checks the
    // count against the dims.
    ValueTensor::new(shape, data)
}

#[cfg(test)]
mod tests {
    use super::{int_values, real_values};
    use crate::model::dtype::elem;
    use crate::proto::TensorProto;
    use crate::shape::real::Real;

    fn floats(values: &[f32]) -> TensorProto {
        TensorProto {
            dims: vec![i64::try_from(values.len()).unwrap()],
            data_type: Some(elem::FLOAT),
            float_data: values.to_vec(),
            ..TensorProto::default()
        }
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
