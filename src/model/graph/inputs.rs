//! The nodes of a graph being built, and the resolution of their inputs by name.

use super::super::node_wire::RawNode;
use super::super::text::RawText;
use super::super::wire::NodeLayout;
use std::sync::Arc;

use super::super::{GraphId, Node, Operator, Opsets, Origin, ValueId};
use super::scopes::PendingSubgraph;
use super::table::Table;

/// The nodes of a graph being built, with what is resolved once all are known.
pub(super) struct BuiltNodes<'a> {
    pub(super) graph: GraphId,
    pub(super) path: &'a str,
    pub(super) opsets: &'a Opsets,
    pub(super) layouts: Option<std::vec::IntoIter<NodeLayout>>,
    /// The nodes not handed to the inference thread: those from [`BuiltNodes::sealed`] on.
    pub(super) nodes: Vec<Node>,
    /// How many nodes were handed to the inference thread (`pipe.rs`): the index of the first
    /// of `nodes`.
    pub(super) sealed: usize,
    pub(super) pending: Vec<PendingSubgraph>,
    /// Inputs not yet defined when their node was added: `(node, slot, name)`, resolved once
    /// every output is known.
    pub(super) deferred: Vec<(usize, usize, RawText)>,
    /// Deferred inputs still undefined once their batch was indexed: read later in the file,
    /// captured from an enclosing graph, or undefined; resolved at the end of the graph. Kept
    /// apart so that each batch tries only its own (issue 19: not every batch all of them).
    pub(super) unresolved: Vec<(usize, usize, RawText)>,
    /// Nodes without an op type since the last batch, reported with its duplicates.
    pub(super) missing_op_types: Vec<usize>,
    /// The value after the furthest initializer an input resolved to so far: where the next
    /// weight read is expected.
    pub(super) next_weight: u32,
    /// The operators of this graph's nodes by their op type, a few dozen at most.
    pub(super) operators: Operators,
}

/// The operators met in one graph, by op type and domain, ahead of the model's interner
/// (issue 19: interning hashed two strings and cloned three shared pointers per node). One
/// graph has one set of opset imports, so the op type and domain decide the operator.
#[derive(Default)]
pub(super) struct Operators {
    slots: Vec<Option<Arc<Operator>>>,
}

/// Slots of [`Operators`]: a few dozen op types per graph, few collisions.
const OPERATOR_SLOTS: usize = 128;

impl Operators {
    /// The operator of `op_type` in `domain`, if met already in this graph.
    pub(super) fn get(&self, domain: &str, op_type: &str) -> Option<&Arc<Operator>> {
        let op = self.slots.get(Self::slot(op_type))?.as_ref()?;
        (op.op_type == op_type && op.domain == domain).then_some(op)
    }

    /// Remembers `op` (replacing the operator of its slot).
    pub(super) fn put(&mut self, op: &Arc<Operator>) {
        if self.slots.is_empty() {
            self.slots.resize(OPERATOR_SLOTS, None);
        }
        if let Some(slot) = self.slots.get_mut(Self::slot(&op.op_type)) {
            *slot = Some(Arc::clone(op));
        }
    }

    /// A slot from the op type's length and a few of its bytes (op types are short).
    fn slot(op_type: &str) -> usize {
        let bytes = op_type.as_bytes();
        let at = |i: usize| usize::from(bytes.get(i).copied().unwrap_or(0));
        let mixed = [
            (bytes.len(), 31),
            (at(0), 7),
            (at(1), 3),
            (at(bytes.len().saturating_sub(1)), 5),
            (at(bytes.len() / 2), 1),
        ]
        .iter()
        .fold(0usize, |sum, &(part, weight)| {
            sum.wrapping_add(part.wrapping_mul(weight))
        });
        mixed % OPERATOR_SLOTS
    }
}

impl BuiltNodes<'_> {
    /// The inputs of node `index` that are already defined; the others are left `None` and
    /// deferred. A name defined now is the value resolution would give at the end: the first
    /// definition of a name wins. They are added to `inputs`.
    pub(super) fn resolve_inputs(
        &mut self,
        index: usize,
        node: &mut RawNode,
        table: &Table,
        inputs: &mut Vec<Option<ValueId>>,
    ) {
        let mut checks = node.input_checks.iter();
        for (slot, name) in node.input.drain(..).enumerate() {
            let check = checks.next().copied();
            if name.is_empty() {
                inputs.push(None);
                continue;
            }
            let wanted = table.raw_bytes(&name);
            // Exported graphs mostly read what the last few nodes wrote: those values and their
            // names are still in cache, while a probe of the name index is a few cache misses at
            // a million values. The checks, computed on the decoding thread, are compared first,
            // a few dozen bytes in a row (issue 34: walking the last nodes' slots cost more than
            // the probe it spared).
            let check = check.unwrap_or_else(|| table.by_name.check(wanted));
            let near = table.recent(wanted, check);
            // Exporters write the initializers in the order the layers read them (each layer
            // its own weights): the next one read is mostly the one after the last read, whose
            // value and name are in cache, while a probe of the name index misses at a million
            // values (issue 19). Only forward: shared constants and weights read again stay with
            // the index.
            let value = near.or_else(|| {
                let expected = ValueId(self.next_weight);
                let found = if table.name_bytes(expected) == wanted {
                    Some(expected)
                } else {
                    table.lookup_checked(wanted, check)
                };
                if let Some(found) = found.filter(|&found| {
                    found.0 >= self.next_weight
                        && table
                            .values
                            .get(found.0 as usize)
                            .is_some_and(|value| value.origin == Origin::Initializer)
                }) {
                    self.next_weight = found.0.saturating_add(1);
                }
                found
            });
            if value.is_none() {
                self.deferred.push((index, slot, name));
            }
            inputs.push(value);
        }
    }

    /// Resolves the inputs deferred in the batch just indexed whose names are now indexed (the
    /// outputs of earlier nodes of the batch); the others wait for the end of the graph.
    pub(super) fn resolve_deferred(&mut self, table: &Table) {
        for (index, slot, name) in self.deferred.drain(..) {
            match table.lookup(table.raw_bytes(&name)) {
                Some(value) => {
                    let position = index.saturating_sub(self.sealed);
                    set_input(&mut self.nodes, position, slot, value);
                }
                None => self.unresolved.push((index, slot, name)),
            }
        }
    }
}

/// Resolves input `slot` of node `index` (deferred when the node was added) to `value`.
pub(super) fn set_input(nodes: &mut [Node], index: usize, slot: usize, value: ValueId) {
    if let Some(input) = nodes
        .get_mut(index)
        .and_then(|node| node.inputs_mut().get_mut(slot))
    {
        *input = Some(value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_operator_is_found_by_its_op_type_and_domain_only() {
        let mut operators = Operators::default();
        assert!(operators.get("", "Add").is_none());
        let add = Operator::new("", "Add", Some(13));
        operators.put(&add);
        assert!(Arc::ptr_eq(operators.get("", "Add").unwrap(), &add));
        assert!(operators.get("com.microsoft", "Add").is_none());
        assert!(operators.get("", "Addx").is_none());
        assert!(operators.get("", "").is_none());
        // Many op types: each found is the one asked for, whatever shares its slot.
        let names: Vec<String> = (0..500).map(|i| format!("Op{i}")).collect();
        for name in &names {
            operators.put(&Operator::new("", name, Some(1)));
            assert_eq!(&*operators.get("", name).unwrap().op_type, name.as_str());
        }
        for name in &names {
            if let Some(op) = operators.get("", name) {
                assert_eq!(&*op.op_type, name.as_str());
            }
        }
    }
}
