//! `CumProd-26`: keeps its input's shape while working along one axis (`axis` a scalar or
//! 1-element tensor, like `CumSum`).

use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};

/// `CumProd(x, axis)`: y is x's shape.
pub(crate) fn cum_prod_26(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let axis = ctx.required(1)?;
    if let Some(d) = axis.shape.dims().filter(|d| {
        d.len() > 1
            || d.first()
                .and_then(crate::shape::Dim::as_known)
                .is_some_and(|n| n != 1)
    }) {
        return Err(Constraint::new(
            "CumProd's axis must be a scalar or a 1-element tensor",
            format!("it has shape {}", crate::shape::Shape::Ranked(d.to_vec())),
            &[1],
        )
        .unmet());
    }
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(x.elem),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn cum_prod_keeps_the_shape() {
        assert_eq!(
            shape(&run("CumProd", 26, &[dims(&["5", "3"]), dims(&[])], vec![])),
            "[5, 3]"
        );
        assert!(unmet(&run(
            "CumProd",
            26,
            &[dims(&["5", "3"]), dims(&["2"])],
            vec![]
        )));
    }
}
