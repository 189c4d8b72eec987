//! Builds the petgraph DAG and the value table of every graph: the main graph, the subgraphs held
//! by GRAPH/GRAPHS attributes (`If`, `Loop`, `Scan`, ...), and model-local function bodies.
//!
//! Structural problems (cycles, undefined inputs, duplicate producers, missing op types) become
//! [`StructuralProblem`]s, never errors: the rest of the model is still linted.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

use super::intern::Interner;
use super::node_wire::RawNode;
use super::parts::{GraphParts, ModelParts, Nodes};
use super::text::{RawText, Text};
use super::topology;
use super::wire::{GraphLayout, ModelLayout};
use super::{
    Attribute, DeclaredCounts, Function, Graph, GraphId, Initializer, Model, Node, Opsets, Origin,
    ProblemKind, Slots, StructuralProblem, ValueId, NO_INITIALIZER,
};
use crate::error::{Limits, LoadError};
use crate::proto::ValueInfoProto;

mod attribute_sets;
mod chunks;
mod inputs;
mod limits;
mod table;
mod tensors;

use attribute_sets::AttributeSets;
use chunks::DecodedChunk;
use inputs::BuiltNodes;
use table::Table;
use tensors::{read_initializer, Released};

/// How many node outputs wait before they are indexed together (see [`Table::push_pending`]):
/// enough that indexing them walks the index in order, few enough that the file's pages they
/// are named in are still held (issue 19).
const INDEX_BATCH: usize = 1 << 15;

