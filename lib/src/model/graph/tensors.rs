//! Initializer headers as the builder reads them, with their names kept as ranges of the file.

use std::path::Path;

use bytes::Bytes;

use super::super::parts::TensorSource;
use super::super::text::RawText;
use super::super::Initializer;
use crate::error::LoadError;

/// An initializer's header and name, decoded from its bytes in the file (the name then a range of
/// the file), or taken from a decoded tensor. A header that does not decode is the file's decode
/// error, located at the tensor.
pub(super) fn read_initializer(
    source: TensorSource,
    file: Option<&Bytes>,
    file_path: &Path,
    graph_path: &str,
    index: usize,
) -> Result<(RawText, Initializer), LoadError> {
    match source {
        TensorSource::Decoded(tensor) => {
            let (name, initializer) = Initializer::from_decoded(tensor);
            Ok((RawText::Owned(name), initializer))
        }
        TensorSource::Encoded(bytes) => {
            // The tensor's bytes are a slice of the file: their distance from its start.
            let offset = file.map_or(0, |file| {
                (bytes.as_ptr() as usize).saturating_sub(file.as_ptr() as usize)
            });
            let (name, initializer) =
                Initializer::from_encoded(bytes).map_err(|problem| LoadError::Decode {
                    path: file_path.to_path_buf(),
                    offset,
                    context: format!("{graph_path}/initializer[{index}]"),
                    problem,
                })?;
            Ok((in_file(&name, file), initializer))
        }
    }
}

/// A name decoded as a slice of `file` (checked to be UTF-8), as its range there; a name not
/// in it is copied.
fn in_file(name: &Bytes, file: Option<&Bytes>) -> RawText {
    let file_range = file.map(|file| file.as_ptr_range());
    let start = name.as_ptr() as usize;
    match file_range {
        Some(range)
            if range.start as usize <= start && start + name.len() <= range.end as usize =>
        {
            let at = start - range.start as usize;
            RawText::InFile(at..at + name.len())
        }
        _ => RawText::Owned(String::from_utf8_lossy(name).into_owned()),
    }
}
