//! The channels-last convolutions and pools onnxruntime's NHWC transformer (graph optimization
//! level 3, CPU) and the stable-diffusion optimizer write: `NhwcConv`, `NhwcFusedConv`,
//! `NhwcMaxPool`, and `QLinearConv` with `channels_last`. X is `(N, D1, ..., Dn, C)`, the weight
//! keeps ONNX Conv's `(M, C/group, k1, ..., kn)` layout, and Y is `(N, O1, ..., On, M)`: the
//! rule moves C to axis 1, applies Conv's (or `MaxPool`'s) arithmetic and constraints, and moves
//! the channels back, as onnxruntime's `convPoolShapeInferenceNhwc` does.

use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::conv::{self, kernel_of, ConvOp};
use crate::ops::nn::conv_channels::{self, Operands};
use crate::ops::nn::per_channel::{self, Channels};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::ranks::same_shape;
use crate::ops::window::{Sizing, Window};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// X's dims `(N, D1..Dn, C)` reordered as `(N, C, D1..Dn)`.
fn channels_first(x: &[Dim]) -> Vec<Dim> {
    match x {
        [n, spatial @ .., c] => {
            let mut dims = vec![n.clone(), c.clone()];
            dims.extend(spatial.iter().cloned());
            dims
        }
        // data_dims has required rank 3 or more.
        short => short.to_vec(),
    }
}

/// `(N, M, O1..On)` reordered as `(N, O1..On, M)`.
fn channels_last(y: Vec<Dim>) -> Vec<Dim> {
    let mut it = y.into_iter();
    let (Some(n), Some(m)) = (it.next(), it.next()) else {
        return Vec::new();
    };
    std::iter::once(n).chain(it).chain([m]).collect()
}

/// Where a channels-last convolution's operands are.
#[derive(Clone, Copy)]
struct Slots {
    w: usize,
    bias: Option<usize>,
    sum: Option<usize>,
}

/// A channels-last convolution: Conv-11's arithmetic on X with its channels moved first.
fn conv_nhwc(ctx: &Ctx<'_>, slots: Slots, out_elem: Option<i32>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let x = data_dims(ctx.shape(0)?, op)?.map(channels_first);
    let w = ctx.shape(slots.w)?.dims();
    let ops = Operands {
        x: x.as_deref(),
        w,
        w_slot: slots.w,
    };
    let mut pending = Pending::default();
    conv_channels::kernel(ctx, &ops, &mut pending)?;
    conv_channels::conv(&ops, conv_channels::group(ctx)?, &mut pending)?;
    let m = dim_at(w, 0);
    if let Some(slot) = slots.bias {
        let channels = Channels {
            len: &m,
            name: "M",
            slot: slots.w,
        };
        per_channel::require(ctx, slot, "B", channels, &mut pending)?;
    }
    let shape = match kernel_of(ctx, w)? {
        Some(kernel) => {
            let window = Window::from_attrs(ctx, kernel)?;
            let mut dims = vec![dim_at(x.as_deref(), 0), m];
            let spatial = x.as_deref().map(|d| d.get(2..).unwrap_or_default());
            dims.extend(window.checked_out(op, spatial, Sizing::Conv, &mut pending)?);
            Shape::Ranked(channels_last(dims))
        }
        None => x.map_or(Shape::Unranked, |d| {
            Shape::Ranked(vec![Dim::Unknown; d.len()])
        }),
    };
    if let (Some(slot), Some(y)) = (slots.sum, shape.dims()) {
        if let Some(z) = ctx.input(slot) {
            // "Optional residual/add tensor in the same channels-last layout and shape as the
            // output tensor Y".
            let requires = format!("{op}'s Z must have the output's shape (N, spatial..., M)");
            same_shape(&mut pending, z.shape, y, &requires, &[0, slot])?;
        }
    }
    Ok(
        Inferred::single(Output::shape(shape).elem(out_elem))
            .with_conditions(pending.into_checks()),
    )
}

/// `NhwcConv(X, W, B)`.
pub(crate) fn nhwc_conv(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let elem = ctx.required(0)?.elem;
    let slots = Slots {
        w: 1,
        bias: Some(2),
        sum: None,
    };
    conv_nhwc(ctx, slots, elem)
}

/// `NhwcFusedConv(X, W, B, Z)`: `NhwcConv` with an activation and `Z` added to its result.
pub(crate) fn nhwc_fused_conv(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let elem = ctx.required(0)?.elem;
    let slots = Slots {
        w: 1,
        bias: Some(2),
        sum: Some(3),
    };
    conv_nhwc(ctx, slots, elem)
}

