//! Errors for files that cannot be read or decoded, each with a stable `load/...` code, for a
//! bound dim the model does not declare (`usage/dim`), and the resource limits that protect the
//! linter from hostile files.

use std::path::PathBuf;

use crate::unknown_dim::UnknownDim;

/// Resource limits applied while loading and analysing a model. Exceeding one while loading is a
/// clean [`LoadError::Limit`], never a crash or an unbounded allocation; an inferred shape above
/// `max_rank` becomes an unknown rank.
///
/// Inference has fixed budgets besides these, each turning excess into unknowns, never errors:
/// value elements copied by data propagation (`infer::budget::MAX_VALUE_WORK`), re-inference of
/// function and loop bodies (a multiple of the model's size), and the size of symbolic
/// expressions (terms, nodes and degree, in `shape::expr`).
///
/// Built from [`Limits::default`] and its `with_*` methods (more limits may come):
///
/// ```
/// use onnx_bcast_lint::{Limits, Options};
/// let limits = Limits::default().with_max_rank(64).with_max_nodes(1_000_000);
/// assert_eq!((limits.max_rank, limits.max_depth), (64, Limits::default().max_depth));
/// let options = Options::new().with_limits(limits);
/// # let _ = options;
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Deepest nesting of protobuf messages (prost refuses more than 100 anyway).
    pub max_depth: usize,
    /// Largest rank of a tensor, a declared shape or an inferred shape.
    pub max_rank: usize,
    /// Most nodes in a model, all graphs and functions together.
    pub max_nodes: usize,
}

impl Limits {
    /// Replaces the deepest nesting of protobuf messages.
    #[must_use]
    pub fn with_max_depth(mut self, max_depth: usize) -> Self {
        self.max_depth = max_depth;
        self
    }

    /// Replaces the largest rank of a tensor or shape.
    #[must_use]
    pub fn with_max_rank(mut self, max_rank: usize) -> Self {
        self.max_rank = max_rank;
        self
    }

    /// Replaces the most nodes in a model, all graphs and functions together.
    #[must_use]
    pub fn with_max_nodes(mut self, max_nodes: usize) -> Self {
        self.max_nodes = max_nodes;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_depth: crate::limits::NESTING_DEPTH,
            max_rank: crate::limits::RANK,
            max_nodes: crate::limits::NODES,
        }
    }
}

/// A model that cannot be linted at all, or not as asked ([`LoadError::UnknownDims`]). The
/// command exits with code 2 for these. New kinds may be added.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
#[non_exhaustive]
pub enum LoadError {
    /// The file could not be opened or read.
    #[error("cannot read {path}: {source}")]
    #[diagnostic(code("load/io"), help("check the path and that the file can be read"))]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The path names a directory where a model file was expected.
    #[error("{path} is a directory, not an ONNX model")]
    #[diagnostic(
        code("load/directory"),
        help("a path named *.onnx is taken for a model; pass the folder it is in to search it")
    )]
    Directory {
        /// The directory.
        path: PathBuf,
    },
    /// The file has no bytes at all.
    #[error("{path} is empty (0 bytes)")]
    #[diagnostic(
        code("load/empty"),
        help("often a failed download, or a Git LFS file not fetched (`git lfs pull`)")
    )]
    Empty {
        /// The file.
        path: PathBuf,
    },
    /// The file is a Git LFS pointer: the text Git LFS leaves in a checkout in place of a
    /// model it did not fetch.
    #[error("{path} is a Git LFS pointer file, not the model: the model{} was not fetched", lfs_size(*.size))]
    #[diagnostic(
        code("load/lfs-pointer"),
        help(
            "fetch the model: `git lfs pull` (in GitHub Actions, `lfs: true` in actions/checkout)"
        )
    )]
    LfsPointer {
        /// The file.
        path: PathBuf,
        /// The size of the model it stands for, in bytes, as the pointer gives it.
        size: Option<u64>,
    },
    /// The bytes are not a valid `ModelProto`.
    #[error("{path}: not a valid ONNX protobuf at byte {offset} ({context}): {problem}")]
    #[diagnostic(
        code("load/decode"),
        help("the file is truncated, corrupt, or not an ONNX model")
    )]
    Decode {
        /// The file.
        path: PathBuf,
        /// Byte offset of the fault (0 when only the decoder saw it and could not place it).
        offset: usize,
        /// The message and field the fault is in.
        context: String,
        /// What is wrong.
        problem: String,
    },
    /// The file goes beyond one of the [`Limits`].
    #[error("{path}: {what} at byte {offset} exceeds the limit of {limit}")]
    #[diagnostic(
        code("load/limit"),
        help(
            "real models stay far below this; the file is corrupt or built to exhaust the linter"
        )
    )]
    Limit {
        /// The file.
        path: PathBuf,
        /// Which limit (`message nesting depth`, `rank`, `node count`).
        what: &'static str,
        /// The limit.
        limit: usize,
        /// Byte offset where the limit was passed.
        offset: usize,
    },
    /// A tensor whose dims are negative, or whose element count overflows.
    #[error("{path}: tensor `{tensor}` has invalid dims {dims:?}: {problem}")]
    #[diagnostic(
        code("load/dims"),
        help("every dim must be >= 0 and their product must fit in 64 bits: the file is corrupt or its exporter is faulty")
    )]
    InvalidDims {
        /// The file.
        path: PathBuf,
        /// The tensor's name.
        tensor: String,
        /// Its dims as stored.
        dims: Vec<i64>,
        /// `negative dim` or `element count overflows`.
        problem: &'static str,
    },
    /// Names bound with [`Options::with_dim`](crate::Options::with_dim) that no input of the
    /// model's main graph declares: a misspelled name would bind nothing, and the model would be
    /// checked without the deployment's sizes. Nothing is inferred.
    ///
    /// A caller that binds one set of names across many models turns this off with
    /// [`Options::with_dims_checked`](crate::Options::with_dims_checked) and checks the whole
    /// batch with [`unknown_dims`](crate::unknown_dims), as the command does for `--dim` (which
    /// it reports as a usage error, never as a file's error).
    #[error("{path}: {}", lines(dims))]
    #[diagnostic(
        code("usage/dim"),
        help(
            "bind only names the model's inputs declare (`LintReport::declared_dims` lists them)"
        )
    )]
    UnknownDims {
        /// The file (`<model>` for [`lint_model`](crate::lint_model)).
        path: PathBuf,
        /// Each name no input declares, in binding order, with the declared names closest to it.
        dims: Vec<UnknownDim>,
    },
}

/// One sentence per unknown dim, a line each.
fn lines(dims: &[UnknownDim]) -> String {
    dims.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

impl LoadError {
    /// The stable code, as printed in the JSON and SARIF output. (`usage/dim` never is: the
    /// command checks `--dim` over its whole batch and stops with a usage error before any
    /// output.)
    pub fn code(&self) -> &'static str {
        match self {
            LoadError::Io { .. } => "load/io",
            LoadError::Directory { .. } => "load/directory",
            LoadError::Empty { .. } => "load/empty",
            LoadError::LfsPointer { .. } => "load/lfs-pointer",
            LoadError::Decode { .. } => "load/decode",
            LoadError::Limit { .. } => "load/limit",
            LoadError::InvalidDims { .. } => "load/dims",
            LoadError::UnknownDims { .. } => "usage/dim",
        }
    }
}

/// ` (12345 bytes)`: the size a Git LFS pointer gives, if it gives one.
fn lfs_size(size: Option<u64>) -> String {
    size.map(|bytes| format!(" ({bytes} bytes)"))
        .unwrap_or_default()
}
