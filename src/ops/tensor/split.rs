//! `Split`: part sizes from the `split` input (opset 1 and 13+) or attribute (opsets 2-12), else
//! equal parts (`num_outputs` from opset 18, else the number of outputs). Equal parts of a
//! symbolic dim need an exact division before opset 18; from 18 the parts are `ceil(dim / n)`
//! and the last one takes the rest, as the ONNX reference implementation does.

use crate::ops::axes;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::overflow::sized;
use crate::ops::values::moves;
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::{Condition, Dim, Shape};

/// The `split` sizes a node gives.
enum Sizes {
    /// None: equal parts.
    Absent,
    /// Sizes whose values are known.
    Known(Vec<Dim>),
    /// A `split` input whose values are not known; its length may be.
    Dynamic(Option<usize>),
}

/// Where a Split version reads its sizes, and how it splits without them.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Form {
    /// Split-1: the `split` input, else the attribute; equal parts must be exact.
    V1,
    /// Split-2 and -11: the `split` attribute; equal parts must be exact.
    V2,
    /// Split-13: the `split` input; equal parts must be exact.
    V13,
    /// Split-18: the `split` input, else `num_outputs` ceil-sized chunks.
    V18,
}

/// Split-1.
pub(crate) fn split_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    split(ctx, Form::V1)
}

/// Split-2 and Split-11.
pub(crate) fn split_2(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    split(ctx, Form::V2)
}

/// Split-13.
pub(crate) fn split_13(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    split(ctx, Form::V13)
}

/// Split-18.
pub(crate) fn split_18(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    split(ctx, Form::V18)
}

/// Explicit sizes: attribute in opsets 2-12, input from 13; Split-1 takes either (the input
/// first).
fn explicit_sizes(ctx: &Ctx<'_>, form: Form) -> Result<Sizes, RuleError> {
    let input = ctx.input(1).filter(|_| form != Form::V2);
    if input.is_none() && matches!(form, Form::V1 | Form::V2) {
        let list = ctx.attrs().ints("split")?;
        return Ok(list.map_or(Sizes::Absent, |l| {
            Sizes::Known(l.iter().copied().map(Dim::known).collect())
        }));
    }
    Ok(match input {
        None => Sizes::Absent,
        Some(input) => match input.value {
            Some(v) => Sizes::Known(v.data.clone()),
            None => Sizes::Dynamic(spec::list_len(Some(input))),
        },
    })
}

/// Equal parts of `whole` into `parts` pieces: exact before opset 18 ("The input is not evenly
/// splittable"), `ceil` chunks with a smaller last one from 18. Before 18 a symbolic dim must
/// divide by the number of parts (onnxruntime: "Input cannot be split evenly on selected
/// axis"): the condition `whole % parts = 0`, given to `pending` (W4, or E4 when it never holds).
fn equal_parts(
    whole: &Dim,
    parts: usize,
    ceil_chunks: bool,
    pending: &mut Pending,
) -> Result<Vec<Dim>, RuleError> {
    let n = axes::count(parts);
    let exact = whole.div_exact(&n);
    let fault = || {
        Constraint::new(
            "without `split` sizes, Split's axis dim must divide evenly into the outputs \
             (before opset 18)",
            format!("{whole} into {n} outputs"),
            &[0],
        )
        .fix("give the `split` sizes, or change the number of outputs")
    };
    if let (Some(w), Some(k)) = (whole.as_known(), n.as_known()) {
        if !ceil_chunks && k > 0 && w.checked_rem(k).is_some_and(|r| r != 0) {
            return Err(fault().unmet());
        }
    }
    if !ceil_chunks && exact == Dim::Unknown && whole.as_known().is_none() {
        let rest = whole.modulo(&n);
        if rest != Dim::Unknown && n.as_known().is_some_and(|k| k > 1) {
            pending.holds_if(&Condition::eq(&rest, &Dim::known(0)), fault)?;
        }
    }
    if exact != Dim::Unknown || !ceil_chunks {
        return Ok(vec![exact; parts]);
    }
    // Opset 18: chunks of ceil(whole / n), the last one smaller. Right for every size the
    // model accepts: a negative last chunk is a run-time error.
    let chunk = whole.add(&n.sub(&Dim::known(1))).floor_div(&n);
    let before_last = chunk.mul(&axes::count(parts.saturating_sub(1)));
    let last = whole.sub(&before_last);
    if last.as_known().is_some_and(|v| v < 0) {
        return Err(Constraint::new(
            "Split's num_outputs chunks of ceil(dim / num_outputs) must not leave a negative \
             last chunk",
            format!("{whole} into {parts} chunks of {chunk}"),
            &[0],
        )
        .fix("use fewer outputs, or give the `split` sizes")
        .unmet());
    }
    let mut sizes = vec![chunk; parts.saturating_sub(1)];
    sizes.push(last);
    Ok(sizes)
}

