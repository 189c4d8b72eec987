//! What the graph builder reads of a model, from either of its two sources: a `ModelProto`
//! decoded by the caller (`lint_model`), or the lean view of `proto/lean.proto` decoded from the
//! file's bytes, whose nodes are left in the file: the wire scan located them, and they are
//! decoded a chunk at a time while building.
//!
//! Decoding nodes a chunk at a time bounds the memory of loading: a decoded node lives only
//! until its fields are moved into the built [`super::Node`].

use crate::proto::onnx_lean;
use crate::proto::{
    FunctionProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, SparseTensorProto,
    TensorProto, ValueInfoProto,
};

/// The nodes of a graph, decoded or not.
pub(super) enum Nodes {
    /// Already decoded (a caller's `ModelProto`, or a subgraph decoded with its node).
    Decoded(Vec<NodeProto>),
    /// Still encoded in the file, at the byte ranges of the graph's layout.
    InFile,
}

/// The fields of a `GraphProto` the builder reads.
/// An initializer as the protobuf decoder left it: its encoding (loading from bytes decodes
/// headers only, [`super::Initializer`]) or a decoded tensor.
pub(super) enum TensorSource {
    Encoded(bytes::Bytes),
    /// Boxed: a list of encodings (the common case) stays five words an entry.
    Decoded(Box<TensorProto>),
}

impl From<bytes::Bytes> for TensorSource {
    fn from(bytes: bytes::Bytes) -> Self {
        Self::Encoded(bytes)
    }
}

impl From<TensorProto> for TensorSource {
    fn from(tensor: TensorProto) -> Self {
        Self::Decoded(Box::new(tensor))
    }
}

pub(super) struct GraphParts {
    pub(super) nodes: Nodes,
    pub(super) initializer: Vec<TensorSource>,
    pub(super) sparse_initializer: Vec<SparseTensorProto>,
    pub(super) input: Vec<ValueInfoProto>,
    pub(super) output: Vec<ValueInfoProto>,
    pub(super) value_info: Vec<ValueInfoProto>,
}

impl GraphParts {
    /// An empty graph (a model without one is reported, then linted as empty).
    pub(super) fn empty() -> Self {
        Self::from(GraphProto::default())
    }
}

/// The fields of a `FunctionProto` the builder reads.
pub(super) struct FunctionParts {
    pub(super) name: String,
    pub(super) domain: String,
    pub(super) input: Vec<String>,
    pub(super) output: Vec<String>,
    pub(super) nodes: Nodes,
    pub(super) opset_import: Vec<OperatorSetIdProto>,
    pub(super) value_info: Vec<ValueInfoProto>,
}

/// The fields of a `ModelProto` the builder reads.
pub(super) struct ModelParts {
    pub(super) ir_version: i64,
    pub(super) opset_import: Vec<OperatorSetIdProto>,
    pub(super) graph: Option<GraphParts>,
    pub(super) functions: Vec<FunctionParts>,
}

/// The field-by-field moves from either source, which differ only in how the nodes come.
macro_rules! parts_from {
    ($model:ty, $graph:ty, $function:ty, $graph_nodes:expr, $function_nodes:expr) => {
        impl From<$graph> for GraphParts {
            fn from(mut graph: $graph) -> Self {
                let nodes = ($graph_nodes)(&mut graph);
                GraphParts {
                    nodes,
                    initializer: graph.initializer.into_iter().map(Into::into).collect(),
                    sparse_initializer: graph.sparse_initializer,
                    input: graph.input,
                    output: graph.output,
                    value_info: graph.value_info,
                }
            }
        }

        impl From<$function> for FunctionParts {
            fn from(mut function: $function) -> Self {
                let nodes = ($function_nodes)(&mut function);
                FunctionParts {
                    name: function.name.unwrap_or_default(),
                    domain: function.domain.unwrap_or_default(),
                    input: function.input,
                    output: function.output,
                    nodes,
                    opset_import: function.opset_import,
                    value_info: function.value_info,
                }
            }
        }

        impl From<$model> for ModelParts {
            fn from(model: $model) -> Self {
                ModelParts {
                    ir_version: model.ir_version.unwrap_or(0),
                    opset_import: model.opset_import,
                    graph: model.graph.map(GraphParts::from),
                    functions: model
                        .functions
                        .into_iter()
                        .map(FunctionParts::from)
                        .collect(),
                }
            }
        }
    };
}

parts_from!(
    ModelProto,
    GraphProto,
    FunctionProto,
    |graph: &mut GraphProto| Nodes::Decoded(std::mem::take(&mut graph.node)),
    |function: &mut FunctionProto| Nodes::Decoded(std::mem::take(&mut function.node))
);
parts_from!(
    onnx_lean::ModelProto,
    onnx_lean::GraphProto,
    onnx_lean::FunctionProto,
    |_: &mut onnx_lean::GraphProto| Nodes::InFile,
    |_: &mut onnx_lean::FunctionProto| Nodes::InFile
);
