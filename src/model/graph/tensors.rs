//! Initializer headers as the builder reads them, with their names kept as ranges of the file.

use std::ops::Range;
use std::path::Path;

use bytes::Bytes;

use super::super::parts::TensorSource;
use super::super::text::RawText;
use super::super::Initializer;
use crate::error::LoadError;

/// An initializer read by the builder.
pub(super) struct ReadTensor {
    /// Its name.
    pub(super) name: RawText,
    /// Its header.
    pub(super) initializer: Initializer,
    /// Where its encoding is in the file (a tensor read from it).
    pub(super) range: Option<Range<usize>>,
}

/// An initializer's header and name, decoded from its bytes in the file, or taken from a decoded
/// tensor. The name is a range of the file unless `copy_name` (the tensor's pages are then given
/// back, and a name read from them would page them in again). A header that does not decode is
/// the file's decode error, located at the tensor.
pub(super) fn read_initializer(
    source: TensorSource,
    file: Option<&Bytes>,
    copy_name: bool,
    file_path: &Path,
    graph_path: &str,
    index: usize,
) -> Result<ReadTensor, LoadError> {
    match source {
        TensorSource::Decoded(tensor) => {
            let (name, initializer) = Initializer::from_decoded(tensor);
            Ok(ReadTensor {
                name: RawText::Owned(name),
                initializer,
                range: None,
            })
        }
        TensorSource::Encoded(bytes) => {
            let range = range_in(file, &bytes);
            let (name, initializer) =
                Initializer::from_encoded(bytes).map_err(|problem| LoadError::Decode {
                    path: file_path.to_path_buf(),
                    offset: range.as_ref().map_or(0, |range| range.start),
                    context: format!("{graph_path}/initializer[{index}]"),
                    problem,
                })?;
            let name = match range_in(file, &name).filter(|_| !copy_name) {
                Some(at) => RawText::InFile(at),
                None => RawText::Copied(name),
            };
            Ok(ReadTensor {
                name,
                initializer,
                range,
            })
        }
    }
}

/// Where `part` lies in `file`, when it is a slice of it.
fn range_in(file: Option<&Bytes>, part: &[u8]) -> Option<Range<usize>> {
    let file = file?;
    let start = (part.as_ptr() as usize).checked_sub(file.as_ptr() as usize)?;
    let end = start.checked_add(part.len())?;
    (end <= file.len()).then_some(start..end)
}

/// Byte ranges of the file already read, given back to the kernel a megabyte at a time.
pub(super) struct Released<'r> {
    release: Option<&'r (dyn Fn(Range<usize>) + Sync)>,
    /// The ranges read since the last release, merged: consecutive entries of a repeated field
    /// are apart by their tag and length only.
    pending: Option<Range<usize>>,
}

impl<'r> Released<'r> {
    /// Bytes between two ranges that still count as consecutive (a tag and a length).
    const GAP: usize = 16;
    /// Pending bytes from which they are given back.
    const CHUNK: usize = 1 << 20;

    pub(super) fn new(release: Option<&'r (dyn Fn(Range<usize>) + Sync)>) -> Self {
        Released {
            release,
            pending: None,
        }
    }

    /// Whether ranges are given back at all.
    pub(super) fn active(&self) -> bool {
        self.release.is_some()
    }

    /// Records `range` as read; gives back what was pending when `range` does not follow it,
    /// or when a chunk is complete. `range` itself stays pending: its tensor's name is still
    /// to be copied, and giving its page back first would page it in again.
    pub(super) fn add(&mut self, range: Range<usize>) {
        if self.release.is_none() {
            return;
        }
        match &mut self.pending {
            Some(pending)
                if range.start >= pending.end
                    && range.start - pending.end <= Self::GAP
                    && pending.len() < Self::CHUNK =>
            {
                pending.end = range.end;
            }
            _ => {
                self.flush();
                self.pending = Some(range);
            }
        }
    }

    fn flush(&mut self) {
        if let (Some(release), Some(range)) = (self.release, self.pending.take()) {
            release(range);
        }
    }
}

impl Drop for Released<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[test]
    fn consecutive_ranges_are_given_back_merged_and_others_apart() {
        let given = Mutex::new(Vec::new());
        let record = |range: Range<usize>| given.lock().unwrap().push(range);
        {
            let mut released = Released::new(Some(&record));
            released.add(0..100);
            released.add(103..200);
            released.add(5_000..6_000);
            released.add(6_002..(6_002 + Released::CHUNK));
            // Full, but its last tensor's name is still to be read: kept until the next range.
            assert_eq!(given.lock().unwrap().len(), 1);
            let next = 6_004 + Released::CHUNK;
            released.add(next..next + 10);
            released.add(9_000_000..9_000_010);
        }
        let given = given.into_inner().unwrap();
        let next = 6_004 + Released::CHUNK;
        assert_eq!(
            given,
            [
                0..200,
                5_000..(6_002 + Released::CHUNK),
                next..next + 10,
                9_000_000..9_000_010
            ]
        );
        let mut inactive = Released::new(None);
        assert!(!inactive.active());
        inactive.add(0..10);
    }
}
