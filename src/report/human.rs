//! Human output: one miette report per finding, showing the node in a listing of its graph in
//! ONNX's textual syntax (as `onnx.printer.to_text` prints nodes), with a label under each
//! offending input giving its inferred shape (each label under the token it names), then one
//! summary line.

use std::fmt::Write as _;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan};

use super::numbered::Numbered;
use super::{FileReport, Totals};
use crate::diag::{Finding, Severity};
use crate::lint::LintReport;
use crate::model::{Graph, Node};

/// Lines of context shown before the offending node.
const CONTEXT_BEFORE: usize = 2;

/// How the human output looks.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Colours (only on a terminal, and never with `NO_COLOR`).
    pub color: bool,
    /// Text width.
    pub width: usize,
    /// Print only the summary and the errors.
    pub quiet: bool,
}

/// Renders every file's findings and the summary line.
pub fn render(files: &[FileReport], style: Style) -> String {
    render_gate(files, style, false)
}

/// [`render`] with every value's inferred shape ([`shapes`]) between the findings and the
/// summary line, which ends the text as it does without them (what `--shapes` prints).
pub fn render_with_shapes(files: &[FileReport], style: Style) -> String {
    super::stream::to_string(|out| {
        write_findings(out, files, style, &vec![false; files.len()])?;
        write_shapes(out, files)?;
        writeln!(out, "{}", Totals::of(files).summary())
    })
}

/// Writes [`shapes`] to `out`, if there are any, each line with its newline.
pub(crate) fn write_shapes(
    out: &mut dyn std::io::Write,
    files: &[FileReport],
) -> std::io::Result<()> {
    match shapes(files).trim_end() {
        "" => Ok(()),
        shapes => writeln!(out, "{shapes}"),
    }
}

/// [`render`] for a run where warnings fail too (`--deny warnings`): quiet output keeps them,
/// since it must still show every finding that failed the run.
pub(crate) fn render_gate(files: &[FileReport], style: Style, deny_warnings: bool) -> String {
    render_run(
        files,
        style,
        &vec![deny_warnings; files.len()],
        &Totals::of(files),
    )
}

/// [`render`] for the command ([`write_run`] into a string): `deny_warnings[i]` says whether
/// warnings fail the run in `files[i]` (a configuration may deny them for some models only),
/// and `totals` gives the summary line (with the counts of suppressed and baselined findings).
pub(crate) fn render_run(
    files: &[FileReport],
    style: Style,
    deny_warnings: &[bool],
    totals: &Totals,
) -> String {
    super::stream::to_string(|out| write_run(out, files, style, deny_warnings, totals))
}

/// [`render_run`] written to `out` finding by finding (the summary line ends it, with its
/// newline): a model can have millions of findings.
pub(crate) fn write_run(
    out: &mut dyn std::io::Write,
    files: &[FileReport],
    style: Style,
    deny_warnings: &[bool],
    totals: &Totals,
) -> std::io::Result<()> {
    write_findings(out, files, style, deny_warnings)?;
    writeln!(out, "{}", totals.summary())
}

/// [`write_run`] without the summary line: every file's load error or findings, finding by
/// finding, so that a caller can put more (the shapes) before the summary that ends the text.
pub(crate) fn write_findings(
    out: &mut dyn std::io::Write,
    files: &[FileReport],
    style: Style,
    deny_warnings: &[bool],
) -> std::io::Result<()> {
    let theme = if style.color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_width(style.width)
        // A path in the headline breaks between its segments, not inside one.
        .with_word_separator(textwrap::WordSeparator::Custom(
            super::width::words_and_segments,
        ))
        // A load error's message already ends with its cause (the OS error of `load/io`).
        .without_cause_chain();
    // One finding's text at a time, reused.
    let mut text = String::new();
    for (i, file) in files.iter().enumerate() {
        let deny_warnings = deny_warnings.get(i).copied().unwrap_or(false);
        match &file.outcome {
            // The error's own `Diagnostic`, so its help is shown with it.
            Err(error) => {
                text.clear();
                let _ = handler.render_report(&mut text, error);
                out.write_all(text.as_bytes())?;
            }
            Ok(report) => {
                for finding in &report.findings {
                    let fails = match finding.severity() {
                        Severity::Error => true,
                        Severity::Warning => deny_warnings,
                        Severity::Info => false,
                    };
                    if style.quiet && !fails {
                        continue;
                    }
                    text.clear();
                    render_finding(
                        &handler,
                        &mut text,
                        &file.path,
                        report,
                        finding,
                        style.width,
                    );
                    out.write_all(text.as_bytes())?;
                }
                let shows = |severity| {
                    !style.quiet
                        || severity == Severity::Error
                        || (severity == Severity::Warning && deny_warnings)
                };
                for line in super::omitted::lines(&report.omitted, &file.path, shows) {
                    writeln!(out, "{line}")?;
                }
            }
        }
    }
    Ok(())
}

