//! Quantized contrib ops that `quantize_static` (`QOperator` format) and the weight-only
//! quantizer write: `QLinearAdd`/`QLinearMul` (multidirectional broadcast of A and B),
//! `QLinearConcat`, `QLinearAveragePool`, `QLinearGlobalAveragePool` (as their float ops on
//! NCHW data; `channels_last` moves C last) and `GatherBlockQuantized` (a `Gather` on a
//! block-quantized table). ContribOperators.md.

use super::super::axes;
use super::super::nn::pool;
use super::super::{Ctx, Inferred, Output, RuleError};
use crate::model::dtype::elem::UINT8;
use crate::shape::broadcast::Rule;
use crate::shape::{Dim, Shape};

/// `QLinearAdd`/`QLinearMul(A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale,
/// C_zero_point)`: A and B broadcast multidirectionally (numpy), as `Add` and `Mul`.
pub(crate) fn binary(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let a = ctx.required(0)?;
    let b = ctx.required(3)?;
    let outcome = ctx.broadcasts().multidirectional(&[a.shape, b.shape]);
    Ok(
        Inferred::single(Output::shape(outcome.shape.clone()).elem(a.elem)).with_check(
            Rule::Multidirectional,
            vec![0, 3],
            outcome,
        ),
    )
}

/// `QLinearConcat(Y_scale, Y_zero_point, X1, X1_scale, X1_zero_point, ...)`: the tensors (slots
/// 2, 5, 8, ...) joined on `axis`: the sizes on it summed, the other dims those of any input
/// (they agree when the node runs). A rank that differs is left to the run.
pub(crate) fn concat(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let axis = ctx.int("axis", 0)?;
    let tensors: Vec<_> = (2..ctx.input_count())
        .step_by(3)
        .map(|slot| ctx.input(slot))
        .collect();
    let elem = tensors.iter().flatten().find_map(|t| t.elem);
    let Some(shapes) = tensors
        .iter()
        .map(|t| t.and_then(|t| t.shape.dims()))
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(Inferred::single(Output::shape(Shape::Unranked).elem(elem)));
    };
    let Some(rank) = shapes.first().map(|d| d.len()) else {
        return Ok(Inferred::single(Output::shape(Shape::Unranked).elem(elem)));
    };
    if shapes.iter().any(|d| d.len() != rank) {
        return Ok(Inferred::single(Output::shape(Shape::Unranked).elem(elem)));
    }
    let axis = axes::require(axis, rank, "axis")?;
    let dims = (0..rank)
        .map(|i| {
            let column = shapes.iter().filter_map(|d| d.get(i));
            if i == axis {
                column.fold(Dim::known(0), |sum, d| sum.add(d))
            } else {
                // A static size wins over a symbol: both hold when the node runs.
                let mut column: Vec<&Dim> = column.collect();
                column.sort_by_key(|d| d.as_known().is_none());
                column.first().map_or(Dim::Unknown, |d| (*d).clone())
            }
        })
        .collect();
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(dims)).elem(elem),
    ))
}

/// `QLinearAveragePool(X, x_scale, x_zero_point, y_scale, y_zero_point)`: `AveragePool` on
/// NCHW data; channels-last data is left unknown.
pub(crate) fn average_pool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    if ctx.int("channels_last", 0)? != 0 {
        return Ok(Inferred::single(Output::shape(Shape::Unranked)));
    }
    pool::pool(ctx, pool::Pool::QLinearAverage)
}

/// `QLinearGlobalAveragePool(X, ...)`: `(N, C, 1, ..., 1)`, or `(N, 1, ..., 1, C)` with
/// `channels_last`.
pub(crate) fn global_average_pool(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    if ctx.int("channels_last", 0)? == 0 {
        return pool::global_pool(ctx);
    }
    let x = ctx.required(0)?;
    let shape = match x.shape.dims() {
        Some([n, spatial @ .., c]) => {
            let ones = std::iter::repeat_n(Dim::known(1), spatial.len());
            Shape::Ranked(
                std::iter::once(n.clone())
                    .chain(ones)
                    .chain([c.clone()])
                    .collect(),
            )
        }
        _ => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(x.elem)))
}

