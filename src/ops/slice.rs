//! `Slice` (attributes before opset 10, inputs from 10; negative, clamped and out-of-range bounds;
//! positive and negative steps, as numpy) and `Split` (attribute, input and `num_outputs` forms).

use super::axes::{self, unknown_dims};
use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// The rule for `op_type`, if this family has it.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Slice" => slice,
        "Split" => split,
        _ => return None,
    })
}

/// Length of `x[start:end:step]` for a static length (ONNX Slice clamping, numpy semantics).
fn static_slice(len: i64, start: i64, end: i64, step: i64) -> Option<(i64, i64)> {
    if step == 0 {
        return None;
    }
    let norm = |v: i64| if v < 0 { v.saturating_add(len) } else { v };
    let (start, end) = (norm(start), norm(end));
    let (start, end) = if step > 0 {
        (start.clamp(0, len), end.clamp(0, len))
    } else {
        (start.clamp(0, len - 1), end.clamp(-1, len - 1))
    };
    let span = if step > 0 { end - start } else { start - end };
    let step_abs = step.checked_abs()?;
    let count = if span <= 0 {
        0
    } else {
        (span + step_abs - 1) / step_abs
    };
    Some((start, count))
}

/// Length of a slice of a symbolic dim: only the shapes that are right for every size. `[k:]`
/// with `dim - k` provably non-negative gives `dim - k`; the whole range gives `dim`.
fn symbolic_slice(dim: &Dim, start: i64, end: i64, step: i64) -> Dim {
    let whole_end = end >= i64::from(i32::MAX);
    match (start, step) {
        (0, 1) if whole_end => dim.clone(),
        (k, 1) if k > 0 && whole_end => {
            let rest = dim.sub(&Dim::known(k));
            match &rest {
                Dim::Sym(e) if e.lower_bound().is_some_and(|b| b >= 0) => rest,
                _ => Dim::Unknown,
            }
        }
        _ => Dim::Unknown,
    }
}

/// Length of `x[start:end]` (step 1) when a bound is symbolic: both bounds must be provably
/// non-negative; ONNX clamps them to the dim, so the length is `min(end, d) - min(start, d)`,
/// kept only when provably non-negative.
fn symbolic_bounds(dim: &Dim, start: &Dim, end: &Dim) -> Dim {
    let non_negative = |d: &Dim| match d {
        Dim::Known(v) => *v >= 0,
        Dim::Sym(e) => e.lower_bound().is_some_and(|b| b >= 0),
        Dim::Unknown => false,
    };
    if !non_negative(start) || !non_negative(end) {
        return Dim::Unknown;
    }
    let clamp = |bound: &Dim| match bound.as_known() {
        Some(v) if v >= i64::from(i32::MAX) => dim.clone(),
        Some(0) => Dim::known(0),
        _ if bound.eq_dim(dim) == crate::shape::Tri::Yes => dim.clone(),
        _ => dim.min(bound),
    };
    let length = clamp(end).sub(&clamp(start));
    if non_negative(&length) {
        length
    } else {
        Dim::Unknown
    }
}

/// Slice bounds: attributes before opset 10, input values from 10. They may be symbolic
/// (`ends = Unsqueeze(seq)` slicing position embeddings).
fn bounds(ctx: &Ctx<'_>, name: &str, slot: usize) -> Result<Option<Vec<Dim>>, RuleError> {
    if ctx.opset() < 10 {
        Ok(ctx
            .attrs()
            .ints(name)?
            .map(|list| list.iter().copied().map(Dim::known).collect()))
    } else {
        Ok(ctx
            .input(slot)
            .and_then(|i| i.value)
            .map(|v| v.data.clone()))
    }
}

