//! E3: structural problems found while loading (cycle, undefined input, duplicate producer,
//! missing op type, no graph).
//!
//! Why it matters: runtimes refuse such a model outright. Fix: repair the exporter's wiring.

use super::site::{input_sites, node_site};
use crate::diag::{Code, Finding};
use crate::model::{Model, ProblemKind};

/// One finding per structural problem.
pub(super) fn check(model: &Model) -> Vec<Finding> {
    model
        .problems
        .iter()
        .map(|problem| {
            let graph = model.graph(problem.graph);
            let node = graph.and_then(|g| problem.node.and_then(|n| g.node(n)));
            let what = node.map_or_else(String::new, |n| {
                if n.op_type.is_empty() {
                    format!("node `{}`: ", n.name)
                } else {
                    format!("{} node `{}`: ", n.op_type, n.name)
                }
            });
            let (message, help) = match &problem.kind {
                ProblemKind::NoGraph => (
                    "the model has no graph".to_owned(),
                    "export the model again; a ModelProto must hold a GraphProto",
                ),
                ProblemKind::Cycle { nodes } => (
                    format!("{what}nodes form a cycle ({} nodes)", nodes.len()),
                    "ONNX graphs must be acyclic; loops belong in a Loop or Scan body",
                ),
                ProblemKind::UndefinedInput { name } => (
                    format!(
                        "{what}input `{name}` is produced by no node, graph input or initializer"
                    ),
                    "add the missing initializer or graph input, or fix the input name",
                ),
                ProblemKind::DuplicateProducer { name } => (
                    format!("{what}value `{name}` is produced more than once"),
                    "every value must have exactly one producer (SSA form)",
                ),
                ProblemKind::MissingOpType => (
                    format!("{what}node has no op_type"),
                    "set the node's op_type",
                ),
            };
            Finding {
                code: Code::E3,
                message,
                help: Some(help.to_owned()),
                node: match (graph, node) {
                    (Some(g), Some(n)) => Some(node_site(g, n)),
                    _ => None,
                },
                inputs: match (graph, node) {
                    (Some(g), Some(n)) => input_sites(g, None, n, &[]),
                    _ => Vec::new(),
                },
            }
        })
        .collect()
}
