//! `Constant`: the output is whichever `value*` attribute is set (ONNX Constant-13: `value`,
//! `sparse_value`, `value_float(s)`, `value_int(s)`, `value_string(s)`). Small integer tensors
//! also carry their elements, which is how literal shape vectors enter data propagation; so do
//! `FLOAT` and `DOUBLE` ones, as [`Real`]s, for float shape arithmetic and Resize scales.

use crate::model::dtype::elem::{self, FLOAT, STRING};
use crate::model::tensor::{self, MAX_VALUE_ELEMENTS};
use crate::ops::axes::count;
use crate::ops::constraint::Constraint;
use crate::ops::{Ctx, Inferred, Output, RuleError};
use crate::proto::TensorProto;
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;
use crate::shape::{Dim, Shape};

/// A tensor's static shape; negative dims (invalid) are unknown.
fn tensor_shape(tensor: &TensorProto) -> Shape {
    Shape::Ranked(
        tensor
            .dims
            .iter()
            .map(|&d| if d >= 0 { Dim::known(d) } else { Dim::Unknown })
            .collect(),
    )
}

/// `Constant`: the shape of whichever `value*` attribute is set; integer tensors also carry
/// their elements.
pub(crate) fn constant(ctx: &Ctx<'_>) -> Result<Inferred, RuleError> {
    let attrs = ctx.attrs();
    if let Some(tensor) = attrs.tensor("value")? {
        let shape = tensor_shape(tensor);
        let out = match (tensor::int_values(tensor), tensor::real_values(tensor)) {
            (Some(value), _) => Output::value(value, tensor.data_type),
            (None, Some(real)) => Output::reals(real, tensor.data_type),
            (None, None) => Output::shape(shape).elem(tensor.data_type),
        };
        return Ok(Inferred::single(out));
    }
    if let Some(v) = attrs.int("value_int")? {
        let value = ValueTensor::new(Vec::new(), vec![Dim::known(v)]);
        return Ok(Inferred::single(value.map_or_else(
            || Output::shape(Shape::scalar()),
            |v| Output::value(v, Some(elem::INT64)),
        )));
    }
    if let Some(list) = attrs.ints("value_ints")? {
        let data = list.iter().copied().map(Dim::known).collect();
        return Ok(Inferred::single(match ValueTensor::vector(data) {
            Some(v) if list.len() <= MAX_VALUE_ELEMENTS => Output::value(v, Some(elem::INT64)),
            _ => Output::shape(Shape::Ranked(vec![count(list.len())])).elem(Some(elem::INT64)),
        }));
    }
    if let Some(v) = attrs.float("value_float")? {
        let real = ValueTensor::new(Vec::new(), vec![Real::Num(f64::from(v))]);
        return Ok(Inferred::single(real.map_or_else(
            || Output::shape(Shape::scalar()).elem(Some(FLOAT)),
            |r| Output::reals(r, Some(FLOAT)),
        )));
    }
    if let Some(list) = attrs.floats("value_floats")? {
        let data = list.iter().map(|&v| Real::Num(f64::from(v))).collect();
        return Ok(Inferred::single(match ValueTensor::vector(data) {
            Some(r) if list.len() <= MAX_VALUE_ELEMENTS => Output::reals(r, Some(FLOAT)),
            _ => Output::shape(Shape::Ranked(vec![count(list.len())])).elem(Some(FLOAT)),
        }));
    }
    if attrs.get("value_string").is_some() {
        return Ok(Inferred::single(
            Output::shape(Shape::scalar()).elem(Some(STRING)),
        ));
    }
    if let Some(attr) = attrs.get("value_strings") {
        return Ok(Inferred::single(
            Output::shape(Shape::Ranked(vec![count(
                attr.value.strings().map_or(0, <[_]>::len),
            )]))
            .elem(Some(STRING)),
        ));
    }
    if let Some(sparse) = attrs
        .get("sparse_value")
        .and_then(|a| a.value.sparse_tensor())
    {
        let dims = sparse
            .dims
            .iter()
            .map(|&d| if d >= 0 { Dim::known(d) } else { Dim::Unknown })
            .collect();
        let elem_type = sparse.values.as_ref().and_then(|v| v.data_type);
        return Ok(Inferred::single(
            Output::shape(Shape::Ranked(dims)).elem(elem_type),
        ));
    }
    // "Exactly one of the attributes value, value_float... must be specified" (Constant doc).
    Err(Constraint::new(
        "Constant requires one of its value attributes (value, sparse_value, value_float, ...)",
        "none is set",
        &[],
    )
    .fix("set the constant's value")
    .unmet())
}

