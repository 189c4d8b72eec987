//! The contrib ops onnxruntime's offline optimizer and static quantizer fuse from standard ones:
//! `FusedConv` (Conv + activation, with an optional `Z` added before it), `FusedGemm` (Gemm +
//! activation) and `QLinearWhere` (a quantized `Where`). Each has its standard op's shape rule
//! (ContribOperators.md: "the same as Conv / Gemm besides it includes an attribute
//! activation"); onnxruntime's schemas infer them with the standard ops' inference
//! (`convPoolShapeInference`, `GemmShapeInference`, multidirectional broadcasting).

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::math::linalg::matrix_dims;
use crate::ops::nn::conv::kernel_of;
use crate::ops::nn::conv_channels::{self, Operands};
use crate::ops::nn::per_channel::{self, Channels};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::window::{Sizing, Window};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::Shape;

/// `FusedConv(X, W, B, Z)`: Conv's output `(N, M, spatial...)` and its constraints (W's rank
/// and channels, `group`, `kernel_shape`, B of size M); `Z`, when present, is added to the
/// convolution's result (onnxruntime's `Conv` kernel with a sum input), recorded as a
/// unidirectional broadcast onto Y, looser than the kernel's exact-shape requirement.
pub(crate) fn fused_conv(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, "FusedConv")?;
    let w = ctx.shape(1)?.dims();
    let ops = Operands { x, w, w_slot: 1 };
    let mut pending = Pending::default();
    conv_channels::kernel(ctx, &ops, &mut pending)?;
    conv_channels::conv(&ops, conv_channels::group(ctx)?, &mut pending)?;
    let m = dim_at(w, 0);
    let channels = Channels {
        len: &m,
        name: "M",
        slot: 1,
    };
    per_channel::require(ctx, 2, "B", channels, &mut pending)?;
    let shape = match kernel_of(ctx, w)? {
        Some(kernel) => {
            let window = Window::from_attrs(ctx, kernel)?;
            let mut dims = vec![dim_at(x, 0), m];
            let spatial = x.map(|d| d.get(2..).unwrap_or_default());
            dims.extend(window.checked_out("FusedConv", spatial, Sizing::Conv, &mut pending)?);
            Shape::Ranked(dims)
        }
        None => x.map_or(Shape::Unranked, |d| {
            Shape::Ranked(vec![crate::shape::Dim::Unknown; d.len()])
        }),
    };
    if let Some(z) = ctx.input(3) {
        sum_matches(&shape, z.shape, &mut pending)?;
    }
    Ok(Inferred::single(Output::shape(shape).elem(x_in.elem))
        .with_conditions(pending.into_checks()))
}

/// onnxruntime's Conv kernel adds `Z` only when it has Y's exact shape ("output and sum shape
/// must match"), without broadcasting.
fn sum_matches(y: &Shape, z: &Shape, pending: &mut Pending) -> Result<(), RuleError> {
    let (Some(y), Some(z)) = (y.dims(), z.dims()) else {
        return Ok(());
    };
    let requires = "FusedConv's Z must have the output's shape (N, M, spatial...)";
    if y.len() != z.len() {
        return Err(Constraint::new(
            requires,
            format!("Z has rank {}, the output {}", z.len(), y.len()),
            &[0, 3],
        )
        .unmet());
    }
    for (axis, (yd, zd)) in y.iter().zip(z).enumerate() {
        pending.equal(yd, zd, || {
            Constraint::new(
                requires,
                format!("axis {axis}: Z has {zd}, the output {yd}"),
                &[0, 3],
            )
            .fix("give Z the convolution's output shape")
        })?;
    }
    Ok(())
}

/// `FusedGemm(A, B, C)`: Gemm-11's `(M, N)` with C optional and unidirectionally broadcast to
/// it; A' is `(M, K)`, B' is `(K, N)`.
pub(crate) fn fused_gemm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let lhs = ctx.required(0)?;
    let rhs = ctx.required(1)?;
    let (trans_a, trans_b) = (ctx.int("transA", 0)? != 0, ctx.int("transB", 0)? != 0);
    let (m, ka) = matrix_dims(lhs.shape, trans_a, 0)?;
    let (kb, n) = matrix_dims(rhs.shape, trans_b, 1)?;
    let mut pending = Pending::default();
    pending.equal(&ka, &kb, || {
        Constraint::new(
            "FusedGemm's A' columns (K) must equal B' rows (A' is (M, K), B' is (K, N))",
            format!("K is {ka} in A, {kb} in B (transA={trans_a:?}, transB={trans_b:?})"),
            &[0, 1],
        )
        .fix("check transA/transB against the weights' layout")
    })?;
    let mn = Shape::Ranked(vec![m, n]);
    let mut inferred = Inferred::single(Output::shape(mn.clone()).elem(lhs.elem));
    if let Some(bias) = ctx.input(2) {
        let outcome = ctx.broadcasts().unidirectional(&mn, bias.shape);
        // The (M, N) side has no input of its own; A, which gives M, stands for it.
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 2], outcome);
    }
    Ok(inferred.with_conditions(pending.into_checks()))
}

