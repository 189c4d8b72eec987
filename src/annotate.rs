//! `--write-shapes`: a copy of the model whose main graph's `value_info` holds every inferred
//! shape, so Netron and other tools show them (what `onnx.shape_inference.infer_shapes_path`
//! and onnxruntime's `symbolic_shape_infer.py` are used for). Symbolic dims are written as
//! `dim_param` expressions (`(seq+1)/2`), unknown dims with neither value nor param.
//!
//! The copy is made at the wire level (protobuf encoding,
//! <https://protobuf.dev/programming-guides/encoding/>): every field of the `ModelProto` and
//! of its `GraphProto` is copied byte for byte from the mapped input, weights and external data
//! references included; only the graph's length prefix changes, the `value_info` entries of the
//! values annotated are dropped, and the new entries are appended (a repeated field may be split
//! anywhere in a message). Nothing but those small entries is decoded or encoded.
//!
//! Annotated: main-graph values that nodes produce (not graph inputs, outputs or initializers),
//! with a known rank and element type.

use std::collections::BTreeSet;
use std::io::Write;
use std::ops::Range;
use std::path::Path;

use prost::Message;

use crate::lint::LintReport;
use crate::model::{read_varint, Origin, ReadFrom};
use crate::proto::tensor_shape_proto::{dimension, Dimension};
use crate::proto::type_proto::{Tensor, Value as TypeValue};
use crate::proto::{TensorShapeProto, TypeProto, ValueInfoProto};
use crate::shape::{Dim, Shape};

/// `ModelProto.graph`.
const MODEL_GRAPH: u64 = 7;
/// `GraphProto.value_info`.
const GRAPH_VALUE_INFO: u64 = 13;
/// Wire type of length-delimited fields.
const LEN: u64 = 2;

/// Why the annotated copy could not be written.
#[derive(Debug, thiserror::Error, miette::Diagnostic)]
pub(crate) enum AnnotateError {
    /// The input could not be read again, or the output not written.
    #[error("cannot write shapes to {path}: {source}")]
    #[diagnostic(code("write-shapes/io"))]
    Io {
        /// The file concerned.
        path: String,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The output would overwrite the input.
    #[error("--write-shapes would overwrite the model it reads ({path})")]
    #[diagnostic(code("write-shapes/same-file"), help("name another output file"))]
    SameFile {
        /// The file.
        path: String,
    },
    /// The input's wire format is not what the lint run read (changed since, or a layout this
    /// writer does not copy: several `graph` fields, groups).
    #[error("cannot copy {path}: {problem}")]
    #[diagnostic(code("write-shapes/layout"))]
    Layout {
        /// The file.
        path: String,
        /// What is wrong.
        problem: &'static str,
    },
}

/// One top-level field of a message: its number, and its byte range (tag included) and its
/// payload's (for length-delimited fields).
struct Field {
    number: u64,
    wire_type: u64,
    whole: Range<usize>,
    payload: Range<usize>,
}

/// The top-level fields of the message in `bytes[range]`; `None` on a malformed encoding.
fn fields(bytes: &[u8], range: Range<usize>) -> Option<Vec<Field>> {
    let mut out = Vec::new();
    let mut pos = range.start;
    while pos < range.end {
        let start = pos;
        let tag = read_varint(bytes, &mut pos, range.end).ok()?;
        let (number, wire_type) = (tag >> 3, tag & 7);
        let payload_start;
        match wire_type {
            0 => {
                payload_start = pos;
                read_varint(bytes, &mut pos, range.end).ok()?;
            }
            1 | 5 => {
                payload_start = pos;
                pos = pos.checked_add(if wire_type == 1 { 8 } else { 4 })?;
            }
            LEN => {
                let len = usize::try_from(read_varint(bytes, &mut pos, range.end).ok()?).ok()?;
                payload_start = pos;
                pos = pos.checked_add(len)?;
            }
            _ => return None,
        }
        if pos > range.end {
            return None;
        }
        out.push(Field {
            number,
            wire_type,
            whole: start..pos,
            payload: payload_start..pos,
        });
    }
    Some(out)
}

fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(10);
    loop {
        let byte = u8::try_from(v & 0x7f).unwrap_or(0);
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}

fn dimension(d: &Dim) -> Dimension {
    let value = match d {
        Dim::Known(v) => Some(dimension::Value::DimValue(*v)),
        Dim::Sym(e) => Some(dimension::Value::DimParam(e.to_string())),
        Dim::Unknown => None,
    };
    Dimension {
        value,
        ..Dimension::default()
    }
}

/// The `value_info` entries for the report's main graph, encoded, with their names.
fn entries(report: &LintReport) -> (BTreeSet<String>, Vec<u8>) {
    let mut names = BTreeSet::new();
    let mut encoded = Vec::new();
    let (Some(graph), Some(facts)) = (report.model.main(), report.inference.graphs.first()) else {
        return (names, encoded);
    };
    for (i, value) in graph.values.iter().enumerate() {
        let produced = matches!(value.origin, Origin::Node { .. } | Origin::Constant { .. });
        let is_output = graph.outputs.iter().any(|o| o.0 as usize == i);
        let Some(fact) = facts.values.get(i) else {
            continue;
        };
        let (Shape::Ranked(dims), Some(elem)) = (&*fact.shape, fact.elem) else {
            continue;
        };
        if !produced || is_output || elem == 0 {
            continue;
        }
        let info = ValueInfoProto {
            name: Some(graph.text(value.name).to_owned()),
            r#type: Some(TypeProto {
                value: Some(TypeValue::TensorType(Tensor {
                    elem_type: Some(elem),
                    shape: Some(TensorShapeProto {
                        dim: dims.iter().map(dimension).collect(),
                    }),
                })),
                ..TypeProto::default()
            }),
            ..ValueInfoProto::default()
        };
        let body = info.encode_to_vec();
        encoded.extend(varint((GRAPH_VALUE_INFO << 3) | LEN));
        encoded.extend(varint(body.len() as u64));
        encoded.extend(body);
        names.insert(graph.text(value.name).to_owned());
    }
    (names, encoded)
}

