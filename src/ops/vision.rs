//! Sampling and image-layout ops (ONNX defs sections `tensor`, `nn` and `object_detection`):
//! `GridSample` (16: 4-D; 20, 22: N-D), `RoiAlign`, `AffineGrid-20`, `Col2Im-18`,
//! `CenterCropPad-18`, `MaxUnpool` and `DeformConv`. Output shapes follow each doc; the rank and
//! dim requirements are the ones `onnx.shape_inference` states for the op (its messages are
//! quoted beside each), a size read from an unknown input value is a fresh named size.

use crate::ops::axes::{self, input_ints};
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::conv::kernel_of;
use crate::ops::nn::conv_channels::{self, Operands};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::ranks::{equal, exact};
use crate::ops::window::{Sizing, Window};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

fn single(shape: Shape, elem: Option<i32>, pending: Pending) -> Inferred {
    Inferred::single(Output::shape(shape).elem(elem)).with_conditions(pending.into_checks())
}

/// `GridSample(X, grid)`: `(N, C, D1_out, ...)` of X `(N, C, D1, ...)` and grid
/// `(N, D1_out, ..., r - 2)`; `rank` fixes X's rank (4 at opset 16).
fn grid_sample(ctx: &Ctx<'_>, rank: Option<usize>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = match rank {
        Some(r) => exact(
            x_in.shape,
            r,
            "GridSample-16's X must be 4-D (N, C, H, W)",
            0,
        )?,
        None => x_in.shape.dims(),
    };
    let grid = ctx.shape(1)?.dims();
    let mut pending = Pending::default();
    let shape = match (x, grid) {
        (Some(x), Some(g)) => {
            // "The input tensor and grid tensor must have the same rank for GridSample".
            if x.len() != g.len() {
                return Err(Constraint::new(
                    "GridSample's X and grid must have the same rank",
                    format!("X has rank {}, grid {}", x.len(), g.len()),
                    &[0, 1],
                )
                .unmet());
            }
            let requires = "GridSample's grid must be (N, D1_out, ..., Dr_out, r) with r the number of spatial axes";
            let spatial = Dim::known(i64::try_from(x.len().saturating_sub(2)).unwrap_or(0));
            equal(
                &mut pending,
                &dim_at(Some(g), g.len().saturating_sub(1)),
                &spatial,
                requires,
                "grid's last dim",
                &[1],
            )?;
            equal(
                &mut pending,
                &dim_at(Some(g), 0),
                &dim_at(Some(x), 0),
                requires,
                "grid's N",
                &[0, 1],
            )?;
            let mut dims = vec![dim_at(Some(x), 0), dim_at(Some(x), 1)];
            dims.extend(g.iter().skip(1).take(g.len().saturating_sub(2)).cloned());
            Shape::Ranked(dims)
        }
        (Some(x), None) => Shape::Ranked(vec![Dim::Unknown; x.len()]),
        (None, Some(g)) => Shape::Ranked(vec![Dim::Unknown; g.len()]),
        (None, None) => Shape::Unranked,
    };
    Ok(single(shape, x_in.elem, pending))
}

/// `GridSample-16`: 4-D X.
pub(crate) fn grid_sample_16(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    grid_sample(ctx, Some(4))
}

/// `GridSample-20`, `-22`: N-D X.
pub(crate) fn grid_sample_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    grid_sample(ctx, None)
}

