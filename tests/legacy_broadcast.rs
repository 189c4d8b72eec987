//! W5 (issue 37): an opset < 7 element-wise op without `broadcast=1` whose inputs differ in shape
//! gets a warning saying that its doc requires equal shapes and that runtimes converting it to
//! opset 7 broadcast; equal shapes and a stated `broadcast=1` get nothing, a clash stays an E1.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use onnx_bcast_lint::diag::Facts;
use onnx_bcast_lint::proto::{
    attribute_proto, tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto,
    NodeProto, OperatorSetIdProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use onnx_bcast_lint::{lint_model, Code, Options, Severity, Shape};

fn value(name: &str, dims: &[i64]) -> ValueInfoProto {
    let dim = |d: i64| tensor_shape_proto::Dimension {
        value: Some(tensor_shape_proto::dimension::Value::DimValue(d)),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims.iter().copied().map(dim).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `z = Add(x, y)` at `opset`, with `broadcast` when given.
fn add(opset: i64, x: &[i64], y: &[i64], broadcast: Option<i64>) -> ModelProto {
    let node = NodeProto {
        op_type: Some("Add".into()),
        name: Some("add".into()),
        input: vec!["x".into(), "y".into()],
        output: vec!["z".into()],
        attribute: broadcast
            .map(|b| AttributeProto {
                name: Some("broadcast".into()),
                r#type: Some(attribute_proto::AttributeType::Int as i32),
                i: Some(b),
                ..Default::default()
            })
            .into_iter()
            .collect(),
        ..Default::default()
    };
    ModelProto {
        ir_version: Some(3),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(opset),
        }],
        graph: Some(GraphProto {
            name: Some("main".into()),
            node: vec![node],
            input: vec![value("x", x), value("y", y)],
            output: vec![value("z", x)],
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn codes(model: ModelProto) -> Vec<Code> {
    let report = lint_model(model, &Options::new()).unwrap();
    report.findings().iter().map(|f| f.code).collect()
}

#[test]
fn implicit_broadcast_before_opset_7_is_a_w5_saying_what_runtimes_do() {
    // onnxruntime has no Add-6 kernel; onnx's converter to opset 7 keeps B and broadcasts.
    let report = lint_model(add(6, &[2, 3], &[3], None), &Options::new()).unwrap();
    let [finding] = report.findings() else {
        panic!("{:?}", report.findings());
    };
    assert_eq!(finding.code, Code::W5);
    assert_eq!(finding.severity(), Severity::Warning);
    assert_eq!(
        finding.message,
        "Add node `add`: inputs of shapes [2, 3] and [3] without `broadcast=1`, which opset 6 \
         requires to be equal"
    );
    let help = finding.help.as_deref().unwrap_or_default();
    assert!(help.contains("runtimes that convert"), "{help}");
    match &finding.facts {
        Facts::LegacyImplicitBroadcast { opset, shapes, .. } => {
            assert_eq!(*opset, 6);
            assert_eq!(
                shapes,
                &[Shape::from_known(&[2, 3]), Shape::from_known(&[3])]
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn equal_shapes_a_stated_broadcast_and_opset_7_give_no_w5() {
    assert!(codes(add(6, &[2, 3], &[2, 3], None)).is_empty());
    assert!(codes(add(6, &[2, 3], &[3], Some(1))).is_empty());
    assert!(codes(add(7, &[2, 3], &[3], None)).is_empty());
    // Inputs that do not broadcast at all are the E1 alone.
    assert_eq!(codes(add(6, &[2, 3], &[4], None)), [Code::E1]);
}
