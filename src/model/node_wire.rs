//! Decodes a `NodeProto` from its encoding without copying its value names: the node's name and
//! its input and output names become ranges of the input buffer (the mapped file), checked to be
//! UTF-8. prost's decoder allocated and copied each of them: about a third of loading a
//! million-node model.
//!
//! Only the fields the linter reads are decoded (`input` 1, `output` 2, `name` 3, `op_type` 4,
//! `attribute` 5, `domain` 7, per `proto/onnx.proto`); the others are skipped by wire type, as
//! any protobuf decoder skips fields it does not know. Attributes are located, and decoded by
//! prost from their own slices (so tensor payloads stay slices of the file) when asked: the
//! builder decodes a short list only the first time it meets it. Fields are located on the byte
//! slice, and a shared handle (an atomic reference count on the whole file, touched by both
//! loading threads) is taken only for attributes.

use bytes::Bytes;
use prost::Message;

use super::text::RawText;
use super::wire::{read_varint, VarintError};
use crate::proto::{AttributeProto, NodeProto};

/// The fields of a `NodeProto` the graph builder reads.
#[derive(Debug, Default)]
pub(super) struct RawNode {
    pub(super) name: RawText,
    pub(super) op_type: String,
    pub(super) domain: String,
    pub(super) input: Vec<RawText>,
    pub(super) output: Vec<RawText>,
    pub(super) attribute: Vec<AttributeProto>,
    /// Where each attribute's encoding is in the file (empty for a node decoded by prost).
    pub(super) attribute_spans: Vec<std::ops::Range<usize>>,
    /// The name index's checks of `input` and `output` (see [`RawNode::fill_checks`]).
    pub(super) input_checks: Vec<u32>,
    pub(super) output_checks: Vec<u32>,
}

impl RawNode {
    /// Refills this node from a decoded `NodeProto`, keeping its buffers' capacity.
    pub(super) fn fill_from(&mut self, node: NodeProto) {
        self.clear();
        self.name = RawText::Owned(node.name.unwrap_or_default());
        self.op_type = node.op_type.unwrap_or_default();
        self.domain = node.domain.unwrap_or_default();
        self.input
            .extend(node.input.into_iter().map(RawText::Owned));
        self.output
            .extend(node.output.into_iter().map(RawText::Owned));
        self.attribute.extend(node.attribute);
    }

    fn clear(&mut self) {
        self.name = RawText::default();
        self.op_type.clear();
        self.domain.clear();
        self.input.clear();
        self.output.clear();
        self.attribute.clear();
        self.attribute_spans.clear();
        self.input_checks.clear();
        self.output_checks.clear();
    }

    /// Computes the name index's checks of the input and output names, which the decoding
    /// thread does while the builder is busy (issue 19: the builder is the critical path).
    pub(super) fn fill_checks(&mut self, file: &[u8], hasher: &foldhash::fast::RandomState) {
        let check = |raw: &RawText| super::names::check_with(hasher, raw.bytes_in(file));
        self.input_checks.clear();
        self.input_checks.extend(self.input.iter().map(check));
        self.output_checks.clear();
        self.output_checks.extend(self.output.iter().map(check));
    }

    /// Decodes the attributes whose spans are recorded and that are not decoded yet
    /// ([`decode_into`] leaves them all).
    pub(super) fn decode_attributes(&mut self, file: &Bytes) -> Result<(), String> {
        let undecoded = self.attribute_spans.get(self.attribute.len()..);
        for span in undecoded.unwrap_or_default() {
            if file.get(span.clone()).is_none() {
                return Err("NodeProto: buffer underflow".into());
            }
            self.attribute.push(
                AttributeProto::decode(file.slice(span.clone()))
                    .map_err(|error| format!("NodeProto.attribute: {error}"))?,
            );
        }
        Ok(())
    }

    /// Whether some attributes are left to decode ([`RawNode::decode_attributes`]).
    pub(super) fn attributes_undecoded(&self) -> bool {
        self.attribute.len() < self.attribute_spans.len()
    }
}

