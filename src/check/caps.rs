//! I2: the caps a run reached, one finding per (limit, node), or per (limit, graph) for a cap of
//! a whole model. Inference and settling record theirs as they fire (`Inference::caps`); the
//! condition-work cap is read here, from the conditions the checks are about to solve, since
//! the solver that caps them runs in `shape/` with no node in hand.
//!
//! Why it matters: past a cap a check was not made, and a silent cap looks like a clean model.

use std::collections::BTreeSet;

use super::site::node_site;
use crate::diag::{Facts, Finding};
use crate::infer::Inference;
use crate::limits::{CapHit, Limit};
use crate::model::Model;
use crate::shape::Verdict;

/// One I2 per cap hit of the run, in graph and node order.
pub(super) fn check(model: &Model, inference: &Inference) -> Vec<Finding> {
    let mut hits: BTreeSet<CapHit> = inference.caps.iter().copied().collect();
    hits.extend(condition_work(model, inference));
    hits.into_iter()
        .filter_map(|hit| finding(model, hit))
        .collect()
}

/// The nodes with a condition larger than the `condition-work` budget: its plain form and
/// searches read only its first clauses there.
fn condition_work(model: &Model, inference: &Inference) -> Vec<CapHit> {
    let mut hits = Vec::new();
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        for node in &graph.nodes {
            let broadcasts =
                facts
                    .checks(node.index)
                    .iter()
                    .filter_map(|check| match &check.outcome.verdict {
                        Verdict::Conditional(condition) => Some(condition),
                        Verdict::Valid | Verdict::Invalid(_) => None,
                    });
            let constraints = facts
                .constraints(node.index)
                .iter()
                .filter_map(|constraint| constraint.condition());
            if broadcasts
                .chain(constraints)
                .any(crate::shape::Condition::over_budget)
            {
                hits.push(CapHit {
                    graph: graph.id.0,
                    node: Some(node.index),
                    limit: Limit::ConditionWork,
                });
            }
        }
    }
    hits
}

/// The I2 of `hit`: at its node, or naming its graph when it has none.
fn finding(model: &Model, hit: CapHit) -> Option<Finding> {
    let graph = model.graphs.get(hit.graph as usize)?;
    let spec = hit.limit.spec();
    let facts = Facts::CapReached {
        limit: spec.name.to_owned(),
        value: spec.default,
        bounds: spec.bounds.to_owned(),
        flag: spec.flag.map(str::to_owned),
        graph: graph.path.clone(),
    };
    let site = match hit.node {
        Some(index) => Some(node_site(graph, graph.node(index)?)),
        None => None,
    };
    Some(Finding::new(facts, site, Vec::new()))
}
