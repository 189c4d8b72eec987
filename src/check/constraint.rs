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
//! The conditional form (W4) comes from the same rules as checks with a condition, and is
//! reported with the broadcast conditions in `broadcast.rs` so that one set of symbols is solved
//! once.

use super::site::{input_sites, node_site};
use crate::diag::{Code, Finding};
use crate::infer::GraphFacts;
use crate::infer::{Inference, NodeStatus};
use crate::model::declared;
use crate::model::{Graph, Model, Node};
use crate::ops::RuleError;
use crate::shape::verify;

/// One E4 per node whose rule found its spec violated, and per graph input whose initializer
/// contradicts its declared shape.
pub(super) fn check(model: &Model, inference: &Inference) -> Vec<Finding> {
    let mut findings = initializers_against_inputs(model);
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        for node in &graph.nodes {
            let Some(NodeStatus::Failed(error)) = facts.nodes.get(node.index).map(|f| &f.status)
            else {
                continue;
            };
            if error.is_fault() {
                findings.push(unmet(graph, facts, node, error));
            }
        }
    }
    findings
}

fn unmet(graph: &Graph, facts: &GraphFacts, node: &Node, error: &RuleError) -> Finding {
    let what = format!("{} node `{}`", node.op_type, node.name);
    let (message, help, offending): (String, String, Vec<usize>) = match error {
        RuleError::Unmet(constraint) => (
            format!("{what}: {constraint}"),
            constraint.fix.clone().unwrap_or_else(|| {
                format!(
                    "{}: change the inputs' shapes (or the node's attributes) so that it holds",
                    constraint.requires
                )
            }),
            constraint.slots.clone(),
        ),
        RuleError::MissingInput(slot) => (
            format!("{what}: required input {slot} is missing"),
            format!(
                "the {} operator requires input {slot}: connect it, or check the opset the model imports",
                node.op_type
            ),
            Vec::new(),
        ),
        RuleError::Attr(attr) => (
            format!(
                "{what}: attribute `{}` must be {}",
                attr.attribute, attr.expected
            ),
            format!("write `{}` with the type the operator doc gives", attr.attribute),
            Vec::new(),
        ),
        RuleError::Invalid(text) | RuleError::Beyond(text) => (
            format!("{what}: {text}"),
            format!("correct the node against the {} operator's doc", node.op_type),
            Vec::new(),
        ),
    };
    Finding {
        code: Code::E4,
        message,
        help: Some(help),
        node: Some(node_site(graph, node)),
        inputs: input_sites(graph, Some(facts), node, &offending),
    }
}

/// A graph input that has an initializer (its default from IR 4, a constant before) must
/// declare the initializer's shape: onnxruntime refuses the model when they differ, and
/// `onnx.shape_inference` raises. Compared under the E2 rules: a symbolic declared dim that
/// may take the initializer's size is no contradiction.
fn initializers_against_inputs(model: &Model) -> Vec<Finding> {
    let mut findings = Vec::new();
    for graph in &model.graphs {
        for &id in &graph.inputs {
            let Some(value) = graph.value(id) else {
                continue;
            };
            let Some(tensor) = value.initializer.and_then(|i| graph.initializers.get(i)) else {
                continue;
            };
            let declared_shape = declared::shape_of(value.declared.as_deref());
            let stored = declared::tensor_shape(&tensor.dims);
            if verify::compare(&stored, &declared_shape).is_err() {
                findings.push(Finding {
                    code: Code::E4,
                    message: format!(
                        "graph input `{}` of {} is declared {declared_shape} but its initializer is {stored}",
                        value.name, graph.path
                    ),
                    help: Some(format!(
                        "make the declaration of `{}` match its initializer's dims, or re-export the initializer",
                        value.name
                    )),
                    node: None,
                    inputs: Vec::new(),
                });
            }
        }
    }
    findings
}
