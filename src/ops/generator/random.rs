//! Generators and their shapes (ONNX defs section `generator`, plus `Multinomial`): `EyeLike`
//! (the 2-D input's shape), `RandomNormal` / `RandomUniform` (the `shape` attribute),
//! `RandomNormalLike` / `RandomUniformLike` / `Bernoulli` (the input's shape) and `Multinomial`
//! (`[batch, sample_size]`). Each rank and dim requirement is `onnx.shape_inference`'s for the
//! op.

use crate::ops::nn::spatial::dim_at;
use crate::ops::ranks::exact;
use crate::ops::spec::missing_attr;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// The `dtype` attribute when set, else `default`.
fn dtype(ctx: &Ctx<'_>, default: Option<i32>) -> Result<Option<i32>, RuleError> {
    Ok(ctx
        .attrs()
        .int("dtype")?
        .and_then(|t| i32::try_from(t).ok())
        .or(default))
}

/// `EyeLike(input)`: the input's shape, which must be 2-D ("Input tensor must be
/// 2-dimensional").
pub(crate) fn eye_like(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    exact(x.shape, 2, "EyeLike's input must be 2-D", 0)?;
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(dtype(ctx, x.elem)?),
    ))
}

/// `RandomNormal`, `RandomUniform`: the required `shape` attribute.
pub(crate) fn random(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let Some(shape) = ctx.attrs().ints("shape")? else {
        return Err(missing_attr(ctx.node().op_type(), "shape"));
    };
    let shape = Shape::Ranked(shape.iter().copied().map(Dim::known).collect());
    Ok(Inferred::single(
        Output::shape(shape).elem(dtype(ctx, Some(1))?),
    ))
}

/// `RandomNormalLike`, `RandomUniformLike`, `Bernoulli`: the input's shape.
pub(crate) fn random_like(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = ctx.required(0)?;
    Ok(Inferred::single(
        Output::shape(x.shape.clone()).elem(dtype(ctx, x.elem)?),
    ))
}

/// `Multinomial(input)`: `[batch_size, sample_size]` of a `[batch_size, class_size]` input
/// ("Input tensor must have rank 2").
pub(crate) fn multinomial(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let x = exact(
        ctx.shape(0)?,
        2,
        "Multinomial's input must be 2-D [batch_size, class_size]",
        0,
    )?;
    let samples = Dim::known(ctx.int("sample_size", 1)?);
    let shape = Shape::Ranked(vec![dim_at(x, 0), samples]);
    Ok(Inferred::single(
        Output::shape(shape).elem(dtype(ctx, Some(6))?),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::spec::verdict::{shape, unmet};
    use crate::ops::testing::{dims, int_attr, ints_attr, run};

    // Each case as `onnx.shape_inference.infer_shapes(strict_mode=True)` (onnx 1.23) gives it.

    #[test]
    fn eye_like_needs_2_d() {
        assert_eq!(
            shape(&run("EyeLike", 22, &[dims(&["3", "n"])], vec![])),
            "[3, n]"
        );
        assert!(unmet(&run("EyeLike", 9, &[dims(&["3", "4", "5"])], vec![])));
    }

    #[test]
    fn random_shapes_come_from_the_attribute_or_the_input() {
        assert_eq!(
            shape(&run(
                "RandomNormal",
                22,
                &[],
                vec![ints_attr("shape", &[2, 3])]
            )),
            "[2, 3]"
        );
        assert!(unmet(&run("RandomUniform", 1, &[], vec![])));
        assert_eq!(
            shape(&run("RandomUniformLike", 22, &[dims(&["b", "4"])], vec![])),
            "[b, 4]"
        );
        assert_eq!(
            shape(&run("Bernoulli", 15, &[dims(&["3", "4"])], vec![])),
            "[3, 4]"
        );
    }

    #[test]
    fn multinomial_draws_sample_size_per_row() {
        let r = run(
            "Multinomial",
            22,
            &[dims(&["3", "4"])],
            vec![int_attr("sample_size", 5)],
        );
        assert_eq!(shape(&r), "[3, 5]");
        assert!(unmet(&run(
            "Multinomial",
            7,
            &[dims(&["3", "4", "5"])],
            vec![]
        )));
    }
}
