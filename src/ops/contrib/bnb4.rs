//! `MatMulBnb4`, the 4-bit (FP4/NF4) weight matmul that onnxruntime's
//! `matmul_bnb4_quantizer.py` writes (ContribOperators.md): `Y = A x dequantize(B)` with B `(N,
//! K)` packed into bytes and its per-block `absmax`. onnxruntime's kernel reads K and N from the
//! attributes and compares only A's last dim with K (`MatMul dimension mismatch`); it does not
//! check the packed B or `absmax` lengths (run with both one too long, 1.31), so neither is
//! checked here.

use super::super::constraint::Pending;
use super::super::{spec, Ctx, Inferred, Output, RuleError};
use super::activation::require_equal;
use crate::shape::{Dim, Shape};

/// `MatMulBnb4(A, B, absmax)`: Y is A's shape with the last dim `N`; A's last dim must be `K`.
pub(crate) fn mat_mul_bnb4(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    ctx.required(1)?;
    ctx.required(2)?;
    let attr = |name| -> Result<i64, RuleError> {
        ctx.attrs()
            .int(name)?
            .ok_or_else(|| spec::missing_attr("MatMulBnb4", name))
    };
    let (k, n) = (Dim::known(attr("K")?), Dim::known(attr("N")?));
    let mut pending = Pending::default();
    let shape = match a.shape.dims() {
        // A 1-D A is a vector: the product drops its axis, as numpy matmul does.
        Some([last]) => {
            require_equal(
                &mut pending,
                last,
                &k,
                "MatMulBnb4's A must have K as its last dim",
                &[0],
            )?;
            Shape::Ranked(vec![n])
        }
        Some([batch @ .., last]) => {
            require_equal(
                &mut pending,
                last,
                &k,
                "MatMulBnb4's A must have K as its last dim",
                &[0],
            )?;
            Shape::Ranked(batch.iter().cloned().chain([n]).collect())
        }
        _ => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(a.elem)).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, int_attr, output_shapes, run_in};
    use crate::ops::RuleError;

    // As onnxruntime 1.31 runs it (CPU) with K 32, N 16, blocks of 16: A (2, 3, 32) gives
    // (2, 3, 16); A (2, 3, 33) fails with `MatMul dimension mismatch`.
    #[test]
    fn a_meets_k_and_the_product_has_n_columns() {
        let run = |a: &[&str]| {
            let attrs = vec![
                int_attr("K", 32),
                int_attr("N", 16),
                int_attr("block_size", 16),
            ];
            run_in(
                "com.microsoft",
                "MatMulBnb4",
                1,
                &[s(a), s(&["256"]), s(&["32"])],
                attrs,
                1,
            )
        };
        let r = run(&["2", "3", "32"]).unwrap();
        assert_eq!(output_shapes(&r), ["[2, 3, 16]"]);
        assert!(matches!(run(&["2", "3", "33"]), Err(RuleError::Unmet(_))));
        assert_eq!(run(&["b", "k"]).unwrap().constraints.len(), 1);
    }
}
