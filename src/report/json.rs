//! `--format json`: the machine contract, schema version 1 (README: "JSON output").
//!
//! `{"version": 1, "tool": {"name", "version"}, "files": [{"path", "status", "error",
//! "diagnostics": [...], "omitted": {...}, "shapes": {...}}]}` ("omitted", the findings over
//! `--max-findings` per code, only when there are any); dims are integers (static), strings (symbolic
//! expressions) or null (unknown); a shape of null is an unknown rank.

use rayon::prelude::*;
use serde_json::{json, Map, Value};

use std::io::{self, Write};

use super::stream::{self, Part};
use super::values::shape_json;
// Public here: the Python package gives a finding's facts as this JSON.
pub use super::values::facts_json;
use super::FileReport;
use crate::diag::Finding;

/// The whole JSON document for a batch of files.
pub fn render(files: &[FileReport], with_shapes: bool) -> String {
    stream::to_string(|out| write(out, files, with_shapes))
}

/// Files rendered in parallel at a time (each then written in order).
const PARALLEL_FILES: usize = 16;

/// Files with more findings than this are written straight to the output in their turn, not
/// rendered ahead into memory: sixteen such files rendered ahead held sixteen outputs at once.
const RENDERED_AHEAD_UP_TO: usize = 1_000;

/// Writes the whole JSON document for a batch of files to `out`, without a final newline.
///
/// Each finding is made into JSON only when it is written (see [`stream`]). Files with few
/// findings are rendered in parallel, a few at a time, and written in order, like they were
/// linted: a batch's output was otherwise a serial tail of the run. A file with many findings
/// is written straight to `out`, so that memory holds at most a few small files' output.
pub fn write(out: &mut dyn Write, files: &[FileReport], with_shapes: bool) -> io::Result<()> {
    write_rendering_ahead(out, files, with_shapes, RENDERED_AHEAD_UP_TO)
}

/// [`write`], rendering ahead the files with at most `ahead_up_to` findings.
fn write_rendering_ahead(
    out: &mut dyn Write,
    files: &[FileReport],
    with_shapes: bool,
    ahead_up_to: usize,
) -> io::Result<()> {
    write!(out, "{{\n  \"version\": 1,\n  \"tool\": ")?;
    let tool = json!({"name": env!("CARGO_PKG_NAME"), "version": env!("CARGO_PKG_VERSION")});
    stream::write_value(out, &tool, 1)?;
    out.write_all(b",\n  \"files\": ")?;
    let mut first = true;
    for window in files.chunks(PARALLEL_FILES) {
        let rendered: Vec<Option<io::Result<Vec<u8>>>> = window
            .par_iter()
            .map(|file| {
                let many = file
                    .outcome
                    .as_ref()
                    .is_ok_and(|report| report.findings.len() > ahead_up_to);
                (!many && files.len() > 1).then(|| {
                    let mut text = Vec::new();
                    stream::write(&mut text, file_json(file, with_shapes), 2)?;
                    Ok(text)
                })
            })
            .collect();
        for (file, text) in window.iter().zip(rendered) {
            out.write_all(if std::mem::take(&mut first) {
                b"[\n    "
            } else {
                b",\n    "
            })?;
            match text {
                Some(text) => out.write_all(&text?)?,
                None => stream::write(out, file_json(file, with_shapes), 2)?,
            }
        }
    }
    if first {
        return out.write_all(b"[]\n}");
    }
    out.write_all(b"\n  ]\n}")
}

/// A file's object, its diagnostics made one at a time as they are written.
fn file_json(file: &FileReport, with_shapes: bool) -> Part<'_> {
    let mut members = vec![("path", Part::Value(Value::String(file.path.clone())))];
    match &file.outcome {
        Err(error) => {
            members.push(("status", Part::Value("error".into())));
            members.push((
                "error",
                Part::Value(json!({"code": error.code(), "message": error.to_string()})),
            ));
            members.push(("diagnostics", Part::Value(Value::Array(Vec::new()))));
        }
        Ok(report) => {
            members.push(("status", Part::Value("ok".into())));
            members.push(("error", Part::Value(Value::Null)));
            members.push((
                "diagnostics",
                Part::Items(Box::new(report.findings.iter().map(finding_json))),
            ));
            if !report.omitted.is_empty() {
                // Only when the cap was reached: an additive member, absent from every other
                // document.
                let omitted: Map<String, Value> = report
                    .omitted
                    .iter()
                    .map(|(code, n)| (code.as_str().to_owned(), n.into()))
                    .collect();
                members.push(("omitted", Part::Value(Value::Object(omitted))));
            }
            let stats = report.stats();
            members.push((
                "stats",
                Part::Value(json!({
                    "graphs": stats.graphs,
                    "nodes": stats.nodes,
                    "initializers": stats.initializers,
                    "sparse_initializers": stats.sparse_initializers,
                    "value_info": stats.value_info,
                    "values": stats.values,
                })),
            ));
            if with_shapes {
                let shapes: Map<String, Value> = report
                    .main_shapes()
                    .map(|(name, shape)| (name.to_owned(), shape_json(shape)))
                    .collect();
                members.push(("shapes", Part::Value(Value::Object(shapes))));
            }
        }
    }
    Part::Object(members)
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
            let mut site = json!({
                "name": input.name,
                "shape": serde_json::to_value(&input.shape).unwrap_or(Value::Null),
                "value": input.value,
                "provenance": super::provenance::json(&input.provenance),
            });
            // Only where a dim hangs on a declared size (issue 38, item 4): documents of
            // models without one are unchanged.
            if let (false, Value::Object(fields)) = (input.declared.is_empty(), &mut site) {
                fields.insert(
                    "declared".to_owned(),
                    super::provenance::declared_json(&input.declared),
                );
            }
            site
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

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::{lint_path, LoadError, Options};

    /// The document as one `to_string_pretty` of the whole value: what the parallel rendering
    /// must reproduce byte for byte.
    fn reference(files: &[FileReport], with_shapes: bool) -> String {
        let files: Vec<Value> = files
            .iter()
            .map(|f| stream::whole(file_json(f, with_shapes)))
            .collect();
        let document = json!({
            "version": 1,
            "tool": {"name": env!("CARGO_PKG_NAME"), "version": env!("CARGO_PKG_VERSION")},
            "files": files,
        });
        serde_json::to_string_pretty(&document).unwrap()
    }

    fn report(name: &str) -> FileReport {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/models")
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
        // More files than are rendered in parallel at a time: windows written in order.
        let many: Vec<FileReport> = (0..PARALLEL_FILES * 2 + 3)
            .map(|i| report(["e1_static_mismatch.onnx", "ok_subgraphs.onnx"][i % 2]))
            .collect();
        assert_eq!(render(&many, true), reference(&many, true));
        // Files with findings written straight out between files rendered ahead.
        let mut streamed = Vec::new();
        write_rendering_ahead(&mut streamed, &many, true, 0).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), reference(&many, true));
    }
}
