//! Building the node and input identities that findings carry.

use crate::diag::{InputSite, NodeSite};
use crate::infer::GraphFacts;
use crate::model::{Graph, Node};

/// The identity of `node` in `graph`.
pub(super) fn node_site(graph: &Graph, node: &Node) -> NodeSite {
    NodeSite {
        graph: graph.path.clone(),
        index: node.index,
        name: node.name.clone(),
        op_type: node.op_type.clone(),
        domain: node.domain.clone(),
        span: node.span.clone(),
    }
}

/// The node's present inputs with their inferred shapes; `offending` slots are marked.
pub(super) fn input_sites(
    graph: &Graph,
    facts: Option<&GraphFacts>,
    node: &Node,
    offending: &[usize],
) -> Vec<InputSite> {
    node.inputs
        .iter()
        .enumerate()
        .filter_map(|(slot, value)| {
            let value = (*value)?;
            let shape = facts
                .and_then(|f| f.values.get(value.0 as usize))
                .map_or_else(|| "?".to_owned(), |f| f.shape.to_string());
            Some(InputSite {
                name: graph.value_name(value).to_owned(),
                shape,
                slot,
                offending: offending.contains(&slot),
            })
        })
        .collect()
}
