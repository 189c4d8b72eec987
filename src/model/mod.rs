//! The loaded model: nodes in topological order per graph, a value table per graph, node identities for
//! diagnostics, and the structural problems found while building them.
//!
//! Protobuf messages are moved, never copied, into this structure: tensor payloads stay
//! `bytes::Bytes` slices of the mapped file.

mod attrs;
pub(crate) mod declared;
pub(crate) mod dtype;
mod graph;
mod initializer;
mod intern;
mod lfs;
mod load;
mod names;
mod node_wire;
mod opset;
mod parts;
mod prefetch;
mod slots;
pub(crate) mod tensor;
mod text;
mod topology;
mod wire;

// The loader's tests on models built in code and on the committed fixtures: unit tests, since
// the loader's types are not public.
#[cfg(test)]
mod fixture_tests;
#[cfg(test)]
mod load_tests;

use std::ops::Range;
use std::sync::Arc;

use arcstr::ArcStr;

use crate::proto::TypeProto;

pub(crate) use attrs::{AttrError, AttrValue, Attribute, Attrs};
pub(crate) use initializer::Initializer;
// The command's `--timings` reads the file's resident size; the library alone does not.
#[cfg_attr(not(feature = "bench"), allow(unreachable_pub))]
pub use load::load_proto;
#[cfg(feature = "cli")]
pub(crate) use load::resident_file_kb;
// The library lints bytes through `load_bytes_timed`, beside its inference.
pub(crate) use graph::{declared_of, pipe, Drain, Feed, LateDeclared, Next};
#[cfg(any(test, feature = "bench"))]
#[cfg_attr(not(feature = "bench"), allow(unreachable_pub))]
pub use load::load_bytes;
#[cfg(test)]
pub(crate) use load::load_path;
pub(crate) use load::{load_bytes_timed, load_path_timed, LoadTimes, ReadFrom};
pub(crate) use opset::Opsets;
pub(crate) use slots::Slots;
pub(crate) use text::Text;
pub(crate) use text::Texts;
pub(crate) use wire::read_varint;

/// Index of a graph in [`Model::graphs`]; the main graph is `GraphId(0)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct GraphId(pub u32);

/// Index of a value in its graph's [`Graph::values`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ValueId(pub u32);

/// A decoded model ready for shape inference.
#[derive(Debug)]
#[cfg_attr(not(feature = "bench"), allow(unreachable_pub))]
pub struct Model {
    /// The model's IR version.
    pub(crate) ir_version: i64,
    /// Every graph: the main graph first (`main`), then subgraphs (`main/<node>/<attr>`), then the
    /// bodies of model-local functions (`function/<domain>/<name>`).
    pub(crate) graphs: Vec<Graph>,
    /// Model-local functions, whose bodies are graphs in [`Model::graphs`].
    pub(crate) functions: Vec<Function>,
    /// Structural problems found while building the graphs (`E3`).
    pub(crate) problems: Vec<StructuralProblem>,
}

/// A model-local function (`ModelProto.functions`).
#[derive(Debug)]
pub(crate) struct Function {
    /// The function's domain.
    pub domain: String,
    /// The function's name (the `op_type` that calls it).
    pub name: String,
    /// Its body.
    pub graph: GraphId,
}

/// One ONNX graph as a DAG.
#[derive(Debug)]
pub(crate) struct Graph {
    /// This graph's id.
    pub id: GraphId,
    /// Where it sits: `main`, `main/<node name>/then_branch`, `function/<domain>/<name>`.
    pub path: String,
    /// The graph whose node owns this one (subgraphs only).
    pub parent: Option<GraphId>,
    /// The owning node's index in the parent graph (subgraphs only).
    pub owner: Option<usize>,
    /// The ONNX nodes, in file order; `Node::index` is the position here.
    pub nodes: Vec<Node>,
    /// Every value the graph names.
    pub values: Vec<Value>,
    /// Name index of [`Graph::values`].
    pub(crate) by_name: names::NameIndex,
    /// What the [`Text`] names of its values and nodes point into: read them with
    /// [`Graph::text`].
    pub(crate) texts: Texts,
    /// Graph inputs in declaration order (function inputs for function bodies).
    pub inputs: Vec<ValueId>,
    /// Graph outputs in declaration order.
    pub outputs: Vec<ValueId>,
    /// Dense and sparse initializers, as headers ([`Initializer`]).
    pub initializers: Vec<Initializer>,
    /// How many entries the `GraphProto` declared, as `onnx.load` counts them.
    pub counts: DeclaredCounts,
    /// Node indices in topological order; nodes on a cycle are left out.
    pub order: Vec<usize>,
}

