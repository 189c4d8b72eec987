//! The library entry points: lint a model given as a path, as bytes, or already decoded, and get
//! the findings and every inferred shape back. No printing, no exit, no global state.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::bind;
use crate::check::{self, CheckOptions};
use crate::diag::omitted::Omitted;
use crate::diag::{Code, Finding, Severity};
use crate::error::{Limits, LoadError};
use crate::infer::pipeline::{self, Pipelined};
use crate::infer::{self, Inference};
use crate::model::{self, Graph, LoadTimes, Model};
use crate::proto::ModelProto;
use crate::settle;
use crate::shape::{Binding, Shape};
use crate::unknown_dim::unknown_dims;

/// Options of a lint run, built with [`Options::new`] and its `with_*` methods.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct Options {
    checks: CheckOptions,
    limits: Limits,
    assumptions: infer::Assumptions,
    /// Bound names the model does not declare are the caller's to check (a batch's).
    dims_unchecked: bool,
    max_findings: MaxFindings,
    pipeline: Pipeline,
    gate: Option<Gate>,
}

/// The command's gate ([`Options::with_gate`]): whether it will drop a finding.
#[derive(Clone)]
pub(crate) struct Gate(pub(crate) Arc<dyn Fn(&Finding) -> bool + Send + Sync>);

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Gate")
    }
}

/// Whether the main graph is inferred beside its building (`docs/design/overlap.md`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Pipeline {
    /// For a graph read from bytes and large enough to gain from it: the default since the
    /// pipeline keeps no second value table (`own_1m` idle, median of 9: 2.01 s -> 1.36 s, peak
    /// 1.50x -> 1.80x its file, within the 2x target; `docs/design/overlap.md`, "Third round").
    #[default]
    Auto,
    /// Never: inference after the build.
    #[cfg_attr(not(test), allow(dead_code))]
    Off,
    /// For a graph read from bytes whatever its size, with a chunk sealed every `batch`
    /// nodes (tests: the fixtures are small).
    #[cfg_attr(not(test), allow(dead_code))]
    Forced { batch: usize },
}

/// Findings kept per lint by default ([`Options::with_max_findings`]).
pub const DEFAULT_MAX_FINDINGS: usize = crate::limits::MAX_FINDINGS;

/// The findings cap: `None` keeps every finding.
#[derive(Debug, Clone, Copy)]
struct MaxFindings(Option<usize>);

impl Default for MaxFindings {
    fn default() -> Self {
        MaxFindings(Some(DEFAULT_MAX_FINDINGS))
    }
}

impl Options {
    /// Default options: no symbol bound, every code reported, default limits, at most
    /// [`DEFAULT_MAX_FINDINGS`] findings kept.
    pub fn new() -> Self {
        Self::default()
    }

    /// Binds a symbolic dim to a value (one deployment configuration), so that conditions on it
    /// become definite. `name` is a `dim_param` or `input:axis` for an axis declared without a
    /// size or a name ([`LintReport::declared_dims`] lists them): linting a model whose inputs
    /// do not declare it fails with [`LoadError::UnknownDims`], which names the closest declared
    /// ones, unless [`Options::with_dims_checked`] turns that off.
    ///
    /// ```
    /// use onnx_bcast_lint::{lint_path, LoadError, Options};
    /// let path = std::path::Path::new("tests/models/w1_symbolic.onnx");
    /// let error = lint_path(path, &Options::new().with_dim("sequence", 5)).unwrap_err();
    /// assert!(matches!(
    ///     &error,
    ///     LoadError::UnknownDims { dims, .. }
    ///         if dims.len() == 1 && dims[0].name == "sequence" && dims[0].closest == ["seq"]
    /// ));
    /// assert!(error.to_string().ends_with("did you mean `seq`? (declared: `batch`, `seq`)"));
    /// ```
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

