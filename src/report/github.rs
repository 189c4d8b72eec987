//! `--format github`: GitHub Actions workflow commands, one annotation per finding
//! (`::error file=PATH,line=L,col=C,title=CODE::message`), so that findings show on the pull
//! request and in the run's summary without code scanning; then the summary line as plain log.
//!
//! Errors are `::error`, warnings `::warning`, infos `::notice`. The line is the node's line in
//! its graph's text form, as SARIF's `startLine`; a finding without a node and an unreadable
//! file annotate the file without a line. Values are escaped as GitHub's runner unescapes them
//! (actions/toolkit, `command.ts`): `%`, `\r` and `\n` everywhere, and `:` and `,` in the
//! properties too. Each annotation is written as it is made.

use std::io::{self, Write};
use std::path::Path;

use miette::Diagnostic as _;

use super::place::{fails, line_col};
use super::{FileReport, Totals};
use crate::diag::{Finding, Severity};

/// Writes every file's annotations and the summary line. `deny_warnings[i]` says whether
/// warnings fail the run in `files[i]`; with `quiet`, only the findings that fail it are
/// annotated.
pub(crate) fn write(
    out: &mut dyn Write,
    files: &[FileReport],
    quiet: bool,
    deny_warnings: &[bool],
    totals: &Totals,
) -> io::Result<()> {
    for (i, file) in files.iter().enumerate() {
        match &file.outcome {
            Err(error) => {
                let mut message = error.to_string();
                if let Some(help) = error.help() {
                    message = format!("{message}\nhelp: {help}");
                }
                annotation(out, "error", &file.path, None, error.code(), &message)?;
            }
            Ok(report) => {
                let deny_warnings = deny_warnings.get(i).copied().unwrap_or(false);
                for finding in &report.findings {
                    if quiet && !fails(finding.severity(), deny_warnings) {
                        continue;
                    }
                    annotation(
                        out,
                        command(finding.severity()),
                        &file.path,
                        line_col(finding),
                        finding.code.as_str(),
                        &text(finding),
                    )?;
                }
            }
        }
    }
    writeln!(out, "{}", totals.summary())
}

/// The workflow command of a severity.
fn command(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    }
}

/// The annotation's text: the message, then its help and fingerprint (what `ignore` takes) on
/// lines of their own, as the human report shows them.
fn text(finding: &Finding) -> String {
    let mut text = finding.message.clone();
    if let Some(help) = &finding.help {
        text.push_str("\nhelp: ");
        text.push_str(help);
    }
    text.push_str("\nfingerprint: ");
    text.push_str(finding.fingerprint().as_str());
    text
}

/// `::command file=...,line=...,col=...,title=...::message` and its newline.
fn annotation(
    out: &mut dyn Write,
    command: &str,
    path: &str,
    at: Option<(usize, usize)>,
    title: &str,
    message: &str,
) -> io::Result<()> {
    write!(out, "::{command} file={}", property(&repository_path(path)))?;
    if let Some((line, col)) = at {
        write!(out, ",line={line},col={col}")?;
    }
    writeln!(out, ",title={}::{}", property(title), data(message))
}

/// The path as GitHub places an annotation: relative to the workspace, the directory the job
/// runs the command in. An absolute path under the current directory is made relative to it,
/// and a leading `./` is dropped; any other path is left as given.
fn repository_path(path: &str) -> String {
    let given = Path::new(path);
    if given.is_absolute() {
        let root = std::env::current_dir().unwrap_or_default();
        if let Ok(relative) = crate::paths::absolute(given).strip_prefix(&root) {
            if root.is_absolute() && !relative.as_os_str().is_empty() {
                return relative.to_string_lossy().into_owned();
            }
        }
        return path.to_owned();
    }
    let mut relative = path;
    while let Some(rest) = relative.strip_prefix("./") {
        relative = rest;
    }
    relative.to_owned()
}

