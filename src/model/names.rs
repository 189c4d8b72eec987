//! The name index of a graph's value table: each name is stored once, in its [`Value`], and the
//! index holds only value ids. A `HashMap<String, ValueId>` kept a second copy of every name (an
//! allocation and a copy per value of a million-node model).
//!
//! An open-addressing table of its own rather than a `HashMap` (issue 19): the values the nodes
//! define are indexed all at once after the nodes are built, in the order of their place in the
//! table, so that a million insertions walk the table front to back instead of missing the cache
//! once each. An entry keeps 32 bits of its name's hash, which also give its place when the table
//! grows: names are not read again then.
//!
//! foldhash instead of `SipHash`: as fast as Fx, but randomly seeded, so names crafted to collide
//! cannot make loading quadratic.

use std::hash::BuildHasher;

use super::{Texts, Value, ValueId};

/// Value ids hashed by their values' names.
#[derive(Debug, Default)]
pub(crate) struct NameIndex {
    /// A power of two of entries (or none), at most three quarters full.
    entries: Vec<Entry>,
    len: usize,
    hasher: foldhash::fast::RandomState,
}

/// A value id with 32 bits of its name's hash (its check), packed as `check << 32 | id + 1`;
/// zero is an empty entry, so a new table is zeroed memory the system gives as it is touched.
/// Names are compared only when the checks match: with a 7-bit tag, about one insertion in ten
/// compared the new name with an unrelated old one, a read of a random value and of a random
/// page of the file (issue 19).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Entry(u64);

const EMPTY: Entry = Entry(0);

impl Entry {
    fn new(id: ValueId, check: u32) -> Self {
        Entry(u64::from(check) << 32 | u64::from(id.0.wrapping_add(1)))
    }

    fn id(self) -> ValueId {
        let [b0, b1, b2, b3, ..] = self.0.to_le_bytes();
        ValueId(u32::from_le_bytes([b0, b1, b2, b3]).wrapping_sub(1))
    }

    fn check(self) -> u32 {
        check_of(self.0)
    }
}

/// Entries per partition of [`NameIndex::define_all`]: 4 KiB of the table, so the insertions
/// of one partition stay within a few cache-resident pages.
const PARTITION: usize = 512;

/// Below this many names, [`NameIndex::define_all`] inserts them in order: sorting them by place
/// costs more than it saves while the table fits in cache.
const SORT_FROM: usize = 1 << 14;

/// The 32 bits of `hash` an entry keeps. The table's place for the name is their low bits.
pub(crate) fn check_of(hash: u64) -> u32 {
    let [.., b4, b5, b6, b7] = hash.to_le_bytes();
    u32::from_le_bytes([b4, b5, b6, b7])
}

/// The check of `name` under `hasher` (an index's, from [`NameIndex::hasher`]).
pub(crate) fn check_with(hasher: &foldhash::fast::RandomState, name: &[u8]) -> u32 {
    check_of(hasher.hash_one(name))
}

/// The name of value `id` as bytes (empty if the id is foreign). Names are hashed and compared
/// as bytes: they were checked to be UTF-8 when added, and need not be again at every probe.
pub(super) fn name_of<'a>(texts: &'a Texts, values: &[Value], id: ValueId) -> &'a [u8] {
    values
        .get(id.0 as usize)
        .map_or(&[][..], |value| texts.bytes(value.name))
}

/// Where a probe for a name ended.
enum Probe {
    /// At the entry of the value of that name.
    Found(ValueId),
    /// At the empty entry where the name would go.
    Vacant(usize),
}

