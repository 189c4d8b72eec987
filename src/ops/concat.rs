//! Ops that grow tensors: `Concat` (sizes on the axis summed symbolically, 1-D values joined),
//! `Expand` (bidirectional broadcasting of the input with the target shape's value), `Tile` and
//! `Pad`.

use super::axes::{self, unknown_dims};
use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::shape::broadcast::{self, Rule};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape, Tri};

/// The rule for `op_type`, if this family has it.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Concat" => concat,
        "Expand" => expand,
        "Tile" => tile,
        "Pad" => pad,
        _ => return None,
    })
}

/// `Concat(inputs..., axis)`: equal ranks; the axis is the sum; other dims agree, so a static or
/// symbolic dim of any input stands for all.
fn concat(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let inputs: Vec<_> = (0..ctx.input_count())
        .filter_map(|s| ctx.input(s))
        .collect();
    let elem = inputs.first().and_then(|i| i.elem);
    let axis = ctx
        .attrs()
        .int("axis")?
        .ok_or_else(|| RuleError::Invalid("Concat needs axis".into()))?;
    let ranked: Option<Vec<&[Dim]>> = inputs.iter().map(|i| i.shape.dims()).collect();
    let Some(ranked) = ranked else {
        let rank = inputs.iter().find_map(|i| i.shape.rank());
        return Ok(Inferred::single(
            Output::shape(rank.map_or(Shape::Unranked, unknown_dims)).elem(elem),
        ));
    };
    let Some(rank) = ranked.first().map(|d| d.len()) else {
        return Err(RuleError::MissingInput(0));
    };
    if ranked.iter().any(|d| d.len() != rank) {
        return Err(RuleError::Invalid(
            "Concat inputs have different ranks".into(),
        ));
    }
    let axis = axes::require(axis, rank, "Concat axis")?;
    let dims = (0..rank)
        .map(|i| {
            let column = ranked
                .iter()
                .map(|d| d.get(i).cloned().unwrap_or(Dim::Unknown));
            if i == axis {
                column.fold(Dim::known(0), |acc, d| acc.add(&d))
            } else {
                // Concat requires the other dims to agree: any known one is the size.
                let column: Vec<Dim> = column.collect();
                column
                    .iter()
                    .find(|d| matches!(d, Dim::Known(_)))
                    .or_else(|| column.iter().find(|d| matches!(d, Dim::Sym(_))))
                    .cloned()
                    .unwrap_or(Dim::Unknown)
            }
        })
        .collect();
    let value = if rank == 1 {
        inputs
            .iter()
            .map(|i| i.value.map(|v| v.data.clone()))
            .collect::<Option<Vec<_>>>()
            .and_then(|parts| ValueTensor::vector(parts.concat()))
    } else {
        None
    };
    Ok(Inferred::single(match value {
        Some(value) => Output::value(value, elem),
        None => Output::shape(Shape::Ranked(dims)).elem(elem),
    }))
}

/// `Expand(input, shape)`: bidirectional broadcasting (numpy rule between the input's shape and
/// the target); the output may differ from the target (target 1s, lower target rank).
fn expand(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
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
    let outcome = broadcast::bidirectional(input.shape, &target_shape);
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

/// `Tile(input, repeats)`: each dim times its repeat count.
fn tile(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let repeats = ctx.required(1)?.value;
    let shape = match (input.shape.dims(), repeats) {
        (Some(dims), Some(r)) => {
            if r.data.len() != dims.len() {
                return Err(RuleError::Invalid(format!(
                    "Tile has {} repeats for rank {}",
                    r.data.len(),
                    dims.len()
                )));
            }
            if r.data.iter().any(|k| k.as_known().is_some_and(|k| k < 0)) {
                return Err(RuleError::Invalid("Tile repeats are negative".into()));
            }
            Shape::Ranked(dims.iter().zip(&r.data).map(|(d, k)| d.mul(k)).collect())
        }
        (Some(dims), _) => unknown_dims(dims.len()),
        (None, _) => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(input.elem)))
}

