//! Integer arithmetic contrib ops (com.microsoft): `MatMulInteger16` (numpy matmul of 16-bit
//! operands into int32, CPU kernel), `MulInteger` (multidirectional broadcast of A and B into
//! int32), `ReduceSumInteger` and `QLinearReduceMean` (a reduction over the `axes` attribute,
//! `keepdims` as ONNX's `Reduce*`). onnxruntime's inference for `MulInteger` and
//! `QLinearReduceMean` (`quantization_defs.cc`) requires their zero points and scales to be
//! scalars ("Scale and Zero-point must be a scalar"), which fails the model's load otherwise.

use crate::model::dtype::elem;
use crate::ops::constraint::Constraint;
use crate::ops::math::linalg::matmul_of;
use crate::ops::reduction::reduce::{reduce_axes_attribute, Reducer};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;

/// E4 when input `slot` is present with a known rank other than 0 (`name` as the doc).
fn scalar(ctx: &Ctx<'_>, slot: usize, name: &str) -> Result<(), RuleError> {
    let Some(rank) = ctx.input(slot).and_then(|i| i.shape.rank()) else {
        return Ok(());
    };
    if rank == 0 {
        return Ok(());
    }
    let op = ctx.node().op_type().as_str();
    let requires = format!("{op}'s {name} must be a scalar (per-tensor quantization)");
    Err(Constraint::new(requires, format!("its rank is {rank}"), &[slot]).unmet())
}

/// `MatMulInteger16(A, B)`: numpy matmul, int32 out.
pub(crate) fn mat_mul_integer16(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    matmul_of(
        ctx.broadcasts(),
        a.shape,
        b.shape,
        [0, 1],
        Some(elem::INT32),
    )
}

/// `MulInteger(A, A_zero_point, B, B_zero_point)`: C is the multidirectional broadcast of A
/// and B, int32.
pub(crate) fn mul_integer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(2)?;
    scalar(ctx, 1, "A_zero_point")?;
    scalar(ctx, 3, "B_zero_point")?;
    let outcome = ctx.broadcasts().multidirectional(&[a.shape, b.shape]);
    let out = Output::shape(outcome.shape.clone()).elem(Some(elem::INT32));
    Ok(Inferred::single(out).with_check(Rule::Multidirectional, vec![0, 2], outcome))
}

/// `ReduceSumInteger(data)`: the sum over `axes` (every axis when absent), int32 (uint32 for
/// uint8 data, as the type constraint says).
pub(crate) fn reduce_sum_integer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let mut inferred = reduce_axes_attribute(ctx, Reducer::Other)?;
    let out = if data.elem == Some(elem::UINT8) {
        elem::UINT32
    } else {
        elem::INT32
    };
    for output in &mut inferred.outputs {
        output.elem = Some(out);
    }
    Ok(inferred)
}

/// `QLinearReduceMean(data, data_scale, data_zero_point, reduced_scale, reduced_zero_point)`:
/// the mean over `axes`, typed like `data`.
pub(crate) fn qlinear_reduce_mean(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(1)?;
    ctx.required(3)?;
    for (slot, name) in [
        (1, "data_scale"),
        (2, "data_zero_point"),
        (3, "reduced_scale"),
        (4, "reduced_zero_point"),
    ] {
        scalar(ctx, slot, name)?;
    }
    reduce_axes_attribute(ctx, Reducer::Other)
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, ints_attr, run_microsoft};

    #[test]
    fn matmul_integer16_is_numpy_matmul() {
        let r = run_microsoft(
            "MatMulInteger16",
            &[dims(&["b", "3", "4"]), dims(&["4", "5"])],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[b, 3, 5]");
        assert_eq!(
            r.unwrap().outputs[0].elem,
            Some(crate::model::dtype::elem::INT32)
        );
        assert!(unmet(&run_microsoft(
            "MatMulInteger16",
            &[dims(&["3", "4"]), dims(&["5", "5"])],
            vec![],
            1
        )));
    }

    #[test]
    fn mul_integer_broadcasts_a_and_b_with_scalar_zero_points() {
        let r = run_microsoft(
            "MulInteger",
            &[dims(&["b", "1", "4"]), dims(&[]), dims(&["3", "1"]), None],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[b, 3, 4]");
        let clash = run_microsoft(
            "MulInteger",
            &[dims(&["2", "4"]), None, dims(&["3"]), None],
            vec![],
            1,
        )
        .unwrap();
        assert!(clash.checks.iter().any(|c| c.outcome.is_invalid()));
        assert!(unmet(&run_microsoft(
            "MulInteger",
            &[dims(&["4"]), dims(&["4"]), dims(&["4"]), None],
            vec![],
            1
        )));
    }

    #[test]
    fn integer_reductions_follow_axes_and_keepdims() {
        let attrs = || vec![ints_attr("axes", &[1]), int_attr("keepdims", 0)];
        let r = run_microsoft("ReduceSumInteger", &[dims(&["b", "8", "4"])], attrs(), 1);
        assert_eq!(shape(&r), "[b, 4]");
        let s = || dims(&[]);
        let q = run_microsoft(
            "QLinearReduceMean",
            &[dims(&["b", "8", "4"]), s(), s(), s(), s()],
            attrs(),
            1,
        );
        assert_eq!(shape(&q), "[b, 4]");
        let kept = run_microsoft(
            "QLinearReduceMean",
            &[dims(&["b", "8", "4"]), s(), None, s(), None],
            vec![ints_attr("axes", &[-1]), int_attr("keepdims", 1)],
            1,
        );
        assert_eq!(shape(&kept), "[b, 8, 1]");
        assert!(unmet(&run_microsoft(
            "QLinearReduceMean",
            &[dims(&["b", "8"]), s(), None, s(), None],
            vec![ints_attr("axes", &[2])],
            1
        )));
        assert!(unmet(&run_microsoft(
            "QLinearReduceMean",
            &[dims(&["b", "8"]), dims(&["8"]), None, s(), None],
            attrs(),
            1
        )));
    }
}
