//! The findings cap around the gate: a model whose findings `ignore` or a baseline may drop is
//! linted without the cap and capped once they are dropped, so that the entries see every
//! finding and the models show as many as the cap allows. Other models are capped by the
//! library, before their dropped findings cost anything.

use crate::config::Effective;
use crate::report::FileReport;
use crate::Options;

/// The options a model is linted with: its own, without the cap when a gate applies to it.
pub(crate) fn lint_options(effective: &Effective, baseline: bool) -> Options {
    let options = effective.options.clone();
    if baseline || !effective.ignore.is_empty() {
        options.with_max_findings(0)
    } else {
        options
    }
}

/// Caps every report to its model's `max-findings`, once the gate has dropped what it drops
/// (a no-op on the reports the library already capped).
pub(crate) fn apply(reports: &mut [FileReport], effective: &[Effective]) {
    for (file, effective) in reports.iter_mut().zip(effective) {
        if let Ok(report) = &mut file.outcome {
            report.cap(effective.options.max_findings());
        }
    }
}
