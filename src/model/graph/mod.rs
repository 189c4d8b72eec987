//! Builds the nodes, the value table and the order of every graph: the main graph, the subgraphs
//! held by GRAPH/GRAPHS attributes (`If`, `Loop`, `Scan`, ...), and model-local function bodies
//! (a petgraph DAG only for a graph whose file order is not topological).
//!
//! Structural problems (cycles, undefined inputs, duplicate producers, missing op types) become
//! [`StructuralProblem`]s, never errors: the rest of the model is still linted.
//!
//! A graph is built in phases: the values it declares before its nodes (inputs, initializers)
//! and after them (`value_info`, outputs) in `declared.rs`; its nodes in `nodes.rs`; the names
//! it reads from enclosing graphs and the subgraphs its nodes hold in `scopes.rs`; then its
//! order (`finish`, here).

use std::ops::Range;
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;

use super::intern::Interner;
use super::parts::{GraphParts, ModelParts, Nodes};
use super::text::{RawText, Text};
use super::topology;
use super::wire::{GraphLayout, ModelLayout};
use super::{
    DeclaredCounts, Function, Graph, GraphId, Model, Opsets, ProblemKind, StructuralProblem,
    ValueId,
};
use crate::error::{Limits, LoadError};
use crate::proto::ValueInfoProto;

mod attribute_sets;
mod chunks;
mod declared;
mod inputs;
mod limits;
mod mirror;
mod nodes;
mod pipe;
mod scopes;
mod table;
mod tensors;

pub(crate) use mirror::{declared_of, LateDeclared, Next};
pub(crate) use pipe::{pipe, Drain, Feed};

use attribute_sets::AttributeSets;
use nodes::AddedNodes;
use pipe::{Pipeline, Returned};
use scopes::Captures;
use table::Table;

/// How many node outputs wait before they are indexed together (see [`Table::push_pending`]):
/// enough that indexing them walks the index in order, few enough that the file's pages they
/// are named in are still held (issue 19).
const INDEX_BATCH: usize = 1 << 15;

/// Builds a [`Model`] from the parts of its protobuf and, when it was read from bytes, those
/// bytes and their wire layout (which locates the nodes left in them). With a `feed`, the main
/// graph's nodes are handed to an inference thread as they are built ([`pipe`]); `waited` is
/// then how long the builder waited for that thread once every node was built.
pub(crate) fn build(
    proto: ModelParts,
    in_file: Option<(Bytes, ModelLayout)>,
    path: &Path,
    limits: Limits,
    release: Option<&(dyn Fn(Range<usize>) + Sync)>,
    piped: Option<(Feed, &mut Duration)>,
) -> Result<Model, LoadError> {
    let opsets = Opsets::from_imports(&proto.opset_import);
    let (file, graph_layout, mut function_layouts) = match in_file {
        Some((file, layout)) => (Some(file), Some(layout.graph), layout.functions.into_iter()),
        None => (None, None, Vec::new().into_iter()),
    };
    let (feed, waited) = match piped {
        // Bodies of functions a node may call need the other graphs: no pipeline.
        Some((feed, waited)) if proto.functions.is_empty() => (Some(feed), Some(waited)),
        Some((_, waited)) => (None, Some(waited)),
        None => (None, None),
    };
    let mut builder = Builder {
        path,
        file,
        limits,
        ir_version: proto.ir_version,
        pipeline: feed.map_or(Pipeline::None, Pipeline::Ready),
        lent: None,
        waited: Duration::ZERO,
        graphs: Vec::new(),
        problems: Vec::new(),
        nodes_seen: 0,
        interned: Interner::default(),
        attribute_sets: AttributeSets::default(),
        outputs: Vec::new(),
        slots: Vec::new(),
        release,
    };
    let main = proto.graph.unwrap_or_else(|| {
        builder.problems.push(StructuralProblem {
            graph: GraphId(0),
            node: None,
            kind: ProblemKind::NoGraph,
        });
        GraphParts::empty()
    });
    builder.graph(main, "main", None, graph_layout, &opsets, 0)?;
    if let Some(waited) = waited {
        *waited = builder.waited;
    }

    let mut functions = Vec::new();
    for function in proto.functions {
        let mut imports = opsets.clone();
        imports.extend(&Opsets::from_imports(&function.opset_import));
        let body = GraphParts {
            nodes: function.nodes,
            initializer: Vec::new(),
            sparse_initializer: Vec::new(),
            input: function.input.into_iter().map(named_value).collect(),
            output: function.output.into_iter().map(named_value).collect(),
            value_info: function.value_info,
        };
        let (id, _) = builder.graph(
            body,
            &format!("function/{}/{}", function.domain, function.name),
            None,
            function_layouts.next(),
            &imports,
            0,
        )?;
        functions.push(Function {
            domain: function.domain,
            name: function.name,
            graph: id,
        });
    }
    Ok(Model {
        ir_version: proto.ir_version,
        graphs: builder.graphs,
        functions,
        problems: builder.problems,
    })
}

