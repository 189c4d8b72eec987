//! `Resize` and `Upsample`: the rank is kept; a resized dim is `floor(dim * scale)` (ONNX Resize
//! doc) or, from opset 11, the `sizes` input's value (on opset-18 `axes` only, and only with the
//! default `stretch` aspect-ratio policy). Scales are read from the `Upsample-7` attribute or
//! from a scales input whose elements are known floats (constants, or folded float shape
//! arithmetic): integral scales (`[1, 1, 2, 2]`) multiply symbolic dims exactly, others give
//! static dims only; unknown scales leave the resized dims unknown, as does
//! `tf_crop_and_resize`, whose output also depends on the `roi` values.

use crate::ops::axes::{self, unknown_dims};
use crate::ops::{spec, tensor::resize_lengths, Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `floor(dim * scale)` when it is the same for every size of the dim and in both float widths
/// runtimes use (`float` scale times `int64` size): integral scales multiply symbols exactly.
fn scaled(dim: &Dim, scale: f32) -> Dim {
    if !scale.is_finite() || scale < 0.0 {
        return Dim::Unknown;
    }
    // An integral f32 below 2^63 converts exactly.
    #[allow(
        clippy::cast_possible_truncation,
        reason = "checked integral and in range"
    )]
    if scale.fract() == 0.0 && scale < 9.2e18 {
        return dim.mul(&Dim::known(scale as i64));
    }
    let Some(size) = dim.as_known() else {
        return Dim::Unknown;
    };
    // `as` saturates, so both floors land in i64 and compare exactly.
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        reason = "the f64 and the f32 products must agree, else the size is unknown"
    )]
    let (wide, narrow) = (
        (size as f64 * f64::from(scale)).floor() as i64,
        (size as f32 * scale).floor() as i64,
    );
    if wide == narrow && wide < i64::MAX / 2 {
        Dim::known(wide)
    } else {
        Dim::Unknown
    }
}

/// The known scales of input `slot`, as the `f32` runtimes multiply by (a `DOUBLE` scale
/// narrowed as onnxruntime narrows it); `None` unless every element is a known float.
fn known_scales(ctx: &Ctx<'_>, slot: usize) -> Option<Vec<f32>> {
    ctx.input(slot)?
        .real()?
        .data
        .iter()
        .map(|r| {
            #[allow(
                clippy::cast_possible_truncation,
                reason = "Resize's scales are float: a double is narrowed, as the runtime does"
            )]
            r.as_num().map(|x| x as f32)
        })
        .collect()
}

/// Where an `Upsample` version takes its scales from, as its registry row names it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum UpsampleScales {
    /// `Upsample`-1: per-axis float attributes this rule does not read.
    Unread,
    /// `Upsample`-7: the `scales` attribute.
    Attribute,
    /// `Upsample`-9 and -10: the `scales` input.
    Input,
}

/// The inputs and attributes a `Resize` version has, as its registry row names them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct ResizeVersion {
    /// From version 11: `Resize(X, roi, scales, sizes)` and `coordinate_transformation_mode`
    /// (version 10 has `Resize(X, scales)`).
    pub(crate) sizes: bool,
    /// From version 18: the `axes` and `keep_aspect_ratio_policy` attributes.
    pub(crate) axes: bool,
}

impl ResizeVersion {
    /// `Resize`-10.
    pub(crate) const V10: Self = Self {
        sizes: false,
        axes: false,
    };
    /// `Resize`-11 and -13.
    pub(crate) const V11: Self = Self {
        sizes: true,
        axes: false,
    };
    /// `Resize`-18 and -19.
    pub(crate) const V18: Self = Self {
        sizes: true,
        axes: true,
    };
}

/// `Upsample(X, scales)`: `scales` is an attribute in opsets 7-8 and an input from 9.
pub(crate) fn upsample(ctx: &Ctx<'_>, from: UpsampleScales) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let output = |shape: Shape| Ok(Inferred::single(Output::shape(shape).elem(input.elem)));
    let Some(dims) = input.shape.dims() else {
        return output(Shape::Unranked);
    };
    let scales = if from == UpsampleScales::Attribute {
        let Some(scales) = ctx.attrs().floats("scales")? else {
            return Err(spec::missing_attr("Upsample-7", "scales"));
        };
        resize_lengths::require("Upsample", "scales", Some(scales.len()), dims.len())?;
        scales.to_vec()
    } else {
        if from == UpsampleScales::Input {
            let given = spec::list_len(ctx.input(1));
            resize_lengths::require("Upsample", "scales", given, dims.len())?;
        }
        match known_scales(ctx, 1).filter(|_| from == UpsampleScales::Input) {
            Some(scales) => scales,
            None => return output(unknown_dims(dims.len())),
        }
    };
    output(Shape::Ranked(
        dims.iter()
            .zip(&scales)
            .map(|(d, &s)| scaled(d, s))
            .collect(),
    ))
}

