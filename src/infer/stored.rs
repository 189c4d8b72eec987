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
//! same values. A value read by a second node keeps its decoded elements from then on: a weight
//! shared by every block (ALBERT-like models) is decoded once, not at each of its reads.

use crate::model::ValueId;

/// Two bits per value of one graph: whether the value's facts are its initializer's with its
/// float elements left in the file, and whether a node has read it.
#[derive(Debug, Clone, Default)]
pub(super) struct Undecoded {
    left: Bits,
    read: Bits,
}

impl Undecoded {
    /// Whether `value`'s elements are left in the file.
    pub(super) fn get(&self, value: ValueId) -> bool {
        self.left.get(value)
    }

    /// Marks `value`'s elements as left in the file.
    pub(super) fn set(&mut self, value: ValueId) {
        self.left.set(value);
    }

    /// `value`'s elements are no longer left in the file: a node wrote its facts, or they were
    /// decoded into them.
    pub(super) fn clear(&mut self, value: ValueId) {
        self.left.clear(value);
    }

    /// Records a node's read of `value`; whether a node had read it before.
    pub(super) fn read_again(&mut self, value: ValueId) -> bool {
        let again = self.read.get(value);
        self.read.set(value);
        again
    }
}

/// A bit per value, allocated up to the highest one set: a graph without float initializers
/// (a loop body run many times over) allocates nothing.
#[derive(Debug, Clone, Default)]
struct Bits(Vec<u64>);

impl Bits {
    fn get(&self, value: ValueId) -> bool {
        let index = value.0 as usize;
        self.0
            .get(index / 64)
            .is_some_and(|word| word & (1 << (index % 64)) != 0)
    }

    fn set(&mut self, value: ValueId) {
        let index = value.0 as usize;
        if self.0.len() <= index / 64 {
            self.0.resize(index / 64 + 1, 0);
        }
        if let Some(word) = self.0.get_mut(index / 64) {
            *word |= 1 << (index % 64);
        }
    }

    fn clear(&mut self, value: ValueId) {
        let index = value.0 as usize;
        if let Some(word) = self.0.get_mut(index / 64) {
            *word &= !(1 << (index % 64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Undecoded;
    use crate::model::ValueId;

    #[test]
    fn bits_set_and_clear_apart() {
        let mut pending = Undecoded::default();
        pending.set(ValueId(0));
        pending.set(ValueId(129));
        assert!(pending.get(ValueId(0)) && pending.get(ValueId(129)));
        assert!(!pending.get(ValueId(64)));
        pending.clear(ValueId(0));
        assert!(!pending.get(ValueId(0)) && pending.get(ValueId(129)));
        // Ids never set are not pending, however high.
        assert!(!pending.get(ValueId(1000)));
        pending.set(ValueId(1000));
        assert!(pending.get(ValueId(1000)) && !pending.get(ValueId(999)));
    }

    #[test]
    fn a_second_read_is_told_apart_from_the_first() {
        let mut pending = Undecoded::default();
        assert!(!pending.read_again(ValueId(3)));
        assert!(pending.read_again(ValueId(3)));
        assert!(!pending.read_again(ValueId(4)));
    }
}
