//! Normalization ops: `LRN` keeps X's shape (`BatchNormalization`, `InstanceNormalization`
//! and `GroupNormalization`, whose parameters are per channel or group, are in
//! `channel_norm.rs` and `group_norm.rs`); `LayerNormalization` and `RMSNormalization`
//! broadcast their scale (and bias) unidirectionally to X (ONNX LayerNormalization-17 and
//! RMSNormalization-23 docs), recorded as checks, and reduce the normalized axes to 1 in their
//! statistics outputs.

use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// Y has X's shape and element type.
pub(crate) fn same_as_x(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(x.elem),
    ))
}

/// Which normalization a row names: `RMSNormalization` has no bias and no statistics outputs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Normalized {
    /// `LayerNormalization`.
    Layer,
    /// `RMSNormalization`.
    Rms,
}

/// `LayerNormalization(X, Scale, B)` and `RMSNormalization(X, scale)`: Y is X's shape; Scale
/// and B must be unidirectionally broadcastable to X; `Mean` and `InvStdDev` are X's shape with
/// the axes from `axis` on set to 1, typed by `stash_type`.
pub(crate) fn layer_norm(ctx: &Ctx<'_>, form: Normalized) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let scale = ctx.required(1)?;
    let axis = ctx.int("axis", -1)?;
    let stats = match x.shape.dims() {
        Some(dims) => {
            let from = crate::ops::axes::require(axis, dims.len(), "axis")?;
            let kept = dims.iter().take(from).cloned();
            Shape::Ranked(
                kept.chain(std::iter::repeat_n(Dim::known(1), dims.len() - from))
                    .collect(),
            )
        }
        None => Shape::Unranked,
    };
    let stash = i32::try_from(ctx.int("stash_type", 1)?).ok();
    let mut inferred = Inferred::many(vec![
        Output::shape(x.shape.clone()).elem(x.elem),
        Output::shape(stats.clone()).elem(stash),
        Output::shape(stats).elem(stash),
    ]);
    if form == Normalized::Rms {
        inferred.outputs.truncate(1);
    }
    let outcome = ctx.broadcasts().unidirectional(x.shape, scale.shape);
    inferred = inferred.with_check(Rule::Unidirectional, vec![0, 1], outcome);
    if let Some(bias) = ctx.input(2).filter(|_| form == Normalized::Layer) {
        let outcome = ctx.broadcasts().unidirectional(x.shape, bias.shape);
        inferred = inferred.with_check(Rule::Unidirectional, vec![0, 2], outcome);
    }
    Ok(inferred)
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::dims as s;
    use crate::ops::testing::{int_attr, run, run_in};

    #[test]
    fn layer_norm_scale_and_bias_match_hidden() {
        let r = run_in(
            "",
            "LayerNormalization",
            17,
            &[s(&["batch", "seq", "768"]), s(&["768"]), s(&["768"])],
            vec![],
            3,
        )
        .unwrap();
        let shapes: Vec<String> = r.outputs.iter().map(|o| o.shape.to_string()).collect();
        assert_eq!(
            shapes,
            ["[batch, seq, 768]", "[batch, seq, 1]", "[batch, seq, 1]"]
        );
        assert_eq!(r.checks.len(), 2);
        assert!(r.checks.iter().all(|c| c.outcome.is_valid()));
        assert_eq!(r.checks[1].slots, vec![0, 2]);
    }

    #[test]
    fn layer_norm_scale_of_wrong_size_is_invalid() {
        let r = run(
            "LayerNormalization",
            17,
            &[s(&["batch", "seq", "768"]), s(&["512"])],
            vec![],
        )
        .unwrap();
        assert_eq!(r.checks.len(), 1);
        let violation = r.checks[0].outcome.violation().unwrap();
        assert_eq!(violation.to_string(), "axis 2 is 768 vs 512");
    }

    #[test]
    fn layer_norm_axis_sets_stat_dims() {
        let r = run_in(
            "",
            "LayerNormalization",
            17,
            &[s(&["n", "c", "h", "w"]), s(&["c", "h", "w"])],
            vec![int_attr("axis", 1)],
            2,
        )
        .unwrap();
        assert_eq!(r.outputs[1].shape.to_string(), "[n, 1, 1, 1]");
        assert!(r.checks[0].outcome.is_valid());
        let bad = run(
            "LayerNormalization",
            17,
            &[s(&["n", "c"]), s(&["c"])],
            vec![int_attr("axis", 2)],
        );
        assert!(bad.is_err());
    }

    #[test]
    fn rms_norm_checks_scale_only() {
        let r = run(
            "RMSNormalization",
            23,
            &[s(&["b", "s", "64"]), s(&["32"])],
            vec![],
        )
        .unwrap();
        assert_eq!(r.outputs.len(), 1);
        assert!(r.checks[0].outcome.is_invalid());
        let r = run(
            "RMSNormalization",
            23,
            &[s(&["b", "s", "64"]), s(&["64"])],
            vec![],
        )
        .unwrap();
        assert!(r.checks[0].outcome.is_valid());
    }

    #[test]
    fn batch_norm_outputs_by_opset() {
        let inputs = [
            s(&["n", "3", "h", "w"]),
            s(&["3"]),
            s(&["3"]),
            s(&["3"]),
            s(&["3"]),
        ];
        let r = run_in("", "BatchNormalization", 15, &inputs, vec![], 3).unwrap();
        let shapes: Vec<String> = r.outputs.iter().map(|o| o.shape.to_string()).collect();
        assert_eq!(shapes, ["[n, 3, h, w]", "[3]", "[3]"]);
        let r = run_in("", "BatchNormalization", 9, &inputs, vec![], 5).unwrap();
        assert_eq!(r.outputs.len(), 5);
        let r = run("BatchNormalization", 15, &inputs, vec![]).unwrap();
        assert_eq!(r.outputs.len(), 1);
    }

    #[test]
    fn instance_group_lrn_keep_shape() {
        let groups = vec![int_attr("num_groups", 1)];
        for (op, attrs) in [
            ("InstanceNormalization", vec![]),
            ("GroupNormalization", groups),
            ("LRN", vec![int_attr("size", 3)]),
        ] {
            let r = run(op, 18, &[s(&["n", "c", "8"]), s(&["c"]), s(&["c"])], attrs).unwrap();
            assert_eq!(r.outputs[0].shape.to_string(), "[n, c, 8]");
        }
    }
}
