//! Ops that rearrange dims without moving data between them: `Reshape` (with `0` and a
//! symbolic `-1`), `Flatten`, `Transpose`, `DepthToSpace`, `SpaceToDepth` (`Squeeze` and
//! `Unsqueeze` live in `squeeze.rs`). Small values pass through `Reshape` and `Flatten`.

use super::axes::{self, product, unknown_dims};
use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// The rule for `op_type`, if this family has it.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Reshape" => reshape,
        "Flatten" => flatten,
        "Transpose" => transpose,
        "DepthToSpace" => depth_to_space,
        "SpaceToDepth" => space_to_depth,
        _ => return None,
    })
}

/// Keeps the input's elements under a new shape (when the input carries a value).
pub(super) fn reshaped(ctx: &Ctx<'_>, shape: Shape) -> Output {
    let elem = ctx.input(0).and_then(|i| i.elem);
    let sizes: Option<Vec<usize>> = shape.dims().and_then(|dims| {
        dims.iter()
            .map(|d| d.as_known().and_then(|n| usize::try_from(n).ok()))
            .collect()
    });
    let value = ctx
        .input(0)
        .and_then(|i| i.value)
        .zip(sizes)
        .and_then(|(v, sizes)| ValueTensor::new(sizes, v.data.clone()));
    match value {
        Some(value) => Output::value(value, elem),
        None => Output::shape(shape).elem(elem),
    }
}

/// `Reshape(data, shape)` (opset 5+; `shape` attribute before): `0` copies the input's dim at the
/// same index unless `allowzero=1`; one `-1` is the total size divided by the product of the
/// other dims, computed only when that division is exact.
fn reshape(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let target: Vec<Dim> = if ctx.opset() < 5 {
        match ctx.attrs().ints("shape")? {
            Some(list) => list.iter().copied().map(Dim::known).collect(),
            None => {
                return Err(RuleError::Invalid(
                    "Reshape-1 needs a shape attribute".into(),
                ))
            }
        }
    } else {
        let shape_input = ctx.required(1)?;
        let Some(value) = shape_input.value else {
            // Unknown target values: its length is still the output's rank.
            let rank = shape_input.shape.dims().and_then(|d| match d {
                [n] => n.as_known().and_then(|n| usize::try_from(n).ok()),
                _ => None,
            });
            return Ok(Inferred::single(reshaped(
                ctx,
                rank.map_or(Shape::Unranked, unknown_dims),
            )));
        };
        value.data.clone()
    };
    let allow_zero = ctx.opset() >= 14 && ctx.int("allowzero", 0)? != 0;
    let input_dims = data.shape.dims();
    let mut dims = Vec::with_capacity(target.len());
    let mut inferred_at = None;
    for (i, t) in target.iter().enumerate() {
        let dim = match t.as_known() {
            Some(0) if !allow_zero => input_dims
                .and_then(|d| d.get(i))
                .cloned()
                .unwrap_or(Dim::Unknown),
            Some(-1) => {
                if inferred_at.replace(i).is_some() {
                    return Err(RuleError::Invalid(
                        "Reshape target has two -1 entries".into(),
                    ));
                }
                Dim::Unknown
            }
            Some(n) if n < -1 => {
                return Err(RuleError::Invalid(format!("Reshape target has size {n}")))
            }
            _ => t.clone(),
        };
        dims.push(dim);
    }
    if let (Some(at), Some(input_dims)) = (inferred_at, input_dims) {
        let total = product(input_dims);
        let others = product(
            &dims
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != at)
                .map(|(_, d)| d.clone())
                .collect::<Vec<_>>(),
        );
        if let Some(slot) = dims.get_mut(at) {
            *slot = total.div_exact(&others);
        }
    }
    Ok(Inferred::single(reshaped(ctx, Shape::Ranked(dims))))
}

/// `Flatten(x, axis)`: `[prod(dims[..axis]), prod(dims[axis..])]`.
fn flatten(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let Some(dims) = input.shape.dims() else {
        return Ok(Inferred::single(reshaped(ctx, unknown_dims(2))));
    };
    let axis = ctx.int("axis", 1)?;
    let rank = i64::try_from(dims.len()).unwrap_or(i64::MAX);
    // Flatten accepts axis in [-r, r].
    let axis = if axis < 0 { axis + rank } else { axis };
    let axis = usize::try_from(axis)
        .ok()
        .filter(|a| *a <= dims.len())
        .ok_or_else(|| RuleError::Invalid(format!("Flatten axis out of range for rank {rank}")))?;
    let (outer, inner) = dims.split_at(axis);
    Ok(Inferred::single(reshaped(
        ctx,
        Shape::Ranked(vec![product(outer), product(inner)]),
    )))
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
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    fn b() -> Dim {
        Dim::sym("batch")
    }
    fn s() -> Dim {
        Dim::sym("seq")
    }

    #[test]
    fn reshape_splits_heads_with_a_symbolic_minus_one() {
        let x = Shape::Ranked(vec![b(), s(), Dim::known(768)]);
        let target =
            ValueTensor::vector(vec![b(), Dim::known(-1), Dim::known(12), Dim::known(64)]).unwrap();
        let out = testing::run(
            "Reshape",
            14,
            &[testing::shape(x), testing::ints(target)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), s(), Dim::known(12), Dim::known(64)])
        );
    }

    #[test]
    fn reshape_zero_copies_and_inexact_minus_one_is_unknown() {
        let x = Shape::Ranked(vec![b(), s(), Dim::known(10)]);
        let target =
            ValueTensor::vector(vec![Dim::known(0), Dim::known(-1), Dim::known(3)]).unwrap();
        let out = testing::run(
            "Reshape",
            14,
            &[testing::shape(x), testing::ints(target)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::Unknown, Dim::known(3)])
        );
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
    fn flatten_multiplies_both_sides() {
        let x = Shape::Ranked(vec![b(), Dim::known(3), Dim::known(4)]);
        let out = testing::run("Flatten", 13, &[testing::shape(x)], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::known(12)])
        );
    }
}
