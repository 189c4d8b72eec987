//! Image contrib ops (com.microsoft, CPU kernels): `MaxpoolWithMask` (`MaxPool`'s windows over X;
//! the int32 mask has X's rank and spatial dims, as onnxruntime's kernel checks: "Mask and input
//! spatial dimensions mismatch"), `CropAndResize` (`(num_rois, C,
//! crop_height, crop_width)`; 4-D X, `(num_rois, 4)` rois and `(num_rois)` batch indices, as its
//! inference and kernel require) and `ConvTransposeWithDynamicPads` (`ConvTranspose` with the pads
//! as input 2, its kernel requires them: "Dynamic pads tensor is required").

use crate::ops::axes::input_ints;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::conv::kernel_of;
use crate::ops::nn::conv_channels::{self, Operands};
use crate::ops::nn::per_channel::{self, Channels};
use crate::ops::nn::pool::{self, Pool};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::object_detection::roi_align::{region_agreements, region_ranks};
use crate::ops::ranks::{equal, exact};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// `MaxpoolWithMask(X, M)`: `MaxPool`'s `(N, C, spatial...)` (its windows; `LpPool`'s rule, which
/// shares them without `MaxPool`'s `Indices` and padding checks).
pub(crate) fn maxpool_with_mask(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let mask = ctx.required(1)?;
    let mut pending = Pending::default();
    if let (Some(xd), Some(md)) = (x.shape.dims(), mask.shape.dims()) {
        let requires = "MaxpoolWithMask's mask must have X's rank and spatial dims";
        if xd.len() != md.len() {
            let found = format!("the mask has rank {}, X {}", md.len(), xd.len());
            return Err(Constraint::new(requires, found, &[0, 1]).unmet());
        }
        // Its N and C are not read against X's: onnxruntime 1.31 runs a (1, 2, H, W) or a
        // (3, 5, H, W) mask on a (2, 3, H, W) X.
        for (axis, (m, full)) in md.iter().zip(xd).enumerate().skip(2) {
            equal(
                &mut pending,
                m,
                full,
                requires,
                &format!("the mask's dim {axis}"),
                &[0, 1],
            )?;
        }
    }
    Ok(pool::pool(ctx, Pool::Lp)?.with_conditions(pending.into_checks()))
}

/// `CropAndResize(X, rois, batch_indices, crop_size)`: `(num_rois, C, crop_height,
/// crop_width)`, the crop sizes from `crop_size`'s value (unknown when it is not known).
pub(crate) fn crop_and_resize(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let [x, rois, indices] = region_ranks(ctx, "CropAndResize", x_in.shape)?;
    let crop = ctx.required(3)?;
    exact(
        crop.shape,
        1,
        "CropAndResize's crop_size must be 1-D [crop_height, crop_width]",
        3,
    )?;
    let mut pending = Pending::default();
    let num_rois = region_agreements(&mut pending, "CropAndResize", rois, indices)?;
    let (h, w) = match input_ints(Some(crop)).as_deref() {
        Some(&[h, w]) => (Dim::known(h), Dim::known(w)),
        Some(other) => {
            let requires = "CropAndResize's crop_size must hold 2 values";
            let found = format!("it holds {}", other.len());
            return Err(Constraint::new(requires, found, &[3]).unmet());
        }
        None => (Dim::Unknown, Dim::Unknown),
    };
    let shape = Shape::Ranked(vec![num_rois, dim_at(x, 1), h, w]);
    Ok(Inferred::single(Output::shape(shape).elem(x_in.elem))
        .with_conditions(pending.into_checks()))
}