/// `Resize(X, roi, scales, sizes)`: `sizes` from opset 11 (used when present and non-empty),
/// `axes` and `keep_aspect_ratio_policy` from 18.
pub(crate) fn resize(ctx: &Ctx<'_>, version: ResizeVersion) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let output = |shape: Shape| Ok(Inferred::single(Output::shape(shape).elem(input.elem)));
    let Some(dims) = input.shape.dims() else {
        return output(Shape::Unranked);
    };
    let resized: Vec<usize> = match ctx.attrs().ints("axes")?.filter(|_| version.axes) {
        Some(list) => list
            .iter()
            .map(|&a| axes::require(a, dims.len(), "Resize axis"))
            .collect::<Result<_, _>>()?,
        None => (0..dims.len()).collect(),
    };
    let stretch = !version.axes
        || ctx
            .attrs()
            .string("keep_aspect_ratio_policy")?
            .is_none_or(|p| p == "stretch");
    let sizes = ctx.input(3).filter(|_| version.sizes).filter(|s| {
        s.shape
            .dims()
            .is_none_or(|d| d.first() != Some(&Dim::known(0)))
    });
    let scales_slot = if version.sizes { 2 } else { 1 };
    let lengths = [
        ("sizes", spec::list_len(sizes)),
        ("scales", spec::list_len(ctx.input(scales_slot))),
    ];
    for (what, given) in lengths {
        resize_lengths::require("Resize", what, given, resized.len())?;
    }
    let mut out = dims.to_vec();
    // With the `stretch` policy an output size is exactly its `sizes` element: an unknown one
    // (torchvision's resize computes it in float) is named, so the rest of the graph carries it.
    if sizes.is_some() && stretch {
        for (index, &axis) in resized.iter().enumerate() {
            if let Some(slot) = out.get_mut(axis) {
                *slot = ctx.size_element(3, index, "Resize", Vec::new());
            }
        }
    } else {
        // Opset 10 has `Resize(X, scales)`; from 11 scales are the third input.
        let slot = scales_slot;
        let crop = version.sizes
            && ctx.attrs().string("coordinate_transformation_mode")? == Some("tf_crop_and_resize");
        let scales = known_scales(ctx, slot).filter(|_| sizes.is_none() && !crop);
        match scales {
            Some(scales) => {
                for (&axis, &scale) in resized.iter().zip(&scales) {
                    if let Some(slot) = out.get_mut(axis) {
                        *slot = scaled(slot, scale);
                    }
                }
            }
            // Other float scales (or sizes we cannot read) leave every resized dim unknown.
            None => {
                for &axis in &resized {
                    if let Some(slot) = out.get_mut(axis) {
                        *slot = Dim::Unknown;
                    }
                }
            }
        }
    }
    output(Shape::Ranked(out))
}

#[cfg(test)]
mod tests {
    use super::scaled;
    use crate::ops::testing;
    use crate::proto::attribute_proto::AttributeType;
    use crate::proto::AttributeProto;
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    fn floats(name: &str, values: &[f32]) -> AttributeProto {
        AttributeProto {
            name: Some(name.into()),
            r#type: Some(AttributeType::Floats as i32),
            floats: values.to_vec(),
            ..AttributeProto::default()
        }
    }

    fn nchw() -> Shape {
        Shape::Ranked(vec![
            Dim::sym("n"),
            Dim::known(3),
            Dim::sym("h"),
            Dim::known(5),
        ])
    }

