//! Ops that join or repeat tensors: `Concat` (sizes on the axis summed symbolically, 1-D values
//! joined) and `Tile` (dims times the repeats value). `Expand` and `Pad` have their own files.

use super::axes::{self, unknown_dims};
use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// The rule for `op_type`, if this family has it.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Concat" => concat,
        "Tile" => tile,
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

#[cfg(test)]
mod tests {
    use super::super::testing::{self, int_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

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
}
