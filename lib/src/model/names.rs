//! The name index of a graph's value table: each name is stored once, in its [`Value`], and the
//! index holds only value ids. A `HashMap<String, ValueId>` kept a second copy of every name (an
//! allocation and a copy per value of a million-node model).
//!
//! foldhash instead of `SipHash`: as fast as Fx, but randomly seeded, so names crafted to collide
//! cannot make loading quadratic.

use std::hash::BuildHasher;

use hashbrown::HashTable;

use super::{Value, ValueId};

/// Value ids hashed by their values' names.
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    table: HashTable<ValueId>,
    hasher: foldhash::fast::RandomState,
}

/// The name of value `id` (empty if the id is foreign).
pub(super) fn name_of(values: &[Value], id: ValueId) -> &str {
    values.get(id.0 as usize).map_or("", |value| &*value.name)
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
    pub(crate) fn get(&self, name: &str, values: &[Value]) -> Option<ValueId> {
        let hash = self.hasher.hash_one(name);
        self.table
            .find(hash, |&id| name_of(values, id) == name)
            .copied()
    }

    /// The value called `name` if there is one; otherwise records `id` for `name` (one probe
    /// instead of a lookup then an insert) and returns `None`. `id` must become the next value
    /// of `values`, named `name`, before the index is used again.
    pub(crate) fn get_or_insert(
        &mut self,
        name: &str,
        id: ValueId,
        values: &[Value],
    ) -> Option<ValueId> {
        let hash = self.hasher.hash_one(name);
        let hasher = &self.hasher;
        let entry = self.table.entry(
            hash,
            |&other| name_of(values, other) == name,
            |&other| hasher.hash_one(name_of(values, other)),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(found) => Some(*found.get()),
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(id);
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Origin;

    fn value(name: &str) -> Value {
        Value {
            name: name.into(),
            origin: Origin::Input,
            declared: None,
            initializer: None,
        }
    }

    #[test]
    fn finds_every_inserted_name_after_growing() {
        let mut values = Vec::new();
        let mut index = NameIndex::with_capacity(0);
        for i in 0..1000 {
            let name = format!("v{i}");
            assert_eq!(index.get_or_insert(&name, ValueId(i), &values), None);
            values.push(value(&name));
        }
        for i in 0..1000 {
            assert_eq!(index.get(&format!("v{i}"), &values), Some(ValueId(i)));
        }
        assert_eq!(index.get("v1000", &values), None);
        assert_eq!(
            index.get_or_insert("v7", ValueId(1000), &values),
            Some(ValueId(7))
        );
        assert_eq!(index.get_or_insert("v1000", ValueId(1000), &values), None);
        values.push(value("v1000"));
        assert_eq!(index.get("v1000", &values), Some(ValueId(1000)));
        assert_eq!(index.get("", &values), None);
    }
}
