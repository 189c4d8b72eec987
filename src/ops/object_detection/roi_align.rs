//! `RoiAlign` (10, 16, 22): one pooled map per region of interest. The output shape follows the
//! doc; the rank and dim requirements are the ones `onnx.shape_inference` states for the op (its
//! messages are quoted beside each), a size read from an unknown input value is a fresh named size.

use crate::ops::constraint::Pending;
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::single::single;
use crate::ops::{Ctx, Inferred, RuleError};
use crate::shape::{Dim, Shape};

/// `RoiAlign(X, rois, batch_indices)`: `(num_rois, C, output_height, output_width)` of a 4-D X,
/// rois `(num_rois, 4)` and batch indices `(num_rois)`.
pub(crate) fn roi_align(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let [x, rois, indices] = region_ranks(ctx, "RoiAlign", x_in.shape)?;
    let mut pending = Pending::default();
    let num_rois = region_agreements(&mut pending, "RoiAlign", rois, indices)?;
    let num_rois = if matches!(num_rois, Dim::Unknown) {
        dim_at(indices, 0)
    } else {
        num_rois
    };
    let shape = Shape::Ranked(vec![
        num_rois,
        dim_at(x, 1),
        Dim::known(ctx.int("output_height", 1)?),
        Dim::known(ctx.int("output_width", 1)?),
    ]);
    Ok(single(shape, x_in.elem, pending))
}

/// The ranks of a region op's `X` (4-D), `rois` (2-D) and `batch_indices` (1-D), slots 0-2, as
/// `RoiAlign`'s doc and `com.microsoft`'s `CropAndResize` state them; the dims of each.
pub(crate) fn region_ranks<'a>(
    ctx: &'a Ctx<'_>,
    op: &str,
    x: &'a Shape,
) -> Result<[Option<&'a [Dim]>; 3], RuleError> {
    let x = exact(x, 4, &format!("{op}'s X must be 4-D (N, C, H, W)"), 0)?;
    let rois = exact(
        ctx.shape(1)?,
        2,
        &format!("{op}'s rois must be 2-D (num_rois, 4)"),
        1,
    )?;
    let indices = exact(
        ctx.shape(2)?,
        1,
        &format!("{op}'s batch_indices must be 1-D (num_rois)"),
        2,
    )?;
    Ok([x, rois, indices])
}

/// A region op's `rois` are `(num_rois, 4)` and its `batch_indices` have one entry per roi;
/// `num_rois` as the rois give it.
pub(crate) fn region_agreements(
    pending: &mut Pending,
    op: &str,
    rois: Option<&[Dim]>,
    indices: Option<&[Dim]>,
) -> Result<Dim, RuleError> {
    equal(
        pending,
        &dim_at(rois, 1),
        &Dim::known(4),
        &format!("{op}'s rois must be (num_rois, 4)"),
        "rois' dim 1",
        &[1],
    )?;
    let num_rois = dim_at(rois, 0);
    equal(
        pending,
        &dim_at(indices, 0),
        &num_rois,
        &format!("{op}'s batch_indices must have one entry per roi"),
        "batch_indices' length",
        &[1, 2],
    )?;
    Ok(num_rois)
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn roi_align_is_per_roi() {
        let attrs = || vec![int_attr("output_height", 7), int_attr("output_width", 5)];
        assert_eq!(
            shape(&run(
                "RoiAlign",
                22,
                &[dims(&["2", "3", "8", "8"]), dims(&["r", "4"]), dims(&["r"])],
                attrs()
            )),
            "[r, 3, 7, 5]"
        );
        assert!(unmet(&run(
            "RoiAlign",
            16,
            &[
                dims(&["2", "3", "8", "8"]),
                dims(&["10", "4"]),
                dims(&["9"])
            ],
            attrs()
        )));
        assert!(unmet(&run(
            "RoiAlign",
            10,
            &[
                dims(&["2", "3", "8", "8"]),
                dims(&["10", "5"]),
                dims(&["10"])
            ],
            attrs()
        )));
    }
}
