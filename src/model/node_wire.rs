//! Decodes a `NodeProto` from its encoding without copying its strings: its name, op type, domain
//! and value names become [`ByteString`]s that share the input buffer (the mapped file). prost's
//! decoder allocated and copied each of them: about a third of loading a million-node model.
//!
//! Only the fields the linter reads are decoded (`input` 1, `output` 2, `name` 3, `op_type` 4,
//! `attribute` 5, `domain` 7, per `proto/onnx.proto`); the others are skipped by wire type, as
//! any protobuf decoder skips fields it does not know. Attributes are decoded by prost, from
//! their own slices.

use bytes::{Buf, Bytes};
use bytestring::ByteString;
use prost::Message;

use crate::proto::{AttributeProto, NodeProto};

/// The fields of a `NodeProto` the graph builder reads.
#[derive(Debug, Default)]
pub(super) struct RawNode {
    pub(super) name: ByteString,
    pub(super) op_type: ByteString,
    pub(super) domain: ByteString,
    pub(super) input: Vec<ByteString>,
    pub(super) output: Vec<ByteString>,
    pub(super) attribute: Vec<AttributeProto>,
}

impl RawNode {
    /// Refills this node from a decoded `NodeProto`, keeping its buffers' capacity.
    pub(super) fn fill_from(&mut self, node: NodeProto) {
        self.clear();
        self.name = node.name.unwrap_or_default().into();
        self.op_type = node.op_type.unwrap_or_default().into();
        self.domain = node.domain.unwrap_or_default().into();
        self.input
            .extend(node.input.into_iter().map(ByteString::from));
        self.output
            .extend(node.output.into_iter().map(ByteString::from));
        self.attribute.extend(node.attribute);
    }

    fn clear(&mut self) {
        self.name = ByteString::new();
        self.op_type = ByteString::new();
        self.domain = ByteString::new();
        self.input.clear();
        self.output.clear();
        self.attribute.clear();
    }
}

/// Decodes one node's encoding into `node` (whose buffers are reused: one node is decoded at a
/// time); the error says what is wrong, as prost would.
pub(super) fn decode_into(mut bytes: Bytes, node: &mut RawNode) -> Result<(), String> {
    node.clear();
    while bytes.has_remaining() {
        let tag = varint(&mut bytes)?;
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
                varint(&mut bytes)?;
            }
            1 => advance(&mut bytes, 8)?,
            5 => advance(&mut bytes, 4)?,
            2 => {
                let len = usize::try_from(varint(&mut bytes)?).unwrap_or(usize::MAX);
                if len > bytes.remaining() {
                    return Err(format!("NodeProto field {field}: buffer underflow"));
                }
                let body = bytes.split_to(len);
                match field {
                    1 => node.input.push(text(body, "input")?),
                    2 => node.output.push(text(body, "output")?),
                    3 => node.name = text(body, "name")?,
                    4 => node.op_type = text(body, "op_type")?,
                    5 => node.attribute.push(
                        AttributeProto::decode(body)
                            .map_err(|error| format!("NodeProto.attribute: {error}"))?,
                    ),
                    7 => node.domain = text(body, "domain")?,
                    _ => {}
                }
            }
            _ => return Err(format!("NodeProto field {field}: invalid wire type {wire}")),
        }
    }
    Ok(())
}

fn text(body: Bytes, field: &str) -> Result<ByteString, String> {
    ByteString::try_from(body)
        .map_err(|_| format!("NodeProto.{field}: invalid string value: data is not UTF-8 encoded"))
}

fn advance(bytes: &mut Bytes, len: usize) -> Result<(), String> {
    if bytes.remaining() < len {
        return Err("NodeProto: buffer underflow".into());
    }
    bytes.advance(len);
    Ok(())
}

fn varint(bytes: &mut Bytes) -> Result<u64, String> {
    prost::encoding::decode_varint(bytes).map_err(|error| format!("NodeProto: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::attribute_proto::AttributeType;

    fn encode(node: &NodeProto) -> Bytes {
        Bytes::from(node.encode_to_vec())
    }

    fn decode(bytes: Bytes) -> Result<RawNode, String> {
        let mut node = RawNode::default();
        decode_into(bytes, &mut node).map(|()| node)
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
        let raw = decode(encode(&node)).unwrap();
        assert_eq!(&*raw.name, "mm");
        assert_eq!(&*raw.op_type, "MatMul");
        assert_eq!(&*raw.domain, "ai.onnx");
        assert_eq!(raw.input, ["a", "", "b"]);
        assert_eq!(raw.output, ["y"]);
        assert_eq!(raw.attribute, node.attribute);
        let mut filled = RawNode::default();
        filled.fill_from(node);
        assert_eq!(filled.input, raw.input);
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
        decode_into(first, &mut raw).unwrap();
        decode_into(encode(&NodeProto::default()), &mut raw).unwrap();
        assert!(raw.name.is_empty() && raw.input.is_empty());
    }

    #[test]
    fn names_share_the_input_buffer() {
        let bytes = encode(&NodeProto {
            input: vec!["a_rather_long_value_name".into()],
            ..NodeProto::default()
        });
        let range = bytes.as_ptr_range();
        let raw = decode(bytes.clone()).unwrap();
        let name = raw.input.first().unwrap().as_bytes().as_ptr();
        assert!(range.contains(&name));
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
        // invalid UTF-8 in a name
        assert!(decode(Bytes::from_static(&[0x1a, 0x01, 0xff])).is_err());
        // field number 0
        assert!(decode(Bytes::from_static(&[0x02, 0x00])).is_err());
        // a group wire type
        assert!(decode(Bytes::from_static(&[0x33])).is_err());
        // a truncated varint
        assert!(decode(Bytes::from_static(&[0x48, 0x80])).is_err());
    }
}
