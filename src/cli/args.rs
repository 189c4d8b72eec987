//! The command's flags: what clap parses (`Cli`), the help text's examples, the parsers of
//! `--dim` and `--allow` values, and the flags as settings layered over the configuration files'.

use std::num::NonZeroU64;
use std::path::PathBuf;

use crate::config::{CodeName, DimValue, Settings};
use crate::Code;
use clap::{Parser, ValueEnum};

const EXAMPLES: &str = "\
Examples:
  onnx-bcast-lint model.onnx
  onnx-bcast-lint --format json --shapes model.onnx
  onnx-bcast-lint --format sarif models/ > results.sarif
  onnx-bcast-lint --format concise models/
  onnx-bcast-lint --dim batch=8 --dim seq=128 --deny warnings model.onnx
  onnx-bcast-lint --allow W1,I1 -q models/
  cat model.onnx | onnx-bcast-lint -
  onnx-bcast-lint --explain W1
  onnx-bcast-lint --write-baseline .onnx-bcast-lint-baseline models/
  onnx-bcast-lint --baseline .onnx-bcast-lint-baseline models/

Configuration: the nearest onnx-bcast-lint.toml (or [tool.onnx-bcast-lint] in
pyproject.toml) above each model; keys allow, deny-warnings, dims, exclude,
ignore, initializers-as-constants, max-findings and [[per-file]] tables with
a glob. Flags override it.

Exit codes: 0 no errors, 1 errors found (or warnings with --deny warnings),
2 usage error (including a --dim name no input declares) or unreadable model
(the other files are still linted), or a bad configuration or baseline file.";

/// Finds broadcasting bugs in ONNX models before they ship.
#[derive(Debug, Parser)]
#[command(version, about, after_help = EXAMPLES)]
#[allow(clippy::struct_excessive_bools)] // each is an on/off flag of the command line
pub(super) struct Cli {
    /// Model files, directories (searched for *.onnx), or `-` for standard input.
    #[arg(required_unless_present = "explain")]
    pub(super) models: Vec<PathBuf>,
    /// Explain a code (`E1`, `W1`, `load/decode`...): what it means, why the model fails at run
    /// time, a minimal example, how to fix it, and the spec it comes from.
    #[arg(long, value_name = "CODE", exclusive = true)]
    pub(super) explain: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = FormatArg::Human)]
    pub(super) format: FormatArg,
    /// Also print every value's inferred shape.
    #[arg(long)]
    pub(super) shapes: bool,
    /// Bind a symbolic dim to a value (repeatable): a `dim_param` of an input, or `input:axis`
    /// for an axis declared without a size or a name. Conditions on it become definite.
    #[arg(long = "dim", value_name = "NAME=VALUE", value_parser = parse_binding)]
    pub(super) dims: Vec<(String, i64)>,
    /// Treat warnings as errors for the exit code (`--deny warnings`).
    #[arg(long, value_name = "warnings", value_parser = ["warnings"])]
    pub(super) deny: Vec<String>,
    /// Do not report findings with these codes (repeatable, or comma-separated: `--allow W1,I1`).
    #[arg(long, value_name = "CODE", value_parser = parse_code, value_delimiter = ',')]
    pub(super) allow: Vec<Code>,
    /// Treat initializers that are also graph inputs as constants (from IR 4 on they are
    /// defaults a caller may override, so by default only their types are used). Findings that
    /// depend on their values say so.
    #[arg(long)]
    pub(super) initializers_as_constants: bool,
    /// Findings shown per model (default 1000; 0 shows all): the others are counted per code,
    /// still fail the run, and cost no memory or output.
    #[arg(long, value_name = "N")]
    pub(super) max_findings: Option<usize>,
    /// The largest dim a real input reaches (default 1000000000): a condition that fails only
    /// for a dim beyond it (`seq ≤ 1000000000`, Keras' "no limit") is not reported.
    #[arg(long, value_name = "N")]
    pub(super) size_limit: Option<NonZeroU64>,
    /// Threads for everything: files in parallel, a large model's nodes decoded ahead, reports
    /// rendered (default: all cores).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub(super) jobs: Option<usize>,
    /// Print only the findings that fail the run (errors; warnings too with `--deny warnings`)
    /// and the summary line.
    #[arg(short, long)]
    pub(super) quiet: bool,
    /// Use this configuration file for every model, instead of the nearest
    /// `onnx-bcast-lint.toml` or `pyproject.toml` `[tool.onnx-bcast-lint]` above each one.
    #[arg(long, value_name = "PATH", conflicts_with = "isolated")]
    pub(super) config: Option<PathBuf>,
    /// Ignore every configuration file.
    #[arg(long)]
    pub(super) isolated: bool,
    /// Accept the findings listed in FILE (written by --write-baseline): only new ones are
    /// reported and fail the run.
    #[arg(long, value_name = "FILE")]
    pub(super) baseline: Option<PathBuf>,
    /// Write every current finding to FILE (sorted, one per line) and accept them for this run.
    #[arg(long, value_name = "FILE")]
    pub(super) write_baseline: Option<PathBuf>,
    /// Directory the SARIF artifact URIs are relative to (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub(super) sarif_root: Option<PathBuf>,
    /// Write a copy of the (one) model whose `value_info` holds every inferred shape, symbolic
    /// dims as `dim_param` expressions; weights are copied byte for byte, the input is only read.
    #[arg(long, value_name = "OUT.onnx")]
    pub(super) write_shapes: Option<PathBuf>,
    /// Print each stage's wall time to standard error (for `bench/run.sh`).
    #[arg(long, hide = true)]
    pub(super) timings: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub(super) enum FormatArg {
    Human,
    Json,
    Sarif,
    Concise,
    Github,
    Junit,
    Html,
}

fn parse_binding(text: &str) -> Result<(String, i64), String> {
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got `{text}`"))?;
    let value: i64 = value
        .trim()
        .parse()
        .map_err(|_| format!("`{value}` is not an integer"))?;
    if value < 0 {
        return Err(format!("a dim cannot be negative ({value})"));
    }
    Ok((name.trim().to_owned(), value))
}

fn parse_code(text: &str) -> Result<Code, String> {
    Code::parse(text.trim()).ok_or_else(|| {
        let known: Vec<&str> = Code::ALL.iter().map(|c| c.as_str()).collect();
        format!("unknown code `{text}` ({})", known.join(", "))
    })
}

/// The flags as settings layered over the configuration files'.
pub(super) fn flag_settings(cli: &Cli) -> Settings {
    let mut settings = Settings::default();
    if !cli.allow.is_empty() {
        settings.allow = Some(cli.allow.iter().map(|c| CodeName(*c)).collect());
    }
    if cli.deny.iter().any(|d| d == "warnings") {
        settings.deny_warnings = Some(true);
    }
    if cli.initializers_as_constants {
        settings.initializers_as_constants = Some(true);
    }
    if let Some(max) = cli.max_findings {
        settings.max_findings = Some(max);
    }
    if let Some(limit) = cli.size_limit {
        settings.size_limit = Some(limit);
    }
    if !cli.dims.is_empty() {
        settings.dims = Some(
            cli.dims
                .iter()
                .map(|(name, value)| (name.clone(), DimValue(*value)))
                .collect(),
        );
    }
    settings
}
