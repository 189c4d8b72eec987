//! I1: where shape knowledge stops. One note per operator type (with its domain), listing the
//! nodes, so a model with 500 custom ops gives one line, not 500.
//!
//! Why it matters: values downstream of these nodes have unknown shapes (unless declared), so
//! broadcasting there is not checked. Fix: declare output shapes in `value_info`, or ask for the op.

use std::collections::BTreeMap;

use super::site::node_site;
use crate::diag::{Code, Finding};
use crate::infer::{Inference, NodeStatus};
use crate::model::Model;

/// An operator and, for an ONNX operator whose version the engine lacks, why and the version.
type Key = (String, String, Option<(&'static str, i64)>);

/// Most node names listed in one note.
const LISTED: usize = 5;

/// One finding per unsupported `(domain, op_type)`, at its first node.
pub(super) fn check(model: &Model, inference: &Inference) -> Vec<Finding> {
    // Keyed by (domain, op type, why the version is unknown, the version).
    let mut by_op: BTreeMap<Key, Vec<(usize, usize)>> = BTreeMap::new();
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        for node in &graph.nodes {
            let version = match facts.nodes.get(node.index).map(|f| &f.status) {
                Some(NodeStatus::Unsupported) => None,
                Some(NodeStatus::UnknownVersion(why, version)) => Some((*why, *version)),
                _ => continue,
            };
            by_op
                .entry((node.domain.to_string(), node.op_type.to_string(), version))
                .or_default()
                .push((g, node.index));
        }
    }
    by_op
        .into_iter()
        .filter_map(|((domain, op_type, version), nodes)| {
            let &(g, first) = nodes.first()?;
            let graph = model.graphs.get(g)?;
            let node = graph.node(first)?;
            let qualified = if domain.is_empty() {
                op_type.clone()
            } else {
                format!("{domain}.{op_type}")
            };
            let mut names: Vec<String> = nodes
                .iter()
                .take(LISTED)
                .filter_map(|&(g, n)| Some(format!("`{}`", model.graphs.get(g)?.node(n)?.name)))
                .collect();
            if nodes.len() > LISTED {
                names.push(format!("and {} more", nodes.len() - LISTED));
            }
            let what = match version {
                None => format!("{qualified} is not known to the shape engine"),
                Some((why, version)) => {
                    format!("{qualified}: {}", why.replace("{}", &version.to_string()))
                }
            };
            Some(Finding {
                code: Code::I1,
                message: format!(
                    "{what}: outputs of {} node(s) are unknown unless declared ({})",
                    nodes.len(),
                    names.join(", ")
                ),
                help: Some(
                    "declare the outputs' shapes in value_info so checks can continue past these nodes"
                        .to_owned(),
                ),
                node: Some(node_site(graph, node)),
                inputs: Vec::new(),
            })
        })
        .collect()
}
