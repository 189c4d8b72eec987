//! Where a mapped model will be read densely: the node lists of the main graph and of the
//! model-local functions.
//!
//! The file is mapped with random-access advice so that skipping a weight payload pages in
//! nothing of it. The node lists, which the scan and the decoder read end to end, would then be
//! read from a cold page cache one page per fault; so this walk, which reaches them first,
//! asks the kernel ahead (`WILLNEED`) for the next window each time it crosses into one while
//! reading nodes. It reads only the top-level fields of `ModelProto`, `GraphProto` and
//! `FunctionProto` (tags and lengths; payloads are skipped, not read), and a window asked for
//! past the last node holds at most [`WINDOW`] bytes of whatever follows. This is advice: any
//! malformation simply ends the walk, the scan reports it.

use std::ops::Range;

use super::wire::{read_varint, GRAPH_NODE};

/// `ModelProto.graph`, `ModelProto.functions`, `FunctionProto.node` (`proto/onnx.proto`);
/// `GraphProto.node` is the scanner's.
const MODEL_GRAPH: u64 = 7;
const MODEL_FUNCTIONS: u64 = 25;
const FUNCTION_NODE: u64 = 7;

/// Bytes asked for ahead at a time while walking nodes.
pub(crate) const WINDOW: usize = 1 << 20;

/// Walks the node fields of the main graph and of each function, calling `ahead` with each
/// window of the file to read ahead (in file order, without overlaps).
pub(crate) fn read_nodes_ahead(bytes: &[u8], mut ahead: impl FnMut(Range<usize>)) {
    let mut asked_until = 0;
    for (field, body) in fields(bytes, 0..bytes.len()) {
        let node_field = match field {
            MODEL_GRAPH => GRAPH_NODE,
            MODEL_FUNCTIONS => FUNCTION_NODE,
            _ => continue,
        };
        for (inner, node) in fields(bytes, body.clone()) {
            if inner == node_field && node.end > asked_until {
                let start = node.start.max(asked_until);
                let end = start.saturating_add(WINDOW).min(body.end).max(node.end);
                ahead(start..end);
                asked_until = end;
            }
        }
    }
}

/// The length-delimited fields of the message in `range`: `(field number, body)`. Other wire
/// types are skipped; the walk ends at the first malformed field.
fn fields(bytes: &[u8], range: Range<usize>) -> impl Iterator<Item = (u64, Range<usize>)> + '_ {
    let mut pos = range.start;
    let end = range.end.min(bytes.len());
    std::iter::from_fn(move || loop {
        if pos >= end {
            return None;
        }
        let tag = varint(bytes, &mut pos, end)?;
        let skip = match tag & 7 {
            0 => {
                varint(bytes, &mut pos, end)?;
                continue;
            }
            1 => 8,
            5 => 4,
            2 => {
                let len = usize::try_from(varint(bytes, &mut pos, end)?).ok()?;
                let start = pos;
                pos = start.checked_add(len).filter(|&next| next <= end)?;
                return Some((tag >> 3, start..pos));
            }
            _ => return None,
        };
        pos = pos.checked_add(skip).filter(|&next| next <= end)?;
    })
}

fn varint(bytes: &[u8], pos: &mut usize, end: usize) -> Option<u64> {
    read_varint(bytes, pos, end).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{FunctionProto, GraphProto, ModelProto, NodeProto, TensorProto};
    use prost::Message;

    fn node(op: &str) -> NodeProto {
        NodeProto {
            op_type: Some(op.into()),
            ..NodeProto::default()
        }
    }

    fn windows(bytes: &[u8]) -> Vec<Range<usize>> {
        let mut asked = Vec::new();
        read_nodes_ahead(bytes, |range| asked.push(range));
        asked
    }

    #[test]
    fn asks_for_the_nodes_of_the_graph_and_of_each_function_not_the_weights() {
        let weights = 3 * WINDOW;
        let model = ModelProto {
            ir_version: Some(10),
            graph: Some(GraphProto {
                initializer: vec![TensorProto {
                    raw_data: Some(vec![7u8; weights].into()),
                    ..TensorProto::default()
                }],
                node: vec![node("Add"), node("Mul")],
                ..GraphProto::default()
            }),
            functions: vec![FunctionProto {
                node: vec![node("Relu")],
                ..FunctionProto::default()
            }],
            ..ModelProto::default()
        };
        let bytes = model.encode_to_vec();
        let asked = windows(&bytes);
        let text = |r: &Range<usize>| String::from_utf8_lossy(&bytes[r.clone()]).into_owned();
        // prost writes fields in number order: nodes (1) before initializers (5), so the graph's
        // window starts at its first node and runs one window into the weights at most.
        let graph = asked.first().unwrap();
        assert!(text(graph).contains("Add") && text(graph).contains("Mul"));
        assert!(graph.len() <= WINDOW + 64);
        assert!(text(asked.last().unwrap()).contains("Relu"));
        let total: usize = asked.iter().map(Range::len).sum();
        assert!(total < weights / 2, "{total} bytes asked for");
    }

    #[test]
    fn a_long_node_list_is_asked_for_window_by_window() {
        let nodes = (0..20_000).map(|i| node(&format!("Op{i:06}"))).collect();
        let model = ModelProto {
            graph: Some(GraphProto {
                node: nodes,
                ..GraphProto::default()
            }),
            ..ModelProto::default()
        };
        let bytes = model.encode_to_vec();
        let asked = windows(&bytes);
        assert!(asked.len() >= bytes.len() / WINDOW);
        for pair in asked.windows(2) {
            assert!(pair[0].end <= pair[1].start, "{pair:?}");
        }
        assert!(asked.last().unwrap().end >= bytes.len() - 16);
    }

    #[test]
    fn malformed_input_ends_the_walk_quietly() {
        assert!(windows(&[]).is_empty());
        assert!(windows(&[0x3a, 0xff]).is_empty());
        assert!(windows(&[0xff; 16]).is_empty());
        // A graph whose first node's length runs past the end: nothing found inside it.
        assert!(windows(&[0x3a, 0x02, 0x0a, 0x09]).is_empty());
    }
}
