//! `--format html`: one self-contained page (no network: the style and the few lines of script
//! are inline, the drawings inline SVG) from the same report data the JSON prints. A summary
//! (files, counts per code, the worst first, a filter by code), then per file a coverage panel
//! and per finding its message, facts, help, a drawing of its subgraph and its provenance.
//! Findings over `--max-findings` are in the counts, which say how many are shown, and a line
//! per code ends their file's findings.
//!
//! Every string a model provides is escaped ([`escape`]). Nothing depends on the time or the
//! machine: the same input gives the same bytes. Findings are written as they are made, so
//! the page grows with the findings, and a batch's clean files are listed together in one line
//! each. The notebook fragment ([`fragment`]) is the page's body: the same markup, its style
//! scoped to the `.obl` element it sits in.

mod coverage;
mod escape;
mod finding;
mod graph;
mod layout;
mod svg;

use std::io::{self, Write};

use super::FileReport;
use crate::diag::{Code, Finding, Omitted};

/// The stylesheet, scoped to `.obl`.
const STYLE: &str = include_str!("page.css");
/// The filter's script: it hides the findings of unchecked codes and marks the report
/// (`data-script="ran"`), which the browser test reads.
const SCRIPT: &str = include_str!("filter.js");

/// Files with findings whose findings are open at first, when the batch has at most this many
/// such files; larger batches open collapsed.
const OPEN_FILES: usize = 20;
/// Findings of a file open at first; the rest are collapsed.
const OPEN_FINDINGS: usize = 20;

/// The whole page for a batch of files.
pub fn render(files: &[FileReport]) -> String {
    let mut out = Vec::new();
    // Writing to a Vec cannot fail.
    let _ = write(&mut out, files);
    String::from_utf8_lossy(&out).into_owned()
}

