//! A run of the command: the parsed flags and the configuration files give each model's
//! settings, the models are linted in parallel, the reports are gated (ignore, baseline),
//! rendered and printed, and the exit code is picked.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::args::{flag_settings, Cli, FormatArg};
use super::discover::expand;
use crate::config::{ConfigLookup, Effective};
use crate::gate::{self, baseline::Baseline, Gated};
use crate::model::resident_file_kb;
use crate::report::{self, human, FileReport, Format, Totals};
use crate::{lint_path_timed, LintReport, Timings};
use clap::Parser;
use rayon::prelude::*;

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// One line per file: `timings <path> read=<ms> scan=<ms> decode=<ms> graph=<ms> infer=<ms>
/// settle=<ms> check=<ms> infer_beside=<ms>`, the format `bench/run.sh` reads (`infer_beside`
/// overlaps `graph`: see `Timings::infer_beside`).
fn print_timings(paths: &[PathBuf], timings: &[Timings]) {
    for (path, t) in paths.iter().zip(timings) {
        eprintln!(
            "timings {} read={:.3} scan={:.3} decode={:.3} graph={:.3} infer={:.3} settle={:.3} check={:.3} infer_beside={:.3}",
            path.display(),
            ms(t.read()),
            ms(t.scan()),
            ms(t.decode()),
            ms(t.graph()),
            ms(t.infer()),
            ms(t.settle()),
            ms(t.check()),
            ms(t.infer_beside()),
        );
    }
}

/// What to do with the reports once the output is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Teardown {
    /// Free them: the caller goes on (the Python package's `main`).
    Free,
    /// Leak them: the process ends right after, and the kernel reclaims everything at once.
    Leak,
}

/// Runs the command with `args` (the program name first, as in `std::env::args_os`): parses
/// the flags, lints, prints to standard output and error, and returns the exit code: `0` no
/// errors, `1` errors found (or warnings with `--deny warnings`), `2` a usage error or an
/// unreadable model. `--help` and `--version` print and return `0`.
///
/// ```no_run
/// use onnx_bcast_lint::cli::{run, Teardown};
/// let code = run(["onnx-bcast-lint", "--format", "json", "model.onnx"], Teardown::Free);
/// ```
pub fn run<I, T>(args: I, teardown: Teardown) -> u8
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let started = Instant::now();
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(error) => {
            // What `Cli::parse` prints before it exits.
            let _ = error.print();
            return u8::try_from(error.exit_code()).unwrap_or(2);
        }
    };
    if let Some(code) = &cli.explain {
        return explain(code);
    }
    let (files, empty) = expand(&cli.models);
    let Some((files, effective)) = configure(&cli, files) else {
        return 2;
    };
    if cli.write_shapes.is_some() {
        if files.len() != 1 {
            eprintln!(
                "error: --write-shapes takes exactly one model file ({} given)",
                files.len()
            );
            return 2;
        }
        if files.iter().any(|f| f.as_os_str() == "-") {
            eprintln!("error: --write-shapes needs a model file: it copies the file's bytes, and standard input has none to map");
            return 2;
        }
    }
    // As ruff does for a directory without Python files: a notice, not a failure, so that a
    // hook or CI step run on a folder that has no models yet passes; the notice (on standard
    // error, outside the JSON and SARIF documents) says nothing was linted there.
    for dir in &empty {
        eprintln!("warning: no *.onnx model found under `{}`", dir.display());
    }
    // Read before linting for the gate's test (`gate::cap`); `gate_findings` reads it again and
    // says why when it cannot be read.
    let baseline = cli
        .baseline
        .as_deref()
        .and_then(|path| Baseline::read(path).ok())
        .map(std::sync::Arc::new);
    let writing_baseline = cli.write_baseline.is_some();
    let progress = super::progress::Progress::new(files.len(), std::io::stderr().is_terminal());
    let lint_all = || -> Vec<(FileReport, Timings)> {
        let reports = files
            .par_iter()
            // One file per task: batches mix large and tiny models, and halves of the list can
            // differ tenfold in work.
            .with_max_len(1)
            .zip(&effective)
            .map(|(path, effective)| {
                // `--dim` names are checked over the batch once all are linted.
                let options =
                    gate::cap::lint_options(effective, path, baseline.as_ref(), writing_baseline)
                        .with_dims_checked(false);
                let (outcome, timings) = lint_path_timed(path, &options);
                progress.tick(outcome.as_ref().map_or(0, |r| r.findings().len()));
                let report = FileReport {
                    path: path.display().to_string(),
                    outcome,
                };
                (report, timings)
            })
            .collect();
        progress.clear();
        reports
    };
    // `-j` sizes the one pool everything runs on: linting files, decoding a model's nodes ahead,
    // rendering the reports. A pool of the run's own, not the global one, so that a process
    // can run the command more than once (the Python package).
    let pool = match cli.jobs {
        None => None,
        Some(jobs) => match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
            Ok(pool) => Some(pool),
            Err(error) => {
                eprintln!("error: cannot start {jobs} threads: {error}");
                return 2;
            }
        },
    };
    match pool {
        Some(pool) => {
            pool.install(|| finish(&cli, &files, &effective, started, lint_all(), teardown))
        }
        None => finish(&cli, &files, &effective, started, lint_all(), teardown),
    }
}

