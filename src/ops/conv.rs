//! Convolutions and pools: `Conv`, `ConvInteger`, `QLinearConv`, `ConvTranspose`, the windowed
//! pools (`AveragePool`, `MaxPool` with its `Indices`, `LpPool`), `MaxRoiPool`, and the global
//! pools. Output spatial sizes follow the ONNX Conv-11 / MaxPool-12 / ConvTranspose-11 docs;
//! `window.rs` holds the per-axis arithmetic.

use super::window::Window;
use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::infer::elem;
use crate::shape::{Dim, Shape};

/// The rule for a convolution or pool, if `op_type` is one.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Conv" | "ConvInteger" | "QLinearConv" => conv,
        "ConvTranspose" => conv_transpose,
        "AveragePool" | "MaxPool" | "LpPool" => pool,
        "GlobalAveragePool" | "GlobalMaxPool" | "GlobalLpPool" => global_pool,
        "MaxRoiPool" => max_roi_pool,
        _ => return None,
    })
}

/// X's dims, or `None` when X is unranked; X must have a batch, a channel and `spatial` axes
/// when its rank is known.
fn data_dims<'a>(x: &'a Shape, op: &str) -> Result<Option<&'a [Dim]>, RuleError> {
    match x.dims() {
        Some(d) if d.len() < 3 => Err(RuleError::Invalid(format!(
            "{op} input must have rank 3 or more, got {}",
            d.len()
        ))),
        other => Ok(other),
    }
}

fn dim_at(dims: Option<&[Dim]>, i: usize) -> Dim {
    dims.and_then(|d| d.get(i)).cloned().unwrap_or(Dim::Unknown)
}

/// The kernel's spatial sizes: the `kernel_shape` attribute, else the weight's trailing dims.
fn kernel_of(ctx: &Ctx<'_>, weight: Option<&[Dim]>) -> Result<Option<Vec<Dim>>, RuleError> {
    if let Some(k) = ctx.attrs().ints("kernel_shape")? {
        return Ok(Some(k.iter().copied().map(Dim::known).collect()));
    }
    Ok(weight.map(|w| w.iter().skip(2).cloned().collect()))
}

/// `Conv(X, W, B)`, `ConvInteger(x, w, ..)` and `QLinearConv(x, .., w, ..)`: output
/// `(N, M, spatial...)` with M the weight's first dim.
fn conv(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type.as_str();
    let (w_slot, out_elem) = match op {
        "ConvInteger" => (1, Some(elem::INT32)),
        "QLinearConv" => (3, ctx.input(7).and_then(|zp| zp.elem)),
        _ => (1, ctx.input(0).and_then(|x| x.elem)),
    };
    let x = data_dims(ctx.shape(0)?, op)?;
    let w = ctx.shape(w_slot)?.dims();
    let Some(kernel) = kernel_of(ctx, w)? else {
        return Ok(Inferred::single(
            Output::shape(unranked_or(x)).elem(out_elem),
        ));
    };
    let window = Window::from_attrs(ctx, kernel)?;
    let mut dims = vec![dim_at(x, 0), dim_at(w, 0)];
    dims.extend(window.conv_out(x.map(|d| d.get(2..).unwrap_or_default())));
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(dims)).elem(out_elem),
    ))
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
fn conv_transpose(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, "ConvTranspose")?;
    let w = ctx.shape(1)?.dims();
    let Some(kernel) = kernel_of(ctx, w)? else {
        return Ok(Inferred::single(
            Output::shape(unranked_or(x)).elem(x_in.elem),
        ));
    };
    let n = kernel.len();
    let window = Window::from_attrs(ctx, kernel)?;
    let group = ctx.int("group", 1)?;
    let channels = dim_at(w, 1).mul(&Dim::known(group));
    let mut dims = vec![dim_at(x, 0), channels];
    let explicit = ctx.attrs().ints("output_shape")?;
    let padding = ctx.attrs().ints("output_padding")?.unwrap_or_default();
    if !padding.is_empty() && padding.len() != n {
        return Err(RuleError::Invalid(
            "output_padding needs one value per spatial axis".into(),
        ));
    }
    match explicit {
        Some(shape) if shape.len() == n => dims.extend(shape.iter().copied().map(Dim::known)),
        // Exporters sometimes include N and C; the runtime then reads the trailing values.
        Some(_) => dims.extend(vec![Dim::Unknown; n]),
        None => {
            let spatial = x.map(|d| d.get(2..).unwrap_or_default());
            dims.extend(window.transpose_out(spatial, padding));
        }
    }
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(dims)).elem(x_in.elem),
    ))
}

