//! Convolutions and pools: `Conv`, `ConvInteger`, `QLinearConv`, `ConvTranspose` here, the
//! windowed pools (`AveragePool`, `MaxPool` with its `Indices`, `LpPool`), `MaxRoiPool`, and the
//! global pools in `pool.rs`. Output spatial sizes follow the ONNX Conv-11 / MaxPool-12 / ConvTranspose-11 docs;
//! `window.rs` holds the per-axis arithmetic.

use crate::model::dtype::elem;
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::nn::conv_channels::{self, Operands};
use crate::ops::nn::per_channel::{self, Channels};
use crate::ops::nn::spatial::{data_dims, dim_at};
use crate::ops::overflow::sized;
use crate::ops::window::{Sizing, Window};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// The kernel's spatial sizes: the `kernel_shape` attribute, else the weight's trailing dims.
pub(crate) fn kernel_of(
    ctx: &Ctx<'_>,
    weight: Option<&[Dim]>,
) -> Result<Option<Vec<Dim>>, RuleError> {
    if let Some(k) = ctx.attrs().ints("kernel_shape")? {
        return Ok(Some(k.iter().copied().map(Dim::known).collect()));
    }
    Ok(weight.map(|w| w.iter().skip(2).cloned().collect()))
}

/// Which convolution a row names: the operand slots and the output type differ.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum ConvOp {
    /// `Conv(X, W, B)`.
    Conv,
    /// `ConvInteger(x, w, x_zero_point, w_zero_point)`: no bias, int32 output.
    ConvInteger,
    /// `QLinearConv(x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, B)`.
    QLinearConv,
}

/// `Conv(X, W, B)`, `ConvInteger(x, w, ..)` and `QLinearConv(x, .., w, .., B)`: output
/// `(N, M, spatial...)` with M the weight's first dim.
pub(crate) fn conv(ctx: &Ctx<'_>, form: ConvOp) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type().as_str();
    let (w_slot, bias_slot, out_elem) = match form {
        ConvOp::ConvInteger => (1, None, Some(elem::INT32)),
        ConvOp::QLinearConv => (3, Some(8), ctx.input(7).and_then(|zp| zp.elem)),
        ConvOp::Conv => (1, Some(2), ctx.input(0).and_then(|x| x.elem)),
    };
    let x = data_dims(ctx.shape(0)?, op)?;
    let w = ctx.shape(w_slot)?.dims();
    let ops = Operands { x, w, w_slot };
    let mut pending = Pending::default();
    conv_channels::kernel(ctx, &ops, &mut pending)?;
    conv_channels::conv(&ops, conv_channels::group(ctx)?, &mut pending)?;
    let m = dim_at(w, 0);
    if let Some(slot) = bias_slot {
        let channels = Channels {
            len: &m,
            name: "M",
            slot: w_slot,
        };
        per_channel::require(ctx, slot, "B", channels, &mut pending)?;
    }
    let Some(kernel) = kernel_of(ctx, w)? else {
        return Ok(
            Inferred::single(Output::shape(unranked_or(x)).elem(out_elem))
                .with_conditions(pending.into_checks()),
        );
    };
    let window = Window::from_attrs(ctx, kernel)?;
    let mut dims = vec![dim_at(x, 0), m];
    let spatial = x.map(|d| d.get(2..).unwrap_or_default());
    dims.extend(window.checked_out(op, spatial, Sizing::Conv, &mut pending)?);
    Ok(
        Inferred::single(Output::shape(Shape::Ranked(dims)).elem(out_elem))
            .with_conditions(pending.into_checks()),
    )
}

fn unranked_or(x: Option<&[Dim]>) -> Shape {
    match x {
        Some(d) => Shape::Ranked(vec![Dim::Unknown; d.len()]),
        None => Shape::Unranked,
    }
}

