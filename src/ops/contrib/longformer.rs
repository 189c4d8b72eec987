//! `LongformerAttention` and `QOrderedLongformerAttention` (com.microsoft): local windowed
//! self-attention plus a few global tokens. onnxruntime's schemas give the output the input's
//! shape (`propagateShapeAndTypeFromFirstInput`); the requirements below are those its kernel
//! checks before running (`LongformerAttentionBase::CheckInputs`; both ops have CUDA kernels
//! only, so these follow the source, not a run): the input is `(B, S, H)` with `S` a multiple of
//! `2 * window` and `H` of `num_heads`; the weights are `(H, 3H)` (or `(3, H, H)`), the bias
//! `(3H)` (`(5H)` with 3-D weights), the global weights and bias alike (global bias `(H)` with
//! 3-D weights), and the mask and global flags `(B, S)`.

use super::heads::heads;
use super::multiple::require_multiple;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact, same_shape};
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::Dim;

/// Input slots of the two ops.
struct Slots {
    input: usize,
    weight: usize,
    bias: usize,
    mask: usize,
    global_weight: usize,
    global_bias: usize,
    global: usize,
}

/// `LongformerAttention(input, weight, bias, mask, global_weight, global_bias, global)`.
pub(crate) fn longformer_attention(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let slots = Slots {
        input: 0,
        weight: 1,
        bias: 2,
        mask: 3,
        global_weight: 4,
        global_bias: 5,
        global: 6,
    };
    infer(ctx, &slots)
}

/// `QOrderedLongformerAttention(input, scale_input, weight, scale_weight, bias, scale_bias,
/// scale_qkv_gemm, mask, global_weight, scale_global_weight, global_bias, scale_global_gemm,
/// global, scale_output)`: the same shapes on int8 operands with their scales between.
pub(crate) fn qordered_longformer_attention(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let slots = Slots {
        input: 0,
        weight: 2,
        bias: 4,
        mask: 7,
        global_weight: 8,
        global_bias: 10,
        global: 12,
    };
    infer(ctx, &slots)
}

fn infer(ctx: &Ctx<'_>, s: &Slots) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let input = ctx.required(s.input)?;
    let num = heads(ctx, "num_heads")?;
    let window = ctx
        .attrs()
        .int("window")?
        .ok_or_else(|| spec::missing_attr(op, "window"))?;
    if window <= 0 {
        let requires = format!("{op}'s window must be positive");
        return Err(Constraint::new(requires, format!("window is {window}"), &[]).unmet());
    }
    let x = exact(
        input.shape,
        3,
        &format!("{op}'s input must be 3-D (batch, sequence, hidden)"),
        s.input,
    )?;
    let (batch, seq, hidden) = (dim_at(x, 0), dim_at(x, 1), dim_at(x, 2));
    let mut pending = Pending::default();
    let requires = format!("{op}'s sequence length must be a multiple of 2 * window");
    require_multiple(
        &mut pending,
        &seq,
        window.saturating_mul(2),
        &requires,
        &[s.input],
    )?;
    let requires = format!("{op}'s hidden size must be a multiple of num_heads");
    require_multiple(&mut pending, &hidden, num, &requires, &[s.input])?;
    // The weights' rank picks the layout; the global weights must follow it.
    let merged = match ctx.shape(s.weight)?.rank() {
        Some(3) => false,
        Some(_) | None => true,
    };
    weights(ctx, op, s.weight, "weight", &hidden, merged, &mut pending)?;
    bias(
        ctx,
        op,
        s.bias,
        "bias",
        &hidden,
        if merged { 3 } else { 5 },
        &mut pending,
    )?;
    weights(
        ctx,
        op,
        s.global_weight,
        "global_weight",
        &hidden,
        merged,
        &mut pending,
    )?;
    let global_times = if merged { 3 } else { 1 };
    bias(
        ctx,
        op,
        s.global_bias,
        "global_bias",
        &hidden,
        global_times,
        &mut pending,
    )?;
    let bs = [batch, seq];
    for (slot, name) in [(s.mask, "mask"), (s.global, "global")] {
        let requires = format!("{op}'s {name} must be (batch, sequence)");
        same_shape(
            &mut pending,
            ctx.shape(slot)?,
            &bs,
            &requires,
            &[s.input, slot],
        )?;
    }
    Ok(
        Inferred::single(Output::shape(input.shape.clone()).elem(input.elem))
            .with_conditions(pending.into_checks()),
    )
}

