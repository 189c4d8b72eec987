//! Output formats: human (miette), JSON (schema v1), SARIF 2.1.0, and one line per finding
//! (concise), GitHub workflow commands, `JUnit` XML and a self-contained HTML page. Rendering
//! is pure: it returns strings or writes to a writer it is given, and only the command prints
//! (`cli::run`, which the binary and the Python package's `onnx-bcast-lint` call; no format writes
//! to standard output itself).

#[cfg(feature = "cli")]
pub(crate) mod concise;
// The explain texts are data beside the codes (`diag`); the formats and `--explain` read them here.
pub(crate) use crate::diag::explain;
#[cfg(test)]
mod fixture;
#[cfg(feature = "cli")]
pub(crate) mod github;
pub mod html;
pub mod human;
pub mod json;
#[cfg(feature = "cli")]
pub(crate) mod junit;
mod numbered;
mod omitted;
mod place;
mod provenance;
pub mod sarif;
mod stream;
mod values;
mod width;

use crate::lint::LintReport;
use crate::LoadError;

/// The output format (the command's `--format`).
#[cfg(feature = "cli")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Format {
    /// miette reports with the node shown in a listing of its graph.
    #[default]
    Human,
    /// The JSON contract.
    Json,
    /// SARIF 2.1.0.
    Sarif,
    /// `path:line:col: CODE message`, one line per finding.
    Concise,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// `JUnit` XML.
    Junit,
    /// One self-contained HTML page with a drawing per finding.
    Html,
}

/// The result for one input file.
#[derive(Debug)]
pub struct FileReport {
    /// The path as given (`-` for standard input).
    pub path: String,
    /// The lint report, or why the file could not be read.
    pub outcome: Result<LintReport, LoadError>,
}

/// Counts over a batch, for the summary line and the exit code.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Totals {
    /// Findings of severity error.
    pub errors: usize,
    /// Findings of severity warning.
    pub warnings: usize,
    /// Findings of severity info.
    pub infos: usize,
    /// Files that could not be read.
    pub unreadable: usize,
    /// Files given.
    pub files: usize,
    /// Findings a configuration's `ignore` suppressed (the command's gate; 0 otherwise).
    pub ignored: usize,
    /// Findings a baseline accepted, when a baseline is in use (`--baseline`).
    pub baselined: Option<usize>,
    /// Warnings that fail the run (`--deny warnings`), when some model's settings deny them.
    pub denied_warnings: Option<usize>,
    /// Of `errors`, `warnings` and `infos`, those over the findings cap (not shown).
    pub omitted: omitted::BySeverity,
}

impl Totals {
    /// Counts the findings of every file.
    pub(crate) fn of(files: &[FileReport]) -> Self {
        let mut totals = Totals {
            files: files.len(),
            ..Totals::default()
        };
        for file in files {
            match &file.outcome {
                Err(_) => totals.unreadable += 1,
                Ok(report) => {
                    for finding in &report.findings {
                        match finding.severity() {
                            crate::diag::Severity::Error => totals.errors += 1,
                            crate::diag::Severity::Warning => totals.warnings += 1,
                            crate::diag::Severity::Info => totals.infos += 1,
                        }
                    }
                    totals.count_omitted(&report.omitted);
                }
            }
        }
        totals
    }

    /// `3 errors, 1 warning, 0 infos in 2 files`; `1 warning (denied)` when warnings fail the
    /// run, `3 warnings (1 denied)` when they fail it in some models only.
    pub(crate) fn summary(&self) -> String {
        let plural = |n: usize, word: &str| {
            if n == 1 {
                format!("{n} {word}")
            } else {
                format!("{n} {word}s")
            }
        };
        let denied = match self.denied_warnings {
            Some(n) if n == self.warnings => Some("denied".to_owned()),
            Some(n) if n > 0 => Some(format!("{n} denied")),
            _ => None,
        };
        let shown =
            |n: usize, omitted: usize| (omitted > 0).then(|| format!("{} shown", n - omitted));
        let mut line = format!(
            "{}{}, {}{}, {}{} in {}",
            plural(self.errors, "error"),
            omitted::notes([shown(self.errors, self.omitted.errors)]),
            plural(self.warnings, "warning"),
            omitted::notes([shown(self.warnings, self.omitted.warnings), denied]),
            plural(self.infos, "info"),
            omitted::notes([shown(self.infos, self.omitted.infos)]),
            plural(self.files, "file")
        );
        if self.unreadable > 0 {
            line = format!("{line} ({} unreadable)", self.unreadable);
        }
        if let Some(baselined) = self.baselined {
            line = format!("{line}; {baselined} baselined");
        }
        if self.ignored > 0 {
            line = format!("{line}; {} ignored", self.ignored);
        }
        line
    }
}
