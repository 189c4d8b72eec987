//! An `If` whose other branch leads every run into a certain failure is settled: every run the
//! model accepts takes the branch that does not fail (`src/settle.rs`).
#![allow(clippy::unwrap_used, clippy::panic)]

use std::path::Path;

use onnx_bcast_lint::{lint_path, LintReport, Options};

fn lint(name: &str) -> LintReport {
    lint_path(&Path::new("tests/models").join(name), &Options::new()).unwrap()
}

fn shape_of(report: &LintReport, value: &str) -> String {
    report
        .main_shapes()
        .find(|(name, _)| *name == value)
        .map_or_else(
            || panic!("no value {value}"),
            |(_, shape)| shape.to_string(),
        )
}

#[test]
fn the_branch_before_a_gemm_that_only_takes_2d_is_the_squeezed_one() {
    // onnxruntime runs the model with t = 1 and fails at the Gemm with t = 2.
    let report = lint("w4_unbatched_branch.onnx");
    assert_eq!(shape_of(&report, "frames"), "[n, 8]");
    assert_eq!(shape_of(&report, "y"), "[n, 4]");
    assert!(!report.has_errors(), "{:?}", report.findings());
}

#[test]
fn a_failure_on_a_node_that_feeds_no_output_settles_nothing() {
    let report = lint("w4_unbatched_branch_unused.onnx");
    assert_eq!(shape_of(&report, "frames"), "[...]");
    // Without the settled branch, the Gemm may see 2-D or 3-D input: no error either way.
    assert!(!report.has_errors(), "{:?}", report.findings());
}
