//! `DeformConv` (19, 22): Conv's output shape and requirements. The output shape follows the doc;
//! the rank and dim requirements are the ones `onnx.shape_inference` states for the op (its
//! messages are quoted beside each), a size read from an unknown input value is a fresh named size.

use crate::ops::constraint::Pending;
use crate::ops::nn::conv::kernel_of;
use crate::ops::nn::conv_channels::{self, Operands};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::single::single;
use crate::ops::window::{Sizing, Window};
use crate::ops::{Ctx, Inferred, RuleError};
use crate::shape::{Dim, Shape};

/// `DeformConv(X, W, offset, B, mask)`: Conv's output `(N, oC, spatial...)`, with Conv's
/// channel, `group` and `kernel_shape` requirements.
pub(crate) fn deform_conv(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, "DeformConv")?;
    let w = ctx.shape(1)?.dims();
    ctx.required(2)?;
    let ops = Operands { x, w, w_slot: 1 };
    let mut pending = Pending::default();
    conv_channels::kernel(ctx, &ops, &mut pending)?;
    conv_channels::conv(&ops, conv_channels::group(ctx)?, &mut pending)?;
    let shape = match kernel_of(ctx, w)? {
        Some(kernel) => {
            let window = Window::from_attrs(ctx, kernel)?;
            let mut dims = vec![dim_at(x, 0), dim_at(w, 0)];
            let spatial = x.map(|d| d.get(2..).unwrap_or_default());
            dims.extend(window.checked_out("DeformConv", spatial, Sizing::Conv, &mut pending)?);
            Shape::Ranked(dims)
        }
        None => x.map_or(Shape::Unranked, |d| {
            Shape::Ranked(vec![Dim::Unknown; d.len()])
        }),
    };
    Ok(single(shape, x_in.elem, pending))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, ints_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn deform_conv_is_conv_shaped() {
        let r = run(
            "DeformConv",
            22,
            &[
                dims(&["1", "1", "3", "3"]),
                dims(&["1", "1", "2", "2"]),
                dims(&["1", "8", "2", "2"]),
            ],
            vec![ints_attr("kernel_shape", &[2, 2])],
        );
        assert_eq!(shape(&r), "[1, 1, 2, 2]");
        let attrs = vec![
            ints_attr("pads", &[1, 1, 1, 1]),
            ints_attr("strides", &[2, 2]),
            int_attr("group", 2),
        ];
        let r = run(
            "DeformConv",
            19,
            &[
                dims(&["1", "4", "8", "8"]),
                dims(&["6", "2", "3", "3"]),
                dims(&["1", "18", "4", "4"]),
            ],
            attrs,
        );
        assert_eq!(shape(&r), "[1, 6, 4, 4]");
        assert!(unmet(&run(
            "DeformConv",
            19,
            &[
                dims(&["1", "4", "8", "8"]),
                dims(&["6", "3", "3", "3"]),
                dims(&["1", "18", "6", "6"])
            ],
            vec![]
        )));
    }
}
