//! Ops that join or repeat tensors: `Concat` (sizes on the axis summed symbolically, 1-D values
//! joined) and `Tile` (dims times the repeats value). `Expand` and `Pad` have their own files.

use crate::model::dtype::elem;
use crate::model::tensor::MAX_VALUE_ELEMENTS;
use crate::ops::axes::{self, unknown_dims};
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::overflow::sized;
use crate::ops::values::moves;
use crate::ops::{spec, Ctx, Inferred, Input, Output, RuleError};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// `Concat(inputs..., axis)`: equal ranks; the axis is the sum; other dims agree, so a static or
/// symbolic dim of any input stands for all.
fn concat(ctx: &Ctx<'_>, axis_default: Option<i64>) -> Result<Inferred, RuleError> {
    let inputs: Vec<(usize, Input<'_>)> = (0..ctx.input_count())
        .filter_map(|s| ctx.input(s).map(|i| (s, i)))
        .collect();
    let elem = inputs.first().and_then(|(_, i)| i.elem);
    // Concat-1 documents "Default value is 1"; Concat-4 makes the attribute required.
    let axis = match ctx.attrs().int("axis")? {
        Some(axis) => axis,
        None => axis_default.ok_or_else(|| spec::missing_attr("Concat-4+", "axis"))?,
    };
    let ranked: Option<Vec<(usize, &[Dim])>> = inputs
        .iter()
        .map(|(s, i)| i.shape.dims().map(|d| (*s, d)))
        .collect();
    let Some(ranked) = ranked else {
        let rank = inputs.iter().find_map(|(_, i)| i.shape.rank());
        return Ok(Inferred::single(
            Output::shape(rank.map_or(Shape::Unranked, unknown_dims)).elem(elem),
        ));
    };
    let Some(&(first, first_dims)) = ranked.first() else {
        return Err(RuleError::MissingInput(0));
    };
    let rank = first_dims.len();
    if let Some(&(slot, dims)) = ranked.iter().find(|(_, d)| d.len() != rank) {
        return Err(Constraint::new(
            "all inputs to Concat must have the same rank (Concat doc)",
            format!(
                "input {first} has rank {rank}, input {slot} has rank {}",
                dims.len()
            ),
            &[first, slot],
        )
        .fix("Unsqueeze or Reshape the input whose rank differs")
        .unmet());
    }
    let axis = axes::require(axis, rank, "Concat axis")?;
    let mut pending = Pending::default();
    let mut dims = Vec::with_capacity(rank);
    for i in 0..rank {
        let column: Vec<(usize, Dim)> = ranked
            .iter()
            .map(|(s, d)| (*s, d.get(i).cloned().unwrap_or(Dim::Unknown)))
            .collect();
        if i == axis {
            let slots: Vec<usize> = column.iter().map(|(s, _)| *s).collect();
            let what = format!("Concat's output length on axis {axis} (the sum of the inputs')");
            dims.push(sized(&what, &slots).sum(column.iter().map(|(_, d)| d))?);
            continue;
        }
        dims.push(agreed(&mut pending, &column, i, axis)?);
    }
    let (value, real) = if rank == 1 {
        (
            joined_ints(&inputs, elem),
            // Float vectors too: Resize scales are `Concat([1, 1], computed)`.
            inputs
                .iter()
                .map(|(_, i)| i.real().map(|v| v.data.clone()))
                .collect::<Option<Vec<_>>>()
                .and_then(|parts| ValueTensor::vector(parts.concat())),
        )
    } else {
        (None, None)
    };
    let out = match (value, real) {
        (Some(value), _) => Output::value(value, elem),
        (None, Some(real)) => Output::reals(real, elem),
        (None, None) => Output::shape(Shape::Ranked(dims)).elem(elem),
    };
    Ok(Inferred::single(out).with_conditions(pending.into_checks()))
}

/// `Concat-1`: `axis` defaults to 1.
pub(crate) fn concat_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    concat(ctx, Some(1))
}

/// `Concat` from opset 4: `axis` is required.
pub(crate) fn concat_4(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    concat(ctx, None)
}

