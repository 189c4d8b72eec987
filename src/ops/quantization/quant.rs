//! Quantization: `QuantizeLinear` and `DequantizeLinear` keep x's shape (ONNX
//! QuantizeLinear-21 doc); `DynamicQuantizeLinear` adds a scalar scale and zero point.
//!
//! A per-axis scale is a 1-D tensor of size `x.shape[axis]`, laid on one axis rather than
//! right-aligned, so no broadcasting rule expresses it: it is an operator constraint (E4/W4),
//! as is the zero point's shape, which must be the scale's. onnxruntime checks both when the
//! node runs, at every opset it implements (`PrepareForQDQ`); a scale or zero point with one
//! element is per-tensor there whatever its rank (0 or 1).

use crate::model::dtype::elem::{FLOAT, UINT8};
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::condition::Atom;
use crate::shape::{Condition, Dim, Shape, Tri};

/// `QuantizeLinear(x, y_scale, y_zero_point)` and `DequantizeLinear(x, x_scale, x_zero_point)`.
fn linear(ctx: &Ctx<'_>, version: u16, quantize: bool) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let scale = ctx.required(1)?;
    let mut pending = Pending::default();
    // Opset 10 has no axis: its scale is a scalar in the doc.
    if version >= 13 && ctx.int("block_size", 0)? == 0 {
        check_per_axis(x.shape, scale.shape, ctx.int("axis", 1)?, &mut pending)?;
    }
    if let Some(zero_point) = ctx.input(2) {
        check_zero_point(scale.shape, zero_point.shape, &mut pending)?;
    }
    let elem = if quantize {
        let declared = ctx.attrs().int("output_dtype")?.filter(|&t| t != 0);
        declared
            .and_then(|t| i32::try_from(t).ok())
            .or_else(|| ctx.input(2).and_then(|zp| zp.elem))
            .or(Some(UINT8))
    } else if version >= 19 {
        scale.elem
    } else {
        Some(FLOAT)
    };
    Ok(Inferred::single(Output::shape(x.shape.clone()).elem(elem))
        .with_conditions(pending.into_checks()))
}

/// `QuantizeLinear-10`: a per-tensor scale.
pub(crate) fn quantize_10(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    linear(ctx, 10, true)
}

/// `QuantizeLinear` from opset 13: a per-axis scale (or blocked, unchecked).
pub(crate) fn quantize_13(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    linear(ctx, 13, true)
}

/// `DequantizeLinear-10`: a per-tensor scale; the output is float.
pub(crate) fn dequantize_10(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    linear(ctx, 10, false)
}

/// `DequantizeLinear` 13: a per-axis scale; the output is float.
pub(crate) fn dequantize_13(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    linear(ctx, 13, false)
}

/// `DequantizeLinear` from opset 19: the output has the scale's type.
pub(crate) fn dequantize_19(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    linear(ctx, 19, false)
}

/// A 1-D scale is per-tensor with one element, else per-axis with `x.shape[axis]` elements; a
/// symbolic size `s` gives the condition `s = x.shape[axis] or s = 1`.
fn check_per_axis(
    x: &Shape,
    scale: &Shape,
    axis: i64,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let (Some(x), Some([size])) = (x.dims(), scale.dims()) else {
        return Ok(());
    };
    if size.is_one() == Tri::Yes || matches!(size, Dim::Unknown) {
        return Ok(());
    }
    // onnxruntime: "IsAxisInRange(axis, tensor_rank)" for a per-axis scale only.
    let index = crate::ops::axes::require(axis, x.len(), "axis")?;
    let Some(target) = x.get(index).filter(|t| !matches!(t, Dim::Unknown)) else {
        return Ok(());
    };
    let condition = Condition::any_of([
        Atom::Eq(size.clone(), target.clone()),
        Atom::IsOne(size.clone()),
    ]);
    pending.holds_if(&condition, || {
        Constraint::new(
            "a per-axis scale must be 1-D with x.shape[axis] elements",
            format!("the scale has {size} elements, axis {axis} of x has size {target}"),
            &[0, 1],
        )
        .fix("check the axis attribute (default 1), or re-export the scale for that axis")
    })
}

