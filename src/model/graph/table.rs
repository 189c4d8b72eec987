//! A graph's value table while it is being built: values, their names and the name index.

use bytes::Bytes;

use super::super::names::{self, NameIndex};
use super::super::text::{RawText, Text, Texts};
use super::super::{Origin, Value, ValueId, NO_INITIALIZER};

/// How many of the last values waiting to be indexed [`Table::recent`] compares with a name:
/// the outputs of the last dozen nodes or so.
const RECENT_VALUES: usize = 16;

/// A graph's values, their names and its name index while it is being built.
pub(super) struct Table {
    pub(super) values: Vec<Value>,
    pub(super) by_name: NameIndex,
    pub(super) texts: Texts,
    /// The values from this one on are not in the index yet: their names' checks are in
    /// `pending` (see [`Table::push_pending`]).
    pending_from: u32,
    pending: Vec<u32>,
    /// Where the last batch's entries went in the index, reused from batch to batch.
    added: Vec<usize>,
}

impl Table {
    pub(super) fn with_capacity(capacity: usize, file: Option<Bytes>) -> Self {
        Table {
            values: Vec::with_capacity(capacity),
            by_name: NameIndex::with_capacity(capacity),
            texts: Texts::new(file),
            pending_from: 0,
            pending: Vec::new(),
            added: Vec::new(),
        }
    }

    pub(super) fn lookup(&self, name: &[u8]) -> Option<ValueId> {
        self.by_name.get_bytes(name, &self.texts, &self.values)
    }

    /// The value called `name`, whose check is `check`.
    pub(super) fn lookup_checked(&self, name: &[u8], check: u32) -> Option<ValueId> {
        self.by_name
            .get_checked(name, check, &self.texts, &self.values)
    }

    /// The value called `name` (whose check is `check`) among the last [`RECENT_VALUES`] values
    /// waiting to be indexed, the latest first. A name defined twice is found at one of its
    /// values, which [`Table::index_pending`] maps to its first, as the index would give.
    pub(super) fn recent(&self, name: &[u8], check: u32) -> Option<ValueId> {
        let from = self.pending.len().saturating_sub(RECENT_VALUES);
        let last = self.pending.get(from..).unwrap_or_default();
        last.iter()
            .enumerate()
            .rev()
            .filter(|&(_, &pending)| pending == check)
            .map(|(offset, _)| {
                let offset = u32::try_from(from + offset).unwrap_or(u32::MAX);
                ValueId(self.pending_from.saturating_add(offset))
            })
            .find(|&value| self.name_bytes(value) == name)
    }

    pub(super) fn name_bytes(&self, value: ValueId) -> &[u8] {
        names::name_of(&self.texts, &self.values, value)
    }

    pub(super) fn name_of(&self, value: ValueId) -> &str {
        std::str::from_utf8(self.name_bytes(value)).unwrap_or_default()
    }

    /// The bytes of a name not yet added.
    pub(super) fn raw_bytes<'a>(&'a self, raw: &'a RawText) -> &'a [u8] {
        self.texts.raw_bytes(raw)
    }

    /// Defines `name`; returns the existing value and `false` if it was already defined.
    /// Values pushed by [`Table::push_pending`] must be indexed first.
    pub(super) fn define(&mut self, name: Text, origin: Origin) -> (ValueId, bool) {
        let value = ValueId(u32::try_from(self.values.len()).unwrap_or(u32::MAX));
        let bytes = self.texts.bytes(name);
        if let Some(existing) = self
            .by_name
            .get_or_insert(bytes, value, &self.texts, &self.values)
        {
            return (existing, false);
        }
        self.values.push(Value {
            name,
            origin,
            declared: None,
            initializer: NO_INITIALIZER,
        });
        (value, true)
    }

    /// Adds a value without indexing it (a node's output): the index is built for all of them
    /// at once by [`Table::index_pending`], which finds the names defined twice. Until then,
    /// lookups do not see these values; only values defined before the first of them can be
    /// indexed by [`Table::define`]. `check` is the name's check if it was computed already.
    pub(super) fn push_pending(
        &mut self,
        name: Text,
        origin: Origin,
        check: Option<u32>,
    ) -> ValueId {
        let value = ValueId(u32::try_from(self.values.len()).unwrap_or(u32::MAX));
        if self.pending.is_empty() {
            self.pending_from = value.0;
        }
        let check = check.unwrap_or_else(|| self.by_name.check(self.texts.bytes(name)));
        self.pending.push(check);
        self.values.push(Value {
            name,
            origin,
            declared: None,
            initializer: NO_INITIALIZER,
        });
        value
    }

    /// How many values wait to be indexed.
    pub(super) fn pending_len(&self) -> usize {
        self.pending.len()
    }