impl NameIndex {
    /// An index with room for `capacity` names.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        let mut index = NameIndex::default();
        index.reserve(capacity);
        index
    }

    /// The check of `name`, to give [`NameIndex::define_all`] (computable on another thread: the
    /// hasher's seed is fixed at creation).
    pub(crate) fn check(&self, name: &[u8]) -> u32 {
        check_with(&self.hasher, name)
    }

    /// A copy of the hasher, to compute checks on another thread ([`check_with`]).
    pub(crate) fn hasher(&self) -> foldhash::fast::RandomState {
        self.hasher.clone()
    }

    /// The value of `values` called `name`, whose check is `check`.
    pub(crate) fn get_checked(
        &self,
        name: &[u8],
        check: u32,
        texts: &Texts,
        values: &[Value],
    ) -> Option<ValueId> {
        match self.probe(name, check, texts, values) {
            Probe::Found(id) => Some(id),
            Probe::Vacant(_) => None,
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
        self.get_checked(name, self.check(name), texts, values)
    }

    /// The value called `name` if there is one; otherwise records `id` for `name` (one probe
    /// instead of a lookup then an insert) and returns `None`. `id` must become the value of
    /// `values` named `name` before the index is used again.
    pub(crate) fn get_or_insert(
        &mut self,
        name: &[u8],
        id: ValueId,
        texts: &Texts,
        values: &[Value],
    ) -> Option<ValueId> {
        self.reserve(self.len.saturating_add(1));
        let check = self.check(name);
        match self.probe(name, check, texts, values) {
            Probe::Found(existing) => Some(existing),
            Probe::Vacant(at) => {
                self.put(at, Entry::new(id, check));
                None
            }
        }
    }

    /// Adds the values `first, first + 1, ...` whose names have the checks `checks`, in that
    /// order of precedence: a name already indexed, or given twice, keeps its first value. The
    /// values must be in `values` already. Returns `(value, the earlier value of its name)` for
    /// each name that was already there, in value order. The places of the entries added are
    /// left in `added`, for [`NameIndex::renumber`].
    pub(crate) fn define_all(
        &mut self,
        first: ValueId,
        checks: &[u32],
        texts: &Texts,
        values: &[Value],
        added: &mut Vec<usize>,
    ) -> Vec<(ValueId, ValueId)> {
        self.reserve(self.len.saturating_add(checks.len()));
        added.clear();
        let mut duplicates = Vec::new();
        let mut define = |index: &mut Self, offset: usize, check: u32| {
            let id = ValueId(
                first
                    .0
                    .saturating_add(u32::try_from(offset).unwrap_or(u32::MAX)),
            );
            let name = name_of(texts, values, id);
            match index.probe(name, check, texts, values) {
                Probe::Found(existing) => duplicates.push((id, existing)),
                Probe::Vacant(at) => {
                    index.put(at, Entry::new(id, check));
                    added.push(at);
                }
            }
        };
        if checks.len() < SORT_FROM {
            for (offset, &check) in checks.iter().enumerate() {
                define(self, offset, check);
            }
        } else {
            for (offset, check) in self.in_place_order(checks) {
                define(self, offset, check);
            }
            // Names given twice are inserted in value order (a stable sort by place, and equal
            // names have equal places), but their pairs were found in place order.
            duplicates.sort_unstable_by_key(|&(id, _)| id.0);
        }
        duplicates
    }

    /// Rewrites the ids of the entries at `places` (those [`NameIndex::define_all`] added)
    /// through `map`, after the values were renumbered: only the batch's own entries, so that
    /// a duplicate in every batch does not make loading quadratic.
    pub(crate) fn renumber(&mut self, places: &[usize], map: impl Fn(ValueId) -> ValueId) {
        for &at in places {
            if let Some(entry) = self.entries.get_mut(at).filter(|entry| **entry != EMPTY) {
                *entry = Entry::new(map(entry.id()), entry.check());
            }
        }
    }

    /// `(offset, check)` of `checks`, sorted by their entries' partition of the table (a
    /// counting sort: stable, linear).
    fn in_place_order(&self, checks: &[u32]) -> Vec<(usize, u32)> {
        let mask = self.mask();
        let partitions = (self.entries.len() / PARTITION).max(1);
        let shift = PARTITION.trailing_zeros();
        let partition = |check: u32| ((check as usize & mask) >> shift).min(partitions - 1);
        let mut starts = vec![0usize; partitions + 1];
        for &check in checks {
            if let Some(count) = starts.get_mut(partition(check) + 1) {
                *count += 1;
            }
        }
        for i in 1..starts.len() {
            let before = starts.get(i - 1).copied().unwrap_or(0);
            if let Some(start) = starts.get_mut(i) {
                *start += before;
            }
        }
        let mut sorted = vec![(0usize, 0u32); checks.len()];
        for (offset, &check) in checks.iter().enumerate() {
            if let Some(next) = starts.get_mut(partition(check)) {
                if let Some(slot) = sorted.get_mut(*next) {
                    *slot = (offset, check);
                }
                *next += 1;
            }
        }
        sorted
    }

    fn mask(&self) -> usize {
        self.entries.len().saturating_sub(1)
    }

    /// Finds `name` (whose check is `check`), or the empty entry where it would go.
    fn probe(&self, name: &[u8], check: u32, texts: &Texts, values: &[Value]) -> Probe {
        let mask = self.mask();
        let mut at = check as usize & mask;
        // At most three quarters of the entries are used, so an empty one is always reached;
        // the bound only guards against an empty table.
        for _ in 0..self.entries.len() {
            match self.entries.get(at) {
                Some(&entry) if entry == EMPTY => return Probe::Vacant(at),
                Some(&entry)
                    if entry.check() == check && name_of(texts, values, entry.id()) == name =>
                {
                    return Probe::Found(entry.id());
                }
                Some(_) => at = (at + 1) & mask,
                None => break,
            }
        }
        Probe::Vacant(usize::MAX)
    }

    fn put(&mut self, at: usize, entry: Entry) {
        if let Some(slot) = self.entries.get_mut(at) {
            *slot = entry;
            self.len += 1;
        }
    }

    /// Makes room for `total` names, doubling the table (and moving its entries by their
    /// checks) as needed.
    fn reserve(&mut self, total: usize) {
        let wanted = total.saturating_mul(4) / 3 + 1;
        if wanted <= self.entries.len() {
            return;
        }
        let size = wanted.max(16).next_power_of_two();
        let old = std::mem::replace(&mut self.entries, vec![EMPTY; size]);
        let mask = size - 1;
        for entry in old.into_iter().filter(|entry| *entry != EMPTY) {
            let mut at = entry.check() as usize & mask;
            while self.entries.get(at).is_some_and(|slot| *slot != EMPTY) {
                at = (at + 1) & mask;
            }
            if let Some(slot) = self.entries.get_mut(at) {
                *slot = entry;
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
            initializer: crate::model::NO_INITIALIZER,
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

    /// `define_all` over `names` after `before` were inserted one by one: the duplicates it
    /// reports, and the index checked against a plain first-definition map.
    fn define_all_over(before: &[String], names: &[String]) -> Vec<(ValueId, ValueId)> {
        let mut values = Vec::new();
        let mut texts = Texts::new(None);
        let mut index = NameIndex::with_capacity(before.len());
        let mut first = std::collections::HashMap::new();
        for (i, name) in before.iter().enumerate() {
            let id = ValueId(u32::try_from(i).unwrap());
            assert_eq!(
                index.get_or_insert(name.as_bytes(), id, &texts, &values),
                None
            );
            values.push(value(&mut texts, name));
            first.insert(name.clone(), id);
        }
        let start = ValueId(u32::try_from(values.len()).unwrap());
        let mut checks = Vec::new();
        let mut expected = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let id = ValueId(start.0 + u32::try_from(i).unwrap());
            checks.push(index.check(name.as_bytes()));
            values.push(value(&mut texts, name));
            match first.get(name) {
                Some(&earlier) => expected.push((id, earlier)),
                None => {
                    first.insert(name.clone(), id);
                }
            }
        }
        let mut added = Vec::new();
        let found = index.define_all(start, &checks, &texts, &values, &mut added);
        assert_eq!(found, expected);
        assert_eq!(added.len(), names.len() - expected.len());
        for (name, &id) in &first {
            assert_eq!(index.get(name, &texts, &values), Some(id), "{name}");
        }
        assert_eq!(index.get("absent", &texts, &values), None);
        found
    }

    #[test]
    fn define_all_keeps_the_first_value_of_a_name_in_place_order_and_in_file_order() {
        let before: Vec<String> = (0..50).map(|i| format!("init{i}")).collect();
        for count in [10, 40_000] {
            // Every 97th name repeats an earlier output, every 1000th an initializer, and the
            // last three repeat one name three times.
            let mut names: Vec<String> = (0..count)
                .map(|i| match i {
                    i if i % 1000 == 999 => format!("init{}", i % 50),
                    i if i % 97 == 96 => format!("out{}", i / 3),
                    i => format!("out{i}"),
                })
                .collect();
            names.extend(["tail", "tail", "tail"].map(String::from));
            let found = define_all_over(&before, &names);
            assert!(found.len() >= 2, "{count}: {}", found.len());
        }
    }

    #[test]
    fn renumbering_moves_the_entries_of_the_batch() {
        let mut values = Vec::new();
        let mut texts = Texts::new(None);
        let mut index = NameIndex::with_capacity(4);
        let mut checks = Vec::new();
        for i in 0..100u32 {
            // Value 10 repeats value 3's name.
            let name = if i == 10 {
                "v3".to_owned()
            } else {
                format!("v{i}")
            };
            if i < 5 {
                index.get_or_insert(name.as_bytes(), ValueId(i), &texts, &values);
            } else {
                checks.push(index.check(name.as_bytes()));
            }
            values.push(value(&mut texts, &name));
        }
        let mut added = Vec::new();
        let found = index.define_all(ValueId(5), &checks, &texts, &values, &mut added);
        assert_eq!(found, [(ValueId(10), ValueId(3))]);
        // Value 10 is removed: the values after it move down by one.
        values.remove(10);
        index.renumber(&added, |id| if id.0 > 10 { ValueId(id.0 - 1) } else { id });
        assert_eq!(index.get("v3", &texts, &values), Some(ValueId(3)));
        assert_eq!(index.get("v99", &texts, &values), Some(ValueId(98)));
        assert_eq!(index.get("v9", &texts, &values), Some(ValueId(9)));
        assert_eq!(index.get("v11", &texts, &values), Some(ValueId(10)));
    }
}
