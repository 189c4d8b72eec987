//! `Col2Im-18`: the image of an input of blocks. The output shape follows the doc; the rank and dim
//! requirements are the ones `onnx.shape_inference` states for the op (its messages are quoted
//! beside each), a size read from an unknown input value is a fresh named size.

use crate::ops::axes::input_ints;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::exact;
use crate::ops::single::single;
use crate::ops::{Ctx, Inferred, RuleError};
use crate::shape::{Dim, Shape};

/// `Col2Im(input, image_shape, block_shape)`: `(N, C, image_shape...)` of an input
/// `(N, C * prod(block_shape), L)`.
pub(crate) fn col2im_18(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = exact(
        x_in.shape,
        3,
        "Col2Im's input must be 3-D (N, C * prod(block_shape), L)",
        0,
    )?;
    ctx.required(1)?;
    let block = input_ints(ctx.input(2));
    let image_len = crate::ops::spec::list_len(ctx.input(1));
    let block_len = crate::ops::spec::list_len(ctx.input(2));
    if let (Some(i), Some(b)) = (image_len, block_len) {
        if i != b {
            return Err(Constraint::new(
                "Col2Im's image_shape and block_shape must have the same length",
                format!("{i} vs {b} values"),
                &[1, 2],
            )
            .unmet());
        }
    }
    let channels = match block.map(|b| b.iter().try_fold(1i64, |acc, &v| acc.checked_mul(v))) {
        Some(Some(area)) if area > 0 => {
            let c = dim_at(x, 1);
            if let Some(c) = c.as_known().filter(|c| c % area != 0) {
                return Err(Constraint::new(
                    "Col2Im's input dim 1 must be divisible by the product of block_shape",
                    format!("{c} is not divisible by {area}"),
                    &[0, 2],
                )
                .unmet());
            }
            c.div_exact(&Dim::known(area))
        }
        _ => Dim::Unknown,
    };
    let mut dims = vec![dim_at(x, 0), channels];
    match image_len.or(block_len) {
        Some(n) => dims.extend((0..n).map(|i| ctx.size_element(1, i, "image", Vec::new()))),
        None => return Ok(single(Shape::Unranked, x_in.elem, Pending::default())),
    }
    Ok(single(Shape::Ranked(dims), x_in.elem, Pending::default()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::int_list as list;
    use crate::ops::testing::{dims, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn col2im_divides_channels_by_the_block() {
        assert_eq!(
            shape(&run(
                "Col2Im",
                18,
                &[dims(&["1", "20", "12"]), list(&[5, 6]), list(&[2, 2])],
                vec![]
            )),
            "[1, 5, 5, 6]"
        );
        assert!(unmet(&run(
            "Col2Im",
            18,
            &[dims(&["1", "21", "12"]), list(&[5, 6]), list(&[2, 2])],
            vec![]
        )));
        assert!(unmet(&run(
            "Col2Im",
            18,
            &[dims(&["1", "20", "12"]), list(&[5, 6, 2]), list(&[2, 2])],
            vec![]
        )));
    }
}
