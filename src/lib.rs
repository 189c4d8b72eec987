//! onnx-bcast-lint finds broadcasting bugs in ONNX models before they ship.
//!
//! Pipeline: `load -> graph -> infer -> check -> report`, each stage using only earlier ones.
//! - `model`: the file is memory-mapped and decoded by prost without copying weights; a wire
//!   pre-scan locates decode errors and every node's byte range; each graph gets its nodes in topological
//!   order (a petgraph DAG is built only for a graph whose file order is not topological).
//! - `shape`: dims (static, symbolic, unknown), shapes, and every broadcasting rule of the specs;
//!   [`Dim`], [`Expr`] and [`Shape`], what findings and reports hold, are re-exported here.
//! - `infer`: shape propagation in topological order, with small integer tensors carried as
//!   symbolic values so computed Reshape/Expand targets are known.
//! - `check`: findings (`E1` `W1` `W2` `E3` `E4` `W4` `I1`), each carrying its facts as data
//!   ([`diag::Facts`]) from which its message is written; [`report`]: human, JSON and SARIF output.
//!
//! The public modules are the four a program embedding the engine needs: [`proto`] (the
//! protobuf types a converter hands to [`lint_model`]), [`diag`] (what a [`Finding`] holds),
//! [`report`] (the output formats) and, with the default `cli` feature, `cli` (the command
//! itself, for the Python package). Everything else is private and changes freely.
//!
//! ```
//! use onnx_bcast_lint::{lint_path, Options};
//! let report = lint_path(
//!     std::path::Path::new("tests/models/e1_static_mismatch.onnx"),
//!     &Options::new(),
//! )?;
//! assert!(report.has_errors());
//! for finding in report.findings() {
//!     println!("{} {}", finding.code, finding.message);
//!     if let onnx_bcast_lint::diag::Facts::BroadcastClash { axis, sizes, .. } = &finding.facts {
//!         assert_eq!((*axis, sizes.len()), (Some(1), 2));
//!     }
//! }
//! # Ok::<(), onnx_bcast_lint::LoadError>(())
//! ```

// `--write-shapes`, a command flag: unused without the `cli` feature, but compiled, since the
// loader re-exports the varint reader it uses.
#[cfg_attr(not(feature = "cli"), allow(dead_code))]
mod annotate;
mod bind;
// `run` and `CheckOptions` are re-exported only with the `bench` feature.
#[cfg_attr(not(feature = "bench"), allow(unreachable_pub))]
mod check;
#[cfg(feature = "cli")]
pub mod cli;
#[cfg(feature = "cli")]
mod config;
pub mod diag;
mod error;
mod fingerprint;
#[cfg(feature = "cli")]
mod gate;
// Private, as everything below the public face: the stage benchmark reaches them through
// `stages` (the `bench` feature), the loader's tests are unit tests of `model`. Their `pub`
// items, and those only their own tests or the benchmark use, are narrowed to `pub(crate)` or
// `#[cfg(test)]` file by file (issue 33, item 8, left over).
mod infer;
mod limits;
mod lint;
mod model;
// The operator rules keep `pub` items (their owners narrow them with the op-coverage work):
// none is reachable from outside, since the module is private (`RuleError::Invalid`, no longer
// reachable through a public `infer`, is built only by the rules' tests).
mod ops;
mod paths;
pub mod proto;
mod provenance;
pub mod report;
// Re-inference under forced `If` branches, between inference and the checks' final run.
mod settle;
mod shape;
mod unknown_dim;

pub use diag::{Code, Finding, Severity};
pub use error::{Limits, LoadError};
pub use fingerprint::Fingerprint;
pub use lint::{
    lint_bytes, lint_model, lint_path, lint_path_timed, LintReport, Options, Stats, Timings,
    DEFAULT_MAX_FINDINGS,
};
pub use shape::{Binding, Dim, Expr, Rule, Shape, ViolationKind};
pub use unknown_dim::{unknown_dims, UnknownDim};

/// The pipeline's stages one by one, as a lint runs them (`infer`, `settle`, `check`), for the
/// stage benchmark (benches/stages.rs), which times each alone: only with the `bench` feature (never a default), and hidden, since they take and
/// give the engine's internal types, which change freely.
#[cfg(feature = "bench")]
#[doc(hidden)]
pub mod stages {
    pub use crate::check::{run as check, CheckOptions};
    pub use crate::infer::infer;
    pub use crate::model::{load_bytes, load_proto};
    pub use crate::settle::settle_default as settle;
}
