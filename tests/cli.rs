//! The command: exit codes 0/1/2, batches that mix good, failing and unreadable files, stdin,
//! and the JSON and SARIF contracts (SARIF validated against the 2.1.0 schema).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

fn model(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name)
        .display()
        .to_string()
}

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_onnx-bcast-lint"))
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn json(args: &[&str]) -> (serde_json::Value, i32) {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = run(&all);
    let value = serde_json::from_slice(&out.stdout).unwrap();
    (value, out.status.code().unwrap())
}

#[test]
fn exit_0_on_a_clean_model() {
    let out = run(&[&model("ok_symbolic_batch.onnx")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("0 errors"), "{stdout}");
}

#[test]
fn exit_1_on_a_broadcast_error() {
    let out = run(&[&model("e1_static_mismatch.onnx")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("E1"), "{stdout}");
    assert!(stdout.contains("1 error"), "{stdout}");
}

#[test]
fn exit_2_on_unreadable_input_and_on_usage_errors() {
    for name in [
        "load_garbage.onnx",
        "load_empty.onnx",
        "load_directory.onnx",
    ] {
        let out = run(&[&model(name)]);
        assert_eq!(out.status.code(), Some(2), "{name}");
    }
    assert_eq!(
        run(&["--format", "yaml", &model("ok_symbolic_batch.onnx")])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(run(&[]).status.code(), Some(2));
}

#[test]
fn warnings_fail_only_with_deny_warnings() {
    let path = model("w1_symbolic.onnx");
    assert_eq!(run(&[&path]).status.code(), Some(0));
    assert_eq!(run(&["--deny", "warnings", &path]).status.code(), Some(1));
    assert_eq!(
        run(&["--deny", "warnings", "--allow", "W1", &path])
            .status
            .code(),
        Some(0)
    );
}

#[test]
fn dim_bindings_make_conditions_definite() {
    let path = model("w1_symbolic.onnx");
    let (bad, code) = json(&["--dim", "seq=5", &path]);
    assert_eq!(code, 1);
    assert_eq!(bad["files"][0]["diagnostics"][0]["code"], "E1");
    let (good, code) = json(&["--dim", "seq=77", &path]);
    assert_eq!(code, 0);
    assert_eq!(good["files"][0]["diagnostics"].as_array().unwrap().len(), 0);
}

#[test]
fn operator_constraints_are_errors_or_conditions() {
    let (k, code) = json(&[&model("e4_matmul_k.onnx")]);
    assert_eq!(code, 1);
    assert_eq!(k["files"][0]["diagnostics"][0]["code"], "E4");
    assert_eq!(k["files"][0]["diagnostics"][0]["severity"], "error");
    let path = model("w4_matmul_symbolic_k.onnx");
    let (w, code) = json(&[&path]);
    assert_eq!(code, 0);
    assert_eq!(w["files"][0]["diagnostics"][0]["code"], "W4");
    let (bad, code) = json(&["--dim", "k=63", &path]);
    assert_eq!(code, 1);
    assert_eq!(bad["files"][0]["diagnostics"][0]["code"], "E4");
    let (good, code) = json(&["--dim", "k=64", &path]);
    assert_eq!(code, 0);
    assert_eq!(good["files"][0]["diagnostics"].as_array().unwrap().len(), 0);
    let (allowed, code) = json(&["--allow", "E4", &model("e4_matmul_k.onnx")]);
    assert_eq!(code, 0);
    assert_eq!(
        allowed["files"][0]["diagnostics"].as_array().unwrap().len(),
        0
    );
}

#[test]
fn a_fault_is_reported_once_at_its_root() {
    // The Attention's outputs are unknown once its constraint fails: the Add it feeds says
    // nothing more.
    let (report, code) = json(&[&model("e4_attention_no_heads.onnx")]);
    assert_eq!(code, 1);
    let found = report["files"][0]["diagnostics"].as_array().unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["node"]["name"], "attn");
}

#[test]
fn a_mixed_batch_reports_every_file_in_order() {
    let files = [
        model("ok_symbolic_batch.onnx"),
        model("e1_static_mismatch.onnx"),
        model("load_truncated.onnx"),
    ];
    let (doc, code) = json(&[&files[0], &files[1], &files[2]]);
    assert_eq!(code, 2, "an unreadable file wins over errors");
    let reported: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        reported,
        files.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert_eq!(doc["files"][0]["status"], "ok");
    assert_eq!(doc["files"][1]["diagnostics"][0]["code"], "E1");
    assert_eq!(doc["files"][2]["status"], "error");
    assert_eq!(doc["files"][2]["error"]["code"], "load/decode");
}

#[test]
fn json_contract_has_every_field() {
    let (doc, _) = json(&["--shapes", &model("e1_static_mismatch.onnx")]);
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["tool"]["name"], "onnx-bcast-lint");
    let file = &doc["files"][0];
    for key in ["path", "status", "error", "diagnostics", "shapes"] {
        assert!(file.get(key).is_some(), "missing {key}");
    }
    let diagnostic = &file["diagnostics"][0];
    for key in ["code", "severity", "message", "node", "inputs"] {
        assert!(diagnostic.get(key).is_some(), "missing {key}");
    }
    for key in ["graph", "index", "name", "op_type", "domain"] {
        assert!(diagnostic["node"].get(key).is_some(), "missing node.{key}");
    }
    assert_eq!(diagnostic["severity"], "error");
    let inputs = diagnostic["inputs"].as_array().unwrap();
    assert_eq!(inputs.len(), 2);
    assert!(inputs[0]["shape"].is_array());
    assert!(file["shapes"].as_object().unwrap().len() >= 3);
}

#[test]
fn json_shapes_are_symbolic_where_the_model_is() {
    let (doc, _) = json(&["--shapes", &model("ok_symbolic_batch.onnx")]);
    let shapes = doc["files"][0]["shapes"].as_object().unwrap();
    let symbolic = shapes
        .values()
        .filter_map(|s| s.as_array())
        .flatten()
        .filter(|d| d.is_string())
        .count();
    assert!(symbolic > 0, "{shapes:?}");
}

#[test]
fn reads_standard_input() {
    let bytes = std::fs::read(model("e1_static_mismatch.onnx")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_onnx-bcast-lint"))
        .args(["--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["path"], "-");
}

#[test]
fn sarif_output_validates_against_the_schema() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/sarif-schema-2.1.0.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let out = run(&[
        "--format",
        "sarif",
        &model("e1_static_mismatch.onnx"),
        &model("w1_symbolic.onnx"),
        &model("i1_custom_op.onnx"),
        &model("load_garbage.onnx"),
    ]);
    let log: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors: Vec<String> = validator.iter_errors(&log).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let results = log["runs"][0]["results"].as_array().unwrap();
    assert!(results.iter().any(|r| r["ruleId"] == "E1"));
    let region = &results[0]["locations"][0]["physicalLocation"]["region"];
    assert!(region["byteLength"].as_u64().unwrap() > 0);
}

#[test]
fn output_is_deterministic() {
    let path = model("ok_symbolic_batch.onnx");
    let first = run(&["--format", "json", "--shapes", &path, &path]);
    let second = run(&["--format", "json", "--shapes", &path, &path]);
    assert_eq!(first.stdout, second.stdout);
}
