//! Shape propagation: walks each graph in topological order, runs each node's shape rule, and
//! stores every value's shape (and, for small integer tensors, its elements as symbolic dims) with
//! the broadcast outcomes the checks read. Subgraphs (`If`, `Loop`, `Scan`) and model-local
//! functions are inferred from their call sites.

//!
//! Files: this one is the entry point (what a caller may assume, and the run with its options);
//! `facts.rs` what a run stores, `budget.rs` what bounds it, `engine.rs` the walk itself,
//! `control.rs` `If`/`Loop`/`Scan` and function calls.

mod adopt;
mod anonymous;
mod budget;
mod control;
pub(crate) use control::known_condition;
mod downstream;
mod engine;
mod facts;
pub(crate) mod pipeline;
#[cfg(test)]
mod pipeline_tests;
mod stored;

pub(crate) use facts::{GraphFacts, Inference, NodeFacts, NodeStatus, ValueFacts};

use crate::error::Limits;
use crate::model::{GraphId, Model};

/// Runs propagation over the model's main graph (and, through it, every subgraph and called
/// function), with the default [`Limits`].
#[cfg(feature = "bench")]
#[cfg_attr(not(feature = "bench"), allow(unreachable_pub))]
pub fn infer(model: &Model) -> Inference {
    infer_within(model, &Limits::default())
}

/// What the caller assumes of a model beyond what the ONNX IR guarantees.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Assumptions {
    /// Initializers that are also main-graph inputs keep their stored values. From IR 4 on an
    /// initializer need not be a graph input, and one that is listed as an input gives that
    /// input a default the caller may override (ONNX IR.md, "Graphs"), so without this
    /// assumption only its type is certain; before IR 4 it is a constant in any case.
    pub initializers_as_constants: bool,
}

/// Runs propagation within `limits`: an inferred shape of a rank above `max_rank` becomes an
/// unknown rank, and values stop being carried once `budget::MAX_VALUE_WORK` elements were
/// copied.
#[cfg(feature = "bench")]
pub(crate) fn infer_within(model: &Model, limits: &Limits) -> Inference {
    infer_assuming(model, limits, Assumptions::default())
}

/// [`infer_within`] under `assumptions`.
pub(crate) fn infer_assuming(
    model: &Model,
    limits: &Limits,
    assumptions: Assumptions,
) -> Inference {
    infer_forcing(model, limits, assumptions, &[])
}

/// [`infer_assuming`] with the branch each listed `If` takes, `(graph, node index, takes the
/// then branch)`, as if its condition were known. Sound only for a branch every run the model
/// accepts takes when it runs that `If` (`settle.rs` proves it).
pub(crate) fn infer_forcing(
    model: &Model,
    limits: &Limits,
    assumptions: Assumptions,
    forced: &[(GraphId, usize, bool)],
) -> Inference {
    engine::run(model, limits, assumptions, forced)
}
