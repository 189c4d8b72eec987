//! `--format concise`: one line per finding, `path:line:col: CODE message`, as compilers and
//! ruff write them (editors and CI problem matchers read the form), then the summary line.
//!
//! The line is the node's line in its graph's text form, as SARIF's `startLine`; a finding
//! without a node, and a file that cannot be read, are at `1:1` (the file as a whole; ruff puts
//! its unreadable-file error there too). Each line is written as it is made: a model can have
//! millions of findings.

use std::io::{self, Write};

use super::place::{fails, line_col, one_line};
use super::{FileReport, Totals};

/// Writes every file's findings, one a line, and the summary line. `deny_warnings[i]` says
/// whether warnings fail the run in `files[i]`; with `quiet`, only the findings that fail it
/// are written.
pub(crate) fn write(
    out: &mut dyn Write,
    files: &[FileReport],
    quiet: bool,
    deny_warnings: &[bool],
    totals: &Totals,
) -> io::Result<()> {
    for (i, file) in files.iter().enumerate() {
        let path = one_line(&file.path);
        match &file.outcome {
            Err(error) => writeln!(
                out,
                "{path}:1:1: {} {}",
                error.code(),
                one_line(&error.to_string())
            )?,
            Ok(report) => {
                let deny_warnings = deny_warnings.get(i).copied().unwrap_or(false);
                for finding in &report.findings {
                    if quiet && !fails(finding.severity(), deny_warnings) {
                        continue;
                    }
                    let (line, col) = line_col(finding).unwrap_or((1, 1));
                    writeln!(
                        out,
                        "{path}:{line}:{col}: {} {}",
                        finding.code.as_str(),
                        one_line(&finding.message)
                    )?;
                }
            }
        }
    }
    writeln!(out, "{}", totals.summary())
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::report::fixture::fixture_report;
    use crate::LoadError;

    fn report(name: &str) -> FileReport {
        fixture_report(name, &format!("models/{name}"))
    }

    fn text(files: &[FileReport], quiet: bool, deny: &[bool]) -> String {
        let mut out = Vec::new();
        write(&mut out, files, quiet, deny, &Totals::of(files)).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn one_line_per_finding_at_the_sarif_line_then_the_summary() {
        let files = [
            report("e1_reshape_upstream.onnx"),
            report("w1_symbolic.onnx"),
            report("ok_symbolic_batch.onnx"),
            FileReport {
                path: "gone.onnx".into(),
                outcome: Err(LoadError::Empty {
                    path: PathBuf::from("gone.onnx"),
                }),
            },
        ];
        let written = text(&files, false, &[]);
        let lines: Vec<&str> = written.lines().collect();
        // The node's index + 2, as SARIF's `startLine`.
        let e1 = &files[0].outcome.as_ref().unwrap().findings[0];
        let index = e1.node.as_ref().unwrap().index;
        assert_eq!(
            lines[0],
            format!(
                "models/e1_reshape_upstream.onnx:{}:1: E1 {}",
                index + 2,
                e1.message
            )
        );
        assert!(
            lines[1].starts_with("models/w1_symbolic.onnx:"),
            "{written}"
        );
        assert!(lines[1].contains(": W1 "), "{written}");
        assert_eq!(
            lines[2],
            "gone.onnx:1:1: load/empty gone.onnx is empty (0 bytes)"
        );
        assert_eq!(
            lines[3],
            "1 error, 1 warning, 0 infos in 4 files (1 unreadable)"
        );
        assert_eq!(lines.len(), 4, "{written}");
    }

    #[test]
    fn quiet_keeps_the_findings_that_fail_the_run() {
        let files = [report("w1_symbolic.onnx")];
        assert_eq!(text(&files, true, &[false]).lines().count(), 1);
        assert_eq!(text(&files, true, &[true]).lines().count(), 2);
    }
}