/// `ConvTransposeWithDynamicPads(X, W, Pads, B)`: `ConvTranspose`'s
/// `(N, W's dim 1 * group, spatial...)`, each spatial size
/// `stride * (in - 1) + output_padding + ((k - 1) * dilation + 1) - pad_begin - pad_end` with the pads from input 2's value (unknown when it is not known,
/// or with `auto_pad`).
pub(crate) fn conv_transpose_with_dynamic_pads(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = "ConvTransposeWithDynamicPads";
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, op)?;
    let w = ctx.shape(1)?.dims();
    let pads_in = ctx.input(2).ok_or_else(|| {
        Constraint::new(
            format!("{op} requires its Pads input"),
            "Pads is absent",
            &[],
        )
        .fix("give the pads as input 2, or use ConvTranspose")
        .unmet()
    })?;
    let ops = Operands { x, w, w_slot: 1 };
    let mut pending = Pending::default();
    conv_channels::kernel(ctx, &ops, &mut pending)?;
    let group = conv_channels::group(ctx)?;
    conv_channels::transpose(&ops, group, &mut pending)?;
    let channels = dim_at(w, 1).mul(&Dim::known(group));
    let out_channels = Channels {
        len: &channels,
        name: "M (W's dim 1 times group)",
        slot: 1,
    };
    per_channel::require(ctx, 3, "B", out_channels, &mut pending)?;
    let Some(spatial) = x.map(|d| d.get(2..).unwrap_or_default()) else {
        return Ok(
            Inferred::single(Output::shape(Shape::Unranked).elem(x_in.elem))
                .with_conditions(pending.into_checks()),
        );
    };
    let n = spatial.len();
    let mut dims = vec![dim_at(x, 0), channels];
    let auto = ctx.attrs().string("auto_pad")?.unwrap_or("NOTSET");
    let kernel = kernel_of(ctx, w)?;
    let list = |name: &str, default: i64| -> Result<Vec<i64>, RuleError> {
        Ok(ctx
            .attrs()
            .ints(name)?
            .map_or_else(|| vec![default; n], <[i64]>::to_vec))
    };
    let (strides, dilations, out_pad) = (
        list("strides", 1)?,
        list("dilations", 1)?,
        list("output_padding", 0)?,
    );
    let pads = input_ints(Some(pads_in));
    match (kernel, pads, auto == "NOTSET") {
        (Some(kernel), Some(pads), true)
            if pads.len() == 2 * n
                && [kernel.len(), strides.len(), dilations.len(), out_pad.len()]
                    .iter()
                    .all(|&l| l == n) =>
        {
            for (i, d) in spatial.iter().enumerate() {
                let at = |v: &[i64], i: usize| v.get(i).copied().unwrap_or(0);
                let k = kernel.get(i).cloned().unwrap_or(Dim::Unknown);
                let effective = k
                    .sub(&Dim::known(1))
                    .mul(&Dim::known(at(&dilations, i)))
                    .add(&Dim::known(1));
                let size = d
                    .sub(&Dim::known(1))
                    .mul(&Dim::known(at(&strides, i)))
                    .add(&Dim::known(at(&out_pad, i)))
                    .add(&effective)
                    .sub(&Dim::known(at(&pads, i)))
                    .sub(&Dim::known(at(&pads, i + n)));
                dims.push(size);
            }
        }
        (_, Some(pads), true) if pads.len() != 2 * n => {
            let requires = format!("{op}'s Pads must hold 2 values per spatial axis");
            let found = format!("{} values for {n} spatial axes", pads.len());
            return Err(Constraint::new(requires, found, &[0, 2]).unmet());
        }
        _ => dims.extend(vec![Dim::Unknown; n]),
    }
    Ok(
        Inferred::single(Output::shape(Shape::Ranked(dims)).elem(x_in.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_list, ints_attr, run_microsoft};

    #[test]
    fn maxpool_with_mask_pools_and_checks_the_mask() {
        let attrs = || {
            vec![
                ints_attr("kernel_shape", &[2, 2]),
                ints_attr("strides", &[2, 2]),
            ]
        };
        let run = |m: &[&str]| {
            run_microsoft(
                "MaxpoolWithMask",
                &[dims(&["n", "3", "8", "8"]), dims(m)],
                attrs(),
                1,
            )
        };
        assert_eq!(shape(&run(&["1", "3", "8", "8"])), "[n, 3, 4, 4]");
        assert_eq!(shape(&run(&["1", "1", "8", "8"])), "[n, 3, 4, 4]");
        // onnxruntime 1.31: "Mask and input spatial dimensions mismatch at dimension 2".
        assert!(unmet(&run(&["1", "3", "4", "4"])));
        assert_eq!(shape(&run(&["3", "5", "8", "8"])), "[n, 3, 4, 4]");
        assert!(unmet(&run(&["3", "8", "8"])));
    }

    #[test]
    fn crop_and_resize_is_rois_by_crop() {
        let run = |rois: &[&str], idx: &[&str]| {
            run_microsoft(
                "CropAndResize",
                &[
                    dims(&["n", "3", "h", "w"]),
                    dims(rois),
                    dims(idx),
                    int_list(&[5, 6]),
                ],
                vec![],
                1,
            )
        };
        assert_eq!(shape(&run(&["r", "4"], &["r"])), "[r, 3, 5, 6]");
        assert!(unmet(&run(&["4", "4"], &["3"])));
        assert!(unmet(&run(&["4", "5"], &["4"])));
    }

    #[test]
    fn conv_transpose_with_dynamic_pads_reads_the_pads() {
        let run = |pads: Option<crate::ops::testing::Fact>| {
            run_microsoft(
                "ConvTransposeWithDynamicPads",
                &[
                    dims(&["1", "3", "5", "h"]),
                    dims(&["3", "2", "3", "3"]),
                    pads,
                ],
                vec![ints_attr("strides", &[2, 2])],
                1,
            )
        };
        // onnxruntime 1.31: [1, 3, 5, 5] with pads 1 gives [1, 2, 9, 9].
        assert_eq!(shape(&run(int_list(&[1, 1, 1, 1]))), "[1, 2, 9, 2*h-1]");
        assert_eq!(shape(&run(dims(&["4"]))), "[1, 2, ?, ?]");
        assert!(unmet(&run(None)));
        assert!(unmet(&run(int_list(&[1, 1]))));
    }
}
