//! `onnx_bcast_lint._native`: the Python package's bridge to the engine. It runs the library
//! (and the command) with the GIL released and every panic caught; the Python layer
//! (`python/onnx_bcast_lint/__init__.py`) turns what it returns into the public API: argument
//! checking, `Report`, `Finding`, `LoadError`, `LintError`.

use std::ffi::OsString;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use bytes::Bytes;
use onnx_bcast_lint::cli::{self, Teardown};
use onnx_bcast_lint::diag::{Declared, DimProvenance, InputSite, NodeSite, StatedShape, Step};
use onnx_bcast_lint::report::{html, human, json, sarif, FileReport};
use onnx_bcast_lint::{
    lint_bytes, lint_path, unknown_dims, Code, Finding, Limits, LintReport, LoadError, Options,
};
use onnx_bcast_lint::{Dim, Shape};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;

// The engine makes millions of small, short-lived allocations on large models; mimalloc makes
// them several times cheaper than the system allocator (as for the command, issue 6). It serves
// this extension's Rust code only, not the interpreter.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Runs `work` with the GIL released, turning a panic into a `RuntimeError` instead of
/// unwinding into the interpreter.
fn guarded<T: Send>(py: Python<'_>, work: impl FnOnce() -> T + Send) -> PyResult<T> {
    py.detach(|| catch_unwind(AssertUnwindSafe(work)))
        .map_err(|payload| {
            let what = payload
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_owned());
            PyRuntimeError::new_err(format!(
                "onnx-bcast-lint: internal error (the engine panicked: {what}); \
                 please report it with the model"
            ))
        })
}

/// The options as the Python layer passes them, already validated: dim bindings, allowed
/// codes, limits `(max_depth, max_rank, max_nodes)`, initializers taken as constants, the
/// findings cap (0: none).
type PyOptions = (
    Vec<(String, i64)>,
    Vec<String>,
    Option<(usize, usize, usize)>,
    bool,
    usize,
);

/// Builds the engine's options from what the Python layer has already validated.
fn options(
    (dims, allow, limits, initializers_as_constants, max_findings): PyOptions,
) -> PyResult<Options> {
    let mut options = Options::new()
        .with_initializers_as_constants(initializers_as_constants)
        .with_max_findings(max_findings);
    for (name, value) in dims {
        options = options.with_dim(&name, value);
    }
    for text in &allow {
        let code = Code::parse(text)
            .ok_or_else(|| PyValueError::new_err(format!("unknown code `{text}`")))?;
        options = options.allow(code);
    }
    if let Some((max_depth, max_rank, max_nodes)) = limits {
        options = options.with_limits(
            Limits::default()
                .with_max_depth(max_depth)
                .with_max_rank(max_rank)
                .with_max_nodes(max_nodes),
        );
    }
    Ok(options)
}

/// One model to lint: a file (memory-mapped) or bytes held by Python (not copied).
enum Source {
    Path(PathBuf),
    Bytes(Bytes),
}

impl Source {
    fn lint(self, label: &str, options: &Options) -> Result<LintReport, LoadError> {
        match self {
            Source::Path(path) => lint_path(&path, options),
            Source::Bytes(bytes) => lint_bytes(bytes, Path::new(label), options),
        }
    }
}

fn source(is_path: bool, model: &Bound<'_, PyAny>) -> PyResult<Source> {
    if is_path {
        Ok(Source::Path(model.extract()?))
    } else {
        // The report's weights stay slices of the Python `bytes` object, which it keeps alive.
        let data: PyBackedBytes = model.extract()?;
        Ok(Source::Bytes(Bytes::from_owner(data)))
    }
}

/// The engine's report for one model, or why it could not be read.
#[pyclass(module = "onnx_bcast_lint._native", frozen)]
struct NativeReport {
    file: FileReport,
}

fn dim_py<'py>(py: Python<'py>, dim: &Dim) -> PyResult<Bound<'py, PyAny>> {
    Ok(match dim {
        Dim::Known(size) => size.into_pyobject(py)?.into_any(),
        Dim::Sym(_) => dim.to_string().into_pyobject(py)?.into_any(),
        Dim::Unknown => py.None().into_bound(py),
    })
}

