//! A node's attributes, compact, and typed getters whose errors name the node, the op and the
//! attribute.
//!
//! A decoded `AttributeProto` is 336 bytes whatever it holds (one field per possible type); most
//! attributes are one integer. [`Attribute`] keeps only the value its type says it holds (56
//! bytes plus the payload), which is most of a transformer model's memory after loading.
//! Old files may leave `AttributeProto.type` unset; such attributes keep their whole protobuf and
//! the field that holds a value then decides, as before.

use bytes::Bytes;

use crate::proto::attribute_proto::AttributeType;
use crate::proto::{AttributeProto, SparseTensorProto, TensorProto, TypeProto};

use super::Node;

/// One attribute of a node.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Attribute {
    /// The attribute's name.
    pub name: Box<str>,
    /// Its value, by its declared type.
    pub value: AttrValue,
}

/// An attribute's value, by the type `AttributeProto.type` declares (ONNX IR, `AttributeProto`).
/// A declared type whose field is unset holds that field's default (0, empty), as protobuf reads
/// it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum AttrValue {
    /// `FLOAT`.
    Float(f32),
    /// `INT`.
    Int(i64),
    /// `STRING` (bytes; UTF-8 is checked by the getter).
    String(Bytes),
    /// `TENSOR`.
    Tensor(Box<TensorProto>),
    /// `GRAPH`: the body is in [`Node::subgraphs`].
    Graph,
    /// `SPARSE_TENSOR`.
    SparseTensor(Box<SparseTensorProto>),
    /// `TYPE_PROTO`.
    TypeProto(Box<TypeProto>),
    /// `FLOATS`.
    Floats(Box<[f32]>),
    /// `INTS`.
    Ints(Box<[i64]>),
    /// `STRINGS`.
    Strings(Box<[Bytes]>),
    /// `TENSORS`.
    Tensors(Box<[TensorProto]>),
    /// `GRAPHS`: the bodies are in [`Node::subgraphs`].
    Graphs,
    /// `SPARSE_TENSORS`.
    SparseTensors(Box<[SparseTensorProto]>),
    /// `TYPE_PROTOS`.
    TypeProtos(Box<[TypeProto]>),
    /// No (known) type declared: the protobuf as read, whose set fields decide.
    Untyped(Box<AttributeProto>),
}

impl From<AttributeProto> for Attribute {
    fn from(mut proto: AttributeProto) -> Self {
        let name = proto.name.take().unwrap_or_default().into_boxed_str();
        let declared = proto
            .r#type
            .and_then(|code| AttributeType::try_from(code).ok())
            .unwrap_or(AttributeType::Undefined);
        let value = match declared {
            AttributeType::Float => AttrValue::Float(proto.f.unwrap_or(0.0)),
            AttributeType::Int => AttrValue::Int(proto.i.unwrap_or(0)),
            AttributeType::String => AttrValue::String(proto.s.unwrap_or_default()),
            AttributeType::Tensor => AttrValue::Tensor(proto.t.unwrap_or_default()),
            AttributeType::Graph => AttrValue::Graph,
            AttributeType::SparseTensor => {
                AttrValue::SparseTensor(proto.sparse_tensor.unwrap_or_default())
            }
            AttributeType::TypeProto => AttrValue::TypeProto(proto.tp.unwrap_or_default()),
            AttributeType::Floats => AttrValue::Floats(proto.floats.into()),
            AttributeType::Ints => AttrValue::Ints(proto.ints.into()),
            AttributeType::Strings => AttrValue::Strings(proto.strings.into()),
            AttributeType::Tensors => AttrValue::Tensors(proto.tensors.into()),
            AttributeType::Graphs => AttrValue::Graphs,
            AttributeType::SparseTensors => AttrValue::SparseTensors(proto.sparse_tensors.into()),
            AttributeType::TypeProtos => AttrValue::TypeProtos(proto.type_protos.into()),
            AttributeType::Undefined => AttrValue::Untyped(Box::new(proto)),
        };
        Attribute { name, value }
    }
}

