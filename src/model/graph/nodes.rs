//! A graph's nodes: each decoded node added with its outputs defined and its inputs resolved
//! by name, in batches whose outputs are indexed together, the nodes left in the file decoded a
//! chunk ahead; the graphs their attributes hold are set aside to be built after them.

use std::sync::Arc;

use bytes::Bytes;

use super::super::node_wire::RawNode;
use super::super::parts::{GraphParts, Nodes};
use super::super::text::RawText;
use super::super::wire::GraphLayout;
use super::super::{Attribute, GraphId, Node, Opsets, Origin, ProblemKind, Slots};
use super::chunks::{DecodedChunk, DECODE_CHUNK};
use super::inputs::{self, BuiltNodes};
use super::pipe::Pipeline;
use super::scopes::{Captures, PendingSubgraph};
use super::table::Table;
use super::{Builder, INDEX_BATCH};
use crate::error::LoadError;

/// The file of a model read without one (its nodes' attributes are decoded already).
static NO_FILE: Bytes = Bytes::new();

/// A graph's nodes once added, with what waits for the rest of the graph.
pub(super) struct AddedNodes {
    pub(super) nodes: Vec<Node>,
    /// The graphs their attributes hold.
    pub(super) pending: Vec<PendingSubgraph>,
    /// Inputs not defined when their node was added, `(node, slot, name)`: those still
    /// undefined after their batch, then the last batch's.
    pub(super) unresolved: Vec<(usize, usize, RawText)>,
    pub(super) deferred: Vec<(usize, usize, RawText)>,
}