/// Opset 18's `num_outputs`: required without `split`, forbidden with it, at least 1, and the
/// node's output count (onnxruntime: "Number of outputs (2) does not match `num_outputs`").
fn num_outputs(ctx: &Ctx<'_>, sizes: &Sizes, outputs: usize) -> Result<usize, RuleError> {
    let given = ctx.attrs().int("num_outputs")?;
    let fault = |requires: &str, found: String| {
        Constraint::new(requires, found, &[])
            .fix(
                "set num_outputs to the node's output count, \
            or give the `split` input instead",
            )
            .unmet()
    };
    match (given, sizes) {
        (None, Sizes::Absent) => Err(fault(
            "Split-18 needs either the `split` input or the `num_outputs` attribute",
            "neither is given".into(),
        )),
        (Some(_), Sizes::Known(_) | Sizes::Dynamic(_)) => Err(fault(
            "Split-18 takes the `split` input or `num_outputs`, not both",
            "both are given".into(),
        )),
        (Some(n), _) if usize::try_from(n).ok() != Some(outputs) || n < 1 => Err(fault(
            "Split's num_outputs must be at least 1 and equal the number of outputs",
            format!("num_outputs is {n}, the node has {outputs} outputs"),
        )),
        _ => Ok(outputs),
    }
}

/// `Split(input, split, axis, num_outputs)` in the given version's form.
fn split(ctx: &Ctx<'_>, form: Form) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let outputs = ctx.node().outputs().len();
    let part = |dims: Vec<Dim>| Output::shape(Shape::Ranked(dims)).elem(data.elem);
    let sizes = explicit_sizes(ctx, form)?;
    let parts = if form == Form::V18 {
        num_outputs(ctx, &sizes, outputs)?
    } else {
        outputs.max(1)
    };
    let count = match &sizes {
        Sizes::Known(list) => Some(list.len()),
        Sizes::Dynamic(n) => *n,
        Sizes::Absent => None,
    };
    if let Some(n) = count.filter(|&n| n != outputs) {
        return Err(spec::wrong_len(
            "Split's `split` must have one size per output",
            n,
            outputs,
            &[1],
        ));
    }
    let Some(dims) = data.shape.dims() else {
        return Ok(Inferred::many(vec![
            Output::shape(Shape::Unranked)
                .elem(data.elem);
            outputs
        ]));
    };
    let axis = axes::require(ctx.int("axis", 0)?, dims.len(), "Split axis")?;
    let whole = dims.get(axis).cloned().unwrap_or(Dim::Unknown);
    let mut pending = Pending::default();
    let sizes = match sizes {
        Sizes::Known(sizes) => {
            checked_sizes(&mut pending, &sizes, &whole)?;
            sizes
        }
        Sizes::Absent => equal_parts(&whole, parts, form == Form::V18, &mut pending)?,
        Sizes::Dynamic(_) => vec![Dim::Unknown; outputs],
    };
    if let Some(parts) = data
        .value
        .and_then(|v| moves::split_values(v, axis, &sizes))
    {
        let parts = parts.into_iter().map(|p| Output::value(p, data.elem));
        return Ok(Inferred::many(parts.collect()).with_conditions(pending.into_checks()));
    }
    let shapes = sizes
        .into_iter()
        .map(|size| {
            let mut out = dims.to_vec();
            if let Some(slot) = out.get_mut(axis) {
                *slot = size;
            }
            part(out)
        })
        .collect();
    Ok(Inferred::many(shapes).with_conditions(pending.into_checks()))
}

