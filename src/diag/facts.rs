//! The facts of a finding as data: one variant per kind of finding, holding what its message
//! states (the axis and sizes of a clash, a condition and the binding that breaks it, declared
//! and inferred shapes, an operator and its version). Messages and help are rendered from these
//! (`render.rs`), and JSON and SARIF print them as they are, so text and data cannot disagree.
//!
//! Serialized (JSON `facts`, SARIF `properties.facts`) as an object tagged by `kind`; shapes
//! and dims as in the JSON `shapes` (integers, symbolic strings, `null`). Every condition text
//! here is bounded where it is made (`bounded.rs`): past `condition-clauses` conjuncts it ends
//! `… and N more clauses`. So is every shape (`stated.rs`: past `shape-dims` dims, the axes the
//! finding is about, its first axes and a count of the others) and every list of nodes (past
//! `finding-nodes`, the first ones and, in `<list>_left_out`, how many more).

use serde::{Serialize, Serializer};

// The JSON of a dim is the shapes' (`stated.rs`, below this file).
use super::stated::{dim, Printed, StatedShape};
use crate::shape::broadcast::ViolationKind;
pub use crate::shape::verify::Mismatch;
use crate::shape::{Binding, Dim, Rule};

/// What a finding states, as data. New kinds may be added (hence `#[non_exhaustive]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Facts {
    /// E1: the inputs can never broadcast together.
    #[non_exhaustive]
    BroadcastClash {
        /// The broadcasting rule the node uses.
        #[serde(serialize_with = "rule_name")]
        rule: Rule,
        /// What went wrong.
        #[serde(serialize_with = "violation_name")]
        violation: ViolationKind,
        /// The clashing axis, counted from the left of the broadcast output (of A for the
        /// directional rules); `None` for rank and attribute problems.
        axis: Option<usize>,
        /// Each offending input's size at that axis.
        sizes: Vec<SizeAt>,
        /// The inputs the rule broadcasts, in its order.
        operands: Vec<Operand>,
        /// Under the unidirectional rule, the shape B must stretch to.
        target: Option<StatedShape>,
        /// A likely fix (transposed sizes, a missing Unsqueeze), when one can be named.
        fix: Option<String>,
        /// The `--dim` bindings the clashing sizes come from (traced to the input axes they
        /// fill); empty, and left out of JSON, when none.
        #[serde(skip_serializing_if = "Binding::is_empty")]
        binding: Binding,
    },
    /// E1: with the `--dim` binding, a condition broadcasting needs is false.
    #[non_exhaustive]
    BroadcastBroken {
        /// The broadcasting rule the node uses.
        #[serde(serialize_with = "rule_name")]
        rule: Rule,
        /// The inputs the rule broadcasts, in its order.
        operands: Vec<Operand>,
        /// The condition broadcasting needs, in plain form.
        condition: String,
        /// The binding that breaks it.
        binding: Binding,
    },
    /// W1: broadcasting is valid only under a condition on symbolic dims.
    #[non_exhaustive]
    ConditionalBroadcast {
        /// The broadcasting rule the node uses.
        #[serde(serialize_with = "rule_name")]
        rule: Rule,
        /// The inputs the rule broadcasts, in its order.
        operands: Vec<Operand>,
        /// The condition, in plain form (`seq ≤ 64`), its conjuncts past `condition-clauses`
        /// counted (`… and 236 more clauses`).
        condition: String,
        /// The smallest binding that breaks it, when one is found.
        counterexample: Option<Binding>,
        /// Later nodes that need the same condition (reported once, here), the first
        /// `finding-nodes` of them.
        also_at: Vec<NodeName>,
        /// How many more nodes need it; left out of JSON when none.
        #[serde(skip_serializing_if = "is_zero")]
        also_at_left_out: usize,
        /// Nodes whose own, weaker condition this one implies (reported once, here, with the
        /// strongest), the first `finding-nodes` of them; left out of JSON when none.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        implied_at: Vec<ImpliedAt>,
        /// How many more nodes it implies the condition of; left out of JSON when none.
        #[serde(skip_serializing_if = "is_zero")]
        implied_at_left_out: usize,
        /// The condition's symbols that `--dim` cannot bind, with where each comes from; left
        /// out of JSON when none.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        data_dependent: Vec<SizeOrigin>,
        /// How many more such symbols there are (past `finding-nodes`); left out of JSON when
        /// none.
        #[serde(skip_serializing_if = "is_zero")]
        data_dependent_left_out: usize,
        /// Whether the condition has a symbol `--dim` can bind (a main-graph input's dim).
        #[serde(skip)]
        bindable: bool,
    },
    /// W4: an operator's own shape constraint holds only under a condition on symbolic dims.
    #[non_exhaustive]
    ConditionalConstraint {
        /// What the operator requires, in its doc's words.
        constraint: String,
        /// A likely fix, when one can be named.
        fix: Option<String>,
        /// The condition, in plain form.
        condition: String,
        /// The smallest binding that breaks it, when one is found.
        counterexample: Option<Binding>,
        /// Later nodes that need the same condition (reported once, here), the first
        /// `finding-nodes` of them.
        also_at: Vec<NodeName>,
        /// How many more nodes need it; left out of JSON when none.
        #[serde(skip_serializing_if = "is_zero")]
        also_at_left_out: usize,
        /// Nodes whose own, weaker condition this one implies (reported once, here, with the
        /// strongest), the first `finding-nodes` of them; left out of JSON when none.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        implied_at: Vec<ImpliedAt>,
        /// How many more nodes it implies the condition of; left out of JSON when none.
        #[serde(skip_serializing_if = "is_zero")]
        implied_at_left_out: usize,
        /// The condition's symbols that `--dim` cannot bind, with where each comes from; left
        /// out of JSON when none.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        data_dependent: Vec<SizeOrigin>,
        /// How many more such symbols there are (past `finding-nodes`); left out of JSON when
        /// none.
        #[serde(skip_serializing_if = "is_zero")]
        data_dependent_left_out: usize,
        /// Whether the condition has a symbol `--dim` can bind (a main-graph input's dim).
        #[serde(skip)]
        bindable: bool,
    },
    /// E1: broadcasting holds only when some dim is 0, so it fails for every non-empty input.
    #[non_exhaustive]
    BroadcastEmptyOnly {
        /// The broadcasting rule the node uses.
        #[serde(serialize_with = "rule_name")]
        rule: Rule,
        /// The inputs the rule broadcasts, in its order.
        operands: Vec<Operand>,
        /// The condition, in plain form (`batch = 0 ∨ seq = 0`).
        condition: String,
        /// The smallest binding that breaks it, when one is found.
        counterexample: Option<Binding>,
        /// The condition's symbols that `--dim` cannot bind, with where each comes from; left
        /// out of JSON when none.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        data_dependent: Vec<SizeOrigin>,
        /// How many more such symbols there are (past `finding-nodes`); left out of JSON when
        /// none.
        #[serde(skip_serializing_if = "is_zero")]
        data_dependent_left_out: usize,
    },
    /// E4: an operator's own shape constraint holds only when some dim is 0, so it fails for
    /// every non-empty input (a `Reshape` whose target's element count differs from its
    /// input's unless the input is empty).
    #[non_exhaustive]
    ConstraintEmptyOnly {
        /// What the operator requires, in its doc's words.
        constraint: String,
        /// A likely fix, when one can be named.
        fix: Option<String>,
        /// The condition, in plain form.
        condition: String,
        /// The smallest binding that breaks it, when one is found.
        counterexample: Option<Binding>,
        /// The condition's symbols that `--dim` cannot bind, with where each comes from; left
        /// out of JSON when none.
        #[serde(skip_serializing_if = "Vec::is_empty")]
        data_dependent: Vec<SizeOrigin>,
        /// How many more such symbols there are (past `finding-nodes`); left out of JSON when
        /// none.
        #[serde(skip_serializing_if = "is_zero")]
        data_dependent_left_out: usize,
    },
    /// W1 (W4 when only operator constraints take part): the conditions of several nodes
    /// together force a symbol to one value.
    #[non_exhaustive]
    ForcedValue {
        /// The symbol.
        symbol: String,
        /// The only value it may take.
        value: i64,
        /// The nodes whose conditions force it, the first `finding-nodes` of them.
        nodes: Vec<NodeName>,
        /// Their conditions, in plain form, one per node.
        conditions: Vec<String>,
        /// How many more nodes (and conditions) take part; left out of JSON when none.
        #[serde(skip_serializing_if = "is_zero")]
        nodes_left_out: usize,
        /// Whether only operator constraints (no broadcast) take part.
        constraints_only: bool,
    },
    /// W2: a declared shape contradicts the inferred one.
    #[non_exhaustive]
    DeclaredMismatch {
        /// The value whose declaration is wrong.
        value: String,
        /// Its declared shape.
        declared: StatedShape,
        /// Its inferred shape.
        inferred: StatedShape,
        /// Where they first differ.
        #[serde(serialize_with = "departure")]
        mismatch: Mismatch,
    },
    /// E3: a structural problem.
    #[non_exhaustive]
    Structure {
        /// Which one.
        #[serde(flatten)]
        problem: Structure,
    },
    /// W5: an opset < 7 element-wise op without `broadcast=1` whose inputs differ in shape.
    #[non_exhaustive]
    LegacyImplicitBroadcast {
        /// The opset version the node is read at.
        opset: i64,
        /// The shapes of A and B.
        shapes: Vec<StatedShape>,
    },
    /// I1: the shape engine does not know this operator (or this version of it).
    #[non_exhaustive]
    Unsupported {
        /// Operator type.
        op_type: String,
        /// Operator domain (`""` for the default domain).
        domain: String,
        /// The opset version the model imports, when that version is what the engine lacks.
        version: Option<i64>,
        /// Why the version is unknown, when it is.
        reason: Option<String>,
        /// The first few nodes of this operator, by name.
        nodes: Vec<String>,
        /// How many nodes there are.
        count: usize,
    },
    /// I2: a limit on the linter's work was reached, so a check there was not made (its
    /// result is unknown, not wrong).
    #[non_exhaustive]
    CapReached {
        /// The limit's stable name (the README's limits table): `value-work`.
        limit: String,
        /// Its value.
        value: u64,
        /// What it bounds.
        bounds: String,
        /// The flag or library option that raises it; `None` when it is fixed.
        flag: Option<String>,
        /// The graph it was first reached in (`main`, a subgraph's or function's path).
        graph: String,
        /// The first few nodes it was reached at, by name (empty for a cap of a whole graph).
        nodes: Vec<String>,
        /// How many nodes it was reached at (0 for a cap of a whole graph).
        count: usize,
    },
    /// E4: an operator's own shape constraint fails: for every input, or (`binding`) for this
    /// deployment's dims (with `condition` when the binding breaks a condition, without when
    /// the sizes the constraint compares come from it).
    #[non_exhaustive]
    ConstraintUnmet {
        /// What the operator requires, in its doc's words.
        constraint: String,
        /// What the inputs give (`3 vs 4`); empty when there is nothing to compare.
        found: String,
        /// A likely fix, when one can be named.
        fix: Option<String>,
        /// With `--dim` bindings: the condition the constraint needs, in plain form.
        condition: Option<String>,
        /// With `--dim` bindings: the binding that breaks it.
        binding: Option<Binding>,
    },
    /// E4: a required input is missing.
    #[non_exhaustive]
    MissingInput {
        /// Its slot.
        slot: usize,
    },
    /// E4: an attribute has the wrong type or value.
    #[non_exhaustive]
    BadAttribute {
        /// The attribute.
        attribute: String,
        /// What it must be.
        expected: String,
    },
    /// E4: the node contradicts its operator's doc otherwise.
    #[non_exhaustive]
    InvalidNode {
        /// How.
        reason: String,
    },
    /// E4: a graph input's initializer contradicts its declared shape.
    #[non_exhaustive]
    InitializerMismatch {
        /// The graph input.
        input: String,
        /// Its graph's path.
        graph: String,
        /// Its declared shape.
        declared: StatedShape,
        /// Its initializer's shape.
        stored: StatedShape,
    },
    /// W1 / W4: a node fails in every run where an `If` whose condition is not known takes one
    /// of its branches, whose outputs differ in rank, and holds where it takes the other; E1 /
    /// E4 when it fails whichever branch the `If` takes (issue 37, item 3).
    #[non_exhaustive]
    BranchFailure {
        /// The `If` node.
        if_node: NodeName,
        /// The branch in whose runs the node fails (`then` or `else`); with `every_branch`,
        /// the branch whose failure `failure` states.
        failing_branch: String,
        /// Whether the node fails whichever branch the `If` takes.
        every_branch: bool,
        /// The rank of the `If`'s output (the first whose rank its branches differ in) when it
        /// takes its then branch.
        then_rank: usize,
        /// The same when it takes its else branch.
        else_rank: usize,
        /// Whether the failure is a broadcast's (E1's) rather than an operator constraint's.
        broadcast: bool,
        /// The failure in the runs taking `failing_branch`, as its E1 or E4 states it.
        failure: Box<Facts>,
        /// Other nodes that fail in the same runs (reported once, here), the first
        /// `finding-nodes` of them.
        also_at: Vec<NodeName>,
        /// How many more nodes fail in those runs; left out of JSON when none.
        #[serde(skip_serializing_if = "is_zero")]
        also_at_left_out: usize,
    },
}

