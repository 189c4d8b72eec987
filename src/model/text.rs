//! The names of a graph (its values' and its nodes'), each an eight-byte [`Text`] handle: a range
//! of the file the model was read from, or of the graph's own buffer for names that are not in
//! it (a decoded protobuf's, and the `<op_type>_<index>` names given to unnamed nodes).
//!
//! A million-node model names about two and a half million things. As shared byte strings they
//! took 32 bytes each and an atomic reference-count update on the whole file at every copy; as
//! ranges they take 8 bytes and no update (issue 19: value names as ranges of the mapped file).

use std::ops::Range;

use bytes::Bytes;

/// A name in a graph's [`Texts`]: where it starts and how long it is. The top bit of `at` says
/// which buffer holds it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Text {
    at: u32,
    len: u32,
}

/// The bit of [`Text::at`] that marks a name held in [`Texts::own`].
const OWN: u32 = 1 << 31;

/// The buffers a graph's [`Text`]s point into.
#[derive(Debug, Default)]
pub(crate) struct Texts {
    /// The bytes the model was read from, when it was read from bytes.
    file: Option<Bytes>,
    /// Names not taken from `file`.
    own: String,
}

/// Where a name comes from while a graph is built: a range of the file, already checked to be
/// UTF-8 by the node decoder, or a string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RawText {
    /// Bytes `start..end` of the file.
    InFile(Range<usize>),
    /// A decoded string.
    Owned(String),
    /// Bytes checked to be UTF-8, to be copied into the graph's own buffer.
    Copied(Bytes),
}

impl Default for RawText {
    fn default() -> Self {
        RawText::Owned(String::new())
    }
}

impl RawText {
    /// Whether the name is empty (an absent optional input or output).
    pub(super) fn is_empty(&self) -> bool {
        match self {
            RawText::InFile(range) => range.is_empty(),
            RawText::Owned(text) => text.is_empty(),
            RawText::Copied(bytes) => bytes.is_empty(),
        }
    }

    /// Its bytes, a range of them taken from `file` (empty if out of it).
    pub(super) fn bytes_in<'a>(&'a self, file: &'a [u8]) -> &'a [u8] {
        match self {
            RawText::InFile(range) => file.get(range.clone()).unwrap_or_default(),
            RawText::Owned(text) => text.as_bytes(),
            RawText::Copied(bytes) => bytes,
        }
    }
}

impl Text {
    /// The empty name.
    pub(crate) const EMPTY: Text = Text { at: 0, len: 0 };

    /// Whether the name is empty.
    #[cfg(test)]
    pub(crate) fn is_empty(self) -> bool {
        self.len == 0
    }
}

impl Texts {
    /// Buffers for the names of a graph of the model read from `file`.
    pub(super) fn new(file: Option<Bytes>) -> Self {
        Texts {
            file,
            own: String::new(),
        }
    }

    /// Bytes `range` of the file, if it has them.
    fn in_file(&self, range: Range<usize>) -> Option<&[u8]> {
        self.file.as_deref()?.get(range)
    }

    /// The name `text` as bytes (empty if it is foreign to these buffers).
    pub(crate) fn bytes(&self, text: Text) -> &[u8] {
        let start = (text.at & !OWN) as usize;
        let range = start..start.saturating_add(text.len as usize);
        let held = if text.at & OWN == 0 {
            self.in_file(range)
        } else {
            self.own.as_bytes().get(range)
        };
        held.unwrap_or_default()
    }

    /// The name `text` (empty if it is foreign to these buffers). Every name was checked to be
    /// UTF-8 when it was added; the check here is the one `unsafe` would skip.
    pub(crate) fn get(&self, text: Text) -> &str {
        std::str::from_utf8(self.bytes(text)).unwrap_or_default()
    }

    /// The bytes of a name not yet added (empty if its range is not in the file).
    pub(super) fn raw_bytes<'a>(&'a self, raw: &'a RawText) -> &'a [u8] {
        raw.bytes_in(self.file.as_deref().unwrap_or_default())
    }

