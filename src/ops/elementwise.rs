//! Element-wise shape rules shared by the sections whose ops are element-wise (math, logical,
//! tensor, nn): unary ops keep their input's shape; binary ops broadcast (ONNX Broadcasting.md
//! "multidirectional", SONNX `Broadcast`, MLIR `Broadcastable`), with the opset < 7
//! `broadcast`/`axis` form of the ONNX operator docs as a rule of its own. The registry row
//! captures the operation ([`Unary`], [`Binary`]); carried values are folded by
//! [`crate::ops::values`].

use crate::model::dtype::{self, elem};
use crate::ops::values::{floats, ints, Binary, Unary};
use crate::ops::{Ctx, Inferred, Input, Output, RuleError};
use crate::shape::broadcast::{self, Rule, Verdict};
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// Output type of a unary op: bool for predicates and `Not`, `Cast`'s `to`, `CastLike`'s
/// second input's type, else the input's.
fn unary_elem(ctx: &Ctx<'_>, op: Unary) -> Option<i32> {
    match op {
        _ if op.is_bool() => Some(elem::BOOL),
        Unary::Cast => ctx
            .attrs()
            .int("to")
            .ok()
            .flatten()
            .and_then(|t| i32::try_from(t).ok()),
        Unary::CastLike => ctx.input(1).and_then(|i| i.elem),
        _ => ctx.input(0).and_then(|i| i.elem),
    }
}

/// Output type of a binary op: bool for comparisons and logic, else the first input's.
pub(crate) fn binary_elem(ctx: &Ctx<'_>, op: Binary) -> Option<i32> {
    if op.is_bool() {
        Some(elem::BOOL)
    } else {
        ctx.input(0).and_then(|i| i.elem)
    }
}

/// A unary op (or a shape-preserving op listed with them): the output has the input's shape.
/// `Neg`, `Not`, `Abs`, `Identity`, `Cast` and `CastLike` also carry small integer values on
/// (an integer `Cast` as [`crate::ops::values::int_cast`] proves it).
pub(crate) fn unary(ctx: &Ctx<'_>, op: Unary) -> Result<Inferred, RuleError> {
    Ok(Inferred::single(unary_output(ctx, op)?))
}

/// The output of [`unary`], for rules that add outputs or checks of their own.
pub(crate) fn unary_output(ctx: &Ctx<'_>, op: Unary) -> Result<Output, RuleError> {
    let input = ctx.required(0)?;
    let elem = unary_elem(ctx, op);
    let folded = input.value.and_then(|value| ints::unary(op, value, elem));
    Ok(match (folded, float_unary(op, input, elem)) {
        (Some(value), _) | (None, Some(Ok(value))) => Output::value(value, elem),
        (None, Some(Err(real))) => Output::reals(real, elem),
        (None, None) => Output::shape(input.shape.clone()).elem(elem),
    })
}

/// Float data propagation of a unary op (or `Cast`, either way): integer elements (`Ok`) when
/// a float is cast to an integer type, float elements (`Err`) otherwise.
fn float_unary(
    op: Unary,
    input: Input<'_>,
    out: Option<i32>,
) -> Option<Result<ValueTensor, ValueTensor<Real>>> {
    let cast = matches!(op, Unary::Cast | Unary::CastLike);
    let to_width = dtype::width_of(out);
    if let (Some(value), Some(width), true) = (input.value, to_width, cast) {
        return Some(Err(value.to_reals(width)));
    }
    let real = input.real()?;
    let width = dtype::width_of(input.elem)?;
    match out {
        Some(to) if cast && crate::ops::values::int_cast::is_integer(to) => {
            floats::to_ints(real, to).map(Ok)
        }
        _ => floats::unary(op, real, width, to_width).map(Err),
    }
}

