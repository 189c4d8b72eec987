//! E1 and W1: broadcasting verdicts of every node, under the rule each node uses
//! (multidirectional, unidirectional, bidirectional, opset < 7 `broadcast`/`axis`); and W4, the
//! operator constraints that hold only under a condition, solved with them (one model, one set
//! of symbols).
//!
//! E1 — why it matters: the node fails at run time whatever the input values. Example:
//! `Add(x: [2, 3], y: [4])`, axis 1 is 3 vs 4. Fix: reshape or unsqueeze one input.
//!
//! W1 — valid only under a condition on symbolic dims (`seq ∈ {1, 77}`); the message gives the
//! condition and a binding that breaks it. Conditions of all nodes are combined, since a
//! `dim_param` names one value across the model: when together they force a symbol to one value,
//! one warning says so at the nodes that force it. A `--dim` binding is written into the
//! declarations before inference (`bind.rs`), so a bound symbol is a size here: a broadcast it
//! breaks is a clash (E1), one it satisfies is valid.
//!
//! Files: this one walks every node's broadcast checks and conditional constraints and sorts
//! them into definite failures (`clash.rs`: E1) and conditional ones (`conditional.rs`: W1 and
//! W4, solved together through `shape::condition::forced_jointly`); `fix.rs` names a likely fix
//! for a clash. A constraint that never holds is E4, built in `check/constraint.rs` only.

mod clash;
mod conditional;
mod emptied;
mod fix;
mod origin;
mod witness;

use std::collections::HashMap;
use std::rc::Rc;

use super::sink::Sink;
use super::site::{input_sites, node_site};
use crate::diag::{Code, Finding, Operand};
use crate::infer::{GraphFacts, Inference};
use crate::model::{Graph, Model, Node};
use crate::ops::{BroadcastCheck, Constraint};
use crate::shape::condition::{Plain, Scope};
use crate::shape::{Condition, Shape, Verdict};
use clash::incompatible;

/// A node whose broadcast, or one of whose operator's constraints, holds only under a condition.
struct Conditional<'m> {
    graph: &'m Graph,
    node: &'m Node,
    facts: &'m GraphFacts,
    what: Conditioned<'m>,
    condition: Condition,
    /// Its plain form and text, computed once per distinct condition (messages, grouping and
    /// counterexample read them).
    readable: Rc<Readable>,
}

/// What holds only under a condition: a broadcast (W1) or an operator constraint (W4).
#[derive(Clone, Copy)]
enum Conditioned<'m> {
    Broadcast(&'m BroadcastCheck),
    Constraint(&'m Constraint),
}

impl Conditioned<'_> {
    /// The input slots taking part.
    fn slots(&self) -> &[usize] {
        match self {
            Conditioned::Broadcast(check) => &check.slots,
            Conditioned::Constraint(constraint) => &constraint.slots,
        }
    }

    fn is_constraint(&self) -> bool {
        matches!(self, Conditioned::Constraint(_))
    }
}

/// A condition as people read it. Nodes over the same inputs share one condition: a thousand
/// `Add`s of two rank-1000 inputs spent most of their time writing it out again (issue 19
/// hunt).
struct Readable {
    /// What it asks of real inputs (`Requires`: the plain form without empty-dim disjuncts).
    scope: Scope,
    /// The plain form stated: the one `Requires` holds, else the whole condition's.
    plain: Plain,
    text: String,
    /// Whether `text` leaves clauses out (`diag::bounded`): then equal texts may be different
    /// conditions.
    cut: bool,
}

impl Readable {
    fn of(condition: &Condition, limit: i64) -> Readable {
        let whole = condition.plain();
        let scope = whole.scope(limit);
        let plain = match &scope {
            Scope::Requires(plain) => plain.clone(),
            Scope::EmptyOnly | Scope::Immaterial => whole,
        };
        let crate::diag::bounded::ConditionText { text, cut } =
            crate::diag::bounded::condition_text(&plain);
        Readable {
            scope,
            plain,
            text,
            cut,
        }
    }
}

