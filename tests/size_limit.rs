//! `--size-limit` and the configuration's `size-limit`: a condition that fails only for a dim
//! beyond the limit is not reported (issue 37 item 4), and the flag wins over the file.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::path::PathBuf;

mod common;
use common::run;

/// A copy of the fixture `w1_position_table.onnx` (a 64-row position table: valid only if
/// seq ≤ 64) in a directory of its own, where a configuration file can be written beside it.
struct Copied {
    dir: PathBuf,
    path: String,
}

impl Copied {
    fn new() -> Self {
        let dir =
            std::env::temp_dir().join(format!("onnx-bcast-lint-size-limit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("model.onnx");
        let fixture = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/models/w1_position_table.onnx"
        );
        std::fs::copy(fixture, &path).unwrap();
        Copied {
            path: path.display().to_string(),
            dir,
        }
    }
}

impl Drop for Copied {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn w1s(args: &[&str]) -> usize {
    let mut all = vec!["--format", "json"];
    all.extend_from_slice(args);
    let out = run(&all);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    doc["files"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "W1")
        .count()
}

#[test]
fn the_flag_and_the_configuration_set_the_size_limit() {
    let model = Copied::new();
    assert_eq!(
        w1s(&[&model.path]),
        1,
        "seq ≤ 64 is below the default limit"
    );
    assert_eq!(w1s(&["--size-limit", "64", &model.path]), 0);
    assert_eq!(w1s(&["--size-limit", "65", &model.path]), 1);
    std::fs::write(model.dir.join("onnx-bcast-lint.toml"), "size-limit = 64\n").unwrap();
    assert_eq!(w1s(&[&model.path]), 0, "the configuration's limit applies");
    assert_eq!(
        w1s(&["--size-limit", "100", &model.path]),
        1,
        "the flag wins"
    );
    std::fs::write(model.dir.join("onnx-bcast-lint.toml"), "size-limit = 0\n").unwrap();
    assert_eq!(
        run(&[&model.path]).status.code(),
        Some(2),
        "a limit of 0 is a configuration error"
    );
}