/// The `axis` attribute of `Softmax`, `LogSoftmax`, `Hardmax` and `LpNormalization` must name an
/// axis of the input, `[-r, r-1]` (the range the docs give from Softmax-11; onnxruntime's kernels
/// enforce it for the opset 1-10 versions too, whose docs coerce the input to 2-D around the
/// axis). `default` is the axis a node that writes none takes (`None`: not checked, as the
/// opset < 13 default axis 1, which a 1-D input lacks). A scalar has no axis at all, whatever
/// the attribute: onnx's inference rejects it from Softmax-11 ("Input rank must be >= 1 for
/// Softmax"), and onnxruntime fails every version on it, `LpNormalization` too ("axis -1 is not
/// in valid range [-0,-1]").
pub(crate) fn axis_in_range(ctx: &Ctx<'_>, default: Option<i64>) -> Result<(), RuleError> {
    let shape = ctx.shape(0)?;
    let op = ctx.node().op_type();
    if shape.rank() == Some(0) {
        return Err(crate::ops::Constraint::new(
            format!(
                "{op}'s input must have rank >= 1: it works along an axis, which a scalar lacks"
            ),
            "the input is a scalar",
            &[0],
        )
        .fix("Unsqueeze the input to 1-D")
        .unmet());
    }
    let Some(axis) = ctx.attrs().int("axis")?.or(default) else {
        return Ok(());
    };
    let Some(rank) = shape.rank() else {
        return Ok(());
    };
    // The op type names the attribute in the constraint's text; it decides nothing.
    let what = format!("{op} axis");
    crate::ops::axes::require(axis, rank, &what).map(|_| ())
}

/// Binary element-wise ops from opset 7: multidirectional broadcasting.
pub(crate) fn binary(ctx: &Ctx<'_>, op: Binary) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    let outcome = ctx.broadcasts().multidirectional(&[a.shape, b.shape]);
    binary_folded(ctx, op, Rule::Multidirectional, outcome)
}

/// Binary element-wise ops before opset 7: the legacy `broadcast`/`axis` attributes (ONNX
/// opset-6 `Add` doc: B a single element or a contiguous run of A's dims, `broadcast=0` meaning
/// equal shapes), as models actually run them ([`legacy_at_run_time`]).
pub(crate) fn binary_1(ctx: &Ctx<'_>, op: Binary) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    let broadcast = ctx.int("broadcast", 0)? != 0;
    let axis = ctx.attrs().int("axis")?;
    let outcome = legacy_at_run_time(ctx.broadcasts(), (a.shape, b.shape), broadcast, axis);
    binary_folded(ctx, op, Rule::Legacy, outcome)
}

/// The output of a binary op whose broadcast gave `outcome`, its values folded when known.
fn binary_folded(
    ctx: &Ctx<'_>,
    op: Binary,
    rule: Rule,
    outcome: broadcast::Outcome,
) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(1)?;
    let elem = binary_elem(ctx, op);
    let folded = match (&outcome.verdict, a.value, b.value) {
        (Verdict::Invalid(_), _, _) | (_, None, _) | (_, _, None) => None,
        (_, Some(x), Some(y)) => ints::binary(op, x, y),
    };
    let output = match (folded, float_binary(op, a, b, &outcome.verdict)) {
        (Some(value), _) => Output::value(value, elem),
        (None, Some(real)) => Output::reals(real, elem),
        (None, None) => Output::shape(outcome.shape.clone()).elem(elem),
    };
    Ok(Inferred::single(output).with_check(rule, vec![0, 1], outcome))
}

/// Float data propagation of a binary op (both inputs float tensors of one width).
pub(crate) fn float_binary(
    op: Binary,
    a: Input<'_>,
    b: Input<'_>,
    verdict: &Verdict,
) -> Option<ValueTensor<Real>> {
    if matches!(verdict, Verdict::Invalid(_)) || a.elem != b.elem {
        return None;
    }
    floats::binary(op, a.real()?, b.real()?, dtype::width_of(a.elem)?)
}

