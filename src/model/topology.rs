//! Topological order and cycles of a graph whose file order is not topological: the one place a
//! DAG is built (petgraph's), used and dropped.

use petgraph::algo::{kosaraju_scc, toposort};
use petgraph::graph::{DiGraph, NodeIndex};

use super::{Graph, ValueId};

/// The nodes of `graph` in a topological order of the edges from each value's producer to its
/// readers (explicit inputs, and the `implicit` values subgraphs of a node capture), and the
/// cycles: nodes on a cycle are left out of the order and listed, sorted, per cycle.
pub(super) fn sort(graph: &Graph, implicit: &[(usize, ValueId)]) -> (Vec<usize>, Vec<Vec<usize>>) {
    let producer = |value: ValueId| graph.values.get(value.0 as usize)?.producer();
    // At most one edge per input slot and per capture: sized once, not grown by doubling.
    let edges = graph
        .nodes
        .iter()
        .map(|node| node.inputs().len())
        .sum::<usize>()
        .saturating_add(implicit.len());
    let mut dag: DiGraph<(), ()> = DiGraph::with_capacity(graph.nodes.len(), edges);
    for _ in &graph.nodes {
        dag.add_node(());
    }
    let explicit = graph.nodes.iter().flat_map(|node| {
        node.inputs()
            .iter()
            .flatten()
            .map(move |&value| (node.index(), value))
    });
    for (to, value) in explicit.chain(implicit.iter().copied()) {
        if let Some(from) = producer(value) {
            dag.add_edge(NodeIndex::new(from), NodeIndex::new(to), ());
        }
    }
    // Acyclic (nearly always): one iterative depth-first pass, no allocation per node.
    if let Ok(sorted) = toposort(&dag, None) {
        return (
            sorted.into_iter().map(NodeIndex::index).collect(),
            Vec::new(),
        );
    }
    let mut order = Vec::with_capacity(graph.nodes.len());
    let mut cycles = Vec::new();
    // kosaraju_scc lists components in reverse topological order. Not tarjan_scc: petgraph's
    // is recursive, one stack frame per node of the longest path, and a deep chain of nodes
    // overflowed a thread's stack.
    for component in kosaraju_scc(&dag).into_iter().rev() {
        let cyclic = component.len() > 1
            || component
                .first()
                .is_some_and(|&n| dag.find_edge(n, n).is_some());
        if cyclic {
            let mut members: Vec<usize> = component.iter().map(|n| n.index()).collect();
            members.sort_unstable();
            cycles.push(members);
        } else {
            order.extend(component.iter().map(|n| n.index()));
        }
    }
    (order, cycles)
}
