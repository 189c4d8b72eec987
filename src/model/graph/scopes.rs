//! Nested graphs' scopes: a name a graph does not define is looked up in the enclosing graphs
//! (ONNX `docs/IR.md`, "Names Within a Graph": a subgraph may read its ancestors' values), and
//! becomes a capture; the graphs nodes' attributes hold are built once their parent is.

use super::super::parts::GraphParts;
use super::super::text::RawText;
use super::super::wire::GraphLayout;
use super::super::{GraphId, Opsets, Origin, ProblemKind, ValueId};
use super::table::Table;
use super::Builder;
use crate::error::LoadError;

/// A graph held by an attribute, waiting to be built once its parent's values are known.
pub(super) struct PendingSubgraph {
    pub(super) node: usize,
    pub(super) attribute: String,
    pub(super) body: GraphParts,
    pub(super) layout: Option<GraphLayout>,
}

/// Values of enclosing graphs that a subgraph reads: `(defining graph, value there)`.
pub(super) type Captures = Vec<(GraphId, ValueId)>;

impl Builder<'_> {
    /// Builds the graphs the nodes of graph `id` hold, and returns the values of `id` each
    /// reads (its nodes' implicit inputs); captures from graphs above `id` are added to
    /// `captures`.
    pub(super) fn build_subgraphs(
        &mut self,
        id: GraphId,
        path: &str,
        pending: Vec<PendingSubgraph>,
        opsets: &Opsets,
        depth: usize,
        captures: &mut Captures,
    ) -> Result<Vec<(usize, ValueId)>, LoadError> {
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
                node.slots.push_subgraph(sub.attribute, child);
            }
            for (graph, value) in child_captures {
                if graph == id {
                    implicit.push((sub.node, value));
                } else {
                    captures.push((graph, value));
                }
            }
        }
        Ok(implicit)
    }

    /// Finds `name` in this graph or an enclosing one; an outer value becomes a local `Outer`
    /// entry plus a capture. Unknown names become `Undefined` values and a structural problem.
    pub(super) fn resolve(
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
}
