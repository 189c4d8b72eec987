//! Sequence ops. The engine tracks tensor shapes only, so a sequence value (and a tensor taken
//! out of one, whose shape depends on which element) stays unknown; `SequenceLength` is a
//! scalar int64 (ONNX SequenceLength-11).

pub(crate) mod map;

use crate::model::dtype::elem;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Shape;

/// `SequenceLength(S)`: a scalar int64.
pub(crate) fn length(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    Ok(Inferred::single(
        Output::shape(Shape::scalar()).elem(Some(elem::INT64)),
    ))
}

/// Sequence-valued outputs, and tensors whose shape depends on the element chosen: unknown.
pub(crate) fn opaque(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    sequence_empty(ctx)
}

/// `SequenceEmpty()`: an unknown sequence, from no input.
#[allow(
    clippy::unnecessary_wraps,
    reason = "a rule has the registry's signature (RuleFn)"
)]
pub(crate) fn sequence_empty(_ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    Ok(Inferred::single(Output::shape(Shape::Unranked)))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{self, run};
    use crate::shape::Shape;

    #[test]
    fn length_is_scalar_int64() {
        let r = run(
            "SequenceLength",
            11,
            &[testing::shape(Shape::Unranked)],
            vec![],
        )
        .unwrap();
        assert_eq!(r.outputs[0].shape, Shape::scalar());
        assert_eq!(r.outputs[0].elem, Some(7));
    }

    #[test]
    fn sequence_values_stay_unknown() {
        let r = run(
            "SequenceAt",
            11,
            &[
                testing::shape(Shape::Unranked),
                testing::shape(Shape::scalar()),
            ],
            vec![],
        );
        assert_eq!(r.unwrap().outputs[0].shape, Shape::Unranked);
        assert!(run("SequenceEmpty", 11, &[], vec![]).is_ok());
        assert!(run("SequenceErase", 11, &[], vec![]).is_err());
    }
}
