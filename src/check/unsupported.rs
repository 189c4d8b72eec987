//! I1: where shape knowledge stops. One note per operator type (with its domain), listing the
//! nodes, so a model with 500 custom ops gives one line, not 500.
//!
//! Why it matters: values downstream of these nodes have unknown shapes (unless declared), so
//! broadcasting there is not checked. Fix: declare output shapes in `value_info`, or ask for the op.

use std::collections::BTreeMap;

use super::sink::Sink;
use super::site::node_site;
use crate::diag::{Code, Facts, Finding};
use crate::infer::{Inference, NodeStatus};
use crate::model::Model;

/// An operator and, for an ONNX operator whose version the engine lacks, why and the version.
type Key = (String, String, Option<(&'static str, i64)>);

/// Most node names listed in one note.
const LISTED: usize = 5;

/// One finding per unsupported `(domain, op_type)`, at its first node, offered to `sink`.
pub(super) fn check(model: &Model, inference: &Inference, sink: &mut Sink<'_>) {
    // Keyed by (domain, op type, why the version is unknown, the version).
    let mut by_op: BTreeMap<Key, Vec<(usize, usize)>> = BTreeMap::new();
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        // A node without an op type is an E3 (`structure.rs`), and nothing more.
        for node in graph.nodes.iter().filter(|node| !node.op_type().is_empty()) {
            let version = match facts.status(node.index()) {
                NodeStatus::Unsupported => None,
                NodeStatus::UnknownVersion(why, version) => Some((*why, *version)),
                _ => continue,
            };
            by_op
                .entry((
                    node.domain().to_string(),
                    node.op_type().to_string(),
                    version,
                ))
                .or_default()
                .push((g, node.index()));
        }
    }
    for ((domain, op_type, version), nodes) in by_op {
        let Some(&(g, first)) = nodes.first() else {
            continue;
        };
        let Some((graph, node)) = model
            .graphs
            .get(g)
            .and_then(|graph| Some((graph, graph.node(first)?)))
        else {
            continue;
        };
        // A file of a few bytes per node can name a million operators: each note is built
        // only when the sink keeps it.
        sink.offer(Some((graph.path.as_str(), node.index())), Code::I1, || {
            let names: Vec<String> = nodes
                .iter()
                .take(LISTED)
                .filter_map(|&(g, n)| {
                    let graph = model.graphs.get(g)?;
                    Some(graph.text(graph.node(n)?.name).to_owned())
                })
                .collect();
            let facts = Facts::Unsupported {
                op_type,
                domain,
                version: version.map(|(_, v)| v),
                reason: version.map(|(why, v)| why.replace("{}", &v.to_string())),
                nodes: names,
                count: nodes.len(),
            };
            Finding::new(facts, Some(node_site(graph, node)), Vec::new())
        });
    }
}
