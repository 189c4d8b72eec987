//! `NonMaxSuppression` (opsets 10 and 11, one semantics): `selected_indices` is
//! `[num_selected, 3]`, where `num_selected` depends on the box and score values (a fresh
//! symbol), except when `max_output_boxes_per_class` is absent or at most 0, which selects
//! nothing. The shape constraints are onnxruntime's `PrepareCompute`
//! (`non_max_suppression_helper.h`), which the `NonMaxSuppression` doc states as the input shapes:
//! boxes `[num_batches, spatial_dimension, 4]`, scores `[num_batches, num_classes,
//! spatial_dimension]`.

use crate::model::dtype::elem;
use crate::ops::axes::product;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `NonMaxSuppression(boxes, scores, max_output_boxes_per_class?, iou_threshold?,
/// score_threshold?)`.
pub(crate) fn infer(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let boxes = ctx.shape(0)?;
    let scores = ctx.shape(1)?;
    let boxes = three_d(boxes, "boxes", 0)?;
    let scores = three_d(scores, "scores", 1)?;
    let mut pending = Pending::default();
    if let (Some([batches, spatial, corners]), Some([s_batches, _, s_spatial])) = (boxes, scores) {
        pending.equal(corners, &Dim::known(4), || {
            Constraint::new(
                "the innermost dim of NonMaxSuppression's boxes must be 4 (NonMaxSuppression doc)",
                format!("boxes have {corners} there"),
                &[0],
            )
        })?;
        pending.equal(batches, s_batches, || {
            Constraint::new(
                "NonMaxSuppression's boxes and scores must have the same num_batches (dim 0)",
                format!("{batches} vs {s_batches}"),
                &[0, 1],
            )
        })?;
        pending.equal(spatial, s_spatial, || {
            Constraint::new(
                "NonMaxSuppression's boxes dim 1 and scores dim 2 (spatial_dimension) must be equal",
                format!("{spatial} vs {s_spatial}"),
                &[0, 1],
            )
        })?;
    }
    let selected = selected_count(ctx, scores);
    let shape = Shape::Ranked(vec![selected, Dim::known(3)]);
    Ok(
        Inferred::single(Output::shape(shape).elem(Some(elem::INT64)))
            .with_conditions(pending.into_checks()),
    )
}

/// The dims of a rank-3 input, `None` when its rank is unknown; any other rank is the
/// runtime's "boxes must be a 3D tensor".
fn three_d<'s>(shape: &'s Shape, what: &str, slot: usize) -> Result<Option<&'s [Dim]>, RuleError> {
    match shape.dims() {
        Some(dims) if dims.len() != 3 => Err(Constraint::new(
            format!("NonMaxSuppression's {what} must be 3-D (NonMaxSuppression doc)"),
            format!("{what} have rank {}", dims.len()),
            &[slot],
        )
        .unmet()),
        dims => Ok(dims),
    }
}

/// How many boxes are selected: 0 when `max_output_boxes_per_class` is absent ("Default to 0,
/// which means no output") or known to be at most 0 (onnxruntime selects nothing then); else a
/// fresh symbol, at most one box per batch, class and candidate, and at most
/// `max_output_boxes_per_class` per batch and class.
fn selected_count(ctx: &Ctx<'_>, scores: Option<&[Dim]>) -> Dim {
    let limit = match ctx.input(2) {
        None => return Dim::known(0),
        // onnxruntime reads the first element (the doc says a scalar).
        Some(input) => input.value.and_then(|v| v.data.first().cloned()),
    };
    if limit
        .as_ref()
        .and_then(Dim::as_known)
        .is_some_and(|m| m <= 0)
    {
        return Dim::known(0);
    }
    let mut at_most = Vec::new();
    if let Some([batches, classes, spatial]) = scores {
        at_most.push(product(&[
            batches.clone(),
            classes.clone(),
            spatial.clone(),
        ]));
        // A symbolic limit bounds the count only when it cannot be negative.
        if let Some(m) = limit.filter(Dim::is_non_negative) {
            at_most.push(product(&[batches.clone(), classes.clone(), m]));
        }
    }
    ctx.fresh_dim("NonMaxSuppression", at_most)
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{conditions, shape, unmet};
    use crate::ops::testing;
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    fn limit(m: i64) -> Option<testing::Fact> {
        testing::ints(ValueTensor::vector(vec![Dim::known(m)]).unwrap())
    }

    fn nms(
        boxes: &[&str],
        scores: &[&str],
        m: Option<i64>,
    ) -> Result<crate::ops::Inferred, crate::ops::RuleError> {
        let mut inputs = vec![testing::dims(boxes), testing::dims(scores)];
        if let Some(m) = m {
            inputs.push(limit(m));
        }
        testing::run("NonMaxSuppression", 11, &inputs, vec![])
    }

    #[test]
    fn selected_indices_get_a_fresh_count_bounded_by_the_inputs() {
        let out = nms(&["b", "n", "4"], &["b", "3", "n"], Some(5)).unwrap();
        let dims = out.outputs[0].shape.dims().unwrap().to_vec();
        assert!(matches!(dims[0], Dim::Sym(_)), "{dims:?}");
        assert_eq!(dims[1], Dim::known(3));
        assert_eq!(out.outputs[0].elem, Some(7));
    }

    #[test]
    fn no_limit_or_a_limit_of_zero_selects_nothing() {
        // Checked in onnxruntime 1.31: [0, 3] without the input, with 0 and with -1.
        for m in [None, Some(0), Some(-1)] {
            assert_eq!(shape(&nms(&["1", "6", "4"], &["1", "2", "6"], m)), "[0, 3]");
        }
    }

    #[test]
    fn batches_spatial_and_corners_must_agree() {
        // Each rejected by onnxruntime's PrepareCompute.
        assert!(unmet(&nms(&["2", "6", "4"], &["1", "2", "6"], Some(3))));
        assert!(unmet(&nms(&["1", "6", "4"], &["1", "2", "5"], Some(3))));
        assert!(unmet(&nms(&["1", "6", "5"], &["1", "2", "6"], Some(3))));
        assert!(unmet(&nms(&["1", "6"], &["1", "2", "6"], Some(3))));
        assert!(unmet(&nms(&["1", "6", "4"], &["2", "6"], Some(3))));
        let symbolic = nms(&["b", "n", "4"], &["c", "2", "n"], Some(3));
        assert_eq!(conditions(&symbolic), vec!["c = b".to_string()]);
    }
}
