//! `ReverseSequence` (10, 28): keeps its input's shape while working along one axis;
//! `sequence_lens` is `(batch_size)`, the input's `batch_axis` dim, as `onnx.shape_inference`
//! unifies it.

use crate::ops::axes;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};

/// `ReverseSequence(input, sequence_lens)`: Y is the input's shape; the input has rank 2 or
/// more, `batch_axis` and `time_axis` are among its axes and differ.
pub(crate) fn reverse_sequence(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let lens = ctx.required(1)?;
    let mut pending = Pending::default();
    let requires = "ReverseSequence's sequence_lens must be 1-D (batch_size)";
    let l = exact(lens.shape, 1, requires, 1)?;
    if let Some(d) = x.shape.dims() {
        if d.len() < 2 {
            return Err(Constraint::new(
                "ReverseSequence's input must have rank 2 or more",
                format!("it has rank {}", d.len()),
                &[0],
            )
            .unmet());
        }
        let batch = axes::require(
            ctx.int("batch_axis", 1)?,
            d.len(),
            "ReverseSequence batch_axis",
        )?;
        let time = axes::require(
            ctx.int("time_axis", 0)?,
            d.len(),
            "ReverseSequence time_axis",
        )?;
        if batch == time {
            return Err(Constraint::new(
                "ReverseSequence's batch_axis and time_axis must differ",
                format!("both are {batch}"),
                &[0],
            )
            .unmet());
        }
        equal(
            &mut pending,
            &dim_at(l, 0),
            &dim_at(Some(d), batch),
            requires,
            "sequence_lens' length",
            &[0, 1],
        )?;
    }
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn reverse_sequence_lens_are_per_batch() {
        assert_eq!(
            shape(&run(
                "ReverseSequence",
                28,
                &[dims(&["5", "3", "4"]), dims(&["3"])],
                vec![]
            )),
            "[5, 3, 4]"
        );
        let major = vec![int_attr("batch_axis", 0), int_attr("time_axis", 1)];
        assert_eq!(
            shape(&run(
                "ReverseSequence",
                10,
                &[dims(&["5", "3", "4"]), dims(&["5"])],
                major
            )),
            "[5, 3, 4]"
        );
        assert!(unmet(&run(
            "ReverseSequence",
            10,
            &[dims(&["5", "3", "4"]), dims(&["4"])],
            vec![]
        )));
        assert!(unmet(&run(
            "ReverseSequence",
            10,
            &[dims(&["5", "3"]), dims(&["3"])],
            vec![int_attr("time_axis", 1)]
        )));
        assert_eq!(
            conditions(&run(
                "ReverseSequence",
                10,
                &[dims(&["t", "b"]), dims(&["n"])],
                vec![]
            )),
            ["n = b"]
        );
    }
}
