//! The committed fixtures in `tests/models/` load (or fail to load) exactly as documented in
//! `tests/models/README.md`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::PathBuf;

use crate::model::{load_path, ProblemKind};
use crate::{Limits, LoadError};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
}

fn load_error(name: &str) -> LoadError {
    match load_path(&fixture(name), Limits::default()) {
        Ok(_) => panic!("{name} should not load"),
        Err(error) => error,
    }
}

#[test]
fn bad_inputs_give_one_clean_error_with_a_stable_code() {
    let cases = [
        ("load_empty.onnx", "load/empty"),
        ("load_garbage.onnx", "load/decode"),
        ("load_truncated.onnx", "load/decode"),
        ("load_wrong_wire_type.onnx", "load/decode"),
        ("load_nested_if_10000.onnx", "load/limit"),
        ("load_huge_rank.onnx", "load/limit"),
        ("load_negative_dims.onnx", "load/dims"),
        ("load_overflow_dims.onnx", "load/dims"),
        ("load_directory.onnx", "load/directory"),
        ("does_not_exist.onnx", "load/io"),
    ];
    for (name, code) in cases {
        let error = load_error(name);
        assert_eq!(error.code(), code, "{name}: {error}");
        let message = error.to_string();
        assert!(
            message.contains(name),
            "{name}: message must name the file: {message}"
        );
    }
}

#[test]
fn decode_errors_say_where_in_the_file() {
    for name in ["load_truncated.onnx", "load_wrong_wire_type.onnx"] {
        match load_error(name) {
            LoadError::Decode {
                offset, context, ..
            } => {
                assert!(offset > 0, "{name}: offset should be located");
                assert!(context.starts_with("ModelProto"), "{context}");
            }
            other => panic!("{name}: {other}"),
        }
    }
}

#[test]
fn a_model_without_a_graph_is_a_structural_problem() {
    let model = load_path(&fixture("load_no_graph.onnx"), Limits::default()).unwrap();
    assert!(model
        .problems
        .iter()
        .any(|p| p.kind == ProblemKind::NoGraph));
}

#[test]
fn well_formed_fixtures_load_without_structural_problems() {
    let dir = fixture("");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.extension().is_none_or(|e| e != "onnx")
            || name.starts_with("load_")
            || name.starts_with("e3_")
        {
            continue;
        }
        let model = load_path(&path, Limits::default()).unwrap_or_else(|e| panic!("{e}"));
        assert!(model.problems.is_empty(), "{name}: {:?}", model.problems);
        assert!(model.node_count() > 0, "{name}");
    }
}

#[test]
fn structural_fixtures_report_their_problem() {
    type Expect = fn(&ProblemKind) -> bool;
    let cases: [(&str, Expect); 4] = [
        ("e3_cycle.onnx", |k| matches!(k, ProblemKind::Cycle { .. })),
        ("e3_undefined_input.onnx", |k| {
            matches!(k, ProblemKind::UndefinedInput { .. })
        }),
        ("e3_duplicate_producer.onnx", |k| {
            matches!(k, ProblemKind::DuplicateProducer { .. })
        }),
        ("e3_no_op_type.onnx", |k| {
            matches!(k, ProblemKind::MissingOpType)
        }),
    ];
    for (name, expected) in cases {
        let model = load_path(&fixture(name), Limits::default()).unwrap();
        assert!(
            model.problems.iter().any(|p| expected(&p.kind)),
            "{name}: {:?}",
            model.problems
        );
    }
}

#[test]
fn subgraphs_functions_and_external_data_load() {
    let model = load_path(&fixture("ok_subgraphs.onnx"), Limits::default()).unwrap();
    assert!(model.graphs.len() >= 4, "If branches, Loop body, Scan body");
    assert!(model.graphs.iter().any(|g| g.path.contains("/then_branch")));
    let model = load_path(&fixture("ok_local_function.onnx"), Limits::default()).unwrap();
    assert_eq!(model.functions.len(), 1);
    let model = load_path(&fixture("ok_external_data.onnx"), Limits::default()).unwrap();
    let main = model.main().unwrap();
    assert!(!main.initializers.is_empty());
    let model = load_path(&fixture("ok_unnamed_nodes.onnx"), Limits::default()).unwrap();
    assert!(model
        .main()
        .unwrap()
        .nodes
        .iter()
        .all(|n| !n.named && !n.name.is_empty()));
}

#[test]
fn captured_float_initializers_are_read_as_data_in_branches() {
    // `scales` is a main-graph initializer read only inside the If's branches: its elements are
    // decoded through the capture, so Resize's output is known (an unknown would mean they were
    // lost on the way).
    let report =
        crate::lint_path(&fixture("ok_captured_scales.onnx"), &crate::Options::new()).unwrap();
    assert_eq!(
        report.shape("y").map(ToString::to_string).as_deref(),
        Some("[1, 1, 4, 6]")
    );
    assert!(report.findings().is_empty(), "{:?}", report.findings());
}