/// A command's message, escaped (`escapeData`): `%` first, so that no escape is read twice.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property's value, escaped (`escapeProperty`): as a message, and `:` and `,`, which end a
/// property.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::LoadError;

    use crate::report::fixture::fixture_report as report;

    fn written(files: &[FileReport], quiet: bool, deny: &[bool]) -> String {
        let mut out = Vec::new();
        write(&mut out, files, quiet, deny, &Totals::of(files)).unwrap();
        String::from_utf8(out).unwrap()
    }

    /// What GitHub's runner does to a property or a message (the inverse of the escapes).
    fn unescape(text: &str) -> String {
        text.replace("%2C", ",")
            .replace("%3A", ":")
            .replace("%0A", "\n")
            .replace("%0D", "\r")
            .replace("%25", "%")
    }

    #[test]
    fn paths_are_given_relative_to_the_workspace() {
        assert_eq!(repository_path("./models/a.onnx"), "models/a.onnx");
        assert_eq!(repository_path("models/a.onnx"), "models/a.onnx");
        assert_eq!(repository_path("-"), "-");
        let here = std::env::current_dir().unwrap().join("models/a.onnx");
        assert_eq!(
            repository_path(&here.display().to_string()),
            "models/a.onnx"
        );
        // Outside the current directory (the tests run in the package's): left as given.
        assert_eq!(repository_path("/elsewhere/a.onnx"), "/elsewhere/a.onnx");
    }

    #[test]
    fn escapes_are_undone_by_the_runners_unescaping() {
        let tricky = "50%25 a:b,c\r\nd%";
        assert_eq!(unescape(&property(tricky)), tricky);
        assert_eq!(unescape(&data(tricky)), tricky);
        assert!(!property(tricky).contains([':', ',', '\n', '\r']));
        assert!(!data(tricky).contains(['\n', '\r']));
    }

    #[test]
    fn one_annotation_per_finding_at_the_sarif_line() {
        let files = [
            report("e1_reshape_upstream.onnx", "models/a,b:c.onnx"),
            report("w1_symbolic.onnx", "models/w1.onnx"),
            report("i1_future_opset.onnx", "models/i1.onnx"),
            FileReport {
                path: "gone.onnx".into(),
                outcome: Err(LoadError::Empty {
                    path: PathBuf::from("gone.onnx"),
                }),
            },
        ];
        let text = written(&files, false, &[]);
        let lines: Vec<&str> = text.lines().collect();
        let e1 = &files[0].outcome.as_ref().unwrap().findings[0];
        let line = e1.node.as_ref().unwrap().index + 2;
        let expected = format!(
            "::error file=models/a%2Cb%3Ac.onnx,line={line},col=1,title=E1::{}%0Ahelp: {}%0Afingerprint: {}",
            e1.message,
            e1.help.as_deref().unwrap(),
            e1.fingerprint()
        );
        assert_eq!(lines[0], expected);
        assert!(
            lines[1].starts_with("::warning file=models/w1.onnx,line="),
            "{text}"
        );
        assert!(lines[1].contains(",title=W1::"), "{text}");
        assert!(
            lines[2].starts_with("::notice file=models/i1.onnx,line="),
            "{text}"
        );
        assert_eq!(
            lines[3],
            "::error file=gone.onnx,title=load/empty::gone.onnx is empty (0 bytes)%0Ahelp: \
             often a failed download, or a Git LFS file not fetched (`git lfs pull`)"
        );
        assert_eq!(lines[4], Totals::of(&files).summary());
        assert_eq!(lines.len(), 5, "{text}");
    }

    #[test]
    fn quiet_annotates_the_findings_that_fail_the_run() {
        let files = [report("w1_symbolic.onnx", "w1.onnx")];
        assert!(!written(&files, true, &[false]).contains("::warning"));
        assert!(written(&files, true, &[true]).starts_with("::warning file=w1.onnx"));
    }
}