fn named_value(name: String) -> ValueInfoProto {
    ValueInfoProto {
        name: Some(name),
        ..ValueInfoProto::default()
    }
}

struct Builder<'p> {
    path: &'p Path,
    /// The bytes the model was read from, if any.
    file: Option<Bytes>,
    limits: Limits,
    graphs: Vec<Graph>,
    problems: Vec<StructuralProblem>,
    nodes_seen: usize,
    interned: Interner,
    /// Attribute lists shared between nodes.
    attribute_sets: AttributeSets,
    /// The output values of the node being added, reused from node to node (one allocation
    /// per node, its slots, instead of three).
    outputs: Vec<Option<ValueId>>,
    /// The slots of the node being added, reused from node to node.
    slots: Vec<Option<ValueId>>,
    /// Gives back the file's pages of a node range already built (main graph of a large file).
    release: Option<&'p (dyn Fn(Range<usize>) + Sync)>,
    /// The model's IR version, which inference beside the builder needs.
    ir_version: i64,
    /// The main graph's inference beside the builder, if asked for ([`pipe`]).
    pipeline: Pipeline,
    /// What the inference thread gave back when the pipeline ended.
    lent: Option<Returned>,
    /// How long the builder waited for the inference thread once the nodes were built.
    waited: Duration,
}

