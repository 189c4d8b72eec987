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
    let batch_dims = ctx.int("batch_dims", 0)?;
    let batch = usize::try_from(batch_dims)
        .map_err(|_| RuleError::Invalid(format!("GatherND batch_dims {batch_dims} is negative")))?;
    let shape = match (data.shape.dims(), indices.shape.dims()) {
        (Some(d), Some([front @ .., last])) => {
            if batch > front.len() || batch >= d.len() {
                return Err(RuleError::Invalid(format!(
                    "GatherND batch_dims {batch} is not below both ranks"
                )));
            }
            match last.as_known().and_then(|k| usize::try_from(k).ok()) {
                Some(k) if batch + k <= d.len() => {
                    let mut dims = front.to_vec();
                    dims.extend(d.get(batch + k..).unwrap_or_default().iter().cloned());
                    Shape::Ranked(dims)
                }
                Some(k) => {
                    return Err(RuleError::Invalid(format!(
                        "GatherND index length {k} exceeds the data rank after batch_dims"
                    )))
                }
                None => Shape::Unranked,
            }
        }
        (_, Some([])) => return Err(RuleError::Invalid("GatherND indices are a scalar".into())),
        _ => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(data.elem)))
}

/// `Compress(input, condition, axis)`: the kept count depends on the data: a fresh symbol.
fn compress(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let condition = ctx.required(1)?;
    // A fully known condition fixes the count; otherwise it depends on the data.
    let kept = match condition.value.and_then(axes::known_ints) {
        Some(flags) => count(flags.iter().filter(|&&f| f != 0).count()),
        None => ctx.fresh_dim("Compress"),
    };
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
        let k = ctx.attrs().int("k")?;
        Dim::known(k.ok_or_else(|| RuleError::Invalid("TopK-1 needs k".into()))?)
    } else {
        // An unknown k is an unknown size, not a fresh symbol: two TopK nodes fed the same k
        // value would otherwise get different symbols for one size.
        ctx.required(1)?
            .value
            .and_then(|v| v.data.first().cloned())
            .unwrap_or(Dim::Unknown)
    };
    if k.as_known().is_some_and(|k| k < 0) {
        return Err(RuleError::Invalid(format!("TopK k {k} is negative")));
    }
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
    if depth.as_known().is_some_and(|d| d < 1) {
        return Err(RuleError::Invalid(format!(
            "OneHot depth {depth} is below 1"
        )));
    }
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

    #[test]
    fn gather_nd_with_batch_dims() {
        let data = Shape::Ranked(vec![
            Dim::sym("batch"),
            Dim::known(5),
            Dim::known(6),
            Dim::known(7),
        ]);
        let indices = Shape::Ranked(vec![Dim::sym("batch"), Dim::known(3), Dim::known(2)]);
        let out = testing::run(
            "GatherND",
            13,
            &[testing::shape(data.clone()), testing::shape(indices)],
            vec![int_attr("batch_dims", 1)],
        )
        .unwrap();
        // indices[:-1] + data[batch_dims + k:] = [batch, 3] + [7]
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("batch"), Dim::known(3), Dim::known(7)])
        );
        let too_long = Shape::from_known(&[2, 4]);
        let err = testing::run(
            "GatherND",
            13,
            &[testing::shape(data), testing::shape(too_long)],
            vec![int_attr("batch_dims", 1)],
        );
        assert!(err.is_err());
    }

    #[test]
    fn compress_counts_a_known_condition() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(4)]);
        let flags = ValueTensor::vector(vec![Dim::known(1), Dim::known(0), Dim::known(1)]).unwrap();
        let out = testing::run(
            "Compress",
            11,
            &[testing::shape(x.clone()), testing::ints(flags)],
            vec![int_attr("axis", 1)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(2)])
        );
        let unknown = testing::shape(Shape::from_known(&[4]));
        let out = testing::run("Compress", 11, &[testing::shape(x), unknown], vec![]).unwrap();
        let dims = out.outputs[0].shape.dims().unwrap().to_vec();
        assert!(matches!(dims.as_slice(), [Dim::Sym(_)]));
    }

    #[test]
    fn top_k_from_input_attribute_or_unknown() {
        let x = Shape::Ranked(vec![Dim::sym("n"), Dim::known(100)]);
        let k = ValueTensor::vector(vec![Dim::known(5)]).unwrap();
        let out = testing::run(
            "TopK",
            11,
            &[testing::shape(x.clone()), testing::ints(k)],
            vec![],
        )
        .unwrap();
        assert_eq!(
            out.outputs[1].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(5)])
        );
        let out = testing::run(
            "TopK",
            1,
            &[testing::shape(x.clone())],
            vec![int_attr("k", 3)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(3)])
        );
        let unknown_k = testing::shape(Shape::from_known(&[1]));
        let out = testing::run("TopK", 11, &[testing::shape(x), unknown_k], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::Unknown])
        );
    }

    #[test]
    fn one_hot_inserts_depth_at_axis() {
        let ids = Shape::Ranked(vec![Dim::sym("n"), Dim::known(3)]);
        let depth = ValueTensor::new(vec![], vec![Dim::known(10)]).unwrap();
        let out = testing::run(
            "OneHot",
            11,
            &[
                testing::shape(ids),
                testing::ints(depth),
                testing::shape(Shape::from_known(&[2])),
            ],
            vec![int_attr("axis", 1)],
        )
        .unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("n"), Dim::known(10), Dim::known(3)])
        );
    }

    #[test]
    fn unique_outputs_share_one_fresh_count() {
        let x = Shape::from_known(&[6]);
        let out = testing::run_in("", "Unique", 11, &[testing::shape(x)], vec![], 4).unwrap();
        let count = out.outputs[0].shape.clone();
        assert!(matches!(count.dims().unwrap(), [Dim::Sym(_)]));
        assert_eq!(out.outputs[1].shape, count);
        assert_eq!(out.outputs[2].shape, Shape::from_known(&[6]));
    }

    #[test]
    fn gather_elements_and_scatter_keep_their_shapes() {
        let data = testing::shape(Shape::Ranked(vec![Dim::sym("n"), Dim::known(4)]));
        let idx = Shape::Ranked(vec![Dim::sym("n"), Dim::known(2)]);
        let out = testing::run(
            "GatherElements",
            13,
            &[data.clone(), testing::shape(idx.clone())],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, idx);
        let out = testing::run(
            "ScatterND",
            13,
            &[data.clone(), testing::shape(idx.clone()), None],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, data.unwrap().shape);
    }
}
