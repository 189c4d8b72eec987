//! What the formats say about findings over the cap (`--max-findings`): the counts the summary
//! adds them to, its `(N shown)` notes, and the line per code that ends a model's findings.

use crate::diag::omitted::grouped;
use crate::diag::{Omitted, Severity};

use super::Totals;

/// Findings over the cap, per severity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct BySeverity {
    /// Errors not shown.
    pub errors: usize,
    /// Warnings not shown.
    pub warnings: usize,
    /// Infos not shown.
    pub infos: usize,
}

impl Totals {
    /// Adds a model's omitted findings to the counts (and to those of the omitted), so that
    /// the summary and the exit code count every finding.
    pub(crate) fn count_omitted(&mut self, omitted: &Omitted) {
        let errors = omitted.of_severity(Severity::Error);
        let warnings = omitted.of_severity(Severity::Warning);
        let infos = omitted.of_severity(Severity::Info);
        self.errors += errors;
        self.warnings += warnings;
        self.infos += infos;
        self.omitted.errors += errors;
        self.omitted.warnings += warnings;
        self.omitted.infos += infos;
    }
}

/// ` (999 shown, 2 denied)` from the notes that apply, nothing when none does.
pub(crate) fn notes<const N: usize>(notes: [Option<String>; N]) -> String {
    let notes: Vec<String> = notes.into_iter().flatten().collect();
    if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join(", "))
    }
}

/// `... and 999,000 more E3 findings in model.onnx (--max-findings 0 shows all)` for each code
/// of which `omitted` holds any and whose severity `shows` says the format shows: the lines
/// that end a model's findings.
pub(crate) fn lines(
    omitted: &Omitted,
    path: &str,
    shows: impl Fn(Severity) -> bool,
) -> Vec<String> {
    omitted
        .iter()
        .filter(|(code, _)| shows(code.severity()))
        .map(|(code, n)| {
            let s = if n == 1 { "" } else { "s" };
            format!(
                "... and {} more {code} finding{s} in {path} (--max-findings 0 shows all)",
                grouped(n)
            )
        })
        .collect()
}
