//! E3: structural problems found while loading (cycle, undefined input, duplicate producer,
//! missing op type, no graph).
//!
//! Why it matters: runtimes refuse such a model outright. Fix: repair the exporter's wiring.

use super::site::{input_sites, node_site};
use crate::diag::{Facts, Finding, Structure};
use crate::model::{Model, ProblemKind};

/// One finding per structural problem.
pub(super) fn check(model: &Model) -> Vec<Finding> {
    model
        .problems
        .iter()
        .map(|problem| {
            let graph = model.graph(problem.graph);
            let node = graph.and_then(|g| problem.node.and_then(|n| g.node(n)));
            let problem = match &problem.kind {
                ProblemKind::NoGraph => Structure::NoGraph,
                ProblemKind::Cycle { nodes } => Structure::Cycle { nodes: nodes.len() },
                ProblemKind::UndefinedInput { name } => {
                    Structure::UndefinedInput { name: name.clone() }
                }
                ProblemKind::DuplicateProducer { name } => {
                    Structure::DuplicateProducer { name: name.clone() }
                }
                ProblemKind::MissingOpType => Structure::MissingOpType,
            };
            let (site, inputs) = match (graph, node) {
                (Some(g), Some(n)) => (Some(node_site(g, n)), input_sites(g, None, n, &[])),
                _ => (None, Vec::new()),
            };
            Finding::new(Facts::Structure { problem }, site, inputs)
        })
        .collect()
}
