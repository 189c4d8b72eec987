//! Ops that turn shapes into data: `Shape` (with opset-15 `start`/`end`) and `Size`
//! (`ConstantOfShape` and `Range`, generators, are in `generator/shape_to_data.rs`). `Shape`'s
//! output carries the input's dims as symbolic values, which is where data propagation starts.

use crate::model::dtype::elem;
use crate::ops::axes::product;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// `Shape(x)`: a 1-D int64 tensor of x's dims (opset 15: the `[start, end)` slice of them, with
/// negative and out-of-range bounds clamped as the spec says).
fn shape(ctx: &Ctx<'_>, bounds: bool) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let Some(dims) = input.shape.dims() else {
        return Ok(Inferred::single(
            Output::shape(Shape::Ranked(vec![Dim::Unknown])).elem(Some(elem::INT64)),
        ));
    };
    let rank = i64::try_from(dims.len()).unwrap_or(i64::MAX);
    let clamp = |v: i64| {
        let v = if v < 0 { v.saturating_add(rank) } else { v };
        usize::try_from(v.clamp(0, rank)).unwrap_or(0)
    };
    let (start, end) = if bounds {
        (
            clamp(ctx.int("start", 0)?),
            clamp(ctx.attrs().int("end")?.unwrap_or(rank)),
        )
    } else {
        (0, dims.len())
    };
    let selected = dims.get(start..end.max(start)).unwrap_or_default().to_vec();
    let value = ValueTensor::vector(selected)
        // The engine's own limit on values it carries, not a fault of the model.
        .ok_or_else(|| RuleError::Beyond("shape too large to carry as a value".into()))?;
    Ok(Inferred::single(Output::value(value, Some(elem::INT64))))
}

/// `Shape` before opset 15: every dim.
pub(crate) fn shape_1(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    shape(ctx, false)
}

/// `Shape` from opset 15: the dims in `[start, end)`.
pub(crate) fn shape_15(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    shape(ctx, true)
}

/// `Size(x)`: a scalar, the product of x's dims.
pub(crate) fn size(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let input = ctx.required(0)?;
    let total = input.shape.dims().map_or(Dim::Unknown, product);
    let value = ValueTensor::new(Vec::new(), vec![total]);
    Ok(Inferred::single(match value {
        Some(value) => Output::value(value, Some(elem::INT64)),
        None => Output::shape(Shape::scalar()).elem(Some(elem::INT64)),
    }))
}

#[cfg(test)]
mod tests {
    use crate::ops::axes::known_ints;
    use crate::ops::testing::{self, int_attr};
    use crate::shape::values::ValueTensor;
    use crate::shape::{Dim, Shape};

    fn sym_shape() -> Shape {
        Shape::Ranked(vec![Dim::sym("batch"), Dim::sym("seq"), Dim::known(768)])
    }

    #[test]
    fn shape_carries_symbolic_dims_as_values() {
        let out = testing::run("Shape", 13, &[testing::shape(sym_shape())], vec![]).unwrap();
        let value = out.outputs[0].value.as_ref().unwrap();
        assert_eq!(value.data, sym_shape().dims().unwrap().to_vec());
        assert_eq!(out.outputs[0].shape, Shape::from_known(&[3]));
    }

    #[test]
    fn shape_start_end_slice_the_dims() {
        let out = testing::run(
            "Shape",
            15,
            &[testing::shape(sym_shape())],
            vec![int_attr("start", -2)],
        )
        .unwrap();
        let value = out.outputs[0].value.as_ref().unwrap();
        assert_eq!(value.data, vec![Dim::sym("seq"), Dim::known(768)]);
    }

    #[test]
    fn size_is_the_product() {
        let out = testing::run("Size", 13, &[testing::shape(sym_shape())], vec![]).unwrap();
        let value = out.outputs[0].value.as_ref().unwrap();
        assert_eq!(
            value.data[0],
            Dim::sym("batch")
                .mul(&Dim::sym("seq"))
                .mul(&Dim::known(768))
        );
    }

    #[test]
    fn range_lengths() {
        let scalar = |v: i64| testing::ints(ValueTensor::new(vec![], vec![Dim::known(v)]).unwrap());
        let out = testing::run("Range", 11, &[scalar(1), scalar(10), scalar(3)], vec![]).unwrap();
        assert_eq!(
            known_ints(out.outputs[0].value.as_ref().unwrap()),
            Some(vec![1, 4, 7])
        );
        let out = testing::run("Range", 11, &[scalar(10), scalar(1), scalar(3)], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape, Shape::from_known(&[0]));
        let out = testing::run("Range", 11, &[scalar(10), scalar(1), scalar(-4)], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape, Shape::from_known(&[3]));
    }