fn render_finding(
    handler: &GraphicalReportHandler,
    out: &mut String,
    path: &str,
    report: &LintReport,
    finding: &Finding,
    width: usize,
) {
    let severity = match finding.severity() {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Info => miette::Severity::Advice,
    };
    let mut shown = Shown {
        message: format!("{path}: {}", finding.message),
        code: finding.code.as_str(),
        severity,
        help: finding.help.clone(),
        source: None,
        labels: Vec::new(),
    };
    let graph = finding
        .node
        .as_ref()
        .and_then(|site| report.model.graphs.iter().find(|g| g.path == site.graph));
    let listing = finding
        .node
        .as_ref()
        .zip(graph)
        .map(|(site, graph)| (site, listing(graph, site.index, finding)))
        .filter(|(_, listing)| fits(&listing.lines));
    if let Some((site, listing)) = listing {
        // One label per token: the op name for the node, each input's name for the input.
        // Labels never nest, so miette draws each under its token (its issues #135, #72).
        let node_label = if site.op_type.is_empty() {
            format!("node `{}`", site.name)
        } else {
            format!("{} node `{}`", site.op_type, site.name)
        };
        // Long exporter names: the listing and its labels cut to the width (`width.rs`). The
        // gutter holds the largest line number shown, as `Numbered` gives it to miette.
        let largest_line = listing.lines.last().map_or(1, |(number, _)| *number);
        let joined = listing
            .lines
            .iter()
            .map(|(_, line)| line.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let (text, labels) = super::width::fit_listing(
            &joined,
            std::iter::once((listing.node, node_label))
                .chain(listing.inputs)
                .collect(),
            width,
            super::width::gutter(largest_line),
        );
        let mut labels = labels.into_iter();
        shown.labels.extend(
            labels
                .next()
                .map(|(range, text)| LabeledSpan::new_primary_with_span(Some(text), range)),
        );
        shown
            .labels
            .extend(labels.map(|(range, text)| LabeledSpan::new_with_span(Some(text), range)));
        // Fitting cuts within lines and keeps every line: the numbers pair with them again.
        let fitted: Vec<(usize, String)> = listing
            .lines
            .iter()
            .map(|(number, _)| *number)
            .zip(text.split('\n').map(str::to_owned))
            .collect();
        shown.source = Some(Numbered::new(format!("{path} ({})", site.graph), &fitted));
    }
    let _ = handler.render_report(out, &shown);
    provenance_notes(out, finding, width);
    fingerprint_line(out, finding);
}

/// Characters up to which a listing line is drawn: miette lays a label out with Rust format
/// widths, which stop at 65,535 columns, and panicked on a label past them (a node with 10,000
/// inputs, or an output named with 66,000 characters). A wider listing is left out; the message
/// still names the node, the shapes and the axis. A character is at most three columns wide,
/// and a tab four.
const MAX_LISTING_LINE: usize = 4096;

/// Whether every line of a listing can be drawn ([`MAX_LISTING_LINE`]).
fn fits(listing: &[(usize, String)]) -> bool {
    listing
        .iter()
        .all(|(_, line)| line.chars().count() <= MAX_LISTING_LINE)
}

/// Where the offending dims come from (issue 17), one note per traced dim, wrapped to `width`.
fn provenance_notes(out: &mut String, finding: &Finding, width: usize) {
    for input in &finding.inputs {
        for dim in input
            .provenance
            .iter()
            .filter(|d| !d.is_trivial(&input.name))
        {
            for line in super::width::wrap(&dim.note(&input.name), width, "  note: ", "        ") {
                let _ = writeln!(out, "{line}");
            }
        }
    }
}

/// The finding's fingerprint under its report: what an `ignore` entry and a baseline name.
fn fingerprint_line(out: &mut String, finding: &Finding) {
    let _ = writeln!(out, "  fingerprint: {}", finding.fingerprint());
}

/// A finding as miette draws it: message, code, severity, help, and the listing of its graph
/// with one label for the node and one per offending input.
#[derive(Debug)]
struct Shown {
    message: String,
    code: &'static str,
    severity: miette::Severity,
    help: Option<String>,
    source: Option<Numbered>,
    labels: Vec<LabeledSpan>,
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Shown {}

impl Diagnostic for Shown {
    fn code<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(self.severity)
    }

    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn std::fmt::Display + 'a>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.source.as_ref().map(|s| s as &dyn miette::SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        (!self.labels.is_empty())
            .then(|| Box::new(self.labels.iter().cloned()) as Box<dyn Iterator<Item = LabeledSpan>>)
    }
}