fn shape_py<'py>(py: Python<'py>, shape: &Shape) -> PyResult<Bound<'py, PyAny>> {
    match shape.dims() {
        None => Ok(py.None().into_bound(py)),
        Some(dims) => {
            let list = PyList::empty(py);
            for dim in dims {
                list.append(dim_py(py, dim)?)?;
            }
            Ok(list.into_any())
        }
    }
}

/// A shape cut to `shape-dims`, with the JSON's keys: `{rank, dims, axes, left_out}`, `dims`
/// the leading stated dims, `axes` the others as `{axis, dim}`.
fn cut_shape_py<'py>(py: Python<'py>, shape: &StatedShape) -> PyResult<Bound<'py, PyDict>> {
    let dims = PyList::empty(py);
    let axes = PyList::empty(py);
    for (i, (axis, dim)) in shape.stated().enumerate() {
        if axis == i && axes.is_empty() {
            dims.append(dim_py(py, dim)?)?;
        } else {
            let entry = PyDict::new(py);
            entry.set_item("axis", axis)?;
            entry.set_item("dim", dim_py(py, dim)?)?;
            axes.append(entry)?;
        }
    }
    let dict = PyDict::new(py);
    dict.set_item("rank", shape.rank())?;
    dict.set_item("dims", dims)?;
    dict.set_item("axes", axes)?;
    dict.set_item("left_out", shape.left_out())?;
    Ok(dict)
}

/// One input of a finding: `{name, shape, value, provenance, declared}` (see `provenance_py`
/// and `declared_py`).
fn input_py<'py>(py: Python<'py>, input: &InputSite) -> PyResult<Bound<'py, PyDict>> {
    let provenance = PyList::empty(py);
    for dim in &input.provenance {
        provenance.append(provenance_py(py, dim)?)?;
    }
    let declared = PyList::empty(py);
    for dim in &input.declared {
        declared.append(declared_py(py, dim)?)?;
    }
    let dict = PyDict::new(py);
    dict.set_item("name", &input.name)?;
    // A shape cut to `shape-dims` is given as the JSON gives it (`{"rank", "dims", "axes",
    // "left_out"}`).
    match input.shape.whole() {
        Some(shape) => dict.set_item("shape", shape_py(py, shape)?)?,
        None => dict.set_item("shape", cut_shape_py(py, &input.shape)?)?,
    }
    dict.set_item("value", input.value.as_deref())?;
    dict.set_item("provenance", provenance)?;
    dict.set_item("declared", declared)?;
    Ok(dict)
}

/// One dim that rests on a declared size, with the JSON's `declared` entry's keys: `{axis,
/// dim, declaration}`, `declaration` being `{graph, name, axis, dim}`.
fn declared_py<'py>(py: Python<'py>, dim: &Declared) -> PyResult<Bound<'py, PyDict>> {
    let declaration = PyDict::new(py);
    declaration.set_item("graph", &dim.graph)?;
    declaration.set_item("name", &dim.name)?;
    declaration.set_item("axis", dim.declared_axis)?;
    declaration.set_item("dim", dim_py(py, &dim.declared_dim)?)?;
    let dict = PyDict::new(py);
    dict.set_item("axis", dim.axis)?;
    dict.set_item("dim", dim_py(py, &dim.dim)?)?;
    dict.set_item("declaration", declaration)?;
    Ok(dict)
}

/// One traced dim with the JSON's `provenance` entry's keys: `{axis, dim, source, steps,
/// nodes}`, `source` being `{kind, graph, name, axis, dim}` and each step as `step_py` has it.
fn provenance_py<'py>(py: Python<'py>, dim: &DimProvenance) -> PyResult<Bound<'py, PyDict>> {
    let source = &dim.source;
    let steps = PyList::empty(py);
    for step in &dim.steps {
        steps.append(step_py(py, step)?)?;
    }
    let origin = PyDict::new(py);
    origin.set_item("kind", source.kind.as_str())?;
    origin.set_item("graph", &source.graph)?;
    origin.set_item("name", &source.name)?;
    origin.set_item("axis", source.axis)?;
    origin.set_item("dim", dim_py(py, &source.dim)?)?;
    let dict = PyDict::new(py);
    dict.set_item("axis", dim.axis)?;
    dict.set_item("dim", dim_py(py, &dim.dim)?)?;
    dict.set_item("source", origin)?;
    dict.set_item("steps", steps)?;
    dict.set_item("nodes", dim.nodes)?;
    Ok(dict)
}

