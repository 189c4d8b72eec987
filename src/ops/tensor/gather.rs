//! Indexing ops: `Gather` (with data propagation over small values such as `Shape`'s output),
//! `GatherElements`, `GatherND`, `ScatterND`, `ScatterElements` (and the deprecated `Scatter`).
//! Ops whose sizes come from data or from a value input are in `data_sized.rs`.

use crate::ops::axes;
use crate::ops::constraint::Constraint;
use crate::ops::{tensor::scatter, Ctx, Inferred, Output, RuleError};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// `GatherElements(data, indices, axis)`: the output has the indices' shape. "`data` and
/// `indices` must have the same rank r >= 1"; the indices may be larger than `data` on other
/// axes (onnxruntime accepts it), so only the rank and the axis are checked.
pub(crate) fn gather_elements(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let indices = ctx.required(1)?;
    if let (Some(d), Some(i)) = (data.shape.rank(), indices.shape.rank()) {
        scatter::same_rank("GatherElements", "indices", (d, 0), (i, 1))?;
        axes::require(ctx.int("axis", 0)?, d, "GatherElements axis")?;
    }
    Ok(Inferred::single(
        Output::shape(indices.shape.clone()).elem(data.elem),
    ))
}

/// `Gather(data, indices, axis)`: `data.shape[..axis] + indices.shape + data.shape[axis+1..]`;
/// with known data and indices values, the gathered elements (negative indices count from the
/// end).
pub(crate) fn gather(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
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
    let real = match (data.real(), indices.value) {
        (Some(values), Some(index)) if values.shape.len() == 1 => gather_vector(values, index),
        _ => None,
    };
    Ok(Inferred::single(match (value, real) {
        (Some(value), _) => Output::value(value, data.elem),
        (None, Some(real)) => Output::reals(real, data.elem),
        (None, None) => Output::shape(Shape::Ranked(dims)).elem(data.elem),
    }))
}

fn gather_vector<T: Clone>(values: &ValueTensor<T>, index: &ValueTensor) -> Option<ValueTensor<T>> {
    let len = i64::try_from(values.data.len()).ok()?;
    let data = index
        .data
        .iter()
        .map(|i| {
            let i = i.as_known()?;
            let i = if i < 0 { i.checked_add(len)? } else { i };
            values.data.get(usize::try_from(i).ok()?).cloned()
        })
        .collect::<Option<Vec<T>>>()?;
    ValueTensor::new(index.shape.clone(), data)
}

/// `GatherND(data, indices, batch_dims)`: `indices.shape[..-1] + data.shape[batch_dims + k..]`
/// where `k = indices.shape[-1]`.
pub(crate) fn gather_nd(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let data = ctx.required(0)?;
    let indices = ctx.required(1)?;
    let batch_dims = ctx.int("batch_dims", 0)?;
    // GatherND-12: "batch_dims must be less than min(rank(data), rank(indices))"; a negative
    // value is out of that range too. Batch dims that differ are not checked: onnxruntime
    // accepts indices batches that are a multiple of data's.
    let fault = |requires: String, found: String| Constraint::new(requires, found, &[0, 1]).unmet();
    let shape = match (data.shape.dims(), indices.shape.dims()) {
        (_, Some([])) => {
            return Err(fault(
                "GatherND's indices must have rank 1 or more".into(),
                "indices are a scalar".into(),
            ))
        }
        (Some(d), Some([front @ .., last])) => {
            let batch = usize::try_from(batch_dims)
                .ok()
                .filter(|&b| b <= front.len() && b < d.len())
                .ok_or_else(|| {
                    fault(
                        "GatherND's batch_dims must be in [0, min(rank(data), rank(indices)))"
                            .into(),
                        format!(
                            "batch_dims is {batch_dims}, data has rank {}, indices rank {}",
                            d.len(),
                            front.len() + 1
                        ),
                    )
                })?;
            match last.as_known().and_then(|k| usize::try_from(k).ok()) {
                Some(k) if batch + k <= d.len() => {
                    let mut dims = front.to_vec();
                    dims.extend(d.get(batch + k..).unwrap_or_default().iter().cloned());
                    Shape::Ranked(dims)
                }
                Some(k) => {
                    return Err(fault(
                        "the last dim of GatherND's indices must not exceed rank(data) - \
                         batch_dims"
                            .into(),
                        format!(
                            "indices' last dim is {k}, data has rank {}, batch_dims is {batch}",
                            d.len()
                        ),
                    ))
                }
                None => Shape::Unranked,
            }
        }
        _ => Shape::Unranked,
    };
    Ok(Inferred::single(Output::shape(shape).elem(data.elem)))
}

#[cfg(test)]
mod tests {
    use crate::ops::testing::{self, int_attr};
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
            &[data.clone(), testing::shape(idx), testing::dims(&["n"])],
            vec![],
        )
        .unwrap();
        assert_eq!(out.outputs[0].shape, data.unwrap().shape);
    }
}
