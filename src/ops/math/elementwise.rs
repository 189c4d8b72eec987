//! `onnx/defs/math`'s element-wise rules of their own: the variadic `Sum`, `Mean`, `Max`, `Min`
//! (equal shapes before opset 8, multidirectional from it), the `axis` of `Softmax`,
//! `LogSoftmax` and `Hardmax` (default 1 before opset 13, -1 from it), and `PRelu`'s slope
//! (unidirectional from opset 7). The plain element-wise ops take the shared rules of
//! [`crate::ops::elementwise`].

use crate::ops::elementwise::{self, binary_elem, float_binary};
use crate::ops::values::{ints, Binary, Unary};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::{Rule, Verdict};
use crate::shape::{Shape, Tri};

/// `Sum`, `Mean`, `Max`, `Min` before opset 8: inputs of one shape (no broadcasting), each
/// checked against the first with the legacy rule's `broadcast=0` form.
pub(crate) fn variadic_1(ctx: &Ctx<'_>, op: Binary) -> Result<Inferred, RuleError> {
    let shapes = ctx.present_shapes();
    if shapes.is_empty() {
        return Err(RuleError::MissingInput(0));
    }
    let slots: Vec<usize> = (0..ctx.input_count())
        .filter(|&s| ctx.input(s).is_some())
        .collect();
    let mut inferred = Inferred::single(
        Output::shape(shapes.first().map_or(Shape::Unranked, |s| (*s).clone()))
            .elem(binary_elem(ctx, op)),
    );
    for (&slot, shape) in slots.iter().zip(&shapes).skip(1) {
        if let (Some(&first), Some(first_shape)) = (slots.first(), shapes.first()) {
            let outcome = ctx.broadcasts().legacy(first_shape, shape, false, None);
            inferred = inferred.with_check(Rule::Legacy, vec![first, slot], outcome);
        }
    }
    Ok(inferred)
}

/// `Sum`, `Mean`, `Max`, `Min` from opset 8: multidirectional over all inputs. `op` folds
/// values of one or two inputs (`Binary::Opaque` for `Mean`: not folded).
pub(crate) fn variadic_8(ctx: &Ctx<'_>, op: Binary) -> Result<Inferred, RuleError> {
    let shapes = ctx.present_shapes();
    if shapes.is_empty() {
        return Err(RuleError::MissingInput(0));
    }
    let slots: Vec<usize> = (0..ctx.input_count())
        .filter(|&s| ctx.input(s).is_some())
        .collect();
    let outcome = ctx.broadcasts().multidirectional(&shapes);
    let rule = Rule::Multidirectional;
    let folds = op != Binary::Opaque;
    let folded = match (
        &outcome.verdict,
        ctx.input(0),
        ctx.input(1),
        ctx.input_count(),
    ) {
        (Verdict::Invalid(_), ..) => None,
        (_, Some(x), Some(y), 2) if folds => match (x.value, y.value) {
            (Some(x), Some(y)) => ints::binary(op, x, y),
            _ => None,
        },
        (_, Some(x), _, 1) if folds => x.value.cloned(),
        _ => None,
    };
    let real = match (ctx.input(0), ctx.input(1), ctx.input_count()) {
        (Some(x), Some(y), 2) if folds => float_binary(op, x, y, &outcome.verdict),
        (Some(x), _, 1) if folds => x.real().cloned(),
        _ => None,
    };
    let elem = binary_elem(ctx, op);
    let output = match (folded, real) {
        (Some(value), _) => Output::value(value, elem),
        (None, Some(real)) => Output::reals(real, elem),
        (None, None) => Output::shape(outcome.shape.clone()).elem(elem),
    };
    Ok(Inferred::single(output).with_check(rule, slots, outcome))
}

/// `Softmax`, `LogSoftmax`, `Hardmax` before opset 13: the default axis 1, which a 1-D input
/// lacks, is left to the runtime; only an axis the node writes is checked.
pub(crate) fn softmax_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    elementwise::axis_in_range(ctx, None)?;
    elementwise::unary(ctx, Unary::Opaque)
}

/// `Softmax`, `LogSoftmax`, `Hardmax` from opset 13: the axis, -1 by default, must name one.
pub(crate) fn softmax_13(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    elementwise::axis_in_range(ctx, Some(-1))?;
    elementwise::unary(ctx, Unary::Opaque)
}

/// `PRelu` from opset 7: the slope broadcasts unidirectionally to X (PRelu-7 doc).
pub(crate) fn prelu_7(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let slope = ctx.required(1)?;
    let output = Output::shape(x.shape.clone()).elem(x.elem);
    let outcome = ctx.broadcasts().unidirectional(x.shape, slope.shape);
    Ok(Inferred::single(output).with_check(Rule::Unidirectional, vec![0, 1], outcome))
}

/// `PRelu` before opset 7. The PRelu-1/6 docs state no broadcasting rule; the runtimes of the
/// time (Caffe2, where the pytorch-converted models come from) took a one-element slope or one
/// slope per channel of `[N, C, ...]`, and ONNX ships such models with expected outputs (the
/// `PReLU_*_multiparam` tests). So a slope is accepted when it broadcasts unidirectionally, or
/// when it is 1-D of size C; it is rejected only when neither can hold.
pub(crate) fn prelu_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let slope = ctx.required(1)?;
    let output = Output::shape(x.shape.clone()).elem(x.elem);
    let mut outcome = ctx.broadcasts().unidirectional(x.shape, slope.shape);
    if !outcome.is_valid() && per_channel_slope_may_apply(x.shape, slope.shape) {
        outcome.verdict = Verdict::Valid;
    }
    Ok(Inferred::single(output).with_check(Rule::Unidirectional, vec![0, 1], outcome))
}

/// Whether a PRelu-1/6 slope may be one value per channel: 1-D, and its size not provably
/// different from X's axis 1 (an unranked X may have any channel count).
fn per_channel_slope_may_apply(x: &Shape, slope: &Shape) -> bool {
    let Some([size]) = slope.dims() else {
        return false;
    };
    match x.dims() {
        None => true,
        Some([_, channels, ..]) => channels.eq_dim(size) != Tri::No,
        Some(_) => false,
    }
}
