//! The data of a provenance chain (issue 17, item 2): where one dim of a finding's input comes
//! from, as `InputSite::provenance` holds it. The walk that fills it is `crate::provenance`;
//! the types stand here, below it, as data types stand below the code that computes them.

use std::ops::Range;

use crate::shape::Dim;

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

/// A dim of a finding's input that is, or is computed from, a size the model declares and
/// inference took because it could not compute it (issue 38, item 4): an assumption, since a
/// declaration can be wrong (W2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// The input's axis.
    pub axis: usize,
    /// The dim on that axis.
    pub dim: Dim,
    /// The graph path of the declared value.
    pub graph: String,
    /// The declared value's name (its `value_info` or graph output).
    pub name: String,
    /// The axis of its declaration that gave the size.
    pub declared_axis: usize,
    /// The size taken from the declaration.
    pub declared_dim: Dim,
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