/// Decodes the node encoded at `span` of `file` into `node` (whose buffers are reused: one node
/// is decoded at a time), but for its attributes, which are located only
/// ([`RawNode::decode_attributes`]); the error says what is wrong, as prost would: an attribute
/// that does not decode, before the fault, is the error.
pub(super) fn decode_into(
    file: &Bytes,
    span: std::ops::Range<usize>,
    node: &mut RawNode,
) -> Result<(), String> {
    let scanned = scan_fields(file, span, node);
    if scanned.is_err() {
        node.decode_attributes(file)?;
    }
    scanned
}

/// The fields of [`decode_into`], attributes located only.
fn scan_fields(
    file: &Bytes,
    span: std::ops::Range<usize>,
    node: &mut RawNode,
) -> Result<(), String> {
    node.clear();
    let base = span.start;
    let data: &[u8] = file.get(span).ok_or("NodeProto: buffer underflow")?;
    let mut pos = 0;
    while pos < data.len() {
        let tag = varint(data, &mut pos)?;
        let field = tag >> 3;
        let wire = tag & 7;
        if field == 0 {
            return Err("NodeProto: invalid field number 0".into());
        }
        let string_or_message = matches!(field, 1..=5 | 7);
        if string_or_message && wire != 2 {
            return Err(format!(
                "NodeProto field {field}: invalid wire type {wire} (expected 2)"
            ));
        }
        match wire {
            0 => {
                varint(data, &mut pos)?;
            }
            1 => advance(data, &mut pos, 8)?,
            5 => advance(data, &mut pos, 4)?,
            2 => {
                let len = usize::try_from(varint(data, &mut pos)?).unwrap_or(usize::MAX);
                let start = pos;
                advance(data, &mut pos, len)
                    .map_err(|_| format!("NodeProto field {field}: buffer underflow"))?;
                let body = start..pos;
                let in_file = base + start..base + pos;
                match field {
                    1 => node.input.push(text_range(data, body, in_file, "input")?),
                    2 => node.output.push(text_range(data, body, in_file, "output")?),
                    3 => node.name = text_range(data, body, in_file, "name")?,
                    4 => copy_text(data, body, "op_type", &mut node.op_type)?,
                    5 => node.attribute_spans.push(in_file),
                    7 => copy_text(data, body, "domain", &mut node.domain)?,
                    _ => {}
                }
            }
            _ => return Err(format!("NodeProto field {field}: invalid wire type {wire}")),
        }
    }
    Ok(())
}

fn not_utf8(field: &str) -> String {
    format!("NodeProto.{field}: invalid string value: data is not UTF-8 encoded")
}

/// A string field kept as its range of the input buffer, once checked to be UTF-8.
fn text_range(
    data: &[u8],
    body: std::ops::Range<usize>,
    in_file: std::ops::Range<usize>,
    field: &str,
) -> Result<RawText, String> {
    let slice = data.get(body).unwrap_or_default();
    if !is_utf8(slice) {
        return Err(not_utf8(field));
    }
    Ok(RawText::InFile(in_file))
}

/// Whether `bytes` are UTF-8. Names are nearly always ASCII, which is checked a word at a time
/// and inline; the general check cost a call and a hundred instructions a name, five names a
/// node.
#[inline]
fn is_utf8(bytes: &[u8]) -> bool {
    bytes.is_ascii() || std::str::from_utf8(bytes).is_ok()
}

/// A string field copied into `into`'s reused buffer (op types and domains are short, and the
/// builder interns them).
fn copy_text(
    data: &[u8],
    body: std::ops::Range<usize>,
    field: &str,
    into: &mut String,
) -> Result<(), String> {
    let slice = data.get(body).unwrap_or_default();
    let text = std::str::from_utf8(slice).map_err(|_| not_utf8(field))?;
    into.clear();
    into.push_str(text);
    Ok(())
}

fn advance(data: &[u8], pos: &mut usize, len: usize) -> Result<(), String> {
    match pos.checked_add(len) {
        Some(next) if next <= data.len() => {
            *pos = next;
            Ok(())
        }
        _ => Err("NodeProto: buffer underflow".into()),
    }
}

