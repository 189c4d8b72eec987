//! Paths as the report and the configuration compare them.

use std::path::{Component, Path, PathBuf};

/// An absolute, lexically normalised path (`.` and `..` resolved without following links), so
/// that `models/../zoo/a.onnx` and `zoo/a.onnx` match the same globs.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    let joined = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
