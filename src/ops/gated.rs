//! `SwiGLU-28` and `BitCast-26`: ops whose output has their input's shape under a requirement
//! of their own. `SwiGLU`'s gate `A` and value `B` "must have identical shapes; broadcasting is
//! not applied"; `BitCast`'s target type "must have the same bit-width as the input data type"
//! (onnx's inference rejects other widths).

use crate::ops::constraint::{Constraint, Pending};
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

/// The bit width of a `TensorProto.DataType`, `None` for strings and unknown types.
fn bits(elem: i32) -> Option<u32> {
    Some(match elem {
        2 | 3 | 9 | 17..=20 | 24 => 8,
        4 | 5 | 10 | 16 => 16,
        1 | 6 | 12 => 32,
        7 | 11 | 13 | 14 => 64,
        15 => 128,
        21..=23 => 4,
        25 | 26 => 2,
        _ => return None,
    })
}

/// `BitCast(input)` to `to`: the input's shape, when the bit widths agree.
pub(crate) fn bit_cast_26(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let to = ctx.attrs().int("to")?.and_then(|t| i32::try_from(t).ok());
    if let (Some(from), Some(to)) = (x.elem.and_then(bits), to.and_then(bits)) {
        if from != to {
            return Err(Constraint::new(
                "BitCast's target type must have the input type's bit width",
                format!("the input has {from} bits, `to` has {to}"),
                &[0],
            )
            .unmet());
        }
    }
    Ok(Inferred::single(Output::shape(x.shape.clone()).elem(to)))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, run};

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

    #[test]
    fn bit_cast_needs_equal_widths() {
        // dims() inputs are FLOAT (32 bits).
        assert_eq!(
            shape(&run(
                "BitCast",
                26,
                &[dims(&["2", "4"])],
                vec![int_attr("to", 6)]
            )),
            "[2, 4]"
        );
        assert!(unmet(&run(
            "BitCast",
            26,
            &[dims(&["2", "4"])],
            vec![int_attr("to", 3)]
        )));
        assert!(unmet(&run(
            "BitCast",
            26,
            &[dims(&["2", "4"])],
            vec![int_attr("to", 11)]
        )));
    }
}