/// The opset < 7 rule as models actually run. The opset-6 doc says B's 1s do not stretch, but
/// runtimes execute these models through the opset 7 version converter, which aligns B at `axis`
/// (trailing 1s appended) and then broadcasts multidirectionally, so B's 1s do stretch (`PyTorch`'s
/// exported `add_size1_broadcast` test models rely on it). Without `broadcast` the converter
/// keeps B as it is, so a single-element B stretches too (onnx 1.13's `test_softplus_expanded`,
/// opset 1, adds a scalar to a [3, 4, 5] tensor and ships the outputs), and the result is numpy's
/// (`[1, 5] + [3, 1]` gives [3, 5] in onnxruntime). An error must be a real run-time failure:
/// the strict verdict stands only when the converted form fails too (with `broadcast`, also
/// when it gives another shape than A's).
fn legacy_at_run_time(
    outcomes: &broadcast::Outcomes,
    (a, b): (&Shape, &Shape),
    broadcast: bool,
    axis: Option<i64>,
) -> broadcast::Outcome {
    if !broadcast {
        // numpy's rule decides, conditions included (`n = m` alone would miss `m = 1`).
        let converted = outcomes.multidirectional(&[a, b]);
        if matches!(converted.verdict, Verdict::Invalid(_)) {
            return outcomes.legacy(a, b, false, axis);
        }
        return converted;
    }
    let strict = outcomes.legacy(a, b, true, axis);
    if !matches!(strict.verdict, Verdict::Invalid(_)) {
        return strict;
    }
    let (Some(ad), Some(bd)) = (a.dims(), b.dims()) else {
        return strict;
    };
    let start = match axis {
        None => ad.len().checked_sub(bd.len()),
        Some(k) if k < 0 => i64::try_from(ad.len())
            .ok()
            .and_then(|r| usize::try_from(r + k).ok()),
        Some(k) => usize::try_from(k).ok(),
    };
    let Some(trailing) = start.and_then(|s| ad.len().checked_sub(s + bd.len())) else {
        return strict;
    };
    let mut aligned = bd.to_vec();
    aligned.extend(std::iter::repeat_n(Dim::known(1), trailing));
    let converted = outcomes.multidirectional(&[a, &Shape::Ranked(aligned)]);
    if matches!(converted.verdict, Verdict::Invalid(_)) || converted.shape != *a {
        return strict;
    }
    converted
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{self, int_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape, Verdict};

    fn known(dims: &[i64]) -> Shape {
        Shape::from_known(dims)
    }

    fn prelu(opset: i64, x: &[i64], slope: &[i64]) -> Verdict {
        let inputs = [testing::shape(known(x)), testing::shape(known(slope))];
        let out = testing::run("PRelu", opset, &inputs, vec![]).unwrap();
        out.checks[0].outcome.verdict.clone()
    }

    #[test]
    fn prelu_before_7_takes_a_slope_per_channel() {
        // PRelu-6 runs a [C] slope on [N, C, H, W] (ONNX's PReLU_*_multiparam tests).
        assert_eq!(prelu(6, &[2, 3, 4, 5], &[3]), Verdict::Valid);
        assert_eq!(prelu(1, &[2, 3, 4, 5], &[5]), Verdict::Valid);
        // No axis of size 7, or two axes of size 3: the reference implementation raises.
        assert!(matches!(prelu(6, &[2, 3, 4, 5], &[7]), Verdict::Invalid(_)));
        assert!(matches!(
            prelu(6, &[2, 3, 3], &[3, 1, 2]),
            Verdict::Invalid(_)
        ));
    }

    #[test]
    fn prelu_from_7_broadcasts_unidirectionally() {
        assert!(matches!(prelu(7, &[2, 3, 4, 5], &[3]), Verdict::Invalid(_)));
        assert!(matches!(
            prelu(16, &[2, 3, 4, 5], &[3]),
            Verdict::Invalid(_)
        ));
        assert_eq!(prelu(9, &[2, 3, 4, 5], &[3, 1, 1]), Verdict::Valid);
    }

    #[test]
    fn softmax_axis_must_name_an_axis() {
        let x = || testing::shape(known(&[2, 3]));
        let run =
            |opset, axis| testing::run("Softmax", opset, &[x()], vec![int_attr("axis", axis)]);
        assert!(run(13, -2).is_ok());
        assert!(matches!(run(13, 2), Err(crate::ops::RuleError::Unmet(_))));
        assert!(matches!(run(11, -3), Err(crate::ops::RuleError::Unmet(_))));
        // onnxruntime's opset 1-10 kernels reject an axis equal to the rank as well.
        assert!(matches!(run(1, 2), Err(crate::ops::RuleError::Unmet(_))));
        assert!(run(1, 1).is_ok());
        // The opset < 13 default axis (1) on a 1-D input is left to the runtime.
        let one_d = testing::run("Softmax", 11, &[testing::shape(known(&[4]))], vec![]);
        assert!(one_d.is_ok());
    }

    #[test]
    fn a_scalar_has_no_axis_to_work_along() {
        // onnx strict inference: "Input rank must be >= 1 for Softmax" (from opset 11);
        // onnxruntime fails every version, and LpNormalization, on a scalar.
        let scalar = || testing::shape(known(&[]));
        for op in ["Softmax", "LogSoftmax", "Hardmax"] {
            for opset in [1, 11, 13] {
                let got = testing::unmet(testing::run(op, opset, &[scalar()], vec![]));
                assert_eq!(got.found, "the input is a scalar", "{op}-{opset}");
                assert!(got
                    .requires
                    .starts_with(&format!("{op}'s input must have rank >= 1")));
            }
        }
        let lp = testing::run("LpNormalization", 1, &[scalar()], vec![]);
        assert!(matches!(lp, Err(crate::ops::RuleError::Unmet(_))));
        assert!(testing::run("Softmax", 13, &[testing::shape(known(&[1]))], vec![]).is_ok());
    }

    #[test]
    fn add_broadcasts_and_records_the_check() {
        let out = testing::run(
            "Add",
            17,
            &[testing::shape(known(&[2, 3])), testing::shape(known(&[3]))],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, known(&[2, 3]));
        assert!(matches!(out.checks[0].outcome.verdict, Verdict::Valid));
    }

    #[test]
    fn static_mismatch_is_invalid() {
        let out = testing::run(
            "Mul",
            17,
            &[testing::shape(known(&[2, 3])), testing::shape(known(&[4]))],
            vec![],
        )
        .unwrap();
        assert!(matches!(out.checks[0].outcome.verdict, Verdict::Invalid(_)));
    }

    #[test]
    fn legacy_ones_stretch_as_the_version_converter_runs_them() {
        let out = testing::run(
            "Add",
            6,
            &[
                testing::shape(known(&[2, 3])),
                testing::shape(known(&[2, 1])),
            ],
            vec![int_attr("broadcast", 1), int_attr("axis", 0)],
        )
        .unwrap();
        assert!(!matches!(
            out.checks[0].outcome.verdict,
            Verdict::Invalid(_)
        ));
    }

    #[test]
    fn legacy_without_broadcast_runs_as_numpy() {
        // The opset-7 converter keeps B as it is: numpy shapes that leave A's shape run (onnx
        // 1.13's opset-1 `test_softplus_expanded` adds a scalar), others are rejected there.
        let add = |b: &[i64]| {
            let out = testing::run(
                "Add",
                6,
                &[testing::shape(known(&[3, 4, 5])), testing::shape(known(b))],
                vec![],
            )
            .unwrap();
            matches!(out.checks[0].outcome.verdict, Verdict::Invalid(_))
        };
        // numpy's result even when it is not A's shape: [2, 3, 4, 5] runs, giving [2, 3, 4, 5].
        for runs in [&[][..], &[5], &[1], &[4, 5], &[3, 1, 1], &[2, 3, 4, 5]] {
            assert!(!add(runs), "{runs:?}");
        }
        assert!(add(&[2, 5]));
        // Symbolic: numpy's condition, not the strict rule's error.
        let out = testing::run(
            "Add",
            6,
            &[testing::dims(&["3", "4", "n"]), testing::dims(&["m"])],
            vec![],
        )
        .unwrap();
        let condition = out.checks[0].outcome.condition().unwrap().to_string();
        assert!(condition.contains("m = 1"), "{condition}");
    }

    #[test]
    fn legacy_misplaced_axis_is_invalid() {
        let out = testing::run(
            "Add",
            6,
            &[
                testing::shape(known(&[2, 3, 4, 5])),
                testing::shape(known(&[3, 4])),
            ],
            vec![int_attr("broadcast", 1), int_attr("axis", 2)],
        )
        .unwrap();
        assert!(matches!(out.checks[0].outcome.verdict, Verdict::Invalid(_)));
    }

    #[test]
    fn shape_arithmetic_is_folded() {
        let dims = ValueTensor::vector(vec![Dim::sym("batch"), Dim::known(768)]).unwrap();
        let twelve = ValueTensor::vector(vec![Dim::known(1), Dim::known(12)]).unwrap();
        let out = testing::run(
            "Div",
            17,
            &[testing::ints(dims), testing::ints(twelve)],
            vec![],
        )
        .unwrap();
        let value = out.outputs[0].value.as_ref().unwrap();
        assert_eq!(value.data, vec![Dim::sym("batch"), Dim::known(64)]);
    }

    #[test]
    fn where_selects_known_values() {
        let cond = ValueTensor::vector(vec![Dim::known(1), Dim::known(0)]).unwrap();
        let x = ValueTensor::vector(vec![Dim::sym("n"), Dim::known(5)]).unwrap();
        let y = ValueTensor::vector(vec![Dim::known(7), Dim::known(9)]).unwrap();
        let out = testing::run(
            "Where",
            17,
            &[testing::ints(cond), testing::ints(x), testing::ints(y)],
            vec![],
        )
        .unwrap();
        let value = out.outputs[0].value.as_ref().unwrap();
        assert_eq!(value.data, vec![Dim::sym("n"), Dim::known(9)]);
    }
}
