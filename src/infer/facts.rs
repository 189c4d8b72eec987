//! What inference stores: every value's facts, every node's status, broadcast checks and
//! conditional operator constraints, per graph and for the whole model. The checks, settling and the report read these.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::{GraphId, ValueId};
use crate::ops::{BroadcastCheck, Constraint, RuleError};
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;
use crate::shape::SharedShape;

/// Everything inferred about one value.
#[derive(Debug, Clone)]
pub(crate) struct ValueFacts {
    /// Its shape, shared with the other values of that shape (issue 19).
    pub shape: SharedShape,
    /// Its element type (`TensorProto.DataType`), when known.
    pub elem: Option<i32>,
    /// Its elements, for small integer tensors whose values are known. Behind a pointer: most
    /// values are not such tensors, and a million-node model has a million facts; shared:
    /// equal elements (a transformer's shape computations, layer after layer) are held once.
    pub value: Option<Arc<ValueTensor>>,
    /// Its elements, for small floating-point tensors of shape computations (see
    /// [`crate::shape::real`]). Boxed, as `value`.
    pub real: Option<Box<ValueTensor<Real>>>,
}

impl ValueFacts {
    /// Nothing known.
    pub(crate) fn unknown() -> Self {
        Self {
            shape: SharedShape::unranked(),
            elem: None,
            value: None,
            real: None,
        }
    }
}

/// What happened at one node.
#[derive(Debug, Clone, Default)]
pub(crate) enum NodeStatus {
    /// The node was not reached (it lies on a cycle).
    #[default]
    NotReached,
    /// A rule inferred its outputs.
    Inferred,
    /// No rule knows this operator: its outputs are unknown (or declared).
    Unsupported,
    /// An ONNX operator whose schema version (or the model's opset) the engine has no rule for:
    /// why, and the version. Outputs unknown, as for `Unsupported`.
    UnknownVersion(&'static str, i64),
    /// The rule could not infer: outputs unknown. Boxed: rare, and three strings wide.
    Failed(Box<RuleError>),
}

/// What propagation found at one node.
#[derive(Debug, Clone, Default)]
pub(crate) struct NodeFacts {
    /// How the node was handled.
    pub status: NodeStatus,
    /// The broadcasts it performs whose outcome is conditional or invalid. Plainly valid ones
    /// are dropped: the checks have nothing to say about them, and an exported model performs
    /// hundreds of thousands (each with its output shape).
    pub checks: Box<[BroadcastCheck]>,
    /// Its operator's constraints that hold only under a condition on symbols (W4); one that
    /// never holds failed the rule ([`NodeStatus::Failed`]).
    pub constraints: Box<[Constraint]>,
}

/// Facts for one graph, indexed like [`crate::model::Graph::values`] and
/// [`crate::model::Graph::nodes`].
#[derive(Debug, Clone, Default)]
pub(crate) struct GraphFacts {
    /// One entry per value.
    pub values: Vec<ValueFacts>,
    /// The nodes whose facts are not the common ones (inferred, no conditional or invalid
    /// broadcast), by index: a million-node model has a few hundred (issue 19: statuses and
    /// checks sparse).
    pub(super) nodes: HashMap<usize, NodeFacts, foldhash::fast::RandomState>,
    /// Whether the graph ran; the nodes of a graph that never ran were not reached.
    pub(super) ran: bool,
    /// The dims a declaration gave where inference had none (issue 38, item 4): `(value, axis)`
    /// to the `(value, axis)` of the declaration. Assumptions, not facts: a finding that hangs
    /// on one names it. Few values of a model take one, so a map.
    pub(super) adopted: HashMap<(ValueId, usize), (ValueId, usize), foldhash::fast::RandomState>,
}

/// The status of every node of a graph that ran and that has no entry: what nearly every node's
/// is.
static INFERRED: NodeStatus = NodeStatus::Inferred;
static NOT_REACHED: NodeStatus = NodeStatus::NotReached;

impl GraphFacts {
    /// How node `index` was handled.
    pub(crate) fn status(&self, index: usize) -> &NodeStatus {
        match self.nodes.get(&index) {
            Some(facts) => &facts.status,
            None if self.ran => &INFERRED,
            None => &NOT_REACHED,
        }
    }

    /// The broadcasts node `index` performs whose outcome is conditional or invalid.
    pub(crate) fn checks(&self, index: usize) -> &[BroadcastCheck] {
        self.nodes
            .get(&index)
            .map_or(&[], |facts| facts.checks.as_ref())
    }

    /// The constraints of node `index`'s operator that hold only under a condition.
    pub(crate) fn constraints(&self, index: usize) -> &[Constraint] {
        self.nodes
            .get(&index)
            .map_or(&[], |facts| facts.constraints.as_ref())
    }

    /// Whether a declaration gave any dim of the graph.
    pub(crate) fn adopts(&self) -> bool {
        !self.adopted.is_empty()
    }

    /// The `(value, axis)` whose declaration gave `value`'s dim on `axis`, when inference could
    /// not compute that dim and took the declared one.
    pub(crate) fn adopted(&self, value: ValueId, axis: usize) -> Option<(ValueId, usize)> {
        if self.adopted.is_empty() {
            return None;
        }
        self.adopted.get(&(value, axis)).copied()
    }

    /// Records what propagation found at node `index` (the last run of a graph run several
    /// times wins).
    pub(super) fn set_node(&mut self, index: usize, facts: NodeFacts) {
        if matches!(facts.status, NodeStatus::Inferred)
            && facts.checks.is_empty()
            && facts.constraints.is_empty()
        {
            // Nearly every node, and the map is mostly empty: no hash then.
            if !self.nodes.is_empty() {
                self.nodes.remove(&index);
            }
        } else {
            self.nodes.insert(index, facts);
        }
    }
}

/// The result of propagation over a whole model, indexed by [`GraphId`].
#[derive(Debug, Clone, Default)]
#[cfg_attr(not(feature = "bench"), allow(unreachable_pub))]
pub struct Inference {
    /// One entry per graph of the model.
    pub(crate) graphs: Vec<GraphFacts>,
    /// The caps the run reached, each once, in order.
    pub(crate) caps: Vec<crate::limits::CapHit>,
}

impl Inference {
    /// Facts of one graph.
    pub(crate) fn graph(&self, id: GraphId) -> Option<&GraphFacts> {
        self.graphs.get(id.0 as usize)
    }
}
