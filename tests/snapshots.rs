//! Snapshots of the human, JSON and SARIF output of every fixture. A snapshot change is reviewed like
//! code (`cargo insta review`).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic
)]

use std::path::Path;

use onnx_bcast_lint::report::{human, json, sarif, FileReport};
use onnx_bcast_lint::{lint_path, Options};

fn report_of(path: &Path) -> FileReport {
    // Tests run in the package root: a relative path keeps machine paths out of snapshots.
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    let relative = format!("tests/models/{name}");
    FileReport {
        outcome: lint_path(Path::new(&relative), &Options::new()),
        path: relative,
    }
}

#[test]
fn human_and_json_output_of_every_fixture() {
    insta::glob!("models/*.onnx", |path| {
        if path.is_dir() {
            return;
        }
        let reports = [report_of(path)];
        let text = human::render(
            &reports,
            human::Style {
                color: false,
                width: 80,
                quiet: false,
            },
        );
        insta::assert_snapshot!("human", text);
        let document = json::render(&reports, true).replace(env!("CARGO_PKG_VERSION"), "[version]");
        insta::assert_snapshot!("json", document);
        // URIs are relative to the current directory, the package root, whose absolute
        // `file:` URI (the one machine-dependent line) is redacted.
        let log = sarif::render(&reports)
            .replace(env!("CARGO_PKG_VERSION"), "[version]")
            .replace(
                &format!("file://{}/", env!("CARGO_MANIFEST_DIR")),
                "file:///[root]/",
            );
        insta::assert_snapshot!("sarif", log);
    });
}
