//! Typed attribute getters whose errors name the node, the op and the attribute.
//!
//! Old files may leave `AttributeProto.type` unset; the field that holds a value then decides.

use crate::proto::attribute_proto::AttributeType;
use crate::proto::{AttributeProto, TensorProto};

use super::Node;

/// An attribute that is present but not of the expected type or encoding.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{op_type} node `{node}`: attribute `{attribute}` should be {expected}")]
pub struct AttrError {
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
pub struct Attrs<'a> {
    node: &'a Node,
}

impl<'a> Attrs<'a> {
    /// A view of `node`'s attributes.
    pub fn new(node: &'a Node) -> Self {
        Self { node }
    }

    /// The raw attribute called `name`.
    pub fn get(&self, name: &str) -> Option<&'a AttributeProto> {
        self.node
            .attributes
            .iter()
            .find(|attr| attr.name.as_deref() == Some(name))
    }

    fn error(self, name: &str, expected: &'static str) -> AttrError {
        AttrError {
            node: self.node.name.clone(),
            op_type: self.node.op_type.clone(),
            attribute: name.to_owned(),
            expected,
        }
    }

    fn typed(
        self,
        name: &str,
        wanted: AttributeType,
        present: impl Fn(&AttributeProto) -> bool,
        expected: &'static str,
    ) -> Result<Option<&'a AttributeProto>, AttrError> {
        let Some(attr) = self.get(name) else {
            return Ok(None);
        };
        let declared = attr
            .r#type
            .and_then(|code| AttributeType::try_from(code).ok())
            .filter(|kind| *kind != AttributeType::Undefined);
        let matches = match declared {
            Some(kind) => kind == wanted,
            None => present(attr),
        };
        if matches {
            Ok(Some(attr))
        } else {
            Err(self.error(name, expected))
        }
    }

    /// An `INT` attribute.
    pub fn int(&self, name: &str) -> Result<Option<i64>, AttrError> {
        let attr = self.typed(name, AttributeType::Int, |a| a.i.is_some(), "an int")?;
        Ok(attr.map(|attr| attr.i.unwrap_or(0)))
    }

    /// An `INTS` attribute.
    pub fn ints(&self, name: &str) -> Result<Option<&'a [i64]>, AttrError> {
        let attr = self.typed(
            name,
            AttributeType::Ints,
            |a| !a.ints.is_empty(),
            "a list of ints",
        )?;
        Ok(attr.map(|attr| attr.ints.as_slice()))
    }

    /// A `FLOAT` attribute.
    pub fn float(&self, name: &str) -> Result<Option<f32>, AttrError> {
        let attr = self.typed(name, AttributeType::Float, |a| a.f.is_some(), "a float")?;
        Ok(attr.map(|attr| attr.f.unwrap_or(0.0)))
    }

    /// A `FLOATS` attribute.
    pub fn floats(&self, name: &str) -> Result<Option<&'a [f32]>, AttrError> {
        let attr = self.typed(
            name,
            AttributeType::Floats,
            |a| !a.floats.is_empty(),
            "a list of floats",
        )?;
        Ok(attr.map(|attr| attr.floats.as_slice()))
    }

    /// A `STRING` attribute, which must be UTF-8.
    pub fn string(&self, name: &str) -> Result<Option<&'a str>, AttrError> {
        let attr = self.typed(name, AttributeType::String, |a| a.s.is_some(), "a string")?;
        match attr {
            None => Ok(None),
            Some(attr) => {
                let bytes = attr.s.as_deref().unwrap_or_default();
                std::str::from_utf8(bytes)
                    .map(Some)
                    .map_err(|_| self.error(name, "a UTF-8 string"))
            }
        }
    }

    /// A `TENSOR` attribute.
    pub fn tensor(&self, name: &str) -> Result<Option<&'a TensorProto>, AttrError> {
        let attr = self.typed(name, AttributeType::Tensor, |a| a.t.is_some(), "a tensor")?;
        Ok(attr.and_then(|attr| attr.t.as_deref()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(attributes: Vec<AttributeProto>) -> Node {
        Node {
            index: 0,
            name: "n".into(),
            named: true,
            op_type: "Op".into(),
            domain: String::new(),
            opset: Some(13),
            inputs: vec![],
            outputs: vec![],
            attributes,
            subgraphs: vec![],
            span: 0..0,
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
    fn wrong_type_names_node_and_attribute() {
        let n = node(vec![AttributeProto {
            name: Some("axis".into()),
            r#type: Some(AttributeType::Float as i32),
            f: Some(1.0),
            ..Default::default()
        }]);
        let err = n.attrs().int("axis").unwrap_err();
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
