//! A pre-pass over the protobuf wire format of a `ModelProto`.
//!
//! prost decodes fast but says neither *where* a file is broken nor where each `NodeProto` sits in
//! the file. This scanner walks the tags and lengths of the messages the linter cares about (model,
//! graphs, nodes, attributes, functions, tensors, types) without reading payloads, so it costs
//! almost nothing next to the decode. It
//! - locates the first wire-level fault (truncation, bad wire type, length past the end),
//! - records the byte range of every node, graph by graph, subgraphs included, so findings can point
//!   into the file,
//! - enforces the resource limits before prost allocates anything (nesting depth, rank, node count).

use std::fmt::Write as _;
use std::ops::Range;

use crate::error::Limits;

/// Where a node sits in the file, and the node layouts of the graphs held by its attributes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct NodeLayout {
    /// Byte range of the `NodeProto` message body in the file.
    pub(crate) span: Range<usize>,
    /// `(attribute ordinal, layout)` for each graph-valued attribute, in file order; `None`
    /// when there is none. A thin box: nearly every node has none, and a million-node model
    /// holds a layout per node while it is built (24 bytes each instead of 40, issue 19).
    #[allow(clippy::box_collection, reason = "one word for the common empty case")]
    pub(crate) subgraphs: Option<Box<Vec<(usize, GraphLayout)>>>,
}

/// Node layouts of one graph (or function body), in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct GraphLayout {
    /// One entry per `NodeProto`, in the order prost decodes them.
    pub(crate) nodes: Vec<NodeLayout>,
}

/// Layout of a whole model: the main graph and the model-local functions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ModelLayout {
    /// The main graph (all occurrences of `ModelProto.graph` merged, as protobuf does).
    pub(crate) graph: GraphLayout,
    /// One entry per `FunctionProto`.
    pub(crate) functions: Vec<GraphLayout>,
}

/// A wire-level fault or an exceeded limit, with the byte offset where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WireFault {
    /// Byte offset in the file.
    pub(crate) offset: usize,
    /// Message path to the fault, e.g. `ModelProto.graph.node[3].attribute[0]`.
    pub(crate) path: String,
    /// What is wrong.
    pub(crate) problem: WireProblem,
}

/// The kinds of fault the scanner reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WireProblem {
    /// The bytes end inside a tag, varint, fixed-width value or length-delimited field.
    Truncated,
    /// A tag with field number 0 or a wire type protobuf does not define (or a group).
    BadTag(u64),
    /// A varint longer than 10 bytes.
    BadVarint,
    /// A message-valued field of the schema sent with a scalar wire type.
    WrongWireType {
        /// The field number.
        field: u64,
        /// The wire type found.
        wire: u64,
    },
    /// Messages nested deeper than the limit.
    TooDeep(usize),
    /// A tensor or shape with more dims than the limit.
    RankTooLarge(usize),
    /// More nodes in the model than the limit.
    TooManyNodes(usize),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Model,
    TrainingInfo,
    Graph,
    Node,
    Attribute,
    Function,
    Tensor,
    SparseTensor,
    ValueInfo,
    Type,
    TypeElem,
    TypeMap,
    TypeTensor,
    Shape,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Model => "ModelProto",
            Kind::TrainingInfo => "TrainingInfoProto",
            Kind::Graph => "GraphProto",
            Kind::Node => "NodeProto",
            Kind::Attribute => "AttributeProto",
            Kind::Function => "FunctionProto",
            Kind::Tensor => "TensorProto",
            Kind::SparseTensor => "SparseTensorProto",
            Kind::ValueInfo => "ValueInfoProto",
            Kind::Type | Kind::TypeElem | Kind::TypeMap => "TypeProto",
            Kind::TypeTensor => "TypeProto.Tensor",
            Kind::Shape => "TensorShapeProto",
        }
    }

    /// The sub-message kind of field `number`, for the fields the scanner descends into.
    fn child(self, number: u64) -> Option<Kind> {
        Some(match (self, number) {
            (Kind::Model, 7) | (Kind::TrainingInfo, 1 | 2) | (Kind::Attribute, 6 | 11) => {
                Kind::Graph
            }
            (Kind::Model, 20) => Kind::TrainingInfo,
            (Kind::Model, 25) => Kind::Function,
            (Kind::Graph, 1) | (Kind::Function, 7) => Kind::Node,
            (Kind::Graph, 5) | (Kind::Attribute, 5 | 10) | (Kind::SparseTensor, 1 | 2) => {
                Kind::Tensor
            }
            (Kind::Graph, 15) | (Kind::Attribute, 22 | 23) => Kind::SparseTensor,
            (Kind::Graph, 11..=13) | (Kind::Function, 12) => Kind::ValueInfo,
            (Kind::Node, 5) | (Kind::Function, 11) => Kind::Attribute,
            (Kind::ValueInfo | Kind::TypeMap, 2)
            | (Kind::Attribute, 14 | 15)
            | (Kind::TypeElem, 1) => Kind::Type,
            (Kind::Type, 1 | 8) => Kind::TypeTensor,
            (Kind::Type, 4 | 9) => Kind::TypeElem,
            (Kind::Type, 5) => Kind::TypeMap,
            (Kind::TypeTensor, 2) => Kind::Shape,
            _ => return None,
        })
    }

    /// Whether field `number` of this kind is a repeated dim list whose length is a rank.
    fn counts_dims(self, number: u64) -> bool {
        matches!(
            (self, number),
            (Kind::Tensor | Kind::Shape, 1) | (Kind::SparseTensor, 3)
        )
    }
}

