//! `onnx/defs/nn`'s element-wise rules of their own: `Dropout`'s mask output (its type changed
//! at opset 10) and `LpNormalization`'s `axis`. `Shrink` and `MeanVarianceNormalization` take
//! the shared unary rule of [`crate::ops::elementwise`].

use crate::model::dtype::elem;
use crate::ops::elementwise;
use crate::ops::values::Unary;
use crate::ops::{Ctx, Inferred, Output, RuleError};

/// `Dropout` before opset 10: the mask, when asked for, is `T`, the input's type (Dropout-7 doc).
pub(crate) fn dropout_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let elem = ctx.input(0).and_then(|i| i.elem);
    dropout(ctx, elem)
}

/// `Dropout` from opset 10: the mask is `T1`, bool (Dropout-10 doc).
pub(crate) fn dropout_10(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    dropout(ctx, Some(elem::BOOL))
}

/// The output is the input (values included); the mask has its shape and type `mask`.
fn dropout(ctx: &Ctx<'_>, mask: Option<i32>) -> Result<Inferred, RuleError> {
    let mut outputs = vec![elementwise::unary_output(ctx, Unary::Identity)?];
    if ctx.node().outputs().len() > 1 {
        outputs.push(Output::shape(ctx.shape(0)?.clone()).elem(mask));
    }
    Ok(Inferred::many(outputs))
}

/// `LpNormalization`: the output has the input's shape; the axis, -1 by default, must name one.
pub(crate) fn lp_normalization(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    elementwise::axis_in_range(ctx, Some(-1))?;
    elementwise::unary(ctx, Unary::Opaque)
}
