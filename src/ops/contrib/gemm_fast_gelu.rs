//! onnxruntime's `GemmFastGelu` (the transformer optimizer's `MatMul` + `FastGelu` fusion,
//! `fusion_gemmfastgelu.py`): "a fusion of `MatMul` and `FastGelu`", so Y is `MatMul(X, W)`'s shape
//! and the optional bias is added to it before the activation (a unidirectional broadcast onto
//! Y, as `FastGelu`'s bias). onnxruntime's schema infers Y with `MatMul`'s shape inference.

use crate::ops::math::linalg::matmul_of;
use crate::ops::{Ctx, Inferred, RuleError};
use crate::shape::broadcast::Rule;

/// `GemmFastGelu(X, W, bias)`.
pub(crate) fn gemm_fast_gelu(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let w = ctx.required(1)?;
    let inferred = matmul_of(ctx.broadcasts(), x.shape, w.shape, [0, 1], x.elem)?;
    let Some(bias) = ctx.input(2) else {
        return Ok(inferred);
    };
    let Some(y) = inferred.outputs.first().map(|o| o.shape.clone()) else {
        return Ok(inferred);
    };
    let outcome = ctx.broadcasts().unidirectional(&y, bias.shape);
    Ok(inferred.with_check(Rule::Unidirectional, vec![0, 2], outcome))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims, output_shapes, run_microsoft};

    #[test]
    fn output_is_the_product_and_the_bias_broadcasts_onto_it() {
        let r = run_microsoft(
            "GemmFastGelu",
            &[
                dims(&["B", "S", "64"]),
                dims(&["64", "256"]),
                dims(&["256"]),
            ],
            vec![],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[B, S, 256]"]);
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
        let r = run_microsoft(
            "GemmFastGelu",
            &[
                dims(&["B", "S", "64"]),
                dims(&["64", "256"]),
                dims(&["255"]),
            ],
            vec![],
            1,
        )
        .unwrap();
        assert!(r.checks.iter().any(|c| c.outcome.is_invalid()));
        assert!(unmet(&run_microsoft(
            "GemmFastGelu",
            &[dims(&["B", "S", "64"]), dims(&["63", "256"])],
            vec![],
            1
        )));
    }
}
