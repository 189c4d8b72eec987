//! `Where(condition, X, Y)` (`onnx/defs/tensor`): multidirectional broadcasting over its three
//! inputs, known values selected element by element.

use crate::ops::values::ints;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::{Rule, Verdict};

/// `Where(condition, X, Y)`: multidirectional over its three inputs.
pub(crate) fn where_9(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let c = ctx.required(0)?;
    let x = ctx.required(1)?;
    let y = ctx.required(2)?;
    let outcome = ctx
        .broadcasts()
        .multidirectional(&[c.shape, x.shape, y.shape]);
    let folded = match (&outcome.verdict, c.value, x.value, y.value) {
        (Verdict::Invalid(_), ..) => None,
        (_, Some(c), Some(x), Some(y)) => ints::select(c, x, y),
        _ => None,
    };
    let output = match folded {
        Some(value) => Output::value(value, x.elem),
        None => Output::shape(outcome.shape.clone()).elem(x.elem),
    };
    Ok(Inferred::single(output).with_check(Rule::Multidirectional, vec![0, 1, 2], outcome))
}
