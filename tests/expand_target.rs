//! One fault, one finding (issue 37 item 3): an `Expand` target built from the wrong `Shape`
//! elements makes the `Expand` and the `Add` after it need one clause (written in two orders);
//! it is reported once, at the `Expand`, whose help names the `Add`. onnxruntime fails at the
//! `Expand` at the counterexample (`tests/models/verify_models.py`).

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::Path;

use onnx_bcast_lint::{lint_path, Code, Options};

#[test]
fn a_swapped_expand_target_is_one_finding_at_the_expand_naming_the_add() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/models/w1_expand_swapped_target.onnx");
    let report = lint_path(&path, &Options::new()).unwrap();
    let found: Vec<(Code, &str)> = report
        .findings()
        .iter()
        .map(|f| (f.code, f.message.as_str()))
        .collect();
    let [(Code::W1, message)] = found.as_slice() else {
        panic!("{found:#?}");
    };
    assert!(message.contains("Expand node `expand_mask`"), "{message}");
    let help = report.findings()[0].help.as_deref().unwrap_or_default();
    assert!(help.contains("it fails when batch=3, seq=2"), "{help}");
    assert!(
        help.contains(
            "it also covers Add `add_mask`, which needs seq = batch ∨ seq = 1 ∨ batch = 1"
        ),
        "{help}"
    );
}
