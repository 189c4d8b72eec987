//! `Reshape` (with `0` and a symbolic `-1`): a new shape over the same elements. Small values
//! pass through. `Flatten` is in `nn/flatten.rs`; `Squeeze`/`Unsqueeze` in `squeeze.rs`;
//! `Transpose`, `DepthToSpace` and `SpaceToDepth` in `transpose.rs`.

use crate::ops::axes::{product, unknown_dims};
use crate::ops::constraint::{Constraint, Pending};
use crate::ops::overflow::sized;
use crate::ops::tensor::reshape_target::{minus_one, target_dims};
use crate::ops::{spec, Ctx, Inferred, Output, RuleError};
use crate::shape::{Dim, Shape};

/// Keeps the input's elements under a new shape (when the input carries integer or float ones).
pub(crate) fn reshaped(ctx: &Ctx<'_>, shape: Shape) -> Output {
    let elem = ctx.input(0).and_then(|i| i.elem);
    let sizes: Option<Vec<usize>> = shape.dims().and_then(|dims| {
        dims.iter()
            .map(|d| d.as_known().and_then(|n| usize::try_from(n).ok()))
            .collect()
    });
    let input = ctx.input(0);
    let value = input
        .and_then(|i| i.value)
        .zip(sizes.clone())
        .and_then(|(v, sizes)| v.reshaped(sizes));
    let real = input
        .and_then(|i| i.real())
        .zip(sizes)
        .and_then(|(v, sizes)| v.reshaped(sizes));
    match (value, real) {
        (Some(value), _) => Output::value(value, elem),
        (None, Some(real)) => Output::reals(real, elem),
        (None, None) => Output::shape(shape).elem(elem),
    }
}

/// `Reshape(data, shape)` (opset 5+; `shape` attribute before): `0` copies the input's dim at the
/// same index unless `allowzero=1`; one `-1` is the total size divided by the product of the
/// other dims, computed only when that division is exact. "The input tensor's shape and the
/// output tensor's shape are required to have the same number of elements" (Reshape doc).
fn reshape(ctx: &Ctx<'_>, version: u16) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let target: Vec<Dim> = if version < 5 {
        match ctx.attrs().ints("shape")? {
            Some(list) => list.iter().copied().map(Dim::known).collect(),
            // Optional in the Reshape-1 schema, but onnxruntime's Reshape_1 kernel refuses to
            // load without it ("Attribute shape is not set").
            None => return Err(spec::missing_attr("Reshape-1 (onnxruntime)", "shape")),
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
    let allow_zero = version >= 14 && ctx.int("allowzero", 0)? != 0;
    let input_dims = data.shape.dims();
    let (dims, inferred_at) = target_dims(&target, input_dims, allow_zero)?;
    let Some(input_dims) = input_dims else {
        return Ok(Inferred::single(reshaped(ctx, Shape::Ranked(dims))));
    };
    let mut pending = Pending::default();
    // onnx.shape_inference multiplies the known dims of both (Reshape-5 on): a count beyond
    // int64 is no tensor.
    let known: Vec<Dim> = dims
        .iter()
        .filter(|d| d.as_known().is_some())
        .cloned()
        .collect();
    sized("the target's element count", &[1]).product(&known)?;
    let dims = match inferred_at {
        // Most reshapes keep some dims and regroup the others: when what is left after striking
        // out the shared dims has equal counts, so do the whole shapes, without multiplying
        // symbols (a third of a transformer's inference time otherwise).
        None if same_count_outside_shared(input_dims, &dims) => dims,
        None => {
            let total = input_count(input_dims)?;
            let count = product(&dims);
            pending.equal(&total, &count, || {
                Constraint::new(
                    "Reshape's target must have as many elements as the input (Reshape doc)",
                    format!("the input has {total} elements, the target {count}"),
                    &[0, 1],
                )
                .fix("correct the target shape (or use -1 for the dim to infer)")
            })?;
            dims
        }
        Some(at) => minus_one(dims, at, &input_count(input_dims)?, &mut pending)?,
    };
    Ok(Inferred::single(reshaped(ctx, Shape::Ranked(dims))).with_conditions(pending.into_checks()))
}

/// The input's element count, which must fit in int64 (the input can hold no more).
fn input_count(dims: &[Dim]) -> Result<Dim, RuleError> {
    sized("the input's element count", &[0]).product(dims)
}

/// `Reshape-1`: the target is the `shape` attribute.
pub(crate) fn reshape_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    reshape(ctx, 1)
}

/// `Reshape` 5 and 13: the target is input 1; a 0 copies the input's dim.
pub(crate) fn reshape_5(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    reshape(ctx, 5)
}

/// `Reshape` from opset 14: `allowzero` may make a 0 a real 0.
pub(crate) fn reshape_14(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    reshape(ctx, 14)
}

