//! `CenterCropPad-18`: the input's dims at `axes` replaced by `shape`'s values. The output shape
//! follows the doc; the rank and dim requirements are the ones `onnx.shape_inference` states for
//! the op (its messages are quoted beside each), a size read from an unknown input value is a fresh
//! named size.

use crate::ops::axes;
use crate::ops::constraint::Pending;
use crate::ops::single::single;
use crate::ops::{Ctx, Inferred, RuleError};
use crate::shape::Shape;

/// `CenterCropPad(input_data, shape)`: the input's dims with those at `axes` (default all)
/// replaced by `shape`'s values.
pub(crate) fn center_crop_pad_18(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    ctx.required(1)?;
    let Some(x) = x_in.shape.dims() else {
        return Ok(single(Shape::Unranked, x_in.elem, Pending::default()));
    };
    let axes = match ctx.attrs().ints("axes")? {
        Some(a) => a
            .iter()
            .map(|&a| axes::require(a, x.len(), "CenterCropPad axes"))
            .collect::<Result<Vec<_>, _>>()?,
        None => (0..x.len()).collect(),
    };
    if let Some(axis) = crate::ops::spec::repeated(&axes) {
        return Err(crate::ops::spec::repeated_axis(
            "CenterCropPad",
            "axes",
            axis,
            0,
        ));
    }
    if let Some(n) = crate::ops::spec::list_len(ctx.input(1)).filter(|&n| n != axes.len()) {
        return Err(crate::ops::spec::wrong_len(
            "CenterCropPad's shape must have one value per axis",
            n,
            axes.len(),
            &[1],
        ));
    }
    let mut dims = x.to_vec();
    for (i, &axis) in axes.iter().enumerate() {
        if let Some(d) = dims.get_mut(axis) {
            *d = ctx.size_element(1, i, "crop", Vec::new());
        }
    }
    Ok(single(Shape::Ranked(dims), x_in.elem, Pending::default()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::int_list as list;
    use crate::ops::testing::{dims, ints_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn center_crop_pad_replaces_the_axes() {
        assert_eq!(
            shape(&run(
                "CenterCropPad",
                18,
                &[dims(&["10", "7", "3"]), list(&[8, 9, 3])],
                vec![]
            )),
            "[8, 9, 3]"
        );
        assert_eq!(
            shape(&run(
                "CenterCropPad",
                18,
                &[dims(&["10", "7", "3"]), list(&[8, 9])],
                vec![ints_attr("axes", &[0, 1])]
            )),
            "[8, 9, 3]"
        );
        assert!(unmet(&run(
            "CenterCropPad",
            18,
            &[dims(&["10", "7", "3"]), list(&[8, 9])],
            vec![]
        )));
    }
}
