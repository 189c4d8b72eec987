//! The library entry points: lint a model given as a path, as bytes, or already decoded, and get
//! the findings and every inferred shape back. No printing, no exit, no global state.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::bind;
use crate::check::{self, CheckOptions};
use crate::diag::{Code, Finding};
use crate::error::{Limits, LoadError};
use crate::infer::{self, Inference};
use crate::model::{self, LoadTimes, Model};
use crate::proto::ModelProto;
use crate::shape::{Binding, Shape};

/// Options of a lint run, built with [`Options::new`] and its `with_*` methods.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Options {
    checks: CheckOptions,
    limits: Limits,
    assumptions: infer::Assumptions,
}

impl Options {
    /// Default options: no symbol bound, every code reported, default limits.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds a symbolic dim to a value (one deployment configuration), so that conditions on it
    /// become definite.
    #[must_use]
    pub fn with_dim(mut self, name: &str, value: i64) -> Self {
        self.checks.binding.insert(name.to_owned(), value);
        self
    }

    /// Does not report findings of `code`.
    #[must_use]
    pub fn allow(mut self, code: Code) -> Self {
        self.checks.allowed.insert(code);
        self
    }

    /// Replaces the resource limits.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Treats initializers that are also graph inputs as constants (`--initializers-as-constants`).
    ///
    /// From IR version 4 on, an initializer listed among the graph inputs is a default the caller
    /// may override, so by default the engine knows only its type (before IR 4 it is a constant
    /// in any case). Models exported with their weights and shape constants as inputs lose
    /// every dim after their first computed `Reshape` that way; with this option their stored
    /// values are used, and findings that depend on them say so in their help.
    #[must_use]
    pub fn with_initializers_as_constants(mut self, yes: bool) -> Self {
        self.assumptions.initializers_as_constants = yes;
        self.checks.initializers_as_constants = yes;
        self
    }

    /// The symbol binding.
    pub fn binding(&self) -> &Binding {
        &self.checks.binding
    }

    /// Whether initializers that are also graph inputs are taken as constants.
    pub fn initializers_as_constants(&self) -> bool {
        self.assumptions.initializers_as_constants
    }
}

/// The result of linting one model: its findings, and the shapes and counts a caller reads
/// through accessors (the loaded model and its inference stay inside the crate, so their
/// representation can change without breaking callers).
#[derive(Debug)]
#[non_exhaustive]
pub struct LintReport {
    /// The loaded model (graphs, nodes, values).
    pub(crate) model: Model,
    /// Every inferred shape, per graph and value.
    pub(crate) inference: Inference,
    /// Findings in graph order.
    pub findings: Vec<Finding>,
    /// Every symbol the main graph's inputs declare, before `--dim` bindings: `dim_param`
    /// names and `input:axis` for axes declared without a size or a name (what
    /// [`Options::with_dim`] can bind).
    pub declared_dims: BTreeSet<String>,
}

impl LintReport {
    /// Whether any finding is an error.
    pub fn has_errors(&self) -> bool {
        self.findings
            .iter()
            .any(|f| f.severity() == crate::diag::Severity::Error)
    }

    /// `(value name, inferred shape)` for every value of the main graph, in value order.
    pub fn main_shapes(&self) -> impl Iterator<Item = (&str, &Shape)> {
        let graph = self.model.main();
        let facts = self.inference.graphs.first();
        graph.into_iter().flat_map(move |graph| {
            graph
                .values
                .iter()
                .enumerate()
                .filter_map(move |(i, value)| {
                    let shape = &facts?.values.get(i)?.shape;
                    Some((&*value.name, shape))
                })
        })
    }

    /// The entry counts of the model, as the JSON output's `stats` gives them.
    pub fn stats(&self) -> Stats {
        let main = self.model.main();
        Stats {
            graphs: self.model.graphs.len(),
            nodes: main.map_or(0, |g| g.nodes.len()),
            initializers: main.map_or(0, |g| g.counts.initializers),
            sparse_initializers: main.map_or(0, |g| g.counts.sparse_initializers),
            value_info: main.map_or(0, |g| g.counts.value_info),
            values: main.map_or(0, |g| g.values.len()),
        }
    }

    /// `(value name, inferred shape)` for every value of the graph at `path` (`main`,
    /// `main/<node>/then_branch`, `function/<domain>/<name>`: the paths findings name), in value
    /// order; empty if no graph has that path.
    pub fn graph_shapes<'r>(&'r self, path: &str) -> impl Iterator<Item = (&'r str, &'r Shape)> {
        let graph = self.model.graphs.iter().find(|graph| graph.path == path);
        let facts = graph.and_then(|graph| self.inference.graph(graph.id));
        graph.into_iter().flat_map(move |graph| {
            graph
                .values
                .iter()
                .enumerate()
                .filter_map(move |(i, value)| {
                    let shape = &facts?.values.get(i)?.shape;
                    Some((&*value.name, shape))
                })
        })
    }

    /// The inferred shape of a main-graph value.
    pub fn shape(&self, name: &str) -> Option<&Shape> {
        let id = self.model.main()?.lookup(name)?;
        Some(
            &self
                .inference
                .graphs
                .first()?
                .values
                .get(id.0 as usize)?
                .shape,
        )
    }
}