/// `Pad(data, pads)`: `pads` (attribute before opset 11, input from 11) adds `begin + end` to each
/// padded axis; opset 18 `axes` restricts which axes the pads apply to.
fn pad(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let Some(dims) = data.shape.dims() else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(data.elem),
        ));
    };
    // Pad-1 calls the attribute `paddings`; Pad-2 renames it `pads`; Pad-11 makes it an input.
    let pads: Option<Vec<Dim>> = if ctx.opset() < 11 {
        let name = if ctx.opset() < 2 { "paddings" } else { "pads" };
        ctx.attrs()
            .ints(name)?
            .map(|p| p.iter().copied().map(Dim::known).collect())
    } else {
        ctx.required(1)?.value.map(|v| v.data.clone())
    };
    let axes: Vec<usize> = match axes::input_ints(ctx.input(3)) {
        Some(list) if ctx.opset() >= 18 => list
            .iter()
            .map(|&a| axes::require(a, dims.len(), "Pad axis"))
            .collect::<Result<_, _>>()?,
        _ if ctx.opset() >= 18 && ctx.input(3).is_some() => {
            return Ok(Inferred::single(
                Output::shape(unknown_dims(dims.len())).elem(data.elem),
            ))
        }
        _ => (0..dims.len()).collect(),
    };
    let Some(pads) = pads.filter(|p| p.len() == 2 * axes.len()) else {
        return Ok(Inferred::single(
            Output::shape(unknown_dims(dims.len())).elem(data.elem),
        ));
    };
    let n = axes.len();
    let mut out = dims.to_vec();
    for (k, &axis) in axes.iter().enumerate() {
        let (Some(begin), Some(end)) = (pads.get(k), pads.get(k + n)) else {
            continue;
        };
        if let Some(slot) = out.get_mut(axis) {
            // Negative pads crop. The sum is right for every input the model accepts (a size
            // below 0 fails at run time); a static negative size can never run.
            let grown = slot.add(begin).add(end);
            if grown.as_known().is_some_and(|v| v < 0) {
                return Err(RuleError::Invalid(format!(
                    "Pad gives axis {axis} the negative size {grown}"
                )));
            }
            *slot = grown;
        }
    }
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(out)).elem(data.elem),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{self, int_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape, Verdict};

    #[test]
    fn concat_sums_the_axis_and_joins_values() {
        let a = ValueTensor::vector(vec![Dim::sym("batch")]).unwrap();
        let b = ValueTensor::vector(vec![Dim::known(-1), Dim::known(64)]).unwrap();
        let out = testing::run(
            "Concat",
            13,
            &[testing::ints(a), testing::ints(b)],
            vec![int_attr("axis", 0)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].value.as_ref().unwrap().data,
            vec![Dim::sym("batch"), Dim::known(-1), Dim::known(64)]
        );
        let x = Shape::Ranked(vec![Dim::sym("batch"), Dim::sym("seq")]);
        let y = Shape::Ranked(vec![Dim::sym("batch"), Dim::known(1)]);
        let out = testing::run(
            "Concat",
            13,
            &[testing::shape(x), testing::shape(y)],
            vec![int_attr("axis", 1)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("batch"), Dim::sym("seq").add(&Dim::known(1))])
        );
    }

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
    fn pad_adds_both_sides() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(4)]);
        let pads = ValueTensor::vector(vec![
            Dim::known(0),
            Dim::known(1),
            Dim::known(0),
            Dim::known(2),
        ])
        .unwrap();
        let out =
            testing::run("Pad", 13, &[testing::shape(x), testing::ints(pads)], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(7)])
        );
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
    fn tile_multiplies_and_checks_repeats() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(2)]);
        let reps = ValueTensor::vector(vec![Dim::known(2), Dim::known(3)]).unwrap();
        let out = testing::run(
            "Tile",
            13,
            &[testing::shape(x.clone()), testing::ints(reps)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n").mul(&Dim::known(2)), Dim::known(6)])
        );
        let short = ValueTensor::vector(vec![Dim::known(2)]).unwrap();
        assert!(testing::run(
            "Tile",
            13,
            &[testing::shape(x), testing::ints(short)],
            vec![]
        )
        .is_err());
    }

    #[test]
    fn pad_attribute_forms_and_crops() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(4)]);
        let out = testing::run(
            "Pad",
            1,
            &[testing::shape(x.clone())],
            vec![testing::ints_attr("paddings", &[0, 1, 0, 1])],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(6)])
        );
        let out = testing::run(
            "Pad",
            2,
            &[testing::shape(x.clone())],
            vec![testing::ints_attr("pads", &[-1, 0, 0, -1])],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n").sub(&Dim::known(1)), Dim::known(3)])
        );
        let too_much = testing::run(
            "Pad",
            2,
            &[testing::shape(x)],
            vec![testing::ints_attr("pads", &[0, -3, 0, -3])],
        );
        assert!(too_much.is_err());
    }

    #[test]
    fn pad_18_axes_pick_the_padded_dims() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(4), Dim::known(4)]);
        let pads = ValueTensor::vector(vec![Dim::known(1), Dim::known(1)]).unwrap();
        let axes = ValueTensor::vector(vec![Dim::known(-1)]).unwrap();
        let out = testing::run(
            "Pad",
            18,
            &[
                testing::shape(x),
                testing::ints(pads),
                None,
                testing::ints(axes),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(4), Dim::known(6)])
        );
    }
}