    #[test]
    fn symbolic_ranges_are_empty_below_their_start() {
        let scalar = |d: Dim| testing::ints(ValueTensor::new(vec![], vec![d]).unwrap());
        let range = |start: Dim, limit: Dim, delta: i64| {
            let out = testing::run(
                "Range",
                11,
                &[scalar(start), scalar(limit), scalar(Dim::known(delta))],
                vec![],
            )
            .unwrap();
            out.outputs[0].shape.to_string()
        };
        let n = || Dim::sym("n");
        // A size minus its start is never negative: no clamp.
        assert_eq!(range(Dim::known(0), n(), 1), "[n]");
        // A conv output length, (n-10)/5+1, is -1 for n < 5: the range is then empty, not -1
        // long (onnxruntime: max(ceil((limit - start) / delta), 0)).
        let frames = n()
            .sub(&Dim::known(10))
            .floor_div(&Dim::known(5))
            .add(&Dim::known(1));
        assert_eq!(range(Dim::known(0), frames, 1), "[max(n/5-1, 0)]");
        assert_eq!(range(Dim::known(0), n(), 3), "[(n+2)/3]");
        assert_eq!(range(n(), Dim::known(0), -2), "[(n+1)/2]");
        assert_eq!(range(n(), Dim::known(4), 1), "[max(-n+4, 0)]");
    }

    #[test]
    fn huge_ranges_are_not_materialised() {
        let scalar = |v: i64| testing::ints(ValueTensor::new(vec![], vec![Dim::known(v)]).unwrap());
        let out = testing::run(
            "Range",
            11,
            &[scalar(0), scalar(1_000_000_000_000), scalar(1)],
            vec![],
        )
        .unwrap();
        assert!(out.outputs[0].value.is_none());
        assert_eq!(
            out.outputs[0].shape,
            Shape::from_known(&[1_000_000_000_000])
        );
    }

    #[test]
    fn symbolic_range_from_zero() {
        let zero = testing::ints(ValueTensor::new(vec![], vec![Dim::known(0)]).unwrap());
        let n = testing::ints(ValueTensor::new(vec![], vec![Dim::sym("seq")]).unwrap());
        let one = testing::ints(ValueTensor::new(vec![], vec![Dim::known(1)]).unwrap());
        let out = testing::run("Range", 11, &[zero, n, one], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Ranked(vec![Dim::sym("seq")]));
    }

    #[test]
    fn constant_of_shape_takes_dims_from_the_value() {
        let target = ValueTensor::vector(vec![Dim::sym("batch"), Dim::known(4)]).unwrap();
        let out = testing::run("ConstantOfShape", 9, &[testing::ints(target)], vec![]).unwrap();
        assert_eq!(
            out.outputs[0].shape,
            Shape::Ranked(vec![Dim::sym("batch"), Dim::known(4)])
        );
    }

    #[test]
    fn constant_of_shape_fills_small_int_values_only() {
        let tensor = crate::proto::TensorProto {
            dims: vec![1],
            data_type: Some(7),
            int64_data: vec![1],
            ..crate::proto::TensorProto::default()
        };
        let fill = vec![testing::tensor_attr("value", tensor)];
        let small = ValueTensor::vector(vec![Dim::known(2), Dim::known(3)]).unwrap();
        let out =
            testing::run("ConstantOfShape", 9, &[testing::ints(small)], fill.clone()).unwrap();
        assert_eq!(
            known_ints(out.outputs[0].value.as_ref().unwrap()),
            Some(vec![1; 6])
        );
        let huge = ValueTensor::vector(vec![Dim::known(1 << 20), Dim::known(1 << 20)]).unwrap();
        let out = testing::run("ConstantOfShape", 9, &[testing::ints(huge)], fill).unwrap();
        assert!(out.outputs[0].value.is_none());
        assert_eq!(out.outputs[0].shape, Shape::from_known(&[1 << 20, 1 << 20]));
    }

    #[test]
    fn constant_of_shape_rejects_negative_sizes() {
        let bad = ValueTensor::vector(vec![Dim::known(-2)]).unwrap();
        assert!(testing::run("ConstantOfShape", 9, &[testing::ints(bad)], vec![]).is_err());
    }

    #[test]
    fn constant_of_shape_with_unknown_values_knows_the_rank() {
        let target = testing::shape(Shape::from_known(&[3]));
        let out = testing::run("ConstantOfShape", 9, &[target], vec![]).unwrap();
        assert_eq!(out.outputs[0].shape, Shape::Ranked(vec![Dim::Unknown; 3]));
        assert_eq!(out.outputs[0].elem, Some(1));
    }

    #[test]
    fn range_delta_and_constant_of_shape_sizes() {
        let scalar = |v| testing::ints(ValueTensor::new(vec![], vec![Dim::known(v)]).unwrap());
        let r = testing::run("Range", 11, &[scalar(0), scalar(3), scalar(0)], vec![]);
        assert!(matches!(r, Err(crate::ops::RuleError::Unmet(_))));
        let zero = testing::floats(ValueTensor::new(vec![], vec![Dim::known(0)]).unwrap());
        let r = testing::run("Range", 11, &[scalar(0), scalar(3), zero], vec![]);
        assert!(matches!(r, Err(crate::ops::RuleError::Unmet(_))));
        let shape = ValueTensor::vector(vec![Dim::known(2), Dim::known(-1)]).unwrap();
        let r = testing::run("ConstantOfShape", 9, &[testing::ints(shape)], vec![]);
        assert!(matches!(r, Err(crate::ops::RuleError::Unmet(_))));
    }
}