impl AttrValue {
    /// The `STRINGS` list, whether declared or read from an untyped attribute.
    pub(crate) fn strings(&self) -> Option<&[Bytes]> {
        match self {
            AttrValue::Strings(list) => Some(list),
            AttrValue::Untyped(proto) if !proto.strings.is_empty() => Some(&proto.strings),
            _ => None,
        }
    }

    /// The `SPARSE_TENSOR`, whether declared or read from an untyped attribute.
    pub(crate) fn sparse_tensor(&self) -> Option<&SparseTensorProto> {
        match self {
            AttrValue::SparseTensor(tensor) => Some(tensor),
            AttrValue::Untyped(proto) => proto.sparse_tensor.as_deref(),
            _ => None,
        }
    }
}

/// An attribute that is present but not of the expected type or encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{op_type} node `{node}`: attribute `{attribute}` should be {expected}")]
pub(crate) struct AttrError {
    /// The node's name.
    pub node: String,
    /// The node's op type.
    pub op_type: String,
    /// The attribute's name.
    pub attribute: String,
    /// What was expected (`an int`, `a list of ints`, `a UTF-8 string`...).
    pub expected: &'static str,
}

/// Typed view of a node's attributes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Attrs<'a> {
    node: &'a Node,
}

impl<'a> Attrs<'a> {
    /// A view of `node`'s attributes.
    pub(crate) fn new(node: &'a Node) -> Self {
        Self { node }
    }