/// An input's size on the clashing axis.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SizeAt {
    /// The input's value name.
    pub input: String,
    /// Its position among the rule's operands (0 for A).
    #[serde(skip)]
    pub operand: usize,
    /// The axis in the input's own shape.
    pub axis: usize,
    /// Its size there.
    #[serde(serialize_with = "dim")]
    pub size: Dim,
}

impl SizeAt {
    /// The size of operand `operand` (value `input`) on its own `axis`.
    pub(crate) fn new(input: String, operand: usize, axis: usize, size: Dim) -> Self {
        Self {
            input,
            operand,
            axis,
            size,
        }
    }
}

/// A size the model computes (`NonZero#0`, or a `dim_param` an exporter declared for a value
/// it made, `Unsqueeze/..._dim_1`), which no `--dim` can bind: the value it first sizes, and
/// the node that makes that value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct SizeOrigin {
    /// The symbol.
    pub symbol: String,
    /// The first value (in graph order) whose shape holds it.
    pub value: String,
    /// The node that makes that value; `None` when it is a graph's input.
    pub made_by: Option<NodeName>,
}

impl SizeOrigin {
    /// `symbol`, first in `value`, made by `made_by`.
    pub(crate) fn new(symbol: String, value: String, made_by: Option<NodeName>) -> Self {
        Self {
            symbol,
            value,
            made_by,
        }
    }
}

