//! Reductions: `ReduceSum`/`Mean`/`Max`/`Min`/`Prod`/`L1`/`L2`/`LogSum`/`LogSumExp`/`SumSquare`
//! and `ArgMax`/`ArgMin`. Axes come from the `axes` attribute, or from input 1 from opset 13
//! (`ReduceSum`) or 18 (the others); `keepdims` keeps reduced axes as 1; with
//! `noop_with_empty_axes` empty axes mean identity, else every axis.
//!
//! `ReduceSum`, `ReduceProd`, `ReduceMax` and `ReduceMin` over every axis of a small known tensor
//! are folded, so a `Reshape` target computed as a product of dims stays symbolic.

use crate::model::dtype::{self, elem};
use crate::ops::values::float_shape_math;
pub(crate) use crate::ops::values::Reducer;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// Which axes a reduction covers.
enum Axes {
    /// Every axis.
    All,
    /// These axes, normalized to `[0, rank)`.
    Some(Vec<usize>),
    /// Identity (`noop_with_empty_axes` with no axes).
    None,
    /// Given by a tensor whose values are not known.
    Unknown,
}

fn normalize(axis: i64, rank: usize) -> Result<usize, RuleError> {
    crate::ops::axes::require(axis, rank, "axis")
}

/// The raw axes: from the attribute, or from input 1 (`from_input`: `ReduceSum` from opset 13,
/// the others from 18); `None` when input 1's values are unknown.
fn raw_axes(ctx: &Ctx<'_>, from_input: bool) -> Result<Option<Vec<i64>>, RuleError> {
    if !from_input {
        return Ok(Some(ctx.attrs().ints("axes")?.unwrap_or_default().to_vec()));
    }
    let Some(input) = ctx.input(1) else {
        return Ok(Some(Vec::new()));
    };
    if input.shape.as_known().is_some_and(|s| s.contains(&0)) {
        return Ok(Some(Vec::new()));
    }
    Ok(input
        .value
        .and_then(|v| v.data.iter().map(Dim::as_known).collect()))
}

fn axes_of(ctx: &Ctx<'_>, rank: Option<usize>, from_input: bool) -> Result<Axes, RuleError> {
    let noop = ctx.int("noop_with_empty_axes", 0)? != 0;
    match raw_axes(ctx, from_input)? {
        None => Ok(Axes::Unknown),
        Some(raw) if raw.is_empty() => Ok(if noop { Axes::None } else { Axes::All }),
        Some(raw) => match rank {
            Some(rank) => {
                let mut axes = raw
                    .iter()
                    .map(|&a| normalize(a, rank))
                    .collect::<Result<Vec<_>, _>>()?;
                axes.sort_unstable();
                axes.dedup();
                Ok(Axes::Some(axes))
            }
            None => Ok(Axes::Unknown),
        },
    }
}

/// The `Reduce*` rule of the versions whose axes are the `axes` attribute.
pub(crate) fn reduce_axes_attribute(
    ctx: &Ctx<'_>,
    reducer: Reducer,
) -> Result<Inferred, RuleError> {
    reduce(ctx, reducer, false)
}

/// The `Reduce*` rule of the versions whose axes are input 1.
pub(crate) fn reduce_axes_input(ctx: &Ctx<'_>, reducer: Reducer) -> Result<Inferred, RuleError> {
    reduce(ctx, reducer, true)
}

fn reduce(ctx: &Ctx<'_>, reducer: Reducer, from_input: bool) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let keep = ctx.int("keepdims", 1)? != 0;
    let Some(dims) = x.shape.dims() else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(x.elem),
        ));
    };
    let axes = axes_of(ctx, Some(dims.len()), from_input)?;
    let shape = match &axes {
        Axes::None => x.shape.clone(),
        Axes::All => reduced(dims, &(0..dims.len()).collect::<Vec<_>>(), keep),
        Axes::Some(axes) => reduced(dims, axes, keep),
        // Each axis is either kept or set to 1; without keepdims even the rank is unknown.
        Axes::Unknown if keep => Shape::Ranked(vec![Dim::Unknown; dims.len()]),
        Axes::Unknown => Shape::Unranked,
    };
    let every_axis = match &axes {
        Axes::All => true,
        Axes::Some(a) => a.len() == dims.len(),
        Axes::None | Axes::Unknown => false,
    };
    let folded = x
        .value
        .filter(|_| every_axis)
        .and_then(|v| fold_all(reducer, v, &shape));
    let float_folded = || {
        let real = x.real().filter(|_| every_axis)?;
        let width = dtype::width_of(x.elem)?;
        float_shape_math::reduce_all(reducer, real, shape.rank()?, width)
    };
    Ok(Inferred::single(match folded {
        Some(value) => Output::value(value, x.elem),
        None => match float_folded() {
            Some(real) => Output::reals(real, x.elem),
            None => Output::shape(shape).elem(x.elem),
        },
    }))
}

