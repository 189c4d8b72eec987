//! Loading: graphs, value origins, subgraph captures, structural problems and node spans, on models
//! built in code (the committed fixtures are covered by `fixture_tests.rs`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]
use std::path::Path;

use crate::model::{load_bytes, Origin, ProblemKind};
use crate::proto::{
    AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, ValueInfoProto,
};
use crate::Limits;
use bytes::Bytes;
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

fn load(model: &ModelProto) -> crate::model::Model {
    let bytes = Bytes::from(model.encode_to_vec());
    load_bytes(bytes, Path::new("test.onnx"), Limits::default()).unwrap()
}

/// The node producing each input of node `index` (`None` for a graph input).
fn producers(graph: &crate::model::Graph, index: usize) -> Vec<Option<usize>> {
    graph.nodes[index]
        .inputs()
        .iter()
        .map(|value| graph.value(value.unwrap()).unwrap().producer())
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

/// A name defined twice keeps its first value: the second producer's slot, and every reader of
/// the name (near or far, before or after the second producer), hold the first value; the
/// values defined after the duplicate keep their own names and producers.
#[test]
fn a_name_defined_twice_is_the_first_value_everywhere() {
    let mut nodes = vec![
        node("Relu", "first", &["x"], &["t"]),
        node("Relu", "second", &["x"], &["t", "u"]),
        node("Neg", "near", &["t", "u"], &["n"]),
        node("Relu", "weight_dup", &["x"], &["w"]),
    ];
    // Far enough that the reader of `t` below does not see its producers among recent nodes.
    for i in 0..20 {
        nodes.push(node("Abs", &format!("pad{i}"), &["n"], &[&format!("p{i}")]));
    }
    nodes.push(node("Add", "far", &["t", "p19"], &["y"]));
    let graph = GraphProto {
        node: nodes,
        input: vec![value("x")],
        initializer: vec![crate::proto::TensorProto {
            name: Some("w".into()),
            data_type: Some(1),
            dims: vec![1],
            float_data: vec![1.0],
            ..Default::default()
        }],
        output: vec![value("y")],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    let duplicates: Vec<(Option<usize>, &ProblemKind)> =
        loaded.problems.iter().map(|p| (p.node, &p.kind)).collect();
    assert_eq!(
        duplicates,
        [
            (
                Some(1),
                &ProblemKind::DuplicateProducer { name: "t".into() }
            ),
            (
                Some(3),
                &ProblemKind::DuplicateProducer { name: "w".into() }
            ),
        ]
    );
    let main = loaded.main().unwrap();
    let t = main.lookup("t").unwrap();
    assert_eq!(main.nodes[1].outputs()[0], Some(t));
    assert_eq!(main.nodes[2].inputs()[0], Some(t));
    assert_eq!(main.nodes[24].inputs()[0], Some(t));
    assert_eq!(producers(main, 24), [Some(0), Some(23)]);
    assert_eq!(
        main.value(t).unwrap().origin,
        Origin::Node { node: 0, slot: 0 }
    );
    let w = main.lookup("w").unwrap();
    assert_eq!(main.value(w).unwrap().origin, Origin::Initializer);
    assert_eq!(main.nodes[3].outputs()[0], Some(w));
    // Every value is named once, and each name finds its own value.
    let names: Vec<&str> = main.values.iter().map(|v| main.text(v.name)).collect();
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len());
    for (i, name) in names.iter().enumerate() {
        assert_eq!(main.lookup(name).map(|v| v.0 as usize), Some(i), "{name}");
    }
    assert_eq!(producers(main, 2), [Some(0), Some(1)]);
    assert_eq!(
        main.value(main.lookup("u").unwrap()).unwrap().origin,
        Origin::Node { node: 1, slot: 1 }
    );
}

/// Structural problems come in node order, and at one node in the order they are met: its
/// missing op type, then its outputs' duplicates; inputs left undefined come after.
#[test]
fn structural_problems_come_in_node_order() {
    let graph = GraphProto {
        node: vec![
            node("Relu", "n0", &["x"], &["a"]),
            node("Relu", "n1", &["a"], &["a"]),
            node("", "n2", &["a"], &["b"]),
            node("Add", "n3", &["a", "nowhere"], &["c", "c"]),
            node("", "n4", &["c"], &["x"]),
        ],
        input: vec![value("x")],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    let problems: Vec<(Option<usize>, &ProblemKind)> =
        loaded.problems.iter().map(|p| (p.node, &p.kind)).collect();
    let duplicate = |name: &str| ProblemKind::DuplicateProducer { name: name.into() };
    assert_eq!(
        problems,
        [
            (Some(1), &duplicate("a")),
            (Some(2), &ProblemKind::MissingOpType),
            (Some(3), &duplicate("c")),
            (Some(4), &ProblemKind::MissingOpType),
            (Some(4), &duplicate("x")),
            (
                Some(3),
                &ProblemKind::UndefinedInput {
                    name: "nowhere".into()
                }
            ),
        ]
    );
}

/// The same at the size where the outputs are indexed in batches: duplicates of a value of an
/// earlier batch and of the same batch, read from near, far and later in the file.
#[test]
fn a_name_defined_twice_is_the_first_value_in_a_large_graph() {
    let count = 100_000;
    let name = |i: usize| format!("v{i}");
    let mut nodes = Vec::with_capacity(count);
    let mut first_producer = std::collections::HashMap::new();
    let mut expected_duplicates: Vec<(Option<usize>, Option<String>)> = Vec::new();
    let mut inputs = Vec::with_capacity(count);
    for i in 0..count {
        let output = match i {
            40_000 => name(100),
            40_010 | 90_000 => name(39_990),
            i => name(i),
        };
        let input = match i {
            // The nodes after a duplicate read the graph input: their predecessor's output
            // name is not the usual one.
            0 | 40_001 | 40_011 | 60_500 | 90_001 => "x".to_owned(),
            40_020 | 95_000 => name(39_990),
            50_000 => name(100),
            // A name defined later in the file (by a node reading the graph input).
            60_000 => name(60_500),
            i => name(i - 1),
        };
        // A few nodes without an op type, reported before any duplicate of theirs.
        let op = if i % 25_000 == 7 || i == 40_010 {
            expected_duplicates.push((Some(i), None));
            ""
        } else {
            "Relu"
        };
        if first_producer.contains_key(&output) {
            expected_duplicates.push((Some(i), Some(output.clone())));
        } else {
            first_producer.insert(output.clone(), i);
        }
        nodes.push(node(op, &format!("n{i}"), &[&input], &[&output]));
        inputs.push(input);
    }
    let graph = GraphProto {
        node: nodes,
        input: vec![value("x")],
        output: vec![value(&name(count - 1))],
        ..Default::default()
    };
    let loaded = load(&model(graph));
    // In node order, as they were met, whatever batch they fell in.
    let problems: Vec<(Option<usize>, Option<String>)> = loaded
        .problems
        .iter()
        .map(|p| match &p.kind {
            ProblemKind::DuplicateProducer { name } => (p.node, Some(name.clone())),
            ProblemKind::MissingOpType => (p.node, None),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(problems, expected_duplicates);
    let main = loaded.main().unwrap();
    assert_eq!(main.values.len(), 1 + first_producer.len());
    for (node, wanted) in main.nodes.iter().zip(&inputs) {
        let input = node.inputs()[0].unwrap();
        assert_eq!(main.text(main.value(input).unwrap().name), wanted);
        let expected = first_producer.get(wanted).copied();
        assert_eq!(
            producers(main, node.index()),
            [expected],
            "node {}",
            node.index()
        );
        let output = node.outputs()[0].unwrap();
        let produced = main.text(main.value(output).unwrap().name);
        assert_eq!(main.lookup(produced), Some(output));
    }
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
    let owner = &main.nodes[0].span();
    let inner = &then_graph.nodes[0].span();
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
        let decoded = NodeProto::decode(&bytes[n.span()]).unwrap();
        assert_eq!(decoded.name.as_deref(), Some(main.text(n.name)));
    }
}
