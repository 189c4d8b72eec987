//! Chunks of a graph's node list decoded ahead of the builder, on the other thread.

use std::ops::Range;

use bytes::Bytes;

use super::super::node_wire::{self, RawNode};
use super::super::wire::NodeLayout;
use super::attribute_sets::AttributeSets;

/// Nodes per chunk of [`Builder::add_in_file`]: about a millisecond of decoding, so the cost
/// of handing a chunk to the other thread is negligible.
pub(super) const DECODE_CHUNK: usize = 1024;

/// A chunk of nodes decoded ahead of the builder, and whether each decoded.
#[derive(Default)]
pub(super) struct DecodedChunk {
    /// Where the chunk's nodes are in the file.
    pub(super) spans: Vec<Range<usize>>,
    pub(super) nodes: Vec<RawNode>,
    pub(super) decoded: Vec<Result<(), String>>,
}

impl DecodedChunk {
    /// Takes the spans of the (up to) `chunk` ([`DECODE_CHUNK`] but in tests) nodes that
    /// follow the first `skip` of `layouts`.
    pub(super) fn take_spans(
        &mut self,
        layouts: Option<&std::vec::IntoIter<NodeLayout>>,
        skip: usize,
        chunk: usize,
    ) {
        let next = layouts
            .and_then(|layouts| layouts.as_slice().get(skip..))
            .unwrap_or_default();
        self.spans.clear();
        self.spans
            .extend(next.iter().take(chunk).map(|layout| layout.span.clone()));
    }

    /// The bytes from the first node of the chunk to the end of its last.
    pub(super) fn range(&self) -> Option<Range<usize>> {
        Some(self.spans.first()?.start..self.spans.last()?.end)
    }

    /// Decodes the nodes at this chunk's spans of `file` into its reused nodes, with their
    /// names' checks under `hasher`. Attribute lists short enough to be shared are left to the
    /// builder, which decodes one only the first time it meets it.
    pub(super) fn decode(&mut self, file: &Bytes, hasher: &foldhash::fast::RandomState) {
        self.nodes.resize_with(self.spans.len(), RawNode::default);
        self.decoded.clear();
        self.decoded
            .extend(self.spans.iter().zip(&mut self.nodes).map(|(span, node)| {
                let mut decoded = node_wire::decode_into(file, span.clone(), node);
                if decoded.is_ok() && !AttributeSets::shareable(&node.attribute_spans) {
                    decoded = node.decode_attributes(file);
                }
                node.fill_checks(file, hasher);
                decoded
            }));
    }
}
