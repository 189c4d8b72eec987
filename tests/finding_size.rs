//! The bound on one finding's text (`condition-clauses`, issue 34 item 3): a W1 over two
//! rank-300 inputs needs one clause per axis; its condition is stated up to the limit and the
//! others are counted exactly, the same text in human, JSON and SARIF, so a finding's size does
//! not grow with the rank. A bound on bytes and counts, not on time.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::PathBuf;

use onnx_bcast_lint::proto::{
    tensor_shape_proto, type_proto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorShapeProto, TypeProto, ValueInfoProto,
};
use prost::Message;

mod common;
use common::command;

/// The README's `condition-clauses`.
const CLAUSES: usize = 64;

/// An input `name` of rank `rank` whose dims are `{prefix}0 ..`.
fn input(name: &str, prefix: &str, rank: usize) -> ValueInfoProto {
    let dim = (0..rank)
        .map(|i| tensor_shape_proto::Dimension {
            value: Some(tensor_shape_proto::dimension::Value::DimParam(format!(
                "{prefix}{i}"
            ))),
            ..Default::default()
        })
        .collect();
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto { dim }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// `Add(x: [a0 .. a{rank-1}], y: [b0 .. b{rank-1}])`: valid only if every axis broadcasts.
fn add_of_rank(rank: usize) -> ModelProto {
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: vec![NodeProto {
                op_type: Some("Add".into()),
                name: Some("add".into()),
                input: vec!["x".into(), "y".into()],
                output: vec!["z".into()],
                ..Default::default()
            }],
            input: vec![input("x", "a", rank), input("y", "b", rank)],
            ..Default::default()
        }),
        ..Default::default()
    }
}

/// The model written to a file of its own, removed when dropped.
struct Written(PathBuf);

impl Written {
    fn new(name: &str, model: &ModelProto) -> Self {
        let path = std::env::temp_dir().join(format!(
            "onnx-bcast-lint-finding-size-{}-{name}.onnx",
            std::process::id()
        ));
        std::fs::write(&path, model.encode_to_vec()).unwrap();
        Written(path)
    }

    fn output(&self, format: &str) -> String {
        let out = command()
            .args(["--format", format, self.0.to_str().unwrap()])
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    }
}

impl Drop for Written {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The W1's condition in a JSON document.
fn w1_condition(doc: &serde_json::Value) -> String {
    let findings = doc["files"][0]["diagnostics"].as_array().unwrap();
    let w1 = findings.iter().find(|f| f["code"] == "W1").unwrap();
    w1["facts"]["condition"].as_str().unwrap().to_owned()
}

#[test]
fn a_rank_300_condition_states_its_first_clauses_and_counts_the_rest() {
    let written = Written::new("rank300", &add_of_rank(300));
    let doc: serde_json::Value = serde_json::from_str(&written.output("json")).unwrap();
    let condition = w1_condition(&doc);
    let more = format!(" ∧ … and {} more clauses", 300 - CLAUSES);
    assert!(condition.ends_with(&more), "{condition}");
    let stated = condition.strip_suffix(&more).unwrap();
    assert_eq!(stated.split(" ∧ ").count(), CLAUSES, "{stated}");
    // Each clause is an axis's: `(a0 = b0 ∨ a0 = 1 ∨ b0 = 1)` or its plain form.
    assert!(stated.contains("a0") && !stated.contains(&format!("a{CLAUSES}")));
    assert!(condition.len() < 64 * CLAUSES, "{} bytes", condition.len());
    // Human and SARIF state the same text.
    for format in ["human", "sarif"] {
        let text = written.output(format);
        assert!(text.contains(&more), "{format}");
    }
}

#[test]
fn a_condition_within_the_limit_is_whole() {
    let written = Written::new("rank64", &add_of_rank(CLAUSES));
    let doc: serde_json::Value = serde_json::from_str(&written.output("json")).unwrap();
    let condition = w1_condition(&doc);
    assert!(!condition.contains('…'), "{condition}");
    assert_eq!(condition.split(" ∧ ").count(), CLAUSES, "{condition}");
    assert!(condition.contains(&format!("a{}", CLAUSES - 1)));
}
