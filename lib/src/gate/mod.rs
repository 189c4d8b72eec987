//! What the command does with findings between linting and rendering: drops those a
//! configuration's `ignore` names and those a baseline accepts, counts both for the summary, and
//! finds the `ignore` entries that matched nothing (stale ones, reported so they get cleaned up).

pub(crate) mod baseline;

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::config::Effective;
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
/// and returns the counts and stale entries. An entry is in scope when it applied to at least one
/// linted model, so a run on part of a tree does not call the other models' entries stale, except
/// the top-level ones of a configuration, which apply to every model below it.
pub(crate) fn suppress(reports: &mut [FileReport], effective: &[Effective]) -> Gated {
    // An entry is named by its file and byte offset: the same fingerprint written twice is two
    // entries.
    let mut in_scope: BTreeSet<(PathBuf, usize)> = BTreeSet::new();
    let mut used: BTreeSet<(PathBuf, usize)> = BTreeSet::new();
    let mut gated = Gated::default();
    for (file, effective) in reports.iter_mut().zip(effective) {
        let Ok(report) = &mut file.outcome else {
            continue;
        };
        let Some(config) = &effective.config else {
            continue;
        };
        for entry in &effective.ignore {
            in_scope.insert((config.path.clone(), entry.span.start));
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
    let mut seen = BTreeSet::new();
    for effective in effective {
        let Some(config) = &effective.config else {
            continue;
        };
        for entry in &effective.ignore {
            let key = (config.path.clone(), entry.span.start);
            if in_scope.contains(&key) && !used.contains(&key) && seen.insert(key) {
                gated.stale.push(format!(
                    "{}: ignore entry `{}` matches no finding (stale: remove it)",
                    config.locate(entry.span.start),
                    entry.fingerprint
                ));
            }
        }
    }
    gated
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
