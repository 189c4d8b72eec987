//! `onnx/defs/generator`'s ops sized by a value input: `ConstantOfShape` (its input is the output
//! shape) and `Range` (`ceil((limit - start) / delta)` elements).

use crate::model::dtype::elem;
use crate::model::tensor::{self, MAX_VALUE_ELEMENTS};
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// `ConstantOfShape(shape)`: the output's dims are the input's elements; the fill value's type
/// comes from the `value` attribute (float 0 by default). Small integer fills carry values.
pub(crate) fn constant_of_shape(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let target = ctx.required(0)?;
    let fill = ctx.attrs().tensor("value")?;
    let elem_type = fill.and_then(|t| t.data_type).or(Some(1));
    let dims = match target.value {
        Some(value) => value.data.clone(),
        None => match target.shape.dims() {
            // The length is the output's rank: a declared length beyond what the engine carries
            // as data must not be allocated as that many unknown dims (a hostile `[2^40]`).
            Some([length]) => match length
                .as_known()
                .and_then(|n| usize::try_from(n).ok())
                .filter(|&n| n <= MAX_VALUE_ELEMENTS)
            {
                Some(n) => vec![Dim::Unknown; n],
                None => {
                    return Ok(Inferred::single(
                        Output::shape(Shape::Unranked).elem(elem_type),
                    ))
                }
            },
            _ => {
                return Ok(Inferred::single(
                    Output::shape(Shape::Unranked).elem(elem_type),
                ))
            }
        },
    };
    if let Some(size) = dims.iter().find_map(|d| d.as_known().filter(|&v| v < 0)) {
        // "shape input tensor must have non-negative elements" (ONNX shape inference).
        return Err(Constraint::new(
            "ConstantOfShape's shape must have non-negative elements",
            format!("an element is {size}"),
            &[0],
        )
        .unmet());
    }
    let fill_value = fill
        .and_then(tensor::int_values)
        .and_then(|v| v.data.first().cloned());
    let sizes: Option<Vec<usize>> = dims
        .iter()
        .map(|d| d.as_known().and_then(|n| usize::try_from(n).ok()))
        .collect();
    let value = match (fill_value, sizes) {
        (Some(fill), Some(sizes)) => {
            let total = sizes.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
            total
                .filter(|&n| n <= MAX_VALUE_ELEMENTS)
                .and_then(|n| ValueTensor::new(sizes, vec![fill; n]))
        }
        _ => None,
    };
    Ok(Inferred::single(match value {
        Some(value) => Output::value(value, elem_type),
        None => Output::shape(Shape::Ranked(dims)).elem(elem_type),
    }))
}

/// `Range(start, limit, delta)`: length `max(ceil((limit - start) / delta), 0)`. Static inputs
/// give the length (and small integer ranges their elements); `Range(0, n, 1)` and
/// `Range(k, n, 1)` with `n - k` provably non-negative give a symbolic length.
pub(crate) fn range(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let elem_type = ctx.required(0)?.elem;
    let scalar = |slot: usize| -> Result<Option<Dim>, RuleError> {
        Ok(ctx
            .required(slot)?
            .value
            .and_then(|v| v.data.first().cloned()))
    };
    let (start, limit, delta) = (scalar(0)?, scalar(1)?, scalar(2)?);
    // "delta in Range operator can not be zero!" (onnxruntime); a float delta's value is
    // read only when it is integral.
    let float_delta = ctx
        .integral_floats(2)
        .and_then(|v| v.data.first().and_then(Dim::as_known));
    if delta.as_ref().and_then(Dim::as_known).or(float_delta) == Some(0) {
        return Err(Constraint::new("Range's delta must not be 0", "delta is 0", &[2]).unmet());
    }
    let statics = (
        start.as_ref().and_then(Dim::as_known),
        limit.as_ref().and_then(Dim::as_known),
        delta.as_ref().and_then(Dim::as_known),
    );
    let length = match statics {
        (Some(s), Some(l), Some(d)) if d != 0 => static_length(s, l, d),
        _ => match (start, limit, delta.and_then(|d| d.as_known())) {
            (Some(s), Some(l), Some(d)) => symbolic_length(&s, &l, d),
            _ => Dim::Unknown,
        },
    };
    let value = match (statics, elem_type) {
        ((Some(s), Some(_), Some(d)), Some(elem::INT64 | elem::INT32)) => length
            .as_known()
            .and_then(|n| usize::try_from(n).ok())
            .filter(|&n| n <= MAX_VALUE_ELEMENTS)
            .and_then(|n| {
                let data: Option<Vec<Dim>> = (0..n)
                    .map(|i| {
                        let i = i64::try_from(i).ok()?;
                        Some(Dim::known(s.checked_add(i.checked_mul(d)?)?))
                    })
                    .collect();
                ValueTensor::vector(data?)
            }),
        _ => None,
    };
    Ok(Inferred::single(match value {
        Some(value) => Output::value(value, elem_type),
        None => Output::shape(Shape::Ranked(vec![length])).elem(elem_type),
    }))
}

/// `max(ceil((limit - start) / delta), 0)` (Range doc: `number_of_elements = max(ceil((limit -
/// start) / delta), 0)`) for symbolic bounds and a static, non-zero step. The `max` is dropped
/// when the span is provably non-negative, and stays otherwise: `limit - start` may be negative
/// for some sizes (a conv output length below its kernel), where the range is empty.
fn symbolic_length(start: &Dim, limit: &Dim, delta: i64) -> Dim {
    // ceil(x / d) = floor((x + d - 1) / d) for d > 0; a negative step walks the span backwards.
    let (span, step) = if delta > 0 {
        (limit.sub(start), delta)
    } else {
        (start.sub(limit), delta.checked_neg().unwrap_or(0))
    };
    if step <= 0 {
        return Dim::Unknown;
    }
    let steps = span.add(&Dim::known(step - 1)).floor_div(&Dim::known(step));
    steps.max(&Dim::known(0))
}

fn static_length(start: i64, limit: i64, delta: i64) -> Dim {
    let (Some(span), false) = (limit.checked_sub(start), delta == 0) else {
        return Dim::Unknown;
    };
    // ceil(span / delta) for either sign of delta, then clamp at 0.
    let q = span.checked_div(delta);
    let r = span.checked_rem(delta);
    match (q, r) {
        (Some(q), Some(r)) => {
            let ceil = if r != 0 && ((r > 0) == (delta > 0)) {
                q + 1
            } else {
                q
            };
            Dim::known(ceil.max(0))
        }
        _ => Dim::Unknown,
    }
}
