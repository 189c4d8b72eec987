//! Ops whose output sizes come from the data or from a value input: `Compress`, `NonZero` and
//! `Unique` (data-dependent counts get a fresh symbol, so later uses of the same output still
//! compare equal) and `OneHot` (`depth`), where an unknown value is an unknown dim. `TopK` is
//! in `math/top_k.rs`.

use crate::model::dtype::elem;
use crate::ops::axes::{self, count};
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `Compress(input, condition, axis)`: the kept count depends on the data: a fresh symbol, at
/// most the condition's length (one true entry per kept slice) and the size of what is
/// selected from (the axis, or every element when the input is flattened).
pub(crate) fn compress(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let condition = ctx.required(1)?;
    let axis = ctx.attrs().int("axis")?;
    // A fully known condition fixes the count; otherwise it depends on the data.
    let kept = match condition.value.and_then(axes::known_ints) {
        Some(flags) => count(flags.iter().filter(|&&f| f != 0).count()),
        None => ctx.fresh_dim(
            "Compress",
            compress_bounds(input.shape, condition.shape, axis),
        ),
    };
    let shape = match (axis, input.shape.dims()) {
        (None, _) => Shape::Ranked(vec![kept]),
        (Some(axis), Some(dims)) => {
            let axis = axes::require(axis, dims.len(), "Compress axis")?;
            let mut dims = dims.to_vec();
            if let Some(slot) = dims.get_mut(axis) {
                *slot = kept;
            }
            Shape::Ranked(dims)
        }
        (Some(_), None) => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(input.elem)))
}

/// What `Compress` keeps is at most the condition's length and the size selected from.
fn compress_bounds(input: &Shape, condition: &Shape, axis: Option<i64>) -> Vec<Dim> {
    let mut at_most = Vec::new();
    if let Some([length]) = condition.dims() {
        at_most.push(length.clone());
    }
    if let Some(dims) = input.dims() {
        at_most.push(match axis {
            None => axes::product(dims),
            Some(axis) => axes::normalise(axis, dims.len())
                .and_then(|a| dims.get(a).cloned())
                .unwrap_or(Dim::Unknown),
        });
    }
    at_most
}

/// `NonZero(x)`: `[rank(x), n]` with `n` the data-dependent count, at most the number of
/// elements of `x`.
pub(crate) fn non_zero(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let rank = input.shape.rank().map_or(Dim::Unknown, count);
    let at_most = input.shape.dims().map(axes::product).into_iter().collect();
    let n = ctx.fresh_dim("NonZero", at_most);
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(vec![rank, n])).elem(Some(elem::INT64)),
    ))
}

/// `Unique(x, axis)`: outputs sized by the data-dependent number of unique entries (at most the
/// number of elements, or of slices along `axis`).
pub(crate) fn unique(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let axis = ctx.attrs().int("axis")?;
    let at_most = match (axis, input.shape.dims()) {
        (None, Some(dims)) => vec![axes::product(dims)],
        (Some(axis), Some(dims)) => axes::normalise(axis, dims.len())
            .and_then(|a| dims.get(a).cloned())
            .into_iter()
            .collect(),
        (_, None) => Vec::new(),
    };
    let n = ctx.fresh_dim("Unique", at_most);
    let values = match (axis, input.shape.dims()) {
        (None, _) => Shape::Ranked(vec![n.clone()]),
        (Some(axis), Some(dims)) => {
            let axis = axes::require(axis, dims.len(), "Unique axis")?;
            let mut dims = dims.to_vec();
            if let Some(slot) = dims.get_mut(axis) {
                *slot = n.clone();
            }
            Shape::Ranked(dims)
        }
        (Some(_), None) => Shape::Unranked,
    };
    let inverse = match (ctx.attrs().int("axis")?, input.shape.dims()) {
        (None, Some(dims)) => Shape::Ranked(vec![axes::product(dims)]),
        (Some(axis), Some(dims)) => Shape::Ranked(vec![axes::normalise(axis, dims.len())
            .and_then(|a| dims.get(a).cloned())
            .unwrap_or(Dim::Unknown)]),
        _ => Shape::Ranked(vec![Dim::Unknown]),
    };
    let int64 = Some(elem::INT64);
    Ok(Inferred::many(vec![
        Output::shape(values).elem(input.elem),
        Output::shape(Shape::Ranked(vec![n.clone()])).elem(int64),
        Output::shape(inverse).elem(int64),
        Output::shape(Shape::Ranked(vec![n])).elem(int64),
    ]))
}