/// Entry counts of a `GraphProto`, to compare the loader with other tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct DeclaredCounts {
    /// `initializer` entries.
    pub initializers: usize,
    /// `sparse_initializer` entries.
    pub sparse_initializers: usize,
    /// `value_info` entries.
    pub value_info: usize,
}

/// An ONNX node with its identity for diagnostics.
#[derive(Debug)]
pub(crate) struct Node {
    /// Position in its graph: read it with [`Node::index`]. 32 bits, as value origins hold
    /// it (issue 34: a node in 72 bytes, not 80).
    pub(crate) index: u32,
    /// The node's name, or a stable synthesized `<op_type>_<index>` when the file has none:
    /// read it with [`Graph::text`].
    pub name: Text,
    /// Whether `name` came from the file.
    pub named: bool,
    /// Its operator (domain, type and opset), one copy per model shared by the nodes of that
    /// operator: read it with [`Node::op_type`], [`Node::domain`] and [`Node::opset`].
    pub op: Arc<Operator>,
    /// Input values by slot, then output values by slot, in the node when there are few
    /// (issue 19), and the graph-valued attributes: read them with [`Node::inputs`],
    /// [`Node::outputs`] and [`Node::subgraphs`].
    pub(crate) slots: slots::Slots,
    /// Attributes, with graph bodies moved out into [`Node::subgraphs`]; shared with the other
    /// nodes whose attributes are the same bytes in the file. An `Arc` of a `Vec`, not of a
    /// slice: one word in the node instead of two (issue 19).
    #[allow(clippy::rc_buffer, reason = "one word in each of a million nodes")]
    pub attributes: Arc<Vec<Attribute>>,
    /// Where the `NodeProto` starts in the file (its low 32 bits, then the next 16: any offset
    /// of a file a 64-bit system maps) and its length: read them with [`Node::span`], write
    /// them with [`Node::packed_span`]. A longer node's length is kept as `u32::MAX` bytes
    /// (issue 19, and issue 34: a node in 72 bytes, not 80).
    pub(crate) span_start: u32,
    pub(crate) span_high: u16,
    pub(crate) span_len: u32,
    /// Whether the node lies on a cycle (it is then missing from [`Graph::order`]).
    pub in_cycle: bool,
}

/// The last file offset a [`Node`]'s span can start at (48 bits).
const SPAN_START_MAX: u64 = (1 << 48) - 1;

/// An operator as nodes name it: one per distinct `(domain, op_type, opset)` of a model.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Operator {
    /// Operator domain, `""` for the default domain (`ai.onnx` is normalised to `""`).
    pub domain: ArcStr,
    /// Operator type.
    pub op_type: ArcStr,
    /// The opset version in force for this domain, if the model imports it.
    pub opset: Option<i64>,
}

impl Operator {
    /// An operator not shared with other nodes (tests and synthesized nodes).
    #[cfg(test)]
    pub(crate) fn new(domain: &str, op_type: &str, opset: Option<i64>) -> Arc<Operator> {
        Arc::new(Operator {
            domain: domain.into(),
            op_type: op_type.into(),
            opset,
        })
    }
}

/// A named value of a graph.
#[derive(Debug)]
pub(crate) struct Value {
    /// Its name: read it with [`Graph::text`].
    pub name: Text,
    /// Where it comes from.
    pub origin: Origin,
    /// Its declared type: graph input/output or `value_info`. An initializer's type is its
    /// tensor's ([`Value::initializer`]); none is built for it. Boxed: most values of an
    /// exported model declare nothing.
    pub declared: Option<Box<TypeProto>>,
    /// The initializer holding its data, as an index into [`Graph::initializers`], or
    /// [`NO_INITIALIZER`]: read it with [`Value::initializer`]. 32 bits without an `Option`'s
    /// tag: a million-node model has a million and a half values (issue 19: a value in 32
    /// bytes, not 40).
    pub(crate) initializer: u32,
}