    /// The node that defined the first value waiting to be indexed.
    pub(super) fn first_pending_node(&self) -> Option<usize> {
        if self.pending.is_empty() {
            return None;
        }
        self.values.get(self.pending_from as usize)?.producer()
    }

    /// Indexes the values added by [`Table::push_pending`]. A name already defined keeps its
    /// first value: the later one is removed from the table (the values after it move down)
    /// and returned with the value of its name, in value order; `renumbered` maps an id given
    /// out before this call to the value it now stands for.
    pub(super) fn index_pending(&mut self) -> (Vec<(Value, ValueId)>, Renumbered) {
        let first = ValueId(self.pending_from);
        let duplicates = self.by_name.define_all(
            first,
            &self.pending,
            &self.texts,
            &self.values,
            &mut self.added,
        );
        self.pending.clear();
        if duplicates.is_empty() {
            return (Vec::new(), Renumbered::default());
        }
        // Each removed value maps to its name's first value, which comes before it (the index
        // keeps the first of equal names), and each kept value moves down by the removed values
        // before it.
        let end = u32::try_from(self.values.len()).unwrap_or(u32::MAX);
        let mut map: Vec<u32> = Vec::with_capacity((end - first.0) as usize);
        let mut removed = duplicates.iter().peekable();
        let mut kept = first.0;
        for id in first.0..end {
            let to = if let Some(&(_, to)) = removed.next_if(|(gone, _)| gone.0 == id) {
                to.0.checked_sub(first.0)
                    .and_then(|offset| map.get(offset as usize).copied())
                    .unwrap_or(to.0)
            } else {
                kept += 1;
                kept - 1
            };
            map.push(to);
        }
        let renumbered = Renumbered {
            first: first.0,
            map,
        };

        // Only the batch's values move, and only its entries of the index: a duplicate in
        // every batch must not cost the whole table each time.
        let mut gone = duplicates.iter().map(|(id, _)| id.0 as usize).peekable();
        let mut removed = Vec::with_capacity(duplicates.len());
        let start = (first.0 as usize).min(self.values.len());
        let batch = self.values.split_off(start);
        for (position, value) in (start..).zip(batch) {
            if gone.next_if_eq(&position).is_some() {
                removed.push(value);
            } else {
                self.values.push(value);
            }
        }
        self.by_name.renumber(&self.added, |id| renumbered.get(id));
        let found = duplicates
            .iter()
            .zip(removed)
            .map(|(&(_, to), value)| (value, renumbered.get(to)))
            .collect();
        (found, renumbered)
    }
}

/// How ids given out before [`Table::index_pending`] map to values after it.
#[derive(Default)]
pub(super) struct Renumbered {
    first: u32,
    /// The new id of each id from `first` on; empty when nothing moved.
    map: Vec<u32>,
}

impl Renumbered {
    /// Whether any id changed.
    pub(super) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// The value `id` now stands for.
    pub(super) fn get(&self, id: ValueId) -> ValueId {
        id.0.checked_sub(self.first)
            .and_then(|offset| self.map.get(offset as usize))
            .map_or(id, |&to| ValueId(to))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of `names` pushed as node outputs, none indexed yet.
    fn pending(names: &[&str]) -> Table {
        let mut table = Table::with_capacity(names.len(), None);
        for (node, name) in names.iter().enumerate() {
            let text = table.texts.add_str(name).unwrap();
            let origin = Origin::Node {
                node: u32::try_from(node).unwrap(),
                slot: 0,
            };
            table.push_pending(text, origin, None);
        }
        table
    }

    fn recent(table: &Table, name: &str) -> Option<ValueId> {
        table.recent(name.as_bytes(), table.by_name.check(name.as_bytes()))
    }

    #[test]
    fn recent_finds_the_last_values_by_name_until_they_are_indexed() {
        let names: Vec<String> = (0..40).map(|i| format!("out{i}")).collect();
        let mut all: Vec<&str> = names.iter().map(String::as_str).collect();
        // A name given twice: the later value is found, the one indexing maps to the first.
        all.push("out39");
        let mut table = pending(&all);
        assert_eq!(recent(&table, "out39"), Some(ValueId(40)));
        assert_eq!(recent(&table, "out30"), Some(ValueId(30)));
        // Only the last 16 values are compared: older ones are the index's to find.
        assert_eq!(recent(&table, "out10"), None);
        assert_eq!(recent(&table, "absent"), None);
        let (duplicates, renumbered) = table.index_pending();
        assert_eq!(duplicates.len(), 1);
        assert_eq!(renumbered.get(ValueId(40)), ValueId(39));
        assert_eq!(recent(&table, "out30"), None);
        assert_eq!(table.lookup(b"out10"), Some(ValueId(10)));
    }
}