/// `dims` with `axes` set to 1 (`keep`) or removed.
fn reduced(dims: &[Dim], axes: &[usize], keep: bool) -> Shape {
    let dims = dims
        .iter()
        .enumerate()
        .filter_map(|(i, d)| match (axes.contains(&i), keep) {
            (false, _) => Some(d.clone()),
            (true, true) => Some(Dim::known(1)),
            (true, false) => None,
        });
    Shape::Ranked(dims.collect())
}

/// Folds every element of `value` into one, shaped like `shape` (all ones, or a scalar).
fn fold_all(reducer: Reducer, value: &ValueTensor, shape: &Shape) -> Option<ValueTensor> {
    let combine: fn(&Dim, &Dim) -> Dim = match reducer {
        Reducer::Sum => Dim::add,
        Reducer::Prod => Dim::mul,
        Reducer::Max => Dim::max,
        Reducer::Min => Dim::min,
        Reducer::Other => return None,
    };
    let (first, rest) = match reducer {
        Reducer::Sum => (Dim::known(0), value.data.as_slice()),
        Reducer::Prod => (Dim::known(1), value.data.as_slice()),
        // Max and Min of nothing are not defined.
        _ => value.data.split_first().map(|(f, r)| (f.clone(), r))?,
    };
    let total = rest.iter().fold(first, |acc, d| combine(&acc, d));
    let dims = vec![1; shape.rank()?];
    ValueTensor::new(dims, vec![total])
}

/// Which end of the order an arg-reduction picks, as its registry row names it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Extreme {
    /// `ArgMin`.
    Min,
    /// `ArgMax`.
    Max,
}

