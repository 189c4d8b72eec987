//! `Pad`: each padded axis grows by `begin + end` (negative pads crop). `pads` is the `paddings`
//! attribute in Pad-1, the `pads` attribute in Pad-2, an input from Pad-11; Pad-18 adds `axes`.
//! The mode does not change the shape.

use crate::ops::axes::{self, unknown_dims};
use crate::ops::constraint::Constraint;
use crate::ops::overflow::sized;
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `Pad(data, pads)`: `pads` (attribute before opset 11, input from 11) adds `begin + end` to each
/// padded axis; opset 18 `axes` restricts which axes the pads apply to.
fn pad(ctx: &Ctx<'_>, version: i64) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let Some(dims) = data.shape.dims() else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(data.elem),
        ));
    };
    // Pad-1 calls the attribute `paddings`; Pad-2 renames it `pads`; Pad-11 makes it an input.
    let (pads, count): (Option<Vec<Dim>>, Option<usize>) = if version < 11 {
        let name = if version < 2 { "paddings" } else { "pads" };
        let Some(list) = ctx.attrs().ints(name)? else {
            return Err(spec::missing_attr(&format!("Pad-{}", version.min(2)), name));
        };
        (
            Some(list.iter().copied().map(Dim::known).collect()),
            Some(list.len()),
        )
    } else {
        let input = ctx.required(1)?;
        (
            input.value.map(|v| v.data.clone()),
            spec::list_len(Some(input)),
        )
    };
    let axes: Vec<usize> = match axes::input_ints(ctx.input(3)) {
        Some(list) if version >= 18 => list
            .iter()
            .map(|&a| axes::require(a, dims.len(), "Pad axis"))
            .collect::<Result<_, _>>()?,
        _ if version >= 18 && ctx.input(3).is_some() => {
            return Ok(Inferred::single(
                Output::shape(unknown_dims(dims.len())).elem(data.elem),
            ))
        }
        _ => (0..dims.len()).collect(),
    };
    let expected = axes.len().saturating_mul(2);
    if let Some(n) = count.filter(|&n| n != expected) {
        let per = if version >= 18 && ctx.input(3).is_some() {
            "axis listed in `axes`"
        } else {
            "input dimension"
        };
        return Err(spec::wrong_len(
            format!("Pad's pads must have two values (begin, end) per {per}"),
            n,
            expected,
            &[0, 1],
        ));
    }
    let Some(pads) = pads.filter(|p| p.len() == expected) else {
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
            let what = format!("Pad's output dim {axis} (size + pads)");
            let checked = sized(&what, &[0, 1]);
            // The pads' total first, as onnx.shape_inference adds them.
            let grown = checked.add(slot, &checked.add(begin, end)?)?;
            if grown.as_known().is_some_and(|v| v < 0) {
                return Err(Constraint::new(
                    "negative pads may crop an axis at most to size 0",
                    format!("axis {axis} of size {slot} padded by {begin} and {end} is {grown}"),
                    &[0, 1],
                )
                .fix("reduce the negative pads on that axis")
                .unmet());
            }
            *slot = grown;
        }
    }
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(out)).elem(data.elem),
    ))
}

/// `Pad-1`: the `paddings` attribute.
pub(crate) fn pad_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    pad(ctx, 1)
}

/// `Pad-2`: the `pads` attribute.
pub(crate) fn pad_2(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    pad(ctx, 2)
}

/// `Pad` 11 and 13: the `pads` input.
pub(crate) fn pad_11(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    pad(ctx, 11)
}

/// `Pad` from opset 18: the `pads` input, restricted to the `axes` input.
pub(crate) fn pad_18(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    pad(ctx, 18)
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing;
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

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

    #[test]
    fn pads_length_is_two_per_padded_axis() {
        let x = || testing::dims(&["2", "3"]);
        let list = |v: &[i64]| {
            testing::ints(ValueTensor::vector(v.iter().copied().map(Dim::known).collect()).unwrap())
        };
        assert!(unmet(&testing::run(
            "Pad",
            13,
            &[x(), list(&[1, 1, 1])],
            vec![]
        )));
        let declared = testing::shape(Shape::from_known(&[3]));
        assert!(unmet(&testing::run("Pad", 13, &[x(), declared], vec![])));
        let pads = vec![testing::ints_attr("pads", &[1, 1, 1])];
        assert!(unmet(&testing::run("Pad", 2, &[x()], pads)));
        assert!(unmet(&testing::run("Pad", 2, &[x()], vec![])));
        // Pad-18: two values per listed axis.
        let with_axes =
            |pads: &[i64]| testing::run("Pad", 18, &[x(), list(pads), None, list(&[1])], vec![]);
        assert!(unmet(&with_axes(&[1, 1, 1, 1])));
        assert_eq!(shape(&with_axes(&[1, 1])), "[2, 5]");
        // Cropping to exactly 0 runs.
        assert_eq!(
            shape(&testing::run(
                "Pad",
                13,
                &[x(), list(&[0, -2, 0, -1])],
                vec![]
            )),
            "[2, 0]"
        );
        assert!(unmet(&testing::run(
            "Pad",
            13,
            &[x(), list(&[0, -2, 0, -2])],
            vec![]
        )));
    }
}