/// `GatherBlockQuantized(data, indices, scales, zero_points)`: `Gather` on `gather_axis`
/// (default 0): `data[:axis] + indices + data[axis+1:]`, typed like the scales. uint8 data with
/// `bits` below 8 (default 4) packs `8 / bits` values per byte along its last axis, which the
/// output unpacks.
pub(crate) fn gather_block_quantized(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let indices = ctx.required(1)?;
    let elem = ctx.required(2)?.elem;
    let (Some(d), Some(idx)) = (data.shape.dims(), indices.shape.dims()) else {
        return Ok(Inferred::single(Output::shape(Shape::Unranked).elem(elem)));
    };
    let axis = axes::require(ctx.int("gather_axis", 0)?, d.len(), "gather_axis")?;
    let bits = ctx.int("bits", 4)?;
    let mut dims: Vec<Dim> = d.iter().take(axis).cloned().collect();
    dims.extend(idx.iter().cloned());
    dims.extend(d.iter().skip(axis + 1).cloned());
    let packed = match data.elem {
        Some(UINT8) => match bits {
            2 | 4 => Some(8 / bits),
            8 => None,
            _ => Some(0),
        },
        Some(_) => None,
        None => Some(0),
    };
    if let Some(per_byte) = packed {
        // The packed axis is data's last; the gather axis differs from it (the doc's rule 5).
        let unpacked = match (axis + 1 < d.len(), dims.last()) {
            (true, Some(last)) if per_byte > 0 => last.mul(&Dim::known(per_byte)),
            _ => Dim::Unknown,
        };
        if let Some(last) = dims.last_mut() {
            *last = unpacked;
        }
    }
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(dims)).elem(elem),
    ))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{dims as s, int_attr, ints_attr, output_shapes, run_in, Fact};
    use crate::ops::{Inferred, RuleError};
    use crate::proto::AttributeProto;

    fn ms(
        op: &str,
        inputs: &[Option<Fact>],
        attrs: Vec<AttributeProto>,
    ) -> Result<Inferred, RuleError> {
        run_in("com.microsoft", op, 1, inputs, attrs, 1)
    }

    fn typed(spec: &[&str], elem: i32) -> Option<Fact> {
        s(spec).map(|f| Fact {
            elem: Some(elem),
            ..f
        })
    }

    #[test]
    fn qlinear_add_broadcasts_a_and_b() {
        let r = ms(
            "QLinearAdd",
            &[
                s(&["n", "8", "h", "w"]),
                s(&[]),
                s(&[]),
                s(&["8", "1", "1"]),
            ],
            vec![],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[n, 8, h, w]"]);
        assert_eq!(r.checks[0].slots, vec![0, 3]);
        let bad = ms(
            "QLinearMul",
            &[s(&["n", "8"]), s(&[]), s(&[]), s(&["4"])],
            vec![],
        )
        .unwrap();
        assert!(bad.checks[0].outcome.is_invalid());
    }

    #[test]
    fn qlinear_concat_sums_the_axis() {
        let x = |c: &str| s(&["n", c, "h", "w"]);
        let r = ms(
            "QLinearConcat",
            &[
                s(&[]),
                s(&[]),
                x("8"),
                s(&[]),
                s(&[]),
                x("c"),
                s(&[]),
                s(&[]),
            ],
            vec![int_attr("axis", 1)],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[n, c+8, h, w]"]);
    }

    #[test]
    fn qlinear_pools_follow_their_float_ops() {
        let x = || s(&["n", "8", "16", "16"]);
        let r = ms(
            "QLinearAveragePool",
            &[x()],
            vec![
                ints_attr("kernel_shape", &[2, 2]),
                ints_attr("strides", &[2, 2]),
            ],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[n, 8, 8, 8]"]);
        let g = ms("QLinearGlobalAveragePool", &[x()], vec![]).unwrap();
        assert_eq!(output_shapes(&g), ["[n, 8, 1, 1]"]);
        let last = ms(
            "QLinearGlobalAveragePool",
            &[x()],
            vec![int_attr("channels_last", 1)],
        )
        .unwrap();
        assert_eq!(output_shapes(&last), ["[n, 1, 1, 16]"]);
    }

    #[test]
    fn gather_block_quantized_unpacks_uint8() {
        let r = ms(
            "GatherBlockQuantized",
            &[typed(&["50", "16"], 2), s(&["b", "s"]), s(&["50", "2"])],
            vec![],
        )
        .unwrap();
        assert_eq!(output_shapes(&r), ["[b, s, 32]"]);
        let int4 = ms(
            "GatherBlockQuantized",
            &[typed(&["50", "32"], 21), s(&["b", "s"]), s(&["50", "2"])],
            vec![],
        )
        .unwrap();
        assert_eq!(output_shapes(&int4), ["[b, s, 32]"]);
    }
}
