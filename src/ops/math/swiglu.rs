//! `SwiGLU-28`: its output has its input's shape under a requirement of its own: the gate `A`
//! and value `B` "must have identical shapes; broadcasting is not applied".

use crate::ops::constraint::Pending;
use crate::ops::ranks::same_shape;
use crate::ops::{Ctx, Inferred, Output, RuleError};

/// `SwiGLU(A, B)`: Y has A's shape, which B must have too.
pub(crate) fn swiglu_28(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    let mut pending = Pending::default();
    if let Some(dims) = a.shape.dims() {
        same_shape(
            &mut pending,
            b.shape,
            dims,
            "SwiGLU's A and B must have identical shapes (no broadcasting)",
            &[0, 1],
        )?;
    }
    Ok(
        Inferred::single(Output::shape(a.shape.clone()).elem(a.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn swiglu_needs_identical_shapes() {
        assert_eq!(
            shape(&run(
                "SwiGLU",
                28,
                &[dims(&["b", "8"]), dims(&["b", "8"])],
                vec![]
            )),
            "[b, 8]"
        );
        assert!(unmet(&run(
            "SwiGLU",
            28,
            &[dims(&["2", "8"]), dims(&["1", "8"])],
            vec![]
        )));
        assert_eq!(
            conditions(&run(
                "SwiGLU",
                28,
                &[dims(&["b", "8"]), dims(&["c", "8"])],
                vec![]
            )),
            ["c = b"]
        );
    }
}
