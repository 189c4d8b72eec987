//! Indexing ops: `Gather` (with data propagation over small values such as `Shape`'s output),
//! `GatherElements`, `GatherND`, `ScatterND`, `ScatterElements`, `Compress`, `NonZero`, `Unique`,
//! `TopK`, `OneHot`. Data-dependent sizes get fresh symbols so later uses still compare equal.

use super::axes::{self, count};
use super::{Ctx, Inferred, Output, RuleError, RuleFn};
use crate::infer::elem;
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// The rule for `op_type`, if this family has it.
pub(super) fn lookup(op_type: &str) -> Option<RuleFn> {
    Some(match op_type {
        "Gather" => gather,
        "GatherElements" => same_as_input(1),
        "ScatterND" | "ScatterElements" | "Scatter" => same_as_input(0),
        "GatherND" => gather_nd,
        "Compress" => compress,
        "NonZero" => non_zero,
        "Unique" => unique,
        "TopK" => top_k,
        "OneHot" => one_hot,
        _ => return None,
    })
}

/// A rule whose single output has the shape of input `slot` and the type of input 0.
fn same_as_input(slot: usize) -> RuleFn {
    match slot {
        0 => |ctx| {
            let data = ctx.required(0)?;
            Ok(Inferred::single(
                Output::shape(data.shape.clone()).elem(data.elem),
            ))
        },
        _ => |ctx| {
            let data = ctx.required(0)?;
            let indices = ctx.required(1)?;
            Ok(Inferred::single(
                Output::shape(indices.shape.clone()).elem(data.elem),
            ))
        },
    }
}

/// `Gather(data, indices, axis)`: `data.shape[..axis] + indices.shape + data.shape[axis+1..]`;
/// with known data and indices values, the gathered elements (negative indices count from the
/// end).
fn gather(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let indices = ctx.required(1)?;
    let (Some(data_dims), Some(index_dims)) = (data.shape.dims(), indices.shape.dims()) else {
        return Ok(Inferred::single(
            Output::shape(Shape::Unranked).elem(data.elem),
        ));
    };
    let axis = axes::require(ctx.int("axis", 0)?, data_dims.len(), "Gather axis")?;
    let mut dims: Vec<Dim> = data_dims.get(..axis).unwrap_or_default().to_vec();
    dims.extend(index_dims.iter().cloned());
    dims.extend(
        data_dims
            .get(axis + 1..)
            .unwrap_or_default()
            .iter()
            .cloned(),
    );
    let value = match (data.value, indices.value) {
        (Some(values), Some(index)) if values.shape.len() == 1 => gather_vector(values, index),
        _ => None,
    };
    Ok(Inferred::single(match value {
        Some(value) => Output::value(value, data.elem),
        None => Output::shape(Shape::Ranked(dims)).elem(data.elem),
    }))
}

fn gather_vector(values: &ValueTensor, index: &ValueTensor) -> Option<ValueTensor> {
    let len = i64::try_from(values.data.len()).ok()?;
    let data = index
        .data
        .iter()
        .map(|i| {
            let i = i.as_known()?;
            let i = if i < 0 { i.checked_add(len)? } else { i };
            values.data.get(usize::try_from(i).ok()?).cloned()
        })
        .collect::<Option<Vec<Dim>>>()?;
    ValueTensor::new(index.shape.clone(), data)
}

/// `GatherND(data, indices, batch_dims)`: `indices.shape[..-1] + data.shape[batch_dims + k..]`
/// where `k = indices.shape[-1]`.
fn gather_nd(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let indices = ctx.required(1)?;
    let batch = usize::try_from(ctx.int("batch_dims", 0)?).unwrap_or(0);
    let shape = match (data.shape.dims(), indices.shape.dims()) {
        (Some(d), Some([front @ .., last])) => {
            match last.as_known().and_then(|k| usize::try_from(k).ok()) {
                Some(k) if batch + k <= d.len() => {
                    let mut dims = front.to_vec();
                    dims.extend(d.get(batch + k..).unwrap_or_default().iter().cloned());
                    Shape::Ranked(dims)
                }
                _ => Shape::Unranked,
            }
        }
        _ => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(data.elem)))
}

/// `Compress(input, condition, axis)`: the kept count depends on the data: a fresh symbol.
fn compress(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let kept = ctx.fresh_dim("Compress");
    let shape = match (ctx.attrs().int("axis")?, input.shape.dims()) {
        (None, _) => Shape::Ranked(vec![kept]),
        (Some(axis), Some(dims)) => {
            let axis = axes::require(axis, dims.len(), "Compress axis")?;
            let mut dims = dims.to_vec();
            if let Some(slot) = dims.get_mut(axis) {
                *slot = kept;
            }
            Shape::Ranked(dims)
        }
        (Some(_), None) => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(input.elem)))
}

/// `NonZero(x)`: `[rank(x), n]` with `n` the data-dependent count.
fn non_zero(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let rank = input.shape.rank().map_or(Dim::Unknown, count);
    let n = ctx.fresh_dim("NonZero");
    Ok(Inferred::single(
        Output::shape(Shape::Ranked(vec![rank, n])).elem(Some(elem::INT64)),
    ))
}