#[inline]
fn varint(data: &[u8], pos: &mut usize) -> Result<u64, String> {
    read_varint(data, pos, data.len()).map_err(varint_error)
}

/// The error of a varint that does not read, out of line: [`varint`] is inlined.
#[cold]
fn varint_error(error: VarintError) -> String {
    match error {
        VarintError::Truncated => "NodeProto: buffer underflow".into(),
        VarintError::TooLong => "NodeProto: invalid varint".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::attribute_proto::AttributeType;

    fn encode(node: &NodeProto) -> Bytes {
        Bytes::from(node.encode_to_vec())
    }

    fn decode(bytes: impl Into<Bytes>) -> Result<RawNode, String> {
        let mut node = RawNode::default();
        let bytes = bytes.into();
        decode_into(&bytes, 0..bytes.len(), &mut node)?;
        node.decode_attributes(&bytes).map(|()| node)
    }

    /// The text a decoded name stands for in `file`.
    fn text<'a>(file: &'a [u8], raw: &'a RawText) -> &'a str {
        match raw {
            RawText::InFile(range) => std::str::from_utf8(&file[range.clone()]).unwrap(),
            RawText::Owned(text) => text,
            RawText::Copied(bytes) => std::str::from_utf8(bytes).unwrap(),
        }
    }

    fn texts<'a>(file: &'a [u8], raw: &'a [RawText]) -> Vec<&'a str> {
        raw.iter().map(|raw| text(file, raw)).collect()
    }

    #[test]
    fn decodes_the_fields_prost_decodes() {
        let node = NodeProto {
            name: Some("mm".into()),
            op_type: Some("MatMul".into()),
            domain: Some("ai.onnx".into()),
            input: vec!["a".into(), String::new(), "b".into()],
            output: vec!["y".into()],
            doc_string: Some("skipped".into()),
            overload: Some("skipped".into()),
            attribute: vec![AttributeProto {
                name: Some("axis".into()),
                r#type: Some(AttributeType::Int as i32),
                i: Some(-1),
                ..AttributeProto::default()
            }],
            ..NodeProto::default()
        };
        let file = encode(&node);
        let raw = decode(file.clone()).unwrap();
        assert_eq!(text(&file, &raw.name), "mm");
        assert_eq!(&*raw.op_type, "MatMul");
        assert_eq!(&*raw.domain, "ai.onnx");
        assert_eq!(texts(&file, &raw.input), ["a", "", "b"]);
        assert_eq!(texts(&file, &raw.output), ["y"]);
        assert_eq!(raw.attribute, node.attribute);
        let mut filled = RawNode::default();
        filled.fill_from(node);
        assert_eq!(texts(&[], &filled.input), texts(&file, &raw.input));
        assert_eq!(filled.op_type, raw.op_type);
    }

    #[test]
    fn a_reused_node_keeps_nothing_of_the_previous_one() {
        let mut raw = RawNode::default();
        let first = encode(&NodeProto {
            name: Some("first".into()),
            input: vec!["a".into(), "b".into()],
            ..NodeProto::default()
        });
        decode_into(&first, 0..first.len(), &mut raw).unwrap();
        decode_into(&encode(&NodeProto::default()), 0..0, &mut raw).unwrap();
        assert!(raw.name.is_empty() && raw.input.is_empty());
    }

    #[test]
    fn names_are_ranges_of_the_input_buffer() {
        let bytes = encode(&NodeProto {
            input: vec!["a_rather_long_value_name".into()],
            ..NodeProto::default()
        });
        let raw = decode(bytes.clone()).unwrap();
        assert!(
            matches!(raw.input.first(), Some(RawText::InFile(range)) if range.end <= bytes.len())
        );
        assert_eq!(texts(&bytes, &raw.input), ["a_rather_long_value_name"]);
    }

    #[test]
    fn a_node_is_decoded_at_its_span_of_the_file() {
        let first = encode(&NodeProto {
            name: Some("first".into()),
            ..NodeProto::default()
        });
        let second = encode(&NodeProto {
            name: Some("second".into()),
            input: vec!["x".into()],
            output: vec!["y".into()],
            attribute: vec![AttributeProto {
                name: Some("axis".into()),
                i: Some(2),
                ..AttributeProto::default()
            }],
            ..NodeProto::default()
        });
        let file = Bytes::from([b"junk".as_slice(), &first, &second, b"tail"].concat());
        let at = 4 + first.len();
        let mut raw = RawNode::default();
        decode_into(&file, at..at + second.len(), &mut raw).unwrap();
        assert!(raw.attributes_undecoded() && raw.attribute.is_empty());
        raw.decode_attributes(&file).unwrap();
        assert!(!raw.attributes_undecoded());
        assert_eq!(text(&file, &raw.name), "second");
        assert_eq!(
            (texts(&file, &raw.input), texts(&file, &raw.output)),
            (vec!["x"], vec!["y"])
        );
        assert_eq!(raw.attribute.first().and_then(|a| a.i), Some(2));
        assert!(decode_into(&file, at..file.len() + 1, &mut raw).is_err());
    }

    #[test]
    fn attribute_tensor_payloads_share_the_input_buffer() {
        use crate::proto::TensorProto;
        let bytes = encode(&NodeProto {
            op_type: Some("Constant".into()),
            attribute: vec![AttributeProto {
                name: Some("value".into()),
                r#type: Some(AttributeType::Tensor as i32),
                t: Some(Box::new(TensorProto {
                    raw_data: Some(vec![9u8; 4096].into()),
                    ..TensorProto::default()
                })),
                ..AttributeProto::default()
            }],
            ..NodeProto::default()
        });
        let range = bytes.as_ptr_range();
        let raw = decode(bytes.clone()).unwrap();
        let payload = raw.attribute[0]
            .t
            .as_ref()
            .unwrap()
            .raw_data
            .as_ref()
            .unwrap();
        assert_eq!(payload.len(), 4096);
        assert!(range.contains(&payload.as_ptr()));
    }

    #[test]
    fn later_scalar_fields_win_as_in_protobuf() {
        let mut bytes = encode(&NodeProto {
            op_type: Some("Add".into()),
            ..NodeProto::default()
        })
        .to_vec();
        bytes.extend_from_slice(&encode(&NodeProto {
            op_type: Some("Mul".into()),
            ..NodeProto::default()
        }));
        let raw = decode(Bytes::from(bytes)).unwrap();
        assert_eq!(&*raw.op_type, "Mul");
    }

    #[test]
    fn malformed_encodings_are_errors() {
        // op_type (field 4) as a varint
        assert!(decode(Bytes::from_static(&[0x20, 0x01])).is_err());
        // input (field 1) longer than the buffer
        assert!(decode(Bytes::from_static(&[0x0a, 0x05, b'a'])).is_err());
        // invalid UTF-8 in a name, and in a longer one (past the ASCII check's first word)
        assert!(decode(Bytes::from_static(&[0x1a, 0x01, 0xff])).is_err());
        let bad = b"abcdefghijklmnopq\xc3(";
        let mut long = vec![0x0a, u8::try_from(bad.len()).unwrap()];
        long.extend_from_slice(bad);
        assert!(decode(Bytes::from(long)).is_err());
        // a name that is UTF-8 but not ASCII is kept
        let name = "abcdefghijklmnop\u{e9}";
        let mut accented = vec![0x0a, u8::try_from(name.len()).unwrap()];
        accented.extend_from_slice(name.as_bytes());
        let raw = decode(Bytes::from(accented.clone())).unwrap();
        assert_eq!(texts(&accented, &raw.input), [name]);
        // field number 0
        assert!(decode(Bytes::from_static(&[0x02, 0x00])).is_err());
        // a group wire type
        assert!(decode(Bytes::from_static(&[0x33])).is_err());
        // a truncated varint
        assert!(decode(Bytes::from_static(&[0x48, 0x80])).is_err());
    }
}
