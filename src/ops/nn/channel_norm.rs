//! Normalizations with per-channel parameters: `BatchNormalization` and
//! `InstanceNormalization` (`GroupNormalization` is in `group_norm.rs`). Y keeps X's shape; the
//! parameters are 1-D of length `C`, X's dim 1 (`per_channel.rs`).

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::per_channel::{self, Channels};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Dim;

/// `BatchNormalization(X, scale, B, mean, var)`: Y is X's shape. The running mean and variance
/// outputs update the `mean` and `var` inputs in place, so they keep those shapes; the saved
/// statistics (outputs 3 and 4, before opset 14) are `(C)` from opset 9, while before it
/// `spatial=0` gave them per-activation shapes that are not derived here.
///
/// The four parameters are 1-D of size C, C being X's dim 1, except with `spatial=0` (before
/// opset 9), where they are `(C x D1 x ... x Dn)`. X's rank is not constrained: onnxruntime
/// runs a rank-1 X as one channel.
fn batch_norm(ctx: &Ctx<'_>, version: u16) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let mut pending = Pending::default();
    let spatial = version >= 9 || ctx.int("spatial", 1)? != 0;
    // A rank-1 X has one channel: onnxruntime then wants scale of size 1 ("Invalid input
    // scale: 0th dimension != 1").
    let channels = match x.shape.dims() {
        Some([_, c, ..]) => Some(c.clone()),
        Some([_]) => Some(Dim::known(1)),
        _ => None,
    };
    if let Some(c) = channels.filter(|_| spatial) {
        let channels = Channels {
            len: &c,
            name: "C",
            slot: 0,
        };
        for (slot, what) in [(1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")] {
            per_channel::require(ctx, slot, what, channels, &mut pending)?;
        }
    }
    let mut outputs = vec![Output::shape(x.shape.clone()).elem(x.elem)];
    let wanted = ctx.node().outputs().len();
    if wanted > 1 {
        let mean = ctx.required(3)?;
        let var = ctx.required(4)?;
        outputs.push(Output::shape(mean.shape.clone()).elem(mean.elem));
        outputs.push(Output::shape(var.shape.clone()).elem(var.elem));
        if (9..14).contains(&version) {
            outputs.push(Output::shape(mean.shape.clone()).elem(mean.elem));
            outputs.push(Output::shape(var.shape.clone()).elem(var.elem));
        }
    }
    outputs.truncate(wanted.max(1));
    Ok(Inferred::many(outputs).with_conditions(pending.into_checks()))
}

/// `BatchNormalization` 1, 6 and 7: the `spatial` attribute; two optional outputs after Y.
pub(crate) fn batch_norm_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    batch_norm(ctx, 1)
}

/// `BatchNormalization` 9: always spatial; four optional outputs after Y.
pub(crate) fn batch_norm_9(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    batch_norm(ctx, 9)
}

/// `BatchNormalization` from opset 14: always spatial; two optional outputs after Y.
pub(crate) fn batch_norm_14(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    batch_norm(ctx, 14)
}

