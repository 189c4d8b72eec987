//! onnxruntime's `BiasSoftmax`: "Y = softmax(scores + bias)) with simple broadcast on bias",
//! softmax over the axes from `axis` on. Y has the data's shape (onnxruntime's schema propagates
//! the first input's). The bias is broadcast over the leading or the inner axes
//! (`is_inner_broadcast`); with the data's rank it is recorded as a unidirectional broadcast onto
//! the data, looser than the kernel's, so what it reports the kernel rejects too; a bias of
//! another rank is left to the kernel.

use crate::ops::{axes, Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;

/// `BiasSoftmax(data, bias)`.
pub(crate) fn bias_softmax(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let bias = ctx.required(1)?;
    if let Some(d) = data.shape.dims() {
        axes::require(ctx.int("axis", 1)?, d.len(), "axis")?;
    }
    let inferred = Inferred::single(Output::shape(data.shape.clone()).elem(data.elem));
    match (data.shape.rank(), bias.shape.rank()) {
        (Some(a), Some(b)) if a == b => {
            let outcome = ctx.broadcasts().unidirectional(data.shape, bias.shape);
            Ok(inferred.with_check(Rule::Unidirectional, vec![0, 1], outcome))
        }
        _ => Ok(inferred),
    }
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims, output_shapes, run_microsoft};

    #[test]
    fn output_is_the_data_and_a_same_rank_bias_must_broadcast() {
        let r = run_microsoft(
            "BiasSoftmax",
            &[dims(&["B", "12", "S", "S"]), dims(&["B", "1", "1", "S"])],
            vec![],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[B, 12, S, S]"]);
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
        let r = run_microsoft(
            "BiasSoftmax",
            &[dims(&["2", "12", "8", "8"]), dims(&["2", "1", "1", "7"])],
            vec![],
            1,
        )
        .unwrap();
        assert!(r.checks.iter().any(|c| c.outcome.is_invalid()));
        let r = run_microsoft(
            "BiasSoftmax",
            &[dims(&["2", "12", "8", "8"]), dims(&["2", "8"])],
            vec![],
            1,
        )
        .unwrap();
        assert!(r.checks.is_empty());
    }
}
