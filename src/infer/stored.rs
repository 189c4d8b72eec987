//! Float initializers' elements, decoded when a rule reads them instead of when a graph's run
//! starts.
//!
//! A model with its own weights has about one small float initializer per two nodes (biases,
//! norms, the weights of a narrow layer), each under the size whose elements are carried as data
//! ([`crate::model::tensor::MAX_VALUE_ELEMENTS`]). Decoding them all up front held every weight
//! twice, as `Real`s, for the whole run (issue 19: at a million nodes, most of the heap), while
//! only the few that feed shape arithmetic (`Resize` scales, float constants of size
//! computations) are ever used. The facts of such a value say nothing of its elements, and a bit
//! says they are still in the file; a read decodes them as the eager path did, so rules see the
//! same values.

use crate::model::{Graph, Model, Origin, ValueId};
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;

/// A bit per value of one graph: set while the value's facts are its initializer's and its float
/// elements are left in the file.
#[derive(Debug, Clone, Default)]
pub(super) struct Pending(Vec<u64>);

impl Pending {
    /// No bit set, room for `values` values.
    pub(super) fn with_len(values: usize) -> Self {
        Self(vec![0; values.div_ceil(64)])
    }

    /// Whether `value`'s elements are left in the file.
    pub(super) fn get(&self, value: ValueId) -> bool {
        let index = value.0 as usize;
        self.0
            .get(index / 64)
            .is_some_and(|word| word & (1 << (index % 64)) != 0)
    }

    /// Marks `value`'s elements as left in the file.
    pub(super) fn set(&mut self, value: ValueId) {
        let index = value.0 as usize;
        if let Some(word) = self.0.get_mut(index / 64) {
            *word |= 1 << (index % 64);
        }
    }

    /// `value` now has facts of its own (a node wrote them).
    pub(super) fn clear(&mut self, value: ValueId) {
        let index = value.0 as usize;
        if let Some(word) = self.0.get_mut(index / 64) {
            *word &= !(1 << (index % 64));
        }
    }
}

/// The float elements stored for `value` of `graph`: its initializer's or, for a value the graph
/// captures, the initializer of the enclosing graph that defines it.
pub(super) fn reals(model: &Model, graph: &Graph, value: ValueId) -> Option<ValueTensor<Real>> {
    let (mut graph, mut value) = (graph, value);
    // A capture names a value of an enclosing graph, so the chain is shorter than the list of
    // graphs; the bound only guards against a malformed one.
    for _ in 0..=model.graphs.len() {
        let entry = graph.value(value)?;
        match entry.origin {
            Origin::Initializer => {
                return graph.initializers.get(entry.initializer?)?.real_values()
            }
            Origin::Outer {
                graph: outer,
                value: there,
            } => {
                graph = model.graph(outer)?;
                value = there;
            }
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::Pending;
    use crate::model::ValueId;

    #[test]
    fn bits_set_and_clear_apart() {
        let mut pending = Pending::with_len(130);
        pending.set(ValueId(0));
        pending.set(ValueId(129));
        assert!(pending.get(ValueId(0)) && pending.get(ValueId(129)));
        assert!(!pending.get(ValueId(64)));
        pending.clear(ValueId(0));
        assert!(!pending.get(ValueId(0)) && pending.get(ValueId(129)));
        // Ids past the end are never pending, and setting them is ignored.
        pending.set(ValueId(1000));
        assert!(!pending.get(ValueId(1000)));
    }
}
