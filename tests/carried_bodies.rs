//! Ops that carry graphs without driving them (`SequenceMap`): their bodies are still inferred
//! and checked from their declarations, and their own rule types the node instead of leaving it
//! unsupported.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use onnx_bcast_lint::proto::{
    attribute_proto, tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto,
    NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use onnx_bcast_lint::{lint_model, Code, Options};

fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(format!("{op}_{}", outputs[0])),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        ..Default::default()
    }
}

fn tensor_type(dims: &[i64]) -> TypeProto {
    let dim = |d: i64| tensor_shape_proto::Dimension {
        value: Some(tensor_shape_proto::dimension::Value::DimValue(d)),
        ..Default::default()
    };
    TypeProto {
        value: Some(type_proto::Value::TensorType(type_proto::Tensor {
            elem_type: Some(1),
            shape: Some(TensorShapeProto {
                dim: dims.iter().copied().map(dim).collect(),
            }),
        })),
        ..Default::default()
    }
}

fn value(name: &str, r#type: TypeProto) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(r#type),
        ..Default::default()
    }
}

fn sequence_of(element: TypeProto) -> TypeProto {
    TypeProto {
        value: Some(type_proto::Value::SequenceType(Box::new(
            type_proto::Sequence {
                elem_type: Some(Box::new(element)),
            },
        ))),
        ..Default::default()
    }
}

/// `SequenceMap` over a sequence of two [2, 3] tensors, whose body adds a [4] weight to its
/// [2, 3] element: a broadcast that can never hold, inside a body the node only carries.
fn sequence_map_with_a_faulty_body() -> ModelProto {
    let body = GraphProto {
        name: Some("body".into()),
        node: vec![node("Add", &["t", "w"], &["u"])],
        initializer: vec![TensorProto {
            name: Some("w".into()),
            dims: vec![4],
            data_type: Some(1),
            float_data: vec![0.0; 4],
            ..Default::default()
        }],
        input: vec![value("t", tensor_type(&[2, 3]))],
        output: vec![value("u", tensor_type(&[2, 3]))],
        ..Default::default()
    };
    let mut map = node("SequenceMap", &["s"], &["mapped"]);
    map.attribute.push(AttributeProto {
        name: Some("body".into()),
        r#type: Some(attribute_proto::AttributeType::Graph as i32),
        g: Some(Box::new(body)),
        ..Default::default()
    });
    let graph = GraphProto {
        name: Some("main".into()),
        node: vec![node("SequenceConstruct", &["x", "y"], &["s"]), map],
        input: vec![
            value("x", tensor_type(&[2, 3])),
            value("y", tensor_type(&[2, 3])),
        ],
        output: vec![value("mapped", sequence_of(tensor_type(&[2, 3])))],
        ..Default::default()
    };
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(17),
        }],
        graph: Some(graph),
        ..Default::default()
    }
}

#[test]
fn a_carried_body_is_checked_and_its_carrier_is_typed_by_its_rule() {
    let report = lint_model(sequence_map_with_a_faulty_body(), &Options::new()).unwrap();
    let codes: Vec<Code> = report.findings().iter().map(|f| f.code).collect();
    assert!(
        codes.contains(&Code::E1),
        "the body's Add is checked: {codes:?}"
    );
    assert!(
        !codes.contains(&Code::I1),
        "SequenceMap-17 has a rule, so it is not unsupported: {codes:?}"
    );
}
