//! `--format json`: the machine contract, schema version 1 (README: "JSON output").
//!
//! `{"version": 1, "tool": {"name", "version"}, "files": [{"path", "status", "error",
//! "diagnostics": [...], "shapes": {...}}]}`; dims are integers (static), strings (symbolic
//! expressions) or null (unknown); a shape of null is an unknown rank.

use rayon::prelude::*;
use serde_json::{json, Map, Value};

use super::FileReport;
use crate::diag::Finding;
use crate::shape::{Dim, Shape};

/// The whole JSON document for a batch of files.
pub fn render(files: &[FileReport], with_shapes: bool) -> String {
    let header = json!({
        "version": 1,
        "tool": {"name": env!("CARGO_PKG_NAME"), "version": env!("CARGO_PKG_VERSION")},
        "files": [],
    });
    let mut document = serde_json::to_string_pretty(&header).unwrap_or_default();
    if files.is_empty() {
        return document;
    }
    // Each file is built and pretty-printed in parallel (in order), like it was linted; the
    // batch's output was otherwise a serial tail of the run. A file object sits two levels
    // deep (four spaces), and JSON strings hold no raw newline, so indenting its lines gives
    // exactly what printing the whole document at once gives.
    let rendered: Vec<String> = files
        .par_iter()
        .map(|file| {
            let text =
                serde_json::to_string_pretty(&file_json(file, with_shapes)).unwrap_or_default();
            let mut indented = String::with_capacity(text.len() + text.len() / 8);
            for (i, line) in text.lines().enumerate() {
                if i > 0 {
                    indented.push('\n');
                }
                indented.push_str("    ");
                indented.push_str(line);
            }
            indented
        })
        .collect();
    let Some(open) = document.rfind("[]") else {
        return document;
    };
    let tail = document.split_off(open);
    document.push_str("[\n");
    document.push_str(&rendered.join(",\n"));
    document.push_str("\n  ]");
    document.push_str(tail.trim_start_matches("[]"));
    document
}

fn file_json(file: &FileReport, with_shapes: bool) -> Value {
    let mut object = Map::new();
    object.insert("path".into(), Value::String(file.path.clone()));
    match &file.outcome {
        Err(error) => {
            object.insert("status".into(), "error".into());
            object.insert(
                "error".into(),
                json!({"code": error.code(), "message": error.to_string()}),
            );
            object.insert("diagnostics".into(), Value::Array(Vec::new()));
        }
        Ok(report) => {
            object.insert("status".into(), "ok".into());
            object.insert("error".into(), Value::Null);
            let diagnostics = report.findings.iter().map(finding_json).collect();
            object.insert("diagnostics".into(), Value::Array(diagnostics));
            let stats = report.stats();
            object.insert(
                "stats".into(),
                json!({
                    "graphs": stats.graphs,
                    "nodes": stats.nodes,
                    "initializers": stats.initializers,
                    "sparse_initializers": stats.sparse_initializers,
                    "value_info": stats.value_info,
                    "values": stats.values,
                }),
            );
            if with_shapes {
                let shapes: Map<String, Value> = report
                    .main_shapes()
                    .map(|(name, shape)| (name.to_owned(), shape_json(shape)))
                    .collect();
                object.insert("shapes".into(), Value::Object(shapes));
            }
        }
    }
    Value::Object(object)
}

fn finding_json(finding: &Finding) -> Value {
    let node = finding.node.as_ref().map_or(Value::Null, |node| {
        json!({
            "graph": node.graph,
            "index": node.index,
            "name": node.name,
            "op_type": node.op_type,
            "domain": node.domain,
            "byte_range": [node.span.start, node.span.end],
        })
    });
    let inputs: Vec<Value> = finding
        .inputs
        .iter()
        .map(|input| {
            json!({
                "name": input.name,
                "shape": shape_json(&input.shape),
                "value": input.value,
                "provenance": super::provenance::json(&input.provenance),
            })
        })
        .collect();
    json!({
        "code": finding.code.as_str(),
        "severity": finding.severity().as_str(),
        "message": finding.message,
        "help": finding.help,
        "node": node,
        "inputs": inputs,
        "fingerprint": finding.fingerprint().as_str(),
        "facts": facts_json(finding),
    })
}

/// The finding's facts, tagged by `kind` (README, "JSON output"); what the message states.
pub fn facts_json(finding: &Finding) -> Value {
    serde_json::to_value(&finding.facts).unwrap_or(Value::Null)
}

/// A shape as JSON: a list of dims, or null for an unknown rank.
pub(crate) fn shape_json(shape: &Shape) -> Value {
    match shape.dims() {
        None => Value::Null,
        Some(dims) => Value::Array(dims.iter().map(dim_json).collect()),
    }
}

/// A dim as JSON: an integer, a symbolic expression's text, or null.
pub(super) fn dim_json(dim: &Dim) -> Value {
    match dim {
        Dim::Known(size) => Value::from(*size),
        Dim::Sym(_) => Value::String(dim.to_string()),
        Dim::Unknown => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::{lint_path, LoadError, Options};

    /// The document as one `to_string_pretty` of the whole value: what the parallel rendering
    /// must reproduce byte for byte.
    fn reference(files: &[FileReport], with_shapes: bool) -> String {
        let files: Vec<Value> = files.iter().map(|f| file_json(f, with_shapes)).collect();
        let document = json!({
            "version": 1,
            "tool": {"name": env!("CARGO_PKG_NAME"), "version": env!("CARGO_PKG_VERSION")},
            "files": files,
        });
        serde_json::to_string_pretty(&document).unwrap()
    }

    fn report(name: &str) -> FileReport {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/models")
            .join(name);
        FileReport {
            path: path.display().to_string(),
            outcome: lint_path(&path, &Options::new()),
        }
    }

    #[test]
    fn parallel_rendering_equals_rendering_the_whole_document() {
        let batch = vec![
            report("e1_static_mismatch.onnx"),
            report("w1_forced_one.onnx"),
            report("load_truncated.onnx"),
            report("ok_subgraphs.onnx"),
            FileReport {
                path: "missing.onnx".into(),
                outcome: Err(LoadError::Empty {
                    path: PathBuf::from("missing.onnx"),
                }),
            },
        ];
        for with_shapes in [false, true] {
            assert_eq!(render(&batch, with_shapes), reference(&batch, with_shapes));
            assert_eq!(
                render(&batch[..1], with_shapes),
                reference(&batch[..1], with_shapes)
            );
        }
        assert_eq!(render(&[], false), reference(&[], false));
    }
}