/// `QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B)`
/// (com.microsoft): ONNX's `QLinearConv`, on channels-last data when `channels_last` is 1.
pub(crate) fn qlinear_conv(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    if ctx.int("channels_last", 0)? == 0 {
        return conv::conv(ctx, ConvOp::QLinearConv);
    }
    let elem = ctx.input(7).and_then(|zp| zp.elem);
    let slots = Slots {
        w: 3,
        bias: Some(8),
        sum: None,
    };
    conv_nhwc(ctx, slots, elem)
}

/// `NhwcMaxPool(x)`: MaxPool-12's arithmetic on channels-last x; `kernel_shape` is required.
pub(crate) fn nhwc_max_pool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = "NhwcMaxPool";
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, op)?.map(channels_first);
    let kernel = ctx.attrs().ints("kernel_shape")?.ok_or_else(|| {
        Constraint::new(format!("{op} requires the kernel_shape attribute"), "", &[])
            .fix("give kernel_shape, one size per spatial axis")
            .unmet()
    })?;
    if let Some(n) = x
        .as_deref()
        .map(|d| d.len().saturating_sub(2))
        .filter(|&n| n != kernel.len())
    {
        return Err(Constraint::new(
            format!("{op}'s kernel_shape must have one entry per spatial axis of x"),
            format!(
                "kernel_shape has {} entries, x has {n} spatial axes",
                kernel.len()
            ),
            &[0],
        )
        .unmet());
    }
    let window = Window::from_attrs(ctx, kernel.iter().copied().map(Dim::known).collect())?;
    let mut pending = Pending::default();
    let mut dims = vec![dim_at(x.as_deref(), 0), dim_at(x.as_deref(), 1)];
    let spatial = x.as_deref().map(|d| d.get(2..).unwrap_or_default());
    dims.extend(window.checked_out(op, spatial, Sizing::Pool, &mut pending)?);
    let shape = match x {
        Some(_) => Shape::Ranked(channels_last(dims)),
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x_in.elem))
        .with_conditions(pending.into_checks()))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::unmet;
    use crate::ops::testing::{dims, int_attr, ints_attr, output_shapes, run_microsoft};

    // Output shapes as onnxruntime 1.31 runs these nodes (tools/contrib_rules_check.py).

    #[test]
    fn nhwc_conv_moves_the_channels_last() {
        let attrs = vec![
            ints_attr("strides", &[2, 2]),
            ints_attr("pads", &[1, 1, 1, 1]),
        ];
        let r = run_microsoft(
            "NhwcConv",
            &[
                dims(&["N", "8", "8", "3"]),
                dims(&["16", "3", "3", "3"]),
                dims(&["16"]),
            ],
            attrs,
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[N, 4, 4, 16]"]);
        // C (X's last dim) against the weight's C/group.
        assert!(unmet(&run_microsoft(
            "NhwcConv",
            &[dims(&["1", "8", "8", "4"]), dims(&["16", "3", "3", "3"])],
            vec![],
            1
        )));
    }

    #[test]
    fn fused_sum_must_have_the_output_shape() {
        let x = || dims(&["1", "8", "8", "3"]);
        let w = || dims(&["4", "3", "1", "1"]);
        let b = || dims(&["4"]);
        let r = run_microsoft(
            "NhwcFusedConv",
            &[x(), w(), b(), dims(&["1", "8", "8", "4"])],
            vec![],
            1,
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[1, 8, 8, 4]"]);
        assert!(unmet(&run_microsoft(
            "NhwcFusedConv",
            &[x(), w(), b(), dims(&["1", "8", "8", "3"])],
            vec![],
            1
        )));
    }

    #[test]
    fn qlinear_conv_reads_channels_last() {
        let s = || dims(&[]);
        let inputs = |x: &[&str]| {
            vec![
                dims(x),
                s(),
                s(),
                dims(&["8", "3", "3", "3"]),
                s(),
                s(),
                s(),
                s(),
            ]
        };
        let r = run_microsoft("QLinearConv", &inputs(&["1", "3", "10", "10"]), vec![], 1).unwrap();
        assert_eq!(output_shapes(&r), ["[1, 8, 8, 8]"]);
        let last = vec![int_attr("channels_last", 1)];
        let r = run_microsoft("QLinearConv", &inputs(&["1", "10", "12", "3"]), last, 1).unwrap();
        assert_eq!(output_shapes(&r), ["[1, 8, 10, 8]"]);
    }

    #[test]
    fn nhwc_max_pool_pools_the_middle_axes() {
        let attrs = vec![
            ints_attr("kernel_shape", &[2, 2]),
            ints_attr("strides", &[2, 2]),
        ];
        let r = run_microsoft("NhwcMaxPool", &[dims(&["1", "H", "8", "5"])], attrs, 1).unwrap();
        assert_eq!(output_shapes(&r)[0].split(", ").last(), Some("5]"));
        assert!(output_shapes(&r)[0].ends_with("4, 5]"));
        assert!(run_microsoft("NhwcMaxPool", &[dims(&["1", "8", "8", "5"])], vec![], 1).is_err());
    }
}