/// An input a broadcasting rule reads, with its inferred shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Operand {
    /// Its value name (`input <slot>` when the slot is empty).
    pub name: String,
    /// Its inferred shape, as the finding states it.
    pub shape: StatedShape,
}

impl Operand {
    /// Input `name` of shape `shape`.
    pub(crate) fn new(name: String, shape: StatedShape) -> Self {
        Self { name, shape }
    }
}

/// A node named in a finding about several nodes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct NodeName {
    /// Operator type.
    pub op_type: String,
    /// The node's name.
    pub name: String,
}

impl NodeName {
    /// The node `name` of type `op_type`.
    pub(crate) fn new(op_type: String, name: String) -> Self {
        Self { op_type, name }
    }
}

/// A node whose condition a stronger one, reported with it, implies.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ImpliedAt {
    /// The node.
    pub node: NodeName,
    /// Its own condition, in plain form.
    pub condition: String,
}

impl ImpliedAt {
    /// `node`, which needs `condition`.
    pub(crate) fn new(node: NodeName, condition: String) -> Self {
        Self { node, condition }
    }
}

/// A structural problem of the model (E3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "problem", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Structure {
    /// The model has no graph.
    NoGraph,
    /// Nodes form a cycle.
    Cycle {
        /// How many nodes are on it.
        nodes: usize,
    },
    /// An input that nothing defines.
    UndefinedInput {
        /// The input's name.
        name: String,
    },
    /// A value produced more than once.
    DuplicateProducer {
        /// The value's name.
        name: String,
    },
    /// A node whose `op_type` is empty.
    MissingOpType,
}