    /// The largest dim size a real input is taken to reach: a condition that fails only for a
    /// dim above it (`tokens ≤ 1000000000`) is not reported. Default 10^9, just below 2^30:
    /// the "no limit" exporters write (Keras' `min(tokens, 1000000000)`) counts as none.
    ///
    /// ```
    /// use onnx_bcast_lint::{lint_path, Code, Options};
    /// // A 64-row position table: valid only if seq ≤ 64.
    /// let path = std::path::Path::new("tests/models/w1_position_table.onnx");
    /// // (A model that fails to load counts none, and the first assertion fails.)
    /// let w1s = |options: &Options| {
    ///     lint_path(path, options).map_or(0, |report| {
    ///         report.findings().iter().filter(|f| f.code == Code::W1).count()
    ///     })
    /// };
    /// assert_eq!(w1s(&Options::new()), 1);
    /// assert_eq!(w1s(&Options::new().with_size_limit(64)), 0);
    /// assert_eq!(w1s(&Options::new().with_size_limit(65)), 1);
    /// ```
    #[must_use]
    pub fn with_size_limit(mut self, limit: i64) -> Self {
        self.checks.size_limit = crate::check::SizeLimit(limit);
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

    /// Whether a lint refuses bound names the model does not declare ([`LoadError::UnknownDims`];
    /// the default). Turned off, such a name binds nothing and the lint goes on: for a caller
    /// that binds one set of names across many models, of which each need declare only some,
    /// and checks the whole batch with [`unknown_dims`](crate::unknown_dims), as the command
    /// does for `--dim`:
    ///
    /// ```
    /// use onnx_bcast_lint::{lint_path, unknown_dims, Options};
    /// let options = Options::new().with_dim("seq", 5).with_dims_checked(false);
    /// let reports = ["w1_symbolic.onnx", "e1_static_mismatch.onnx"]
    ///     .map(|name| lint_path(&std::path::Path::new("tests/models").join(name), &options));
    /// let linted: Vec<_> = reports.iter().flatten().collect();
    /// let names = options.binding().keys().map(String::as_str);
    /// assert!(unknown_dims(names, linted.iter().map(|r| r.declared_dims())).is_empty());
    /// ```
    #[must_use]
    pub fn with_dims_checked(mut self, yes: bool) -> Self {
        self.dims_unchecked = !yes;
        self
    }

    /// Keeps at most `max` findings per lint (`--max-findings`; `0` keeps every one; the
    /// default is [`DEFAULT_MAX_FINDINGS`]). The first `max` in graph order are kept, whatever
    /// the threads did; the others are never given a provenance or rendered, only counted per
    /// code ([`LintReport::omitted`]), and still count for [`LintReport::has_errors`]. A model
    /// built to raise a million findings then costs as little memory and output as one that
    /// raises a thousand.
    ///
    /// ```
    /// use onnx_bcast_lint::proto::{GraphProto, ModelProto, NodeProto, OperatorSetIdProto};
    /// use onnx_bcast_lint::{lint_model, Code, Options};
    /// // Three nodes without an op type: three E3 findings.
    /// let graph = GraphProto { node: vec![NodeProto::default(); 3], ..Default::default() };
    /// let opset = OperatorSetIdProto { domain: Some(String::new()), version: Some(18) };
    /// let model = ModelProto {
    ///     ir_version: Some(10),
    ///     opset_import: vec![opset],
    ///     graph: Some(graph),
    ///     ..Default::default()
    /// };
    /// let report = lint_model(model, &Options::new().with_max_findings(1))?;
    /// assert_eq!(report.findings().len(), 1);
    /// assert_eq!(report.omitted().of(Code::E3), 2);
    /// assert!(report.has_errors());
    /// # Ok::<(), onnx_bcast_lint::LoadError>(())
    /// ```
    #[must_use]
    pub fn with_max_findings(mut self, max: usize) -> Self {
        self.max_findings = MaxFindings((max > 0).then_some(max));
        self
    }

    /// Keeps every finding `gate` matches beside the cap, for the command's gate (`ignore`,
    /// baseline) to drop after the lint: the gate sees each finding it drops, and the cap counts
    /// only the others, so a model under a gate holds its cap's findings and the gate's, not
    /// every one.
    #[must_use]
    #[cfg(feature = "cli")]
    pub(crate) fn with_gate(mut self, gate: Gate) -> Self {
        self.gate = Some(gate);
        self
    }

    /// The findings cap: `None` when every finding is kept.
    pub fn max_findings(&self) -> Option<usize> {
        self.max_findings.0
    }

    /// Whether the main graph is inferred beside its building (tests force it on and off).
    #[cfg(test)]
    pub(crate) fn with_pipeline(mut self, pipeline: Pipeline) -> Self {
        self.pipeline = pipeline;
        self
    }

    /// Whether a lint refuses bound names the model does not declare.
    pub fn dims_checked(&self) -> bool {
        !self.dims_unchecked
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

/// The result of linting one model: its findings, the inferred shape of every value, and counts
/// of what the model declares. Read through accessors, so that the model's internal storage can
/// change without breaking callers.
///
/// ```
/// use onnx_bcast_lint::{lint_path, Options, Shape};
/// let report = lint_path(
///     std::path::Path::new("tests/models/ok_subgraphs.onnx"),
///     &Options::new(),
/// )?;
/// assert!(report.findings().is_empty());
/// assert_eq!(report.shape("if_out"), Some(&Shape::from_known(&[2, 3])));
/// // Subgraphs by path: `main/<node name>/<attribute>`.
/// let then_out = report.shape_in("main/if/then_branch", "then_out");
/// assert_eq!(then_out.map(ToString::to_string).as_deref(), Some("[2, 3]"));
/// assert_eq!(report.graph_paths().count(), report.stats().graphs);
/// # Ok::<(), onnx_bcast_lint::LoadError>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct LintReport {
    /// The loaded model (graphs, nodes, values).
    pub(crate) model: Model,
    /// Every inferred shape, per graph and value.
    pub(crate) inference: Inference,
    /// Findings in graph order (the command's gate drops the suppressed ones in place).
    pub(crate) findings: Vec<Finding>,
    /// Findings over the cap, counted per code.
    pub(crate) omitted: Omitted,
    /// Symbols the main graph's inputs declare, before bindings.
    pub(crate) declared_dims: BTreeSet<String>,
}

/// Counts of the main graph, as the JSON output's `stats` gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Stats {
    /// Graphs of the model: the main graph, every subgraph and every function body.
    pub graphs: usize,
    /// Nodes of the main graph.
    pub nodes: usize,
    /// `initializer` entries of the main graph.
    pub initializers: usize,
    /// `sparse_initializer` entries of the main graph.
    pub sparse_initializers: usize,
    /// `value_info` entries of the main graph.
    pub value_info: usize,
    /// Distinct values (inputs, initializers, node outputs) of the main graph.
    pub values: usize,
}

impl LintReport {
    /// Findings in graph order: by graph, node, then code; at most
    /// [`Options::with_max_findings`] of them.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The findings, taking them out of the report.
    pub fn into_findings(self) -> Vec<Finding> {
        self.findings
    }

