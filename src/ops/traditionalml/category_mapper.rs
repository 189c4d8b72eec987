//! `ai.onnx.ml`'s `CategoryMapper`: it keeps its input's shape, mapping strings to integers or
//! back.

use crate::model::dtype::elem;
use crate::ops::{Ctx, Inferred, Output, RuleError};

/// `CategoryMapper(X)`: Y has X's shape (strings to integers or back).
pub(crate) fn category_mapper(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    let to = match x.elem {
        Some(elem::STRING) => Some(elem::INT64),
        Some(elem::INT64) => Some(elem::STRING),
        _ => None,
    };
    Ok(Inferred::single(Output::shape(x.shape.clone()).elem(to)))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::shape;
    use crate::ops::testing::{dims, run_in};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn category_mapper_keeps_the_shape() {
        assert_eq!(
            shape(&run_in(
                "ai.onnx.ml",
                "CategoryMapper",
                1,
                &[dims(&["2", "3"])],
                vec![],
                1
            )),
            "[2, 3]"
        );
    }
}