/// Lints the model at `path` (`-` for standard input). The file is memory-mapped; weights are
/// never copied.
pub fn lint_path(path: &Path, options: &Options) -> Result<LintReport, LoadError> {
    let loaded = model::load_path(path, options.limits)?;
    Ok(lint_loaded(loaded, options))
}

/// Entry counts of a linted model ([`LintReport::stats`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Graphs: the main graph, subgraphs and function bodies.
    pub graphs: usize,
    /// Nodes of the main graph.
    pub nodes: usize,
    /// `initializer` entries of the main graph.
    pub initializers: usize,
    /// `sparse_initializer` entries of the main graph.
    pub sparse_initializers: usize,
    /// `value_info` entries of the main graph.
    pub value_info: usize,
    /// Values the main graph names (inputs, initializers, node outputs).
    pub values: usize,
}

/// Wall time of each stage of one lint run (the benchmark's hidden `--timings` flag).
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct Timings {
    /// Reading, scanning, decoding and graph building.
    pub load: LoadTimes,
    /// Shape propagation.
    pub infer: Duration,
    /// Every check, findings sorted.
    pub check: Duration,
}

/// [`lint_path`], also returning the time of each stage.
///
/// ```
/// use onnx_bcast_lint::{lint_path_timed, Options};
/// let (report, timings) = lint_path_timed(
///     std::path::Path::new("../tests/models/w1_symbolic.onnx"),
///     &Options::new(),
/// );
/// let report = report?;
/// assert_eq!(report.findings[0].code.as_str(), "W1"); // valid only if seq is 1 or 77
/// println!("inference took {:?}", timings.infer);
/// # Ok::<(), onnx_bcast_lint::LoadError>(())
/// ```
pub fn lint_path_timed(path: &Path, options: &Options) -> (Result<LintReport, LoadError>, Timings) {
    let mut timings = Timings::default();
    let report =
        model::load_path_timed(path, options.limits, &mut timings.load).map(|mut model| {
            let declared_dims = bind::declared_symbols(&model);
            bind::bind(&mut model, options.binding());
            let start = Instant::now();
            let inference = check::infer_settled(
                &model,
                &options.limits,
                options.assumptions,
                &options.checks,
            );
            timings.infer = start.elapsed();
            let start = Instant::now();
            let findings = check::run(&model, &inference, &options.checks);
            timings.check = start.elapsed();
            LintReport {
                model,
                inference,
                findings,
                declared_dims,
            }
        });
    (report, timings)
}

/// Lints a model held in memory; `name` only labels errors.
///
/// ```
/// use onnx_bcast_lint::{lint_bytes, Options};
/// let bytes = std::fs::read("../tests/models/e1_static_mismatch.onnx")?;
/// let report = lint_bytes(bytes.into(), std::path::Path::new("upload.onnx"), &Options::new())?;
/// let finding = &report.findings[0];
/// assert_eq!(finding.code.as_str(), "E1");
/// println!("{finding}"); // error[E1]: ...
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lint_bytes(bytes: Bytes, name: &Path, options: &Options) -> Result<LintReport, LoadError> {
    let loaded = model::load_bytes(bytes, name, options.limits)?;
    Ok(lint_loaded(loaded, options))
}

/// Lints an already decoded model (a converter's in-memory `ModelProto`). Findings carry no byte
/// ranges.
///
/// The crate re-exports the protobuf types and prost's `Message`, so a caller needs no prost of
/// its own:
///
/// ```
/// use onnx_bcast_lint::proto::{Message, ModelProto};
/// use onnx_bcast_lint::{lint_model, Options};
/// let bytes = std::fs::read("../tests/models/w1_symbolic.onnx")?;
/// let proto = ModelProto::decode(bytes.as_slice())?;
/// let report = lint_model(proto, &Options::new().with_dim("batch", 1))?;
/// assert!(!report.has_errors());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lint_model(proto: ModelProto, options: &Options) -> Result<LintReport, LoadError> {
    let loaded = model::load_proto(proto, options.limits)?;
    Ok(lint_loaded(loaded, options))
}

fn lint_loaded(mut model: Model, options: &Options) -> LintReport {
    // Bound before inference: one deployment's sizes are what every stage sees.
    let declared_dims = bind::declared_symbols(&model);
    bind::bind(&mut model, options.binding());
    let inference = check::infer_settled(
        &model,
        &options.limits,
        options.assumptions,
        &options.checks,
    );
    let findings = check::run(&model, &inference, &options.checks);
    LintReport {
        model,
        inference,
        findings,
        declared_dims,
    }
}
