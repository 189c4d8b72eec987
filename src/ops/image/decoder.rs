//! `ImageDecoder-20` (ONNX defs section `image`): a rank-3 image. A length that depends on the
//! image bytes is a fresh named size; the requirements are `onnx.shape_inference`'s.

use crate::model::dtype::elem;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `ImageDecoder(encoded_stream)`: a `[H, W, C]` image, H and W read from the bytes (fresh
/// sizes), C 1 for `Grayscale` and 3 for `RGB` / `BGR`.
pub(crate) fn image_decoder_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    let channels = match ctx.attrs().string("pixel_format")?.unwrap_or("RGB") {
        "Grayscale" => Dim::known(1),
        "RGB" | "BGR" => Dim::known(3),
        other => {
            return Err(Constraint::new(
                "ImageDecoder's pixel_format must be RGB, BGR or Grayscale",
                format!("pixel_format is {other:?}"),
                &[],
            )
            .unmet())
        }
    };
    let shape = Shape::Ranked(vec![
        ctx.fresh_dim("height", Vec::new()),
        ctx.fresh_dim("width", Vec::new()),
        channels,
    ]);
    Ok(Inferred::single(
        Output::shape(shape).elem(Some(elem::UINT8)),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, run, string_attr};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn image_decoder_is_rank_3() {
        let r = run(
            "ImageDecoder",
            20,
            &[dims(&["100"])],
            vec![string_attr("pixel_format", "Grayscale")],
        );
        assert!(shape(&r).ends_with(", 1]"), "{}", shape(&r));
        assert!(unmet(&run(
            "ImageDecoder",
            20,
            &[dims(&["100"])],
            vec![string_attr("pixel_format", "CMYK")]
        )));
    }
}
