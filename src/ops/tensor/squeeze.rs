//! `Squeeze` and `Unsqueeze` (axes as an attribute before opset 13, as an input from 13), which
//! shape computations use to turn scalars into 1-D values and back: small values pass through.

use crate::ops::axes::{self, unknown_dims};
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::tensor::reshape::reshaped;
use crate::ops::{spec, Ctx, Inferred, RuleError};
use crate::shape::{Dim, Shape, Tri};

/// Where a version reads `axes`: Squeeze/Unsqueeze-1 and -11 from the attribute, -13 on from the
/// optional (Squeeze) or required (Unsqueeze) input 1.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AxesFrom {
    Attribute,
    Input,
}

/// Squeeze-1 and -11.
pub(crate) fn squeeze_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    squeeze(ctx, AxesFrom::Attribute)
}

/// Squeeze-13 and later.
pub(crate) fn squeeze_13(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    squeeze(ctx, AxesFrom::Input)
}

/// Unsqueeze-1 and -11.
pub(crate) fn unsqueeze_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    unsqueeze(ctx, AxesFrom::Attribute)
}

/// Unsqueeze-13 and later.
pub(crate) fn unsqueeze_13(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    unsqueeze(ctx, AxesFrom::Input)
}

/// The `axes` of Squeeze/Unsqueeze: attribute before opset 13, optional input from 13.
enum AxesArg {
    /// No axes given.
    Absent,
    /// Static axes.
    Static(Vec<i64>),
    /// An axes input whose values are not known; its length may be.
    Dynamic(Option<usize>),
}

fn squeeze_axes(ctx: &Ctx<'_>, from: AxesFrom) -> Result<AxesArg, RuleError> {
    if from == AxesFrom::Attribute {
        return Ok(ctx
            .attrs()
            .ints("axes")?
            .map_or(AxesArg::Absent, |list| AxesArg::Static(list.to_vec())));
    }
    Ok(match ctx.input(1) {
        None => AxesArg::Absent,
        Some(input) => match input.value.and_then(axes::known_ints) {
            Some(list) => AxesArg::Static(list),
            None => AxesArg::Dynamic(input.shape.dims().and_then(|d| match d {
                [n] => n.as_known().and_then(|n| usize::try_from(n).ok()),
                _ => None,
            })),
        },
    })
}

/// `Squeeze`: removes the listed axes (which must be 1), or without axes every dim that is 1,
/// only computable when each dim is known to be 1 or not (a symbol might be 1: unknown rank).
/// Axes whose values are unknown still fix the rank when their count is known.
fn squeeze(ctx: &Ctx<'_>, from: AxesFrom) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let Some(dims) = input.shape.dims() else {
        return Ok(Inferred::single(reshaped(ctx, Shape::Unranked)));
    };
    let removed: Vec<usize> = match squeeze_axes(ctx, from)? {
        AxesArg::Static(list) => list
            .iter()
            .map(|&a| axes::require(a, dims.len(), "Squeeze axis"))
            .collect::<Result<_, _>>()?,
        AxesArg::Absent => {
            let mut ones = Vec::new();
            for (i, d) in dims.iter().enumerate() {
                match d.is_one() {
                    Tri::Yes => ones.push(i),
                    Tri::No => {}
                    Tri::Unknown => return Ok(Inferred::single(reshaped(ctx, Shape::Unranked))),
                }
            }
            ones
        }
        AxesArg::Dynamic(count) => {
            let rank = count.and_then(|n| dims.len().checked_sub(n));
            return Ok(Inferred::single(reshaped(
                ctx,
                rank.map_or(Shape::Unranked, unknown_dims),
            )));
        }
    };
    // "If an axis is selected with shape entry not equal to one, an error is raised."
    let mut pending = Pending::default();
    for &at in &removed {
        let Some(d) = dims.get(at) else { continue };
        pending.equal(d, &Dim::known(1), || {
            Constraint::new(
                "Squeeze may only remove dims of size 1 (Squeeze doc)",
                format!("axis {at} has size {d}"),
                &[0],
            )
            .fix("remove that axis from `axes`, or Reshape instead")
        })?;
    }
    let kept = dims
        .iter()
        .enumerate()
        .filter(|(i, _)| !removed.contains(i))
        .map(|(_, d)| d.clone())
        .collect();
    Ok(Inferred::single(reshaped(ctx, Shape::Ranked(kept))).with_conditions(pending.into_checks()))
}

