//! E3: structural problems found while loading (cycle, undefined input, duplicate producer,
//! missing op type, no graph).
//!
//! Why it matters: runtimes refuse such a model outright. Fix: repair the exporter's wiring.

use std::collections::HashMap;

use super::sink::Sink;
use super::site::{input_sites_keeping, node_site};
use crate::diag::{Code, Facts, Finding, Structure};
use crate::model::{GraphId, Model, Node, ProblemKind, ValueId};

/// One finding per structural problem, built only when the sink would keep it: a file of a
/// few bytes per problem (empty nodes) can hold millions.
pub(super) fn check(model: &Model, sink: &mut Sink<'_>) {
    // The slots of each value read by a node with undefined inputs, found once per node: a
    // node may have thousands of undefined inputs, each its own finding.
    let mut slots_by_node: HashMap<(GraphId, usize), HashMap<ValueId, Vec<usize>>> = HashMap::new();
    for problem in &model.problems {
        let graph = model.graph(problem.graph);
        let node = graph.and_then(|g| problem.node.and_then(|n| g.node(n)));
        let at = graph.zip(node).map(|(g, n)| (g.path.as_str(), n.index()));
        sink.offer(at, Code::E3, || {
            let structure = match &problem.kind {
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
                (Some(g), Some(n)) => {
                    // An undefined input is listed wherever it sits among the node's inputs.
                    let keep = match &problem.kind {
                        ProblemKind::UndefinedInput { name } => g
                            .lookup(name)
                            .and_then(|value| {
                                slots_by_node
                                    .entry((g.id, n.index()))
                                    .or_insert_with(|| slots_of_inputs(n))
                                    .get(&value)
                                    .cloned()
                            })
                            .unwrap_or_default(),
                        _ => Vec::new(),
                    };
                    (
                        Some(node_site(g, n)),
                        input_sites_keeping(g, None, n, &[], &keep),
                    )
                }
                _ => (None, Vec::new()),
            };
            Finding::new(Facts::Structure { problem: structure }, site, inputs)
        });
    }
}

/// The slots at which `node` reads each of its input values.
fn slots_of_inputs(node: &Node) -> HashMap<ValueId, Vec<usize>> {
    let mut slots: HashMap<ValueId, Vec<usize>> = HashMap::new();
    for (slot, value) in node.inputs().iter().enumerate() {
        if let Some(value) = value {
            slots.entry(*value).or_default().push(slot);
        }
    }
    slots
}
