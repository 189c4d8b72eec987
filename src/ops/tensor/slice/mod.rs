//! `Slice` (attributes before opset 10, inputs from 10): negative, clamped and out-of-range
//! bounds and positive or negative steps as the ONNX Slice doc (numpy) says. Static sizes are
//! exact; a symbolic size gets a `min`/`max` expression that holds for every size, or stays
//! unknown. Slicing a small 1-D value (`Shape -> Slice`) slices its elements.

mod bounds;
mod lengths;

use crate::ops::axes::{self, unknown_dims};
use crate::ops::constraint::Constraint;
use crate::ops::spec;
use crate::ops::values::rearrange;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};
use bounds::{slice_length, static_slice};
use lengths::same_lengths;

/// Integers of an attribute (before opset 10) or of an input's value (`inputs`: from opset 10).
fn bounds(
    ctx: &Ctx<'_>,
    inputs: bool,
    name: &str,
    slot: usize,
) -> Result<Option<Vec<Dim>>, RuleError> {
    if !inputs {
        return Ok(ctx
            .attrs()
            .ints(name)?
            .map(|list| list.iter().copied().map(Dim::known).collect()));
    }
    Ok(ctx
        .input(slot)
        .and_then(|i| i.value)
        .map(|v| v.data.clone()))
}

/// `Slice(data, starts, ends, axes, steps)`.
fn slice(ctx: &Ctx<'_>, inputs: bool) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let unknown = |shape: Shape| Ok(Inferred::single(Output::shape(shape).elem(data.elem)));
    let Some(dims) = data.shape.dims() else {
        return unknown(Shape::Unranked);
    };
    if inputs {
        ctx.required(1)?;
        ctx.required(2)?;
    }
    let (starts, ends) = (
        bounds(ctx, inputs, "starts", 1)?,
        bounds(ctx, inputs, "ends", 2)?,
    );
    if !inputs && (starts.is_none() || ends.is_none()) {
        return Err(spec::missing_attr("Slice-1", "starts` and `ends"));
    }
    let given_axes: Option<Vec<i64>> = if inputs {
        match ctx.input(3) {
            None => None,
            Some(input) => input.value.and_then(axes::known_ints),
        }
    } else {
        ctx.attrs().ints("axes")?.map(<[i64]>::to_vec)
    };
    let len = |list: Option<usize>, slot: usize| {
        list.or_else(|| spec::list_len(ctx.input(slot).filter(|_| inputs)))
    };
    let count = len(starts.as_ref().map(Vec::len), 1);
    same_lengths(&[
        ("starts", count),
        ("ends", len(ends.as_ref().map(Vec::len), 2)),
        ("axes", len(given_axes.as_ref().map(Vec::len), 3)),
        ("steps", len(None, 4)),
    ])?;
    if inputs && ctx.input(3).is_some() && given_axes.is_none() {
        return unknown(unknown_dims(dims.len()));
    }
    let slice_axes: Vec<usize> = match (given_axes, count) {
        (Some(list), _) => list
            .iter()
            .map(|&a| axes::require(a, dims.len(), "Slice axis"))
            .collect::<Result<_, _>>()?,
        // Default axes are `0..len(starts)`; a longer list than the rank (its length read from
        // a shape, up to 2^62) names axes that do not exist: left to the run, never allocated.
        (None, Some(n)) if n <= dims.len() => (0..n).collect(),
        (None, _) => return unknown(unknown_dims(dims.len())),
    };
    if let Some(axis) = spec::repeated(&slice_axes) {
        return Err(spec::repeated_axis("Slice", "axes", axis, 3));
    }
    let steps = match ctx.input(4).filter(|_| inputs) {
        None => Some(vec![1; slice_axes.len()]),
        Some(input) => input.value.and_then(axes::known_ints),
    };
    if steps.as_ref().is_some_and(|s| s.contains(&0)) {
        return Err(
            Constraint::new("Slice's steps cannot be 0", "a step is 0", &[4])
                .fix("use a positive or negative step")
                .unmet(),
        );
    }
    let (Some(starts), Some(ends), Some(steps)) = (starts, ends, steps) else {
        // Unknown bounds: only the sliced axes become unknown.
        let mut out = dims.to_vec();
        for &axis in &slice_axes {
            if let Some(slot) = out.get_mut(axis) {
                *slot = Dim::Unknown;
            }
        }
        return unknown(Shape::Ranked(out));
    };
    let mut out = dims.to_vec();
    for (((&axis, start), end), &step) in slice_axes.iter().zip(&starts).zip(&ends).zip(&steps) {
        if let Some(slot) = out.get_mut(axis) {
            *slot = slice_length(slot, start, end, step);
        }
    }
    let value = data
        .value
        .and_then(|v| slice_value(v, &slice_axes, &starts, &ends, &steps));
    Ok(Inferred::single(match value {
        Some(value) => Output::value(value, data.elem),
        None => Output::shape(Shape::Ranked(out)).elem(data.elem),
    }))
}

