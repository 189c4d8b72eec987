//! Every fixture reports exactly the codes its name promises (`tests/models/README.md`):
//! `ok_*` nothing at error or warning level, `e1_*` an E1, `w1_*` a W1 and no error, `w2_*` a W2 and no error,
//! `e3_*` an E3, `i1_*` an I1 (and, there, the unrelated E1 downstream of the custom op).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::collections::BTreeSet;
use std::path::PathBuf;

use onnx_bcast_lint::{lint_path, Code, Options, Severity};

fn codes(name: &str) -> (BTreeSet<Code>, Vec<String>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name);
    let report = lint_path(&path, &Options::new()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let codes = report.findings().iter().map(|f| f.code).collect();
    let messages = report
        .findings()
        .iter()
        .map(|f| format!("{} {}", f.code, f.message))
        .collect();
    (codes, messages)
}

fn fixtures(prefix: &str) -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/models");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| {
            n.starts_with(prefix)
                && std::path::Path::new(n)
                    .extension()
                    .is_some_and(|e| e == "onnx")
        })
        .collect();
    names.sort();
    assert!(!names.is_empty(), "no fixtures named {prefix}*");
    names
}

#[test]
fn clean_models_have_no_errors_or_warnings() {
    for name in fixtures("ok_") {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/models")
            .join(&name);
        let report = lint_path(&path, &Options::new()).unwrap();
        let serious: Vec<String> = report
            .findings()
            .iter()
            .filter(|f| f.severity() != Severity::Info)
            .map(|f| format!("{} {}", f.code, f.message))
            .collect();
        assert!(serious.is_empty(), "{name}: {serious:#?}");
    }
}

#[test]
fn each_finding_fixture_reports_its_code() {
    for (prefix, code) in [
        ("e1_", Code::E1),
        ("w1_", Code::W1),
        ("w2_", Code::W2),
        ("e3_", Code::E3),
        ("i1_", Code::I1),
    ] {
        for name in fixtures(prefix) {
            let (found, messages) = codes(&name);
            assert!(
                found.contains(&code),
                "{name}: expected {code}, got {messages:#?}"
            );
        }
    }
}

#[test]
fn warnings_fixtures_have_no_errors() {
    for name in fixtures("w1_").into_iter().chain(fixtures("w2_")) {
        let (found, messages) = codes(&name);
        assert!(
            !found.iter().any(|code| code.severity() == Severity::Error),
            "{name}: {messages:#?}"
        );
    }
}

#[test]
fn checking_goes_on_past_a_custom_op() {
    let (found, messages) = codes("i1_custom_op.onnx");
    assert!(found.contains(&Code::E1), "{messages:#?}");
}

#[test]
fn one_fault_gives_one_finding() {
    for name in fixtures("e1_") {
        let (_, messages) = codes(&name);
        let errors = messages.iter().filter(|m| m.starts_with('E')).count();
        assert_eq!(errors, 1, "{name}: root cause only: {messages:#?}");
    }
}