    /// Adds a name; a range of the file is kept as a range when it fits in 31 bits. `None`
    /// when the graph's own buffer would pass 2 GiB.
    pub(super) fn add(&mut self, raw: &RawText) -> Option<Text> {
        match raw {
            RawText::InFile(range) if range.is_empty() => Some(Text::EMPTY),
            RawText::InFile(range) => {
                let bytes = self.in_file(range.clone());
                let at = u32::try_from(range.start).ok();
                let len = u32::try_from(range.len()).ok();
                if let (Some(_), Some(at), Some(len)) = (bytes, at, len) {
                    // `None < Some(_)`: an overflowing end must not pass as below the bit.
                    if matches!(at.checked_add(len), Some(end) if end < OWN) {
                        return Some(Text { at, len });
                    }
                }
                // Beyond 2 GiB of the file (or outside it): copied, as a decoded name is.
                let text = bytes.and_then(|bytes| std::str::from_utf8(bytes).ok());
                let copied = text.unwrap_or_default().to_owned();
                self.add_str(&copied)
            }
            RawText::Owned(text) => self.add_str(text),
            RawText::Copied(bytes) => self.add_str(std::str::from_utf8(bytes).unwrap_or_default()),
        }
    }

    /// Adds a name by copying it into the graph's own buffer; `None` when that would pass
    /// 2 GiB.
    pub(super) fn add_str(&mut self, text: &str) -> Option<Text> {
        if text.is_empty() {
            return Some(Text::EMPTY);
        }
        let at = u32::try_from(self.own.len()).ok()?;
        let len = u32::try_from(text.len()).ok()?;
        if at.checked_add(len)? >= OWN {
            return None;
        }
        self.own.push_str(text);
        Some(Text { at: at | OWN, len })
    }

    /// The names copied into the own buffer from byte `from` on (those added since a
    /// [`Texts::own_len`] of `from`): a mirror of these buffers appends them to its own.
    pub(super) fn own_since(&self, from: usize) -> &str {
        self.own.get(from..).unwrap_or_default()
    }

    /// The length of the own buffer.
    pub(super) fn own_len(&self) -> usize {
        self.own.len()
    }

    /// Appends names copied from another graph's own buffer ([`Texts::own_since`]), so that
    /// the other graph's [`Text`]s read the same names here.
    pub(super) fn push_own(&mut self, names: &str) {
        self.own.push_str(names);
    }

    /// The length of a name, read without its bytes.
    pub(super) fn len_of(text: Text) -> usize {
        text.len as usize
    }

    /// Gives back the unused capacity of the own buffer once the graph is built.
    pub(super) fn shrink(&mut self) {
        self.own.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_the_file_stay_ranges_and_others_are_copied() {
        let file = Bytes::from_static(b"xx/layer.0/Add_output_0yy");
        let mut texts = Texts::new(Some(file));
        let ranged = texts.add(&RawText::InFile(2..23)).unwrap();
        let owned = texts.add(&RawText::Owned("Add_7".into())).unwrap();
        let copied = texts.add_str("input").unwrap();
        assert_eq!(texts.get(ranged), "/layer.0/Add_output_0");
        assert_eq!(texts.get(owned), "Add_7");
        assert_eq!(texts.get(copied), "input");
        assert_eq!(texts.own, "Add_7input");
        assert_eq!(texts.get(Text::EMPTY), "");
        assert!(texts.add_str("").unwrap().is_empty());
        assert!(texts.add(&RawText::InFile(1..1)).unwrap().is_empty());
    }

    #[test]
    fn a_range_outside_the_file_is_empty_not_a_panic() {
        let mut texts = Texts::new(Some(Bytes::from_static(b"abc")));
        let outside = texts.add(&RawText::InFile(2..9)).unwrap();
        assert_eq!(texts.get(outside), "");
        let foreign = Text { at: 40, len: 4 };
        assert_eq!(texts.get(foreign), "");
        let mut no_file = Texts::new(None);
        assert_eq!(no_file.add(&RawText::InFile(0..3)).unwrap(), Text::EMPTY);
    }
}