/// `Slice`.
fn slice(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let Some(dims) = data.shape.dims() else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(data.elem),
        ));
    };
    let (Some(starts), Some(ends)) = (bounds(ctx, "starts", 1)?, bounds(ctx, "ends", 2)?) else {
        return Ok(Inferred::single(
            Output::shape(unknown_dims(dims.len())).elem(data.elem),
        ));
    };
    let given_axes = if ctx.opset() < 10 {
        ctx.attrs().ints("axes")?.map(<[i64]>::to_vec)
    } else {
        axes::input_ints(ctx.input(3))
    };
    if ctx.opset() >= 10 && ctx.input(3).is_some() && given_axes.is_none() {
        return Ok(Inferred::single(
            Output::shape(unknown_dims(dims.len())).elem(data.elem),
        ));
    }
    let slice_axes = given_axes.unwrap_or_else(|| {
        (0..starts.len())
            .filter_map(|a| i64::try_from(a).ok())
            .collect()
    });
    let steps = if ctx.opset() >= 10 && ctx.input(4).is_some() {
        match axes::input_ints(ctx.input(4)) {
            Some(steps) => steps,
            None => {
                return Ok(Inferred::single(
                    Output::shape(unknown_dims(dims.len())).elem(data.elem),
                ))
            }
        }
    } else {
        vec![1; starts.len()]
    };
    if starts.len() != ends.len() || slice_axes.len() != starts.len() || steps.len() != starts.len()
    {
        return Err(RuleError::Invalid(
            "Slice starts, ends, axes and steps differ in length".into(),
        ));
    }
    let mut out = dims.to_vec();
    let mut value_range = None;
    for (((&axis, start), end), &step) in slice_axes.iter().zip(&starts).zip(&ends).zip(&steps) {
        let axis = axes::require(axis, dims.len(), "Slice axis")?;
        if step == 0 {
            return Err(RuleError::Invalid("Slice step is 0".into()));
        }
        let Some(slot) = out.get_mut(axis) else {
            continue;
        };
        let (Some(start), Some(end)) = (start.as_known(), end.as_known()) else {
            *slot = if step == 1 {
                symbolic_bounds(slot, start, end)
            } else {
                Dim::Unknown
            };
            continue;
        };
        *slot = match slot.as_known() {
            Some(len) => match static_slice(len, start, end, step) {
                Some((first, count)) => {
                    if dims.len() == 1 {
                        value_range = Some((first, count, step));
                    }
                    Dim::known(count)
                }
                None => Dim::Unknown,
            },
            None => symbolic_slice(slot, start, end, step),
        };
    }
    // Slicing a small 1-D value (a `Shape` output) slices its elements.
    let value = match (data.value, value_range) {
        (Some(v), Some((first, count, step))) if v.shape.len() == 1 => (0..count)
            .map(|k| {
                let index = first.checked_add(k.checked_mul(step)?)?;
                v.data.get(usize::try_from(index).ok()?).cloned()
            })
            .collect::<Option<Vec<Dim>>>()
            .and_then(ValueTensor::vector),
        _ => None,
    };
    Ok(Inferred::single(match value {
        Some(value) => Output::value(value, data.elem),
        None => Output::shape(Shape::Ranked(out)).elem(data.elem),
    }))
}