/// One step of a chain: `{graph, index, name, op_type, attributes, output, axis, dim}`,
/// `attributes` a list of `(attribute, value)` pairs in the engine's order.
fn step_py<'py>(py: Python<'py>, step: &Step) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("graph", &step.graph)?;
    dict.set_item("index", step.index)?;
    dict.set_item("name", &step.name)?;
    dict.set_item("op_type", &step.op_type)?;
    dict.set_item("attributes", step.attributes.clone())?;
    dict.set_item("output", &step.output)?;
    dict.set_item("axis", step.axis)?;
    dict.set_item("dim", dim_py(py, &step.dim)?)?;
    Ok(dict)
}

/// The node a finding is about: `{graph, index, name, op_type, domain, start, end}`, `start`
/// and `end` its `NodeProto`'s byte range (equal when unknown).
fn node_py<'py>(py: Python<'py>, node: &NodeSite) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("graph", &node.graph)?;
    dict.set_item("index", node.index)?;
    dict.set_item("name", &node.name)?;
    dict.set_item("op_type", &node.op_type)?;
    dict.set_item("domain", &node.domain)?;
    dict.set_item("start", node.span.start)?;
    dict.set_item("end", node.span.end)?;
    Ok(dict)
}

/// One finding: `{code, severity, message, help, node, inputs, facts, fingerprint}`, `node`
/// being `None` or as `node_py` has it, `inputs` a list as `input_py` has them, `facts` the
/// JSON output's `facts` object as JSON text (the Python side decodes it: one format for both)
/// and `fingerprint` the JSON's `fingerprint`.
fn finding_py<'py>(py: Python<'py>, finding: &Finding) -> PyResult<Bound<'py, PyDict>> {
    let inputs = PyList::empty(py);
    for input in &finding.inputs {
        inputs.append(input_py(py, input)?)?;
    }
    let dict = PyDict::new(py);
    dict.set_item("code", finding.code.as_str())?;
    dict.set_item("severity", finding.severity().as_str())?;
    dict.set_item("message", &finding.message)?;
    dict.set_item("help", finding.help.as_deref())?;
    match &finding.node {
        None => dict.set_item("node", py.None())?,
        Some(node) => dict.set_item("node", node_py(py, node)?)?,
    }
    dict.set_item("inputs", inputs)?;
    dict.set_item(
        "facts",
        onnx_bcast_lint::report::json::facts_json(finding).to_string(),
    )?;
    dict.set_item("fingerprint", finding.fingerprint().as_str())?;
    Ok(dict)
}

impl NativeReport {
    fn report(&self) -> Option<&LintReport> {
        self.file.outcome.as_ref().ok()
    }
}

#[pymethods]
impl NativeReport {
    /// The path or label the report names.
    #[getter]
    fn path(&self) -> &str {
        &self.file.path
    }

    /// `None`, or `(code, message, offset)` when the model could not be read. (A bound dim the
    /// model does not declare is not a read error: see `unknown_dims`.)
    fn error(&self) -> Option<(&'static str, String, Option<usize>)> {
        let error = self.file.outcome.as_ref().err()?;
        if let LoadError::UnknownDims { .. } = error {
            return None;
        }
        let offset = match error {
            LoadError::Decode { offset, .. } | LoadError::Limit { offset, .. } => Some(*offset),
            _ => None,
        };
        Some((error.code(), error.to_string(), offset))
    }

    /// The sentence for each bound dim the model does not declare (empty unless the library
    /// refused the model for them).
    fn unknown_dims(&self) -> Vec<String> {
        match &self.file.outcome {
            Err(LoadError::UnknownDims { dims, .. }) => {
                dims.iter().map(ToString::to_string).collect()
            }
            _ => Vec::new(),
        }
    }

