//! A file's coverage panel: how much of the model the check saw. From what the report holds:
//! the nodes and graphs it counted, the operators without a shape rule (its I1 findings), and
//! the main graph's values whose shape has an unknown dim or rank. Subgraphs' values are not
//! counted: the report keeps their shapes per graph, and the panel stays with the main graph
//! the JSON's `shapes` describes.

use std::fmt::Write as _;

use super::escape::text;
use crate::diag::Facts;
use crate::lint::LintReport;
use crate::shape::Dim;

/// The panel as a `<div>`.
pub(super) fn panel(report: &LintReport) -> String {
    let stats = report.stats();
    let mut values = 0usize;
    let mut unknown_rank = 0usize;
    let mut with_unknown_dim = 0usize;
    for (_, shape) in report.main_shapes() {
        values += 1;
        match shape.dims() {
            None => unknown_rank += 1,
            Some(dims) if dims.iter().any(|d| matches!(d, Dim::Unknown)) => with_unknown_dim += 1,
            Some(_) => {}
        }
    }
    let mut unsupported = String::new();
    for finding in report.findings() {
        if let Facts::Unsupported {
            op_type,
            domain,
            count,
            ..
        } = &finding.facts
        {
            let domain = if domain.is_empty() {
                String::new()
            } else {
                format!(" ({})", text(domain))
            };
            let _ = write!(
                unsupported,
                "<li><code>{}</code>{domain} ×{count}</li>",
                text(op_type)
            );
        }
    }
    let mut html = String::from(r#"<div class="coverage"><b>coverage</b><ul>"#);
    let _ = write!(
        html,
        "<li>{} nodes checked in {} graph{}</li>",
        stats.nodes,
        stats.graphs,
        if stats.graphs == 1 { "" } else { "s" }
    );
    let _ = write!(
        html,
        "<li>main graph: {with_unknown_dim} of {values} values with an unknown dim, {unknown_rank} of unknown rank</li>"
    );
    if unsupported.is_empty() {
        html.push_str("<li>every operator has a shape rule</li></ul>");
    } else {
        let _ = write!(
            html,
            "<li>operators without a shape rule (I1):<ul>{unsupported}</ul></li></ul>"
        );
    }
    html.push_str("</div>");
    html
}