/// The elements of a 1-D integer `Concat` whose parts are known in part: a part without a value
/// but with a static length contributes that many unknown elements, so the known ones keep
/// their positions. `Resize` sizes written as `Concat(Shape(x)[:2], computed)` then keep the
/// batch and channel dims when the computed sizes are not known. `None` when no part is known
/// (nothing to carry) or a part's length is not static.
fn joined_ints(inputs: &[(usize, Input<'_>)], elem: Option<i32>) -> Option<ValueTensor> {
    // Only integer tensors carry values: a float part's elements are never dims.
    if !matches!(elem, Some(elem::INT64 | elem::INT32)) {
        return None;
    }
    if inputs.iter().all(|(_, i)| i.value.is_none()) {
        return None;
    }
    let mut data = Vec::new();
    for (_, input) in inputs {
        if let Some(v) = input.value {
            data.extend(v.data.iter().cloned());
            continue;
        }
        let [length] = input.shape.dims()? else {
            return None;
        };
        let n = usize::try_from(length.as_known()?).ok()?;
        if data.len().saturating_add(n) > MAX_VALUE_ELEMENTS {
            return None;
        }
        data.extend(std::iter::repeat_n(Dim::Unknown, n));
    }
    ValueTensor::vector(data)
}

/// The size of non-axis dim `i`, which every input must share ("all input tensors must have the
/// same shape, except for the dimension size of the axis to concatenate on"): each input's dim
/// is required equal to the first static (else symbolic) one; that one is the output's.
fn agreed(
    pending: &mut Pending,
    column: &[(usize, Dim)],
    i: usize,
    axis: usize,
) -> Result<Dim, RuleError> {
    let reference = column
        .iter()
        .find(|(_, d)| matches!(d, Dim::Known(_)))
        .or_else(|| column.iter().find(|(_, d)| matches!(d, Dim::Sym(_))));
    let Some((at, size)) = reference.cloned() else {
        return Ok(Dim::Unknown);
    };
    for (slot, d) in column {
        pending.equal(&size, d, || {
            Constraint::new(
                format!(
                    "Concat inputs must agree on dim {i}, as on every axis but the concat axis \
                     ({axis})"
                ),
                format!("dim {i} is {size} in input {at}, {d} in input {slot}"),
                &[at, *slot],
            )
            .fix(format!(
                "check the producer of input {slot}, or concatenate on axis {i} if that was meant"
            ))
        })?;
    }
    Ok(size)
}

/// `Tile(input, repeats)` (opset 6+): each dim times its repeat count. Tile-1 takes `tiles` and
/// `axis` inputs instead: the rank is kept and the dims are left unknown.
fn tile(ctx: &Ctx<'_>, repeats_input: bool) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let repeats = ctx.required(1)?;
    let Some(dims) = input.shape.dims() else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(input.elem),
        ));
    };
    if !repeats_input {
        return Ok(Inferred::single(
            Output::shape(unknown_dims(dims.len())).elem(input.elem),
        ));
    }
    if let Some(n) = spec::list_len(Some(repeats)).filter(|&n| n != dims.len()) {
        return Err(spec::wrong_len(
            "Tile's repeats must have one value per input dimension",
            n,
            dims.len(),
            &[0, 1],
        ));
    }
    let Some(r) = repeats.value else {
        return Ok(Inferred::single(
            Output::shape(unknown_dims(dims.len())).elem(input.elem),
        ));
    };
    if let Some(k) = r.data.iter().find_map(|k| k.as_known().filter(|&k| k < 0)) {
        return Err(Constraint::new(
            "Tile's repeats must not be negative",
            format!("a repeat count is {k}"),
            &[1],
        )
        .fix("use repeat counts of 0 or more")
        .unmet());
    }
    if let Some(v) = input.value.and_then(|v| moves::tile_values(v, &r.data)) {
        return Ok(Inferred::single(Output::value(v, input.elem)));
    }
    let shape = Shape::Ranked(
        dims.iter()
            .zip(&r.data)
            .enumerate()
            .map(|(axis, (d, k))| {
                let what = format!("Tile's output dim {axis} (the input's times repeats)");
                sized(&what, &[0, 1]).mul(d, k)
            })
            .collect::<Result<_, _>>()?,
    );
    Ok(Inferred::single(Output::shape(shape).elem(input.elem)))
}

/// `Tile-1`: `tiles` and `axis` inputs; the rank is kept, the dims unknown.
pub(crate) fn tile_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    tile(ctx, false)
}