impl Builder<'_> {
    /// Adds the graph's nodes, decoded or left in the file at its layout's spans.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add_nodes(
        &mut self,
        id: GraphId,
        path: &str,
        opsets: &Opsets,
        layout: Option<GraphLayout>,
        parts: Nodes,
        node_count: usize,
        table: &mut Table,
    ) -> Result<AddedNodes, LoadError> {
        let mut built = BuiltNodes {
            graph: id,
            path,
            opsets,
            layouts: layout.map(|layout| layout.nodes.into_iter()),
            nodes: Vec::with_capacity(node_count),
            sealed: 0,
            pending: Vec::new(),
            deferred: Vec::new(),
            unresolved: Vec::new(),
            missing_op_types: Vec::new(),
            next_weight: 0,
            operators: inputs::Operators::default(),
        };
        match parts {
            Nodes::Decoded(list) => {
                let mut raw = RawNode::default();
                let hasher = table.by_name.hasher();
                for node in list {
                    raw.fill_from(node);
                    raw.fill_checks(&[], &hasher);
                    self.add_node(&mut built, table, &mut raw, Ok(()))?;
                }
            }
            Nodes::InFile => self.add_in_file(&mut built, table)?,
        }
        self.index_outputs(&mut built, table);
        if matches!(self.pipeline, Pipeline::Running(_)) {
            // What `resolve_late` would find by name now; the rest ends the pipeline.
            built.resolve_deferred(table);
            self.seal(&mut built, table, true);
        }
        let BuiltNodes {
            nodes,
            pending,
            deferred,
            unresolved,
            layouts,
            ..
        } = built;
        // Freed before the graph's late inputs are resolved and its DAG is built: at a million
        // nodes the layouts are 40 MB, and the DAG is the peak of loading.
        drop(layouts);
        Ok(AddedNodes {
            nodes,
            pending,
            unresolved,
            deferred,
        })
    }

    /// Resolves the inputs not defined when their node was added: defined by a later node (the
    /// file order need not be topological), captured from an enclosing graph, or undefined. In
    /// node order, as the inputs were met: the values made for undefined and captured names,
    /// and their problems, come in that order.
    pub(super) fn resolve_late(
        &mut self,
        id: GraphId,
        nodes: &mut [Node],
        late: impl Iterator<Item = (usize, usize, RawText)>,
        table: &mut Table,
        captures: &mut Captures,
        parent_id: Option<GraphId>,
    ) -> Result<(), LoadError> {
        for (index, slot, name) in late {
            let value = self.resolve(id, &name, table, captures, Some(index), parent_id)?;
            inputs::set_input(nodes, index, slot, value);
        }
        Ok(())
    }

    /// Indexes the outputs of the nodes added since the last call; an output whose name was
    /// already defined is reported, and the slots that held it hold the name's first value
    /// instead. The problems of those nodes are reported in node order, as they were met.
    pub(super) fn index_outputs(&mut self, built: &mut BuiltNodes<'_>, table: &mut Table) {
        // Only the nodes that defined the values being indexed, or came after them, can hold
        // their ids.
        let from = table
            .first_pending_node()
            .map_or(built.nodes.len(), |from| from.saturating_sub(built.sealed));
        let (duplicates, renumbered) = table.index_pending();
        if !duplicates.is_empty() && built.graph == GraphId(0) {
            self.pipeline.spoil();
        }
        let graph = built.graph;
        // A node's missing op type was found before its outputs: it comes first.
        let mut missing = std::mem::take(&mut built.missing_op_types)
            .into_iter()
            .peekable();
        for (removed, first) in duplicates {
            let node = removed.producer();
            while let Some(index) = missing.next_if(|&index| node.is_none_or(|node| index <= node))
            {
                self.problem(graph, Some(index), ProblemKind::MissingOpType);
            }
            let name = table.name_of(first).to_owned();
            self.problem(graph, node, ProblemKind::DuplicateProducer { name });
        }
        for index in missing {
            self.problem(graph, Some(index), ProblemKind::MissingOpType);
        }
        if !renumbered.is_empty() {
            let since = built.nodes.get_mut(from..).unwrap_or_default();
            let slots = since.iter_mut().flat_map(|node| node.slots.all_mut());
            for value in slots.flatten() {
                *value = renumbered.get(*value);
            }
        }
    }

    /// Adds one decoded node (or the reason it does not decode) to the graph being built.
    fn add_node(
        &mut self,
        built: &mut BuiltNodes<'_>,
        table: &mut Table,
        raw: &mut RawNode,
        decoded: Result<(), String>,
    ) -> Result<(), LoadError> {
        let index = built.sealed + built.nodes.len();
        self.nodes_seen += 1;
        if self.nodes_seen > self.limits.max_nodes {
            return Err(LoadError::Limit {
                path: self.path.to_path_buf(),
                what: "node count",
                limit: self.limits.max_nodes,
                offset: 0,
            });
        }
        let layout = built.layouts.as_mut().and_then(Iterator::next);
        // A short attribute list was left undecoded: most are shared with an earlier node.
        let mut shared = None;
        let decoded = decoded.and_then(|()| {
            if !raw.attributes_undecoded() {
                return Ok(());
            }
            let file = self.file.as_ref().unwrap_or(&NO_FILE);
            shared = self.attribute_sets.lookup(file, &raw.attribute_spans);
            match shared {
                Some(_) => Ok(()),
                None => raw.decode_attributes(file),
            }
        });
        decoded.map_err(|problem| LoadError::Decode {
            path: self.path.to_path_buf(),
            offset: layout.as_ref().map_or(0, |layout| layout.span.start),
            context: format!("{}/node[{index}]", built.path),
            problem,
        })?;
        let (mut node, subgraphs) = self.node(built, index, raw, layout, table, shared)?;
        built.pending.extend(subgraphs);
        let mut slots = std::mem::take(&mut self.slots);
        slots.clear();
        built.resolve_inputs(index, raw, table, &mut slots);
        let inputs = slots.len();
        slots.extend_from_slice(&self.outputs);
        node.slots = Slots::new(&slots, inputs);
        self.slots = slots;
        built.nodes.push(node);
        Ok(())
    }

    /// Adds the nodes left in the file at the spans of the graph's layout, decoding the next
    /// chunk on rayon's other thread while this one builds the current chunk (issue 6: rayon
    /// where work is independent). Two chunk buffers are reused, so decoding allocates nothing
    /// per node.
    fn add_in_file(
        &mut self,
        built: &mut BuiltNodes<'_>,
        table: &mut Table,
    ) -> Result<(), LoadError> {
        let Some(file) = self.file.clone() else {
            return Ok(());
        };
        let mut ready = DecodedChunk::default();
        let mut spare = DecodedChunk::default();
        let forced = self.pipeline.batch();
        let (chunk, index_batch) = forced.map_or((DECODE_CHUNK, INDEX_BATCH), |n| (n, n));
        // The layouts not yet taken by `add_node` start with the ready chunk's.
        ready.take_spans(built.layouts.as_ref(), 0, chunk);
        let hasher = table.by_name.hasher();
        ready.decode(&file, &hasher);
        // The main graph's nodes whose outputs are indexed, except the chunk just built (the
        // names of its last nodes are compared with the next inputs): their pages can be given
        // back. Inputs read from them are resolved by then.
        let release = self.release.filter(|_| built.graph == GraphId(0));
        let mut unreleased = ready.range().map(|range| range.start);
        loop {
            spare.take_spans(built.layouts.as_ref(), ready.spans.len(), chunk);
            let mut build_ready = || -> Result<(), LoadError> {
                for (raw, decoded) in ready.nodes.iter_mut().zip(ready.decoded.drain(..)) {
                    self.add_node(built, table, raw, decoded)?;
                }
                Ok(())
            };
            if spare.spans.is_empty() {
                return build_ready();
            }
            rayon::join(|| spare.decode(&file, &hasher), build_ready).1?;
            if table.pending_len() >= index_batch {
                self.index_outputs(built, table);
                built.resolve_deferred(table);
                if built.graph == GraphId(0) {
                    self.seal(built, table, false);
                }
                if let (Some(release), Some(start), Some(current)) =
                    (release, unreleased, ready.range())
                {
                    release(start..current.start);
                    unreleased = Some(current.start);
                }
            }
            std::mem::swap(&mut ready, &mut spare);
        }
    }

    /// Builds one node: its identity, its outputs in the value table, and its pending subgraphs.
    /// Its inputs are resolved by the caller ([`BuiltNodes::resolve_inputs`]).
    fn node(
        &mut self,
        built: &mut BuiltNodes<'_>,
        index: usize,
        proto: &mut RawNode,
        layout: Option<super::super::wire::NodeLayout>,
        table: &mut Table,
        shared: Option<Arc<Vec<Attribute>>>,
    ) -> Result<(Node, Vec<PendingSubgraph>), LoadError> {
        let domain = super::super::opset::normalise(&proto.domain);
        let op = if let Some(op) = built.operators.get(domain, &proto.op_type) {
            Arc::clone(op)
        } else {
            let opsets = built.opsets;
            let op = self
                .interned
                .operator(domain, &proto.op_type, |domain| opsets.version(domain));
            built.operators.put(&op);
            op
        };
        let (op_type, domain) = (&op.op_type, &op.domain);
        if op_type.is_empty() {
            // Reported with the duplicates of the batch, in node order.
            built.missing_op_types.push(index);
        }
        let named = !proto.name.is_empty();
        let name = if named {
            self.add_text(table, &proto.name)?
        } else {
            self.add_text(table, &RawText::Owned(format!("{op_type}_{index}")))?
        };
        let (span, sub_layouts) = layout.map_or((0..0, None), |l| (l.span, l.subgraphs));
        let (span_start, span_high, span_len) = Node::packed_span(span);
        let sub_layouts = sub_layouts.map(|s| *s).unwrap_or_default();
        let (attributes, pending) = match shared {
            Some(shared) => (shared, Vec::new()),
            None => self.attributes(index, proto, sub_layouts),
        };

        let is_constant = op_type == "Constant" && domain.is_empty();
        let mut outputs = std::mem::take(&mut self.outputs);
        outputs.clear();
        let mut checks = proto.output_checks.iter();
        for (slot, output) in proto.output.drain(..).enumerate() {
            let check = checks.next().copied();
            if output.is_empty() {
                outputs.push(None);
                continue;
            }
            // Below the node limit, which is far below 2^32.
            let node = u32::try_from(index).unwrap_or(u32::MAX);
            let origin = if is_constant {
                Origin::Constant { node }
            } else {
                Origin::Node {
                    node,
                    slot: u32::try_from(slot).unwrap_or(u32::MAX),
                }
            };
            let text = self.add_text(table, &output)?;
            // Indexed with the other nodes' outputs once all are added, which also finds the
            // names defined twice (issue 19: one pass over the index in its own order).
            outputs.push(Some(table.push_pending(text, origin, check)));
        }
        self.outputs = outputs;
        let node = Node {
            // Below the node limit, which is far below 2^32.
            index: u32::try_from(index).unwrap_or(u32::MAX),
            name,
            named,
            op,
            // Filled by `add_node`: the inputs, then `self.outputs`.
            slots: Slots::default(),
            attributes,
            span_start,
            span_high,
            span_len,
            in_cycle: false,
        };
        Ok((node, pending))
    }

    /// A node's attributes, shared with the nodes that carry the same bytes when none holds a
    /// graph, and the graphs its attributes hold, moved out to be built as subgraphs.
    fn attributes(
        &mut self,
        index: usize,
        proto: &mut RawNode,
        mut sub_layouts: Vec<(usize, GraphLayout)>,
    ) -> (Arc<Vec<Attribute>>, Vec<PendingSubgraph>) {
        sub_layouts.reverse();
        let mut take_layout = |ordinal: usize| {
            if sub_layouts.last().is_some_and(|(at, _)| *at == ordinal) {
                sub_layouts.pop().map(|(_, layout)| layout)
            } else {
                None
            }
        };

        let plain = proto
            .attribute
            .iter()
            .all(|attr| attr.g.is_none() && attr.graphs.is_empty());
        let file = self.file.as_deref().unwrap_or_default();
        let mut attributes = Vec::new();
        let mut pending = Vec::new();
        let shared = plain.then(|| {
            self.attribute_sets
                .share(file, &proto.attribute_spans, &mut proto.attribute)
        });
        for (ordinal, mut attr) in proto.attribute.drain(..).enumerate() {
            let body = attr.g.take();
            let many = std::mem::take(&mut attr.graphs);
            if body.is_some() || !many.is_empty() {
                let attr_name = attr.name.clone().unwrap_or_default();
                if let Some(body) = body {
                    pending.push(PendingSubgraph {
                        node: index,
                        attribute: attr_name.clone(),
                        body: GraphParts::from(*body),
                        layout: take_layout(ordinal),
                    });
                }
                let count = many.len();
                for (k, body) in many.into_iter().enumerate() {
                    let attribute = if count == 1 {
                        attr_name.clone()
                    } else {
                        format!("{attr_name}[{k}]")
                    };
                    pending.push(PendingSubgraph {
                        node: index,
                        attribute,
                        body: GraphParts::from(body),
                        layout: take_layout(ordinal),
                    });
                }
            }
            attributes.push(Attribute::from(attr));
        }
        // A list holding no graph is shared (the empty one too); one holding a graph is not
        // empty.
        (shared.unwrap_or_else(|| Arc::new(attributes)), pending)
    }
}
