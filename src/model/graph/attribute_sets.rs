//! Attribute lists shared between the nodes that carry the same ones, byte for byte (issue 19:
//! interned attributes). A transformer's million nodes carry a few dozen distinct lists (one
//! `perm` per Transpose kind, one `epsilon` per norm); each node had its own copy.

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

use super::super::Attribute;
use crate::proto::AttributeProto;

/// Encoded lists up to this size are shared; longer ones (constant tensors above all) are
/// mostly distinct, and keeping their bytes as keys would double them.
const MAX_SHARED_BYTES: usize = 256;

/// Bytes of the key taken by each attribute's length.
const LENGTH_BYTES: usize = 8;

/// The lists seen so far, by their encoding.
#[derive(Debug, Default)]
pub(super) struct AttributeSets {
    seen: HashMap<Box<[u8]>, Arc<Vec<Attribute>>, foldhash::fast::RandomState>,
    /// The encoding of the list being looked up, reused from node to node.
    key: Vec<u8>,
    /// The empty list, which most nodes carry: an `Arc<[_]>` made from nothing still
    /// allocates its counts (a million allocations at a million nodes).
    empty: Option<Arc<Vec<Attribute>>>,
}

impl AttributeSets {
    /// Whether the attributes at `spans` are few enough bytes to be shared: a node's are then
    /// decoded by the builder, and only when [`AttributeSets::lookup`] does not find them.
    pub(super) fn shareable(spans: &[Range<usize>]) -> bool {
        // The test of [`AttributeSets::key_of`], without the bytes.
        let mut key = 0usize;
        for span in spans {
            if key.saturating_add(span.len()) > MAX_SHARED_BYTES {
                return false;
            }
            key = key.saturating_add(LENGTH_BYTES + span.len());
        }
        true
    }

    /// The list shared by the earlier nodes whose attributes are the bytes at `spans` of `file`,
    /// if any; the decoder leaves such lists to the builder ([`AttributeSets::shareable`]), which
    /// decodes one only the first time it is met (issue 34: most nodes carry a list seen before,
    /// and decoding it cost a few allocations per attribute, only to be dropped).
    pub(super) fn lookup(
        &mut self,
        file: &[u8],
        spans: &[Range<usize>],
    ) -> Option<Arc<Vec<Attribute>>> {
        if spans.is_empty() || !self.key_of(file, spans) {
            return None;
        }
        self.seen.get(self.key.as_slice()).map(Arc::clone)
    }

    /// Builds the key of the attributes at `spans` of `file` in [`AttributeSets::key`]; `false`
    /// when they are not all in the file or too long to be shared.
    fn key_of(&mut self, file: &[u8], spans: &[Range<usize>]) -> bool {
        self.key.clear();
        let mut complete = true;
        for span in spans {
            match file.get(span.clone()) {
                // The field's length keeps `[a][bc]` and `[ab][c]` apart.
                Some(bytes) if self.key.len() + bytes.len() <= MAX_SHARED_BYTES => {
                    let length = bytes.len() as u64;
                    self.key.extend_from_slice(&length.to_le_bytes());
                    self.key.extend_from_slice(bytes);
                }
                _ => complete = false,
            }
        }
        complete
    }

    /// The list `decoded`, whose encodings are at `spans` of `file`, shared with the earlier
    /// nodes that carry the same bytes. `decoded` must hold no graph (those are moved out of
    /// their node) and is emptied.
    pub(super) fn share(
        &mut self,
        file: &[u8],
        spans: &[Range<usize>],
        decoded: &mut Vec<AttributeProto>,
    ) -> Arc<Vec<Attribute>> {
        let complete = self.key_of(file, spans) && spans.len() == decoded.len();
        if decoded.is_empty() {
            return self.empty();
        }
        if !complete || spans.is_empty() {
            return Arc::new(decoded.drain(..).map(Attribute::from).collect());
        }
        if let Some(shared) = self.seen.get(self.key.as_slice()) {
            decoded.clear();
            return Arc::clone(shared);
        }
        let list: Arc<Vec<Attribute>> = Arc::new(decoded.drain(..).map(Attribute::from).collect());
        self.seen
            .insert(self.key.as_slice().into(), Arc::clone(&list));
        list
    }