/// `RoiAlign(X, rois, batch_indices)`: `(num_rois, C, output_height, output_width)` of a 4-D X,
/// rois `(num_rois, 4)` and batch indices `(num_rois)`.
pub(crate) fn roi_align(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = exact(x_in.shape, 4, "RoiAlign's X must be 4-D (N, C, H, W)", 0)?;
    let rois = exact(
        ctx.shape(1)?,
        2,
        "RoiAlign's rois must be 2-D (num_rois, 4)",
        1,
    )?;
    let indices = exact(
        ctx.shape(2)?,
        1,
        "RoiAlign's batch_indices must be 1-D (num_rois)",
        2,
    )?;
    let mut pending = Pending::default();
    let requires = "RoiAlign's rois must be (num_rois, 4)";
    equal(
        &mut pending,
        &dim_at(rois, 1),
        &Dim::known(4),
        requires,
        "rois' dim 1",
        &[1],
    )?;
    let num_rois = dim_at(rois, 0);
    let requires = "RoiAlign's batch_indices must have one entry per roi";
    equal(
        &mut pending,
        &dim_at(indices, 0),
        &num_rois,
        requires,
        "batch_indices' length",
        &[1, 2],
    )?;
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

/// `AffineGrid(theta, size)`: `(N, H, W, 2)` for theta `(N, 2, 3)` and size `[N, C, H, W]`,
/// `(N, D, H, W, 3)` for `(N, 3, 4)` and `[N, C, D, H, W]`.
pub(crate) fn affine_grid_20(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let theta_in = ctx.required(0)?;
    let theta = exact(
        theta_in.shape,
        3,
        "AffineGrid's theta must be 3-D (N, 2, 3) or (N, 3, 4)",
        0,
    )?;
    let size = exact(ctx.shape(1)?, 1, "AffineGrid's size must be 1-D", 1)?;
    let from_size = size.and_then(|s| s.first()).and_then(Dim::as_known);
    let from_theta = theta
        .and_then(|t| t.get(1))
        .and_then(Dim::as_known)
        .map(|d| d + 2);
    let len = match (from_size, from_theta) {
        (Some(s), Some(t)) if s != t => {
            return Err(Constraint::new(
                "AffineGrid's size must be [N, C, H, W] for a 2-D theta (N, 2, 3), [N, C, D, H, W] for (N, 3, 4)",
                format!("size has {s} values, theta's dim 1 is {}", t - 2),
                &[0, 1],
            )
            .unmet())
        }
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => return Ok(single(Shape::Unranked, theta_in.elem, Pending::default())),
    };
    let Some(len) = usize::try_from(len).ok().filter(|l| (4..=5).contains(l)) else {
        return Err(Constraint::new(
            "AffineGrid's size must have 4 or 5 values",
            format!("it has {len}"),
            &[1],
        )
        .unmet());
    };
    let mut dims = vec![ctx.size_element(1, 0, "N", Vec::new())];
    dims.extend((2..len).map(|i| ctx.size_element(1, i, "size", Vec::new())));
    dims.push(Dim::known(i64::try_from(len - 2).unwrap_or(0)));
    Ok(single(
        Shape::Ranked(dims),
        theta_in.elem,
        Pending::default(),
    ))
}

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

/// `MaxUnpool(X, I, output_shape)`: `output_shape`'s values when given, else per spatial axis
/// `(in - 1) * stride + kernel - pad_begin - pad_end`; I has X's shape.
pub(crate) fn max_unpool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, "MaxUnpool")?;
    let mut pending = Pending::default();
    if let (Some(x), Some(i)) = (x, ctx.shape(1)?.dims()) {
        crate::ops::ranks::same_shape(
            &mut pending,
            &Shape::Ranked(i.to_vec()),
            x,
            "MaxUnpool's I must have X's shape",
            &[0, 1],
        )?;
    }
    let Some(kernel) = ctx.attrs().ints("kernel_shape")? else {
        return Err(crate::ops::spec::missing_attr("MaxUnpool", "kernel_shape"));
    };
    let spatial = kernel.len();
    if let Some(x) = x.filter(|x| x.len() != spatial + 2) {
        return Err(Constraint::new(
            "MaxUnpool's kernel_shape must have one entry per spatial axis",
            format!(
                "{} entries for {} spatial axes",
                spatial,
                x.len().saturating_sub(2)
            ),
            &[0],
        )
        .unmet());
    }
    let mut dims = vec![dim_at(x, 0), dim_at(x, 1)];
    if ctx.input(2).is_some() {
        dims.extend((0..spatial).map(|i| ctx.size_element(2, i + 2, "unpooled", Vec::new())));
        return Ok(single(Shape::Ranked(dims), x_in.elem, pending));
    }
    let strides = ctx
        .attrs()
        .ints("strides")?
        .map_or_else(|| vec![1; spatial], <[i64]>::to_vec);
    let pads = ctx
        .attrs()
        .ints("pads")?
        .map_or_else(|| vec![0; 2 * spatial], <[i64]>::to_vec);
    if strides.len() != spatial || pads.len() != 2 * spatial {
        return Err(Constraint::new(
            "MaxUnpool's strides need one value per spatial axis and pads two",
            format!(
                "{} strides, {} pads for {spatial} spatial axes",
                strides.len(),
                pads.len()
            ),
            &[0],
        )
        .unmet());
    }
    for (i, &k) in kernel.iter().enumerate() {
        let input = dim_at(x, i + 2);
        let (s, b, e) = (strides.get(i), pads.get(i), pads.get(i + spatial));
        let (Some(&s), Some(&b), Some(&e)) = (s, b, e) else {
            continue;
        };
        let base = input.sub(&Dim::known(1)).mul(&Dim::known(s));
        dims.push(
            base.add(&Dim::known(k))
                .sub(&Dim::known(b))
                .sub(&Dim::known(e)),
        );
    }
    Ok(single(Shape::Ranked(dims), x_in.elem, pending))
}

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
    use crate::ops::testing::{dims, int_attr, ints, ints_attr, run};
    use crate::shape::values::ValueTensor;
    use crate::shape::Dim;

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    fn list(values: &[i64]) -> Option<crate::ops::testing::Fact> {
        ints(ValueTensor::vector(values.iter().copied().map(Dim::known).collect()).unwrap())
    }

    #[test]
    fn grid_sample_takes_the_grid_spatial_dims() {
        assert_eq!(
            shape(&run(
                "GridSample",
                16,
                &[dims(&["2", "3", "8", "8"]), dims(&["2", "5", "6", "2"])],
                vec![]
            )),
            "[2, 3, 5, 6]"
        );
        assert_eq!(
            shape(&run(
                "GridSample",
                20,
                &[
                    dims(&["2", "3", "4", "8", "8"]),
                    dims(&["2", "4", "5", "6", "3"])
                ],
                vec![]
            )),
            "[2, 3, 4, 5, 6]"
        );
        assert!(unmet(&run(
            "GridSample",
            16,
            &[dims(&["2", "3", "8", "8"]), dims(&["3", "5", "6", "2"])],
            vec![]
        )));
        assert!(unmet(&run(
            "GridSample",
            16,
            &[dims(&["2", "3", "8", "8"]), dims(&["2", "5", "6", "3"])],
            vec![]
        )));
        assert!(unmet(&run(
            "GridSample",
            22,
            &[
                dims(&["2", "3", "8", "8"]),
                dims(&["2", "5", "6", "6", "2"])
            ],
            vec![]
        )));
    }

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

    #[test]
    fn affine_grid_reads_the_size_values() {
        assert_eq!(
            shape(&run(
                "AffineGrid",
                20,
                &[dims(&["2", "2", "3"]), list(&[2, 3, 8, 9])],
                vec![]
            )),
            "[2, 8, 9, 2]"
        );
        assert_eq!(
            shape(&run(
                "AffineGrid",
                20,
                &[dims(&["2", "3", "4"]), list(&[2, 3, 4, 8, 9])],
                vec![]
            )),
            "[2, 4, 8, 9, 3]"
        );
        assert!(unmet(&run(
            "AffineGrid",
            20,
            &[dims(&["2", "3", "4"]), list(&[2, 3, 8, 9])],
            vec![]
        )));
    }

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

    #[test]
    fn max_unpool_inverts_the_pool() {
        let k = |k| {
            vec![
                ints_attr("kernel_shape", &[k, k]),
                ints_attr("strides", &[2, 2]),
            ]
        };
        assert_eq!(
            shape(&run(
                "MaxUnpool",
                22,
                &[dims(&["1", "1", "2", "2"]), dims(&["1", "1", "2", "2"])],
                k(2)
            )),
            "[1, 1, 4, 4]"
        );
        let mut padded = k(3);
        padded.push(ints_attr("pads", &[1, 1, 1, 1]));
        assert_eq!(
            shape(&run(
                "MaxUnpool",
                11,
                &[dims(&["1", "1", "4", "4"]), dims(&["1", "1", "4", "4"])],
                padded
            )),
            "[1, 1, 7, 7]"
        );
        let out = list(&[1, 1, 5, 5]);
        assert_eq!(
            shape(&run(
                "MaxUnpool",
                9,
                &[
                    dims(&["1", "1", "2", "2"]),
                    dims(&["1", "1", "2", "2"]),
                    out
                ],
                k(2)
            )),
            "[1, 1, 5, 5]"
        );
        assert!(unmet(&run(
            "MaxUnpool",
            9,
            &[dims(&["1", "1", "2", "2"]), dims(&["1", "1", "3", "2"])],
            k(2)
        )));
    }

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