/// Each model's settings (its configuration with the flags over it), leaving out the models
/// a configuration excludes. `None` after printing why when a configuration is bad.
fn configure(cli: &Cli, files: Vec<PathBuf>) -> Option<(Vec<PathBuf>, Vec<Effective>)> {
    let flags = flag_settings(cli);
    let mut source = match ConfigLookup::new(cli.config.as_deref(), cli.isolated) {
        Ok(source) => source,
        Err(error) => {
            eprintln!("error: {error}");
            return None;
        }
    };
    let mut kept = Vec::with_capacity(files.len());
    let mut effective = Vec::with_capacity(files.len());
    let mut excluded = Vec::new();
    for file in files {
        match source.effective(&file, &flags) {
            Ok(Effective {
                excluded: Some(by), ..
            }) => excluded.push((file, by)),
            Ok(settings) => {
                kept.push(file);
                effective.push(settings);
            }
            Err(error) => {
                eprintln!("error: {error}");
                return None;
            }
        }
    }
    for notice in gate::excluded::notices(&cli.models, &excluded, &kept) {
        eprintln!("warning: {notice}");
    }
    Some((kept, effective))
}

/// `--explain CODE`: 0 with the text on standard output, 2 for an unknown code.
fn explain(code: &str) -> u8 {
    let Some(explanation) = report::explain::find(code) else {
        eprintln!(
            "error: unknown code `{code}` (known codes: {})",
            report::explain::known_codes()
        );
        return 2;
    };
    let mut stdout = std::io::stdout().lock();
    let text = report::explain::render(explanation);
    if write!(stdout, "{text}").is_err() || stdout.flush().is_err() {
        return 2;
    }
    0
}

/// `--write-shapes`: the annotated copy of the one model, if asked; false when it cannot be
/// written (exit 2).
fn write_shapes(cli: &Cli, files: &[PathBuf], reports: &[FileReport]) -> bool {
    let (
        Some(out),
        [path],
        [FileReport {
            outcome: Ok(report),
            ..
        }],
    ) = (&cli.write_shapes, files, reports)
    else {
        return true;
    };
    match crate::annotate::write_shapes(path, report, out) {
        Ok(()) => {
            // On standard error, so that the report on standard output stays a document.
            eprintln!(
                "wrote {}: a copy of {} with the inferred shapes in its value_info",
                out.display(),
                path.display()
            );
            true
        }
        Err(error) => {
            eprintln!("error: {error}");
            false
        }
    }
}

