//! Test support for shape rules: run a rule on a node built from an op type, attributes and
//! input facts, without loading a model.

#![allow(dead_code, clippy::unnecessary_wraps)]

use super::{Ctx, Inferred, Input, RuleError};
use crate::model::Node;
use crate::proto::attribute_proto::AttributeType;
use crate::proto::{AttributeProto, TensorProto};
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;
use crate::shape::Shape;

/// Facts of one test input.
#[derive(Debug, Clone)]
pub(crate) struct Fact {
    pub(crate) shape: Shape,
    pub(crate) value: Option<ValueTensor>,
    pub(crate) real: Option<ValueTensor<Real>>,
    pub(crate) elem: Option<i32>,
}

/// An input with only a shape (float).
pub(crate) fn shape(shape: Shape) -> Option<Fact> {
    Some(Fact {
        shape,
        value: None,
        real: None,
        elem: Some(1),
    })
}

/// A float input whose dims are written as strings: integers are static, anything else a symbol.
pub(crate) fn dims(spec: &[&str]) -> Option<Fact> {
    shape(Shape::Ranked(
        spec.iter()
            .map(|d| {
                d.parse::<i64>()
                    .map_or_else(|_| crate::shape::Dim::sym(d), crate::shape::Dim::known)
            })
            .collect(),
    ))
}

/// Every output shape of a rule, as printed.
pub(crate) fn output_shapes(inferred: &Inferred) -> Vec<String> {
    inferred
        .outputs
        .iter()
        .map(|o| o.shape.to_string())
        .collect()
}

/// An int64 input with known elements.
pub(crate) fn ints(values: ValueTensor) -> Option<Fact> {
    let dims = values
        .shape
        .iter()
        .map(|&d| crate::shape::Dim::known(i64::try_from(d).unwrap_or(0)))
        .collect();
    Some(Fact {
        shape: Shape::Ranked(dims),
        value: Some(values),
        real: None,
        elem: Some(7),
    })
}

/// An int64 vector input with these known elements (a shape, axes or sizes operand).
pub(crate) fn int_list(values: &[i64]) -> Option<Fact> {
    ints(ValueTensor::vector(
        values
            .iter()
            .copied()
            .map(crate::shape::Dim::known)
            .collect(),
    )?)
}

/// A float input with known, integral elements (a constant such as Resize scales).
#[allow(clippy::needless_pass_by_value, reason = "called like `ints`")]
pub(crate) fn floats(values: ValueTensor) -> Option<Fact> {
    reals(values.to_reals(crate::shape::real::Width::F32))
}

/// A FLOAT input with known (or partly known) elements.
pub(crate) fn reals(values: ValueTensor<Real>) -> Option<Fact> {
    let dims = values
        .shape
        .iter()
        .map(|&d| crate::shape::Dim::known(i64::try_from(d).unwrap_or(0)))
        .collect();
    Some(Fact {
        shape: Shape::Ranked(dims),
        value: None,
        real: Some(values),
        elem: Some(1),
    })
}

/// An INT attribute.
pub(crate) fn int_attr(name: &str, value: i64) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Int as i32),
        i: Some(value),
        ..AttributeProto::default()
    }
}

/// An INTS attribute.
pub(crate) fn ints_attr(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Ints as i32),
        ints: values.to_vec(),
        ..AttributeProto::default()
    }
}

/// A FLOAT attribute.
pub(crate) fn float_attr(name: &str, value: f32) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Float as i32),
        f: Some(value),
        ..AttributeProto::default()
    }
}

/// A STRING attribute.
pub(crate) fn string_attr(name: &str, value: &str) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::String as i32),
        s: Some(value.as_bytes().to_vec().into()),
        ..AttributeProto::default()
    }
}

/// A TENSOR attribute.
pub(crate) fn tensor_attr(name: &str, tensor: TensorProto) -> AttributeProto {
    AttributeProto {
        name: Some(name.into()),
        r#type: Some(AttributeType::Tensor as i32),
        t: Some(Box::new(tensor)),
        ..AttributeProto::default()
    }
}

/// Runs the `com.microsoft` rule of `op_type` (version 1, the only one those operators have).
pub(crate) fn run_microsoft(
    op_type: &str,
    inputs: &[Option<Fact>],
    attributes: Vec<AttributeProto>,
    outputs: usize,
) -> Result<Inferred, RuleError> {
    run_in("com.microsoft", op_type, 1, inputs, attributes, outputs)
}

/// Runs the registered rule of `op_type` (default domain unless `domain` given) at `opset`.
pub(crate) fn run_in(
    domain: &str,
    op_type: &str,
    opset: i64,
    inputs: &[Option<Fact>],
    attributes: Vec<AttributeProto>,
    outputs: usize,
) -> Result<Inferred, RuleError> {
    let fresh = super::Fresh::default();
    run_in_model(&fresh, domain, op_type, opset, inputs, attributes, outputs)
}

/// [`run_in`] in a model whose model-wide facts are `fresh`'s.
pub(crate) fn run_in_model(
    fresh: &super::Fresh,
    domain: &str,
    op_type: &str,
    opset: i64,
    inputs: &[Option<Fact>],
    attributes: Vec<AttributeProto>,
    outputs: usize,
) -> Result<Inferred, RuleError> {
    let node = Node {
        index: 0,
        name: crate::model::Text::EMPTY,
        named: true,
        op: crate::model::Operator::new(domain, op_type, Some(opset)),
        slots: crate::model::Slots::new(&vec![None; outputs], 0),
        attributes: std::sync::Arc::new(attributes.into_iter().map(Into::into).collect()),
        span_start: 0,
        span_high: 0,
        span_len: 0,
        in_cycle: false,
    };
    let super::registry::Resolved::Rule(rule) =
        super::registry::resolve(domain, op_type, Some(opset))
    else {
        return Err(RuleError::Beyond("no rule".into()));
    };
    let ctx_inputs = inputs
        .iter()
        .map(|fact| {
            fact.as_ref().map(|f| {
                Input::new(
                    &f.shape,
                    f.value.as_ref(),
                    super::Reals::Held(f.real.as_ref()),
                    f.elem,
                )
            })
        })
        .collect();
    let broadcasts = crate::shape::broadcast::Outcomes::default();
    let ctx = Ctx::new(&node, ctx_inputs, fresh, &broadcasts);
    rule(&ctx)
}

/// Runs a default-domain rule with one output.
pub(crate) fn run(
    op_type: &str,
    opset: i64,
    inputs: &[Option<Fact>],
    attributes: Vec<AttributeProto>,
) -> Result<Inferred, RuleError> {
    run_in("", op_type, opset, inputs, attributes, 1)
}

/// The operator constraint a rule failed with (E4); panics on any other result.
pub(crate) fn unmet(r: Result<Inferred, RuleError>) -> super::Constraint {
    match r {
        Err(RuleError::Unmet(c)) => *c,
        other => panic!("expected an unmet constraint, got {other:?}"),
    }
}

/// The conditions of a rule's W4 checks, as printed.
pub(crate) fn conditions(r: &Inferred) -> Vec<String> {
    r.constraints
        .iter()
        .filter_map(|c| c.condition().map(ToString::to_string))
        .collect()
}
