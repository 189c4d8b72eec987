//! Quantization: `QuantizeLinear` and `DequantizeLinear` keep x's shape (ONNX
//! QuantizeLinear-21 doc); `DynamicQuantizeLinear` adds a scalar scale and zero point.
//!
//! A per-axis scale is a 1-D tensor of size `x.shape[axis]`, laid on one axis rather than
//! right-aligned, so no broadcasting rule expresses it: a scale whose static size can never fit
//! is a rule error instead of a recorded check.

use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::shape::{Shape, Tri};

/// `UINT8`, the default quantized type.
const UINT8: i32 = 2;
/// `FLOAT`.
const FLOAT: i32 = 1;

/// The rule for a quantization op, if `op_type` is one.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "QuantizeLinear" | "DequantizeLinear" => linear,
        "DynamicQuantizeLinear" => dynamic,
        _ => return None,
    })
}

/// `QuantizeLinear(x, y_scale, y_zero_point)` and `DequantizeLinear(x, x_scale, x_zero_point)`.
fn linear(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let scale = ctx.required(1)?;
    if ctx.opset() >= 13 && ctx.int("block_size", 0)? == 0 {
        check_per_axis(x.shape, scale.shape, ctx.int("axis", 1)?)?;
    }
    let elem = if ctx.node().op_type == "QuantizeLinear" {
        let declared = ctx.attrs().int("output_dtype")?.filter(|&t| t != 0);
        declared
            .and_then(|t| i32::try_from(t).ok())
            .or_else(|| ctx.input(2).and_then(|zp| zp.elem))
            .or(Some(UINT8))
    } else if ctx.opset() >= 19 {
        scale.elem
    } else {
        Some(FLOAT)
    };
    Ok(Inferred::single(Output::shape(x.shape.clone()).elem(elem)))
}

/// A 1-D scale of more than one element must have `x.shape[axis]` elements.
fn check_per_axis(x: &Shape, scale: &Shape, axis: i64) -> Result<(), RuleError> {
    let (Some(x), Some([size])) = (x.dims(), scale.dims()) else {
        return Ok(());
    };
    if size.gt_one() != Tri::Yes {
        return Ok(());
    }
    let rank = i64::try_from(x.len()).unwrap_or(i64::MAX);
    let index = if axis < 0 {
        axis.saturating_add(rank)
    } else {
        axis
    };
    let Some(target) = usize::try_from(index).ok().and_then(|i| x.get(i)) else {
        return Err(RuleError::Invalid(format!(
            "axis {axis} is out of range for rank {rank}"
        )));
    };
    if size.eq_dim(target) == Tri::No {
        return Err(RuleError::Invalid(format!(
            "per-axis scale has {size} elements but axis {axis} has size {target}"
        )));
    }
    Ok(())
}

/// `DynamicQuantizeLinear(x)`: y like x (uint8), scalar float scale, scalar uint8 zero point.
fn dynamic(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    Ok(Inferred::many(vec![
        Output::shape(x.shape.clone()).elem(Some(UINT8)),
        Output::shape(Shape::scalar()).elem(Some(FLOAT)),
        Output::shape(Shape::scalar()).elem(Some(UINT8)),
    ]))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::dims as s;
    use crate::ops::testing::{int_attr, run, run_in};

    #[test]
    fn quantize_keeps_shape_and_defaults_to_uint8() {
        let r = run("QuantizeLinear", 13, &[s(&["n", "3", "8"]), s(&[])], vec![]).unwrap();
        assert_eq!(r.outputs[0].shape.to_string(), "[n, 3, 8]");
        assert_eq!(r.outputs[0].elem, Some(2));
    }

    #[test]
    fn per_axis_scale_must_match_axis() {
        let ok = run(
            "DequantizeLinear",
            13,
            &[s(&["n", "3", "8"]), s(&["3"])],
            vec![],
        );
        assert!(ok.is_ok());
        let bad = run(
            "DequantizeLinear",
            13,
            &[s(&["n", "3", "8"]), s(&["8"])],
            vec![],
        );
        assert!(bad.is_err());
        let last = run(
            "DequantizeLinear",
            13,
            &[s(&["n", "3", "8"]), s(&["8"])],
            vec![int_attr("axis", -1)],
        );
        assert!(last.is_ok());
    }

    #[test]
    fn dynamic_quantize_has_scalar_scale_and_zero_point() {
        let r = run_in(
            "",
            "DynamicQuantizeLinear",
            11,
            &[s(&["b", "16"])],
            vec![],
            3,
        )
        .unwrap();
        let shapes: Vec<String> = r.outputs.iter().map(|o| o.shape.to_string()).collect();
        assert_eq!(shapes, ["[b, 16]", "[]", "[]"]);
    }
}