    /// The shared empty list.
    fn empty(&mut self) -> Arc<Vec<Attribute>> {
        Arc::clone(self.empty.get_or_insert_with(|| Arc::new(Vec::new())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use prost::Message;

    fn int(name: &str, value: i64) -> AttributeProto {
        AttributeProto {
            name: Some(name.into()),
            i: Some(value),
            r#type: Some(2),
            ..AttributeProto::default()
        }
    }

    /// The file of the attributes `list`, one after the other, and their spans.
    fn file_of(list: &[AttributeProto]) -> (Vec<u8>, Vec<Range<usize>>) {
        let mut file = Vec::new();
        let mut spans = Vec::new();
        for attribute in list {
            let start = file.len();
            file.extend(attribute.encode_to_vec());
            spans.push(start..file.len());
        }
        (file, spans)
    }

    #[test]
    fn equal_lists_are_shared_and_different_ones_are_not() {
        let mut sets = AttributeSets::default();
        let (file, spans) = file_of(&[int("axis", 1), int("keepdims", 0)]);
        let mut first = vec![int("axis", 1), int("keepdims", 0)];
        let shared = sets.share(&file, &spans, &mut first);
        assert!(first.is_empty());
        assert_eq!(shared.len(), 2);
        let mut again = vec![int("axis", 1), int("keepdims", 0)];
        assert!(Arc::ptr_eq(&shared, &sets.share(&file, &spans, &mut again)));

        let (other_file, other_spans) = file_of(&[int("axis", 2), int("keepdims", 0)]);
        let mut other = vec![int("axis", 2), int("keepdims", 0)];
        let distinct = sets.share(&other_file, &other_spans, &mut other);
        assert!(!Arc::ptr_eq(&shared, &distinct));
        assert_eq!(distinct.first().map(|a| &*a.name), Some("axis"));
    }

    #[test]
    fn long_lists_and_lists_without_spans_are_not_kept() {
        let mut sets = AttributeSets::default();
        let long = AttributeProto {
            name: Some("value".into()),
            ints: vec![7; 300],
            ..AttributeProto::default()
        };
        let (file, spans) = file_of(std::slice::from_ref(&long));
        let mut decoded = vec![long.clone()];
        assert_eq!(sets.share(&file, &spans, &mut decoded).len(), 1);
        let mut decoded = vec![int("axis", 1)];
        assert_eq!(sets.share(&[], &[], &mut decoded).len(), 1);
        assert!(sets.seen.is_empty());
    }

    #[test]
    fn a_list_met_again_is_found_before_it_is_decoded() {
        let mut sets = AttributeSets::default();
        let (file, spans) = file_of(&[int("axis", 1), int("keepdims", 0)]);
        assert!(AttributeSets::shareable(&spans));
        assert!(sets.lookup(&file, &spans).is_none());
        let shared = sets.share(&file, &spans, &mut vec![int("axis", 1), int("keepdims", 0)]);
        let found = sets.lookup(&file, &spans).unwrap();
        assert!(Arc::ptr_eq(&shared, &found));
        assert!(sets.lookup(&file, &[]).is_none());
        // What `shareable` refuses, `share` does not keep.
        let long = AttributeProto {
            name: Some("value".into()),
            ints: vec![7; 300],
            ..AttributeProto::default()
        };
        let (file, spans) = file_of(std::slice::from_ref(&long));
        assert!(!AttributeSets::shareable(&spans));
        sets.share(&file, &spans, &mut vec![long]);
        assert!(sets.lookup(&file, &spans).is_none());
    }

    #[test]
    fn shareable_agrees_with_the_key_at_the_bound() {
        for len in [200, 247, 248, 249, 256, 257] {
            let spans = vec![Range { start: 0, end: len }];
            let file = vec![0u8; len];
            let mut sets = AttributeSets::default();
            assert_eq!(
                AttributeSets::shareable(&spans),
                sets.key_of(&file, &spans),
                "{len}"
            );
            let two = [0..8, 8..len];
            assert_eq!(
                AttributeSets::shareable(&two),
                sets.key_of(&file, &two),
                "{len}"
            );
        }
    }

    #[test]
    fn every_empty_list_is_one_list() {
        let mut sets = AttributeSets::default();
        let first = sets.share(&[], &[], &mut Vec::new());
        assert!(first.is_empty());
        assert!(Arc::ptr_eq(&first, &sets.share(&[], &[], &mut Vec::new())));
        assert!(Arc::ptr_eq(&first, &sets.empty()));
        assert!(sets.seen.is_empty());
    }
}