/// Writes the whole page for a batch of files to `out`, with a final newline.
pub fn write(out: &mut dyn Write, files: &[FileReport]) -> io::Result<()> {
    writeln!(out, "<!DOCTYPE html>")?;
    writeln!(out, r#"<html lang="en"><head><meta charset="utf-8">"#)?;
    writeln!(
        out,
        r#"<meta name="viewport" content="width=device-width, initial-scale=1">"#
    )?;
    writeln!(out, "<title>{} report</title>", env!("CARGO_PKG_NAME"))?;
    writeln!(out, "</head><body>")?;
    write_fragment(out, files)?;
    writeln!(out, "</body></html>")
}

/// The page's body alone (the `.obl` element with its style and script), for a notebook's
/// rich display.
pub fn fragment(files: &[FileReport]) -> String {
    let mut out = Vec::new();
    let _ = write_fragment(&mut out, files);
    String::from_utf8_lossy(&out).into_owned()
}

/// One finding's section with the style, for a notebook's display of a single finding; `None`
/// when the file has no finding at `index`.
pub fn finding_fragment(file: &FileReport, index: usize) -> Option<String> {
    let report = file.outcome.as_ref().ok()?;
    let finding = report.findings().get(index)?;
    Some(format!(
        r#"<div class="obl"><style>{STYLE}</style>{}</div>"#,
        finding::section(finding, Some(report), &format!("f0-{index}"), true)
    ))
}

fn write_fragment(out: &mut dyn Write, files: &[FileReport]) -> io::Result<()> {
    writeln!(out, r#"<div class="obl"><style>{STYLE}</style>"#)?;
    writeln!(
        out,
        "<h1>{} {}</h1>",
        env!("CARGO_PKG_NAME"),
        env!("CARGO_PKG_VERSION")
    )?;
    write_summary(out, files)?;
    let with_findings = files
        .iter()
        .filter(|f| {
            f.outcome
                .as_ref()
                .is_ok_and(|r| !r.findings().is_empty() || !r.omitted().is_empty())
        })
        .count();
    let open = with_findings <= OPEN_FILES;
    let mut clean = Vec::new();
    for (i, file) in files.iter().enumerate() {
        match &file.outcome {
            Err(error) => writeln!(
                out,
                r#"<details class="file" open><summary>{}</summary><p class="load"><span class="code error">{}</span> {}</p></details>"#,
                escape::text(&file.path),
                escape::text(error.code()),
                escape::text(&error.to_string())
            )?,
            Ok(report) if report.findings().is_empty() && report.omitted().is_empty() => {
                clean.push(file.path.as_str());
            }
            Ok(report) => {
                writeln!(
                    out,
                    r#"<details class="file"{}><summary>{} <span class="count">{}</span></summary>"#,
                    if open { " open" } else { "" },
                    escape::text(&file.path),
                    escape::text(&counts_text(report.findings(), report.omitted()))
                )?;
                writeln!(out, "{}", coverage::panel(report))?;
                for (j, finding) in report.findings().iter().enumerate() {
                    let id = format!("f{i}-{j}");
                    writeln!(
                        out,
                        "{}",
                        finding::section(finding, Some(report), &id, j < OPEN_FINDINGS)
                    )?;
                }
                for line in super::omitted::lines(report.omitted(), &file.path, |_| true) {
                    writeln!(out, r#"<p class="omitted">{}</p>"#, escape::text(&line))?;
                }
                writeln!(out, "</details>")?;
            }
        }
    }
    if !clean.is_empty() {
        let s = if clean.len() == 1 { "" } else { "s" };
        write!(
            out,
            r#"<details class="file clean"><summary>{} clean file{s}</summary><ul>"#,
            clean.len()
        )?;
        for path in clean {
            write!(out, "<li><code>{}</code></li>", escape::text(path))?;
        }
        writeln!(out, "</ul></details>")?;
    }
    writeln!(out, "<script>{SCRIPT}</script>")?;
    writeln!(out, "</div>")
}

/// Counts per code over `findings` and of `omitted` (the findings over the cap), as `(code,
/// findings, of which omitted)`, the worst first (errors, warnings, infos; within a severity in
/// the codes' order).
fn per_code<'f>(
    findings: impl Iterator<Item = &'f Finding>,
    omitted: &[&Omitted],
) -> Vec<(Code, usize, usize)> {
    let mut counts: Vec<(Code, usize, usize)> = Code::ALL.iter().map(|&c| (c, 0, 0)).collect();
    for finding in findings {
        if let Some(entry) = counts.iter_mut().find(|(c, _, _)| *c == finding.code) {
            entry.1 += 1;
        }
    }
    for (code, n, left_out) in &mut counts {
        let more: usize = omitted.iter().map(|o| o.of(*code)).sum();
        *n += more;
        *left_out += more;
    }
    counts.retain(|(_, n, _)| *n > 0);
    counts.sort_by_key(|(code, _, _)| code.severity());
    counts
}

/// `2 E1, 1 W1`; `1500 E3 (1000 shown)` over the cap.
fn counts_text(findings: &[Finding], omitted: &Omitted) -> String {
    per_code(findings.iter(), &[omitted])
        .iter()
        .map(|(code, n, left_out)| format!("{n} {code}{}", shown(*n, *left_out)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// ` (1000 shown)` for a count of which some were over the cap.
fn shown(n: usize, omitted: usize) -> String {
    if omitted == 0 {
        String::new()
    } else {
        format!(" ({} shown)", n - omitted)
    }
}

fn write_summary(out: &mut dyn Write, files: &[FileReport]) -> io::Result<()> {
    let unreadable = files.iter().filter(|f| f.outcome.is_err()).count();
    let all = files
        .iter()
        .filter_map(|f| f.outcome.as_ref().ok())
        .flat_map(|r| r.findings().iter());
    let omitted: Vec<&Omitted> = files
        .iter()
        .filter_map(|f| Some(f.outcome.as_ref().ok()?.omitted()))
        .collect();
    let counts = per_code(all, &omitted);
    let s = if files.len() == 1 { "" } else { "s" };
    write!(
        out,
        r#"<section class="summary"><p>{} file{s}, {unreadable} unreadable</p>"#,
        files.len()
    )?;
    if counts.is_empty() {
        writeln!(out, "<p>No findings.</p></section>")?;
        return Ok(());
    }
    write!(
        out,
        r#"<table class="counts"><tr><th>code</th><th>findings</th><th>meaning</th></tr>"#
    )?;
    for (code, n, left_out) in &counts {
        let severity = code.severity().as_str();
        write!(
            out,
            r#"<tr><td><span class="code {severity}">{code}</span></td><td>{n}{}</td><td>{}</td></tr>"#,
            shown(*n, *left_out),
            escape::text(code.summary())
        )?;
    }
    write!(out, r#"</table><p class="filter">show: "#)?;
    for (code, n, _) in &counts {
        // Disabled until the script runs: without it the boxes would do nothing.
        write!(
            out,
            r#"<label><input type="checkbox" data-code="{code}" checked disabled> {code} ({n})</label>"#
        )?;
    }
    writeln!(out, "</p></section>")
}