/// Whether `a` and `b` provably hold as many elements because, once the dims they share (as
/// multisets, compared structurally) are struck out, the products of the rest are provably
/// equal. `false` means "not shown", never "different".
fn same_count_outside_shared(a: &[Dim], b: &[Dim]) -> bool {
    let mut rest: Vec<&Dim> = b.iter().collect();
    let mut left = Vec::new();
    for d in a {
        match rest.iter().position(|r| *r == d) {
            Some(i) => {
                rest.swap_remove(i);
            }
            None => left.push(d.clone()),
        }
    }
    let rest: Vec<Dim> = rest.into_iter().cloned().collect();
    product(&left).eq_dim(&product(&rest)) == crate::shape::Tri::Yes
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{self, ints_attr};
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
    fn flatten_multiplies_both_sides() {
        let x = Shape::Ranked(vec![b(), Dim::known(3), Dim::known(4)]);
        let out = testing::run("Flatten", 13, &[testing::shape(x)], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::known(12)])
        );
    }

    #[allow(
        clippy::unnecessary_wraps,
        reason = "rules take inputs as Option<Fact>"
    )]
    fn fact(out: &crate::ops::Output) -> Option<testing::Fact> {
        Some(testing::Fact {
            shape: out.shape.clone(),
            value: out.value.clone(),
            real: out.real.clone(),
            elem: out.elem,
        })
    }

    fn scalar_index(i: i64) -> Option<testing::Fact> {
        testing::ints(ValueTensor::new(vec![], vec![Dim::known(i)]).unwrap())
    }

    #[test]
    fn shape_gather_concat_reshape_keeps_batch_and_seq() {
        // x: [batch, seq, 768] -> Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)),
        // Unsqueeze(Gather(Shape(x), 1)), [12, 64])) as attention heads are split.
        let x = Shape::Ranked(vec![b(), s(), Dim::known(768)]);
        let shape = testing::run("Shape", 13, &[testing::shape(x.clone())], vec![]).unwrap();
        let axes = || testing::ints(ValueTensor::vector(vec![Dim::known(0)]).unwrap());
        let mut parts = Vec::new();
        for i in 0..2 {
            let dim = testing::run(
                "Gather",
                13,
                &[fact(&shape.outputs[0]), scalar_index(i)],
                vec![],
            )
            .unwrap();
            let vector =
                testing::run("Unsqueeze", 13, &[fact(&dim.outputs[0]), axes()], vec![]).unwrap();
            parts.push(fact(&vector.outputs[0]));
        }
        parts.push(testing::ints(
            ValueTensor::vector(vec![Dim::known(12), Dim::known(64)]).unwrap(),
        ));
        let target =
            testing::run("Concat", 13, &parts, vec![testing::int_attr("axis", 0)]).unwrap();
        let out = testing::run(
            "Reshape",
            14,
            &[testing::shape(x), fact(&target.outputs[0])],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), s(), Dim::known(12), Dim::known(64)])
        );
    }

    #[test]
    fn reshape_merges_with_minus_one_and_zero() {
        let x = Shape::Ranked(vec![b(), s(), Dim::known(12), Dim::known(64)]);
        let target =
            ValueTensor::vector(vec![Dim::known(0), Dim::known(0), Dim::known(-1)]).unwrap();
        let out = testing::run(
            "Reshape",
            13,
            &[testing::shape(x), testing::ints(target)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), s(), Dim::known(768)])
        );
    }

    #[test]
    fn reshape_allowzero_keeps_a_literal_zero() {
        let x = Shape::Ranked(vec![Dim::known(0), Dim::known(4)]);
        let target = ValueTensor::vector(vec![Dim::known(0), Dim::known(4)]).unwrap();
        let out = testing::run(
            "Reshape",
            14,
            &[testing::shape(x), testing::ints(target)],
            vec![testing::int_attr("allowzero", 1)],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, Shape::from_known(&[0, 4]));
    }

    #[test]
    fn reshape_1_reads_the_shape_attribute() {
        let x = Shape::Ranked(vec![b(), Dim::known(6)]);
        let out = testing::run(
            "Reshape",
            4,
            &[testing::shape(x)],
            vec![ints_attr("shape", &[0, 2, 3])],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![b(), Dim::known(2), Dim::known(3)])
        );
    }

    #[test]
    fn reshape_rejects_two_minus_ones_and_unknown_targets_keep_the_rank() {
        let x = testing::shape(Shape::from_known(&[4, 6]));
        let two = ValueTensor::vector(vec![Dim::known(-1), Dim::known(-1)]).unwrap();
        assert!(testing::run("Reshape", 13, &[x.clone(), testing::ints(two)], vec![]).is_err());
        let unknown = testing::shape(Shape::from_known(&[3]));
        let out = testing::run("Reshape", 13, &[x, unknown], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Ranked(vec![Dim::Unknown; 3]));
    }
}