/// `QLinearWhere(condition, X, x_scale, x_zero_point, Y, y_scale, y_zero_point, z_scale,
/// z_zero_point)`: Z is "the broadcasted shape of condition, X, and Y", with Z's zero point's
/// element type.
pub(crate) fn qlinear_where(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let c = ctx.required(0)?;
    let x = ctx.required(1)?;
    let y = ctx.required(4)?;
    let outcome = ctx
        .broadcasts()
        .multidirectional(&[c.shape, x.shape, y.shape]);
    let elem = ctx.input(8).and_then(|zp| zp.elem).or(x.elem);
    Ok(
        Inferred::single(Output::shape(outcome.shape.clone()).elem(elem)).with_check(
            Rule::Multidirectional,
            vec![0, 1, 4],
            outcome,
        ),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, ints_attr, run_microsoft};

    // Shapes checked against onnxruntime 1.31 (a FusedConv / FusedGemm / QLinearWhere node run
    // on random inputs at two sizes).

    #[test]
    fn fused_conv_is_conv_shaped() {
        let r = run_microsoft(
            "FusedConv",
            &[
                dims(&["n", "3", "h", "w"]),
                dims(&["8", "3", "3", "3"]),
                dims(&["8"]),
            ],
            vec![ints_attr("pads", &[1, 1, 1, 1])],
            1,
        );
        assert_eq!(shape(&r), "[n, 8, h, w]");
        let r = run_microsoft(
            "FusedConv",
            &[dims(&["1", "3", "225", "224"]), dims(&["8", "3", "3", "3"])],
            vec![ints_attr("strides", &[2, 2])],
            1,
        );
        assert_eq!(shape(&r), "[1, 8, 112, 111]");
    }

    #[test]
    fn fused_conv_channel_and_bias_mismatches_are_errors() {
        let r = run_microsoft(
            "FusedConv",
            &[dims(&["1", "4", "8", "8"]), dims(&["8", "3", "3", "3"])],
            vec![],
            1,
        );
        assert!(unmet(&r));
        let r = run_microsoft(
            "FusedConv",
            &[
                dims(&["1", "3", "8", "8"]),
                dims(&["8", "3", "3", "3"]),
                dims(&["4"]),
            ],
            vec![],
            1,
        );
        assert!(unmet(&r));
        let r = run_microsoft(
            "FusedConv",
            &[dims(&["1", "c", "8", "8"]), dims(&["8", "3", "3", "3"])],
            vec![],
            1,
        );
        assert_eq!(conditions(&r).len(), 1);
    }

    #[test]
    fn fused_conv_z_is_added_to_the_output() {
        let x = dims(&["1", "3", "8", "8"]);
        let w = dims(&["8", "3", "3", "3"]);
        let b = dims(&["8"]);
        let ok = run_microsoft(
            "FusedConv",
            &[x.clone(), w.clone(), b.clone(), dims(&["1", "8", "6", "6"])],
            vec![],
            1,
        )
        .unwrap();
        assert!(ok.checks.is_empty());
        // onnxruntime: "output and sum shape must match", a broadcastable Z included.
        for z in [["1", "8", "8", "8"], ["1", "8", "1", "6"]] {
            let bad = run_microsoft(
                "FusedConv",
                &[x.clone(), w.clone(), b.clone(), dims(&z)],
                vec![],
                1,
            );
            assert!(unmet(&bad), "{z:?}");
        }
        let symbolic = run_microsoft(
            "FusedConv",
            &[x, w, b, dims(&["1", "8", "s", "6"])],
            vec![],
            1,
        );
        assert_eq!(conditions(&symbolic), ["s = 6"]);
    }

    #[test]
    fn fused_gemm_is_gemm_shaped_with_optional_c() {
        let r = run_microsoft(
            "FusedGemm",
            &[dims(&["m", "16"]), dims(&["32", "16"]), dims(&["32"])],
            vec![int_attr("transB", 1)],
            1,
        );
        assert_eq!(shape(&r), "[m, 32]");
        let r = run_microsoft(
            "FusedGemm",
            &[dims(&["m", "16"]), dims(&["16", "4"])],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[m, 4]");
        let r = run_microsoft(
            "FusedGemm",
            &[dims(&["m", "16"]), dims(&["32", "16"])],
            vec![],
            1,
        );
        assert!(unmet(&r));
        let r = run_microsoft(
            "FusedGemm",
            &[dims(&["2", "16"]), dims(&["16", "4"]), dims(&["3", "4"])],
            vec![],
            1,
        )
        .unwrap();
        assert!(r.checks.iter().any(|c| c.outcome.is_invalid()));
    }

    #[test]
    fn qlinear_where_broadcasts_condition_x_and_y() {
        let scalar = dims(&[]);
        let r = run_microsoft(
            "QLinearWhere",
            &[
                dims(&["s", "1"]),
                dims(&["1", "4"]),
                scalar.clone(),
                scalar.clone(),
                dims(&["4"]),
                scalar.clone(),
                scalar.clone(),
                scalar.clone(),
                scalar,
            ],
            vec![],
            1,
        );
        assert_eq!(shape(&r), "[s, 4]");
    }
}
