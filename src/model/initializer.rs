//! Initializers as headers: name, element type, dims and where the tensor's bytes are (ONNX
//! IR.md "Graphs": `initializer`). A model with its own weights has an initializer per two nodes;
//! decoding each into a whole `TensorProto` (fifteen fields) and keeping it for the run made them
//! the largest part of a million-node model's heap (issue 19). Only small tensors' elements are
//! ever read (as data of shape computations), and those are decoded when read.

use std::borrow::Cow;

use bytes::Bytes;
use prost::Message;

use super::dtype::elem;
use super::tensor::{self, MAX_VALUE_ELEMENTS};
use super::{GraphId, Origin, ValueId};
use crate::proto::{onnx_lean, TensorProto};
use crate::shape::real::Real;
use crate::shape::values::ValueTensor;

/// `TensorProto.DataLocation.EXTERNAL`: the elements are in another file, never opened.
const EXTERNAL: i32 = 1;

/// A dense initializer (or the values of a sparse one): what the engine reads of it.
#[derive(Debug, Clone)]
pub(crate) struct Initializer {
    /// Its element type (`TensorProto.DataType`), if set.
    pub data_type: Option<i32>,
    /// Its dims, as stored.
    pub dims: Box<[i64]>,
    /// Whether its elements are in an external data file.
    pub external: bool,
    /// The tensor itself.
    stored: Stored,
}

/// Where an initializer's tensor is.
#[derive(Debug, Clone)]
enum Stored {
    /// Its encoding: a slice of the mapped file.
    Encoded(Bytes),
    /// Already decoded (a model handed over as a `ModelProto`, or a subgraph's tensor).
    Decoded(Box<TensorProto>),
    /// Nothing beyond the header (a sparse initializer's values are not read).
    Header,
}

impl Initializer {
    /// The header of the `TensorProto` encoded in `bytes`, and its name as a slice of `bytes`
    /// (checked to be UTF-8); the error is what prost says of a malformed tensor.
    pub(crate) fn from_encoded(bytes: Bytes) -> Result<(Bytes, Self), String> {
        let header =
            onnx_lean::TensorHeader::decode(bytes.clone()).map_err(|error| error.to_string())?;
        let name = header.name.unwrap_or_default();
        if std::str::from_utf8(&name).is_err() {
            return Err(
                "failed to decode Protobuf message: TensorProto.name: invalid string \
                 value: data is not UTF-8 encoded"
                    .to_owned(),
            );
        }
        let initializer = Self {
            data_type: header.data_type,
            dims: header.dims.into_boxed_slice(),
            external: header.data_location == Some(EXTERNAL),
            stored: Stored::Encoded(bytes),
        };
        Ok((name, initializer))
    }

    /// A decoded tensor and its name.
    pub(crate) fn from_decoded(mut tensor: Box<TensorProto>) -> (String, Self) {
        let name = tensor.name.take().unwrap_or_default();
        let initializer = Self {
            data_type: tensor.data_type,
            dims: tensor.dims.clone().into_boxed_slice(),
            external: tensor.data_location == Some(EXTERNAL),
            stored: Stored::Decoded(tensor),
        };
        (name, initializer)
    }

    /// A header without elements (a sparse initializer: its type and dense dims only).
    pub(crate) fn header(data_type: Option<i32>, dims: Vec<i64>) -> Self {
        Self {
            data_type,
            dims: dims.into_boxed_slice(),
            external: false,
            stored: Stored::Header,
        }
    }

    /// Its element count, when the dims are valid.
    pub(crate) fn elements(&self) -> Option<usize> {
        self.dims.iter().try_fold(1usize, |count, &dim| {
            count.checked_mul(usize::try_from(dim).ok()?)
        })
    }