    /// The findings over [`Options::with_max_findings`], which the report does not hold:
    /// how many of each code.
    pub fn omitted(&self) -> &Omitted {
        &self.omitted
    }

    /// Whether any finding is an error, the omitted ones included.
    pub fn has_errors(&self) -> bool {
        self.omitted.of_severity(Severity::Error) > 0
            || self
                .findings
                .iter()
                .any(|f| f.severity() == Severity::Error)
    }

    /// Keeps the first `max` findings and counts the others (the command caps a model whose
    /// findings it gates only after the gate, so that `ignore` and baselines see every one).
    #[cfg(feature = "cli")]
    pub(crate) fn cap(&mut self, max: Option<usize>) {
        crate::diag::omitted::cap(&mut self.findings, max, &mut self.omitted);
    }

    /// Every symbol the main graph's inputs declare, before [`Options::with_dim`] bindings:
    /// `dim_param` names and `input:axis` for axes declared without a size or a name (what
    /// [`Options::with_dim`] can bind).
    pub fn declared_dims(&self) -> &BTreeSet<String> {
        &self.declared_dims
    }

    /// Counts of the model and its main graph.
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

    /// The path of every graph, main graph first: `main`, `main/<node name>/then_branch`,
    /// `function/<domain>/<name>` (the `graph` of a finding's node names one of these).
    pub fn graph_paths(&self) -> impl Iterator<Item = &str> {
        self.model.graphs.iter().map(|graph| graph.path.as_str())
    }

