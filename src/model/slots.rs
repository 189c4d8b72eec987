//! A node's input and output values, in the node itself when there are few (issue 19: most
//! nodes have at most two inputs and one output, and a million-node model made a million
//! allocations of a few words each, plus a 16-byte pointer in every node), and the graphs its
//! attributes hold, which share the allocation of a longer slot list (issue 34: one word less in
//! every node, since nearly no node has either).

use super::{GraphId, ValueId};

/// How many values a node holds without an allocation.
const INLINE: usize = 3;

/// Input values by slot, then output values by slot, and the node's subgraphs.
#[derive(Debug, Clone)]
pub(crate) enum Slots {
    /// Up to [`INLINE`] values and no subgraph.
    Inline {
        len: u8,
        inputs: u8,
        values: [Option<ValueId>; INLINE],
    },
    /// More values, or a subgraph: one thin pointer, so that the enum stays 32 bytes.
    Heap(Box<Spilled>),
}

/// The slots of a node that does not fit [`Slots::Inline`].
#[derive(Debug, Clone)]
pub(crate) struct Spilled {
    inputs: u32,
    values: Box<[Option<ValueId>]>,
    /// Graph-valued attributes: `(attribute name, graph)`, in attribute order.
    subgraphs: Vec<(String, GraphId)>,
}

impl Default for Slots {
    fn default() -> Self {
        Slots::Inline {
            len: 0,
            inputs: 0,
            values: [None; INLINE],
        }
    }
}

impl Slots {
    /// The first `inputs` of `values` are inputs, the rest outputs.
    pub(crate) fn new(values: &[Option<ValueId>], inputs: usize) -> Self {
        let inputs = inputs.min(values.len());
        match (u8::try_from(values.len()), u8::try_from(inputs)) {
            (Ok(len), Ok(inputs)) if values.len() <= INLINE => {
                let mut inline = [None; INLINE];
                for (slot, value) in inline.iter_mut().zip(values) {
                    *slot = *value;
                }
                Slots::Inline {
                    len,
                    inputs,
                    values: inline,
                }
            }
            _ => Slots::Heap(Box::new(Spilled {
                inputs: u32::try_from(inputs).unwrap_or(u32::MAX),
                values: values.into(),
                subgraphs: Vec::new(),
            })),
        }
    }

    /// Adds a subgraph the node's attribute `attribute` holds, after those already added.
    pub(crate) fn push_subgraph(&mut self, attribute: String, graph: GraphId) {
        if let Slots::Inline { .. } = self {
            let inputs = self.input_count();
            *self = Slots::Heap(Box::new(Spilled {
                inputs: u32::try_from(inputs).unwrap_or(u32::MAX),
                values: self.all().into(),
                subgraphs: Vec::new(),
            }));
        }
        if let Slots::Heap(spilled) = self {
            spilled.subgraphs.push((attribute, graph));
        }
    }

    /// Graph-valued attributes: `(attribute name, graph)`, in attribute order.
    pub(crate) fn subgraphs(&self) -> &[(String, GraphId)] {
        match self {
            Slots::Inline { .. } => &[],
            Slots::Heap(spilled) => &spilled.subgraphs,
        }
    }

    /// Every value, inputs first.
    pub(crate) fn all(&self) -> &[Option<ValueId>] {
        match self {
            Slots::Inline { len, values, .. } => {
                values.get(..usize::from(*len)).unwrap_or_default()
            }
            Slots::Heap(spilled) => &spilled.values,
        }
    }

    /// Every value, inputs first, to rewrite them.
    pub(crate) fn all_mut(&mut self) -> &mut [Option<ValueId>] {
        match self {
            Slots::Inline { len, values, .. } => {
                values.get_mut(..usize::from(*len)).unwrap_or_default()
            }
            Slots::Heap(spilled) => &mut spilled.values,
        }
    }

    /// How many of the values are inputs.
    pub(crate) fn input_count(&self) -> usize {
        match self {
            Slots::Inline { inputs, .. } => usize::from(*inputs),
            Slots::Heap(spilled) => spilled.inputs as usize,
        }
    }

    pub(crate) fn inputs(&self) -> &[Option<ValueId>] {
        self.all().get(..self.input_count()).unwrap_or_default()
    }

    pub(crate) fn outputs(&self) -> &[Option<ValueId>] {
        self.all().get(self.input_count()..).unwrap_or_default()
    }

    pub(crate) fn inputs_mut(&mut self) -> &mut [Option<ValueId>] {
        let inputs = self.input_count();
        self.all_mut().get_mut(..inputs).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_and_outputs_split_where_they_were_given_inline_or_not() {
        let ids: Vec<Option<ValueId>> = (0..6).map(|i| (i != 1).then_some(ValueId(i))).collect();
        for len in 0..=ids.len() {
            for inputs in 0..=len {
                let mut slots = Slots::new(&ids[..len], inputs);
                assert_eq!(slots.inline(), len <= INLINE, "{len}");
                assert_eq!(slots.inputs(), &ids[..inputs]);
                assert_eq!(slots.outputs(), &ids[inputs..len]);
                assert_eq!(slots.all(), &ids[..len]);
                if let Some(first) = slots.inputs_mut().first_mut() {
                    *first = Some(ValueId(9));
                    assert_eq!(slots.all()[0], Some(ValueId(9)));
                }
            }
        }
        assert_eq!(Slots::new(&ids, 9).inputs().len(), ids.len());
        assert!(Slots::default().all().is_empty());
    }

    #[test]
    fn a_subgraph_spills_the_slots_and_keeps_them() {
        let ids: Vec<Option<ValueId>> = vec![Some(ValueId(4)), None, Some(ValueId(7))];
        for len in [0, 2, 3, 5] {
            let ids: Vec<Option<ValueId>> = ids.iter().copied().cycle().take(len).collect();
            let mut slots = Slots::new(&ids, len.min(2));
            assert!(slots.subgraphs().is_empty());
            slots.push_subgraph("then_branch".into(), GraphId(1));
            slots.push_subgraph("else_branch".into(), GraphId(2));
            assert!(!slots.inline());
            assert_eq!(slots.all(), &ids[..]);
            assert_eq!(slots.inputs(), &ids[..len.min(2)]);
            let names: Vec<(&str, u32)> = slots
                .subgraphs()
                .iter()
                .map(|(name, id)| (name.as_str(), id.0))
                .collect();
            assert_eq!(names, [("then_branch", 1), ("else_branch", 2)]);
        }
    }

    #[test]
    fn slots_and_subgraphs_take_32_bytes() {
        // The node list is the largest part of a big model's graph (issue 34).
        assert_eq!(std::mem::size_of::<Slots>(), 32);
    }

    impl Slots {
        fn inline(&self) -> bool {
            matches!(self, Slots::Inline { .. })
        }
    }
}