/// `Tile` from opset 6: a `repeats` input.
pub(crate) fn tile_6(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    tile(ctx, true)
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{self, dims as s, int_attr};
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
    fn concat_keeps_known_elements_beside_unknown_parts() {
        // Resize sizes as torch writes them: Concat(Shape(x)[:2], computed [2]).
        let head = ValueTensor::vector(vec![Dim::sym("batch"), Dim::known(3)]).unwrap();
        let computed = testing::Fact {
            elem: Some(7),
            ..testing::dims(&["2"]).unwrap()
        };
        let out = testing::run(
            "Concat",
            13,
            &[testing::ints(head), Some(computed.clone())],
            vec![int_attr("axis", 0)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].value.as_ref().unwrap().data,
            vec![Dim::sym("batch"), Dim::known(3), Dim::Unknown, Dim::Unknown]
        );
        // Nothing known, or a part of unknown length: no value at all.
        let out = testing::run(
            "Concat",
            13,
            &[Some(computed.clone()), Some(computed)],
            vec![int_attr("axis", 0)],
        )
        .unwrap();
        assert!(out.outputs[0].value.is_none());
        let one = ValueTensor::vector(vec![Dim::known(1)]).unwrap();
        let open = testing::Fact {
            elem: Some(7),
            ..testing::dims(&["n"]).unwrap()
        };
        let out = testing::run(
            "Concat",
            13,
            &[testing::ints(one), Some(open)],
            vec![int_attr("axis", 0)],
        )
        .unwrap();
        assert!(out.outputs[0].value.is_none());
        assert_eq!(out.outputs[0].shape.to_string(), "[n+1]");
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
    fn concat_rank_and_static_dims_must_agree() {
        let axis = || vec![int_attr("axis", 0)];
        assert!(unmet(&testing::run(
            "Concat",
            13,
            &[s(&["2", "3"]), s(&["3"])],
            axis()
        )));
        assert!(unmet(&testing::run(
            "Concat",
            13,
            &[s(&["2", "3"]), s(&["4", "4"])],
            axis()
        )));
        let ok = testing::run("Concat", 13, &[s(&["2", "3"]), s(&["4", "3"])], axis());
        assert_eq!(shape(&ok), "[6, 3]");
        assert!(conditions(&ok).is_empty());
        assert!(unmet(&testing::run(
            "Concat",
            13,
            &[s(&["2", "3"]), s(&["2", "3"])],
            vec![int_attr("axis", 2)]
        )));
    }

    #[test]
    fn concat_symbolic_dim_against_static_is_a_condition() {
        let r = testing::run(
            "Concat",
            13,
            &[s(&["2", "n"]), s(&["4", "3"])],
            vec![int_attr("axis", 0)],
        );
        assert_eq!(conditions(&r), ["n = 3"]);
        assert_eq!(shape(&r), "[6, 3]");
        let unknown = testing::shape(Shape::Ranked(vec![Dim::known(2), Dim::Unknown]));
        let r = testing::run(
            "Concat",
            13,
            &[unknown, s(&["4", "3"])],
            vec![int_attr("axis", 0)],
        );
        assert!(conditions(&r).is_empty());
    }

    #[test]
    fn concat_axis_is_required_from_opset_4_only() {
        // Concat-1: "Default value is 1".
        let r = testing::run("Concat", 1, &[s(&["2", "3"]), s(&["2", "4"])], vec![]);
        assert_eq!(shape(&r), "[2, 7]");
        assert!(unmet(&testing::run(
            "Concat",
            4,
            &[s(&["2", "3"]), s(&["2", "4"])],
            vec![]
        )));
    }

    #[test]
    fn tile_repeats_length_and_sign() {
        let x = || s(&["2", "3"]);
        let declared = testing::shape(Shape::from_known(&[1]));
        assert!(unmet(&testing::run("Tile", 13, &[x(), declared], vec![])));
        let negative = ValueTensor::vector(vec![Dim::known(2), Dim::known(-1)]).unwrap();
        assert!(unmet(&testing::run(
            "Tile",
            13,
            &[x(), testing::ints(negative)],
            vec![]
        )));
        // Tile-1 takes (input, tiles, axis): no repeats list to check.
        let tiles = ValueTensor::new(vec![], vec![Dim::known(2)]).unwrap();
        let r = testing::run(
            "Tile",
            1,
            &[x(), testing::ints(tiles.clone()), testing::ints(tiles)],
            vec![],
        );
        assert_eq!(shape(&r), "[?, ?]");
    }
}