/// Explicit sizes: none negative ("All values must be >= 0"), summing to the axis dim
/// ("Mismatch between the sum of 'split' and the split dimension of the input").
fn checked_sizes(pending: &mut Pending, sizes: &[Dim], whole: &Dim) -> Result<(), RuleError> {
    if let Some(k) = sizes.iter().find_map(|k| k.as_known().filter(|&k| k < 0)) {
        return Err(Constraint::new(
            "Split's `split` sizes must not be negative",
            format!("a size is {k}"),
            &[1],
        )
        .fix("correct the split sizes")
        .unmet());
    }
    let total = sized("the sum of Split's `split` sizes", &[1]).sum(sizes)?;
    pending.equal(&total, whole, || {
        Constraint::new(
            "Split's `split` sizes must add up to the dim of the split axis",
            format!("the sizes add up to {total}, the axis dim is {whole}"),
            &[0, 1],
        )
        .fix("correct the split sizes, or the axis")
    })
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, unmet};
    use crate::ops::testing::{self, dims as s, int_attr, ints_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    fn n() -> Dim {
        Dim::sym("n")
    }

    fn run(
        opset: i64,
        x: Shape,
        sizes: Option<&[i64]>,
        attrs: Vec<crate::proto::AttributeProto>,
        outputs: usize,
    ) -> Vec<Shape> {
        let sizes = sizes.and_then(|s| {
            testing::ints(ValueTensor::vector(s.iter().copied().map(Dim::known).collect()).unwrap())
        });
        testing::run_in(
            "",
            "Split",
            opset,
            &[testing::shape(x), sizes],
            attrs,
            outputs,
        )
        .unwrap()
        .outputs
        .into_iter()
        .map(|o| o.shape)
        .collect()
    }

    #[test]
    fn equal_parts_and_explicit_input() {
        let x = Shape::Ranked(vec![n(), Dim::known(12)]);
        let out = run(13, x.clone(), None, vec![int_attr("axis", 1)], 3);
        assert_eq!(out[2], Shape::Ranked(vec![n(), Dim::known(4)]));
        let out = run(13, x, Some(&[2, 10]), vec![int_attr("axis", 1)], 2);
        assert_eq!(out[1], Shape::Ranked(vec![n(), Dim::known(10)]));
    }

    #[test]
    fn attribute_form_between_opsets_2_and_12() {
        let x = Shape::Ranked(vec![n(), Dim::known(6)]);
        let out = run(
            11,
            x,
            None,
            vec![int_attr("axis", -1), ints_attr("split", &[1, 5])],
            2,
        );
        assert_eq!(out[0], Shape::Ranked(vec![n(), Dim::known(1)]));
    }

    #[test]
    fn symbolic_equal_parts_need_an_exact_division_before_18() {
        let x = Shape::Ranked(vec![n().mul(&Dim::known(4))]);
        let out = run(13, x, None, vec![], 2);
        assert_eq!(out[1], Shape::Ranked(vec![n().mul(&Dim::known(2))]));
        let out = run(13, Shape::Ranked(vec![n()]), None, vec![], 2);
        assert_eq!(out[0], Shape::Ranked(vec![Dim::Unknown]));
    }

    /// The W4 conditions of an equal split of `[x]` into `outputs`, in plain words.
    fn split_conditions(
        opset: i64,
        x: Dim,
        attrs: Vec<crate::proto::AttributeProto>,
    ) -> Vec<String> {
        testing::run_in(
            "",
            "Split",
            opset,
            &[testing::shape(Shape::Ranked(vec![x]))],
            attrs,
            2,
        )
        .unwrap()
        .constraints
        .iter()
        .filter_map(|c| c.condition().map(|c| c.plain().to_string()))
        .collect()
    }

    #[test]
    fn equal_parts_of_a_symbolic_dim_must_divide_before_18_only() {
        // onnxruntime (Split-2, -11, -13): 5 into 2 fails "Input cannot be split evenly", 6 runs.
        for opset in [2, 11, 13] {
            assert_eq!(
                split_conditions(opset, n(), vec![]),
                ["n % 2 = 0"],
                "{opset}"
            );
        }
        // Split-18's num_outputs allows a smaller last chunk: onnxruntime splits 5 into 3 + 2.
        assert!(split_conditions(18, n(), vec![int_attr("num_outputs", 2)]).is_empty());
        // Exact divisions need nothing; an odd count never splits in two.
        assert!(split_conditions(13, n().mul(&Dim::known(2)), vec![]).is_empty());
        let odd = n().mul(&Dim::known(2)).add(&Dim::known(1));
        let r = testing::run_in(
            "",
            "Split",
            13,
            &[testing::shape(Shape::Ranked(vec![odd]))],
            vec![],
            2,
        );
        assert!(unmet(&r));
    }

    #[test]
    fn opset_18_last_chunk_is_smaller() {
        let out = run(
            18,
            Shape::from_known(&[10]),
            None,
            vec![int_attr("num_outputs", 3)],
            3,
        );
        assert_eq!(
            out,
            vec![
                Shape::from_known(&[4]),
                Shape::from_known(&[4]),
                Shape::from_known(&[2])
            ]
        );
        let out = run(
            18,
            Shape::Ranked(vec![n()]),
            None,
            vec![int_attr("num_outputs", 2)],
            2,
        );
        let chunk = n().add(&Dim::known(1)).floor_div(&Dim::known(2));
        assert_eq!(out[0], Shape::Ranked(vec![chunk.clone()]));
        assert_eq!(out[1], Shape::Ranked(vec![n().sub(&chunk)]));
    }

    #[test]
    fn sizes_that_do_not_add_up_are_errors() {
        let x = testing::shape(Shape::from_known(&[6]));
        let sizes = testing::ints(ValueTensor::vector(vec![Dim::known(2), Dim::known(2)]).unwrap());
        assert!(testing::run_in("", "Split", 13, &[x, sizes], vec![], 2).is_err());
    }

    fn split(
        opset: i64,
        x: &[&str],
        sizes: Option<&[i64]>,
        attrs: Vec<crate::proto::AttributeProto>,
        outputs: usize,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let sizes = sizes.and_then(|s| {
            testing::ints(ValueTensor::vector(s.iter().copied().map(Dim::known).collect()).unwrap())
        });
        testing::run_in("", "Split", opset, &[s(x), sizes], attrs, outputs)
    }

    #[test]
    fn sizes_must_match_outputs_sum_and_sign() {
        assert!(unmet(&split(13, &["5"], Some(&[2, 2]), vec![], 2)));
        assert!(unmet(&split(13, &["5"], Some(&[2, 2, 1]), vec![], 2)));
        assert!(unmet(&split(13, &["5"], Some(&[6, -1]), vec![], 2)));
        assert!(unmet(&split(
            11,
            &["5"],
            None,
            vec![ints_attr("split", &[2, 3])],
            3
        )));
        let ok = split(13, &["5"], Some(&[2, 3]), vec![], 2);
        assert!(conditions(&ok).is_empty() && !unmet(&ok));
        // A split input of unknown values still has a declared length.
        let declared = testing::shape(Shape::from_known(&[3]));
        let r = testing::run_in("", "Split", 13, &[s(&["5"]), declared], vec![], 2);
        assert!(unmet(&r));
    }

    #[test]
    fn symbolic_sum_is_a_condition() {
        let r = split(13, &["n"], Some(&[2, 3]), vec![], 2);
        assert_eq!(conditions(&r), ["n = 5"]);
    }

    #[test]
    fn equal_parts_must_divide_before_18() {
        assert!(unmet(&split(13, &["5"], None, vec![], 2)));
        assert!(unmet(&split(11, &["5"], None, vec![], 2)));
        // Split-1 takes the sizes from the attribute when there is no input.
        let r = split(1, &["5"], None, vec![ints_attr("split", &[2, 3])], 2);
        assert!(!unmet(&r));
    }

    #[test]
    fn num_outputs_rules_from_18() {
        let num = |n| vec![int_attr("num_outputs", n)];
        assert!(unmet(&split(18, &["6"], None, vec![], 2)));
        assert!(unmet(&split(18, &["6"], None, num(3), 2)));
        assert!(unmet(&split(18, &["6"], None, num(0), 0)));
        assert!(unmet(&split(18, &["6"], Some(&[3, 3]), num(2), 2)));
        assert!(unmet(&split(18, &["5"], None, num(4), 4)));
        assert!(!unmet(&split(18, &["2"], None, num(3), 3)));
        assert!(!unmet(&split(18, &["7"], None, num(3), 3)));
    }
}
