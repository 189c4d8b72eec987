//! I2: the caps a run reached, one finding per limit, at the first node (or graph, for a cap of
//! a whole graph) where it was reached, listing the nodes. Inference and settling record theirs as they fire (`Inference::caps`); the
//! condition-work cap is read here, from the conditions the checks are about to solve, since
//! the solver that caps them runs in `shape/` with no node in hand.
//!
//! Why it matters: past a cap a check was not made, and a silent cap looks like a clean model.

use std::collections::{BTreeMap, BTreeSet};

use super::site::node_site;
use crate::diag::{Facts, Finding};
use crate::infer::Inference;
use crate::limits::{CapHit, Limit};
use crate::model::Model;
use crate::shape::Verdict;

/// Most node names one I2 lists.
const LISTED: usize = 5;

/// One I2 per limit the run reached, at its first node (in graph and node order), listing
/// the nodes: 400 Adds over one rank-300 shape are one folded W1 and one I2, as 500 nodes of
/// an unknown op are one I1.
pub(super) fn check(model: &Model, inference: &Inference) -> Vec<Finding> {
    let mut hits: BTreeSet<CapHit> = inference.caps.iter().copied().collect();
    hits.extend(condition_work(model, inference));
    let mut by_limit: BTreeMap<Limit, Vec<CapHit>> = BTreeMap::new();
    for hit in hits {
        by_limit.entry(hit.limit).or_default().push(hit);
    }
    by_limit
        .into_values()
        .filter_map(|hits| finding(model, &hits))
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
            let broadcasts = facts.checks(node.index()).iter().filter_map(|check| {
                match &check.outcome.verdict {
                    Verdict::Conditional(condition) => Some(condition),
                    Verdict::Valid | Verdict::Invalid(_) => None,
                }
            });
            let constraints = facts
                .constraints(node.index())
                .iter()
                .filter_map(|constraint| constraint.condition());
            if broadcasts
                .chain(constraints)
                .any(crate::shape::Condition::over_budget)
            {
                hits.push(CapHit {
                    graph: graph.id.0,
                    node: Some(node.index()),
                    limit: Limit::ConditionWork,
                });
            }
        }
    }
    hits
}

/// The I2 of one limit's `hits` (in graph and node order): at the first node among them, or
/// naming the first graph when none has a node.
fn finding(model: &Model, hits: &[CapHit]) -> Option<Finding> {
    let first = hits
        .iter()
        .find(|hit| hit.node.is_some())
        .or(hits.first())?;
    let graph = model.graphs.get(first.graph as usize)?;
    let spec = first.limit.spec();
    let at_nodes: Vec<(&crate::model::Graph, usize)> = hits
        .iter()
        .filter_map(|hit| Some((model.graphs.get(hit.graph as usize)?, hit.node?)))
        .collect();
    let nodes = at_nodes
        .iter()
        .take(LISTED)
        .filter_map(|&(graph, index)| Some(graph.text(graph.node(index)?.name).to_owned()))
        .collect();
    let facts = Facts::CapReached {
        limit: spec.name.to_owned(),
        value: spec.default,
        bounds: spec.bounds.to_owned(),
        flag: spec.flag.map(str::to_owned),
        graph: graph.path.clone(),
        nodes,
        count: at_nodes.len(),
    };
    let site = match first.node {
        Some(index) => Some(node_site(graph, graph.node(index)?)),
        None => None,
    };
    Some(Finding::new(facts, site, Vec::new()))
}
