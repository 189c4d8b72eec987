//! A graph's value table while it is being built: values, their names and the name index.

use bytes::Bytes;

use super::super::names::{self, NameIndex};
use super::super::text::{RawText, Text, Texts};
use super::super::{Origin, Value, ValueId};

/// A graph's values, their names and its name index while it is being built.
pub(super) struct Table {
    pub(super) values: Vec<Value>,
    pub(super) by_name: NameIndex,
    pub(super) texts: Texts,
}

impl Table {
    pub(super) fn with_capacity(capacity: usize, file: Option<Bytes>) -> Self {
        Table {
            values: Vec::with_capacity(capacity),
            by_name: NameIndex::with_capacity(capacity),
            texts: Texts::new(file),
        }
    }

    pub(super) fn lookup(&self, name: &[u8]) -> Option<ValueId> {
        self.by_name.get_bytes(name, &self.texts, &self.values)
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
            initializer: None,
        });
        (value, true)
    }
}
