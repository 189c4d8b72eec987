//! The nodes of a graph being built, and the resolution of their inputs by name.

use super::super::node_wire::RawNode;
use super::super::text::RawText;
use super::super::wire::NodeLayout;
use super::super::{GraphId, Node, Opsets, Origin, ValueId};
use super::table::Table;
use super::PendingSubgraph;

/// How many preceding nodes' outputs are compared with an input name before the name index is
/// probed.
const RECENT_NODES: usize = 8;

/// The nodes of a graph being built, with what is resolved once all are known.
pub(super) struct BuiltNodes<'a> {
    pub(super) graph: GraphId,
    pub(super) path: &'a str,
    pub(super) opsets: &'a Opsets,
    pub(super) layouts: Option<std::vec::IntoIter<NodeLayout>>,
    pub(super) nodes: Vec<Node>,
    pub(super) pending: Vec<PendingSubgraph>,
    /// Inputs not yet defined when their node was added: `(node, slot, name)`, resolved once
    /// every output is known.
    pub(super) deferred: Vec<(usize, usize, RawText)>,
    /// The value after the furthest initializer an input resolved to so far: where the next
    /// weight read is expected.
    pub(super) next_weight: u32,
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
        // Exported graphs mostly read what the last few nodes wrote: those values and their
        // names are still in cache, while a probe of the name index is a few cache misses at a
        // million values. Names are unique in the table, so a match is the value the index
        // would give.
        let recent = self.nodes.get(index.saturating_sub(RECENT_NODES)..);
        let mut checks = node.input_checks.iter();
        for (slot, name) in node.input.drain(..).enumerate() {
            let check = checks.next().copied();
            if name.is_empty() {
                inputs.push(None);
                continue;
            }
            let wanted = table.raw_bytes(&name);
            // The checks, computed on the decoding thread, spare most comparisons of names.
            let may_be =
                |value: ValueId| check.is_none_or(|check| table.may_have_check(value, check));
            let near = recent.and_then(|recent| {
                recent
                    .iter()
                    .rev()
                    .flat_map(|node| node.outputs().iter().flatten())
                    .copied()
                    .find(|&value| may_be(value) && table.name_bytes(value) == wanted)
            });
            // Exporters write the initializers in the order the layers read them (each layer
            // its own weights): the next one read is mostly the one after the last read, whose
            // value and name are in cache, while a probe of the name index misses at a million
            // values (issue 19). Only forward: shared constants and weights read again stay with
            // the index.
            let value = near.or_else(|| {
                let expected = ValueId(self.next_weight);
                let found = if table.name_bytes(expected) == wanted {
                    Some(expected)
                } else if let Some(check) = check {
                    table.lookup_checked(wanted, check)
                } else {
                    table.lookup(wanted)
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

    /// Resolves the deferred inputs whose names are now indexed (the outputs of earlier nodes
    /// of the same batch); the others wait for the end of the graph.
    pub(super) fn resolve_deferred(&mut self, table: &Table) {
        let nodes = &mut self.nodes;
        self.deferred.retain(|(index, slot, name)| {
            let Some(value) = table.lookup(table.raw_bytes(name)) else {
                return true;
            };
            if let Some(input) = nodes
                .get_mut(*index)
                .and_then(|node| node.inputs_mut().get_mut(*slot))
            {
                *input = Some(value);
            }
            false
        });
    }
}
