//! `ExpandDims(X, axis)` (com.microsoft, CPU kernel): X with a 1 inserted at `axis`, an int32
//! scalar in `[-r-1, r]` for X of rank r (onnxruntime's kernel: "Axis must be within range").
//! A negative axis counts insertion points from the end: -1 appends the 1. That is the kernel's
//! reading, observed on onnxruntime 1.31 (`[2, 3]` with -1 gives `[2, 3, 1]`); its schema
//! inference computes the position as `r + axis - 1` and would write `[1, 2, 3]`, a shape the
//! kernel never produces, so the kernel is followed.

use crate::ops::axes::input_ints;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `ExpandDims(X, axis)`: rank `r + 1`; when the axis is not known, every dim is unknown.
pub(crate) fn expand_dims(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    ctx.required(1)?;
    let Some(dims) = x.shape.dims() else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(x.elem),
        ));
    };
    let rank = i64::try_from(dims.len()).unwrap_or(i64::MAX);
    let shape = match input_ints(ctx.input(1)).as_deref() {
        Some(&[axis]) => {
            if axis > rank || axis < -rank - 1 {
                let requires = "ExpandDims's axis must be in [-r-1, r] for X of rank r";
                let found = format!("axis is {axis}, rank is {rank}");
                return Err(Constraint::new(requires, found, &[0, 1]).unmet());
            }
            let pos = if axis < 0 { axis + rank + 1 } else { axis };
            let pos = usize::try_from(pos).unwrap_or(0);
            let mut out = dims.to_vec();
            out.insert(pos.min(out.len()), Dim::known(1));
            Shape::Ranked(out)
        }
        _ => crate::ops::axes::unknown_dims(dims.len() + 1),
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, ints, run_microsoft};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    fn run(axis: i64) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let axis = ints(ValueTensor::new(vec![], vec![Dim::known(axis)]).unwrap());
        run_microsoft("ExpandDims", &[dims(&["b", "3"]), axis], vec![], 1)
    }

    #[test]
    fn axes_count_insertion_points_as_the_kernel_does() {
        // As onnxruntime 1.31's CPU kernel gives them for X of shape [2, 3].
        assert_eq!(shape(&run(0)), "[1, b, 3]");
        assert_eq!(shape(&run(2)), "[b, 3, 1]");
        assert_eq!(shape(&run(-1)), "[b, 3, 1]");
        assert_eq!(shape(&run(-2)), "[b, 1, 3]");
        assert_eq!(shape(&run(-3)), "[1, b, 3]");
        assert!(unmet(&run(3)));
        assert!(unmet(&run(-4)));
        let unknown = run_microsoft("ExpandDims", &[dims(&["b", "3"]), dims(&[])], vec![], 1);
        assert_eq!(shape(&unknown), "[?, ?, ?]");
    }
}