/// A few lines of a graph in ONNX textual syntax, each with its number in the graph's whole
/// text form (as SARIF's `startLine`), and where the node and its inputs sit in them (byte
/// ranges in the lines joined by newlines).
struct Listing {
    lines: Vec<(usize, String)>,
    node: std::ops::Range<usize>,
    inputs: Vec<(std::ops::Range<usize>, String)>,
}

fn listing(graph: &Graph, index: usize, finding: &Finding) -> Listing {
    let mut lines = vec![(1, format!("{} {{", graph_name(graph)))];
    // Bytes of the lines so far, joined by newlines: where the next line starts.
    let mut len = lines.iter().map(|(_, line)| line.len() + 1).sum::<usize>();
    let mut node_span = 0..0;
    let mut inputs = Vec::new();
    let chain = chain_nodes(graph, index, finding);
    let mut shown: Vec<&Node> = if chain.is_empty() {
        graph
            .nodes
            .iter()
            .skip(index.saturating_sub(CONTEXT_BEFORE))
            .take(CONTEXT_BEFORE + 2)
            .collect()
    } else {
        chain
            .iter()
            .chain(std::iter::once(&index))
            .filter_map(|&i| graph.node(i))
            .collect()
    };
    // A chain node two lines before the next shown one: the node between them is shown too,
    // which keeps them in one snippet (the listing's lines keep their numbers, so a wider gap
    // parts the snippets).
    let between: Vec<usize> = shown
        .windows(2)
        .filter_map(|pair| match pair {
            [a, b] if a.index() + 2 == b.index() => Some(a.index() + 1),
            _ => None,
        })
        .collect();
    shown.extend(between.into_iter().filter_map(|i| graph.node(i)));
    shown.sort_by_key(|node| node.index());
    for node in shown {
        let start = len;
        let (mut line, op_span, input_spans) = node_line(graph, node);
        line.insert_str(0, "   ");
        if chain.contains(&node.index()) {
            line = with_attributes(line, finding, node.index());
            // A label under the op of each chain node: miette shows the lines that carry one.
            if let Some(text) = chain_label(finding, node.index()) {
                inputs.push((start + 3 + op_span.start..start + 3 + op_span.end, text));
            }
        }
        if node.index() == index {
            for input in finding.inputs.iter().filter(|i| i.offending) {
                if let Some(range) = input_spans.get(input.slot) {
                    inputs.push((
                        start + 3 + range.start..start + 3 + range.end,
                        match &input.value {
                            // Elements, written apart from the shape so they cannot be read
                            // as one: `target: [2] holding 2, 5`.
                            Some(value) => format!(
                                "{}: {} holding {}",
                                input.name,
                                input.shape,
                                value.trim_start_matches('[').trim_end_matches(']')
                            ),
                            None => format!("{}: {}", input.name, input.shape),
                        },
                    ));
                }
            }
            node_span = start + 3 + op_span.start..start + 3 + op_span.end;
        }
        len += line.len() + 1;
        lines.push((super::place::node_line(node.index()), line));
    }
    lines.push((super::place::node_line(graph.nodes.len()), "}".to_owned()));
    Listing {
        lines,
        node: node_span,
        inputs,
    }
}