    /// Every finding as a dict of named fields (see `finding_py`).
    fn findings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        let Some(report) = self.report() else {
            return Ok(list);
        };
        for finding in report.findings() {
            list.append(finding_py(py, finding)?)?;
        }
        Ok(list)
    }

    /// `{code: count}` of the findings over the cap, in the codes' order (empty under it).
    fn omitted<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        if let Some(report) = self.report() {
            for (code, n) in report.omitted().iter() {
                dict.set_item(code.as_str(), n)?;
            }
        }
        Ok(dict)
    }

    /// `{value name: shape}` for every value of the main graph, in value order.
    fn shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        if let Some(report) = self.report() {
            for (name, shape) in report.main_shapes() {
                dict.set_item(name, shape_py(py, shape)?)?;
            }
        }
        Ok(dict)
    }

    /// `(found, shape)` for one main-graph value.
    fn shape<'py>(&self, py: Python<'py>, name: &str) -> PyResult<(bool, Bound<'py, PyAny>)> {
        match self.report().and_then(|report| report.shape(name)) {
            None => Ok((false, py.None().into_bound(py))),
            Some(shape) => Ok((true, shape_py(py, shape)?)),
        }
    }

    /// Counts of the main graph, as in the JSON `stats`.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        if let Some(report) = self.report() {
            let stats = report.stats();
            dict.set_item("graphs", stats.graphs)?;
            dict.set_item("nodes", stats.nodes)?;
            dict.set_item("initializers", stats.initializers)?;
            dict.set_item("sparse_initializers", stats.sparse_initializers)?;
            dict.set_item("value_info", stats.value_info)?;
            dict.set_item("values", stats.values)?;
        }
        Ok(dict)
    }

    /// What `--format json` prints for this one file (with `--shapes` if `shapes`).
    fn to_json(&self, py: Python<'_>, shapes: bool) -> PyResult<String> {
        let file = std::slice::from_ref(&self.file);
        guarded(py, || printed(&json::render(file, shapes)))
    }

    /// What `--format sarif` prints for this one file.
    fn to_sarif(&self, py: Python<'_>) -> PyResult<String> {
        let file = std::slice::from_ref(&self.file);
        guarded(py, || printed(&sarif::render(file)))
    }

    /// The HTML report of this one file: the whole page (`--format html`) if `page`, else the
    /// fragment a notebook shows (the same markup, without `<html>` and `<head>`).
    fn html(&self, py: Python<'_>, page: bool) -> PyResult<String> {
        let file = std::slice::from_ref(&self.file);
        guarded(py, || {
            if page {
                html::render(file)
            } else {
                html::fragment(file)
            }
        })
    }

    /// The HTML fragment of the finding at `index` (as `findings` orders them), or `None`.
    fn finding_html(&self, py: Python<'_>, index: usize) -> PyResult<Option<String>> {
        guarded(py, || html::finding_fragment(&self.file, index))
    }

    /// What the human format prints for this one file (without the final newline).
    fn human(
        &self,
        py: Python<'_>,
        color: bool,
        width: usize,
        quiet: bool,
        shapes: bool,
    ) -> PyResult<String> {
        let file = std::slice::from_ref(&self.file);
        guarded(py, || {
            let style = human::Style {
                color,
                width,
                quiet,
            };
            let text = if shapes {
                human::render_with_shapes(file, style)
            } else {
                human::render(file, style)
            };
            text.trim_end().to_owned()
        })
    }
}

/// The command writes a document followed by one newline.
fn printed(document: &str) -> String {
    let mut text = document.trim_end().to_owned();
    text.push('\n');
    text
}

/// Lints one model: `is_path` says whether `model` is a path (memory-mapped) or `bytes`.
#[pyfunction]
#[pyo3(signature = (is_path, model, label, options))]
#[allow(clippy::needless_pass_by_value)] // pyo3 extracts arguments as owned values
fn lint(
    py: Python<'_>,
    is_path: bool,
    model: &Bound<'_, PyAny>,
    label: String,
    options: PyOptions,
) -> PyResult<NativeReport> {
    let options = self::options(options)?;
    let source = source(is_path, model)?;
    let file = guarded(py, move || FileReport {
        outcome: source.lint(&label, &options),
        path: label,
    })?;
    Ok(NativeReport { file })
}

