//! `TopK` (`onnx/defs/math`): the axis becomes `k`, an attribute in TopK-1 and input 1 from
//! opset 10; an unknown `k` is named (see `Ctx::size_element`).

use crate::model::dtype::elem;
use crate::ops::axes::{self};
use crate::ops::constraint::Constraint;
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// TopK-1: `k` is an attribute.
pub(crate) fn top_k_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    top_k(ctx, true)
}

/// TopK-10 and later: `k` is input 1.
pub(crate) fn top_k_10(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    top_k(ctx, false)
}

/// `TopK(x, k, axis)`: the axis becomes `k` (an input from opset 10, an attribute before).
fn top_k(ctx: &Ctx<'_>, k_attribute: bool) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let k = if k_attribute {
        let Some(k) = ctx.attrs().int("k")? else {
            return Err(spec::missing_attr("TopK-1", "k"));
        };
        Dim::known(k)
    } else {
        // An unknown k names the element: every node fed the same k value gets one symbol.
        // It is at most the axis' size ("k argument [6] should not be greater than specified
        // axis dim value [5]").
        ctx.required(1)?;
        let at_most = input
            .shape
            .dims()
            .and_then(|dims| {
                let axis = axes::normalise(ctx.int("axis", -1).ok()?, dims.len())?;
                dims.get(axis).cloned()
            })
            .into_iter()
            .collect();
        ctx.size_element(1, 0, "TopK", at_most)
    };
    if let Some(k) = k.as_known().filter(|&k| k < 0) {
        return Err(
            Constraint::new("TopK's k must not be negative", format!("k is {k}"), &[1]).unmet(),
        );
    }
    let shape = match input.shape.dims() {
        Some(dims) => {
            let axis = axes::require(ctx.int("axis", -1)?, dims.len(), "TopK axis")?;
            let mut dims = dims.to_vec();
            if let Some(slot) = dims.get_mut(axis) {
                // "k argument [6] should not be greater than specified axis dim value [5]".
                if let (Some(want), Some(have)) = (k.as_known(), slot.as_known()) {
                    if want > have {
                        return Err(Constraint::new(
                            "TopK's k must not exceed the size of the axis",
                            format!("k is {want}, axis {axis} has size {have}"),
                            &[0, 1],
                        )
                        .fix("lower k, or check the axis")
                        .unmet());
                    }
                }
                *slot = k;
            }
            Shape::Ranked(dims)
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::many(vec![
        Output::shape(shape.clone()).elem(input.elem),
        Output::shape(shape).elem(Some(elem::INT64)),
    ]))
}