/// [`Value::initializer`] of a value no initializer holds.
pub(crate) const NO_INITIALIZER: u32 = u32::MAX;

/// Where a value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A graph input (possibly with an initializer as its default).
    Input,
    /// A dense initializer.
    Initializer,
    /// A sparse initializer.
    SparseInitializer,
    /// An output of a `Constant` node.
    Constant {
        /// The node's index (32 bits: a value in 32 bytes, issue 19).
        node: u32,
    },
    /// An output of another node.
    Node {
        /// The node's index.
        node: u32,
        /// The output slot.
        slot: u32,
    },
    /// A value of an enclosing graph that this subgraph captures.
    Outer {
        /// The enclosing graph defining it.
        graph: GraphId,
        /// The value there.
        value: ValueId,
    },
    /// Nothing defines it (reported as a structural problem).
    Undefined,
}

/// A structural problem (`E3`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StructuralProblem {
    /// The graph it is in.
    pub graph: GraphId,
    /// The node concerned, if any.
    pub node: Option<usize>,
    /// What is wrong.
    pub kind: ProblemKind,
}

/// The kinds of structural problem.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ProblemKind {
    /// The model has no graph.
    NoGraph,
    /// The nodes form a cycle; the value names one edge on it.
    Cycle {
        /// Nodes on the cycle, by index.
        nodes: Vec<usize>,
    },
    /// An input that nothing defines.
    UndefinedInput {
        /// The input name.
        name: String,
    },
    /// A value produced twice (by two nodes, or by a node and a graph input or initializer).
    DuplicateProducer {
        /// The value name.
        name: String,
    },
    /// A node whose `op_type` is empty.
    MissingOpType,
}

impl Model {
    /// The main graph, if the model has one.
    pub(crate) fn main(&self) -> Option<&Graph> {
        self.graphs.first()
    }

    /// The graph with this id.
    pub(crate) fn graph(&self, id: GraphId) -> Option<&Graph> {
        self.graphs.get(id.0 as usize)
    }

    /// Total number of nodes over all graphs.
    pub(crate) fn node_count(&self) -> usize {
        self.graphs.iter().map(|graph| graph.nodes.len()).sum()
    }
}

impl Graph {
    /// The value called `name`, if the graph names it.
    pub(crate) fn lookup(&self, name: &str) -> Option<ValueId> {
        self.by_name.get(name, &self.texts, &self.values)
    }

    /// A name of one of this graph's values or nodes (empty if it is another graph's).
    pub(crate) fn text(&self, text: Text) -> &str {
        self.texts.get(text)
    }

    /// The value with this id.
    pub(crate) fn value(&self, id: ValueId) -> Option<&Value> {
        self.values.get(id.0 as usize)
    }

    /// The name of a value (empty if the id is foreign).
    pub(crate) fn value_name(&self, id: ValueId) -> &str {
        self.value(id).map_or("", |value| self.text(value.name))
    }

    /// The node at this index.
    pub(crate) fn node(&self, index: usize) -> Option<&Node> {
        self.nodes.get(index)
    }
}

impl Value {
    /// Whether it is a (dense or sparse) initializer, whose type is its tensor's.
    pub(crate) fn is_initializer(&self) -> bool {
        matches!(self.origin, Origin::Initializer | Origin::SparseInitializer)
    }

    /// The initializer holding its data, as an index into [`Graph::initializers`].
    pub(crate) fn initializer(&self) -> Option<u32> {
        (self.initializer != NO_INITIALIZER).then_some(self.initializer)
    }

    /// The node that writes it, if one does.
    pub(crate) fn producer(&self) -> Option<usize> {
        match self.origin {
            Origin::Node { node, .. } | Origin::Constant { node } => Some(node as usize),
            _ => None,
        }
    }
}

impl Node {
    /// Operator type.
    pub(crate) fn op_type(&self) -> &ArcStr {
        &self.op.op_type
    }

    /// Operator domain, `""` for the default domain.
    pub(crate) fn domain(&self) -> &ArcStr {
        &self.op.domain
    }

    /// The opset version in force for this node's domain, if the model imports it.
    pub(crate) fn opset(&self) -> Option<i64> {
        self.op.opset
    }

