//! onnxruntime's `VarlenCausalConvWithState` (com.microsoft, CUDA and WebGPU only): the stateful
//! causal depthwise convolution of `CausalConvWithState` over a packed, token-major batch of
//! variable-length sequences. The rule follows the schema doc and onnxruntime's inference:
//! `output` has the input's `(total_tokens, channels)` shape, `final_state` is
//! `(batch_size, channels, (kernel_size - 1) * dilation)` with `batch_size` one less than
//! `cumulative_sequence_length`'s length, and `state_update` `(batch_size,
//! state_update_capacity, channels)`.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

const OP: &str = "VarlenCausalConvWithState";

fn invalid(requires: &str, found: String) -> RuleError {
    Constraint::new(format!("{OP}'s {requires}"), found, &[]).unmet()
}

/// `VarlenCausalConvWithState(input, weight, cumulative_sequence_length, bias, initial_state,
/// capture_count)`: `output`, `final_state`, `state_update`.
pub(crate) fn varlen_causal_conv_with_state(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let dilation = ctx.int("dilation", 1)?;
    if dilation < 1 {
        return Err(invalid(
            "dilation must be >= 1",
            format!("dilation is {dilation}"),
        ));
    }
    let capacity = ctx.int("state_update_capacity", 0)?;
    if !(0..=8).contains(&capacity) {
        return Err(invalid(
            "state_update_capacity must be in [0, 8]",
            format!("it is {capacity}"),
        ));
    }
    let x = exact(
        x_in.shape,
        2,
        "VarlenCausalConvWithState's input must be 2-D (total_tokens, channels)",
        0,
    )?;
    let channels = dim_at(x, 1);
    let mut pending = Pending::default();
    let w = exact(
        ctx.shape(1)?,
        3,
        "VarlenCausalConvWithState's weight must be 3-D (channels, 1, kernel_size)",
        1,
    )?;
    let requires = "VarlenCausalConvWithState's weight must be (channels, 1, kernel_size), channels as in the input";
    equal(
        &mut pending,
        &dim_at(w, 0),
        &channels,
        requires,
        "weight's dim 0",
        &[0, 1],
    )?;
    equal(
        &mut pending,
        &dim_at(w, 1),
        &Dim::known(1),
        requires,
        "weight's dim 1",
        &[1],
    )?;
    if let Some(bias) = ctx.input(3) {
        let requires = "VarlenCausalConvWithState's bias must be 1-D of size channels";
        same_shape(
            &mut pending,
            bias.shape,
            std::slice::from_ref(&channels),
            requires,
            &[0, 3],
        )?;
    }
    let cu = exact(
        ctx.shape(2)?,
        1,
        "VarlenCausalConvWithState's cumulative_sequence_length must be 1-D (batch_size + 1)",
        2,
    )?;
    let batch = match cu {
        Some([len]) => len.sub(&Dim::known(1)),
        _ => ctx
            .input(4)
            .map_or(Dim::Unknown, |s| dim_at(s.shape.dims(), 0)),
    };
    let length = dim_at(w, 2).sub(&Dim::known(1)).mul(&Dim::known(dilation));
    let state = vec![batch.clone(), channels.clone(), length];
    if let Some(initial) = ctx.input(4) {
        let requires = "VarlenCausalConvWithState's initial_state must be (batch_size, channels, (kernel_size - 1) * dilation)";
        same_shape(&mut pending, initial.shape, &state, requires, &[0, 1, 2, 4])?;
    }
    if let Some(count) = ctx.input(5) {
        let requires = "VarlenCausalConvWithState's capture_count must be (batch_size)";
        same_shape(
            &mut pending,
            count.shape,
            std::slice::from_ref(&batch),
            requires,
            &[2, 5],
        )?;
    }
    let mut outputs = vec![
        Output::shape(x_in.shape.clone()).elem(x_in.elem),
        Output::shape(Shape::Ranked(state)).elem(x_in.elem),
    ];
    if ctx.node().outputs().len() > 2 {
        let update = Shape::Ranked(vec![batch, Dim::known(capacity), channels]);
        outputs.push(Output::shape(update).elem(x_in.elem));
    }
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{dims, int_attr, output_shapes, run_microsoft};

    // Shapes as onnxruntime 1.31's inference gives them (CUDA/WebGPU-only kernel).

    fn conv(
        x: &[&str],
        w: &[&str],
        state: &[&str],
        attrs: Vec<crate::proto::AttributeProto>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs = [dims(x), dims(w), dims(&["3"]), dims(&["4"]), dims(state)];
        run_microsoft("VarlenCausalConvWithState", &inputs, attrs, 3)
    }

    #[test]
    fn state_is_kernel_minus_one_times_dilation_per_request() {
        let r = conv(&["T", "4"], &["4", "1", "3"], &["2", "4", "2"], vec![]).unwrap();
        assert_eq!(output_shapes(&r), ["[T, 4]", "[2, 4, 2]", "[2, 0, 4]"]);
        let attrs = vec![
            int_attr("dilation", 2),
            int_attr("state_update_capacity", 3),
        ];
        let r = conv(&["T", "4"], &["4", "1", "3"], &["2", "4", "4"], attrs).unwrap();
        assert_eq!(output_shapes(&r), ["[T, 4]", "[2, 4, 4]", "[2, 3, 4]"]);
    }

    #[test]
    fn channels_state_and_attributes_must_agree() {
        // onnxruntime: "input must have rank 2 (total_tokens, channels)", "dilation must be >=
        // 1", "state_update_capacity must be in [0, 8]".
        assert!(unmet(&conv(
            &["1", "T", "4"],
            &["4", "1", "3"],
            &["2", "4", "2"],
            vec![]
        )));
        assert!(unmet(&conv(
            &["T", "4"],
            &["5", "1", "3"],
            &["2", "4", "2"],
            vec![]
        )));
        assert!(unmet(&conv(
            &["T", "4"],
            &["4", "1", "3"],
            &["2", "4", "3"],
            vec![]
        )));
        assert!(unmet(&conv(
            &["T", "4"],
            &["4", "1", "3"],
            &["3", "4", "2"],
            vec![]
        )));
        let zero = vec![int_attr("dilation", 0)];
        assert!(unmet(&conv(
            &["T", "4"],
            &["4", "1", "3"],
            &["2", "4", "2"],
            zero
        )));
        let nine = vec![int_attr("state_update_capacity", 9)];
        assert!(unmet(&conv(
            &["T", "4"],
            &["4", "1", "3"],
            &["2", "4", "2"],
            nine
        )));
        let w4 = conv(&["T", "C"], &["4", "1", "3"], &["2", "4", "2"], vec![]);
        // The weight, the bias and the state each tie the channels to 4.
        assert_eq!(conditions(&w4), ["C = 4", "C = 4", "C = 4"]);
    }
}
