//! ONNX's `onnx/defs/optional` operators: `Optional` (15, 28), `OptionalGetElement` and
//! `OptionalHasElement` (15, 18, 28). The engine tracks tensor shapes only, so an optional value
//! carries the shape of the tensor it holds (as `onnx.shape_inference` types `Optional(x)` as
//! `optional(tensor(x's shape))`), and a sequence, or an empty optional, stays unknown. The
//! versions differ only in the types they accept (18 lets `OptionalGetElement` and
//! `OptionalHasElement` take a plain tensor or sequence, 28 adds element types), not in shapes.

use crate::model::dtype::elem;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::Shape;

/// `Optional(input)`: holds `input`, with its shape; without an input it is an empty optional of
/// the `type` attribute's type, whose shape is unknown here.
#[allow(
    clippy::unnecessary_wraps,
    reason = "a rule has the registry's signature (RuleFn)"
)]
pub(crate) fn optional(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let out = match ctx.input(0) {
        Some(input) => Output::shape(input.shape.clone()).elem(input.elem),
        None => Output::shape(Shape::Unranked),
    };
    Ok(Inferred::single(out))
}

/// `OptionalGetElement(input)`: the element of an optional, or the input itself when it is a
/// tensor or a sequence ("If the input is a tensor or sequence type, it returns the input"), so
/// its shape either way.
pub(crate) fn get_element(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    Ok(Inferred::single(
        Output::shape(input.shape.clone()).elem(input.elem),
    ))
}

/// `OptionalHasElement-15(input)`: a scalar bool; the input is required at 15.
pub(crate) fn has_element_15(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    ctx.required(0)?;
    has_element_18(ctx)
}

/// `OptionalHasElement` from 18: a scalar bool ("If the input is not provided or is an empty
/// optional-type, this op returns false"), the input optional.
#[allow(
    clippy::unnecessary_wraps,
    reason = "a rule has the registry's signature (RuleFn)"
)]
pub(crate) fn has_element_18(_ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    Ok(Inferred::single(
        Output::shape(Shape::scalar()).elem(Some(elem::BOOL)),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims, output_shapes, run};
    use crate::shape::Shape;

    // Each as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) types it.

    #[test]
    fn optional_holds_its_input_shape_and_get_element_returns_it() {
        for opset in [15, 28] {
            let r = run("Optional", opset, &[dims(&["B", "3"])], vec![]).unwrap();
            assert_eq!(output_shapes(&r), ["[B, 3]"]);
            let empty = run("Optional", opset, &[], vec![]).unwrap();
            assert_eq!(empty.outputs[0].shape, Shape::Unranked);
        }
        for opset in [15, 18, 28] {
            let r = run("OptionalGetElement", opset, &[dims(&["B", "3"])], vec![]).unwrap();
            assert_eq!(output_shapes(&r), ["[B, 3]"]);
            assert!(run("OptionalGetElement", opset, &[], vec![]).is_err());
        }
    }

    #[test]
    fn has_element_is_a_scalar_bool_and_needs_its_input_only_at_15() {
        let r = run("OptionalHasElement", 15, &[dims(&["2"])], vec![]).unwrap();
        assert_eq!(r.outputs[0].shape, Shape::scalar());
        assert_eq!(r.outputs[0].elem, Some(9));
        assert!(run("OptionalHasElement", 15, &[], vec![]).is_err());
        for opset in [18, 28] {
            let r = run("OptionalHasElement", opset, &[], vec![]).unwrap();
            assert_eq!(r.outputs[0].shape, Shape::scalar());
        }
    }
}
