//! Ops that permute dims or trade depth for space: `Transpose` (`perm`, default reversed),
//! `DepthToSpace` and `SpaceToDepth` (`[N, C, H, W]` with `blocksize`; a divided dim is known
//! only when the division is exact).

use super::axes::{self, unknown_dims};
use super::{value_ops, Ctx, Inferred, Output, RuleError, RuleFn};
use crate::shape::{Dim, Shape};

/// The rule for `op_type`, if this family has it.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Transpose" => transpose,
        "DepthToSpace" => depth_to_space,
        "SpaceToDepth" => space_to_depth,
        _ => return None,
    })
}

/// `Transpose(x, perm)`: dims permuted; the default perm reverses them.
fn transpose(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let elem = input.elem;
    let Some(dims) = input.shape.dims() else {
        let rank = ctx.attrs().ints("perm")?.map(<[i64]>::len);
        return Ok(Inferred::single(
            Output::shape(rank.map_or(Shape::Unranked, unknown_dims)).elem(elem),
        ));
    };
    let perm: Vec<usize> = match ctx.attrs().ints("perm")? {
        Some(perm) => perm
            .iter()
            .map(|&p| axes::require(p, dims.len(), "Transpose perm entry"))
            .collect::<Result<_, _>>()?,
        None => (0..dims.len()).rev().collect(),
    };
    if perm.len() != dims.len() {
        return Err(RuleError::Invalid(
            "Transpose perm length differs from rank".into(),
        ));
    }
    if let Some(value) = input.value.and_then(|v| value_ops::permute(v, &perm)) {
        return Ok(Inferred::single(Output::value(value, elem)));
    }
    let out = perm
        .iter()
        .map(|&p| dims.get(p).cloned().unwrap_or(Dim::Unknown))
        .collect();
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(out)).elem(elem),
    ))
}

/// `DepthToSpace`: `[N, C, H, W] -> [N, C/(b*b), H*b, W*b]`.
fn depth_to_space(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    space_depth(ctx, true)
}

/// `SpaceToDepth`: `[N, C, H, W] -> [N, C*b*b, H/b, W/b]`.
fn space_to_depth(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    space_depth(ctx, false)
}

fn space_depth(ctx: &Ctx<'_>, to_space: bool) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let block = ctx
        .attrs()
        .int("blocksize")?
        .ok_or_else(|| RuleError::Invalid("blocksize is required".into()))?;
    if block <= 0 {
        return Err(RuleError::Invalid(format!(
            "blocksize {block} is not positive"
        )));
    }
    let block = Dim::known(block);
    let square = block.mul(&block);
    let shape = match input.shape.dims() {
        Some([batch, depth, height, width]) => Shape::Ranked(if to_space {
            vec![
                batch.clone(),
                depth.div_exact(&square),
                height.mul(&block),
                width.mul(&block),
            ]
        } else {
            vec![
                batch.clone(),
                depth.mul(&square),
                height.div_exact(&block),
                width.div_exact(&block),
            ]
        }),
        _ => unknown_dims(4),
    };
    Ok(Inferred::single(Output::shape(shape).elem(input.elem)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{self, ints_attr};
    use crate::shape::{Dim, Shape};

    fn b() -> Dim {
        Dim::sym("batch")
    }
    fn s() -> Dim {
        Dim::sym("seq")
    }

    #[test]
    fn transpose_default_reverses() {
        let x = Shape::Ranked(vec![b(), s(), Dim::known(3)]);
        let out = testing::run("Transpose", 13, &[testing::shape(x.clone())], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::known(3), s(), b()])
        );
        let out = testing::run(
            "Transpose",
            13,
            &[testing::shape(x)],
            vec![ints_attr("perm", &[0, 2, 1])],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::known(3), s()])
        );
    }

    #[test]
    fn depth_to_space_needs_an_exact_depth() {
        let x = Shape::Ranked(vec![b(), Dim::known(8), s(), Dim::known(3)]);
        let out = testing::run(
            "DepthToSpace",
            13,
            &[testing::shape(x.clone())],
            vec![testing::int_attr("blocksize", 2)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![
                b(),
                Dim::known(2),
                s().mul(&Dim::known(2)),
                Dim::known(6)
            ])
        );
        let out = testing::run(
            "SpaceToDepth",
            13,
            &[testing::shape(x)],
            vec![testing::int_attr("blocksize", 2)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::known(32), Dim::Unknown, Dim::Unknown])
        );
    }
}