/// E1, W1 and W4 findings of the whole model (and the E4 of a constraint that holds only at an
/// empty dim), offered to `sink` (an E1 it will not keep is never built); conditions that fail
/// only at an empty dim or for a dim above `limit` are not reported.
pub(super) fn check(model: &Model, inference: &Inference, limit: i64, sink: &mut Sink<'_>) {
    let mut conditionals = Vec::new();
    let mut readables: HashMap<Condition, Rc<Readable>> = HashMap::new();
    let mut conditional = |graph, node, facts, what, condition: &Condition| Conditional {
        graph,
        node,
        facts,
        what,
        condition: condition.clone(),
        readable: Rc::clone(
            readables
                .entry(condition.clone())
                .or_insert_with(|| Rc::new(Readable::of(condition, limit))),
        ),
    };
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        'nodes: for node in &graph.nodes {
            // Root cause only: the first failing broadcast of a node is reported, and the
            // constraints a rule records after its broadcasts are not.
            for check in facts.checks(node.index()) {
                match &check.outcome.verdict {
                    Verdict::Valid => {}
                    Verdict::Invalid(violation) => {
                        let at = Some((graph.path.as_str(), node.index()));
                        sink.offer(at, Code::E1, || {
                            incompatible(graph, node, facts, check, violation)
                        });
                        continue 'nodes;
                    }
                    // A `--dim` binding is already in the shapes (`bind.rs` writes it into the
                    // declarations before inference): a condition names no bound symbol.
                    Verdict::Conditional(condition) => conditionals.push(conditional(
                        graph,
                        node,
                        facts,
                        Conditioned::Broadcast(check),
                        condition,
                    )),
                }
            }
            for constraint in facts.constraints(node.index()) {
                if let Some(condition) = constraint.condition() {
                    let what = Conditioned::Constraint(constraint);
                    conditionals.push(conditional(graph, node, facts, what, condition));
                }
            }
        }
    }
    let origins = origin::Origins::of(model, inference, readables.keys());
    let causes = emptied::causes(&conditionals);
    let mut material = Vec::new();
    for (c, cause) in conditionals.into_iter().zip(causes) {
        let code = if c.what.is_constraint() {
            Code::E4
        } else {
            Code::E1
        };
        let at = Some((c.graph.path.as_str(), c.node.index()));
        match (&c.readable.scope, cause) {
            (Scope::EmptyOnly, _) => sink.offer(at, code, || empty_only(&c, &origins, None)),
            // It holds only where a tensor on its path is empty and the node making it fails
            // (`emptied.rs`): an error too.
            (Scope::Requires(_), Some(cause)) => {
                sink.offer(at, code, || empty_only(&c, &origins, Some(&cause)));
            }
            (Scope::Immaterial, _) => {}
            (Scope::Requires(_), None) => material.push(c),
        }
    }
    sink.extend(conditional::findings(&material, &origins, limit));
}

/// The E1 (broadcast) or E4 (operator constraint) of a condition that holds only when some dim
/// is 0, or (with `cause`, which says so) only when a tensor on its path is empty: it fails for
/// every non-empty input.
fn empty_only(c: &Conditional<'_>, origins: &origin::Origins, cause: Option<&str>) -> Finding {
    let (data_dependent, _) = origins.split(&c.condition);
    let inputs = input_sites(c.graph, Some(c.facts), c.node, c.what.slots());
    let counterexample = witness::counterexample(&c.readable.plain, &c.condition, &inputs);
    let condition = match cause {
        Some(cause) => format!("{}, {cause}", c.readable.text),
        None => c.readable.text.clone(),
    };
    match c.what {
        Conditioned::Broadcast(check) => clash::empty_only(
            c.graph,
            c.node,
            c.facts,
            check,
            condition,
            counterexample,
            data_dependent,
        ),
        Conditioned::Constraint(constraint) => super::constraint::empty_only(
            c.graph,
            c.node,
            c.facts,
            constraint,
            condition,
            counterexample,
            data_dependent,
        ),
    }
}

/// The names of the inputs the check broadcasts (`input N` for a missing one), in its order.
fn slot_names(graph: &Graph, node: &Node, check: &BroadcastCheck) -> Vec<String> {
    check
        .slots
        .iter()
        .map(|&slot| {
            node.inputs().get(slot).copied().flatten().map_or_else(
                || format!("input {slot}"),
                |v| graph.value_name(v).to_owned(),
            )
        })
        .collect()
}

/// The shapes of the inputs the check broadcasts, in its order (unranked when unknown).
fn shapes_of<'f>(node: &Node, facts: &'f GraphFacts, check: &BroadcastCheck) -> Vec<&'f Shape> {
    static UNRANKED: Shape = Shape::Unranked;
    check
        .slots
        .iter()
        .map(|&slot| {
            node.inputs()
                .get(slot)
                .copied()
                .flatten()
                .and_then(|v| facts.values.get(v.0 as usize))
                .map_or(&UNRANKED, |f| &f.shape)
        })
        .collect()
}

/// The inputs the check broadcasts, in its order, with their shapes.
fn operands(
    graph: &Graph,
    node: &Node,
    facts: &GraphFacts,
    check: &BroadcastCheck,
) -> Vec<Operand> {
    slot_names(graph, node, check)
        .into_iter()
        .zip(shapes_of(node, facts, check))
        .map(|(name, shape)| Operand::new(name, shape.into()))
        .collect()
}