/// `Unique(x, axis)`: outputs sized by the data-dependent number of unique entries.
fn unique(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let n = ctx.fresh_dim("Unique");
    let values = match (ctx.attrs().int("axis")?, input.shape.dims()) {
        (None, _) => Shape::Ranked(vec![n.clone()]),
        (Some(axis), Some(dims)) => {
            let axis = axes::require(axis, dims.len(), "Unique axis")?;
            let mut dims = dims.to_vec();
            if let Some(slot) = dims.get_mut(axis) {
                *slot = n.clone();
            }
            Shape::Ranked(dims)
        }
        (Some(_), None) => Shape::Unranked,
    };
    let inverse = match (ctx.attrs().int("axis")?, input.shape.dims()) {
        (None, Some(dims)) => Shape::Ranked(vec![axes::product(dims)]),
        (Some(axis), Some(dims)) => Shape::Ranked(vec![axes::normalise(axis, dims.len())
            .and_then(|a| dims.get(a).cloned())
            .unwrap_or(Dim::Unknown)]),
        _ => Shape::Ranked(vec![Dim::Unknown]),
    };
    let int64 = Some(elem::INT64);
    Ok(Inferred::many(vec![
        Output::shape(values).elem(input.elem),
        Output::shape(Shape::Ranked(vec![n.clone()])).elem(int64),
        Output::shape(inverse).elem(int64),
        Output::shape(Shape::Ranked(vec![n])).elem(int64),
    ]))
}

/// `TopK(x, k, axis)`: the axis becomes `k` (an input from opset 10, an attribute before).
fn top_k(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let k = if ctx.opset() < 10 {
        ctx.attrs().int("k")?.map_or(Dim::Unknown, Dim::known)
    } else {
        ctx.required(1)?
            .value
            .and_then(|v| v.data.first().cloned())
            .unwrap_or(Dim::Unknown)
    };
    let shape = match input.shape.dims() {
        Some(dims) => {
            let axis = axes::require(ctx.int("axis", -1)?, dims.len(), "TopK axis")?;
            let mut dims = dims.to_vec();
            if let Some(slot) = dims.get_mut(axis) {
                *slot = k;
            }
            Shape::Ranked(dims)
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::many(vec![
        Output::shape(shape.clone()).elem(input.elem),
        Output::shape(shape).elem(Some(elem::INT64)),
    ]))
}

/// `OneHot(indices, depth, values, axis)`: a new axis of size `depth` inserted at `axis`.
fn one_hot(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let indices = ctx.required(0)?;
    let depth = ctx
        .required(1)?
        .value
        .and_then(|v| v.data.first().cloned())
        .unwrap_or(Dim::Unknown);
    let elem_type = ctx.input(2).and_then(|v| v.elem);
    let shape = match indices.shape.dims() {
        Some(dims) => {
            let axis = axes::require(ctx.int("axis", -1)?, dims.len() + 1, "OneHot axis")?;
            let mut dims = dims.to_vec();
            dims.insert(axis.min(dims.len()), depth);
            Shape::Ranked(dims)
        }
        None => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(elem_type)))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{self, int_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    #[test]
    fn gather_picks_dims_out_of_a_shape_value() {
        let dims =
            ValueTensor::vector(vec![Dim::sym("batch"), Dim::sym("seq"), Dim::known(768)]).unwrap();
        let index = ValueTensor::new(vec![], vec![Dim::known(-2)]).unwrap();
        let out = testing::run(
            "Gather",
            13,
            &[testing::ints(dims), testing::ints(index)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].value.as_ref().unwrap().data,
            vec![Dim::sym("seq")]
        );
        assert_eq!(out.outputs[0].shape, Shape::scalar());
    }

    #[test]
    fn gather_embedding_shape() {
        let table = Shape::from_known(&[30522, 768]);
        let ids = Shape::Ranked(vec![Dim::sym("batch"), Dim::sym("seq")]);
        let out = testing::run(
            "Gather",
            13,
            &[testing::shape(table), testing::shape(ids)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("batch"), Dim::sym("seq"), Dim::known(768)])
        );
    }

    #[test]
    fn gather_axis_out_of_range_is_an_error() {
        let table = Shape::from_known(&[4, 5]);
        let ids = Shape::from_known(&[2]);
        let out = testing::run(
            "Gather",
            13,
            &[testing::shape(table), testing::shape(ids)],
            vec![int_attr("axis", 2)],
        );
        assert!(out.is_err());
    }

    #[test]
    fn non_zero_gets_a_fresh_symbol() {
        let x = Shape::from_known(&[3, 4]);
        let out = testing::run("NonZero", 13, &[testing::shape(x)], vec![]).unwrap();
        let dims = out.outputs[0].shape.dims().unwrap().to_vec();
        assert_eq!(dims[0], Dim::known(2));
        assert!(matches!(dims[1], Dim::Sym(_)));
    }
}
