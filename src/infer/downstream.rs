//! Values downstream of a failure: the outputs of a node with an error finding (an operator
//! constraint that fails, E4, or a broadcast that never holds, E1), and every value computed
//! from them, in the same graph, in subgraphs that read them, and out of the `If`s and calls
//! whose bodies make them.
//!
//! Root cause only (STYLE.md): such values are unknown where the failure left them unknown, and
//! raise nothing. A declaration (`value_info`, a graph output) is not taken for them: an
//! exporter declares the shapes of the run it traced, and a dim it names (`Unsqueeze/...
//! _dim_1`) would meet this run's dims in later checks, each a finding of the one fault.

use crate::infer::NodeStatus;
use crate::model::{GraphId, ValueId};
use crate::ops::BroadcastCheck;
use crate::shape::Verdict;

/// A bit per value of each graph, allocated up to the highest one set.
#[derive(Debug, Default)]
pub(super) struct Downstream {
    graphs: Vec<Vec<u64>>,
}

impl Downstream {
    /// Empties `graph`'s bits, as a run of it starts.
    pub(super) fn reset(&mut self, graph: GraphId) {
        if let Some(bits) = self.graphs.get_mut(graph.0 as usize) {
            bits.clear();
        }
    }

    /// Whether `value` of `graph` is downstream of a failure.
    pub(super) fn get(&self, graph: GraphId, value: ValueId) -> bool {
        let index = value.0 as usize;
        self.graphs
            .get(graph.0 as usize)
            .and_then(|bits| bits.get(index / 64))
            .is_some_and(|word| word & (1 << (index % 64)) != 0)
    }

    /// Marks `value` of `graph` as downstream of a failure.
    pub(super) fn set(&mut self, graph: GraphId, value: ValueId) {
        let (graph, index) = (graph.0 as usize, value.0 as usize);
        if self.graphs.len() <= graph {
            self.graphs.resize_with(graph + 1, Vec::new);
        }
        if let Some(bits) = self.graphs.get_mut(graph) {
            if bits.len() <= index / 64 {
                bits.resize(index / 64 + 1, 0);
            }
            if let Some(word) = bits.get_mut(index / 64) {
                *word |= 1 << (index % 64);
            }
        }
    }
}

/// Whether a node's inference is a failure the checks report: a rule's fault (E4, a constraint
/// that never holds among them) or a broadcast that never holds (E1).
pub(super) fn fails(status: &NodeStatus, checks: &[BroadcastCheck]) -> bool {
    matches!(status, NodeStatus::Failed(error) if error.is_fault())
        || checks
            .iter()
            .any(|check| matches!(check.outcome.verdict, Verdict::Invalid(_)))
}

#[cfg(test)]
mod tests {
    use super::Downstream;
    use crate::model::{GraphId, ValueId};

    #[test]
    fn bits_are_per_graph_and_reset_with_a_run() {
        let mut downstream = Downstream::default();
        downstream.set(GraphId(1), ValueId(70));
        assert!(downstream.get(GraphId(1), ValueId(70)));
        assert!(!downstream.get(GraphId(0), ValueId(70)));
        assert!(!downstream.get(GraphId(1), ValueId(6)));
        downstream.reset(GraphId(1));
        assert!(!downstream.get(GraphId(1), ValueId(70)));
    }
}
