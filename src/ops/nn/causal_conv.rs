//! `CausalConvWithState-27` (ONNX): a stateful causal depthwise 1-D convolution. Input, weight,
//! past and present state are rank 3, `(B, C, L)`, `(C, 1, k)` and `(B, C, k - 1)`; the bias is
//! `(C)`; the output has the input's shape. `onnx.shape_inference` unifies each of these dims
//! ("Dimension mismatch in unification"), so each is an operator constraint here.

use crate::ops::constraint::Pending;
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// The weight's constraints for `channels` channels: `(C, 1, k...)` with `rank` dims. Returns
/// the kernel's last (causal) size.
pub(crate) fn depthwise_weight(
    ctx: &Ctx<'_>,
    op: &str,
    rank: usize,
    channels: &Dim,
    pending: &mut Pending,
) -> Result<Dim, RuleError> {
    let requires = format!("{op}'s weight must be (channels, 1, k...) with the input's rank");
    let w = exact(ctx.shape(1)?, rank, &requires, 1)?;
    let requires = format!("{op}'s weight must be (channels, 1, k...), channels as in the input");
    equal(
        pending,
        &dim_at(w, 0),
        channels,
        &requires,
        "weight's dim 0",
        &[0, 1],
    )?;
    equal(
        pending,
        &dim_at(w, 1),
        &Dim::known(1),
        &requires,
        "weight's dim 1",
        &[1],
    )?;
    if let Some(bias) = ctx.input(2) {
        let requires = format!("{op}'s bias must be 1-D of size channels");
        same_shape(
            pending,
            bias.shape,
            std::slice::from_ref(channels),
            &requires,
            &[0, 2],
        )?;
    }
    Ok(w.and_then(<[Dim]>::last).cloned().unwrap_or(Dim::Unknown))
}

/// `CausalConvWithState-27(input, weight, bias, past_state)`: `output` is the input's shape and
/// `present_state` is `(B, C, k - 1)`.
pub(crate) fn causal_conv_with_state_27(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    const OP: &str = "CausalConvWithState";
    let x_in = ctx.required(0)?;
    let x = exact(
        x_in.shape,
        3,
        "CausalConvWithState's input must be 3-D (B, C, L)",
        0,
    )?;
    let channels = dim_at(x, 1);
    let mut pending = Pending::default();
    let k = depthwise_weight(ctx, OP, 3, &channels, &mut pending)?;
    let state = vec![dim_at(x, 0), channels, k.sub(&Dim::known(1))];
    if let Some(past) = ctx.input(3) {
        let requires = "CausalConvWithState's past_state must be (B, C, k - 1)";
        same_shape(&mut pending, past.shape, &state, requires, &[0, 3])?;
    }
    let state = match x {
        Some(_) => Shape::Ranked(state),
        None => Shape::Ranked(vec![Dim::Unknown, Dim::Unknown, k.sub(&Dim::known(1))]),
    };
    Ok(Inferred::many(vec![
        Output::shape(x_in.shape.clone()).elem(x_in.elem),
        Output::shape(state).elem(x_in.elem),
    ])
    .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, output_shapes, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn state_is_batch_channels_kernel_minus_one() {
        let r = run(
            "CausalConvWithState",
            27,
            &[
                dims(&["B", "4", "L"]),
                dims(&["4", "1", "3"]),
                dims(&["4"]),
                dims(&["B", "4", "2"]),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[B, 4, L]", "[B, 4, 2]"]);
        assert!(r.checks.is_empty());
    }

    #[test]
    fn mismatched_state_weight_bias_and_rank_are_errors() {
        let x = || dims(&["2", "4", "7"]);
        let w = || dims(&["4", "1", "3"]);
        for inputs in [
            vec![x(), w(), dims(&["4"]), dims(&["2", "4", "3"])],
            vec![x(), dims(&["5", "1", "3"]), dims(&["4"])],
            vec![x(), dims(&["4", "2", "3"]), dims(&["4"])],
            vec![x(), w(), dims(&["5"])],
            vec![dims(&["2", "4", "7", "1"]), w()],
        ] {
            assert!(
                unmet(&run("CausalConvWithState", 27, &inputs, vec![])),
                "{inputs:?}"
            );
        }
    }

    #[test]
    fn symbolic_channels_against_the_weight_are_a_condition() {
        let r = run(
            "CausalConvWithState",
            27,
            &[dims(&["2", "c", "7"]), dims(&["4", "1", "3"])],
            vec![],
        );
        assert_eq!(conditions(&r), ["c = 4"]);
    }
}
