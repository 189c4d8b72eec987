//! `--format sarif`: SARIF 2.1.0, one run, a rule per code; each result has its node as a logical
//! location and the node's byte range in the model file as a physical location. Files that could
//! not be read become tool execution notifications.

use serde_json::{json, Value};

use super::{explain, FileReport};
use crate::diag::{Code, Finding, Severity};

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The SARIF log for a batch of files.
pub fn render(files: &[FileReport]) -> String {
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|code| {
            let explanation = explain::of(*code);
            json!({
                "id": code.as_str(),
                "name": rule_name(*code),
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
    let mut results = Vec::new();
    let mut notifications = Vec::new();
    for (index, file) in files.iter().enumerate() {
        match &file.outcome {
            Ok(report) => results.extend(
                report
                    .findings
                    .iter()
                    .map(|finding| result(finding, &file.path, index)),
            ),
            Err(error) => notifications.push(json!({
                "level": "error",
                "message": {"text": error.to_string()},
                "descriptor": {"id": error.code()},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": uri(&file.path), "index": index}}}],
            })),
        }
    }
    let artifacts: Vec<Value> = files
        .iter()
        .map(|file| json!({"location": {"uri": uri(&file.path)}}))
        .collect();
    let log = json!({
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": env!("CARGO_PKG_NAME"),
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "invocations": [{
                "executionSuccessful": notifications.is_empty(),
                "toolExecutionNotifications": notifications,
            }],
            "artifacts": artifacts,
            "results": results,
        }],
    });
    serde_json::to_string_pretty(&log).unwrap_or_default()
}

fn rule_name(code: Code) -> &'static str {
    match code {
        Code::E1 => "IncompatibleBroadcast",
        Code::W1 => "ConditionalBroadcast",
        Code::E2 => "DeclaredShapeMismatch",
        Code::E3 => "StructuralProblem",
        Code::I1 => "UnsupportedOperator",
        Code::E4 => "OperatorConstraintViolated",
        Code::W4 => "ConditionalOperatorConstraint",
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// A relative URI reference for a path (SARIF 3.10: URIs use forward slashes, spaces escaped).
fn uri(path: &str) -> String {
    path.replace('\\', "/").replace(' ', "%20")
}

fn result(finding: &Finding, path: &str, artifact: usize) -> Value {
    let code = finding.code;
    let rule_index = Code::ALL.iter().position(|c| *c == code).unwrap_or(0);
    let mut text = finding.message.clone();
    if let Some(help) = &finding.help {
        text.push_str(". ");
        text.push_str(help);
    }
    let mut physical = json!({"artifactLocation": {"uri": uri(path), "index": artifact}});
    let mut location = serde_json::Map::new();
    if let Some(node) = &finding.node {
        if node.span.end > node.span.start {
            if let Some(object) = physical.as_object_mut() {
                object.insert(
                    "region".into(),
                    json!({
                        "byteOffset": node.span.start,
                        "byteLength": node.span.end - node.span.start,
                    }),
                );
            }
        }
        location.insert(
            "logicalLocations".into(),
            json!([{
                "name": node.name,
                "fullyQualifiedName": format!("{}/{}", node.graph, node.name),
                "kind": "function",
            }]),
        );
    }
    location.insert("physicalLocation".into(), physical);
    let location = Value::Object(location);
    json!({
        "ruleId": code.as_str(),
        "ruleIndex": rule_index,
        "level": level(finding.severity()),
        "message": {"text": text},
        "locations": [location],
    })
}