    #[test]
    fn scales_floor_and_integral_scales_keep_symbols() {
        assert_eq!(scaled(&Dim::known(5), 1.5), Dim::known(7));
        assert_eq!(
            scaled(&Dim::sym("h"), 2.0),
            Dim::sym("h").mul(&Dim::known(2))
        );
        assert_eq!(scaled(&Dim::sym("h"), 0.5), Dim::Unknown);
        assert_eq!(scaled(&Dim::known(5), f32::NAN), Dim::Unknown);
        assert_eq!(scaled(&Dim::known(i64::MAX), 3.0), Dim::Unknown);
    }

    #[test]
    fn upsample_7_reads_the_scales_attribute() {
        let out = testing::run(
            "Upsample",
            7,
            &[testing::shape(nchw())],
            vec![floats("scales", &[1.0, 1.0, 2.0, 1.5])],
        )
        .unwrap();
        let h2 = Dim::sym("h").mul(&Dim::known(2));
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(3), h2, Dim::known(7)])
        );
        let out = testing::run("Upsample", 9, &[testing::shape(nchw()), None], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape.rank(), Some(4));
    }

    #[test]
    fn resize_takes_sizes_and_forgets_scaled_dims() {
        let sizes = ValueTensor::vector(vec![
            Dim::sym("n"),
            Dim::known(3),
            Dim::known(64),
            Dim::known(64),
        ])
        .unwrap();
        let empty = testing::shape(Shape::from_known(&[0]));
        let out = testing::run(
            "Resize",
            13,
            &[testing::shape(nchw()), None, empty, testing::ints(sizes)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![
                Dim::sym("n"),
                Dim::known(3),
                Dim::known(64),
                Dim::known(64)
            ])
        );
        let scales = testing::shape(Shape::from_known(&[4]));
        let out = testing::run(
            "Resize",
            13,
            &[testing::shape(nchw()), None, scales],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Ranked(vec![Dim::Unknown; 4]));
    }

    #[test]
    fn resize_18_axes_keep_the_other_dims() {
        let sizes = ValueTensor::vector(vec![Dim::known(32), Dim::known(32)]).unwrap();
        let out = testing::run(
            "Resize",
            18,
            &[
                testing::shape(nchw()),
                None,
                None,
                testing::ints(sizes.clone()),
            ],
            vec![testing::ints_attr("axes", &[2, -1])],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![
                Dim::sym("n"),
                Dim::known(3),
                Dim::known(32),
                Dim::known(32)
            ])
        );
        let out = testing::run(
            "Resize",
            18,
            &[testing::shape(nchw()), None, None, testing::ints(sizes)],
            vec![
                testing::ints_attr("axes", &[2, 3]),
                testing::string_attr("keep_aspect_ratio_policy", "not_larger"),
            ],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![
                Dim::sym("n"),
                Dim::known(3),
                Dim::Unknown,
                Dim::Unknown
            ])
        );
    }

    fn scales(values: &[i64]) -> Option<testing::Fact> {
        testing::floats(
            ValueTensor::vector(values.iter().copied().map(Dim::known).collect()).unwrap(),
        )
    }

    #[test]
    fn resize_multiplies_by_integral_scale_inputs() {
        let h2 = Dim::sym("h").mul(&Dim::known(2));
        let want = Shape::Ranked(vec![Dim::sym("n"), Dim::known(3), h2, Dim::known(10)]);
        let out = testing::run(
            "Resize",
            13,
            &[testing::shape(nchw()), None, scales(&[1, 1, 2, 2])],
            vec![testing::string_attr("mode", "nearest")],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, want);
        // Opset 10: Resize(X, scales).
        let out = testing::run(
            "Resize",
            10,
            &[testing::shape(nchw()), scales(&[1, 1, 2, 2])],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, want);
        // Upsample-9 takes them as an input too.
        let out = testing::run(
            "Upsample",
            9,
            &[testing::shape(nchw()), scales(&[1, 1, 2, 2])],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, want);
    }

    #[test]
    fn crop_and_resize_and_bad_scale_counts_are_not_guessed() {
        let out = testing::run(
            "Resize",
            13,
            &[testing::shape(nchw()), None, scales(&[1, 1, 2, 2])],
            vec![testing::string_attr(
                "coordinate_transformation_mode",
                "tf_crop_and_resize",
            )],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Ranked(vec![Dim::Unknown; 4]));
        let err = testing::run(
            "Resize",
            13,
            &[testing::shape(nchw()), None, scales(&[2, 2])],
            vec![],
        );
        assert!(err.is_err());
    }
}