/// Why a varint could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VarintError {
    /// The bytes (or `end`) come before its last byte.
    Truncated,
    /// Longer than the 10 bytes a 64-bit value takes.
    TooLong,
}

/// Reads the base-128 varint (protobuf encoding) at `*pos`, not reading at or past `end`, and
/// advances `*pos` past it; on an error `*pos` is where reading stopped.
#[inline]
pub(crate) fn read_varint(bytes: &[u8], pos: &mut usize, end: usize) -> Result<u64, VarintError> {
    // Tags and the lengths of names are one byte: read here, inlined into the scan and the node
    // decoder (some twenty varints per node, where a call cost as much as the read), and only
    // the longer ones in a call.
    if let Some(&byte) = bytes.get(*pos).filter(|&&byte| byte < 0x80 && *pos < end) {
        *pos += 1;
        return Ok(u64::from(byte));
    }
    read_long_varint(bytes, pos, end)
}

/// [`read_varint`] past its one-byte case.
#[inline(never)]
fn read_long_varint(bytes: &[u8], pos: &mut usize, end: usize) -> Result<u64, VarintError> {
    let mut value: u64 = 0;
    for shift in 0..10u32 {
        if *pos >= end {
            return Err(VarintError::Truncated);
        }
        let Some(&byte) = bytes.get(*pos) else {
            return Err(VarintError::Truncated);
        };
        *pos += 1;
        value |= u64::from(byte & 0x7f).checked_shl(shift * 7).unwrap_or(0);
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(VarintError::TooLong)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    limits: Limits,
    nodes_seen: usize,
    path: Vec<(Kind, u64, usize)>,
    parallel: bool,
}

/// Scans `bytes` as a `ModelProto`, returning the node layout or the first fault.
pub(crate) fn scan(bytes: &[u8], limits: Limits) -> Result<ModelLayout, WireFault> {
    scan_with(bytes, limits, true)
}

/// [`scan`], with the main graph's nodes split between two threads if `parallel` (tests compare
/// both ways).
fn scan_with(bytes: &[u8], limits: Limits, parallel: bool) -> Result<ModelLayout, WireFault> {
    let mut scanner = Scanner {
        bytes,
        limits,
        nodes_seen: 0,
        path: Vec::new(),
        parallel,
    };
    let mut layout = ModelLayout::default();
    scanner.message(Kind::Model, 0..bytes.len(), &mut Sink::Model(&mut layout))?;
    Ok(layout)
}

/// Where the layout of the message being scanned goes.
enum Sink<'s> {
    Model(&'s mut ModelLayout),
    Graph(&'s mut GraphLayout),
    /// A graph whose node spans are collected, to be scanned afterwards (see
    /// [`Scanner::main_graph_in_parallel`]).
    NodesOf(&'s mut Vec<NodeLayout>),
    Node(&'s mut NodeLayout),
    Attribute {
        graphs: &'s mut Vec<GraphLayout>,
    },
    Function(&'s mut GraphLayout),
    None,
}

impl Scanner<'_> {
    fn fault(&self, offset: usize, problem: WireProblem) -> WireFault {
        let mut path = String::from("ModelProto");
        for (kind, field, ordinal) in &self.path {
            let child = kind.child(*field).map_or("?", Kind::name);
            let _ = write!(path, "/{child}");
            if *ordinal > 0 {
                let _ = write!(path, "[{ordinal}]");
            }
        }
        WireFault {
            offset,
            path,
            problem,
        }
    }

    #[inline]
    fn varint(&self, pos: &mut usize, end: usize) -> Result<u64, WireFault> {
        read_varint(self.bytes, pos, end).map_err(|error| self.varint_fault(*pos, error))
    }

    /// The fault of a varint that does not read, out of line: [`Scanner::varint`] is inlined
    /// at each of its calls.
    #[cold]
    fn varint_fault(&self, at: usize, error: VarintError) -> WireFault {
        let problem = match error {
            VarintError::Truncated => WireProblem::Truncated,
            VarintError::TooLong => WireProblem::BadVarint,
        };
        self.fault(at, problem)
    }

    fn skip(&self, pos: &mut usize, end: usize, len: usize) -> Result<(), WireFault> {
        match pos.checked_add(len) {
            Some(next) if next <= end => {
                *pos = next;
                Ok(())
            }
            _ => Err(self.fault(*pos, WireProblem::Truncated)),
        }
    }

    #[allow(clippy::too_many_lines)]
    fn message(
        &mut self,
        kind: Kind,
        range: Range<usize>,
        sink: &mut Sink<'_>,
    ) -> Result<(), WireFault> {
        if self.path.len() >= self.limits.max_depth {
            return Err(self.fault(range.start, WireProblem::TooDeep(self.limits.max_depth)));
        }
        let end = range.end;
        let mut pos = range.start;
        let mut dims_seen: usize = 0;
        let mut attr_ordinal: usize = 0;
        let mut ordinals: [usize; 32] = [0; 32];
        while pos < end {
            let tag_at = pos;
            let tag = self.varint(&mut pos, end)?;
            let number = tag >> 3;
            let wire = tag & 7;
            if number == 0 || !matches!(wire, 0 | 1 | 2 | 5) {
                return Err(self.fault(tag_at, WireProblem::BadTag(tag)));
            }
            let ordinal = usize::try_from(number)
                .ok()
                .and_then(|n| ordinals.get_mut(n))
                .map_or(0, |slot| {
                    let seen = *slot;
                    *slot += 1;
                    seen
                });
            if wire != 2 && kind.child(number).is_some() {
                return Err(self.fault(
                    tag_at,
                    WireProblem::WrongWireType {
                        field: number,
                        wire,
                    },
                ));
            }
            match wire {
                0 => {
                    self.varint(&mut pos, end)?;
                    if kind.counts_dims(number) {
                        dims_seen += 1;
                    }
                }
                1 => self.skip(&mut pos, end, 8)?,
                5 => self.skip(&mut pos, end, 4)?,
                _ => {
                    let len = self.varint(&mut pos, end)?;
                    let len = usize::try_from(len).unwrap_or(usize::MAX);
                    let start = pos;
                    self.skip(&mut pos, end, len)?;
                    let body = start..pos;
                    if kind.counts_dims(number) {
                        dims_seen = dims_seen.saturating_add(self.count_dims(kind, body.clone())?);
                    } else if let Some(child) = kind.child(number) {
                        self.path.push((kind, number, ordinal));
                        self.child(kind, child, number, body, sink, &mut attr_ordinal)?;
                        self.path.pop();
                    }
                    if kind == Kind::Node && number == 5 {
                        attr_ordinal += 1;
                    }
                }
            }
            if dims_seen > self.limits.max_rank {
                return Err(self.fault(tag_at, WireProblem::RankTooLarge(self.limits.max_rank)));
            }
        }
        Ok(())
    }

    /// Number of entries in a dim list: packed varints, or one `Dimension` message per entry.
    fn count_dims(&self, kind: Kind, body: Range<usize>) -> Result<usize, WireFault> {
        if kind == Kind::Shape {
            return Ok(1);
        }
        let mut pos = body.start;
        let mut count = 0usize;
        while pos < body.end {
            self.varint(&mut pos, body.end)?;
            count += 1;
            if count > self.limits.max_rank {
                break;
            }
        }
        Ok(count)
    }

    fn child(
        &mut self,
        parent: Kind,
        kind: Kind,
        number: u64,
        body: Range<usize>,
        sink: &mut Sink<'_>,
        attr_ordinal: &mut usize,
    ) -> Result<(), WireFault> {
        match (kind, sink) {
            (Kind::Graph, Sink::Model(model)) if parent == Kind::Model => {
                if self.parallel
                    && body.len() >= PARALLEL_FROM
                    && self.main_graph_in_parallel(body.clone(), &mut model.graph)
                {
                    return Ok(());
                }
                self.message(kind, body, &mut Sink::Graph(&mut model.graph))
            }
            (Kind::Function, Sink::Model(model)) => {
                let mut function = GraphLayout::default();
                self.message(kind, body, &mut Sink::Function(&mut function))?;
                model.functions.push(function);
                Ok(())
            }
            (Kind::Node, Sink::NodesOf(nodes)) => {
                // Bounded like the serial scan, which stops past the limit.
                if self.nodes_seen.saturating_add(nodes.len()) >= self.limits.max_nodes {
                    return Err(
                        self.fault(body.start, WireProblem::TooManyNodes(self.limits.max_nodes))
                    );
                }
                // The layout the node's scan fills in later, in place: no second list of spans
                // (16 bytes a node, and its copies as it grew, issue 19).
                nodes.push(NodeLayout {
                    span: body,
                    subgraphs: None,
                });
                Ok(())
            }
            (Kind::Node, Sink::Graph(graph) | Sink::Function(graph)) => {
                let mut node = NodeLayout::default();
                self.node(body, &mut node)?;
                graph.nodes.push(node);
                Ok(())
            }
            (Kind::Attribute, Sink::Node(node)) => {
                let mut graphs = Vec::new();
                self.message(
                    kind,
                    body,
                    &mut Sink::Attribute {
                        graphs: &mut graphs,
                    },
                )?;
                let ordinal = *attr_ordinal;
                if !graphs.is_empty() {
                    node.subgraphs
                        .get_or_insert_with(Box::default)
                        .extend(graphs.into_iter().map(|graph| (ordinal, graph)));
                }
                Ok(())
            }
            (Kind::Graph, Sink::Attribute { graphs }) if number == 6 || number == 11 => {
                let mut graph = GraphLayout::default();
                self.message(kind, body, &mut Sink::Graph(&mut graph))?;
                graphs.push(graph);
                Ok(())
            }
            _ => self.message(kind, body, &mut Sink::None),
        }
    }

    /// Scans the node in `body` into `layout`, counting it against the node limit.
    fn node(&mut self, body: Range<usize>, layout: &mut NodeLayout) -> Result<(), WireFault> {
        self.nodes_seen += 1;
        if self.nodes_seen > self.limits.max_nodes {
            return Err(self.fault(body.start, WireProblem::TooManyNodes(self.limits.max_nodes)));
        }
        layout.span = body.clone();
        self.message(Kind::Node, body, &mut Sink::Node(layout))
    }

    /// Scans the main graph in `body` with its node list split between two threads (issue 6:
    /// rayon where work is independent; the scan comes before anything else can run).
    ///
    /// A first pass scans the graph's other fields and collects its nodes' spans; then each
    /// thread scans half of the nodes. If anything is wrong, this returns `false` having
    /// recorded nothing, and the caller scans the graph serially, which reports the same first
    /// fault as ever.
    fn main_graph_in_parallel(&mut self, body: Range<usize>, graph: &mut GraphLayout) -> bool {
        let depth = self.path.len();
        let mut nodes = Vec::new();
        if self
            .message(Kind::Graph, body, &mut Sink::NodesOf(&mut nodes))
            .is_err()
        {
            // A fault returns without unwinding the path.
            self.path.truncate(depth);
            return false;
        }
        // Filled in place by both threads.
        let mut layouts = nodes;
        let mid = layouts.len() / 2;
        let (first_layouts, second_layouts) = layouts.split_at_mut(mid);
        let scan_nodes = |layouts: &mut [NodeLayout]| {
            let mut scanner = Scanner {
                bytes: self.bytes,
                limits: self.limits,
                nodes_seen: 0,
                path: self.path.clone(),
                parallel: false,
            };
            // Only the depth of this path matters here: a fault is reported by the serial scan.
            scanner.path.push((Kind::Graph, GRAPH_NODE, 0));
            for layout in layouts {
                scanner.node(layout.span.clone(), layout).ok()?;
            }
            Some(scanner.nodes_seen)
        };
        let (Some(seen_first), Some(seen_second)) =
            rayon::join(|| scan_nodes(first_layouts), || scan_nodes(second_layouts))
        else {
            return false;
        };
        let seen = self
            .nodes_seen
            .saturating_add(seen_first)
            .saturating_add(seen_second);
        if seen > self.limits.max_nodes {
            return false;
        }
        self.nodes_seen = seen;
        if graph.nodes.is_empty() {
            graph.nodes = layouts;
        } else {
            graph.nodes.extend(layouts);
        }
        true
    }
}

/// `GraphProto.node` (`proto/onnx.proto`).
pub(crate) const GRAPH_NODE: u64 = 1;

/// Main graphs from this many bytes have their nodes scanned on two threads; below, handing
/// half of the nodes to another thread costs more than it saves.
const PARALLEL_FROM: usize = 256 << 10;

#[cfg(test)]
mod tests {
    use super::*;

    fn limits() -> Limits {
        Limits::default()
    }

    /// The one-byte fast path reads what the loop reads, and stops at `end` as it does.
    #[test]
    fn varints_read_as_the_loop_reads_them() {
        fn by_loop(bytes: &[u8], pos: &mut usize, end: usize) -> Result<u64, VarintError> {
            let mut value: u64 = 0;
            for shift in 0..10u32 {
                let Some(&byte) = bytes.get(*pos).filter(|_| *pos < end) else {
                    return Err(VarintError::Truncated);
                };
                *pos += 1;
                value |= u64::from(byte & 0x7f).checked_shl(shift * 7).unwrap_or(0);
                if byte & 0x80 == 0 {
                    return Ok(value);
                }
            }
            Err(VarintError::TooLong)
        }
        for first in 0..=255u8 {
            for second in [0x00, 0x01, 0x7f, 0x80, 0xff] {
                let bytes = [first, second, 0x80, 0x01];
                for start in 0..2 {
                    for end in 0..=bytes.len() {
                        let (mut fast, mut slow) = (start, start);
                        let got = read_varint(&bytes, &mut fast, end);
                        let want = by_loop(&bytes, &mut slow, end);
                        assert_eq!(format!("{got:?}"), format!("{want:?}"));
                        assert_eq!(fast, slow, "{bytes:?} from {start} to {end}");
                    }
                }
            }
        }
    }

    #[test]
    fn empty_input_is_an_empty_model() {
        let layout = scan(&[], limits()).unwrap();
        assert!(layout.graph.nodes.is_empty());
    }

    #[test]
    fn truncated_length_is_located() {
        // field 7 (graph), wire type 2, length 10, but only 2 bytes follow
        let fault = scan(&[0x3a, 10, 0x0a, 0x00], limits()).unwrap_err();
        assert_eq!(fault.problem, WireProblem::Truncated);
        assert_eq!(fault.offset, 2);
    }

    #[test]
    fn bad_wire_type_is_located() {
        let fault = scan(&[0x08, 0x01, 0x0f], limits()).unwrap_err();
        assert_eq!(fault.problem, WireProblem::BadTag(0x0f));
        assert_eq!(fault.offset, 2);
    }

    #[test]
    fn message_field_with_varint_wire_type_is_located() {
        // field 7 (graph) sent as a varint
        let fault = scan(&[0x08, 0x07, 0x38, 0x01], limits()).unwrap_err();
        assert_eq!(
            fault.problem,
            WireProblem::WrongWireType { field: 7, wire: 0 }
        );
        assert_eq!(fault.offset, 2);
    }

    #[test]
    fn node_spans_are_recorded() {
        // graph { node { op_type: "Add" } node { } }
        let node = [0x22, 3, b'A', b'd', b'd'];
        let mut graph = vec![0x0a, 5];
        graph.extend_from_slice(&node);
        graph.extend_from_slice(&[0x0a, 0]);
        let mut model = vec![0x3a, u8::try_from(graph.len()).unwrap()];
        model.extend_from_slice(&graph);
        let layout = scan(&model, limits()).unwrap();
        assert_eq!(layout.graph.nodes.len(), 2);
        assert_eq!(layout.graph.nodes[0].span, 4..9);
        assert_eq!(layout.graph.nodes[1].span, 11..11);
    }

    mod parallel {
        use super::*;
        use crate::proto::{
            AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto, ValueInfoProto,
        };
        use prost::Message;

        /// A main graph well above `PARALLEL_FROM`, whose node 2,000 holds two subgraphs.
        fn graph() -> GraphProto {
            let branch = GraphProto {
                node: vec![NodeProto {
                    op_type: Some("Identity".into()),
                    input: vec!["x".into()],
                    output: vec!["b".into()],
                    ..NodeProto::default()
                }],
                ..GraphProto::default()
            };
            let node = |i: usize| NodeProto {
                name: Some(format!("node_with_a_long_enough_name_{i}")),
                op_type: Some("Add".into()),
                input: vec![format!("v{i}"), "bias_of_some_length".into()],
                output: vec![format!("v{}", i + 1)],
                ..NodeProto::default()
            };
            let mut nodes: Vec<NodeProto> = (0..6_000).map(node).collect();
            nodes[2_000].attribute = ["then_branch", "else_branch"]
                .into_iter()
                .map(|name| AttributeProto {
                    name: Some(name.into()),
                    g: Some(Box::new(branch.clone())),
                    r#type: Some(5),
                    ..AttributeProto::default()
                })
                .collect();
            GraphProto {
                node: nodes,
                initializer: vec![TensorProto {
                    name: Some("bias_of_some_length".into()),
                    dims: vec![1],
                    ..TensorProto::default()
                }],
                input: vec![ValueInfoProto {
                    name: Some("v0".into()),
                    ..ValueInfoProto::default()
                }],
                ..GraphProto::default()
            }
        }

        fn encode(graph: GraphProto) -> Vec<u8> {
            ModelProto {
                ir_version: Some(10),
                graph: Some(graph),
                ..ModelProto::default()
            }
            .encode_to_vec()
        }

        fn both(bytes: &[u8], limits: Limits) -> [Result<ModelLayout, WireFault>; 2] {
            [
                scan_with(bytes, limits, false),
                scan_with(bytes, limits, true),
            ]
        }

        #[test]
        fn finds_the_layout_the_serial_scan_finds() {
            let bytes = encode(graph());
            assert!(bytes.len() > PARALLEL_FROM);
            let [serial, parallel] = both(&bytes, Limits::default());
            let serial = serial.unwrap();
            assert_eq!(serial.graph.nodes.len(), 6_000);
            assert_eq!(
                serial.graph.nodes[2_000].subgraphs.as_ref().unwrap().len(),
                2
            );
            assert_eq!(parallel.unwrap(), serial);
        }

        #[test]
        fn a_broken_node_in_the_second_half_is_the_serial_fault() {
            let mut bytes = encode(graph());
            let [serial, _] = both(&bytes, Limits::default());
            let node = serial.unwrap().graph.nodes[5_000].span.clone();
            // A tag with wire type 7 where the node's first field starts.
            bytes[node.start] = 0x0f;
            let [serial, parallel] = both(&bytes, Limits::default());
            let fault = serial.unwrap_err();
            assert_eq!(fault.problem, WireProblem::BadTag(0x0f));
            assert_eq!(fault.offset, node.start);
            assert_eq!(parallel.unwrap_err(), fault);
        }

        #[test]
        fn a_broken_field_after_the_nodes_is_the_serial_fault() {
            let mut graph = graph();
            graph.output = vec![ValueInfoProto {
                name: Some("v6000".into()),
                ..ValueInfoProto::default()
            }];
            let mut bytes = encode(graph);
            // The graph's last field is the output's ValueInfoProto: break its first tag.
            let last = bytes.len() - "v6000".len() - 4;
            assert_eq!(bytes[last], 0x62, "GraphProto.output tag");
            bytes[last + 2] = 0x0f;
            let [serial, parallel] = both(&bytes, Limits::default());
            let fault = serial.unwrap_err();
            assert_eq!(fault.problem, WireProblem::BadTag(0x0f));
            assert_eq!(parallel.unwrap_err(), fault);
        }

        #[test]
        fn too_many_nodes_is_the_serial_fault() {
            let bytes = encode(graph());
            let limits = Limits {
                max_nodes: 4_000,
                ..Limits::default()
            };
            let [serial, parallel] = both(&bytes, limits);
            let fault = serial.unwrap_err();
            assert_eq!(fault.problem, WireProblem::TooManyNodes(4_000));
            assert_eq!(parallel.unwrap_err(), fault);
        }
    }
}
