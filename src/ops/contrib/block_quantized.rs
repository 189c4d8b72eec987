//! Matmuls on block-quantized weights (com.microsoft): `MatMulFpQ4` (a pre-packed int4 blob whose
//! `(K, N)` shape is the value of input `B_shape`; CPU kernel, numpy matmul shapes as in
//! onnxruntime's `matmulQ4ShapeInference`), and the CUDA-only `MatMulBlockQuantizedFp4Weight`
//! (B is packed NVFP4 `(N, K/2)`) and `MatMulBlockQuantizedFp8Weight` (B is FP8 `(N, K)`), whose
//! output is A's shape with the last dim `N` (ContribOperators.md; followed from the docs, as
//! those kernels cannot run here): A's last dim must be `K`, the per-block scales are
//! `(N, ceil(K / block_size))` and the bias `(N)`.

use super::activation::require_equal;
use crate::ops::axes::input_ints;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::math::linalg::matmul_of;
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `MatMulFpQ4(A, B, B_shape)`: `A @ B` with B of the `(K, N)` shape `B_shape` holds; unknown
/// dims when that value is not known.
pub(crate) fn mat_mul_fp_q4(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    ctx.required(1)?;
    ctx.required(2)?;
    let float = Some(crate::model::dtype::elem::FLOAT);
    let b = match input_ints(ctx.input(2)).as_deref() {
        Some(&[k, n]) => Shape::Ranked(vec![Dim::known(k), Dim::known(n)]),
        Some(other) => {
            let requires = "MatMulFpQ4's B_shape must hold B's two dims (K, N)";
            let found = format!("it holds {} values", other.len());
            return Err(Constraint::new(requires, found, &[2]).unmet());
        }
        None => Shape::Ranked(vec![Dim::Unknown, Dim::Unknown]),
    };
    matmul_of(ctx.broadcasts(), a.shape, &b, [0, 2], float)
}

/// Which block-quantized weight a row names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Weight {
    /// `MatMulBlockQuantizedFp4Weight`: B is `(N, K/2)`, 16-value blocks by default, bias slot 5.
    Fp4,
    /// `MatMulBlockQuantizedFp8Weight`: B is `(N, K)`, 128-value blocks by default, bias slot 4.
    Fp8,
}

/// `MatMulBlockQuantizedFp4Weight(A, B, weight_scale, weight_scale_2, input_scale, bias)` and
/// `MatMulBlockQuantizedFp8Weight(A, B, b_scale, a_scale, bias)`: `Y` is A's shape with the
/// last dim `N` (B's dim 0).
pub(crate) fn block_quantized(ctx: &Ctx<'_>, weight: Weight) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let a = ctx.required(0)?;
    let b_in = ctx.required(1)?;
    let scale = ctx.required(2)?;
    let (default_block, bias_slot) = match weight {
        Weight::Fp4 => (16, 5),
        Weight::Fp8 => (128, 4),
    };
    let block = ctx.int("block_size", default_block)?;
    if block <= 0 {
        let requires = format!("{op}'s block_size must be positive");
        return Err(Constraint::new(requires, format!("block_size is {block}"), &[]).unmet());
    }
    let layout = match weight {
        Weight::Fp4 => "(N, K/2)",
        Weight::Fp8 => "(N, K)",
    };
    let b = exact(b_in.shape, 2, &format!("{op}'s B must be 2-D {layout}"), 1)?;
    let n = dim_at(b, 0);
    let k = match weight {
        Weight::Fp4 => dim_at(b, 1).mul(&Dim::known(2)),
        Weight::Fp8 => dim_at(b, 1),
    };
    let mut pending = Pending::default();
    let shape = match a.shape.dims() {
        Some([]) => {
            let requires = format!("{op}'s A must have rank 1 or more");
            return Err(Constraint::new(requires, "its rank is 0", &[0]).unmet());
        }
        Some([batch @ .., last]) => {
            let requires = format!("{op}'s A must have K as its last dim (B is {layout})");
            require_equal(&mut pending, last, &k, &requires, &[0, 1])?;
            Shape::Ranked(batch.iter().cloned().chain([n.clone()]).collect())
        }
        None => Shape::Unranked,
    };
    let blocks = k.add(&Dim::known(block - 1)).floor_div(&Dim::known(block));
    let requires = format!("{op}'s weight scales must be (N, ceil(K / block_size))");
    same_shape(
        &mut pending,
        scale.shape,
        &[n.clone(), blocks],
        &requires,
        &[1, 2],
    )?;
    if let Some(bias) = ctx.input(bias_slot) {
        let requires = format!("{op}'s bias must be 1-D (N)");
        if let Some(d) = exact(bias.shape, 1, &requires, bias_slot)? {
            equal(
                &mut pending,
                &dim_at(Some(d), 0),
                &n,
                &requires,
                "bias' length",
                &[1, bias_slot],
            )?;
        }
    }
    Ok(Inferred::single(Output::shape(shape).elem(a.elem)).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_list, run_microsoft};

    #[test]
    fn fp_q4_multiplies_by_the_b_shape_value() {
        let run = |a: &[&str], b_shape: &[i64]| {
            run_microsoft(
                "MatMulFpQ4",
                &[dims(a), dims(&["1024"]), int_list(b_shape)],
                vec![],
                1,
            )
        };
        assert_eq!(shape(&run(&["b", "s", "64"], &[64, 32])), "[b, s, 32]");
        assert!(unmet(&run(&["b", "s", "48"], &[64, 32])));
        assert!(unmet(&run(&["b", "s", "64"], &[64])));
        let unknown = run_microsoft(
            "MatMulFpQ4",
            &[dims(&["b", "64"]), dims(&["1024"]), dims(&["2"])],
            vec![],
            1,
        );
        assert_eq!(shape(&unknown), "[b, ?]");
    }

    #[test]
    fn fp4_and_fp8_weights_give_n_and_check_k() {
        let fp4 = |a: &[&str], scale: &[&str]| {
            let inputs = [
                dims(a),
                dims(&["32", "32"]),
                dims(scale),
                dims(&[]),
                None,
                dims(&["32"]),
            ];
            run_microsoft("MatMulBlockQuantizedFp4Weight", &inputs, vec![], 1)
        };
        assert_eq!(shape(&fp4(&["b", "s", "64"], &["32", "4"])), "[b, s, 32]");
        assert!(unmet(&fp4(&["b", "s", "32"], &["32", "4"])));
        assert!(unmet(&fp4(&["b", "s", "64"], &["32", "2"])));
        let fp8 = |a: &[&str]| {
            let inputs = [
                dims(a),
                dims(&["16", "300"]),
                dims(&["16", "3"]),
                None,
                dims(&["16"]),
            ];
            run_microsoft("MatMulBlockQuantizedFp8Weight", &inputs, vec![], 1)
        };
        assert_eq!(shape(&fp8(&["t", "300"])), "[t, 16]");
        assert_eq!(conditions(&fp8(&["t", "k"])), ["k = 300"]);
    }
}
