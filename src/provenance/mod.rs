//! Provenance (issue 17, item 2): where each dim a finding shows comes from. For the offending
//! dims of a finding's inputs, the producers are walked backward from the finding's node,
//! breadth-first, to the nearest graph input, initializer or `Constant` whose dim the shown dim
//! is, or is computed from: `seq` is axis 1 of graph input `input_ids`; `min(seq, 64)` is axis 0
//! of initializer `position_embeddings.weight` (64) through Slice `/embeddings/Slice`.
//!
//! Every step of a chain is true by the operator's definition: the producer's output dim equals
//! the input dim it is traced to (an element-wise op, a Transpose through its `perm`), or the
//! operator computes it from that dim (a Conv's spatial axis from the input's, a Slice's from the
//! data's). A dim with no such chain within the budget gets no provenance: nothing is guessed.
//! The walk is lazy (only findings' dims) and bounded, so a large model is not slowed.

mod attributes;
mod axes;
mod text;
mod traced;
mod walk;

use std::ops::Range;

use crate::diag::Finding;
use crate::infer::Inference;
use crate::model::{GraphId, Model};
use crate::shape::Dim;

/// Most states (value, axis) one dim's walk visits before giving up.
const MAX_VISITS_PER_DIM: usize = 4_096;
/// Most states all walks of one model visit together: past it, later findings get none.
const MAX_VISITS_PER_MODEL: usize = 1 << 16;

/// Where one dim of a finding's input comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DimProvenance {
    /// The input's axis.
    pub axis: usize,
    /// The dim on that axis.
    pub dim: Dim,
    /// Where the chain starts.
    pub source: Source,
    /// The nodes of the chain that change the dim (a Conv, a Slice...), from the source to
    /// the finding's input; the nodes that pass it on unchanged are only counted in `nodes`.
    pub steps: Vec<Step>,
    /// How many nodes the whole chain passes through.
    pub nodes: usize,
}

/// What kind of value a chain starts at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceKind {
    /// An input of the graph (of the main graph, or a subgraph's or function's own input).
    GraphInput,
    /// An initializer (dense or sparse).
    Initializer,
    /// The output of a `Constant` node.
    Constant,
}

impl SourceKind {
    /// `graph_input`, `initializer` or `constant`, as JSON prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::GraphInput => "graph_input",
            SourceKind::Initializer => "initializer",
            SourceKind::Constant => "constant",
        }
    }
}

/// The start of a chain: one axis of a value nothing in the graph computes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// What the value is.
    pub kind: SourceKind,
    /// The graph path of the value (`main`, `main/If_0/then_branch`, ...).
    pub graph: String,
    /// The value's name.
    pub name: String,
    /// Its axis.
    pub axis: usize,
    /// Its dim on that axis.
    pub dim: Dim,
}

/// A node of a chain that changes the dim it passes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// The graph path of the node.
    pub graph: String,
    /// The node's index in its graph.
    pub index: usize,
    /// The node's name (synthesized `<op>_<index>` when the file has none).
    pub name: String,
    /// Its operator type.
    pub op_type: String,
    /// The attributes and constant inputs that decide the new dim (`strides`, a Slice's
    /// `ends`), as `(name, value)` in ONNX text syntax.
    pub attributes: Vec<(String, String)>,
    /// The output value the chain goes on with.
    pub output: String,
    /// The axis of that output.
    pub axis: usize,
    /// The dim the node makes.
    pub dim: Dim,
    /// Byte range of the node in the file (empty when unknown).
    pub span: Range<usize>,
}

/// Fills the provenance of the offending dims of every finding, within the model's budget.
pub(crate) fn attach(model: &Model, inference: &Inference, findings: &mut [Finding]) {
    let mut budget = MAX_VISITS_PER_MODEL;
    for finding in findings.iter_mut() {
        let Some(site) = &finding.node else { continue };
        let Some(graph) = model.graphs.iter().find(|g| g.path == site.graph) else {
            continue;
        };
        let Some(node) = graph.node(site.index) else {
            continue;
        };
        for (input, axis) in traced::axes(finding) {
            if budget == 0 {
                return;
            }
            let Some(site) = finding.inputs.get_mut(input) else {
                continue;
            };
            let Some(value) = node.inputs().get(site.slot).copied().flatten() else {
                continue;
            };
            let start = walk::Start {
                graph: graph.id,
                value,
                axis,
            };
            let allowance = budget.min(MAX_VISITS_PER_DIM);
            let (found, used) = walk::trace(model, inference, start, allowance);
            budget = budget.saturating_sub(used);
            if let Some(found) = found {
                site.provenance.push(found);
            }
        }
    }
}

/// The graph path of `id` (empty if foreign).
fn graph_path(model: &Model, id: GraphId) -> String {
    model.graph(id).map(|g| g.path.clone()).unwrap_or_default()
}
