//! Matrix contrib ops (com.microsoft): `GemmFloat8` (Gemm's `(M, N)` from 2-D A and B, typed by
//! the `dtype` attribute, as onnxruntime's inference writes it; CUDA kernel only), `Inverse`
//! (square inner matrices, X's shape; CPU kernel) and `CDist` (pairwise distances of the rows of
//! `(M, N)` A and `(K, N)` B, `(M, K)`; CPU kernel: "Input shape dimensions mismatch").

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::math::linalg::matrix_dims;
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::Shape;

/// `GemmFloat8(A, B, C, scaleA, scaleB, scaleY)`: `(M, N)`; A' columns must equal B' rows, and C
/// is added to the product (a unidirectional broadcast onto it).
pub(crate) fn gemm_float8(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    let (trans_a, trans_b) = (ctx.int("transA", 0)? != 0, ctx.int("transB", 0)? != 0);
    let (m, ka) = matrix_dims(a.shape, trans_a, 0)?;
    let (kb, n) = matrix_dims(b.shape, trans_b, 1)?;
    let mut pending = Pending::default();
    pending.equal(&ka, &kb, || {
        Constraint::new(
            "GemmFloat8's A' columns (K) must equal B' rows",
            format!("K is {ka} in A, {kb} in B (transA={trans_a:?}, transB={trans_b:?})"),
            &[0, 1],
        )
    })?;
    let elem = i32::try_from(ctx.int("dtype", 1)?).ok();
    let mn = Shape::Ranked(vec![m, n]);
    let mut inferred = Inferred::single(Output::shape(mn.clone()).elem(elem));
    if let Some(c) = ctx.input(2) {
        let outcome = ctx.broadcasts().unidirectional(&mn, c.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 2], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

/// `Inverse(X)`: X is `[*, M, M]` (rank 2 or more, the inner two dims equal, as onnxruntime's
/// inference requires); Y has its shape.
pub(crate) fn inverse(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let mut pending = Pending::default();
    match x.shape.dims() {
        Some([.., rows, cols]) => {
            let requires = "Inverse's inner-most 2 dimensions must have the same size";
            equal(&mut pending, cols, rows, requires, "the last dim", &[0])?;
        }
        Some(d) => {
            let requires = "Inverse's input must have rank 2 or more";
            return Err(
                Constraint::new(requires, format!("its rank is {}", d.len()), &[0]).unmet(),
            );
        }
        None => {}
    }
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

/// `CDist(A, B)`: A `(M, N)` and B `(K, N)` give `(M, K)`.
pub(crate) fn cdist(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a_in = ctx.required(0)?;
    let a = exact(a_in.shape, 2, "CDist's A must be 2-D (M, N)", 0)?;
    let b = exact(ctx.shape(1)?, 2, "CDist's B must be 2-D (K, N)", 1)?;
    let mut pending = Pending::default();
    let requires = "CDist's A and B must have the same number of columns N";
    equal(
        &mut pending,
        &dim_at(b, 1),
        &dim_at(a, 1),
        requires,
        "B's N",
        &[0, 1],
    )?;
    let shape = Shape::Ranked(vec![dim_at(a, 0), dim_at(b, 0)]);
    Ok(Inferred::single(Output::shape(shape).elem(a_in.elem))
        .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, run_microsoft};

    #[test]
    fn gemm_float8_is_m_by_n() {
        let r = run_microsoft(
            "GemmFloat8",
            &[dims(&["m", "16"]), dims(&["32", "16"])],
            vec![int_attr("transB", 1)],
            1,
        );
        assert_eq!(shape(&r), "[m, 32]");
        assert!(unmet(&run_microsoft(
            "GemmFloat8",
            &[dims(&["m", "16"]), dims(&["32", "16"])],
            vec![],
            1
        )));
        assert!(unmet(&run_microsoft(
            "GemmFloat8",
            &[dims(&["2", "m", "16"]), dims(&["16", "4"])],
            vec![],
            1
        )));
    }

    #[test]
    fn inverse_needs_square_matrices() {
        assert_eq!(
            shape(&run_microsoft(
                "Inverse",
                &[dims(&["b", "3", "3"])],
                vec![],
                1
            )),
            "[b, 3, 3]"
        );
        assert!(unmet(&run_microsoft(
            "Inverse",
            &[dims(&["b", "3", "4"])],
            vec![],
            1
        )));
        assert!(unmet(&run_microsoft("Inverse", &[dims(&["3"])], vec![], 1)));
        assert_eq!(
            conditions(&run_microsoft("Inverse", &[dims(&["n", "n2"])], vec![], 1)),
            ["n2 = n"]
        );
    }

    #[test]
    fn cdist_pairs_the_rows() {
        assert_eq!(
            shape(&run_microsoft(
                "CDist",
                &[dims(&["m", "4"]), dims(&["k", "4"])],
                vec![],
                1
            )),
            "[m, k]"
        );
        assert!(unmet(&run_microsoft(
            "CDist",
            &[dims(&["m", "4"]), dims(&["k", "3"])],
            vec![],
            1
        )));
        assert!(unmet(&run_microsoft(
            "CDist",
            &[dims(&["2", "m", "4"]), dims(&["k", "4"])],
            vec![],
            1
        )));
    }

    #[test]
    fn the_rows_that_reuse_other_rules_give_their_shapes() {
        let attrs = || vec![int_attr("transB", 1)];
        for op in ["FusedMatMulActivation", "SparseToDenseMatMul"] {
            let r = run_microsoft(op, &[dims(&["m", "16"]), dims(&["8", "16"])], attrs(), 1);
            assert_eq!(shape(&r), "[m, 8]", "{op}");
            let k = run_microsoft(op, &[dims(&["m", "16"]), dims(&["8", "15"])], attrs(), 1);
            assert!(unmet(&k), "{op}");
        }
        for op in ["QOrderedGelu", "SampleOp"] {
            let r = run_microsoft(op, &[dims(&["b", "4"]), dims(&[]), dims(&[])], vec![], 1);
            assert_eq!(shape(&r), "[b, 4]", "{op}");
        }
    }
}
