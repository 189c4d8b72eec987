//! `--format sarif`: SARIF 2.1.0 for code scanning, one run, a rule per code. Each result has its
//! node as a logical location and, as a physical location, the model file relative to a root
//! directory (`uriBaseId` `SRCROOT`) with a region: the node's line in its graph's text form (line
//! 1 is the graph's `name {`, node `i` is on line `i + 2`) plus its byte range in the file. A finding without a node (a model without a graph) has a
//! logical location only. Each result carries its fingerprint in `partialFingerprints`. Files
//! that could not be read become tool execution notifications, and so do the findings over
//! `--max-findings` (a note per model and code, with the count). `properties.facts` holds the
//! finding's facts as the JSON output's `facts` does. Results follow the files' order,
//! then graph order: the same input gives the same bytes.

use std::fmt::Write as _;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::place::node_region;
use super::stream::{self, Part};
use super::{explain, FileReport};
use crate::diag::{Code, Finding, Severity};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The `uriBaseId` of artifact locations: the root the URIs are relative to.
const ROOT_ID: &str = "SRCROOT";

/// The key of the fingerprint in `partialFingerprints` (versioned: a change in what the
/// fingerprint covers takes a new key).
const FINGERPRINT_KEY: &str = "onnxBcastLint/v1";

/// The SARIF log for a batch of files, with URIs relative to the current directory.
pub fn render(files: &[FileReport]) -> String {
    stream::to_string(|out| write(out, files))
}

/// Writes [`render`]'s log to `out`, without a final newline.
pub fn write(out: &mut dyn Write, files: &[FileReport]) -> io::Result<()> {
    let root = std::env::current_dir().unwrap_or_default();
    write_relative(out, files, &root)
}

/// The SARIF log for a batch of files, with artifact URIs relative to `root` (`--sarif-root`);
/// a file outside it gets an absolute `file:` URI.
pub fn render_relative(files: &[FileReport], root: &Path) -> String {
    stream::to_string(|out| write_relative(out, files, root))
}

/// Writes [`render_relative`]'s log to `out`, without a final newline. Each result is made into
/// JSON only when it is written (see [`stream`]): a model can have millions of findings.
pub fn write_relative(out: &mut dyn Write, files: &[FileReport], root: &Path) -> io::Result<()> {
    let root = crate::paths::absolute(root);
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|code| {
            let explanation = explain::of(*code);
            json!({
                "id": code.as_str(),
                "name": code.sarif_name(),
                "shortDescription": {"text": explanation.summary},
                "fullDescription": {"text": explanation.meaning},
                "help": {
                    "text": explain::render(explanation),
                    "markdown": explain::markdown(explanation),
                },
                "defaultConfiguration": {"level": level(code.severity())},
            })
        })
        .collect();
    // Each file's location, as its results and notifications give it.
    let located: Vec<Value> = files
        .iter()
        .enumerate()
        .map(|(index, file)| artifact(&root, &file.path, Some(index)))
        .collect();
    let mut notifications: Vec<Value> = files
        .iter()
        .zip(&located)
        .filter_map(|(file, location)| {
            let error = file.outcome.as_ref().err()?;
            Some(json!({
                "level": "error",
                "message": {"text": error.to_string()},
                "descriptor": {"id": error.code()},
                "locations": [{"physicalLocation": {"artifactLocation": location}}],
            }))
        })
        .collect();
    let execution_successful = notifications.is_empty();
    notifications.extend(omitted_notes(files, &located));
    let artifacts: Vec<Value> = files
        .iter()
        .map(|file| json!({"location": artifact(&root, &file.path, None)}))
        .collect();
    let results = files
        .iter()
        .zip(&located)
        .filter_map(|(file, location)| Some((file.outcome.as_ref().ok()?, location)))
        .flat_map(|(report, location)| {
            report
                .findings
                .iter()
                .map(move |finding| result(finding, location))
        });
    let run = Part::Object(vec![
        (
            "tool",
            Part::Value(json!({"driver": {
                "name": env!("CARGO_PKG_NAME"),
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }})),
        ),
        (
            "originalUriBaseIds",
            Part::Value(json!({ROOT_ID: {"uri": file_uri(&root, true)}})),
        ),
        (
            "invocations",
            Part::Value(json!([{
                "executionSuccessful": execution_successful,
                "toolExecutionNotifications": notifications,
            }])),
        ),
        ("artifacts", Part::Value(Value::Array(artifacts))),
        ("results", Part::Items(Box::new(results))),
    ]);
    let log = Part::Object(vec![
        ("$schema", Part::Value(SCHEMA.into())),
        ("version", Part::Value("2.1.0".into())),
        ("runs", Part::Array(vec![run])),
    ]);
    stream::write(out, log, 0)
}

