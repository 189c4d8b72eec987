//! One finding's section: code and message as the summary line of a `<details>`, then the
//! condition and counterexample (or constraint, binding, ...) from its facts, the help, the
//! drawing of its subgraph, and the provenance notes in words.

use std::fmt::Write as _;

use serde_json::Value;

use super::escape::text;
use super::graph::{Subgraph, MAX_BOXES};
use super::svg::draw;
use crate::diag::Finding;
use crate::lint::LintReport;
use crate::report::values::facts_json;

/// The facts shown as a list under the message, in this order, with their labels.
const SHOWN_FACTS: &[(&str, &str)] = &[
    ("constraint", "constraint"),
    ("found", "found"),
    ("condition", "condition"),
    ("counterexample", "counterexample"),
    ("binding", "binding"),
    ("symbol", "symbol"),
    ("declared", "declared"),
    ("inferred", "inferred"),
];

/// The section of `finding`, `id` naming it in the page; open when `open`.
pub(super) fn section(
    finding: &Finding,
    report: Option<&LintReport>,
    id: &str,
    open: bool,
) -> String {
    let code = finding.code.as_str();
    let severity = finding.severity().as_str();
    let mut html = String::new();
    let _ = write!(
        html,
        r#"<details class="finding {severity}" id="{id}" data-code="{code}"{}><summary><span class="code {severity}">{code}</span> {}</summary>"#,
        if open { " open" } else { "" },
        text(&finding.message)
    );
    let facts = facts_json(finding);
    let mut listed = String::new();
    for (key, label) in SHOWN_FACTS {
        if let Some(value) = facts.get(*key).filter(|v| !v.is_null()) {
            let _ = write!(
                listed,
                "<dt>{label}</dt><dd>{}</dd>",
                text(&fact_text(value))
            );
        }
    }
    if !listed.is_empty() {
        let _ = write!(html, r#"<dl class="facts">{listed}</dl>"#);
    }
    if let Some(help) = &finding.help {
        let _ = write!(html, r#"<p class="help"><b>help:</b> {}</p>"#, text(help));
    }
    match Subgraph::of(finding, report) {
        Some(graph) => {
            let _ = write!(html, r#"<div class="drawing">{}</div>"#, draw(&graph, id));
            if graph.cut {
                let _ = write!(
                    html,
                    r#"<p class="note">The drawing shows the first {MAX_BOXES} boxes only.</p>"#
                );
            }
        }
        None => html.push_str(
            r#"<p class="note">No node to draw: the finding is about the model as a whole.</p>"#,
        ),
    }
    // The chains, then the declarations the finding's dims rest on (an assumption, issue 38).
    let notes: Vec<String> = finding
        .inputs
        .iter()
        .flat_map(|input| {
            let chains = input
                .provenance
                .iter()
                .filter(|p| !p.is_trivial(&input.name))
                .map(|p| p.note(&input.name));
            chains.chain(input.declared.iter().map(|d| d.note(&input.name)))
        })
        .collect();
    if !notes.is_empty() {
        html.push_str(r#"<ul class="provenance">"#);
        for note in notes {
            let _ = write!(html, "<li>{}</li>", text(&note));
        }
        html.push_str("</ul>");
    }
    if let Some(node) = &finding.node {
        let _ = write!(
            html,
            r#"<p class="where">node {} of graph <code>{}</code> · fingerprint <code>{}</code></p>"#,
            node.index,
            text(&node.graph),
            finding.fingerprint().as_str()
        );
    }
    html.push_str("</details>");
    html
}

/// A fact's value in words: strings as they are, a binding as `a=1, b=2`, a shape as
/// `[2, seq]`.
fn fact_text(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={}", fact_text(v)))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(fact_text).collect::<Vec<_>>().join(", ")
        ),
        Value::Null => "?".to_owned(),
        other => other.to_string(),
    }
}
