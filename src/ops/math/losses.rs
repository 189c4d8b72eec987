//! The training losses `NegativeLogLikelihoodLoss` (12, 13, 22) and `SoftmaxCrossEntropyLoss`
//! (12, 13). The doc gives the input (scores) as `(N, C)` or `(N, C, d1, ..., dk)` and the
//! target (labels) as `(N)` or `(N, d1, ..., dk)`, the weight as `(C)`; the loss is a scalar
//! unless `reduction = "none"`, when it has the target's shape. `onnx.shape_inference` unifies
//! these dims for `NegativeLogLikelihoodLoss` ("Dimension mismatch in unification"), and
//! `SoftmaxCrossEntropyLoss` is defined by a function of it, so both hold them as constraints.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// The loss's shape: `(N, d1, ..., dk)` for `reduction = "none"`, else a scalar. Checks the
/// input's rank (at least 2), the target's (one less) and dims, and the weight's.
fn loss_shape(ctx: &Ctx<'_>, op: &str, pending: &mut Pending) -> Result<Shape, RuleError> {
    let x = ctx.shape(0)?.dims();
    let target = ctx.shape(1)?;
    if let Some(x) = x.filter(|x| x.len() < 2) {
        return Err(Constraint::new(
            format!("{op}'s input must be (N, C) or (N, C, d1, ..., dk)"),
            format!("it has rank {}", x.len()),
            &[0],
        )
        .unmet());
    }
    // (N, d1, ..., dk): the input's dims without C.
    let expected: Option<Vec<Dim>> = x.map(|x| {
        x.iter()
            .enumerate()
            .filter(|&(i, _)| i != 1)
            .map(|(_, d)| d.clone())
            .collect()
    });
    let requires = format!("{op}'s target must be (N, d1, ..., dk), the input's dims without C");
    let t = match &expected {
        Some(e) => exact(target, e.len(), &requires, 1)?,
        None => target.dims(),
    };
    if let (Some(t), Some(e)) = (t, &expected) {
        for (axis, (td, ed)) in t.iter().zip(e).enumerate() {
            equal(
                pending,
                td,
                ed,
                &requires,
                &format!("target's dim {axis}"),
                &[0, 1],
            )?;
        }
    }
    if let Some(weight) = ctx.input(2) {
        let requires = format!("{op}'s weight must be 1-D of size C");
        let w = exact(weight.shape, 1, &requires, 2)?;
        equal(
            pending,
            &dim_at(w, 0),
            &dim_at(x, 1),
            &requires,
            "weight's size",
            &[0, 2],
        )?;
    }
    let reduction = ctx.attrs().string("reduction")?.unwrap_or("mean");
    match reduction {
        "none" => Ok(match (t, expected) {
            (Some(t), _) => Shape::Ranked(t.to_vec()),
            (None, Some(e)) => Shape::Ranked(e),
            (None, None) => Shape::Unranked,
        }),
        "mean" | "sum" => Ok(Shape::Ranked(Vec::new())),
        other => Err(Constraint::new(
            format!("{op}'s reduction must be none, sum or mean"),
            format!("reduction is {other:?}"),
            &[],
        )
        .unmet()),
    }
}

/// `NegativeLogLikelihoodLoss(input, target, weight)` -> `loss`.
pub(crate) fn negative_log_likelihood_loss(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let mut pending = Pending::default();
    let shape = loss_shape(ctx, "NegativeLogLikelihoodLoss", &mut pending)?;
    let elem = ctx.input(0).and_then(|x| x.elem);
    Ok(Inferred::single(Output::shape(shape).elem(elem)).with_conditions(pending.into_checks()))
}

/// `SoftmaxCrossEntropyLoss(scores, labels, weights)` -> `output`, `log_prob` (the scores'
/// shape).
pub(crate) fn softmax_cross_entropy_loss(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let mut pending = Pending::default();
    let shape = loss_shape(ctx, "SoftmaxCrossEntropyLoss", &mut pending)?;
    let scores = ctx.required(0)?;
    Ok(Inferred::many(vec![
        Output::shape(shape).elem(scores.elem),
        Output::shape(scores.shape.clone()).elem(scores.elem),
    ])
    .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing::{dims, output_shapes, run, string_attr};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    fn nll(
        inputs: &[&[&str]],
        reduction: &str,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let inputs: Vec<_> = inputs.iter().map(|d| dims(d)).collect();
        run(
            "NegativeLogLikelihoodLoss",
            22,
            &inputs,
            vec![string_attr("reduction", reduction)],
        )
    }

    #[test]
    fn reduced_losses_are_scalars_and_none_keeps_the_target() {
        assert_eq!(shape(&nll(&[&["3", "5"], &["3"]], "mean")), "[]");
        assert_eq!(shape(&nll(&[&["3", "5"], &["3"], &["5"]], "sum")), "[]");
        assert_eq!(
            shape(&nll(&[&["n", "5", "h", "w"], &["n", "h", "w"]], "none")),
            "[n, h, w]"
        );
    }

    #[test]
    fn target_and_weight_must_match_the_input() {
        for inputs in [
            &[&["3", "5", "6"][..], &["3", "7"]][..],
            &[&["3", "5", "6"], &["4", "6"]],
            &[&["3", "5", "6"], &["3", "6", "1"]],
            &[&["3", "5"], &["3"], &["4"]],
            &[&["3", "5"], &["3"], &["5", "1"]],
            &[&["3"], &["3"]],
        ] {
            assert!(unmet(&nll(inputs, "none")), "{inputs:?}");
        }
        assert_eq!(conditions(&nll(&[&["n", "5"], &["m"]], "none")), ["n = m"]);
        assert!(unmet(&nll(&[&["3", "5"], &["3"]], "avg")));
    }

    #[test]
    fn softmax_cross_entropy_gives_loss_and_log_prob() {
        let r = run(
            "SoftmaxCrossEntropyLoss",
            13,
            &[dims(&["3", "5", "6"]), dims(&["3", "6"])],
            vec![string_attr("reduction", "none")],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[3, 6]", "[3, 5, 6]"]);
        let r = run(
            "SoftmaxCrossEntropyLoss",
            12,
            &[dims(&["3", "5"]), dims(&["3"])],
            vec![],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[]", "[3, 5]"]);
        let r = run(
            "SoftmaxCrossEntropyLoss",
            13,
            &[dims(&["3", "5", "6"]), dims(&["3", "7"])],
            vec![],
        );
        assert!(unmet(&r));
    }
}