/// A note per model and code of the findings over `--max-findings`, which the log has no
/// result for: its text says how many, `properties` gives the code and the count.
fn omitted_notes<'a>(
    files: &'a [FileReport],
    located: &'a [Value],
) -> impl Iterator<Item = Value> + 'a {
    files
        .iter()
        .zip(located)
        .filter_map(|(file, location)| Some((file, file.outcome.as_ref().ok()?, location)))
        .flat_map(|(file, report, location)| {
            let lines = super::omitted::lines(&report.omitted, &file.path, |_| true);
            report
                .omitted
                .iter()
                .zip(lines)
                .map(move |((code, n), text)| {
                    json!({
                        "level": "note",
                        "message": {"text": text},
                        "descriptor": {"id": "max-findings"},
                        "locations": [{"physicalLocation": {"artifactLocation": location}}],
                        "properties": {"code": code.as_str(), "omitted": n},
                    })
                })
        })
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// An `artifactLocation`: the path relative to `root` with `uriBaseId`, or an absolute `file:`
/// URI when the file lies outside the root (SARIF 3.4.3).
fn artifact(root: &Path, path: &str, index: Option<usize>) -> Value {
    let absolute: PathBuf = if path == "-" || path == "<stdin>" {
        PathBuf::from(path)
    } else {
        crate::paths::absolute(Path::new(path))
    };
    let mut location = match absolute.strip_prefix(root) {
        Ok(relative) if absolute.is_absolute() => {
            let parts: Vec<String> = relative
                .components()
                .map(|c| encode(&c.as_os_str().to_string_lossy()))
                .collect();
            json!({"uri": parts.join("/"), "uriBaseId": ROOT_ID})
        }
        _ if absolute.is_absolute() => json!({"uri": file_uri(&absolute, false)}),
        _ => json!({"uri": encode(path)}),
    };
    if let (Some(index), Some(object)) = (index, location.as_object_mut()) {
        object.insert("index".into(), index.into());
    }
    location
}

/// `file:///...` for an absolute path (a directory's ends with `/`, as `originalUriBaseIds`
/// requires).
fn file_uri(path: &Path, directory: bool) -> String {
    let mut uri = String::from("file://");
    let text = path.to_string_lossy().replace('\\', "/");
    if !text.starts_with('/') {
        uri.push('/');
    }
    uri.push_str(&encode(&text));
    if directory && !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// Percent-encodes what may not appear in a URI path (RFC 3986: unreserved characters, `/`
/// and a few sub-delimiters stay).
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/!$&'()*+,;=:@".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

fn result(finding: &Finding, artifact: &Value) -> Value {
    let code = finding.code;
    let rule_index = Code::ALL.iter().position(|c| *c == code).unwrap_or(0);
    let mut text = finding.message.clone();
    if let Some(help) = &finding.help {
        text.push_str(". ");
        text.push_str(help);
    }
    let mut location = serde_json::Map::new();
    if let Some(node) = &finding.node {
        location.insert(
            "logicalLocations".into(),
            json!([{
                "name": node.name,
                "fullyQualifiedName": format!("{}/{}", node.graph, node.name),
                "kind": "function",
            }]),
        );
        let region = node_region(node.index, &node.span);
        location.insert(
            "physicalLocation".into(),
            json!({"artifactLocation": artifact, "region": region}),
        );
    } else {
        // No node, so no line: the model as a whole is the logical location.
        location.insert(
            "logicalLocations".into(),
            json!([{"name": "model", "kind": "module"}]),
        );
        location.insert(
            "physicalLocation".into(),
            json!({"artifactLocation": artifact}),
        );
    }
    let location = Value::Object(location);
    let mut result = json!({
        "ruleId": code.as_str(),
        "ruleIndex": rule_index,
        "level": level(finding.severity()),
        "message": {"text": text},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint().as_str()},
        // The facts the message states, as data (the JSON output's `facts`): SARIF's property
        // bag is where a tool's own fields go (SARIF 3.8).
        "properties": {"facts": super::values::facts_json(finding)},
    });
    // Where the offending dims come from: the chains' nodes, and one flow per dim.
    if let (Some((related, flows)), Some(object)) = (
        super::provenance::sarif(finding, artifact, &location),
        result.as_object_mut(),
    ) {
        object.insert("relatedLocations".into(), related);
        object.insert("codeFlows".into(), flows);
    }
    super::provenance::sarif_declared(finding, &mut result);
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::{Facts, Finding, Structure};

    #[test]
    fn a_finding_without_a_node_has_a_logical_location_and_no_region() {
        let finding = Finding::new(
            Facts::Structure {
                problem: Structure::NoGraph,
            },
            None,
            Vec::new(),
        );
        assert_eq!(finding.message, "the model has no graph");
        let root = Path::new("/work/zoo");
        let value = result(&finding, &artifact(root, "/work/zoo/a b.onnx", Some(0)));
        let location = &value["locations"][0];
        assert_eq!(location["logicalLocations"][0]["kind"], "module");
        assert!(location["physicalLocation"].get("region").is_none());
        assert_eq!(
            location["physicalLocation"]["artifactLocation"],
            json!({"uri": "a%20b.onnx", "uriBaseId": "SRCROOT", "index": 0})
        );
        assert_eq!(
            value["partialFingerprints"][FINGERPRINT_KEY],
            finding.fingerprint().as_str()
        );
    }

    #[test]
    fn uris_escape_what_a_uri_path_may_not_hold() {
        assert_eq!(encode("a b/ü#?.onnx"), "a%20b/%C3%BC%23%3F.onnx");
        assert_eq!(file_uri(Path::new("/r o"), true), "file:///r%20o/");
        assert_eq!(
            artifact(Path::new("/a/b"), "/a/c.onnx", None),
            json!({"uri": "file:///a/c.onnx"})
        );
    }
}
