//! Loading: graphs, value origins, subgraph captures, structural problems and node spans, on models
//! built in code (the committed fixtures are covered by `fixtures.rs`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
use std::path::Path;

use bytes::Bytes;
use onnx_bcast_lint::model::{load_bytes, Origin, ProblemKind};
use onnx_bcast_lint::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, ValueInfoProto,
};
use onnx_bcast_lint::Limits;
use prost::Message;

fn node(op: &str, name: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(name.into()),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        ..Default::default()
    }
}

fn value(name: &str) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name.into()),
        ..Default::default()
    }
}

fn model(graph: GraphProto) -> ModelProto {
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

fn load(model: &ModelProto) -> onnx_bcast_lint::model::Model {
    let bytes = Bytes::from(model.encode_to_vec());
    load_bytes(bytes, Path::new("test.onnx"), Limits::default()).unwrap()
}

/// The node producing each input of node `index` (`None` for a graph input).
fn producers(graph: &onnx_bcast_lint::model::Graph, index: usize) -> Vec<Option<usize>> {
    use onnx_bcast_lint::model::Origin;
    graph.nodes[index]
        .inputs()
        .iter()
        .map(|value| match graph.value(value.unwrap()).unwrap().origin {
            Origin::Node { node, .. } | Origin::Constant { node } => Some(node),
            _ => None,
        })
        .collect()
}

#[test]
fn a_graph_written_in_topological_order_keeps_the_file_order() {
    let graph = GraphProto {
        node: vec![
            node("Abs", "left", &["x"], &["l"]),
            node("Neg", "right", &["x"], &["r"]),
            node("Add", "join", &["l", "r"], &["y"]),
            node("Relu", "unused", &["x"], &["z"]),
        ],
        input: vec![value("x")],
        output: vec![value("y")],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    let main = loaded.main().unwrap();
    assert_eq!(main.order, vec![0, 1, 2, 3]);
    // The join reads the two nodes before it: the edges the order must respect.
    assert_eq!(producers(main, 2), vec![Some(0), Some(1)]);
}

#[test]
fn nodes_are_sorted_topologically_whatever_the_file_order() {
    let graph = GraphProto {
        node: vec![
            node("Relu", "second", &["t"], &["y"]),
            node("Abs", "first", &["x"], &["t"]),
        ],
        input: vec![value("x")],
        output: vec![value("y")],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    let main = loaded.main().unwrap();
    assert_eq!(main.order, vec![1, 0]);
    assert!(loaded.problems.is_empty());
    assert_eq!(producers(main, 0), vec![Some(1)]);
}

#[test]
fn unnamed_nodes_get_stable_names_and_opset() {
    let graph = GraphProto {
        node: vec![node("Abs", "", &["x"], &["y"])],
        input: vec![value("x")],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    let main = loaded.main().unwrap();
    let n = &main.nodes[0];
    assert_eq!(main.text(n.name), "Abs_0");
    assert!(!n.named);
    assert_eq!(n.opset(), Some(17));
}

#[test]
fn empty_input_name_is_an_absent_optional_input() {
    let graph = GraphProto {
        node: vec![node("Clip", "c", &["x", "", "hi"], &["y"])],
        input: vec![value("x"), value("hi")],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    let clip = &loaded.main().unwrap().nodes[0];
    assert!(clip.inputs()[0].is_some());
    assert!(clip.inputs()[1].is_none());
    assert!(loaded.problems.is_empty());
}

#[test]
fn structural_problems_are_reported_not_fatal() {
    let graph = GraphProto {
        node: vec![
            node("Add", "a", &["x", "b_out"], &["a_out"]),
            node("Relu", "b", &["a_out"], &["b_out"]),
            node("Relu", "dup", &["x"], &["a_out"]),
            node("Relu", "dangling", &["nowhere"], &["z"]),
            node("", "nameless", &["x"], &["w"]),
        ],
        input: vec![value("x")],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    let kinds: Vec<&ProblemKind> = loaded.problems.iter().map(|p| &p.kind).collect();
    assert!(kinds.contains(&&ProblemKind::DuplicateProducer {
        name: "a_out".into()
    }));
    assert!(kinds.contains(&&ProblemKind::UndefinedInput {
        name: "nowhere".into()
    }));
    assert!(kinds.contains(&&ProblemKind::MissingOpType));
    assert!(kinds.contains(&&ProblemKind::Cycle { nodes: vec![0, 1] }));
    let main = loaded.main().unwrap();
    assert!(main.nodes[0].in_cycle && main.nodes[1].in_cycle);
    assert!(!main.order.contains(&0));
    assert!(main.order.contains(&3));
}

#[test]
fn subgraphs_capture_outer_values_and_order_the_owner_after_them() {
    let then_branch = GraphProto {
        node: vec![node("Add", "inner", &["outer_t", "outer_t"], &["r"])],
        output: vec![value("r")],
        ..Default::default()
    };
    let else_branch = GraphProto {
        node: vec![node("Identity", "inner2", &["x"], &["r2"])],
        output: vec![value("r2")],
        ..Default::default()
    };
    let mut if_node = node("If", "branch", &["cond"], &["y"]);
    if_node.attribute = vec![
        AttributeProto {
            name: Some("then_branch".into()),
            g: Some(Box::new(then_branch)),
            r#type: Some(5),
            ..Default::default()
        },
        AttributeProto {
            name: Some("else_branch".into()),
            g: Some(Box::new(else_branch)),
            r#type: Some(5),
            ..Default::default()
        },
    ];
    let graph = GraphProto {
        node: vec![if_node, node("Abs", "producer", &["x"], &["outer_t"])],
        input: vec![value("x"), value("cond")],
        output: vec![value("y")],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    assert_eq!(loaded.graphs.len(), 3);
    let main = loaded.main().unwrap();
    assert_eq!(
        main.order,
        vec![1, 0],
        "If must run after the producer it captures"
    );
    let then_graph = &loaded.graphs[1];
    assert_eq!(then_graph.path, "main/branch/then_branch");
    let captured = then_graph.lookup("outer_t").unwrap();
    assert!(matches!(
        then_graph.value(captured).unwrap().origin,
        Origin::Outer { .. }
    ));
    assert_eq!(main.nodes[0].subgraphs().len(), 2);
    // Spans of inner nodes lie inside the span of their owner.
    let owner = &main.nodes[0].span;
    let inner = &then_graph.nodes[0].span;
    assert!(owner.start < inner.start && inner.end <= owner.end);
}

#[test]
fn node_spans_decode_back_to_the_node() {
    let graph = GraphProto {
        node: vec![
            node("Abs", "first", &["x"], &["t"]),
            node("Relu", "second", &["t"], &["y"]),
        ],
        input: vec![value("x")],
        ..Default::default()
    };
    let proto = model(graph);
    let bytes = proto.encode_to_vec();
    let loaded = load(&proto);
    let main = loaded.main().unwrap();
    for n in &main.nodes {
        let decoded = NodeProto::decode(&bytes[n.span.clone()]).unwrap();
        assert_eq!(decoded.name.as_deref(), Some(main.text(n.name)));
    }
}