/// `ArgMax`/`ArgMin`: `axis` (default 0) removed or kept as 1; int64 output.
pub(crate) fn arg_reduce(ctx: &Ctx<'_>, extreme: Extreme) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let keep = ctx.int("keepdims", 1)? != 0;
    let shape = match x.shape.dims() {
        Some(dims) => reduced(dims, &[normalize(ctx.int("axis", 0)?, dims.len())?], keep),
        None => Shape::Unranked,
    };
    let lower = extreme == Extreme::Min;
    let last = ctx.int("select_last_index", 0)? != 0;
    if let Some(v) = x
        .value
        .and_then(|v| float_shape_math::arg_extreme(v, lower, last, keep))
    {
        return Ok(Inferred::single(Output::value(v, Some(elem::INT64))));
    }
    Ok(Inferred::single(
        Output::shape(shape).elem(Some(elem::INT64)),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::dims as s;
    use crate::ops::testing::{self, int_attr, ints_attr, run};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    fn axes(values: &[i64]) -> Option<testing::Fact> {
        testing::ints(
            ValueTensor::vector(values.iter().copied().map(Dim::known).collect()).unwrap(),
        )
    }

    fn out(r: Result<crate::ops::Inferred, crate::ops::RuleError>) -> String {
        r.map_or_else(
            |e| format!("error: {e}"),
            |r| r.outputs[0].shape.to_string(),
        )
    }

    #[test]
    fn reduce_mean_axes_attribute_before_18() {
        let r = run(
            "ReduceMean",
            13,
            &[s(&["b", "seq", "768"])],
            vec![ints_attr("axes", &[-1])],
        );
        assert_eq!(out(r), "[b, seq, 1]");
        let r = run(
            "ReduceMean",
            13,
            &[s(&["b", "seq", "768"])],
            vec![ints_attr("axes", &[1]), int_attr("keepdims", 0)],
        );
        assert_eq!(out(r), "[b, 768]");
    }

    #[test]
    fn reduce_sum_axes_input_from_13() {
        let r = run(
            "ReduceSum",
            13,
            &[s(&["b", "4", "5"]), axes(&[0, 2])],
            vec![],
        );
        assert_eq!(out(r), "[1, 4, 1]");
        let r = run("ReduceMax", 18, &[s(&["b", "4", "5"]), s(&["2"])], vec![]);
        assert_eq!(out(r), "[?, ?, ?]");
        let r = run(
            "ReduceMax",
            18,
            &[s(&["b", "4"]), s(&["2"])],
            vec![int_attr("keepdims", 0)],
        );
        assert_eq!(out(r), "[...]");
    }

    #[test]
    fn empty_axes_reduce_all_or_noop() {
        let r = run(
            "ReduceSum",
            13,
            &[s(&["b", "4"])],
            vec![int_attr("keepdims", 0)],
        );
        assert_eq!(out(r), "[]");
        let r = run(
            "ReduceSum",
            13,
            &[s(&["b", "4"])],
            vec![int_attr("noop_with_empty_axes", 1)],
        );
        assert_eq!(out(r), "[b, 4]");
    }

    #[test]
    fn reduce_prod_folds_shape_values() {
        let dims = ValueTensor::vector(vec![Dim::sym("b"), Dim::sym("s"), Dim::known(12)]).unwrap();
        let r = run(
            "ReduceProd",
            13,
            &[testing::ints(dims)],
            vec![int_attr("keepdims", 0)],
        )
        .unwrap();
        let value = r.outputs[0].value.as_ref().unwrap();
        assert_eq!(
            value.data,
            vec![Dim::sym("b").mul(&Dim::sym("s")).mul(&Dim::known(12))]
        );
        assert_eq!(r.outputs[0].shape.to_string(), "[]");
        let dims = ValueTensor::vector(vec![Dim::sym("b"), Dim::known(2)]).unwrap();
        let r = run("ReduceSum", 13, &[testing::ints(dims), axes(&[0])], vec![]).unwrap();
        assert_eq!(
            r.outputs[0].value.as_ref().unwrap().data,
            vec![Dim::sym("b").add(&Dim::known(2))]
        );
        assert_eq!(r.outputs[0].shape.to_string(), "[1]");
    }

    #[test]
    fn argmax_removes_axis_and_is_int64() {
        let r = run(
            "ArgMax",
            13,
            &[s(&["b", "10"])],
            vec![int_attr("axis", 1), int_attr("keepdims", 0)],
        )
        .unwrap();
        assert_eq!(r.outputs[0].shape.to_string(), "[b]");
        assert_eq!(r.outputs[0].elem, Some(7));
        assert!(run("ArgMin", 13, &[s(&["b", "10"])], vec![int_attr("axis", 2)]).is_err());
    }

    #[test]
    fn axes_out_of_range_by_opset_and_op() {
        let x = || s(&["2", "3"]);
        let unmet = |r| matches!(r, Err(crate::ops::RuleError::Unmet(_)));
        // The attribute before 18 (13 for ReduceSum), input 1 after.
        assert!(unmet(run(
            "ReduceMean",
            13,
            &[x()],
            vec![ints_attr("axes", &[2])]
        )));
        assert!(unmet(run("ReduceMean", 18, &[x(), axes(&[-3])], vec![])));
        assert!(unmet(run("ReduceSum", 13, &[x(), axes(&[2])], vec![])));
        assert!(unmet(run(
            "ReduceSum",
            11,
            &[x()],
            vec![ints_attr("axes", &[2])]
        )));
        assert!(unmet(run(
            "ArgMax",
            13,
            &[s(&[])],
            vec![int_attr("axis", 0)]
        )));
        // A repeated axis runs in onnxruntime.
        let r = run("ReduceMean", 13, &[x()], vec![ints_attr("axes", &[0, 0])]);
        assert_eq!(out(r), "[1, 3]");
    }
}