/// `ConvTranspose(X, W, B)`: output channels are `W.shape[1] * group`; spatial sizes come from
/// `output_shape`, or `in * stride` for `SAME_*`, or the doc's
/// `stride * (in - 1) + output_padding + ((k - 1) * dilation + 1) - pad_begin - pad_end`.
pub(crate) fn conv_transpose(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, "ConvTranspose")?;
    let w = ctx.shape(1)?.dims();
    let ops = Operands { x, w, w_slot: 1 };
    let mut pending = Pending::default();
    conv_channels::kernel(ctx, &ops, &mut pending)?;
    let group = conv_channels::group(ctx)?;
    conv_channels::transpose(&ops, group, &mut pending)?;
    let channels = sized("the output channels (W's dim 1 times group)", &[1])
        .mul(&dim_at(w, 1), &Dim::known(group))?;
    let out_channels = Channels {
        len: &channels,
        name: "M (W's dim 1 times group)",
        slot: 1,
    };
    per_channel::require(ctx, 2, "B", out_channels, &mut pending)?;
    let Some(kernel) = kernel_of(ctx, w)? else {
        return Ok(
            Inferred::single(Output::shape(unranked_or(x)).elem(x_in.elem))
                .with_conditions(pending.into_checks()),
        );
    };
    let n = kernel.len();
    let window = Window::from_attrs(ctx, kernel)?;
    let mut dims = vec![dim_at(x, 0), channels];
    let explicit = ctx.attrs().ints("output_shape")?;
    let padding = ctx.attrs().ints("output_padding")?.unwrap_or_default();
    if !padding.is_empty() && padding.len() != n {
        // onnx.shape_inference: "Attribute output_padding has incorrect size".
        return Err(Constraint::new(
            "ConvTranspose's output_padding must have one value per spatial axis",
            format!(
                "output_padding has {} values for {n} spatial axes",
                padding.len()
            ),
            &[0],
        )
        .fix("give one output_padding value per spatial axis, or drop it")
        .unmet());
    }
    match explicit {
        Some(shape) if shape.len() == n => dims.extend(shape.iter().copied().map(Dim::known)),
        // Exporters sometimes include N and C; the runtime then reads the trailing values.
        Some(_) => dims.extend(vec![Dim::Unknown; n]),
        None => {
            // onnxruntime: "Computed output dimension is <= 0".
            let spatial = x.map(|d| d.get(2..).unwrap_or_default());
            let sizes = window.transpose_out(spatial, padding)?;
            dims.extend(window.require("ConvTranspose", spatial, sizes, 1, &mut pending)?);
        }
    }
    Ok(
        Inferred::single(Output::shape(Shape::Ranked(dims)).elem(x_in.elem))
            .with_conditions(pending.into_checks()),
    )
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{self, int_attr, ints_attr, run, string_attr};
    use crate::shape::{Dim, Shape};

    fn s(dims: &[&str]) -> Option<testing::Fact> {
        testing::shape(Shape::Ranked(
            dims.iter()
                .map(|d| match d.parse::<i64>() {
                    Ok(v) => Dim::known(v),
                    Err(_) if *d == "?" => Dim::Unknown,
                    Err(_) => Dim::sym(d),
                })
                .collect(),
        ))
    }

    fn out(r: Result<crate::ops::Inferred, crate::ops::RuleError>) -> String {
        r.map_or_else(
            |e| format!("error: {e}"),
            |r| r.outputs[0].shape.to_string(),
        )
    }

    #[test]
    fn conv_3x3_pad_1_keeps_size() {
        let r = run(
            "Conv",
            11,
            &[s(&["batch", "3", "224", "224"]), s(&["64", "3", "3", "3"])],
            vec![ints_attr("pads", &[1, 1, 1, 1])],
        );
        assert_eq!(out(r), "[batch, 64, 224, 224]");
    }

    #[test]
    fn conv_stride_2_floors() {
        let r = run(
            "Conv",
            11,
            &[s(&["1", "3", "225", "224"]), s(&["8", "3", "3", "3"])],
            vec![ints_attr("strides", &[2, 2])],
        );
        assert_eq!(out(r), "[1, 8, 112, 111]");
    }

    #[test]
    fn conv_symbolic_stride_1_is_linear() {
        let r = run(
            "Conv",
            11,
            &[s(&["n", "3", "h", "w"]), s(&["8", "3", "3", "3"])],
            vec![ints_attr("pads", &[1, 1, 1, 1])],
        );
        assert_eq!(out(r), "[n, 8, h, w]");
    }

    #[test]
    fn conv_symbolic_stride_2_uses_floor_for_every_accepted_input() {
        let r = run(
            "Conv",
            11,
            &[s(&["n", "3", "h", "w"]), s(&["8", "3", "3", "3"])],
            vec![ints_attr("strides", &[2, 2])],
        );
        // (h - 3) // 2 + 1 in canonical form; h < 3 fails at run time on every runtime.
        assert_eq!(out(r), "[n, 8, (h+1)/2-1, (w+1)/2-1]");
    }

    #[test]
    fn conv_same_upper_is_ceil_of_in_over_stride() {
        let r = run(
            "Conv",
            11,
            &[s(&["n", "3", "h", "7"]), s(&["8", "3", "3", "3"])],
            vec![
                string_attr("auto_pad", "SAME_UPPER"),
                ints_attr("strides", &[2, 2]),
            ],
        );
        assert_eq!(out(r), "[n, 8, (h+1)/2, 4]");
    }

    #[test]
    fn conv_bad_pads_length_is_an_error() {
        let r = run(
            "Conv",
            11,
            &[s(&["1", "3", "8", "8"]), s(&["8", "3", "3", "3"])],
            vec![ints_attr("pads", &[1, 1])],
        );
        assert!(out(r).starts_with("error"));
    }

    #[test]
    fn conv_transpose_doubles_with_stride_2() {
        let r = run(
            "ConvTranspose",
            11,
            &[s(&["n", "16", "h", "8"]), s(&["16", "4", "4", "4"])],
            vec![
                ints_attr("strides", &[2, 2]),
                ints_attr("pads", &[1, 1, 1, 1]),
                int_attr("group", 2),
            ],
        );
        assert_eq!(out(r), "[n, 8, 2*h, 16]");
        let r = run(
            "ConvTranspose",
            11,
            &[s(&["n", "16", "h", "8"]), s(&["16", "4", "3", "3"])],
            vec![ints_attr("output_shape", &[10, 12])],
        );
        assert_eq!(out(r), "[n, 4, 10, 12]");
    }

    #[test]
    fn qlinear_conv_uses_weight_slot_3() {
        let scalar = || s(&[]);
        let r = run(
            "QLinearConv",
            10,
            &[
                s(&["n", "3", "8", "8"]),
                scalar(),
                scalar(),
                s(&["4", "3", "1", "1"]),
                scalar(),
                scalar(),
                scalar(),
                scalar(),
            ],
            vec![],
        );
        assert_eq!(out(r), "[n, 4, 8, 8]");
    }
}