/// `Unsqueeze`: inserts 1s at the listed axes, counted in the output's rank.
fn unsqueeze(ctx: &Ctx<'_>, from: AxesFrom) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let list = match squeeze_axes(ctx, from)? {
        AxesArg::Static(list) => list,
        // Required: the attribute before opset 13, input 1 from 13.
        AxesArg::Absent if from == AxesFrom::Attribute => {
            return Err(spec::missing_attr("Unsqueeze-1/11", "axes"))
        }
        AxesArg::Absent => return Err(RuleError::MissingInput(1)),
        AxesArg::Dynamic(count) => {
            let rank = input.shape.rank().zip(count).map(|(r, n)| r + n);
            return Ok(Inferred::single(reshaped(
                ctx,
                rank.map_or(Shape::Unranked, unknown_dims),
            )));
        }
    };
    let Some(dims) = input.shape.dims() else {
        return Ok(Inferred::single(reshaped(ctx, Shape::Unranked)));
    };
    let rank = dims.len() + list.len();
    let mut inserted: Vec<usize> = list
        .iter()
        .map(|&a| {
            axes::normalise(a, rank).ok_or_else(|| {
                Constraint::new(
                    "Unsqueeze axes must be in [-r, r-1] for the output's rank r (the input's \
                     rank plus the number of axes)",
                    format!("axis {a}, output rank {rank}"),
                    &[0],
                )
                .fix(format!("use axes in [-{rank}, {}]", rank.saturating_sub(1)))
                .unmet()
            })
        })
        .collect::<Result<_, _>>()?;
    if let Some(axis) = spec::repeated(&inserted) {
        return Err(spec::repeated_axis("Unsqueeze", "axes", axis, 1));
    }
    inserted.sort_unstable();
    let mut source = dims.iter();
    let out = (0..rank)
        .map(|i| {
            if inserted.contains(&i) {
                Dim::known(1)
            } else {
                source.next().cloned().unwrap_or(Dim::Unknown)
            }
        })
        .collect();
    Ok(Inferred::single(reshaped(ctx, Shape::Ranked(out))))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{self, ints_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    fn b() -> Dim {
        Dim::sym("batch")
    }
    fn s() -> Dim {
        Dim::sym("seq")
    }

    #[test]
    fn squeeze_without_axes_needs_to_know_the_ones() {
        let plus2 = b().add(&Dim::known(2));
        let known = Shape::Ranked(vec![Dim::known(1), plus2.clone(), Dim::known(1)]);
        let out = testing::run("Squeeze", 13, &[testing::shape(known)], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Ranked(vec![plus2]));
        // `batch` may be 1 at run time, and then it would be squeezed too.
        let symbolic = Shape::Ranked(vec![Dim::known(1), b()]);
        let out = testing::run("Squeeze", 13, &[testing::shape(symbolic)], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Unranked);
        let maybe = Shape::Ranked(vec![Dim::known(1), Dim::Unknown]);
        let out = testing::run("Squeeze", 13, &[testing::shape(maybe)], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Unranked);
    }

    #[test]
    fn squeeze_attribute_form_and_a_non_one_axis() {
        let x = Shape::Ranked(vec![b(), Dim::known(1), Dim::known(3)]);
        let out = testing::run(
            "Squeeze",
            11,
            &[testing::shape(x.clone())],
            vec![ints_attr("axes", &[-2])],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::known(3)])
        );
        let bad = testing::run(
            "Squeeze",
            11,
            &[testing::shape(x)],
            vec![ints_attr("axes", &[2])],
        );
        assert!(bad.is_err());
    }

    #[test]
    fn dynamic_axes_still_fix_the_rank() {
        let x = Shape::Ranked(vec![b(), Dim::known(1), Dim::known(1)]);
        let axes = testing::shape(Shape::from_known(&[2]));
        let out = testing::run(
            "Squeeze",
            13,
            &[testing::shape(x.clone()), axes.clone()],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Ranked(vec![Dim::Unknown]));
        let out = testing::run("Unsqueeze", 13, &[testing::shape(x), axes], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape.rank(), Some(5));
    }

    #[test]
    fn unsqueeze_attribute_and_input_forms() {
        let x = Shape::Ranked(vec![b(), s()]);
        let old = testing::run(
            "Unsqueeze",
            11,
            &[testing::shape(x.clone())],
            vec![ints_attr("axes", &[0, -1])],
        )
        .unwrap();
        let expected = Shape::Ranked(vec![Dim::known(1), b(), s(), Dim::known(1)]);
        assert_eq!(old.outputs[0].shape, expected);
        let axes = ValueTensor::vector(vec![Dim::known(0), Dim::known(3)]).unwrap();
        let new = testing::run(
            "Unsqueeze",
            13,
            &[testing::shape(x), testing::ints(axes)],
            vec![],
        )
        .unwrap();
        assert_eq!(new.outputs[0].shape, expected);
    }

    #[test]
    fn unsqueezed_scalars_keep_their_value() {
        let scalar = ValueTensor::new(vec![], vec![s()]).unwrap();
        let axes = ValueTensor::vector(vec![Dim::known(0)]).unwrap();
        let out = testing::run(
            "Unsqueeze",
            13,
            &[testing::ints(scalar), testing::ints(axes)],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].value.as_ref().unwrap().data, vec![s()]);
    }

    #[test]
    fn squeezed_dims_must_be_one() {
        let axes = |a: &[i64]| {
            testing::ints(ValueTensor::vector(a.iter().copied().map(Dim::known).collect()).unwrap())
        };
        let r = testing::run(
            "Squeeze",
            13,
            &[testing::dims(&["2", "3"]), axes(&[0])],
            vec![],
        );
        assert!(unmet(&r));
        let r = testing::run(
            "Squeeze",
            13,
            &[testing::dims(&["n", "3"]), axes(&[0])],
            vec![],
        );
        assert_eq!(conditions(&r), ["n = 1"]);
        assert_eq!(shape(&r), "[3]");
        // A repeated Squeeze axis runs in onnxruntime.
        let r = testing::run(
            "Squeeze",
            13,
            &[testing::dims(&["1", "3"]), axes(&[0, 0])],
            vec![],
        );
        assert_eq!(shape(&r), "[3]");
        let r = testing::run(
            "Squeeze",
            11,
            &[testing::dims(&["2", "3"])],
            vec![ints_attr("axes", &[0])],
        );
        assert!(unmet(&r));
    }

    #[test]
    fn unsqueeze_axes_required_in_range_and_once() {
        let axes = |a: &[i64]| {
            testing::ints(ValueTensor::vector(a.iter().copied().map(Dim::known).collect()).unwrap())
        };
        let x = || testing::dims(&["3"]);
        assert!(unmet(&testing::run(
            "Unsqueeze",
            13,
            &[x(), axes(&[0, 0])],
            vec![]
        )));
        assert!(unmet(&testing::run(
            "Unsqueeze",
            13,
            &[x(), axes(&[2])],
            vec![]
        )));
        assert_eq!(
            shape(&testing::run("Unsqueeze", 13, &[x(), axes(&[-1])], vec![])),
            "[3, 1]"
        );
        assert!(unmet(&testing::run("Unsqueeze", 11, &[x()], vec![])));
        assert!(matches!(
            testing::run("Unsqueeze", 13, &[x()], vec![]),
            Err(crate::ops::RuleError::MissingInput(1))
        ));
        // Unsqueeze-1 documents non-negative axes, but onnxruntime accepts -1.
        let r = testing::run("Unsqueeze", 1, &[x()], vec![ints_attr("axes", &[-1])]);
        assert_eq!(shape(&r), "[3, 1]");
    }
}
