//! What the formats say about where a finding is and whether it fails the run: the node's line
//! as SARIF gives it and its SARIF region (shared by `sarif.rs` and `provenance.rs`), and text
//! kept to one line for the line-oriented formats (concise, github, junit).

// Only SARIF's line and region are used without the command's formats.
#![cfg_attr(not(feature = "cli"), allow(dead_code))]

use std::borrow::Cow;
use std::fmt::Write as _;

use serde_json::{json, Value};

use crate::diag::{Finding, Severity};

/// The line of node `index` in its graph's text form: line 1 is the graph's `name {`, node `i`
/// is on line `i + 2` (SARIF's `startLine`, README "SARIF").
pub(crate) fn node_line(index: usize) -> usize {
    index.saturating_add(2)
}

/// The region of the node at `index` of its graph, spanning `span` of the file: both a text and
/// a binary region (SARIF 3.30.1 allows one region to be both). The line (the node's, in its
/// graph's text form, after the graph's opening line) anchors the alert in code scanning; the
/// bytes are where the node is in the file.
pub(crate) fn node_region(index: usize, span: &std::ops::Range<usize>) -> Value {
    let mut region = json!({"startLine": node_line(index)});
    if span.end > span.start {
        if let Some(object) = region.as_object_mut() {
            object.insert("byteOffset".into(), span.start.into());
            object.insert("byteLength".into(), (span.end - span.start).into());
        }
    }
    region
}

/// The finding's line and column: its node's line, column 1 (a line of the text form is one
/// node, so the line says all there is); `None` for a finding without a node (the model as a
/// whole).
pub(crate) fn line_col(finding: &Finding) -> Option<(usize, usize)> {
    finding.node.as_ref().map(|node| (node_line(node.index), 1))
}

/// Whether a finding of `severity` fails the run: errors do, warnings when they are denied.
pub(crate) fn fails(severity: Severity, deny_warnings: bool) -> bool {
    match severity {
        Severity::Error => true,
        Severity::Warning => deny_warnings,
        Severity::Info => false,
    }
}

/// `text` on one line: control characters (a model's names may hold newlines) written as Rust
/// escapes (`\n`, `\u{1b}`), so that one finding stays one line and no name can forge another.
pub(crate) fn one_line(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            let _ = write!(out, "{}", c.escape_default());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_lines_are_sarifs() {
        assert_eq!(node_line(0), 2);
        assert_eq!(node_line(41), 43);
        assert_eq!(node_line(usize::MAX), usize::MAX);
    }

    #[test]
    fn control_characters_are_escaped_and_other_text_kept() {
        assert_eq!(one_line("a\nb\r\u{1b}c"), "a\\nb\\r\\u{1b}c");
        assert!(matches!(one_line("ünïcode / ok"), Cow::Borrowed(_)));
    }

    #[test]
    fn errors_fail_warnings_when_denied_infos_never() {
        assert!(fails(Severity::Error, false));
        assert!(!fails(Severity::Warning, false));
        assert!(fails(Severity::Warning, true));
        assert!(!fails(Severity::Info, true));
    }
}
