//! I2 `cap-reached`: each cap a small built model can reach is reported by name, at its node (or
//! naming the graph for a whole-model cap), once per (limit, node) and in node order; infos
//! leave the exit code alone; and models under every cap (the committed fixtures) get none.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

mod common;

use std::path::{Path, PathBuf};

use onnx_bcast_lint::diag::{Code, Facts};
use onnx_bcast_lint::proto::{
    tensor_shape_proto, type_proto, AttributeProto, FunctionProto, GraphProto, ModelProto,
    NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use onnx_bcast_lint::{lint_model, lint_path, LintReport, Options};
use prost::Message;

fn node(op: &str, inputs: &[&str], outputs: &[&str]) -> NodeProto {
    NodeProto {
        op_type: Some(op.into()),
        name: Some(format!("{op}_{}", outputs.first().unwrap_or(&""))),
        input: inputs.iter().map(|s| (*s).into()).collect(),
        output: outputs.iter().map(|s| (*s).into()).collect(),
        ..Default::default()
    }
}

/// A float input whose dims are `dims`: a number is a size, anything else a symbol.
fn input(name: &str, dims: &[&str]) -> ValueInfoProto {
    use tensor_shape_proto::dimension::Value;
    let dim = |d: &&str| tensor_shape_proto::Dimension {
        value: Some(match d.parse::<i64>() {
            Ok(size) => Value::DimValue(size),
            Err(_) => Value::DimParam((*d).to_owned()),
        }),
        ..Default::default()
    };
    ValueInfoProto {
        name: Some(name.into()),
        r#type: Some(TypeProto {
            value: Some(type_proto::Value::TensorType(type_proto::Tensor {
                elem_type: Some(1),
                shape: Some(TensorShapeProto {
                    dim: dims.iter().map(dim).collect(),
                }),
            })),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn model(graph: GraphProto) -> ModelProto {
    ModelProto {
        ir_version: Some(10),
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        graph: Some(graph),
        ..Default::default()
    }
}

/// Each I2 of `report` as (limit, node name or `None`, graph).
fn caps(report: &LintReport) -> Vec<(String, Option<String>, String)> {
    i2s(report)
        .into_iter()
        .map(|(limit, node, graph, _, _)| (limit, node, graph))
        .collect()
}

/// An I2 as (limit, node name or `None`, graph, the nodes it lists, its count).
type I2 = (String, Option<String>, String, Vec<String>, usize);

/// Each I2 of `report`.
fn i2s(report: &LintReport) -> Vec<I2> {
    report
        .findings()
        .iter()
        .filter(|f| f.code == Code::I2)
        .map(|f| {
            let Facts::CapReached {
                limit,
                graph,
                nodes,
                count,
                ..
            } = &f.facts
            else {
                panic!("I2 with {:?}", f.facts);
            };
            (
                limit.clone(),
                f.node.as_ref().map(|n| n.name.clone()),
                graph.clone(),
                nodes.clone(),
                *count,
            )
        })
        .collect()
}

/// A model whose main graph calls the local function `F` once, `F` calling `callee` `fanout`
/// times in a chain.
fn calling(callee: &str, fanout: usize) -> ModelProto {
    let body: Vec<NodeProto> = (0..fanout)
        .map(|i| {
            let mut call = node(callee, &[&format!("t{i}")], &[&format!("t{}", i + 1)]);
            call.domain = Some("local".into());
            call
        })
        .collect();
    let function = FunctionProto {
        name: Some("F".into()),
        domain: Some("local".into()),
        input: vec!["t0".into()],
        output: vec![format!("t{fanout}")],
        node: body,
        opset_import: vec![OperatorSetIdProto {
            domain: Some(String::new()),
            version: Some(18),
        }],
        ..Default::default()
    };
    let mut call = node("F", &["x"], &["y"]);
    call.domain = Some("local".into());
    let mut model = model(GraphProto {
        node: vec![call],
        input: vec![input("x", &["2", "3"])],
        ..Default::default()
    });
    model.functions = vec![function];
    model.opset_import.push(OperatorSetIdProto {
        domain: Some("local".into()),
        version: Some(1),
    });
    model
}

/// A function calling itself once: inference follows the calls down to `infer-depth`, and the
/// call it stops at (in the function's body) is named.
#[test]
fn recursion_past_the_depth_limit_names_infer_depth_at_the_call() {
    let report = lint_model(calling("F", 1), &Options::new()).unwrap();
    assert_eq!(
        caps(&report),
        [(
            "infer-depth".to_owned(),
            Some("F_t1".to_owned()),
            "function/local/F".to_owned()
        )]
    );
    let finding = report
        .findings()
        .iter()
        .find(|f| f.code == Code::I2)
        .unwrap();
    assert_eq!(
        finding.message,
        "a check was not made: limit `infer-depth` (nested body inference, 64) reached at F node `F_t1`"
    );
    assert!(finding
        .help
        .as_deref()
        .unwrap()
        .contains("unknown, not wrong"));
}

/// A function calling itself twice: 2^64 calls would run. The first chain of calls goes down to
/// `infer-depth`, and the body budget stops the others: each limit is one I2 at the body's
/// first call, listing both calls in node order.
#[test]
fn recursion_past_the_body_budget_names_body_work_at_each_call() {
    let report = lint_model(calling("F", 2), &Options::new()).unwrap();
    let at = |limit: &str| {
        (
            limit.to_owned(),
            Some("F_t1".to_owned()),
            "function/local/F".to_owned(),
            vec!["F_t1".to_owned(), "F_t2".to_owned()],
            2,
        )
    };
    assert_eq!(i2s(&report), [at("infer-depth"), at("body-work-factor")]);
}

/// `ConstantOfShape` of 4,096 elements read by 600 `Identity` nodes copies 2.4 million
/// elements... twice (each input and each output): past `value-work` the values stop, and the
/// cap, a whole-model one, names the main graph.
#[test]
fn copying_past_the_value_work_names_the_main_graph() {
    let mut fill = node("ConstantOfShape", &["len"], &["big"]);
    fill.attribute.push(AttributeProto {
        name: Some("value".into()),
        r#type: Some(4),
        t: Some(Box::new(TensorProto {
            dims: vec![1],
            data_type: Some(7),
            int64_data: vec![1],
            ..Default::default()
        })),
        ..Default::default()
    });
    let mut nodes = vec![fill];
    let outputs: Vec<String> = (0..600).map(|i| format!("copy{i}")).collect();
    nodes.extend(outputs.iter().map(|o| node("Identity", &["big"], &[o])));
    let graph = GraphProto {
        node: nodes,
        initializer: vec![TensorProto {
            name: Some("len".into()),
            dims: vec![1],
            data_type: Some(7),
            int64_data: vec![4096],
            ..Default::default()
        }],
        ..Default::default()
    };
    let report = lint_model(model(graph), &Options::new()).unwrap();
    assert_eq!(
        caps(&report),
        [("value-work".to_owned(), None, "main".to_owned())]
    );
    let finding = report
        .findings()
        .iter()
        .find(|f| f.code == Code::I2)
        .unwrap();
    assert!(
        finding.message.ends_with("reached at graph `main`"),
        "{}",
        finding.message
    );
}

/// `x` of rank `rank` over symbols, its rotation by one axis, and `adds` Adds of the two: each
/// states `rank` clauses of three atoms.
fn rotation_adds(rank: usize, adds: usize) -> ModelProto {
    let dims: Vec<String> = (0..rank).map(|i| format!("d{i}")).collect();
    let dims: Vec<&str> = dims.iter().map(String::as_str).collect();
    let mut transpose = node("Transpose", &["x"], &["t"]);
    transpose.attribute = vec![AttributeProto {
        name: Some("perm".into()),
        r#type: Some(7),
        ints: (1..rank)
            .chain([0])
            .map(|i| i64::try_from(i).unwrap())
            .collect(),
        ..Default::default()
    }];
    let mut nodes = vec![transpose];
    nodes.extend((0..adds).map(|i| node("Add", &["x", "t"], &[&format!("a{i}")])));
    model(GraphProto {
        node: nodes,
        input: vec![input("x", &dims)],
        ..Default::default()
    })
}

/// A rank-200 broadcast states 600 atoms, past `condition-work` (512): its W1 is stated from
/// the condition's head, and the cap is one I2 at the first Add, listing five of the seven
/// Adds in node order and counting the others (one line, as the W1s fold into one).
#[test]
fn a_condition_past_its_work_budget_names_condition_work_at_each_node() {
    let report = lint_model(rotation_adds(200, 7), &Options::new()).unwrap();
    let listed: Vec<String> = (0..5).map(|i| format!("Add_a{i}")).collect();
    assert_eq!(
        i2s(&report),
        [(
            "condition-work".to_owned(),
            Some("Add_a0".to_owned()),
            "main".to_owned(),
            listed,
            7
        )]
    );
    let i2 = report
        .findings()
        .iter()
        .find(|f| f.code == Code::I2)
        .unwrap();
    assert!(
        i2.message.ends_with(
            "reached at 7 nodes (`Add_a0`, `Add_a1`, `Add_a2`, `Add_a3`, `Add_a4`, and 2 more)"
        ),
        "{}",
        i2.message
    );
    // Under the budget (rank 100: 300 atoms) the same model states its W1s and no I2.
    let report = lint_model(rotation_adds(100, 2), &Options::new()).unwrap();
    assert!(caps(&report).is_empty(), "{:?}", caps(&report));
    assert!(report.findings().iter().any(|f| f.code == Code::W1));
}

/// An info changes no exit code, is counted among the infos of the summary, and its JSON
/// validates against the schema.
#[test]
fn an_i2_leaves_the_exit_code_alone_and_is_counted() {
    let path = std::env::temp_dir().join(format!("onnx-bcast-lint-i2-{}.onnx", std::process::id()));
    std::fs::write(&path, calling("F", 1).encode_to_vec()).unwrap();
    let file = path.to_str().unwrap();
    let human = common::run(&[file]);
    let json = common::run(&["--format", "json", file]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(human.status.code(), Some(0), "{}", common::stderr(&human));
    let text = common::stdout(&human) + &common::stderr(&human);
    assert!(text.contains("fingerprint: I2:"), "{text}");
    assert!(
        text.contains("0 errors, 0 warnings, 1 info in 1 file"),
        "{text}"
    );
    let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/json-schema-v1.json")).unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:?}");
    let facts = &doc["files"][0]["diagnostics"][0]["facts"];
    assert_eq!(facts["kind"], "cap_reached");
    assert_eq!(facts["limit"], "infer-depth");
    assert_eq!(facts["value"], 64);
}

/// The committed fixtures stay under every cap: none gets an I2.
#[test]
fn models_under_every_cap_get_no_i2() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut linted = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "onnx") {
            continue;
        }
        let Ok(report) = lint_path(&path, &Options::new()) else {
            continue;
        };
        linted += 1;
        assert!(
            caps(&report).is_empty(),
            "{}: {:?}",
            path.display(),
            caps(&report)
        );
    }
    assert!(linted > 50, "only {linted} fixtures linted");
}
