//! Which files the command lints: the paths given, with directories searched for `*.onnx` models.

use std::path::{Path, PathBuf};

fn has_model_extension(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("onnx"))
}

/// Expands directories into the `*.onnx` files below them, sorted. A directory named like a model
/// stays as it is, so that linting it reports a clean `load/directory` error. Also returns the
/// directories in which no model was found.
pub(super) fn expand(inputs: &[PathBuf]) -> (Vec<PathBuf>, Vec<PathBuf>) {
    let mut files = Vec::new();
    let mut empty = Vec::new();
    for input in inputs {
        if input.is_dir() && !has_model_extension(input) {
            let mut found = Vec::new();
            collect_models(input, &mut found, 0);
            found.sort();
            if found.is_empty() {
                empty.push(input.clone());
            }
            files.extend(found);
        } else {
            files.push(input.clone());
        }
    }
    (files, empty)
}

fn collect_models(dir: &Path, found: &mut Vec<PathBuf>, depth: usize) {
    if depth > 32 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let is_model = has_model_extension(&path);
        if path.is_dir() && !is_model {
            collect_models(&path, found, depth + 1);
        } else if is_model && path.is_file() {
            found.push(path);
        }
    }
}