/// Builds a [`Model`] from the parts of its protobuf and, when it was read from bytes, those
/// bytes and their wire layout (which locates the nodes left in them).
pub(crate) fn build(
    proto: ModelParts,
    in_file: Option<(Bytes, ModelLayout)>,
    path: &Path,
    limits: Limits,
    release: Option<&(dyn Fn(Range<usize>) + Sync)>,
) -> Result<Model, LoadError> {
    let opsets = Opsets::from_imports(&proto.opset_import);
    let (file, graph_layout, mut function_layouts) = match in_file {
        Some((file, layout)) => (Some(file), Some(layout.graph), layout.functions.into_iter()),
        None => (None, None, Vec::new().into_iter()),
    };
    let mut builder = Builder {
        path,
        file,
        limits,
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
            attributes: function.attribute,
        });
    }
    Ok(Model {
        ir_version: proto.ir_version,
        opsets,
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
}

/// A graph held by an attribute, waiting to be built once its parent's values are known.
struct PendingSubgraph {
    node: usize,
    attribute: String,
    body: GraphParts,
    layout: Option<GraphLayout>,
}

/// Values of enclosing graphs that a subgraph reads: `(defining graph, value there)`.
type Captures = Vec<(GraphId, ValueId)>;

impl Builder<'_> {
    fn problem(&mut self, graph: GraphId, node: Option<usize>, kind: ProblemKind) {
        self.problems.push(StructuralProblem { graph, node, kind });
    }

    fn graph_mut(&mut self, id: GraphId) -> Option<&mut Graph> {
        self.graphs.get_mut(id.0 as usize)
    }

    #[allow(clippy::too_many_lines)]
    fn graph(
        &mut self,
        proto: GraphParts,
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

        for input in proto.input {
            self.check_declared_rank(input.r#type.as_ref())?;
            let name = input.name.unwrap_or_default();
            let text = self.add_text(&mut table, &RawText::Owned(name))?;
            let (value, fresh) = table.define(text, Origin::Input);
            if !fresh {
                let name = table.name_of(value).to_owned();
                self.problem(id, None, ProblemKind::DuplicateProducer { name });
            } else if let Some(slot) = table.values.get_mut(value.0 as usize) {
                slot.declared = input.r#type.map(Box::new);
            }
        }
        let inputs: Vec<ValueId> = (0..table.values.len())
            .filter_map(|i| u32::try_from(i).ok().map(ValueId))
            .collect();

        let counts = DeclaredCounts {
            initializers: proto.initializer.len(),
            sparse_initializers: proto.sparse_initializer.len(),
            value_info: proto.value_info.len(),
        };
        let mut initializers = Vec::with_capacity(proto.initializer.len());
        let (file, file_path) = (self.file.clone(), self.path);
        // The main graph's tensors once their headers are read: a model with its own weights
        // has most of its file there, paged in by the scan (issue 19: peak memory). Their names
        // are then copied, so that resolving inputs does not page them in again.
        let mut read_tensors = Released::new(self.release.filter(|_| id == GraphId(0)));
        let copy_names = read_tensors.active();
        let dense = proto
            .initializer
            .into_iter()
            .enumerate()
            .map(|(index, source)| {
                let read =
                    read_initializer(source, file.as_ref(), copy_names, file_path, path, index)?;
                if let Some(range) = read.range {
                    read_tensors.add(range);
                }
                Ok((read.name, read.initializer, Origin::Initializer))
            });
        let sparse = proto.sparse_initializer.into_iter().map(|sparse| {
            let values = sparse.values.unwrap_or_default();
            let tensor = Initializer::header(values.data_type, sparse.dims);
            Ok((
                RawText::Owned(values.name.unwrap_or_default()),
                tensor,
                Origin::SparseInitializer,
            ))
        });
        for entry in dense.chain(sparse) {
            let (name, tensor, origin): (RawText, Initializer, Origin) = entry?;
            self.check_dims(&table, &name, &tensor.dims)?;
            let text = self.add_text(&mut table, &name)?;
            // Its type is its tensor's, read from the tensor when needed: no declaration is
            // built (a model with its own weights has one initializer per two nodes).
            let value = table.push_pending(text, origin, None);
            if let Some(slot) = table.values.get_mut(value.0 as usize) {
                slot.initializer = u32::try_from(initializers.len()).unwrap_or(NO_INITIALIZER);
            }
            initializers.push(tensor);
        }
        // Indexed together, in the index's order (issue 19: 445k initializers in one model).
        // No id of theirs was given out yet, so none needs renumbering.
        let (duplicates, _) = table.index_pending();
        for (removed, first) in duplicates {
            match table.values.get_mut(first.0 as usize) {
                // IR < 4: an initializer doubles as the default of a graph input.
                Some(slot) if slot.origin == Origin::Input => {
                    slot.initializer = removed.initializer;
                }
                _ => {
                    let name = table.name_of(first).to_owned();
                    self.problem(id, None, ProblemKind::DuplicateProducer { name });
                }
            }
        }
        drop(read_tensors);

        let mut built = BuiltNodes {
            graph: id,
            path,
            opsets,
            layouts: layout.map(|layout| layout.nodes.into_iter()),
            nodes: Vec::with_capacity(node_count),
            pending: Vec::new(),
            deferred: Vec::new(),
            unresolved: Vec::new(),
            missing_op_types: Vec::new(),
            next_weight: 0,
            operators: inputs::Operators::default(),
        };
        match proto.nodes {
            Nodes::Decoded(list) => {
                let mut raw = RawNode::default();
                let hasher = table.by_name.hasher();
                for node in list {
                    raw.fill_from(node);
                    raw.fill_checks(&[], &hasher);
                    self.add_node(&mut built, &mut table, &mut raw, Ok(()))?;
                }
            }
            Nodes::InFile => self.add_in_file(&mut built, &mut table)?,
        }
        self.index_outputs(&mut built, &mut table);
        let BuiltNodes {
            mut nodes,
            pending,
            deferred,
            unresolved,
            layouts,
            ..
        } = built;
        // Freed now, not at the end of this function: at a million nodes the layouts are 40 MB,
        // and the DAG built below is the peak of loading.
        drop(layouts);

        // Inputs not defined when their node was added: defined by a later node (the file order
        // need not be topological), captured from an enclosing graph, or undefined.
        let mut captures: Captures = Vec::new();
        let parent_id = parent.map(|(graph, _)| graph);
        // In node order, as the inputs were met: the values made for undefined and captured
        // names, and their problems, come in that order.
        for (index, slot, name) in unresolved.into_iter().chain(deferred) {
            let value =
                self.resolve(id, &name, &mut table, &mut captures, Some(index), parent_id)?;
            inputs::set_input(&mut nodes, index, slot, value);
        }

        for info in proto.value_info {
            self.check_declared_rank(info.r#type.as_ref())?;
            let name = info.name.unwrap_or_default();
            if let Some(slot) = table
                .lookup(name.as_bytes())
                .and_then(|v| table.values.get_mut(v.0 as usize))
            {
                if slot.declared.is_none() && !slot.is_initializer() {
                    slot.declared = info.r#type.map(Box::new);
                }
            }
        }
        let mut outputs = Vec::with_capacity(proto.output.len());
        for output in proto.output {
            self.check_declared_rank(output.r#type.as_ref())?;
            let name = RawText::Owned(output.name.unwrap_or_default());
            let value = self.resolve(id, &name, &mut table, &mut captures, None, parent_id)?;
            if let Some(slot) = table.values.get_mut(value.0 as usize) {
                if (slot.declared.is_none() && !slot.is_initializer())
                    || matches!(slot.origin, Origin::Node { .. })
                {
                    slot.declared = output.r#type.map(Box::new).or(slot.declared.take());
                }
            }
            outputs.push(value);
        }

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

        let mut implicit: Vec<(usize, ValueId)> = Vec::new();
        for sub in pending {
            let node_name = self
                .graph_mut(id)
                .and_then(|graph| Some(graph.text(graph.nodes.get(sub.node)?.name).to_owned()))
                .unwrap_or_default();
            let (child, child_captures) = self.graph(
                sub.body,
                &format!("{path}/{node_name}/{}", sub.attribute),
                Some((id, sub.node)),
                sub.layout,
                opsets,
                depth + 1,
            )?;
            if let Some(node) = self.graph_mut(id).and_then(|g| g.nodes.get_mut(sub.node)) {
                node.subgraphs
                    .get_or_insert_with(Box::default)
                    .push((sub.attribute, child));
            }
            for (graph, value) in child_captures {
                if graph == id {
                    implicit.push((sub.node, value));
                } else {
                    captures.push((graph, value));
                }
            }
        }

        let problems = self.finish(id, &implicit);
        self.problems.extend(problems);
        Ok((id, captures))
    }

    /// Indexes the outputs of the nodes added since the last call; an output whose name was
    /// already defined is reported, and the slots that held it hold the name's first value
    /// instead. The problems of those nodes are reported in node order, as they were met.
    fn index_outputs(&mut self, built: &mut BuiltNodes<'_>, table: &mut Table) {
        // Only the nodes that defined the values being indexed, or came after them, can hold
        // their ids.
        let from = table.first_pending_node().unwrap_or(built.nodes.len());
        let (duplicates, renumbered) = table.index_pending();
        let graph = built.graph;
        // A node's missing op type was found before its outputs: it comes first.
        let mut missing = std::mem::take(&mut built.missing_op_types)
            .into_iter()
            .peekable();
        for (removed, first) in duplicates {
            let node = removed.producer();
            while let Some(index) = missing.next_if(|&index| node.is_none_or(|node| index <= node))
            {
                self.problem(graph, Some(index), ProblemKind::MissingOpType);
            }
            let name = table.name_of(first).to_owned();
            self.problem(graph, node, ProblemKind::DuplicateProducer { name });
        }
        for index in missing {
            self.problem(graph, Some(index), ProblemKind::MissingOpType);
        }
        if !renumbered.is_empty() {
            let since = built.nodes.get_mut(from..).unwrap_or_default();
            let slots = since.iter_mut().flat_map(|node| node.slots.all_mut());
            for value in slots.flatten() {
                *value = renumbered.get(*value);
            }
        }
    }

    /// Adds one decoded node (or the reason it does not decode) to the graph being built.
    fn add_node(
        &mut self,
        built: &mut BuiltNodes<'_>,
        table: &mut Table,
        raw: &mut RawNode,
        decoded: Result<(), String>,
    ) -> Result<(), LoadError> {
        let index = built.nodes.len();
        self.nodes_seen += 1;
        if self.nodes_seen > self.limits.max_nodes {
            return Err(LoadError::Limit {
                path: self.path.to_path_buf(),
                what: "node count",
                limit: self.limits.max_nodes,
                offset: 0,
            });
        }
        let layout = built.layouts.as_mut().and_then(Iterator::next);
        decoded.map_err(|problem| LoadError::Decode {
            path: self.path.to_path_buf(),
            offset: layout.as_ref().map_or(0, |layout| layout.span.start),
            context: format!("{}/node[{index}]", built.path),
            problem,
        })?;
        let (mut node, subgraphs) = self.node(built, index, raw, layout, table)?;
        built.pending.extend(subgraphs);
        let mut slots = std::mem::take(&mut self.slots);
        slots.clear();
        built.resolve_inputs(index, raw, table, &mut slots);
        let inputs = slots.len();
        slots.extend_from_slice(&self.outputs);
        node.slots = Slots::new(&slots, inputs);
        self.slots = slots;
        built.nodes.push(node);
        Ok(())
    }

    /// Adds the nodes left in the file at the spans of the graph's layout, decoding the next
    /// chunk on rayon's other thread while this one builds the current chunk (issue 6: rayon
    /// where work is independent). Two chunk buffers are reused, so decoding allocates nothing
    /// per node.
    fn add_in_file(
        &mut self,
        built: &mut BuiltNodes<'_>,
        table: &mut Table,
    ) -> Result<(), LoadError> {
        let Some(file) = self.file.clone() else {
            return Ok(());
        };
        let mut ready = DecodedChunk::default();
        let mut spare = DecodedChunk::default();
        // The layouts not yet taken by `add_node` start with the ready chunk's.
        ready.take_spans(built.layouts.as_ref(), 0);
        let hasher = table.by_name.hasher();
        ready.decode(&file, &hasher);
        // The main graph's nodes whose outputs are indexed, except the chunk just built (the
        // names of its last nodes are compared with the next inputs): their pages can be given
        // back. Inputs read from them are resolved by then.
        let release = self.release.filter(|_| built.graph == GraphId(0));
        let mut unreleased = ready.range().map(|range| range.start);
        loop {
            spare.take_spans(built.layouts.as_ref(), ready.spans.len());
            let mut build_ready = || -> Result<(), LoadError> {
                for (raw, decoded) in ready.nodes.iter_mut().zip(ready.decoded.drain(..)) {
                    self.add_node(built, table, raw, decoded)?;
                }
                Ok(())
            };
            if spare.spans.is_empty() {
                return build_ready();
            }
            rayon::join(|| spare.decode(&file, &hasher), build_ready).1?;
            if table.pending_len() >= INDEX_BATCH {
                self.index_outputs(built, table);
                built.resolve_deferred(table);
                if let (Some(release), Some(start), Some(current)) =
                    (release, unreleased, ready.range())
                {
                    release(start..current.start);
                    unreleased = Some(current.start);
                }
            }
            std::mem::swap(&mut ready, &mut spare);
        }
    }

    /// Builds one node: its identity, its outputs in the value table, and its pending subgraphs.
    /// Its inputs are resolved by the caller ([`BuiltNodes::resolve_inputs`]).
    fn node(
        &mut self,
        built: &mut BuiltNodes<'_>,
        index: usize,
        proto: &mut RawNode,
        layout: Option<super::wire::NodeLayout>,
        table: &mut Table,
    ) -> Result<(Node, Vec<PendingSubgraph>), LoadError> {
        let domain = super::opset::normalise(&proto.domain);
        let op = if let Some(op) = built.operators.get(domain, &proto.op_type) {
            Arc::clone(op)
        } else {
            let opsets = built.opsets;
            let op = self
                .interned
                .operator(domain, &proto.op_type, |domain| opsets.version(domain));
            built.operators.put(&op);
            op
        };
        let (op_type, domain) = (&op.op_type, &op.domain);
        if op_type.is_empty() {
            // Reported with the duplicates of the batch, in node order.
            built.missing_op_types.push(index);
        }
        let named = !proto.name.is_empty();
        let name = if named {
            self.add_text(table, &proto.name)?
        } else {
            self.add_text(table, &RawText::Owned(format!("{op_type}_{index}")))?
        };
        let (span, sub_layouts) = layout.map_or((0..0, None), |l| (l.span, l.subgraphs));
        let (span_start, span_len) = Node::packed_span(span);
        let sub_layouts = sub_layouts.map(|s| *s).unwrap_or_default();
        let (attributes, pending) = self.attributes(index, proto, sub_layouts);

        let is_constant = op_type == "Constant" && domain.is_empty();
        let mut outputs = std::mem::take(&mut self.outputs);
        outputs.clear();
        let mut checks = proto.output_checks.iter();
        for (slot, output) in proto.output.drain(..).enumerate() {
            let check = checks.next().copied();
            if output.is_empty() {
                outputs.push(None);
                continue;
            }
            // Below the node limit, which is far below 2^32.
            let node = u32::try_from(index).unwrap_or(u32::MAX);
            let origin = if is_constant {
                Origin::Constant { node }
            } else {
                Origin::Node {
                    node,
                    slot: u32::try_from(slot).unwrap_or(u32::MAX),
                }
            };
            let text = self.add_text(table, &output)?;
            // Indexed with the other nodes' outputs once all are added, which also finds the
            // names defined twice (issue 19: one pass over the index in its own order).
            outputs.push(Some(table.push_pending(text, origin, check)));
        }
        self.outputs = outputs;
        let node = Node {
            index,
            name,
            named,
            op,
            // Filled by `add_node`: the inputs, then `self.outputs`.
            slots: Slots::default(),
            attributes,
            subgraphs: None,
            span_start,
            span_len,
            in_cycle: false,
        };
        Ok((node, pending))
    }

    /// A node's attributes, shared with the nodes that carry the same bytes when none holds a
    /// graph, and the graphs its attributes hold, moved out to be built as subgraphs.
    fn attributes(
        &mut self,
        index: usize,
        proto: &mut RawNode,
        mut sub_layouts: Vec<(usize, GraphLayout)>,
    ) -> (Arc<Vec<Attribute>>, Vec<PendingSubgraph>) {
        sub_layouts.reverse();
        let mut take_layout = |ordinal: usize| {
            if sub_layouts.last().is_some_and(|(at, _)| *at == ordinal) {
                sub_layouts.pop().map(|(_, layout)| layout)
            } else {
                None
            }
        };

        let plain = proto
            .attribute
            .iter()
            .all(|attr| attr.g.is_none() && attr.graphs.is_empty());
        let file = self.file.as_deref().unwrap_or_default();
        let mut attributes = Vec::new();
        let mut pending = Vec::new();
        let shared = plain.then(|| {
            self.attribute_sets
                .share(file, &proto.attribute_spans, &mut proto.attribute)
        });
        for (ordinal, mut attr) in proto.attribute.drain(..).enumerate() {
            let body = attr.g.take();
            let many = std::mem::take(&mut attr.graphs);
            if body.is_some() || !many.is_empty() {
                let attr_name = attr.name.clone().unwrap_or_default();
                if let Some(body) = body {
                    pending.push(PendingSubgraph {
                        node: index,
                        attribute: attr_name.clone(),
                        body: GraphParts::from(*body),
                        layout: take_layout(ordinal),
                    });
                }
                let count = many.len();
                for (k, body) in many.into_iter().enumerate() {
                    let attribute = if count == 1 {
                        attr_name.clone()
                    } else {
                        format!("{attr_name}[{k}]")
                    };
                    pending.push(PendingSubgraph {
                        node: index,
                        attribute,
                        body: GraphParts::from(body),
                        layout: take_layout(ordinal),
                    });
                }
            }
            attributes.push(Attribute::from(attr));
        }
        // A list holding no graph is shared (the empty one too); one holding a graph is not
        // empty.
        (shared.unwrap_or_else(|| Arc::new(attributes)), pending)
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

    /// Finds `name` in this graph or an enclosing one; an outer value becomes a local `Outer`
    /// entry plus a capture. Unknown names become `Undefined` values and a structural problem.
    fn resolve(
        &mut self,
        graph: GraphId,
        name: &RawText,
        table: &mut Table,
        captures: &mut Captures,
        node: Option<usize>,
        parent: Option<GraphId>,
    ) -> Result<ValueId, LoadError> {
        if let Some(value) = table.lookup(table.raw_bytes(name)) {
            return Ok(value);
        }
        let mut outer = parent;
        while let Some(candidate) = outer {
            let Some(found) = self.graphs.get(candidate.0 as usize) else {
                break;
            };
            let value = found
                .by_name
                .get_bytes(table.raw_bytes(name), &found.texts, &found.values);
            if let Some(value) = value {
                captures.push((candidate, value));
                let text = self.add_text(table, name)?;
                let origin = Origin::Outer {
                    graph: candidate,
                    value,
                };
                return Ok(table.define(text, origin).0);
            }
            outer = found.parent;
        }
        let text = self.add_text(table, name)?;
        let (value, _) = table.define(text, Origin::Undefined);
        let name = table.name_of(value).to_owned();
        self.problem(graph, node, ProblemKind::UndefinedInput { name });
        Ok(value)
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
                .map(move |&value| (node.index, value))
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
