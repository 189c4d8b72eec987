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
