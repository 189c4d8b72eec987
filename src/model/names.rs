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

fn name_of(values: &[Value], id: ValueId) -> &str {
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

    /// Records `id`, whose name in `values` must not be indexed yet.
    pub(crate) fn insert(&mut self, id: ValueId, values: &[Value]) {
        let hasher = &self.hasher;
        let hash = hasher.hash_one(name_of(values, id));
        self.table
            .insert_unique(hash, id, |&other| hasher.hash_one(name_of(values, other)));
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
            values.push(value(&format!("v{i}")));
            index.insert(ValueId(i), &values);
        }
        for i in 0..1000 {
            assert_eq!(index.get(&format!("v{i}"), &values), Some(ValueId(i)));
        }
        assert_eq!(index.get("v1000", &values), None);
        assert_eq!(index.get("", &values), None);
    }
}
