//! E4: an operator's own shape constraint (not broadcasting) fails whatever the input values: a
//! `MatMul` whose contracted dims differ, a `Conv` whose input channels are not the weight's
//! channels times `group`, an axis attribute out of range, a required input missing. The shape
//! rules find these (the operator docs state each; `onnx.shape_inference` raises on them) and
//! leave the node's outputs unknown, so nothing downstream is reported for the same fault.
//!
//! Why it matters: onnxruntime rejects the model when it creates the session, or the node fails
//! at run time. Example: `MatMul(a: [2, 3], b: [4, 5])`, K is 3 vs 4. Fix: correct the weight or
//! the Reshape/Transpose that feeds the node.
//!
//! Every E4 is built here, that of a constraint holding only when some dim is 0 (it fails for
//! every non-empty input) too. The conditional form (W4) is the same carrier holding under a
//! condition ([`crate::ops::constraint::Holds::If`]), reported with the broadcast conditions in
//! `broadcast/conditional.rs` so that one set of symbols is solved once.

use super::sink::Sink;
use super::site::{input_sites, node_site};
use crate::diag::{Facts, Finding, SizeOrigin};
use crate::infer::GraphFacts;
use crate::infer::{Inference, NodeStatus};
use crate::model::declared;
use crate::model::{Graph, Model, Node};
use crate::ops::{Constraint, RuleError};
use crate::shape::{verify, Binding};

/// One E4 per node whose rule found its spec violated, and per graph input whose initializer
/// contradicts its declared shape.
pub(super) fn check(model: &Model, inference: &Inference, sink: &mut Sink<'_>) {
    sink.extend(initializers_against_inputs(model));
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        for node in &graph.nodes {
            let NodeStatus::Failed(error) = facts.status(node.index()) else {
                continue;
            };
            if error.is_fault() {
                sink.push(unmet(graph, facts, node, error));
            }
        }
    }
}

fn unmet(graph: &Graph, facts: &GraphFacts, node: &Node, error: &RuleError) -> Finding {
    let (facts_of, offending): (Facts, &[usize]) = match error {
        RuleError::Unmet(constraint) => (
            Facts::ConstraintUnmet {
                constraint: constraint.requires.clone(),
                found: constraint.found.clone(),
                fix: constraint.fix.clone(),
                condition: None,
                binding: None,
            },
            &constraint.slots,
        ),
        RuleError::MissingInput(slot) => (Facts::MissingInput { slot: *slot }, &[]),
        RuleError::Attr(attr) => (
            Facts::BadAttribute {
                attribute: attr.attribute.clone(),
                expected: attr.expected.to_string(),
            },
            &[],
        ),
        RuleError::Beyond(text) => (
            Facts::InvalidNode {
                reason: text.clone(),
            },
            &[],
        ),
    };
    Finding::new(
        facts_of,
        Some(node_site(graph, node)),
        input_sites(graph, Some(facts), node, offending),
    )
}

/// E4 for a constraint that holds only when some dim is 0 (`condition`), so it fails for every
/// non-empty input; the W4 it would otherwise be is built with the other conditions
/// (`broadcast/conditional.rs`), which find this one.
pub(super) fn empty_only(
    graph: &Graph,
    node: &Node,
    facts: &GraphFacts,
    constraint: &Constraint,
    condition: String,
    counterexample: Option<Binding>,
    data_dependent: Vec<SizeOrigin>,
) -> Finding {
    let facts_of = Facts::ConstraintEmptyOnly {
        constraint: constraint.requires.clone(),
        fix: constraint.fix.clone(),
        condition,
        counterexample,
        data_dependent,
        data_dependent_left_out: 0,
    };
    Finding::new(
        facts_of,
        Some(node_site(graph, node)),
        input_sites(graph, Some(facts), node, &constraint.slots),
    )
}

/// A graph input that has an initializer (its default from IR 4, a constant before) must
/// declare the initializer's shape: onnxruntime refuses the model when they differ, and
/// `onnx.shape_inference` raises. Compared under the W2 rules: a symbolic declared dim that
/// may take the initializer's size is no contradiction.
fn initializers_against_inputs(model: &Model) -> Vec<Finding> {
    let mut findings = Vec::new();
    for graph in &model.graphs {
        for &id in &graph.inputs {
            let Some(value) = graph.value(id) else {
                continue;
            };
            let Some(tensor) = value
                .initializer()
                .and_then(|i| graph.initializers.get(i as usize))
            else {
                continue;
            };
            let declared_shape = declared::shape_of(value.declared.as_deref());
            let stored = declared::tensor_shape(&tensor.dims);
            if verify::compare(&stored, &declared_shape).is_err() {
                let facts = Facts::InitializerMismatch {
                    input: graph.text(value.name).to_owned(),
                    graph: graph.path.clone(),
                    declared: declared_shape.into(),
                    stored: stored.into(),
                };
                findings.push(Finding::new(facts, None, Vec::new()));
            }
        }
    }
    findings
}
