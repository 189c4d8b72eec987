//! Element-wise folding of small integer tensors (SONNX `Z[i] = Y[f(i)]`), so that shape
//! computations (`Shape -> Gather -> Mul -> Concat`) reach `Reshape` and `Expand` as symbolic
//! values.

use super::{int_cast, Binary, Unary};
use crate::model::dtype::elem;
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Tri};

/// A unary op on known integer values; `elem` is the output's element type (`Cast`'s target).
pub(crate) fn unary(op: Unary, value: &ValueTensor, elem: Option<i32>) -> Option<ValueTensor> {
    let map = |f: fn(&Dim) -> Dim| {
        ValueTensor::new(value.shape.clone(), value.data.iter().map(f).collect())
    };
    match op {
        Unary::Identity => Some(value.clone()),
        Unary::Cast | Unary::CastLike => match elem {
            Some(to) if int_cast::is_integer(to) => Some(value.map(|d| int_cast::cast(d, to))),
            Some(elem::BOOL) => map(|d| match d.eq_dim(&Dim::known(0)) {
                Tri::Yes => Dim::known(0),
                Tri::No => Dim::known(1),
                Tri::Unknown => Dim::Unknown,
            }),
            _ => None,
        },
        Unary::Neg => map(Dim::neg),
        Unary::Abs => map(|d| match d.as_known() {
            Some(v) => v.checked_abs().map_or(Dim::Unknown, Dim::known),
            None => Dim::Unknown,
        }),
        Unary::Not => map(|d| match d.eq_dim(&Dim::known(0)) {
            Tri::Yes => Dim::known(1),
            Tri::No => Dim::known(0),
            Tri::Unknown => Dim::Unknown,
        }),
        _ => None,
    }
}

/// Element-wise arithmetic on known values; comparisons give 1/0 only when decided.
pub(crate) fn binary(op: Binary, x: &ValueTensor, y: &ValueTensor) -> Option<ValueTensor> {
    let decide = |t: Tri| match t {
        Tri::Yes => Dim::known(1),
        Tri::No => Dim::known(0),
        Tri::Unknown => Dim::Unknown,
    };
    match op {
        Binary::Add => ValueTensor::zip_with(x, y, Dim::add),
        Binary::Sub => ValueTensor::zip_with(x, y, Dim::sub),
        Binary::Mul => ValueTensor::zip_with(x, y, Dim::mul),
        // Integer Div truncates toward zero in ONNX; it equals floor division for non-negative
        // operands only, so anything possibly negative is left unknown.
        Binary::Div => ValueTensor::zip_with(x, y, |p, q| {
            if p.is_non_negative() && q.is_non_negative() {
                p.floor_div(q)
            } else {
                Dim::Unknown
            }
        }),
        Binary::Mod => ValueTensor::zip_with(x, y, |p, q| {
            if p.is_non_negative() && q.is_non_negative() {
                p.modulo(q)
            } else {
                Dim::Unknown
            }
        }),
        Binary::Max => ValueTensor::zip_with(x, y, Dim::max),
        Binary::Min => ValueTensor::zip_with(x, y, Dim::min),
        Binary::Equal => ValueTensor::zip_with(x, y, |p, q| decide(p.eq_dim(q))),
        Binary::And => ValueTensor::zip_with(x, y, |p, q| match (p.as_known(), q.as_known()) {
            (Some(p), Some(q)) => Dim::known(i64::from(p != 0 && q != 0)),
            _ => Dim::Unknown,
        }),
        Binary::Or => ValueTensor::zip_with(x, y, |p, q| match (p.as_known(), q.as_known()) {
            (Some(p), Some(q)) => Dim::known(i64::from(p != 0 || q != 0)),
            _ => Dim::Unknown,
        }),
        Binary::Less | Binary::Greater | Binary::LessOrEqual | Binary::GreaterOrEqual => {
            let flip = matches!(op, Binary::Greater | Binary::GreaterOrEqual);
            let strict = matches!(op, Binary::Less | Binary::Greater);
            ValueTensor::zip_with(x, y, |p, q| {
                let (p, q) = if flip { (q, p) } else { (p, q) };
                match (p.as_known(), q.as_known()) {
                    (Some(p), Some(q)) => {
                        Dim::known(i64::from(if strict { p < q } else { p <= q }))
                    }
                    _ => Dim::Unknown,
                }
            })
        }
        _ => None,
    }
}

/// `Where` on known values: `c ? x : y` per element, numpy-broadcast.
pub(crate) fn select(c: &ValueTensor, x: &ValueTensor, y: &ValueTensor) -> Option<ValueTensor> {
    let target = numpy_shape(&[&c.shape, &x.shape, &y.shape])?;
    let (c, x, y) = (
        c.broadcast_to(&target)?,
        x.broadcast_to(&target)?,
        y.broadcast_to(&target)?,
    );
    let data = c
        .data
        .iter()
        .zip(x.data)
        .zip(y.data)
        .map(|((c, x), y)| match c.as_known() {
            Some(0) => y,
            Some(_) => x,
            None => Dim::Unknown,
        })
        .collect();
    Some(ValueTensor {
        shape: target,
        data,
    })
}

/// Numpy broadcasting of concrete shapes (`None` when they clash).
fn numpy_shape(shapes: &[&Vec<usize>]) -> Option<Vec<usize>> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..rank)
        .map(|axis| {
            shapes.iter().try_fold(1usize, |acc, shape| {
                let offset = rank - shape.len();
                let size = if axis < offset {
                    1
                } else {
                    *shape.get(axis - offset)?
                };
                match (acc, size) {
                    (a, s) if a == s || s == 1 => Some(a),
                    (1, s) => Some(s),
                    _ => None,
                }
            })
        })
        .collect()
}