/// Most chain nodes the listing shows (the ones nearest the finding's node).
const MAX_CHAIN_LINES: usize = 6;

/// The nodes of the finding's provenance chains that change a dim, in this graph, before the
/// finding's node, in file order: what made the clashing shapes.
fn chain_nodes(graph: &Graph, index: usize, finding: &Finding) -> Vec<usize> {
    let mut nodes: Vec<usize> = finding
        .inputs
        .iter()
        .flat_map(|input| &input.provenance)
        .flat_map(|dim| &dim.steps)
        .filter(|step| step.graph == graph.path && step.index < index)
        .map(|step| step.index)
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    let keep = nodes.len().saturating_sub(MAX_CHAIN_LINES);
    nodes.split_off(keep)
}

/// What a chain node makes: `makes axis 2 of `f1`: samples/5`.
fn chain_label(finding: &Finding, index: usize) -> Option<String> {
    let made: Vec<String> = finding
        .inputs
        .iter()
        .flat_map(|input| &input.provenance)
        .flat_map(|dim| &dim.steps)
        .filter(|step| step.index == index)
        .map(|step| format!("axis {} of `{}`: {}", step.axis, step.output, step.dim))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    (!made.is_empty()).then(|| format!("makes {}", made.join("; ")))
}

/// `y = Conv (x, w)  # strides = [2]`: what decides the dim a chain step makes, as a comment
/// (a Slice's `ends` is an input, not an attribute, so ONNX's `<...>` would misstate it).
fn with_attributes(mut line: String, finding: &Finding, index: usize) -> String {
    let step = finding
        .inputs
        .iter()
        .flat_map(|input| &input.provenance)
        .flat_map(|dim| &dim.steps)
        .find(|step| step.index == index && !step.attributes.is_empty());
    if let Some(step) = step {
        let _ = write!(line, "  # {}", step.attributes_text());
    }
    line
}

fn graph_name(graph: &Graph) -> &str {
    graph.path.rsplit('/').next().unwrap_or("main")
}

/// `y = Add (a, b)`, with the byte range of the op name and of each input name (by slot)
/// within the line.
fn node_line(
    graph: &Graph,
    node: &Node,
) -> (String, std::ops::Range<usize>, Vec<std::ops::Range<usize>>) {
    let outputs: Vec<&str> = node
        .outputs()
        .iter()
        .map(|v| v.map_or("", |v| graph.value_name(v)))
        .collect();
    let mut line = outputs.join(", ");
    line.push_str(" = ");
    let op_start = line.len();
    if !node.domain().is_empty() {
        line.push_str(node.domain());
        line.push('.');
    }
    line.push_str(node.op_type());
    let op_span = op_start..line.len();
    line.push_str(" (");
    let mut spans = Vec::with_capacity(node.inputs().len());
    for (slot, input) in node.inputs().iter().enumerate() {
        if slot > 0 {
            line.push_str(", ");
        }
        let name = input.map_or("", |v| graph.value_name(v));
        let start = line.len();
        line.push_str(name);
        spans.push(start..line.len());
    }
    line.push(')');
    (line, op_span, spans)
}

/// `--shapes`: every main-graph value's inferred shape, per file.
pub fn shapes(files: &[FileReport]) -> String {
    let mut out = String::new();
    for file in files {
        let Ok(report) = &file.outcome else { continue };
        let _ = writeln!(out, "\nshapes of {}:", file.path);
        for (name, shape) in report.main_shapes() {
            let _ = writeln!(out, "  {name}: {shape}");
        }
    }
    out
}