/// Writes to `out` a copy of the model at `input` (the file `report` was linted from) whose
/// main graph's `value_info` holds every inferred shape. The input is only read.
pub(crate) fn write_shapes(
    input: &Path,
    report: &LintReport,
    out: &Path,
) -> Result<(), AnnotateError> {
    let shown = |p: &Path| p.display().to_string();
    let same = std::fs::canonicalize(input)
        .ok()
        .zip(std::fs::canonicalize(out).ok())
        .is_some_and(|(a, b)| a == b);
    if same {
        return Err(AnnotateError::SameFile { path: shown(out) });
    }
    let bytes = ReadFrom::from_arg(input)
        .read()
        .map_err(|e| AnnotateError::Io {
            path: shown(input),
            source: std::io::Error::other(e.to_string()),
        })?;
    let layout = |problem| AnnotateError::Layout {
        path: shown(input),
        problem,
    };
    let top = fields(&bytes, 0..bytes.len()).ok_or_else(|| layout("malformed model"))?;
    let graphs: Vec<&Field> = top
        .iter()
        .filter(|f| f.number == MODEL_GRAPH && f.wire_type == LEN)
        .collect();
    let [graph] = graphs.as_slice() else {
        return Err(layout("the model does not have exactly one graph field"));
    };
    let inner = fields(&bytes, graph.payload.clone()).ok_or_else(|| layout("malformed graph"))?;
    let (names, appended) = entries(report);
    // Existing entries for the values annotated are replaced; the others stay.
    let kept: Vec<Range<usize>> = inner
        .iter()
        .filter(|f| {
            f.number != GRAPH_VALUE_INFO
                || f.wire_type != LEN
                || bytes
                    .get(f.payload.clone())
                    .and_then(|b| ValueInfoProto::decode(b).ok())
                    .is_none_or(|v| v.name.is_none_or(|n| !names.contains(&n)))
        })
        .map(|f| f.whole.clone())
        .collect();
    let graph_len = kept.iter().map(ExactSizeIterator::len).sum::<usize>() + appended.len();
    let io = |source| AnnotateError::Io {
        path: shown(out),
        source,
    };
    let file = std::fs::File::create(out).map_err(io)?;
    let mut w = std::io::BufWriter::new(file);
    let slice = |r: Range<usize>| bytes.get(r).unwrap_or_default();
    for field in &top {
        if std::ptr::eq(field, *graph) {
            w.write_all(&varint((MODEL_GRAPH << 3) | LEN)).map_err(io)?;
            w.write_all(&varint(graph_len as u64)).map_err(io)?;
            for range in &kept {
                w.write_all(slice(range.clone())).map_err(io)?;
            }
            w.write_all(&appended).map_err(io)?;
        } else {
            w.write_all(slice(field.whole.clone())).map_err(io)?;
        }
    }
    w.flush().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::{fields, varint};

    #[test]
    fn varints_round_trip_through_the_field_reader() {
        for v in [0u64, 1, 127, 128, 300, 1 << 40] {
            // Field 1, varint: tag 0x08 then the value.
            let mut bytes = vec![0x08];
            bytes.extend(varint(v));
            let parsed = fields(&bytes, 0..bytes.len()).unwrap();
            assert_eq!(parsed.len(), 1);
            assert_eq!(parsed[0].whole, 0..bytes.len());
        }
    }

    #[test]
    fn truncated_length_is_refused() {
        // Field 7, length-delimited, claims 5 bytes but has 1.
        let bytes = [0x3a, 0x05, 0x00];
        assert!(fields(&bytes, 0..bytes.len()).is_none());
    }
}