/// Renders, prints and picks the exit code.
#[allow(clippy::too_many_lines)] // one arm per output format
fn finish(
    cli: &Cli,
    files: &[PathBuf],
    effective: &[Effective],
    started: Instant,
    reports: Vec<(FileReport, Timings)>,
    teardown: Teardown,
) -> u8 {
    let (mut reports, timings): (Vec<FileReport>, Vec<Timings>) = reports.into_iter().unzip();
    // Checked over the batch: a zoo's models need not share every symbol.
    let names = cli.dims.iter().map(|(name, _)| name.as_str());
    let linted = reports.iter().filter_map(|r| r.outcome.as_ref().ok());
    let unknown = crate::unknown_dims(names, linted.map(LintReport::declared_dims));
    if !unknown.is_empty() {
        for dim in unknown {
            eprintln!("error: --dim {}: {dim}", dim.name);
        }
        return 2;
    }
    if !write_shapes(cli, files, &reports) {
        return 2;
    }
    let Some(gated) = gate_findings(cli, &mut reports, effective) else {
        return 2;
    };
    gate::cap::apply(&mut reports, effective);
    let deny_warnings: Vec<bool> = effective.iter().map(|e| e.deny_warnings).collect();
    let mut totals = Totals::of(&reports);
    totals.ignored = gated.ignored;
    totals.baselined =
        (cli.baseline.is_some() || cli.write_baseline.is_some()).then_some(gated.baselined);
    totals.denied_warnings = gate::denied_warnings(&reports, effective);
    let render_start = Instant::now();

    let format = match cli.format {
        FormatArg::Human => Format::Human,
        FormatArg::Json => Format::Json,
        FormatArg::Sarif => Format::Sarif,
        FormatArg::Concise => Format::Concise,
        FormatArg::Github => Format::Github,
        FormatArg::Junit => Format::Junit,
        FormatArg::Html => Format::Html,
    };
    let stdout = std::io::stdout().lock();
    let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout);
    // Every format is written as it is made: a model can have millions of findings.
    let written = match format {
        Format::Json => {
            report::json::write(&mut out, &reports, cli.shapes).and_then(|()| writeln!(out))
        }
        Format::Sarif => match &cli.sarif_root {
            Some(root) => report::sarif::write_relative(&mut out, &reports, root),
            None => report::sarif::write(&mut out, &reports),
        }
        .and_then(|()| writeln!(out)),
        Format::Concise => {
            report::concise::write(&mut out, &reports, cli.quiet, &deny_warnings, &totals)
        }
        Format::Github => {
            report::github::write(&mut out, &reports, cli.quiet, &deny_warnings, &totals)
        }
        Format::Junit => report::junit::write(&mut out, &reports, &deny_warnings, &totals),
        Format::Html => report::html::write(&mut out, &reports),
        Format::Human => {
            let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let style = human::Style {
                color,
                width: terminal_width(),
                quiet: cli.quiet,
            };
            if cli.shapes {
                // The summary ends the text, after the shapes too (as the README says).
                human::write_findings(&mut out, &reports, style, &deny_warnings)
                    .and_then(|()| human::write_shapes(&mut out, &reports))
                    .and_then(|()| writeln!(out, "{}", totals.summary()))
            } else {
                human::write_run(&mut out, &reports, style, &deny_warnings, &totals)
            }
        }
    };
    // Flushed here: a caller that embeds the command (Python) may end the process its own way.
    if written.and_then(|()| out.flush()).is_err() {
        return 2;
    }
    if cli.timings {
        print_timings(files, &timings);
        eprintln!(
            "timings output={:.3} total={:.3} rss_file={}",
            ms(render_start.elapsed()),
            ms(started.elapsed()),
            // Large files' pages are given back after loading: their residency was taken then.
            timings
                .iter()
                .filter_map(Timings::file_resident_kb)
                .chain(resident_file_kb())
                .max()
                .unwrap_or(0)
        );
    }

    for stale in &gated.stale {
        eprintln!("warning: {stale}");
    }
    // The binary's process ends here: returning the millions of small allocations of a large model to the
    // allocator one by one costs more than linting it (a sixth of the time at 100k nodes), and
    // the kernel reclaims them (and unmaps the files) in one go.
    if teardown == Teardown::Leak {
        std::mem::forget(reports);
    } else {
        drop(reports);
    }
    // 2: unreadable models; 1: errors (or denied warnings); 0: clean.
    if totals.unreadable > 0 {
        2
    } else {
        // Warnings fail the run in the models whose settings deny them.
        u8::from(totals.errors > 0 || totals.denied_warnings.is_some_and(|n| n > 0))
    }
}

/// Drops the findings `ignore` entries and the baseline accept, and writes the baseline when
/// asked. `None` after printing why when the baseline cannot be read or written.
fn gate_findings(cli: &Cli, reports: &mut [FileReport], effective: &[Effective]) -> Option<Gated> {
    let mut gated = gate::suppress(reports, effective);
    let mut baseline = match &cli.baseline {
        None => None,
        Some(path) => match Baseline::read(path) {
            Ok(baseline) => Some(baseline),
            Err(error) => {
                eprintln!("error: {error}");
                return None;
            }
        },
    };
    if let Some(path) = &cli.write_baseline {
        // Every current finding, including those an older baseline accepted.
        let mut written = Baseline::empty(path);
        written.record(reports);
        if let Err(error) = std::fs::write(path, written.text()) {
            eprintln!(
                "error: cannot write the baseline {}: {error}",
                path.display()
            );
            return None;
        }
        eprintln!(
            "wrote {} finding(s) to the baseline {}",
            written.len(),
            path.display()
        );
        baseline = Some(written);
    }
    if let Some(baseline) = &baseline {
        gated.baselined = gate::apply_baseline(reports, baseline);
    }
    Some(gated)
}

fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100)
}