/// `InstanceNormalization(input, scale, B)`: Y is X's shape; X is `(N x C x D1 x ... x Dn)`
/// and onnxruntime rejects fewer than 3 dims when the node runs ("Invalid input data: number of
/// dimensions is less than 3"); scale and B are 1-D of size C.
pub(crate) fn instance_norm(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let mut pending = Pending::default();
    if let Some(dims) = x.shape.dims() {
        let Some(c) = dims.get(1).filter(|_| dims.len() >= 3) else {
            return Err(Constraint::new(
                "InstanceNormalization's input must have rank 3 or more (N x C x D1 x ... x Dn)",
                format!("input has rank {}", dims.len()),
                &[0],
            )
            .fix("Unsqueeze the input to add a spatial axis")
            .unmet());
        };
        let channels = Channels {
            len: c,
            name: "C",
            slot: 0,
        };
        per_channel::require(ctx, 1, "scale", channels, &mut pending)?;
        per_channel::require(ctx, 2, "B", channels, &mut pending)?;
    }
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{conditions, unmet};
    use crate::ops::testing::{dims as s, int_attr, run, Fact};

    fn bn(x: &[&str], p: &[&str], mean: &[&str]) -> Vec<Option<Fact>> {
        vec![s(x), s(p), s(p), s(mean), s(mean)]
    }

    #[test]
    fn batch_norm_parameters_have_c_values() {
        let c = unmet(run(
            "BatchNormalization",
            15,
            &bn(&["2", "3", "4", "4"], &["4"], &["4"]),
            vec![],
        ));
        assert_eq!(c.found, "scale has 4 elements, C is 3");
        assert_eq!(c.slots, vec![0, 1]);
        let c = unmet(run(
            "BatchNormalization",
            9,
            &bn(&["2", "3", "4"], &["3"], &["4"]),
            vec![],
        ));
        assert_eq!(c.found, "input_mean has 4 elements, C is 3");
        let c = unmet(run(
            "BatchNormalization",
            9,
            &bn(&["2", "3", "4"], &["3", "1"], &["3"]),
            vec![],
        ));
        assert_eq!(c.found, "scale has rank 2");
        assert!(run(
            "BatchNormalization",
            15,
            &bn(&["2", "3"], &["3"], &["3"]),
            vec![]
        )
        .is_ok());
    }

    #[test]
    fn batch_norm_rank_1_input_has_one_channel() {
        assert!(run(
            "BatchNormalization",
            15,
            &bn(&["3"], &["1"], &["1"]),
            vec![]
        )
        .is_ok());
        assert!(run("BatchNormalization", 9, &bn(&["3"], &["3"], &["3"]), vec![]).is_err());
    }

    #[test]
    fn batch_norm_symbolic_channels_are_a_condition() {
        let r = run(
            "BatchNormalization",
            15,
            &bn(&["n", "c", "h"], &["64"], &["64"]),
            vec![],
        )
        .unwrap();
        assert_eq!(conditions(&r), ["c = 64", "c = 64", "c = 64", "c = 64"]);
    }

    #[test]
    fn batch_norm_spatial_0_before_opset_9_is_per_activation() {
        let inputs = bn(&["2", "3", "4", "4"], &["3", "4", "4"], &["3", "4", "4"]);
        assert!(run(
            "BatchNormalization",
            7,
            &inputs,
            vec![int_attr("spatial", 0)]
        )
        .is_ok());
        assert!(run(
            "BatchNormalization",
            6,
            &inputs,
            vec![int_attr("spatial", 0)]
        )
        .is_ok());
        // spatial defaults to 1, and is gone (always spatial) from opset 9.
        assert!(run("BatchNormalization", 7, &inputs, vec![]).is_err());
        assert!(run(
            "BatchNormalization",
            9,
            &inputs,
            vec![int_attr("spatial", 0)]
        )
        .is_err());
    }

    #[test]
    fn instance_norm_needs_rank_3_and_c_values() {
        for opset in [1, 6, 22] {
            let c = unmet(run(
                "InstanceNormalization",
                opset,
                &[s(&["2", "3", "4"]), s(&["4"]), s(&["3"])],
                vec![],
            ));
            assert_eq!(c.found, "scale has 4 elements, C is 3");
        }
        let c = unmet(run(
            "InstanceNormalization",
            6,
            &[s(&["2", "3"]), s(&["3"]), s(&["3"])],
            vec![],
        ));
        assert_eq!(c.found, "input has rank 2");
        assert!(run(
            "InstanceNormalization",
            6,
            &[s(&["2", "3", "4"]), s(&["1"]), s(&["3"])],
            vec![]
        )
        .is_err());
        let r = run(
            "InstanceNormalization",
            22,
            &[s(&["n", "c", "4"]), s(&["8"]), s(&["8"])],
            vec![],
        )
        .unwrap();
        assert_eq!(conditions(&r), ["c = 8", "c = 8"]);
    }
}
