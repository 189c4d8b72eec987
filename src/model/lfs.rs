//! Git LFS pointer files: the few lines of text a checkout holds in place of a model stored in
//! Git LFS when the model itself was not fetched (Git LFS spec v1, `docs/spec.md` of git-lfs:
//! `version https://git-lfs.github.com/spec/v1`, `oid sha256:<hex>`, `size <bytes>`, one key per
//! line, `version` first).
//!
//! No ONNX file starts like one: its first byte, `v` (0x76), is field 14 with wire type 6, which
//! protobuf does not have, so the check cannot turn a model into an error.

/// What every pointer starts with (`version` is the first key, and its value names the spec).
const PREFIX: &[u8] = b"version https://git-lfs";

/// The largest pointer read for its `size`: the spec caps a pointer at 1024 bytes.
const MAX_POINTER: usize = 1024;

/// A Git LFS pointer file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Pointer {
    /// The size of the object it stands for, in bytes, when its `size` line says.
    pub size: Option<u64>,
}

/// The pointer `bytes` are, if they are one.
pub(super) fn pointer(bytes: &[u8]) -> Option<Pointer> {
    if !bytes.starts_with(PREFIX) {
        return None;
    }
    let head = bytes.get(..MAX_POINTER).unwrap_or(bytes);
    let size = head
        .split(|&byte| byte == b'\n')
        .filter_map(|line| line.strip_prefix(b"size "))
        .find_map(|value| std::str::from_utf8(value).ok()?.trim().parse().ok());
    Some(Pointer { size })
}

#[cfg(test)]
mod tests {
    use super::*;

    const POINTER: &[u8] = b"version https://git-lfs.github.com/spec/v1\n\
        oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n\
        size 12345\n";

    #[test]
    fn a_pointer_is_recognised_with_its_object_size() {
        assert_eq!(pointer(POINTER), Some(Pointer { size: Some(12345) }));
    }

    #[test]
    fn a_pointer_without_a_readable_size_is_still_a_pointer() {
        assert_eq!(
            pointer(b"version https://git-lfs.github.com/spec/v1\nsize lots\n"),
            Some(Pointer { size: None })
        );
    }

    #[test]
    fn other_bytes_are_not_a_pointer() {
        // An ONNX file starts with `ir_version` (field 1, varint): 0x08.
        assert_eq!(pointer(&[0x08, 0x07, 0x12, 0x00]), None);
        assert_eq!(pointer(b"version 1\n"), None);
        assert_eq!(pointer(b""), None);
    }
}
