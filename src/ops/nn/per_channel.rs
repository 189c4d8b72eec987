//! Parameter inputs that must be 1-D with one entry per channel: a convolution's bias `B`
//! (length M, the output channels), `BatchNormalization`'s `scale`, `B`, `input_mean` and
//! `input_var`, `InstanceNormalization`'s `scale` and `B` (length C). Each operator doc states
//! "1-D tensor of size C" (or M); onnxruntime checks the rank and the size when the node runs
//! (`bias must be a 1D tensor of size output_channels`, `Invalid input scale: 0th dimension !=
//! 3`, `size of scale != input channel count`), `onnx.shape_inference` from BatchNormalization-15.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{Ctx, RuleError};
use crate::shape::Dim;

/// Where the per-channel length comes from: the input slot that gives it and its name in the
/// operator doc (`C` from X, `M` from W).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Channels<'a> {
    /// The length.
    pub(crate) len: &'a Dim,
    /// Its name in the doc: `C`, `M`.
    pub(crate) name: &'a str,
    /// The input it is read from (labelled with the parameter).
    pub(crate) slot: usize,
}

/// Requires input `slot` (named `what` as in the doc), when present and ranked, to be 1-D with
/// `channels.len` elements. A symbolic length gives a W4 condition; an unknown one nothing.
pub(crate) fn require(
    ctx: &Ctx<'_>,
    slot: usize,
    what: &str,
    channels: Channels<'_>,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let Some(dims) = ctx.input(slot).and_then(|input| input.shape.dims()) else {
        return Ok(());
    };
    let op = ctx.node().op_type().as_str();
    let Channels {
        len,
        name,
        slot: from,
    } = channels;
    let requires = || format!("{op}'s {what} must be a 1-D tensor of size {name}");
    let fix = || format!("give {what} one value per channel: shape [{len}]");
    let [size] = dims else {
        return Err(Constraint::new(
            requires(),
            format!("{what} has rank {}", dims.len()),
            &[from, slot],
        )
        .fix(fix())
        .unmet());
    };
    pending.equal(size, len, || {
        Constraint::new(
            requires(),
            format!("{what} has {size} elements, {name} is {len}"),
            &[from, slot],
        )
        .fix(fix())
    })
}