/// The zero point has the scale's shape; both with one element (rank 0 or 1) is per-tensor.
fn check_zero_point(
    scale: &Shape,
    zero_point: &Shape,
    pending: &mut Pending,
) -> Result<(), RuleError> {
    let (Some(s), Some(z)) = (scale.dims(), zero_point.dims()) else {
        return Ok(());
    };
    let one_element = |d: &[Dim]| match d {
        [] => Tri::Yes,
        [n] => n.is_one(),
        _ => Tri::No,
    };
    let constraint = || {
        Constraint::new(
            "the zero point must have the scale's shape",
            format!("scale is {scale}, zero point is {zero_point}"),
            &[1, 2],
        )
        .fix("give the zero point the scale's shape")
    };
    if one_element(s) == Tri::Yes && one_element(z) == Tri::Yes {
        return Ok(());
    }
    if s.len() == z.len() {
        for (a, b) in s.iter().zip(z) {
            pending.equal(a, b, constraint)?;
        }
        return Ok(());
    }
    // Ranks differ: faulty unless both have one element, which only symbols can leave open.
    if one_element(s) == Tri::No || one_element(z) == Tri::No {
        return Err(constraint().unmet());
    }
    Ok(())
}

/// `DynamicQuantizeLinear(x)`: y like x (uint8), scalar float scale, scalar uint8 zero point.
pub(crate) fn dynamic(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
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
    use crate::ops::testing::{conditions, unmet};
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
    fn per_axis_scale_length_is_a_constraint() {
        for op in ["QuantizeLinear", "DequantizeLinear"] {
            for opset in [13, 21] {
                let c = unmet(run(op, opset, &[s(&["2", "3", "4"]), s(&["4"])], vec![]));
                assert_eq!(c.found, "the scale has 4 elements, axis 1 of x has size 3");
                assert_eq!(c.slots, vec![0, 1]);
            }
            // Opset 10 has no axis: its scale is a scalar in the doc.
            assert!(run(op, 10, &[s(&["2", "3", "4"]), s(&["4"])], vec![]).is_ok());
            // One element is per-tensor.
            assert!(run(op, 21, &[s(&["2", "3", "4"]), s(&["1"])], vec![]).is_ok());
        }
        let r = run(
            "DequantizeLinear",
            21,
            &[s(&["n", "c", "8"]), s(&["16"])],
            vec![],
        )
        .unwrap();
        assert_eq!(conditions(&r), ["c = 16"]);
        let r = run(
            "DequantizeLinear",
            21,
            &[s(&["n", "3", "8"]), s(&["k"])],
            vec![],
        )
        .unwrap();
        assert_eq!(conditions(&r).len(), 1);
        let c = unmet(run(
            "QuantizeLinear",
            21,
            &[s(&["2", "3", "4"]), s(&["3"])],
            vec![int_attr("axis", 5)],
        ));
        assert_eq!(c.found, "axis is 5, rank is 3");
        // A per-tensor scale ignores the axis.
        assert!(run(
            "QuantizeLinear",
            21,
            &[s(&["2", "3", "4"]), s(&[])],
            vec![int_attr("axis", 5)]
        )
        .is_ok());
    }

    #[test]
    fn zero_point_has_the_scale_shape() {
        let x = || s(&["2", "3", "4"]);
        let c = unmet(run(
            "DequantizeLinear",
            21,
            &[x(), s(&["3"]), s(&["4"])],
            vec![],
        ));
        assert_eq!(c.found, "scale is [3], zero point is [4]");
        assert_eq!(c.slots, vec![1, 2]);
        assert!(run("DequantizeLinear", 21, &[x(), s(&["3"]), s(&[])], vec![]).is_err());
        assert!(run("QuantizeLinear", 10, &[x(), s(&[]), s(&["3"])], vec![]).is_err());
        // Scalar and [1] are both per-tensor.
        assert!(run("QuantizeLinear", 21, &[x(), s(&[]), s(&["1"])], vec![]).is_ok());
        assert!(run("QuantizeLinear", 21, &[x(), s(&["1"]), s(&[])], vec![]).is_ok());
        let blocked = vec![int_attr("block_size", 2)];
        assert!(run(
            "DequantizeLinear",
            21,
            &[
                s(&["2", "4", "4"]),
                s(&["2", "2", "4"]),
                s(&["2", "2", "4"])
            ],
            blocked.clone()
        )
        .is_ok());
        assert!(run(
            "DequantizeLinear",
            21,
            &[
                s(&["2", "4", "4"]),
                s(&["2", "2", "4"]),
                s(&["2", "3", "4"])
            ],
            blocked
        )
        .is_err());
        let r = run("DequantizeLinear", 21, &[x(), s(&["3"]), s(&["z"])], vec![]).unwrap();
        assert_eq!(conditions(&r), ["z = 3"]);
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
