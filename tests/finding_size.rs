//! The bound on one finding's size (issue 34 item 3): a W1 over two rank-300 inputs needs one
//! clause per axis; its condition is stated up to `condition-clauses` and the others are counted
//! exactly, the same text in human, JSON and SARIF. Its shapes state at most `shape-dims` dims,
//! the axis the finding is about always among them (a clash at axis 900 of 1,000), and its lists
//! of nodes name at most `finding-nodes`, counting the others; so a finding's size does not grow
//! with the rank or the model. A bound on bytes and counts, not on time.

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
/// The README's `shape-dims`.
const SHAPE_DIMS: usize = 16;
/// The README's `finding-nodes`.
const FINDING_NODES: usize = 64;

/// An input `name` of rank `rank` whose dims are `{prefix}0 ..`.
fn input(name: &str, prefix: &str, rank: usize) -> ValueInfoProto {
    input_with(name, prefix, rank, None)
}

/// [`input`], with `size` at `axis` when `at` is `Some((axis, size))`.
fn input_with(name: &str, prefix: &str, rank: usize, at: Option<(usize, i64)>) -> ValueInfoProto {
    use tensor_shape_proto::dimension::Value;
    let dim = (0..rank)
        .map(|i| tensor_shape_proto::Dimension {
            value: Some(match at {
                Some((axis, size)) if axis == i => Value::DimValue(size),
                _ => Value::DimParam(format!("{prefix}{i}")),
            }),
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
    model(
        vec![add("add", "x", "y", "z")],
        vec![input("x", "a", rank), input("y", "b", rank)],
    )
}

/// `name`: `out = Add(a, b)`.
fn add(name: &str, a: &str, b: &str, out: &str) -> NodeProto {
    NodeProto {
        op_type: Some("Add".into()),
        name: Some(name.into()),
        input: vec![a.into(), b.into()],
        output: vec![out.into()],
        ..Default::default()
    }
}

/// A model of `nodes` over graph inputs `inputs` (opset 18).
fn model(nodes: Vec<NodeProto>, inputs: Vec<ValueInfoProto>) -> ModelProto {
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        graph: Some(GraphProto {
            name: Some("g".into()),
            node: nodes,
            input: inputs,
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

/// Asserts that `doc` validates against tests/json-schema-v1.json (whose cut shapes and
/// `_left_out` counts these documents have).
fn assert_valid(doc: &serde_json::Value) {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/json-schema-v1.json");
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

/// The JSON document's findings.
fn diagnostics(doc: &serde_json::Value) -> &Vec<serde_json::Value> {
    doc["files"][0]["diagnostics"].as_array().unwrap()
}

/// A shape of rank 1,000 cut to `shape-dims`, stating `size` at axis 900.
fn assert_cut_at_900(shape: &serde_json::Value, size: i64) {
    assert_eq!(shape["rank"], 1000, "{shape}");
    assert_eq!(shape["left_out"], 1000 - SHAPE_DIMS, "{shape}");
    let leading = shape["dims"].as_array().unwrap();
    assert_eq!(leading.len(), SHAPE_DIMS - 1, "{shape}");
    assert_eq!(leading[0], "d0");
    assert_eq!(
        shape["axes"],
        serde_json::json!([{"axis": 900, "dim": size}]),
        "{shape}"
    );
}

/// Twenty `Add`s of two rank-1,000 inputs that clash at axis 900 (3 against 4): each E1 states
/// the clashing axis past the cut, with its provenance, and counts the dims it leaves out.
#[test]
fn a_clash_at_axis_900_of_1000_shows_that_axis_and_counts_the_rest() {
    let (rank, axis, adds) = (1000, 900, 20);
    let mut nodes = Vec::new();
    let mut inputs = Vec::new();
    for k in 0..adds {
        let (x, y) = (format!("x{k}"), format!("y{k}"));
        inputs.push(input_with(&x, "d", rank, Some((axis, 3))));
        inputs.push(input_with(&y, "d", rank, Some((axis, 4))));
        nodes.push(add(&format!("add{k}"), &x, &y, &format!("z{k}")));
    }
    let written = Written::new("axis900", &model(nodes, inputs));
    let json = written.output("json");
    let doc: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_valid(&doc);
    let findings = diagnostics(&doc);
    assert_eq!(findings.len(), adds);
    // The whole document was 2 MB before the bound (100 KB a finding).
    assert!(json.len() < adds * 6_000, "{} bytes", json.len());
    for finding in findings {
        assert_eq!(finding["code"], "E1");
        let pretty = serde_json::to_string_pretty(finding).unwrap();
        assert!(pretty.len() < 4_000, "{} bytes: {pretty}", pretty.len());
        let facts = &finding["facts"];
        assert_eq!(facts["axis"], axis);
        for (operand, size) in facts["operands"].as_array().unwrap().iter().zip([3, 4]) {
            assert_cut_at_900(&operand["shape"], size);
        }
        for (input, size) in finding["inputs"].as_array().unwrap().iter().zip([3, 4]) {
            assert_cut_at_900(&input["shape"], size);
            let provenance = input["provenance"].as_array().unwrap();
            assert_eq!(provenance.len(), 1, "{input}");
            assert_eq!(provenance[0]["axis"], axis);
            assert_eq!(provenance[0]["dim"], size);
        }
    }
    // Human output states the same cut shapes, axis 900 named and the rest counted.
    let human = written.output("human");
    let more = 900 - (SHAPE_DIMS - 1);
    for size in [3, 4] {
        let stated = format!(
            "d{}, … {more} dims …, axis 900: {size}, … and 99 more dims] (rank 1000)",
            SHAPE_DIMS - 2
        );
        assert_eq!(human.matches(&stated).count(), adds, "{human}");
    }
    assert!(!human.contains(&format!("d{SHAPE_DIMS}, ")), "{human}");
}

/// `count` Adds of the same two inputs `x: [a]` and `y: [b]`: one W1 (`a = b ∨ a = 1 ∨ b = 1`),
/// its later nodes named in `also_at`.
fn shared_condition(count: usize) -> ModelProto {
    let nodes = (0..count)
        .map(|k| add(&format!("add{k}"), "x", "y", &format!("z{k}")))
        .collect();
    model(nodes, vec![input("x", "a", 1), input("y", "b", 1)])
}

#[test]
fn a_condition_needed_at_more_nodes_than_the_limit_names_the_first_and_counts_the_rest() {
    let count = FINDING_NODES + 1 + 40;
    let written = Written::new("also-at", &shared_condition(count));
    let doc: serde_json::Value = serde_json::from_str(&written.output("json")).unwrap();
    assert_valid(&doc);
    let findings = diagnostics(&doc);
    assert_eq!(findings.len(), 1);
    let facts = &findings[0]["facts"];
    let also_at = facts["also_at"].as_array().unwrap();
    assert_eq!(also_at.len(), FINDING_NODES);
    assert_eq!(also_at[0]["name"], "add1");
    assert_eq!(
        also_at[FINDING_NODES - 1]["name"],
        format!("add{FINDING_NODES}")
    );
    assert_eq!(facts["also_at_left_out"], 40);
    let help = findings[0]["help"].as_str().unwrap();
    assert!(
        help.ends_with("; the same condition is needed at … and 40 more nodes"),
        "{help}"
    );
    assert!(
        !help.contains(&format!("`add{}`", FINDING_NODES + 1)),
        "{help}"
    );
    let human = written.output("human");
    assert!(human.contains("needed at … and 40 more nodes"), "{human}");
    let sarif = written.output("sarif");
    assert!(sarif.contains("needed at … and 40 more nodes"));
    assert!(sarif.contains("\"also_at_left_out\": 40"));

    // At the limit, every node is named and nothing is counted: the member is left out.
    let written = Written::new("also-at-limit", &shared_condition(FINDING_NODES + 1));
    let doc: serde_json::Value = serde_json::from_str(&written.output("json")).unwrap();
    let facts = &diagnostics(&doc)[0]["facts"];
    assert_eq!(facts["also_at"].as_array().unwrap().len(), FINDING_NODES);
    assert!(facts.get("also_at_left_out").is_none(), "{facts}");
}
