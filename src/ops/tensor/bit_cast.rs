//! `BitCast-26`: its output has its input's shape under a requirement of its own: the target
//! type "must have the same bit-width as the input data type" (onnx's inference rejects other
//! widths).

use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};

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
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

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