/// `Split`: sizes from the `split` attribute (before opset 13) or input (from 13), else equal
/// parts (`num_outputs` from opset 18, else the number of outputs); equal parts of a symbolic
/// dim only when the division is exact.
fn split(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let outputs = ctx.node().outputs.len();
    let Some(dims) = data.shape.dims() else {
        return Ok(Inferred::many(vec![
            Output::shape(Shape::Unranked)
                .elem(data.elem);
            outputs
        ]));
    };
    let axis = axes::require(ctx.int("axis", 0)?, dims.len(), "Split axis")?;
    let sizes: Option<Vec<Dim>> = if ctx.opset() < 13 {
        ctx.attrs()
            .ints("split")?
            .map(|s| s.iter().copied().map(Dim::known).collect())
    } else {
        ctx.input(1).and_then(|i| i.value).map(|v| v.data.clone())
    };
    let whole = dims.get(axis).cloned().unwrap_or(Dim::Unknown);
    let sizes = match sizes {
        Some(sizes) => sizes,
        None if ctx.opset() >= 13 && ctx.input(1).is_some() => vec![Dim::Unknown; outputs],
        None => {
            let parts = i64::try_from(outputs).unwrap_or(1).max(1);
            let exact = whole.div_exact(&Dim::known(parts));
            match (&exact, whole.as_known()) {
                (Dim::Unknown, Some(total)) if ctx.opset() >= 18 => {
                    // opset 18: the last chunk is smaller when the size does not divide.
                    let chunk = (total + parts - 1) / parts;
                    (0..parts)
                        .map(|k| Dim::known((total - k * chunk).clamp(0, chunk)))
                        .collect()
                }
                _ => vec![exact; outputs],
            }
        }
    };
    let shapes = sizes
        .into_iter()
        .map(|size| {
            let mut out = dims.to_vec();
            if let Some(slot) = out.get_mut(axis) {
                *slot = size;
            }
            Output::shape(Shape::Ranked(out)).elem(data.elem)
        })
        .collect();
    Ok(Inferred::many(shapes))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{self, ints_attr};
    use super::static_slice;
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    #[test]
    fn numpy_clamping_and_negative_steps() {
        assert_eq!(static_slice(10, 2, 5, 1), Some((2, 3)));
        assert_eq!(static_slice(10, -3, i64::MAX, 1), Some((7, 3)));
        assert_eq!(static_slice(10, 0, 100, 3), Some((0, 4)));
        assert_eq!(static_slice(10, 8, 2, 1), Some((8, 0)));
        assert_eq!(static_slice(10, -1, i64::MIN, -1), Some((9, 10)));
        assert_eq!(static_slice(10, 5, 1, -2), Some((5, 2)));
        assert_eq!(static_slice(4, 0, 4, 0), None);
    }

    #[test]
    fn slicing_a_shape_value() {
        let dims =
            ValueTensor::vector(vec![Dim::sym("b"), Dim::sym("s"), Dim::known(768)]).unwrap();
        let v = |x: i64| testing::ints(ValueTensor::vector(vec![Dim::known(x)]).unwrap());
        let out = testing::run("Slice", 13, &[testing::ints(dims), v(0), v(2)], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].value.as_ref().unwrap().data,
            vec![Dim::sym("b"), Dim::sym("s")]
        );
    }

    #[test]
    fn symbolic_end_clamps_to_the_dim() {
        let table = Shape::from_known(&[1, 64]);
        let v = |d: Dim| testing::ints(ValueTensor::vector(vec![d]).unwrap());
        let out = testing::run(
            "Slice",
            13,
            &[
                testing::shape(table),
                v(Dim::known(0)),
                v(Dim::sym("seq")),
                v(Dim::known(1)),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::known(1), Dim::sym("seq").min(&Dim::known(64))])
        );
        let x = Shape::Ranked(vec![Dim::sym("seq")]);
        let out = testing::run(
            "Slice",
            13,
            &[testing::shape(x), v(Dim::known(0)), v(Dim::sym("seq"))],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Ranked(vec![Dim::sym("seq")]));
    }

    #[test]
    fn attribute_form_before_opset_10() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(10)]);
        let out = testing::run(
            "Slice",
            9,
            &[testing::shape(x)],
            vec![
                ints_attr("starts", &[1]),
                ints_attr("ends", &[-1]),
                ints_attr("axes", &[1]),
            ],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(8)])
        );
    }

    #[test]
    fn split_equal_and_explicit() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(12)]);
        let out = testing::run_in(
            "",
            "Split",
            13,
            &[testing::shape(x.clone()), None],
            vec![testing::int_attr("axis", 1)],
            3,
        )
        .unwrap();
        assert_eq!(
            out.outputs[2].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(4)])
        );
        let sizes = ValueTensor::vector(vec![Dim::known(2), Dim::known(10)]).unwrap();
        let out = testing::run_in(
            "",
            "Split",
            13,
            &[testing::shape(x), testing::ints(sizes)],
            vec![testing::int_attr("axis", 1)],
            2,
        )
        .unwrap();
        assert_eq!(
            out.outputs[1].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(10)])
        );
    }
}
