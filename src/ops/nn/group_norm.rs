//! `GroupNormalization` (ONNX GroupNormalization-18 and -21): Y keeps X's shape. `num_groups`
//! divides the channels C (X's dim 1) into groups; scale and bias have one value per group at
//! opset 18 and one per channel from opset 21, the change that version made.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::condition::Atom;
use crate::shape::{Condition, Dim};

/// `GroupNormalization(X, scale, bias)`: Y is X's shape. `num_groups` (required) divides the
/// channels C into groups, so C must be a multiple of it (onnxruntime fails in the function
/// body's Reshape otherwise). scale and bias have one value per group at opset 18 and one per
/// channel from opset 21 (the doc's change); a single value also runs, broadcast by the
/// function body's Mul, so only other lengths are faults.
fn infer(ctx: &Ctx<'_>, per_channel: bool) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let groups = ctx.attrs().int("num_groups")?.ok_or_else(|| {
        Constraint::new(
            "GroupNormalization requires the num_groups attribute",
            "",
            &[],
        )
        .fix("give num_groups, a divisor of the channel count")
        .unmet()
    })?;
    if groups < 1 {
        return Err(Constraint::new(
            "GroupNormalization's num_groups must be 1 or more",
            format!("num_groups is {groups}"),
            &[],
        )
        .fix("give num_groups, a divisor of the channel count")
        .unmet());
    }
    let c = x
        .shape
        .dims()
        .filter(|d| d.len() >= 2)
        .and_then(|d| d.get(1))
        .cloned()
        .unwrap_or(Dim::Unknown);
    if let Some(channels) = c.as_known() {
        if channels.checked_rem(groups).is_some_and(|r| r != 0) {
            return Err(Constraint::new(
                "GroupNormalization's channels (C) must be divisible by num_groups",
                format!("C is {channels}, num_groups is {groups}"),
                &[0],
            )
            .fix("use a num_groups that divides C")
            .unmet());
        }
    }
    let (len, name) = if per_channel {
        (c, "C")
    } else {
        (Dim::known(groups), "num_groups")
    };
    let mut pending = Pending::default();
    for (slot, what) in [(1, "scale"), (2, "bias")] {
        param_len(ctx, slot, what, &len, name, &mut pending)?;
    }
    Ok(
        Inferred::single(Output::shape(x.shape.clone()).elem(x.elem))
            .with_conditions(pending.into_checks()),
    )
}

/// `GroupNormalization-18`: scale and bias have one value per group.
pub(crate) fn group_norm_18(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    infer(ctx, false)
}

/// `GroupNormalization` from opset 21: scale and bias have one value per channel.
pub(crate) fn group_norm_21(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    infer(ctx, true)
}

/// A 1-D `GroupNormalization` parameter has `len` values, or 1.
fn param_len(
    ctx: &Ctx<'_>,
    slot: usize,
    what: &str,
    len: &Dim,
    name: &str,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let Some([size]) = ctx.input(slot).and_then(|input| input.shape.dims()) else {
        return Ok(());
    };
    if matches!(len, Dim::Unknown) || matches!(size, Dim::Unknown) {
        return Ok(());
    }
    let condition = Condition::any_of([
        Atom::Eq(size.clone(), len.clone()),
        Atom::IsOne(size.clone()),
    ]);
    pending.holds_if(&condition, || {
        Constraint::new(
            format!(
                "GroupNormalization-{}'s {what} must have {name} values",
                if name == "C" { 21 } else { 18 }
            ),
            format!("{what} has {size} values, {name} is {len}"),
            &[0, slot],
        )
        .fix(format!("give {what} shape [{len}]"))
    })
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{conditions, unmet};
    use crate::ops::testing::{dims as s, int_attr, run};

    #[test]
    fn group_norm_scale_is_per_group_at_18_and_per_channel_at_21() {
        let g = || vec![int_attr("num_groups", 2)];
        let x = || s(&["2", "4", "3"]);
        assert!(run("GroupNormalization", 18, &[x(), s(&["2"]), s(&["2"])], g()).is_ok());
        let c = unmet(run(
            "GroupNormalization",
            18,
            &[x(), s(&["4"]), s(&["4"])],
            g(),
        ));
        assert_eq!(c.found, "scale has 4 values, num_groups is 2");
        assert!(run("GroupNormalization", 21, &[x(), s(&["4"]), s(&["4"])], g()).is_ok());
        let c = unmet(run(
            "GroupNormalization",
            21,
            &[x(), s(&["2"]), s(&["2"])],
            g(),
        ));
        assert_eq!(c.found, "scale has 2 values, C is 4");
        // One value broadcasts in the function body: onnxruntime runs it at both opsets.
        for opset in [18, 21] {
            assert!(run(
                "GroupNormalization",
                opset,
                &[x(), s(&["1"]), s(&["1"])],
                g()
            )
            .is_ok());
        }
        let r = run(
            "GroupNormalization",
            21,
            &[s(&["n", "c", "8"]), s(&["16"]), s(&["16"])],
            g(),
        )
        .unwrap();
        assert_eq!(conditions(&r), ["c = 16", "c = 16"]);
        let r = run("GroupNormalization", 18, &[x(), s(&["k"]), s(&["2"])], g()).unwrap();
        assert_eq!(conditions(&r).len(), 1);
    }

    #[test]
    fn group_norm_groups_divide_channels() {
        let c = unmet(run(
            "GroupNormalization",
            21,
            &[s(&["2", "3", "4"]), s(&["3"]), s(&["3"])],
            vec![int_attr("num_groups", 2)],
        ));
        assert_eq!(c.found, "C is 3, num_groups is 2");
        assert!(run(
            "GroupNormalization",
            18,
            &[s(&["2", "4", "3"]), s(&["1"]), s(&["1"])],
            vec![int_attr("num_groups", 0)]
        )
        .is_err());
        assert!(run(
            "GroupNormalization",
            18,
            &[s(&["2", "4", "3"]), s(&["1"]), s(&["1"])],
            vec![]
        )
        .is_err());
    }
}