impl Builder<'_> {
    fn problem(&mut self, graph: GraphId, node: Option<usize>, kind: ProblemKind) {
        self.problems.push(StructuralProblem { graph, node, kind });
    }

    fn graph_mut(&mut self, id: GraphId) -> Option<&mut Graph> {
        self.graphs.get_mut(id.0 as usize)
    }

    fn graph(
        &mut self,
        mut proto: GraphParts,
        path: &str,
        parent: Option<(GraphId, usize)>,
        layout: Option<GraphLayout>,
        opsets: &Opsets,
        depth: usize,
    ) -> Result<(GraphId, Captures), LoadError> {
        if depth > self.limits.max_depth {
            return Err(LoadError::Limit {
                path: self.path.to_path_buf(),
                what: "subgraph nesting depth",
                limit: self.limits.max_depth,
                offset: 0,
            });
        }
        let id = GraphId(u32::try_from(self.graphs.len()).unwrap_or(u32::MAX));
        let node_count = match &proto.nodes {
            Nodes::Decoded(list) => list.len(),
            Nodes::InFile => layout.as_ref().map_or(0, |layout| layout.nodes.len()),
        };
        // About one value per node output; most nodes have one.
        let mut table = Table::with_capacity(
            proto.input.len()
                + proto.initializer.len()
                + proto.sparse_initializer.len()
                + node_count,
            self.file.clone(),
        );

        let inputs = self.declare_inputs(id, proto.input, &mut table)?;
        let counts = DeclaredCounts {
            initializers: proto.initializer.len(),
            sparse_initializers: proto.sparse_initializer.len(),
            value_info: proto.value_info.len(),
        };
        let mut initializers = self.add_initializers(
            id,
            path,
            proto.initializer,
            proto.sparse_initializer,
            &mut table,
        )?;
        if id == GraphId(0) && parent.is_none() && matches!(proto.nodes, Nodes::InFile) {
            let lent = (&mut initializers, &mut proto.value_info, &mut proto.output);
            self.start_pipeline(&table, &inputs, node_count, lent);
        }
        let AddedNodes {
            mut nodes,
            pending,
            unresolved,
            deferred,
        } = self.add_nodes(
            id,
            path,
            opsets,
            layout,
            proto.nodes,
            node_count,
            &mut table,
        )?;
        if let Some(lent) = self.lent.take() {
            initializers = lent.initializers;
            proto.value_info = lent.value_info;
            proto.output = lent.outputs;
        }
        let mut captures: Captures = Vec::new();
        let parent_id = parent.map(|(graph, _)| graph);
        self.resolve_late(
            id,
            &mut nodes,
            unresolved.into_iter().chain(deferred),
            &mut table,
            &mut captures,
            parent_id,
        )?;
        self.declare_value_info(proto.value_info, &mut table)?;
        let outputs =
            self.declare_outputs(id, proto.output, &mut table, &mut captures, parent_id)?;

        table.texts.shrink();
        self.graphs.push(Graph {
            id,
            path: path.to_owned(),
            parent: parent.map(|(graph, _)| graph),
            owner: parent.map(|(_, node)| node),
            nodes,
            values: table.values,
            by_name: table.by_name,
            texts: table.texts,
            inputs,
            outputs,
            initializers,
            counts,
            order: Vec::new(),
        });

        let implicit = self.build_subgraphs(id, path, pending, opsets, depth, &mut captures)?;
        let problems = self.finish(id, &implicit);
        self.problems.extend(problems);
        Ok((id, captures))
    }

    /// Adds a name to the graph being built; a graph whose names pass 2 GiB is refused.
    fn add_text(&self, table: &mut Table, raw: &RawText) -> Result<Text, LoadError> {
        table.texts.add(raw).ok_or_else(|| LoadError::Limit {
            path: self.path.to_path_buf(),
            what: "total length of a graph's names",
            limit: 1 << 31,
            offset: 0,
        })
    }

    /// Orders the graph's nodes topologically; nodes on cycles are marked and reported.
    ///
    /// The ONNX IR requires nodes to be topologically sorted ("nodes ... MUST be topologically
    /// sorted") and exporters write them so: when every edge (an explicit input, or a value a
    /// subgraph captures) goes forward in file order, that order is used and no graph is built.
    /// Only otherwise is a petgraph DAG built, for the sort and the cycle search, and dropped.
    fn finish(&mut self, id: GraphId, implicit: &[(usize, ValueId)]) -> Vec<StructuralProblem> {
        let Some(graph) = self.graphs.get_mut(id.0 as usize) else {
            return Vec::new();
        };
        let producer = |value: ValueId| graph.values.get(value.0 as usize)?.producer();
        let explicit = graph.nodes.iter().flat_map(|node| {
            node.inputs()
                .iter()
                .flatten()
                .map(move |&value| (node.index(), value))
        });
        let mut edges = explicit
            .chain(implicit.iter().copied())
            .filter_map(|(to, value)| producer(value).map(|from| (from, to)));
        if edges.all(|(from, to)| from < to) {
            graph.order = (0..graph.nodes.len()).collect();
            return Vec::new();
        }
        let (order, cycles) = topology::sort(graph, implicit);
        graph.order = order;
        let mut problems = Vec::with_capacity(cycles.len());
        for members in cycles {
            for &member in &members {
                if let Some(node) = graph.nodes.get_mut(member) {
                    node.in_cycle = true;
                }
            }
            problems.push(StructuralProblem {
                graph: id,
                node: members.first().copied(),
                kind: ProblemKind::Cycle { nodes: members },
            });
        }
        problems
    }
}