#[cfg(test)]
mod tests {
    use crate::ops::axes::known_ints;
    use crate::ops::testing::{self, int_attr, ints_attr, tensor_attr};
    use crate::proto::attribute_proto::AttributeType;
    use crate::proto::{AttributeProto, SparseTensorProto, TensorProto};
    use crate::shape::real::Real;
    use crate::shape::Shape;

    fn run(attr: AttributeProto) -> crate::ops::Output {
        let mut out = testing::run("Constant", 13, &[], vec![attr]).unwrap();
        out.outputs.remove(0)
    }

    #[test]
    fn int_tensor_carries_its_elements() {
        let tensor = TensorProto {
            dims: vec![2],
            data_type: Some(7),
            int64_data: vec![-1, 64],
            ..TensorProto::default()
        };
        let out = run(tensor_attr("value", tensor));
        assert_eq!(known_ints(out.value.as_ref().unwrap()), Some(vec![-1, 64]));
        assert_eq!(out.shape, Shape::from_known(&[2]));
    }

    #[test]
    fn float_tensor_carries_its_elements_as_reals() {
        let tensor = |values: Vec<f32>| TensorProto {
            dims: vec![2, 3],
            data_type: Some(1),
            float_data: values,
            ..TensorProto::default()
        };
        let out = run(tensor_attr("value", tensor(vec![0.5; 6])));
        // Integer folding never sees floats: they are reals, not values.
        assert!(out.value.is_none());
        assert_eq!(out.real.unwrap().data, vec![Real::Num(0.5); 6]);
        assert_eq!(out.shape, Shape::from_known(&[2, 3]));
        assert_eq!(out.elem, Some(1));
    }

    #[test]
    fn scalar_and_list_attribute_forms() {
        let out = run(int_attr("value_int", 7));
        assert_eq!(out.shape, Shape::scalar());
        assert_eq!(known_ints(out.value.as_ref().unwrap()), Some(vec![7]));
        let out = run(ints_attr("value_ints", &[1, 2, 3]));
        assert_eq!(known_ints(out.value.as_ref().unwrap()), Some(vec![1, 2, 3]));
        let out = run(testing::float_attr("value_float", 0.5));
        assert_eq!((out.shape, out.value), (Shape::scalar(), None));
        assert_eq!(out.real.unwrap().data, vec![Real::Num(0.5)]);
        let floats = AttributeProto {
            name: Some("value_floats".into()),
            r#type: Some(AttributeType::Floats as i32),
            floats: vec![0.5; 4],
            ..AttributeProto::default()
        };
        assert_eq!(run(floats).shape, Shape::from_known(&[4]));
        assert_eq!(
            run(testing::string_attr("value_string", "a")).shape,
            Shape::scalar()
        );
        let strings = AttributeProto {
            name: Some("value_strings".into()),
            r#type: Some(AttributeType::Strings as i32),
            strings: vec![b"a".to_vec().into(), b"b".to_vec().into()],
            ..AttributeProto::default()
        };
        assert_eq!(run(strings).shape, Shape::from_known(&[2]));
    }

    #[test]
    fn sparse_value_gives_its_dense_dims() {
        let sparse = AttributeProto {
            name: Some("sparse_value".into()),
            r#type: Some(AttributeType::SparseTensor as i32),
            sparse_tensor: Some(Box::new(SparseTensorProto {
                dims: vec![100, 4],
                ..SparseTensorProto::default()
            })),
            ..AttributeProto::default()
        };
        assert_eq!(run(sparse).shape, Shape::from_known(&[100, 4]));
    }

    #[test]
    fn no_value_is_an_error() {
        assert!(testing::run("Constant", 13, &[], vec![]).is_err());
    }
}