/// Windowed pools: `(N, C, spatial...)`; `MaxPool`'s optional `Indices` output has the same
/// shape, typed int64. `kernel_shape` is required.
fn pool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let op = ctx.node().op_type.as_str();
    let x_in = ctx.required(0)?;
    let x = data_dims(x_in.shape, op)?;
    let kernel = ctx
        .attrs()
        .ints("kernel_shape")?
        .ok_or_else(|| RuleError::Invalid(format!("{op} needs kernel_shape")))?;
    let window = Window::from_attrs(ctx, kernel.iter().copied().map(Dim::known).collect())?;
    let mut dims = vec![dim_at(x, 0), dim_at(x, 1)];
    dims.extend(window.conv_out(x.map(|d| d.get(2..).unwrap_or_default())));
    let shape = Shape::Ranked(dims);
    let mut outputs = vec![Output::shape(shape.clone()).elem(x_in.elem)];
    if op == "MaxPool" && ctx.node().outputs.len() > 1 {
        outputs.push(Output::shape(shape).elem(Some(elem::INT64)));
    }
    Ok(Inferred::many(outputs))
}

/// Global pools: `(N, C, 1, ..., 1)`.
fn global_pool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let shape = match x.shape.dims() {
        Some(d) if d.len() < 2 => {
            return Err(RuleError::Invalid(
                "global pools need rank 2 or more".into(),
            ))
        }
        Some(d) => {
            let ones = std::iter::repeat_n(Dim::known(1), d.len() - 2);
            Shape::Ranked(d.iter().take(2).cloned().chain(ones).collect())
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// `MaxRoiPool(X, rois)`: `(num_rois, C, pooled_shape...)`.
fn max_roi_pool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let rois = ctx.shape(1)?.dims();
    let pooled = ctx
        .attrs()
        .ints("pooled_shape")?
        .ok_or_else(|| RuleError::Invalid("MaxRoiPool needs pooled_shape".into()))?;
    let mut dims = vec![dim_at(rois, 0), dim_at(x.shape.dims(), 1)];
    dims.extend(pooled.iter().copied().map(Dim::known));
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(dims)).elem(x.elem),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{self, int_attr, ints_attr, run, run_in, string_attr};
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
    fn max_pool_with_indices_and_ceil_mode() {
        let r = run_in(
            "",
            "MaxPool",
            12,
            &[s(&["1", "3", "7", "7"])],
            vec![
                ints_attr("kernel_shape", &[2, 2]),
                ints_attr("strides", &[2, 2]),
                int_attr("ceil_mode", 1),
            ],
            2,
        )
        .unwrap();
        assert_eq!(r.outputs[0].shape.to_string(), "[1, 3, 4, 4]");
        assert_eq!(r.outputs[1].shape.to_string(), "[1, 3, 4, 4]");
        assert_eq!(r.outputs[1].elem, Some(7));
    }

    #[test]
    fn ceil_mode_window_starting_in_padding_is_unknown() {
        // ceil((5 + 2 - 2) / 2) + 1 = 4, but the last window would start at 6, past the input
        // and its left padding: runtimes that drop it give 3, so the size stays unknown.
        let r = run(
            "AveragePool",
            19,
            &[s(&["1", "1", "5"])],
            vec![
                ints_attr("kernel_shape", &[2]),
                ints_attr("strides", &[2]),
                ints_attr("pads", &[0, 2]),
                int_attr("ceil_mode", 1),
            ],
        );
        assert_eq!(out(r), "[1, 1, ?]");
    }

    #[test]
    fn global_and_roi_pools() {
        let r = run("GlobalAveragePool", 1, &[s(&["n", "c", "h", "w"])], vec![]);
        assert_eq!(out(r), "[n, c, 1, 1]");
        let r = run(
            "MaxRoiPool",
            1,
            &[s(&["1", "256", "h", "w"]), s(&["r", "5"])],
            vec![ints_attr("pooled_shape", &[7, 7])],
        );
        assert_eq!(out(r), "[r, 256, 7, 7]");
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