/// `Slice-1`: `starts`, `ends` and `axes` are attributes.
pub(crate) fn slice_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    slice(ctx, false)
}

/// `Slice` from opset 10: `starts`, `ends`, `axes` and `steps` are inputs.
pub(crate) fn slice_10(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    slice(ctx, true)
}

/// The elements of a sliced value, when every bound is static.
fn slice_value(
    v: &ValueTensor,
    slice_axes: &[usize],
    starts: &[Dim],
    ends: &[Dim],
    steps: &[i64],
) -> Option<ValueTensor> {
    let mut picks: Vec<Vec<usize>> = v.shape.iter().map(|&n| (0..n).collect()).collect();
    for (((&axis, start), end), &step) in slice_axes.iter().zip(starts).zip(ends).zip(steps) {
        let len = i64::try_from(*v.shape.get(axis)?).ok()?;
        let (first, count) = static_slice(len, start.as_known()?, end.as_known()?, step)?;
        let pick = (0..count)
            .map(|k| usize::try_from(first.checked_add(k.checked_mul(step)?)?).ok())
            .collect::<Option<Vec<usize>>>()?;
        *picks.get_mut(axis)? = pick;
    }
    rearrange::select(v, &picks)
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{self, ints_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    fn seq() -> Dim {
        Dim::sym("seq")
    }
    fn k(v: i64) -> Dim {
        Dim::known(v)
    }
    fn vector(values: &[Dim]) -> Option<testing::Fact> {
        testing::ints(ValueTensor::vector(values.to_vec()).unwrap())
    }

    #[test]
    fn end_from_a_shape_value_is_a_min() {
        // `pos_embedding[:seq]` on a 512-row table: min(seq, 512) rows.
        let table = Shape::Ranked(vec![k(512), k(768)]);
        let out = testing::run(
            "Slice",
            13,
            &[
                testing::shape(table),
                vector(&[k(0)]),
                vector(&[seq()]),
                vector(&[k(0)]),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![seq().min(&k(512)), k(768)])
        );
    }

    #[test]
    fn slicing_a_shape_value() {
        let dims = [Dim::sym("b"), seq(), k(768)];
        let out = testing::run(
            "Slice",
            13,
            &[vector(&dims), vector(&[k(0)]), vector(&[k(2)])],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].value.as_ref().unwrap().data,
            vec![Dim::sym("b"), seq()]
        );
        let out = testing::run(
            "Slice",
            13,
            &[
                vector(&dims),
                vector(&[k(-1)]),
                vector(&[k(i64::MIN)]),
                vector(&[k(0)]),
                vector(&[k(-1)]),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].value.as_ref().unwrap().data,
            vec![k(768), seq(), Dim::sym("b")]
        );
    }

    #[test]
    fn attribute_form_before_opset_10() {
        let x = Shape::Ranked(vec![Dim::sym("n"), k(10)]);
        let out = testing::run(
            "Slice",
            9,
            &[testing::shape(x.clone())],
            vec![
                ints_attr("starts", &[1]),
                ints_attr("ends", &[-1]),
                ints_attr("axes", &[1]),
            ],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), k(8)])
        );
        let missing = testing::run(
            "Slice",
            9,
            &[testing::shape(x)],
            vec![ints_attr("starts", &[1])],
        );
        assert!(missing.is_err());
    }

    #[test]
    fn unknown_bounds_only_lose_the_sliced_axes() {
        let x = Shape::Ranked(vec![Dim::sym("b"), seq(), k(768)]);
        let starts = testing::shape(Shape::from_known(&[1]));
        let out = testing::run(
            "Slice",
            13,
            &[testing::shape(x), starts.clone(), starts, vector(&[k(-2)])],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("b"), Dim::Unknown, k(768)])
        );
    }

    #[test]
    fn bad_steps_and_axes_are_errors() {
        let x = testing::shape(Shape::from_known(&[4, 4]));
        let zero_step = testing::run(
            "Slice",
            13,
            &[
                x.clone(),
                vector(&[k(0)]),
                vector(&[k(2)]),
                vector(&[k(0)]),
                vector(&[k(0)]),
            ],
            vec![],
        );
        assert!(zero_step.is_err());
        let repeated = testing::run(
            "Slice",
            13,
            &[
                x,
                vector(&[k(0), k(0)]),
                vector(&[k(2), k(2)]),
                vector(&[k(1), k(-1)]),
            ],
            vec![],
        );
        assert!(repeated.is_err());
    }
}