    /// `(value name, inferred shape)` for every value of the main graph, in value order.
    pub fn main_shapes(&self) -> impl Iterator<Item = (&str, &Shape)> {
        self.model
            .main()
            .into_iter()
            .flat_map(|graph| self.shapes_of(graph))
    }

    /// `(value name, inferred shape)` for every value of the graph at `path` (one of
    /// [`LintReport::graph_paths`]), in value order; `None` if no graph has that path. Two
    /// subgraphs of nodes with the same name share a path: the first is given.
    pub fn graph_shapes(&self, path: &str) -> Option<impl Iterator<Item = (&str, &Shape)>> {
        Some(self.shapes_of(self.graph_at(path)?))
    }

    /// The inferred shape of a main-graph value.
    pub fn shape(&self, name: &str) -> Option<&Shape> {
        self.shape_of(self.model.main()?, name)
    }

    /// The inferred shape of the value `name` in the graph at `path` (one of
    /// [`LintReport::graph_paths`]).
    pub fn shape_in(&self, path: &str, name: &str) -> Option<&Shape> {
        self.shape_of(self.graph_at(path)?, name)
    }

    fn graph_at(&self, path: &str) -> Option<&Graph> {
        self.model.graphs.iter().find(|graph| graph.path == path)
    }

    fn shapes_of<'r>(&'r self, graph: &'r Graph) -> impl Iterator<Item = (&'r str, &'r Shape)> {
        let facts = self
            .inference
            .graph(graph.id)
            .map_or(&[][..], |f| &f.values);
        graph
            .values
            .iter()
            .zip(facts)
            .map(|(value, fact)| (graph.text(value.name), &*fact.shape))
    }

    fn shape_of<'r>(&'r self, graph: &'r Graph, name: &str) -> Option<&'r Shape> {
        let id = graph.lookup(name)?;
        Some(
            &self
                .inference
                .graph(graph.id)?
                .values
                .get(id.0 as usize)?
                .shape,
        )
    }
}

/// Lints the model at `path` (`-` for standard input). The file is memory-mapped; weights are
/// never copied.
pub fn lint_path(path: &Path, options: &Options) -> Result<LintReport, LoadError> {
    lint_path_timed(path, options).0
}

/// Wall time of each stage of one lint run (the command's hidden `--timings` flag, which the
/// benchmark reads).
#[derive(Debug, Clone, Copy, Default)]
#[non_exhaustive]
pub struct Timings {
    load: LoadTimes,
    infer: Duration,
    infer_beside: Duration,
    /// Whether the main graph was inferred beside its building.
    pipelined: bool,
    settle: Duration,
    check: Duration,
}

impl Timings {
    /// Opening and mapping the file (or reading standard input).
    pub fn read(&self) -> Duration {
        self.load.read
    }

    /// The wire-format pre-scan that locates decode errors and node byte ranges.
    pub fn scan(&self) -> Duration {
        self.load.scan
    }

    /// Decoding the protobuf.
    pub fn decode(&self) -> Duration {
        self.load.decode
    }

    /// Building the graphs (values, nodes, topological orders). When the main graph is
    /// inferred beside its building, this includes the builder's waits for the inference
    /// thread to take a chunk (it is then the slower), not its wait at the end
    /// ([`Timings::infer`]).
    pub fn graph(&self) -> Duration {
        self.load.graph
    }