    /// The attribute called `name`.
    pub(crate) fn get(self, name: &str) -> Option<&'a Attribute> {
        self.node.attributes.iter().find(|attr| &*attr.name == name)
    }

    fn error(self, name: &str, expected: &'static str) -> AttrError {
        AttrError {
            // Filled in by the engine, which holds the graph that holds the name.
            node: String::new(),
            op_type: self.node.op_type().to_string(),
            attribute: name.to_owned(),
            expected,
        }
    }

    /// The attribute called `name` through `pick`, which reads the value when it has the wanted
    /// type (or, untyped, holds the wanted field); an error if present with another type.
    fn typed<T>(
        self,
        name: &str,
        pick: impl Fn(&'a AttrValue) -> Option<T>,
        expected: &'static str,
    ) -> Result<Option<T>, AttrError> {
        let Some(attr) = self.get(name) else {
            return Ok(None);
        };
        pick(&attr.value)
            .map(Some)
            .ok_or_else(|| self.error(name, expected))
    }

    /// An `INT` attribute.
    pub(crate) fn int(self, name: &str) -> Result<Option<i64>, AttrError> {
        self.typed(
            name,
            |value| match value {
                AttrValue::Int(i) => Some(*i),
                AttrValue::Untyped(proto) => proto.i,
                _ => None,
            },
            "an int",
        )
    }

    /// An `INTS` attribute.
    pub(crate) fn ints(self, name: &str) -> Result<Option<&'a [i64]>, AttrError> {
        self.typed(
            name,
            |value| match value {
                AttrValue::Ints(list) => Some(&**list),
                AttrValue::Untyped(proto) if !proto.ints.is_empty() => Some(&*proto.ints),
                _ => None,
            },
            "a list of ints",
        )
    }

    /// A `FLOAT` attribute.
    pub(crate) fn float(self, name: &str) -> Result<Option<f32>, AttrError> {
        self.typed(
            name,
            |value| match value {
                AttrValue::Float(f) => Some(*f),
                AttrValue::Untyped(proto) => proto.f,
                _ => None,
            },
            "a float",
        )
    }

    /// A `FLOATS` attribute.
    pub(crate) fn floats(self, name: &str) -> Result<Option<&'a [f32]>, AttrError> {
        self.typed(
            name,
            |value| match value {
                AttrValue::Floats(list) => Some(&**list),
                AttrValue::Untyped(proto) if !proto.floats.is_empty() => Some(&*proto.floats),
                _ => None,
            },
            "a list of floats",
        )
    }

    /// A `STRING` attribute, which must be UTF-8.
    pub(crate) fn string(self, name: &str) -> Result<Option<&'a str>, AttrError> {
        let bytes = self.typed(
            name,
            |value| match value {
                AttrValue::String(bytes) => Some(&**bytes),
                AttrValue::Untyped(proto) => proto.s.as_deref(),
                _ => None,
            },
            "a string",
        )?;
        bytes
            .map(|bytes| std::str::from_utf8(bytes).map_err(|_| self.error(name, "a UTF-8 string")))
            .transpose()
    }

    /// A `TENSOR` attribute.
    pub(crate) fn tensor(self, name: &str) -> Result<Option<&'a TensorProto>, AttrError> {
        self.typed(
            name,
            |value| match value {
                AttrValue::Tensor(tensor) => Some(&**tensor),
                AttrValue::Untyped(proto) => proto.t.as_deref(),
                _ => None,
            },
            "a tensor",
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(attributes: Vec<AttributeProto>) -> Node {
        let attributes = std::sync::Arc::new(attributes.into_iter().map(Attribute::from).collect());
        Node {
            index: 0,
            name: crate::model::Text::EMPTY,
            named: true,
            op: crate::model::Operator::new("", "Op", Some(13)),
            slots: crate::model::Slots::default(),
            attributes,
            span_start: 0,
            span_high: 0,
            span_len: 0,
            in_cycle: false,
        }
    }

    #[test]
    fn untyped_int_is_read_from_its_field() {
        let n = node(vec![AttributeProto {
            name: Some("axis".into()),
            i: Some(-1),
            ..Default::default()
        }]);
        assert_eq!(n.attrs().int("axis"), Ok(Some(-1)));
        assert_eq!(n.attrs().int("missing"), Ok(None));
    }

    #[test]
    fn wrong_type_names_op_type_and_attribute() {
        let n = node(vec![AttributeProto {
            name: Some("axis".into()),
            r#type: Some(AttributeType::Float as i32),
            f: Some(1.0),
            ..Default::default()
        }]);
        let mut err = n.attrs().int("axis").unwrap_err();
        // The node's name is in its graph: the engine fills it in.
        assert_eq!(err.node, "");
        err.node = "n".into();
        assert_eq!(
            err.to_string(),
            "Op node `n`: attribute `axis` should be an int"
        );
    }

    #[test]
    fn empty_typed_ints_is_an_empty_list() {
        let n = node(vec![AttributeProto {
            name: Some("axes".into()),
            r#type: Some(AttributeType::Ints as i32),
            ..Default::default()
        }]);
        assert_eq!(n.attrs().ints("axes"), Ok(Some(&[][..])));
    }
}

#[cfg(test)]
mod compact_tests {
    use super::*;

    #[test]
    fn declared_type_keeps_only_its_value() {
        let attr = Attribute::from(AttributeProto {
            name: Some("perm".into()),
            r#type: Some(AttributeType::Ints as i32),
            ints: vec![0, 2, 1],
            i: Some(5),
            ..Default::default()
        });
        assert_eq!(&*attr.name, "perm");
        assert_eq!(attr.value, AttrValue::Ints(vec![0, 2, 1].into()));
    }

    #[test]
    fn unknown_type_code_stays_untyped() {
        let attr = Attribute::from(AttributeProto {
            name: Some("x".into()),
            r#type: Some(99),
            i: Some(3),
            ..Default::default()
        });
        assert!(matches!(attr.value, AttrValue::Untyped(ref proto) if proto.i == Some(3)));
    }

    #[test]
    fn compact_attribute_is_small() {
        // The point of the type: a fraction of `AttributeProto`'s size.
        assert!(std::mem::size_of::<Attribute>() <= 64);
        assert!(std::mem::size_of::<AttributeProto>() > 4 * std::mem::size_of::<Attribute>());
    }
}
