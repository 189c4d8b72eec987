//! `Det` (11, 22): `[*]` of a `[*, M, M]` input. Its rank and dim requirements are
//! `onnx.shape_inference`'s for the op.

use crate::ops::constraint::Pending;
use crate::ops::ranks::equal;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Shape;

/// `Det(X)`: `[*]` of a `[*, M, M]` input ("Input rank must be >= 2"; the two inner dims
/// unify).
pub(crate) fn det(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let mut pending = Pending::default();
    let shape = match x.shape.dims() {
        Some([outer @ .., rows, cols]) => {
            equal(
                &mut pending,
                cols,
                rows,
                "Det's input must be [*, M, M], square in its last two dims",
                "the last dim",
                &[0],
            )?;
            Shape::Ranked(outer.to_vec())
        }
        Some(d) => {
            return Err(crate::ops::constraint::Constraint::new(
                "Det's input must have rank 2 or more [*, M, M]",
                format!("it has rank {}", d.len()),
                &[0],
            )
            .unmet())
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn det_drops_the_square_dims() {
        assert_eq!(
            shape(&run("Det", 22, &[dims(&["2", "3", "3"])], vec![])),
            "[2]"
        );
        assert!(unmet(&run("Det", 11, &[dims(&["3", "4"])], vec![])));
        assert!(unmet(&run("Det", 11, &[dims(&["3"])], vec![])));
        assert_eq!(
            conditions(&run("Det", 11, &[dims(&["m", "3"])], vec![])),
            ["m = 3"]
        );
    }
}
