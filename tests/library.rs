//! The library as a converter calls it (issue 19 item 3): shapes reflect the caller's bindings,
//! errors read as sentences, and the protobuf types come from the crate itself.

use std::path::Path;

use onnx_bcast_lint::proto::{Message, ModelProto};
use onnx_bcast_lint::{lint_model, lint_path, Code, Options};

fn model(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
}

#[test]
fn shapes_reflect_the_callers_bindings() {
    // w1_symbolic adds x: [batch, seq] to y: [.., 77]: valid only if seq is 1 or 77.
    let unbound = lint_path(&model("w1_symbolic.onnx"), &Options::new()).unwrap();
    let x = unbound.shape("x").unwrap().to_string();
    assert!(x.contains("seq"), "unbound x is {x}");
    assert!(unbound.findings.iter().any(|f| f.code == Code::W1));

    let options = Options::new().with_dim("batch", 2).with_dim("seq", 77);
    let bound = lint_path(&model("w1_symbolic.onnx"), &options).unwrap();
    assert_eq!(bound.shape("x").unwrap().to_string(), "[2, 77]");
    for (name, shape) in bound.main_shapes() {
        let text = shape.to_string();
        assert!(
            !text.contains("seq") && !text.contains("batch"),
            "{name}: {text}"
        );
    }
    assert!(bound.findings.is_empty(), "{:?}", bound.findings);

    let breaking = Options::new().with_dim("seq", 5);
    let report = lint_path(&model("w1_symbolic.onnx"), &breaking).unwrap();
    assert!(report.has_errors());
    assert!(report.findings.iter().any(|f| f.code == Code::E1));
}

#[test]
fn load_errors_display_the_sentence_a_person_reads() {
    let missing = model("no_such_model.onnx");
    let error = lint_path(&missing, &Options::new()).unwrap_err();
    let text = error.to_string();
    assert!(text.starts_with("cannot read "), "{text}");
    assert!(text.contains("no_such_model.onnx"), "{text}");
    assert!(!text.contains("Io {"), "Debug text leaked: {text}");
}

#[test]
fn lint_model_takes_a_model_decoded_with_the_crates_own_prost() {
    let bytes = std::fs::read(model("e1_static_mismatch.onnx")).unwrap();
    let proto = ModelProto::decode(bytes.as_slice()).unwrap();
    let report = lint_model(proto, &Options::new()).unwrap();
    assert!(report.findings.iter().any(|f| f.code == Code::E1));
}

#[test]
fn stats_count_the_models_entries_as_the_json_output_does() {
    let report = lint_path(&model("w4_unbatched_branch.onnx"), &Options::new()).unwrap();
    let stats = report.stats();
    // The main graph and the If's two branches.
    assert_eq!(stats.graphs, 3);
    assert_eq!(stats.nodes, 5);
    assert_eq!(stats.initializers, 4);
    assert_eq!(stats.sparse_initializers, 0);
    // x, 4 initializers, and the outputs of the 5 nodes.
    assert_eq!(stats.values, 10);
}

#[test]
fn graph_shapes_reads_any_graph_by_the_path_findings_name() {
    let report = lint_path(&model("w4_unbatched_branch.onnx"), &Options::new()).unwrap();
    let path = "main//rnn/unbatch/then_branch";
    assert!(
        report
            .findings
            .iter()
            .any(|f| f.node.as_ref().is_some_and(|node| node.graph == path)),
        "{:?}",
        report.findings
    );
    let squeezed: Vec<String> = report
        .graph_shapes(path)
        .filter(|(name, _)| *name == "squeezed")
        .map(|(_, shape)| shape.to_string())
        .collect();
    assert_eq!(squeezed, vec!["[n, 8]".to_owned()]);
    let main: Vec<_> = report.graph_shapes("main").map(|(name, _)| name).collect();
    assert_eq!(
        main,
        report
            .main_shapes()
            .map(|(name, _)| name)
            .collect::<Vec<_>>()
    );
    assert_eq!(report.graph_shapes("no/such/graph").count(), 0);
}
