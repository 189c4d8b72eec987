//! onnxruntime's `CausalConvWithState` (com.microsoft), the preprocessing convolution of the
//! `LFM2`, Gated `DeltaNet` and Mamba models its model builder writes: ONNX's
//! `CausalConvWithState-27` generalised by `ndim` spatial axes, a `channels_last` layout, a
//! `dilation` that lengthens the carried state to `(k - 1) * dilation`, and a `state_window` W
//! that adds a leading axis of W states (ContribOperators.md). The output has the input's shape.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::causal_conv::depthwise_weight;
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::same_shape;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

const OP: &str = "CausalConvWithState";

/// The input's channel count and the state's dims per window slot (`None` when the doc gives
/// no state layout: more than one spatial axis), for a ranked input of `x`.
fn layout(x: Option<&[Dim]>, ndim: usize, channels_last: bool) -> (Dim, Option<Vec<Dim>>) {
    let Some(x) = x else {
        return (Dim::Unknown, None);
    };
    let batch = dim_at(Some(x), 0);
    if channels_last {
        // (B, L, d_1, ..., d_n): channels = d_1 * ... * d_n; the state is (B, S, d_1, ...).
        let features = x.get(2..).unwrap_or_default();
        let channels = features.iter().fold(Dim::known(1), |acc, d| acc.mul(d));
        let mut state = vec![batch, Dim::Unknown];
        state.extend(features.iter().cloned());
        return (channels, Some(state));
    }
    let channels = dim_at(Some(x), 1);
    let state = (ndim == 1).then(|| vec![batch, channels.clone(), Dim::Unknown]);
    (channels, state)
}

/// `CausalConvWithState(input, weight, bias, past_state)`: `output` is the input's shape;
/// `present_state` is `(B, C, S)` (channels-last: `(B, S, d_1, ..., d_n)`) with
/// `S = (k_last - 1) * dilation`, behind a leading `W` axis when `state_window = W > 0`.
pub(crate) fn causal_conv_with_state(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let ndim = ctx.int("ndim", 1)?;
    let channels_last = ctx.int("channels_last", 0)? != 0;
    let dilation = ctx.int("dilation", 1)?;
    let window = ctx.int("state_window", 0)?;
    let Some(ndim) = usize::try_from(ndim).ok().filter(|n| (1..=3).contains(n)) else {
        return Err(invalid("ndim must be 1, 2 or 3", format!("ndim is {ndim}")));
    };
    if channels_last && ndim != 1 {
        return Err(invalid(
            "channels_last = 1 requires ndim = 1",
            format!("ndim is {ndim}"),
        ));
    }
    if dilation < 1 {
        return Err(invalid(
            "dilation must be >= 1",
            format!("dilation is {dilation}"),
        ));
    }
    if !(0..=8).contains(&window) {
        return Err(invalid(
            "state_window must be in [0, 8]",
            format!("state_window is {window}"),
        ));
    }
    let x = x_in.shape.dims();
    let rank_ok = x.is_none_or(|d| {
        if channels_last {
            d.len() >= 3
        } else {
            d.len() == ndim + 2
        }
    });
    if !rank_ok {
        let rank = x.map_or(0, <[Dim]>::len);
        return Err(Constraint::new(
            "CausalConvWithState's input must be (B, C, spatial...) with ndim spatial axes, or (B, L, d_1, ...) when channels_last",
            format!("the input has rank {rank}, ndim is {ndim}"),
            &[0],
        )
        .unmet());
    }
    let (channels, state) = layout(x, ndim, channels_last);
    let mut pending = Pending::default();
    let k = depthwise_weight(ctx, OP, ndim + 2, &channels, &mut pending)?;
    let length = k.sub(&Dim::known(1)).mul(&Dim::known(dilation));
    let state = state.map(|mut dims| {
        let at = if channels_last { 1 } else { 2 };
        if let Some(slot) = dims.get_mut(at) {
            *slot = length.clone();
        }
        if window > 0 {
            dims.insert(0, Dim::known(window));
        }
        dims
    });
    if let (Some(past), Some(state)) = (ctx.input(3), &state) {
        let requires = "CausalConvWithState's past_state must have present_state's shape";
        same_shape(&mut pending, past.shape, state, requires, &[0, 3])?;
    }
    Ok(Inferred::many(vec![
        Output::shape(x_in.shape.clone()).elem(x_in.elem),
        Output::shape(state.map_or(Shape::Unranked, Shape::Ranked)).elem(x_in.elem),
    ])
    .with_conditions(pending.into_checks()))
}

fn invalid(requires: &str, found: String) -> RuleError {
    Constraint::new(format!("{OP}'s {requires}"), found, &[0]).unmet()
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft};

    // Shapes as onnxruntime 1.31 runs the node (CPU, random inputs).

    fn shapes(
        inputs: &[Option<crate::ops::testing::Fact>],
        attrs: Vec<crate::proto::AttributeProto>,
    ) -> Vec<String> {
        output_shapes(&run_microsoft("CausalConvWithState", inputs, attrs, 2).unwrap())
    }

    #[test]
    fn channels_first_state_is_kernel_minus_one_times_dilation() {
        let x = || dims(&["2", "4", "7"]);
        let w = || dims(&["4", "1", "3"]);
        assert_eq!(
            shapes(&[x(), w(), dims(&["4"])], vec![]),
            ["[2, 4, 7]", "[2, 4, 2]"]
        );
        assert_eq!(
            shapes(&[x(), w(), dims(&["4"])], vec![int_attr("dilation", 2)]),
            ["[2, 4, 7]", "[2, 4, 4]"]
        );
        assert_eq!(
            shapes(&[x(), w(), None, None], vec![int_attr("state_window", 3)]),
            ["[2, 4, 7]", "[3, 2, 4, 2]"]
        );
    }

    #[test]
    fn channels_last_state_keeps_the_feature_axes() {
        let attrs = || vec![int_attr("channels_last", 1)];
        assert_eq!(
            shapes(&[dims(&["2", "L", "4"]), dims(&["4", "1", "3"])], attrs()),
            ["[2, L, 4]", "[2, 2, 4]"]
        );
        assert_eq!(
            shapes(
                &[dims(&["2", "7", "2", "2"]), dims(&["4", "1", "3"])],
                attrs()
            ),
            ["[2, 7, 2, 2]", "[2, 2, 2, 2]"]
        );
    }

    #[test]
    fn wrong_channels_state_and_attributes_are_errors() {
        let x = || dims(&["2", "4", "7"]);
        // onnxruntime: "weight channels must match input channels", "Input 'past_state' is
        // expected to have shape {2,4,2}".
        assert!(unmet(&run_microsoft(
            "CausalConvWithState",
            &[x(), dims(&["5", "1", "3"])],
            vec![],
            2
        )));
        assert!(unmet(&run_microsoft(
            "CausalConvWithState",
            &[x(), dims(&["4", "1", "3"]), None, dims(&["2", "4", "3"])],
            vec![],
            2
        )));
        assert!(unmet(&run_microsoft(
            "CausalConvWithState",
            &[x(), dims(&["4", "1", "3"])],
            vec![int_attr("ndim", 4)],
            2
        )));
        assert!(unmet(&run_microsoft(
            "CausalConvWithState",
            &[x(), dims(&["4", "1", "3", "3"])],
            vec![],
            2
        )));
    }
}