/// Checks the weights of `slot`: `(H, 3H)` when `merged`, else `(3, H, H)`.
fn weights(
    ctx: &Ctx<'_>,
    op: &str,
    slot: usize,
    name: &str,
    hidden: &Dim,
    merged: bool,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let (requires, expected) = if merged {
        (
            format!("{op}'s {name} must be (hidden, 3 * hidden)"),
            vec![hidden.clone(), hidden.mul(&Dim::known(3))],
        )
    } else {
        (
            format!("{op}'s {name} must be (3, hidden, hidden), as its 3-D weight is"),
            vec![Dim::known(3), hidden.clone(), hidden.clone()],
        )
    };
    same_shape(pending, ctx.shape(slot)?, &expected, &requires, &[0, slot])
}

/// Checks a 1-D bias of `times * hidden` entries.
fn bias(
    ctx: &Ctx<'_>,
    op: &str,
    slot: usize,
    name: &str,
    hidden: &Dim,
    times: i64,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let requires = format!("{op}'s {name} must be 1-D with {times} * hidden entries");
    let Some(b) = exact(ctx.shape(slot)?, 1, &requires, slot)? else {
        return Ok(());
    };
    let want = hidden.mul(&Dim::known(times));
    equal(
        pending,
        &dim_at(Some(b), 0),
        &want,
        &requires,
        &format!("{name}'s length"),
        &[0, slot],
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, int_attr, run_microsoft, Fact};

    fn run(inputs: &[Option<Fact>]) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let attrs = vec![int_attr("num_heads", 4), int_attr("window", 2)];
        run_microsoft("LongformerAttention", inputs, attrs, 1)
    }

    fn merged(x: &[&str], mask: &[&str]) -> Vec<Option<Fact>> {
        vec![
            dims(x),
            dims(&["16", "48"]),
            dims(&["48"]),
            dims(mask),
            dims(&["16", "48"]),
            dims(&["48"]),
            dims(mask),
        ]
    }

    #[test]
    fn output_is_the_input_and_the_sequence_is_a_multiple_of_two_windows() {
        let ok = run(&merged(&["b", "8", "16"], &["b", "8"]));
        assert_eq!(shape(&ok), "[b, 8, 16]");
        assert!(conditions(&ok).is_empty());
        assert!(unmet(&run(&merged(&["b", "6", "16"], &["b", "6"]))));
        let symbolic = run(&merged(&["b", "s", "16"], &["b", "s"]));
        assert_eq!(conditions(&symbolic), ["s%4 = 0"]);
    }

    #[test]
    fn weights_biases_and_masks_are_checked() {
        let mut bad_bias = merged(&["b", "8", "16"], &["b", "8"]);
        bad_bias[2] = dims(&["32"]);
        assert!(unmet(&run(&bad_bias)));
        let mut bad_mask = merged(&["b", "8", "16"], &["b", "8"]);
        bad_mask[6] = dims(&["b", "4"]);
        assert!(unmet(&run(&bad_mask)));
        // The 3-D layout: (3, H, H) weights, a 5H bias and an H global bias.
        let split = vec![
            dims(&["b", "8", "16"]),
            dims(&["3", "16", "16"]),
            dims(&["80"]),
            dims(&["b", "8"]),
            dims(&["3", "16", "16"]),
            dims(&["16"]),
            dims(&["b", "8"]),
        ];
        assert_eq!(shape(&run(&split)), "[b, 8, 16]");
        let mut mixed = split.clone();
        mixed[4] = dims(&["16", "48"]);
        assert!(unmet(&run(&mixed)));
        let odd_hidden = merged(&["b", "8", "18"], &["b", "8"]);
        assert!(unmet(&run(&odd_hidden)));
    }
}