    /// Position in its graph.
    pub(crate) fn index(&self) -> usize {
        self.index as usize
    }

    /// Byte range of the `NodeProto` in the file (empty when the model was not read from
    /// bytes).
    pub(crate) fn span(&self) -> Range<usize> {
        let start = u64::from(self.span_high) << 32 | u64::from(self.span_start);
        let start = usize::try_from(start).unwrap_or(usize::MAX);
        start..start.saturating_add(self.span_len as usize)
    }

    /// `(span_start, span_high, span_len)` for the byte range `span`; a start past 2^48 (no
    /// mappable file has one) is kept as the last representable offset.
    pub(crate) fn packed_span(span: Range<usize>) -> (u32, u16, u32) {
        let len = span.end.saturating_sub(span.start);
        let start = u64::try_from(span.start)
            .unwrap_or(u64::MAX)
            .min(SPAN_START_MAX);
        let [b0, b1, b2, b3, b4, b5, ..] = start.to_le_bytes();
        (
            u32::from_le_bytes([b0, b1, b2, b3]),
            u16::from_le_bytes([b4, b5]),
            u32::try_from(len).unwrap_or(u32::MAX),
        )
    }

    /// Input values by slot; `None` for an absent optional input (an empty name).
    pub(crate) fn inputs(&self) -> &[Option<ValueId>] {
        self.slots.inputs()
    }

    /// Output values by slot; `None` for an unused optional output.
    pub(crate) fn outputs(&self) -> &[Option<ValueId>] {
        self.slots.outputs()
    }

    /// Graph-valued attributes: `(attribute name, graph)`, in attribute order.
    pub(crate) fn subgraphs(&self) -> &[(String, GraphId)] {
        self.slots.subgraphs()
    }

    /// The inputs, to resolve the ones defined after their node.
    pub(crate) fn inputs_mut(&mut self) -> &mut [Option<ValueId>] {
        self.slots.inputs_mut()
    }

    /// Typed access to this node's attributes.
    pub(crate) fn attrs(&self) -> Attrs<'_> {
        Attrs::new(self)
    }
}

#[cfg(test)]
mod tests {
    use super::{Node, Value};

    /// A million-node model holds a million nodes and a million and a half values: every word
    /// of them is 8 to 12 MB the system zeroes (issue 19; the node was 88 bytes before its
    /// subgraphs moved in with its spilled slots, and 80 before its index and span start took
    /// 32 and 48 bits, issue 34).
    #[test]
    fn nodes_and_values_stay_small() {
        assert!(
            std::mem::size_of::<Node>() <= 72,
            "{}",
            std::mem::size_of::<Node>()
        );
        assert!(
            std::mem::size_of::<Value>() <= 32,
            "{}",
            std::mem::size_of::<Value>()
        );
    }

    /// The span `packed_span` gives, read back as `Node::span` reads it.
    fn round_trip(span: std::ops::Range<usize>) -> std::ops::Range<usize> {
        let (span_start, span_high, span_len) = Node::packed_span(span);
        let node = Node {
            index: 0,
            name: super::Text::EMPTY,
            named: false,
            op: super::Operator::new("", "Op", None),
            slots: super::Slots::default(),
            attributes: std::sync::Arc::new(Vec::new()),
            span_start,
            span_high,
            span_len,
            in_cycle: false,
        };
        node.span()
    }

    #[test]
    fn a_node_span_is_kept_whole_past_four_gib() {
        assert_eq!(round_trip(10..25), 10..25);
        assert_eq!(round_trip(7..7), 7..7);
        let far = (1usize << 40) + 3..(1usize << 40) + 8;
        assert_eq!(round_trip(far.clone()), far);
        let last = (1usize << 48) - 1;
        assert_eq!(round_trip(last..last + 2), last..last + 2);
        // Past 2^48 (no file a 64-bit system maps): the last offset.
        assert_eq!(round_trip(1 << 50..(1 << 50) + 4).start, last);
        // Longer than 4 GiB (no ONNX node is: a protobuf message stops at 2 GiB): clamped.
        if let Some(end) = 3usize.checked_add(u32::MAX as usize + 9) {
            assert_eq!(round_trip(3..end), 3..3 + u32::MAX as usize);
        }
    }
}