    /// Shape propagation, once over the model, as far as it adds to the wall time: the whole
    /// run after the build, or, when the main graph is inferred beside its building
    /// ([`Timings::infer_beside`]), the wait for its last chunks once the build is done.
    pub fn infer(&self) -> Duration {
        self.infer
    }

    /// Shape propagation of the main graph beside its building: the inference thread's time
    /// spent inferring, overlapped with [`Timings::graph`] but for [`Timings::infer`]. Zero when
    /// inference ran after the build (a small graph, a body, a late input: see
    /// `docs/design/overlap.md`).
    pub fn infer_beside(&self) -> Duration {
        self.infer_beside
    }

    /// Settling: for each `If` whose branches give different shapes, inference and checks run
    /// again with either branch forced, and the model is inferred again with the branch kept
    /// (zero for a model without such an `If`).
    pub fn settle(&self) -> Duration {
        self.settle
    }

    /// Every check, findings sorted.
    pub fn check(&self) -> Duration {
        self.check
    }

    /// For a file whose pages are given back once its graphs are built: the process's resident
    /// file-backed memory (`RssFile`, kB, Linux) just before, which shows that weight payloads
    /// were never paged in.
    pub fn file_resident_kb(&self) -> Option<u64> {
        self.load.file_resident_kb
    }
}

/// [`lint_path`], also returning the time of each stage.
///
/// ```
/// use onnx_bcast_lint::{lint_path_timed, Options};
/// let (report, timings) = lint_path_timed(
///     std::path::Path::new("tests/models/w1_symbolic.onnx"),
///     &Options::new(),
/// );
/// let report = report?;
/// assert_eq!(report.findings()[0].code.as_str(), "W1"); // valid only if seq is 1 or 77
/// println!("inference took {:?}", timings.infer());
/// # Ok::<(), onnx_bcast_lint::LoadError>(())
/// ```
pub fn lint_path_timed(path: &Path, options: &Options) -> (Result<LintReport, LoadError>, Timings) {
    let mut timings = Timings::default();
    let report = load_inferring(options, &mut timings, |times, feed| {
        model::load_path_timed(path, options.limits, times, feed)
    })
    .and_then(|(model, early)| lint_loaded_timed(model, path, options, &mut timings, early));
    (report, timings)
}

/// Loads a model with `load`, inferring its main graph beside the builder unless `options`
/// rule it out: the inference thread's run, if the builder finished it.
fn load_inferring(
    options: &Options,
    timings: &mut Timings,
    load: impl FnOnce(&mut LoadTimes, Option<model::Feed>) -> Result<Model, LoadError>,
) -> Result<(Model, Option<Pipelined>), LoadError> {
    // A binding changes declarations after the build, which the inference thread has read.
    let forced_batch = match options.pipeline {
        _ if !options.binding().is_empty() => None,
        Pipeline::Off => None,
        Pipeline::Auto => Some(None),
        Pipeline::Forced { batch } => Some(Some(batch)),
    };
    let Some(forced_batch) = forced_batch else {
        return load(&mut timings.load, None).map(|model| (model, None));
    };
    let (feed, drain) = model::pipe(forced_batch);
    let (limits, assumptions) = (options.limits, options.assumptions);
    std::thread::scope(|scope| {
        let spawned = std::thread::Builder::new()
            .name("infer".into())
            .spawn_scoped(scope, move || {
                pipeline::consume(drain, &limits, assumptions)
            });
        // No thread to be had: inference after the build, as without a pipeline.
        let Ok(inferring) = spawned else {
            return load(&mut timings.load, None).map(|model| (model, None));
        };
        let loaded = load(&mut timings.load, Some(feed));
        // A panic of inference is the lint's, as when it runs after the build.
        let early = inferring
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        loaded.map(|model| (model, early))
    })
}

