//! `Expand`: bidirectional broadcasting (ONNX Expand doc: `numpy.array(input) *
//! numpy.ones(shape)`) of the input with the target shape's value. The broadcast is recorded as
//! a check, so a target that can never fit the input is reported.

use crate::ops::axes::unknown_dims;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape, Tri};

/// `Expand(input, shape)`: bidirectional broadcasting (numpy rule between the input's shape and
/// the target); the output may differ from the target (target 1s, lower target rank).
pub(crate) fn expand(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let target = ctx.required(1)?;
    let target_shape = match target.value {
        Some(value) => Shape::Ranked(value.data.clone()),
        None => match target.shape.dims() {
            Some([n]) => match n.as_known().and_then(|n| usize::try_from(n).ok()) {
                Some(n) => unknown_dims(n),
                None => Shape::Unranked,
            },
            _ => Shape::Unranked,
        },
    };
    // A negative target size never runs ("invalid expand shape" in onnxruntime), whatever the
    // broadcast would say: reported as the shape input's fault, not as a broadcast.
    if let Some(v) = target
        .value
        .and_then(|v| v.data.iter().find_map(|d| d.as_known().filter(|&d| d < 0)))
    {
        return Err(Constraint::new(
            "Expand's shape must not have negative entries (no -1: Expand has no inferred dim)",
            format!("an entry is {v}"),
            &[1],
        )
        .fix("write the size, or 1 to keep the input's dim")
        .unmet());
    }
    if target.value.is_none() {
        // Without the target's values the rank is max(rank, target length), and an input dim
        // that cannot be 1 survives (the target there must be 1 or the same size).
        let shape = match (input.shape.dims(), target_shape.rank()) {
            (Some(dims), Some(len)) => {
                let rank = dims.len().max(len);
                let pad = rank - dims.len();
                Shape::Ranked(
                    (0..rank)
                        .map(|i| match i.checked_sub(pad).and_then(|j| dims.get(j)) {
                            Some(d) if d.is_one() == Tri::No => d.clone(),
                            Some(d) if i < rank - len => d.clone(),
                            _ => Dim::Unknown,
                        })
                        .collect(),
                )
            }
            _ => Shape::Unranked,
        };
        return Ok(Inferred::single(Output::shape(shape).elem(input.elem)));
    }
    let outcome = ctx.broadcasts().bidirectional(input.shape, &target_shape);
    let value = input.value.and_then(|v| {
        let sizes: Option<Vec<usize>> = outcome
            .shape
            .dims()?
            .iter()
            .map(|d| d.as_known().and_then(|n| usize::try_from(n).ok()))
            .collect();
        v.broadcast_to(&sizes?)
    });
    let output = match value {
        Some(value) => Output::value(value, input.elem),
        None => Output::shape(outcome.shape.clone()).elem(input.elem),
    };
    Ok(Inferred::single(output).with_check(Rule::Bidirectional, vec![0, 1], outcome))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing;
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape, Verdict};

    #[test]
    fn expand_checks_bidirectional_broadcasting() {
        let x = Shape::from_known(&[3, 1]);
        let good = ValueTensor::vector(vec![Dim::known(2), Dim::known(1), Dim::known(6)]).unwrap();
        let out = testing::run(
            "Expand",
            13,
            &[testing::shape(x.clone()), testing::ints(good)],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, Shape::from_known(&[2, 3, 6]));
        assert!(matches!(out.checks[0].outcome.verdict, Verdict::Valid));
        let bad = ValueTensor::vector(vec![Dim::known(4), Dim::known(6)]).unwrap();
        let out = testing::run(
            "Expand",
            13,
            &[testing::shape(x), testing::ints(bad)],
            vec![],
        )
        .unwrap();
        assert!(matches!(out.checks[0].outcome.verdict, Verdict::Invalid(_)));
    }

    #[test]
    fn expand_without_target_values_keeps_dims_that_cannot_be_one() {
        let x = Shape::Ranked(vec![Dim::known(3), Dim::known(1)]);
        let target = testing::shape(Shape::from_known(&[3]));
        let out = testing::run("Expand", 13, &[testing::shape(x), target], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::Unknown, Dim::known(3), Dim::Unknown])
        );
        assert!(out.checks.is_empty());
    }

    #[test]
    fn expand_with_a_symbolic_target_value() {
        let x = Shape::Ranked(vec![Dim::known(1), Dim::known(768)]);
        let target =
            ValueTensor::vector(vec![Dim::sym("batch"), Dim::sym("seq"), Dim::known(768)]).unwrap();
        let out = testing::run(
            "Expand",
            13,
            &[testing::shape(x), testing::ints(target)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("batch"), Dim::sym("seq"), Dim::known(768)])
        );
        assert_eq!(out.checks[0].slots, vec![0, 1]);
    }

    #[test]
    fn negative_target_sizes_never_run() {
        let target = ValueTensor::vector(vec![Dim::known(-1), Dim::known(3)]).unwrap();
        let r = testing::run(
            "Expand",
            13,
            &[testing::dims(&["1", "3"]), testing::ints(target)],
            vec![],
        );
        assert!(matches!(r, Err(crate::ops::RuleError::Unmet(_))));
    }
}