// serde's `skip_serializing_if` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// The rule's name in JSON: `multidirectional`, `unidirectional`, `bidirectional`, `legacy`,
/// `pdpd`.
pub(crate) fn rule_key(rule: Rule) -> &'static str {
    match rule {
        Rule::Multidirectional => "multidirectional",
        Rule::Unidirectional => "unidirectional",
        Rule::Bidirectional => "bidirectional",
        Rule::Legacy => "legacy",
        Rule::Pdpd => "pdpd",
    }
}

// serde's `serialize_with` passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn rule_name<S: Serializer>(rule: &Rule, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(rule_key(*rule))
}

#[allow(clippy::trivially_copy_pass_by_ref)]
fn violation_name<S: Serializer>(kind: &ViolationKind, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(match kind {
        ViolationKind::SizeClash => "size_clash",
        ViolationKind::NeverEqual => "never_equal",
        ViolationKind::RankTooHigh => "rank_too_high",
        ViolationKind::RankMismatch => "rank_mismatch",
        ViolationKind::NotBroadcastable => "not_broadcastable",
        ViolationKind::RunMismatch => "run_mismatch",
        ViolationKind::RunOutOfRange => "run_out_of_range",
        ViolationKind::BadAxis => "bad_axis",
    })
}

/// Where a declared shape departs from the inferred one, tagged by `on`: `{"on": "rank",
/// "inferred", "declared"}` or `{"on": "dim", "axis", "inferred", "declared"}`.
fn departure<S: Serializer>(found: &Mismatch, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct as _;
    match found {
        Mismatch::Rank { inferred, declared } => {
            let mut fields = serializer.serialize_struct("Mismatch", 3)?;
            fields.serialize_field("on", "rank")?;
            fields.serialize_field("inferred", inferred)?;
            fields.serialize_field("declared", declared)?;
            fields.end()
        }
        Mismatch::Dim {
            axis,
            inferred,
            declared,
        } => {
            let mut fields = serializer.serialize_struct("Mismatch", 4)?;
            fields.serialize_field("on", "dim")?;
            fields.serialize_field("axis", axis)?;
            fields.serialize_field("inferred", &Printed(inferred))?;
            fields.serialize_field("declared", &Printed(declared))?;
            fields.end()
        }
    }
}
