//! What the command does with findings between linting and rendering: drops those a
//! configuration's `ignore` names and those a baseline accepts, counts both and the denied
//! warnings for the summary, and finds the `ignore` entries that matched nothing in the models
//! they name (stale ones, reported so they get cleaned up).

pub(crate) mod baseline;
pub(crate) mod cap;
pub(crate) mod excluded;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use crate::config::Effective;
use crate::diag::Severity;
use crate::report::FileReport;
use baseline::Baseline;

/// The counts and notices of one run's gate.
#[derive(Debug, Default)]
pub(crate) struct Gated {
    /// Findings an `ignore` entry suppressed.
    pub(crate) ignored: usize,
    /// Findings the baseline accepted.
    pub(crate) baselined: usize,
    /// `path:line:col: ...` for each `ignore` entry in scope that matched no finding.
    pub(crate) stale: Vec<String>,
}

/// Drops ignored findings from `reports` (each governed by the `Effective` of the same index),
/// and returns the counts and stale entries. An entry is in scope, and can be stale, only when a
/// model it names was linted in this run (a hook linting the staged files, or a run on part of
/// a tree, sees only some models) and that model's settings report the entry's code (under
/// `--allow W1` a W1 entry matches nothing, yet removing it would be wrong).
pub(crate) fn suppress(reports: &mut [FileReport], effective: &[Effective]) -> Gated {
    // An entry is named by its file and byte offset: the same fingerprint written twice is two
    // entries. The value is the stale warning, should the entry match nothing.
    let mut in_scope: BTreeMap<(PathBuf, usize), String> = BTreeMap::new();
    let mut used: BTreeSet<(PathBuf, usize)> = BTreeSet::new();
    let mut gated = Gated::default();
    for (file, effective) in reports.iter_mut().zip(effective) {
        // An unreadable model was not linted: its entries say nothing.
        let Ok(report) = &mut file.outcome else {
            continue;
        };
        let Some(config) = &effective.config else {
            continue;
        };
        for entry in &effective.ignore {
            if entry
                .fingerprint
                .code()
                .is_some_and(|code| effective.allowed.contains(&code))
            {
                continue;
            }
            in_scope
                .entry((config.path.clone(), entry.span.start))
                .or_insert_with(|| {
                    format!(
                        "{}: ignore entry `{}` for `{}` matches no finding (stale: remove it)",
                        config.locate(entry.span.start),
                        entry.fingerprint,
                        entry.models
                    )
                });
        }
        let before = report.findings.len();
        report.findings.retain(|finding| {
            let fingerprint = finding.fingerprint();
            let mut matched = false;
            for entry in effective
                .ignore
                .iter()
                .filter(|e| e.fingerprint == fingerprint)
            {
                used.insert((config.path.clone(), entry.span.start));
                matched = true;
            }
            !matched
        });
        gated.ignored += before - report.findings.len();
    }
    gated.stale = in_scope
        .into_iter()
        .filter(|(key, _)| !used.contains(key))
        .map(|(_, warning)| warning)
        .collect();
    gated
}

/// The warnings that fail the run, for the summary line: `None` when no model's settings deny
/// warnings, else how many warnings are in models that deny them (when every model does, all of
/// them, so that the summary says so even when there are none).
pub(crate) fn denied_warnings(reports: &[FileReport], effective: &[Effective]) -> Option<usize> {
    let mut denied = 0;
    for (file, effective) in reports.iter().zip(effective) {
        if let (Ok(report), true) = (&file.outcome, effective.deny_warnings) {
            denied += report
                .findings
                .iter()
                .filter(|f| f.severity() == Severity::Warning)
                .count()
                + report.omitted.of_severity(Severity::Warning);
        }
    }
    let everywhere = !effective.is_empty() && effective.iter().all(|e| e.deny_warnings);
    (everywhere || denied > 0).then_some(denied)
}

/// Drops the findings `baseline` accepts; returns how many.
pub(crate) fn apply_baseline(reports: &mut [FileReport], baseline: &Baseline) -> usize {
    let mut dropped = 0;
    for file in reports {
        let key = baseline.key_of(&file.path);
        let Ok(report) = &mut file.outcome else {
            continue;
        };
        let before = report.findings.len();
        report
            .findings
            .retain(|finding| !baseline.contains(&key, &finding.fingerprint()));
        dropped += before - report.findings.len();
    }
    dropped
}
