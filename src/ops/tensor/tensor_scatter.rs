//! The opset 24 attention helper `TensorScatter-24`: the present cache has the past cache's
//! shape; the update matches it on every axis but `axis`, and `write_indices` is `(batch)`, as
//! its doc and `onnx.shape_inference` state them.

use crate::ops::axes;
use crate::ops::constraint::Pending;
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};

/// `TensorScatter-24(past_cache, update, write_indices)`: `present_cache` is the past cache's
/// shape.
pub(crate) fn tensor_scatter_24(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let past = ctx.required(0)?;
    let update = ctx.required(1)?;
    let mut pending = Pending::default();
    if let Some(p) = past.shape.dims() {
        let axis = axes::require(ctx.int("axis", -2)?, p.len(), "TensorScatter axis")?;
        let requires = "TensorScatter's update must have past_cache's shape except along axis";
        if let Some(u) = exact(update.shape, p.len(), requires, 1)? {
            for (i, (pd, ud)) in p.iter().zip(u).enumerate().filter(|&(i, _)| i != axis) {
                equal(
                    &mut pending,
                    ud,
                    pd,
                    requires,
                    &format!("update's dim {i}"),
                    &[0, 1],
                )?;
            }
        }
        if let Some(w) = ctx.input(2) {
            let requires = "TensorScatter's write_indices must be 1-D (batch_size)";
            let w = exact(w.shape, 1, requires, 2)?;
            equal(
                &mut pending,
                &dim_at(w, 0),
                &dim_at(Some(p), 0),
                requires,
                "write_indices' length",
                &[0, 2],
            )?;
        }
    }
    Ok(
        Inferred::single(Output::shape(past.shape.clone()).elem(past.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn tensor_scatter_update_matches_off_axis() {
        let r = run(
            "TensorScatter",
            24,
            &[
                dims(&["2", "4", "16", "8"]),
                dims(&["2", "4", "1", "8"]),
                dims(&["2"]),
            ],
            vec![],
        );
        assert_eq!(shape(&r), "[2, 4, 16, 8]");
        assert!(unmet(&run(
            "TensorScatter",
            24,
            &[dims(&["2", "4", "16", "8"]), dims(&["2", "5", "1", "8"])],
            vec![]
        )));
        assert!(unmet(&run(
            "TensorScatter",
            24,
            &[
                dims(&["2", "4", "16", "8"]),
                dims(&["2", "4", "1", "8"]),
                dims(&["3"])
            ],
            vec![]
        )));
    }
}
