//! The name index of a graph's value table: each name is stored once, in its [`Value`], and the
//! index holds only value ids. A `HashMap<String, ValueId>` kept a second copy of every name (an
//! allocation and a copy per value of a million-node model).
//!
//! foldhash instead of `SipHash`: as fast as Fx, but randomly seeded, so names crafted to collide
//! cannot make loading quadratic.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::{Texts, Value, ValueId};

/// Value ids hashed by their values' names.
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    table: HashTable<Entry>,
    hasher: foldhash::fast::RandomState,
}

/// A value id with 32 more bits of its name's hash. The table's own tag is 7 bits, so about
/// one insertion in ten compared the new name with an unrelated old one: a read of a random
/// value and of a random page of the file (a cache miss each at a million values, and a page
/// fault once the node list's pages are given back, issue 19). With the extra bits such a
/// comparison is about one in four billion.
#[derive(Debug, Clone, Copy)]
struct Entry {
    id: ValueId,
    check: u32,
}

/// The bits of `hash` kept in an [`Entry`] (the table uses the low ones for the bucket and the
/// top seven for its tag).
fn check_bits(hash: u64) -> u32 {
    let [b0, b1, b2, b3, ..] = (hash >> 25).to_le_bytes();
    u32::from_le_bytes([b0, b1, b2, b3])
}

/// The name of value `id` as bytes (empty if the id is foreign). Names are hashed and compared
/// as bytes: they were checked to be UTF-8 when added, and need not be again at every probe.
pub(super) fn name_of<'a>(texts: &'a Texts, values: &[Value], id: ValueId) -> &'a [u8] {
    values
        .get(id.0 as usize)
        .map_or(&[][..], |value| texts.bytes(value.name))
}

impl NameIndex {
    /// An index with room for `capacity` names.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        NameIndex {
            table: HashTable::with_capacity(capacity),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// The value of `values` called `name`.
    pub(crate) fn get(&self, name: &str, texts: &Texts, values: &[Value]) -> Option<ValueId> {
        self.get_bytes(name.as_bytes(), texts, values)
    }

    /// The value of `values` called `name`, given as bytes.
    pub(crate) fn get_bytes(
        &self,
        name: &[u8],
        texts: &Texts,
        values: &[Value],
    ) -> Option<ValueId> {
        let hash = self.hasher.hash_one(name);
        let check = check_bits(hash);
        self.table
            .find(hash, |entry| {
                entry.check == check && name_of(texts, values, entry.id) == name
            })
            .map(|entry| entry.id)
    }

    /// The value called `name` if there is one; otherwise records `id` for `name` (one probe
    /// instead of a lookup then an insert) and returns `None`. `id` must become the next value
    /// of `values`, named `name`, before the index is used again.
    pub(crate) fn get_or_insert(
        &mut self,
        name: &[u8],
        id: ValueId,
        texts: &Texts,
        values: &[Value],
    ) -> Option<ValueId> {
        let hash = self.hasher.hash_one(name);
        let check = check_bits(hash);
        let hasher = &self.hasher;
        let entry = self.table.entry(
            hash,
            |other| other.check == check && name_of(texts, values, other.id) == name,
            |other| hasher.hash_one(name_of(texts, values, other.id)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => Some(found.get().id),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(Entry { id, check });
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Origin;

    fn value(texts: &mut Texts, name: &str) -> Value {
        Value {
            name: texts.add_str(name).unwrap(),
            origin: Origin::Input,
            declared: None,
            initializer: None,
        }
    }

    #[test]
    fn finds_every_inserted_name_after_growing() {
        let mut values = Vec::new();
        let mut texts = Texts::new(None);
        let mut index = NameIndex::with_capacity(0);
        for i in 0..1000 {
            let name = format!("v{i}");
            let id = ValueId(i);
            assert_eq!(
                index.get_or_insert(name.as_bytes(), id, &texts, &values),
                None
            );
            values.push(value(&mut texts, &name));
        }
        for i in 0..1000 {
            assert_eq!(
                index.get(&format!("v{i}"), &texts, &values),
                Some(ValueId(i))
            );
        }
        assert_eq!(index.get("v1000", &texts, &values), None);
        assert_eq!(
            index.get_or_insert(b"v7", ValueId(1000), &texts, &values),
            Some(ValueId(7))
        );
        assert_eq!(
            index.get_or_insert(b"v1000", ValueId(1000), &texts, &values),
            None
        );
        values.push(value(&mut texts, "v1000"));
        assert_eq!(index.get("v1000", &texts, &values), Some(ValueId(1000)));
        assert_eq!(index.get("", &texts, &values), None);
    }
}