/// Lints a model held in memory; `name` only labels errors.
///
/// ```
/// use onnx_bcast_lint::{lint_bytes, Options};
/// let bytes = std::fs::read("tests/models/e1_static_mismatch.onnx")?;
/// let report = lint_bytes(bytes.into(), std::path::Path::new("upload.onnx"), &Options::new())?;
/// let finding = &report.findings()[0];
/// assert_eq!(finding.code.as_str(), "E1");
/// println!("{finding}"); // error[E1]: ...
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lint_bytes(bytes: Bytes, name: &Path, options: &Options) -> Result<LintReport, LoadError> {
    let mut timings = Timings::default();
    let (model, early) = load_inferring(options, &mut timings, |times, feed| {
        model::load_bytes_timed(bytes, name, options.limits, times, feed)
    })?;
    lint_loaded_timed(model, name, options, &mut timings, early)
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
/// let bytes = std::fs::read("tests/models/w1_symbolic.onnx")?;
/// let proto = ModelProto::decode(bytes.as_slice())?;
/// let report = lint_model(proto, &Options::new().with_dim("batch", 1))?;
/// assert!(!report.has_errors());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn lint_model(proto: ModelProto, options: &Options) -> Result<LintReport, LoadError> {
    let loaded = model::load_proto(proto, options.limits)?;
    lint_loaded(loaded, Path::new("<model>"), options)
}

/// [`lint_bytes`], and whether the main graph was inferred beside its building (tests).
#[cfg(test)]
pub(crate) fn lint_bytes_pipelined(
    bytes: Bytes,
    name: &Path,
    options: &Options,
) -> (Result<LintReport, LoadError>, bool) {
    let mut timings = Timings::default();
    let report = load_inferring(options, &mut timings, |times, feed| {
        model::load_bytes_timed(bytes, name, options.limits, times, feed)
    })
    .and_then(|(model, early)| lint_loaded_timed(model, name, options, &mut timings, early));
    (report, timings.pipelined)
}

fn lint_loaded(model: Model, path: &Path, options: &Options) -> Result<LintReport, LoadError> {
    lint_loaded_timed(model, path, options, &mut Timings::default(), None)
}

/// Binds, infers, settles and checks a loaded model, recording the time of each stage; refuses a
/// bound name the model does not declare unless the caller checks it. The stages run here one
/// after the other, each once: `bind -> infer -> settle -> check`; inference is only completed
/// when `early` ran it beside the build.
fn lint_loaded_timed(
    mut model: Model,
    path: &Path,
    options: &Options,
    timings: &mut Timings,
    early: Option<Pipelined>,
) -> Result<LintReport, LoadError> {
    let declared_dims = bind::declared_symbols(&model);
    if options.dims_checked() {
        let names = options.binding().keys().map(String::as_str);
        let dims = unknown_dims(names, [&declared_dims]);
        if !dims.is_empty() {
            return Err(LoadError::UnknownDims {
                path: path.to_path_buf(),
                dims,
            });
        }
    }
    // Bound before inference: one deployment's sizes are what every stage sees.
    let bound = check::bound_axes(&model, options.binding());
    bind::bind(&mut model, options.binding());
    let start = Instant::now();
    let inference = match early {
        Some(early) => {
            timings.infer_beside = early.busy();
            timings.pipelined = true;
            timings.infer = timings.load.waited;
            early.into_inference(&model)
        }
        None => infer::infer_assuming(&model, &options.limits, options.assumptions),
    };
    timings.infer += start.elapsed();
    let start = Instant::now();
    let (inference, settled) = settle::settle(
        &model,
        &options.limits,
        options.assumptions,
        &options.checks,
        inference,
    );
    timings.settle = start.elapsed();
    let start = Instant::now();
    let mut omitted = Omitted::default();
    let max = options.max_findings();
    let exempt = options
        .gate
        .as_ref()
        .map(|gate| &*gate.0 as check::Exempt<'_>);
    let mut findings = check::run_capped(
        &model,
        &inference,
        &options.checks,
        (max, exempt),
        &mut omitted,
        settled,
    );
    check::attribute(&mut findings, &bound);
    timings.check = start.elapsed();
    Ok(LintReport {
        model,
        inference,
        findings,
        omitted,
        declared_dims,
    })
}