/// `OneHot(indices, depth, values, axis)`: a new axis of size `depth` inserted at `axis`.
pub(crate) fn one_hot(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let indices = ctx.required(0)?;
    let depth = ctx
        .required(1)?
        .value
        .and_then(|v| v.data.first().cloned())
        .unwrap_or(Dim::Unknown);
    // onnxruntime fails on a depth of 0 too ("Depth is negative."); the output axis must have
    // room for the indices' one-hot position.
    if let Some(d) = depth.as_known().filter(|&d| d < 1) {
        return Err(Constraint::new(
            "OneHot's depth must be at least 1",
            format!("depth is {d}"),
            &[1],
        )
        .unmet());
    }
    let elem_type = ctx.input(2).and_then(|v| v.elem);
    let shape = match indices.shape.dims() {
        Some(dims) => {
            let given = ctx.int("axis", -1)?;
            let rank = dims.len();
            let axis = axes::normalise(given, rank.saturating_add(1)).ok_or_else(|| {
                Constraint::new(
                    "OneHot's axis must be in [-r-1, r] for indices of rank r",
                    format!("axis is {given}, the indices have rank {rank}"),
                    &[0],
                )
                .unmet()
            })?;
            let mut dims = dims.to_vec();
            dims.insert(axis.min(dims.len()), depth);
            Shape::Ranked(dims)
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(elem_type)))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{self, int_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    #[test]
    fn non_zero_gets_a_fresh_symbol() {
        let x = Shape::from_known(&[3, 4]);
        let out = testing::run("NonZero", 13, &[testing::shape(x)], vec![]).unwrap();
        let dims = out.outputs[0].shape.dims().unwrap().to_vec();
        assert_eq!(dims[0], Dim::known(2));
        assert!(matches!(dims[1], Dim::Sym(_)));
    }

    #[test]
    fn compress_counts_a_known_condition() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(4)]);
        let flags = ValueTensor::vector(vec![Dim::known(1), Dim::known(0), Dim::known(1)]).unwrap();
        let out = testing::run(
            "Compress",
            11,
            &[testing::shape(x.clone()), testing::ints(flags)],
            vec![int_attr("axis", 1)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(2)])
        );
        let unknown = testing::shape(Shape::from_known(&[4]));
        let out = testing::run("Compress", 11, &[testing::shape(x), unknown], vec![]).unwrap();
        let dims = out.outputs[0].shape.dims().unwrap().to_vec();
        assert!(matches!(dims.as_slice(), [Dim::Sym(_)]));
    }

    #[test]
    fn top_k_from_input_attribute_or_unknown() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(100)]);
        let k = ValueTensor::vector(vec![Dim::known(5)]).unwrap();
        let out = testing::run(
            "TopK",
            11,
            &[testing::shape(x.clone()), testing::ints(k)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[1].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(5)])
        );
        let out = testing::run(
            "TopK",
            1,
            &[testing::shape(x.clone())],
            vec![int_attr("k", 3)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(3)])
        );
        let unknown_k = testing::shape(Shape::from_known(&[1]));
        let out = testing::run("TopK", 11, &[testing::shape(x), unknown_k], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::Unknown])
        );
    }

    #[test]
    fn one_hot_inserts_depth_at_axis() {
        let ids = Shape::Ranked(vec![Dim::sym("n"), Dim::known(3)]);
        let depth = ValueTensor::new(vec![], vec![Dim::known(10)]).unwrap();
        let out = testing::run(
            "OneHot",
            11,
            &[
                testing::shape(ids),
                testing::ints(depth),
                testing::shape(Shape::from_known(&[2])),
            ],
            vec![int_attr("axis", 1)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(10), Dim::known(3)])
        );
    }

    #[test]
    fn unique_outputs_share_one_fresh_count() {
        let x = Shape::from_known(&[6]);
        let out = testing::run_in("", "Unique", 11, &[testing::shape(x)], vec![], 4).unwrap();
        let count = out.outputs[0].shape.clone();
        assert!(matches!(count.dims().unwrap(), [Dim::Sym(_)]));
        assert_eq!(out.outputs[1].shape, count);
        assert_eq!(out.outputs[2].shape, Shape::from_known(&[6]));
    }

    #[test]
    fn top_k_must_fit_the_axis() {
        let k = |v| testing::ints(ValueTensor::vector(vec![Dim::known(v)]).unwrap());
        let run = |v| testing::run("TopK", 11, &[testing::dims(&["4", "5"]), k(v)], vec![]);
        assert!(unmet(&run(6)));
        assert!(unmet(&run(-1)));
        assert_eq!(shape(&run(5)), "[4, 5]");
        let sym = testing::run("TopK", 11, &[testing::dims(&["4", "n"]), k(6)], vec![]);
        assert_eq!(shape(&sym), "[4, 6]");
        let one = testing::run(
            "TopK",
            1,
            &[testing::dims(&["4", "5"])],
            vec![int_attr("k", 6)],
        );
        assert!(unmet(&one));
        assert!(unmet(&testing::run(
            "TopK",
            1,
            &[testing::dims(&["4", "5"])],
            vec![]
        )));
    }

    #[test]
    fn one_hot_depth_and_axis() {
        let depth = |v| testing::ints(ValueTensor::vector(vec![Dim::known(v)]).unwrap());
        let values = || testing::dims(&["2"]);
        let run = |d, axis| {
            testing::run(
                "OneHot",
                11,
                &[testing::dims(&["3"]), depth(d), values()],
                vec![int_attr("axis", axis)],
            )
        };
        assert!(unmet(&run(0, -1)));
        assert!(unmet(&run(4, 2)));
        assert!(unmet(&run(4, -3)));
        assert_eq!(shape(&run(4, 1)), "[3, 4]");
        assert_eq!(shape(&run(4, -2)), "[4, 3]");
    }
}