/// Lints models in parallel on the engine's threads (`jobs` of them, or all cores); the
/// reports come back in the order given, with the sentence for each bound dim that no model
/// read declares. Each model is `(is_path, model, label)`.
#[pyfunction]
#[pyo3(signature = (models, jobs, options))]
#[allow(clippy::needless_pass_by_value)] // pyo3 extracts arguments as owned values
fn lint_many(
    py: Python<'_>,
    models: Vec<(bool, Bound<'_, PyAny>, String)>,
    jobs: Option<usize>,
    options: PyOptions,
) -> PyResult<(Vec<NativeReport>, Vec<String>)> {
    // Checked over the batch below, as the command checks `--dim`.
    let options = self::options(options)?.with_dims_checked(false);
    let names: Vec<String> = options.binding().keys().cloned().collect();
    let sources = models
        .iter()
        .map(|(is_path, model, label)| Ok((source(*is_path, model)?, label.clone())))
        .collect::<PyResult<Vec<_>>>()?;
    let files = guarded(py, move || {
        let run = || -> Vec<FileReport> {
            sources
                .into_par_iter()
                // One model per task, as the command does: sizes differ a lot.
                .with_max_len(1)
                .map(|(source, label)| FileReport {
                    outcome: source.lint(&label, &options),
                    path: label,
                })
                .collect()
        };
        match jobs {
            None => Ok(run()),
            Some(jobs) => rayon::ThreadPoolBuilder::new()
                .num_threads(jobs)
                .build()
                .map(|pool| pool.install(run))
                .map_err(|error| format!("cannot start {jobs} threads: {error}")),
        }
    })?
    .map_err(PyRuntimeError::new_err)?;
    let names = names.iter().map(String::as_str);
    let linted = files.iter().filter_map(|file| file.outcome.as_ref().ok());
    let unknown = unknown_dims(names, linted.map(LintReport::declared_dims));
    Ok((
        files
            .into_iter()
            .map(|file| NativeReport { file })
            .collect(),
        unknown.iter().map(ToString::to_string).collect(),
    ))
}

/// Runs the `onnx-bcast-lint` command with `argv` (program name first) and returns its exit
/// code. `leak` skips freeing the reports, for a process that ends right after.
#[pyfunction]
#[pyo3(signature = (argv, leak = false))]
fn main(py: Python<'_>, argv: Vec<OsString>, leak: bool) -> PyResult<u8> {
    let teardown = if leak { Teardown::Leak } else { Teardown::Free };
    guarded(py, move || cli::run(argv, teardown))
}

/// Panics inside the guard: lets the tests check that a panic becomes an exception.
#[pyfunction]
#[allow(clippy::panic)] // the one deliberate panic, which the tests catch
fn _panic_for_tests(py: Python<'_>, message: String) -> PyResult<()> {
    guarded(py, move || -> () { std::panic::panic_any(message) })
}

/// The extension module.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add("VERSION", env!("CARGO_PKG_VERSION"))?;
    module.add(
        "CODES",
        Code::ALL
            .iter()
            .map(|code| code.as_str())
            .collect::<Vec<_>>(),
    )?;
    module.add(
        "DEFAULT_MAX_FINDINGS",
        onnx_bcast_lint::DEFAULT_MAX_FINDINGS,
    )?;
    let limits = Limits::default();
    module.add(
        "DEFAULT_LIMITS",
        (limits.max_depth, limits.max_rank, limits.max_nodes),
    )?;
    module.add_class::<NativeReport>()?;
    module.add_function(wrap_pyfunction!(lint, module)?)?;
    module.add_function(wrap_pyfunction!(lint_many, module)?)?;
    module.add_function(wrap_pyfunction!(main, module)?)?;
    module.add_function(wrap_pyfunction!(_panic_for_tests, module)?)?;
    Ok(())
}
