//! A condition that holds only where a tensor on the node's path is empty (issue 37 item 3): an
//! error when the node making that tensor fails there (its own W4 rules the condition out), a
//! warning when the tensor is legitimately empty (nothing fails, and the model runs there).
//! Both fixtures are checked in onnxruntime by `tests/models/verify_models.py`.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::Path;

use onnx_bcast_lint::{lint_path, Code, LintReport, Options};

fn lint(name: &str) -> LintReport {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/models")
        .join(name);
    lint_path(&path, &Options::new()).unwrap()
}

fn findings(report: &LintReport) -> Vec<(Code, String)> {
    report
        .findings()
        .iter()
        .map(|f| (f.code, f.message.clone()))
        .collect()
}

#[test]
fn a_condition_only_an_empty_conv_output_meets_is_an_error_naming_the_conv() {
    let report = lint("e1_empty_patch_grid.onnx");
    let found = findings(&report);
    let [(Code::W4, conv), (Code::E1, add)] = found.as_slice() else {
        panic!("{found:#?}");
    };
    // The Conv's own condition stays, and it is what rules the Add's out.
    assert!(conv.contains("h ≥ 4 ∧ w ≥ 4"), "{conv}");
    assert!(add.contains("`add_positions`"), "{add}");
    assert!(add.contains("for any non-empty input"), "{add}");
    assert!(
        add.contains("h ≤ 3 ∨ w ≤ 3, where `patches` is empty and Conv `patch_embed` fails"),
        "{add}"
    );
    let e1 = &report.findings()[1];
    let help = e1.help.as_deref().unwrap_or_default();
    assert!(help.contains("it fails when h=4, w=4"), "{help}");
}

#[test]
fn a_condition_a_legitimately_empty_slice_meets_stays_a_warning() {
    let found = findings(&lint("w1_emptiable_patch_grid.onnx"));
    let [(Code::W1, add)] = found.as_slice() else {
        panic!("{found:#?}");
    };
    assert!(
        add.ends_with("broadcasting is valid only if h ≤ 3 ∨ w ≤ 3"),
        "{add}"
    );
}

#[test]
fn a_bound_binding_still_decides_the_condition() {
    // With h and w bound, the Add's broadcast is a plain clash: the same E1, without a
    // condition (nothing symbolic is left to be empty).
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models/e1_empty_patch_grid.onnx");
    let options = Options::new().with_dim("h", 8).with_dim("w", 8);
    let report = lint_path(&path, &options).unwrap();
    let codes: Vec<Code> = report.findings().iter().map(|f| f.code).collect();
    assert_eq!(codes, [Code::E1], "{:#?}", findings(&report));
}
