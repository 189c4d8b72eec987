//! `Flatten` (`onnx/defs/nn`): `[prod(dims[..axis]), prod(dims[axis..])]`.

use crate::ops::axes::unknown_dims;
use crate::ops::constraint::Constraint;
use crate::ops::overflow::sized;
use crate::ops::tensor::reshape::reshaped;
use crate::ops::{Ctx, Inferred, RuleError};
use crate::shape::Shape;

/// `Flatten(x, axis)`: `[prod(dims[..axis]), prod(dims[axis..])]`. The axis is in `[0, r]`
/// before opset 11 and `[-r, r]` from 11 (r inclusive: `axis = r` gives `[N, 1]`).
fn flatten(ctx: &Ctx<'_>, negative_axis: bool) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let Some(dims) = input.shape.dims() else {
        return Ok(Inferred::single(reshaped(ctx, unknown_dims(2))));
    };
    let given = ctx.int("axis", 1)?;
    let rank = i64::try_from(dims.len()).unwrap_or(i64::MAX);
    let low = if negative_axis { -rank } else { 0 };
    let axis = if given < 0 {
        given.saturating_add(rank)
    } else {
        given
    };
    let axis = usize::try_from(axis)
        .ok()
        .filter(|a| *a <= dims.len() && given >= low)
        .ok_or_else(|| {
            Constraint::new(
                format!("Flatten's axis must be in [{low}, r] for an input of rank r"),
                format!("axis is {given}, rank is {rank}"),
                &[0],
            )
            .fix(format!("use an axis in [{low}, {rank}]"))
            .unmet()
        })?;
    let (outer, inner) = dims.split_at(axis);
    let outer = sized(
        "the output's dim 0 (the product of the dims before axis)",
        &[0],
    )
    .product(outer)?;
    let inner = sized(
        "the output's dim 1 (the product of the dims from axis)",
        &[0],
    )
    .product(inner)?;
    Ok(Inferred::single(reshaped(
        ctx,
        Shape::Ranked(vec![outer, inner]),
    )))
}

/// `Flatten` before opset 11: the axis is in `[0, r]`.
pub(crate) fn flatten_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    flatten(ctx, false)
}

/// `Flatten` from opset 11: the axis is in `[-r, r]`.
pub(crate) fn flatten_11(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    flatten(ctx, true)
}