    /// The whole tensor, for reading its elements: only for a tensor small enough to be carried
    /// as data ([`MAX_VALUE_ELEMENTS`]) whose elements are in the file; decoded now if it was
    /// left encoded. `None` otherwise, and for a tensor that does not decode (its elements are
    /// then unknown, as for one in an external file).
    pub(crate) fn small_tensor(&self) -> Option<Cow<'_, TensorProto>> {
        if self.external || self.elements()? > MAX_VALUE_ELEMENTS {
            return None;
        }
        match &self.stored {
            Stored::Encoded(bytes) => TensorProto::decode(bytes.clone()).ok().map(Cow::Owned),
            Stored::Decoded(tensor) => Some(Cow::Borrowed(tensor.as_ref())),
            Stored::Header => None,
        }
    }

    /// Its elements, for a small integer or bool tensor ([`tensor::int_values`]); other types
    /// are not decoded.
    pub(crate) fn int_values(&self) -> Option<ValueTensor> {
        if !matches!(self.data_type, Some(elem::INT64 | elem::INT32 | elem::BOOL)) {
            return None;
        }
        tensor::int_values(self.small_tensor()?.as_ref())
    }

    /// Its elements, for a small `FLOAT` or `DOUBLE` tensor ([`tensor::real_values`]).
    pub(crate) fn real_values(&self) -> Option<ValueTensor<Real>> {
        if !self.holds_reals() {
            return None;
        }
        tensor::real_values(self.small_tensor()?.as_ref())
    }

    /// Whether its elements may be read as reals (its type is one [`tensor::real_values`] reads).
    pub(crate) fn holds_reals(&self) -> bool {
        matches!(self.data_type, Some(elem::FLOAT | elem::DOUBLE))
    }
}

impl super::Model {
    /// The float elements stored for `value` of graph `at`: its initializer's or, for a value the
    /// graph captures, the initializer of the enclosing graph that defines it. Decoded now, from
    /// the file, whatever inference kept of them.
    pub(crate) fn stored_reals(&self, at: GraphId, value: ValueId) -> Option<ValueTensor<Real>> {
        let (mut graph, mut value) = (self.graph(at)?, value);
        // A capture names a value of an enclosing graph, so the chain is shorter than the list of
        // graphs; the bound only guards against a malformed one.
        for _ in 0..=self.graphs.len() {
            let entry = graph.value(value)?;
            match entry.origin {
                Origin::Initializer => {
                    return graph
                        .initializers
                        .get(entry.initializer()? as usize)?
                        .real_values()
                }
                Origin::Outer {
                    graph: outer,
                    value: there,
                } => {
                    graph = self.graph(outer)?;
                    value = there;
                }
                _ => return None,
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;
    use prost::Message;

    use super::Initializer;
    use crate::proto::TensorProto;

    fn int64s(name: &str, dims: Vec<i64>, data: Vec<i64>) -> TensorProto {
        TensorProto {
            name: Some(name.into()),
            dims,
            data_type: Some(7),
            int64_data: data,
            ..TensorProto::default()
        }
    }

    #[test]
    fn encoded_and_decoded_tensors_read_alike() {
        let tensor = int64s("shape", vec![3], vec![2, -1, 4]);
        let (name, encoded) =
            Initializer::from_encoded(Bytes::from(tensor.encode_to_vec())).unwrap();
        assert_eq!(&name[..], b"shape");
        assert_eq!((encoded.data_type, &*encoded.dims), (Some(7), &[3][..]));
        let (_, decoded) = Initializer::from_decoded(Box::new(tensor));
        for initializer in [encoded, decoded] {
            let values = initializer.int_values().unwrap();
            assert!(initializer.real_values().is_none());
            assert_eq!(values.data.len(), 3);
            assert_eq!(values.data[1].to_string(), "-1");
        }
    }

    #[test]
    fn large_external_and_header_only_tensors_give_no_elements() {
        let large = int64s("w", vec![4097], vec![0; 4097]);
        let (_, large) = Initializer::from_encoded(Bytes::from(large.encode_to_vec())).unwrap();
        assert!(large.small_tensor().is_none());
        let external = TensorProto {
            data_location: Some(1),
            ..int64s("e", vec![1], Vec::new())
        };
        let (_, external) = Initializer::from_decoded(Box::new(external));
        assert!(external.external && external.small_tensor().is_none());
        assert!(Initializer::header(Some(7), vec![2])
            .small_tensor()
            .is_none());
        // Not a tensor at all: prost's error.
        assert!(Initializer::from_encoded(Bytes::from_static(&[0x0a, 0x05])).is_err());
        // A name that is not UTF-8, as prost refuses a string field.
        let error = Initializer::from_encoded(Bytes::from_static(&[0x42, 0x01, 0xff])).unwrap_err();
        assert!(error.contains("not UTF-8"), "{error}");
    }
}
