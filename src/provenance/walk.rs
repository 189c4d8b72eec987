//! The backward walk: breadth-first over (value, axis) from a finding's input to the nearest
//! graph input, initializer or `Constant`, so the chain found is a shortest one. Each move goes
//! from a node's output axis to an input axis it comes from ([`super::axes`]); a node the table
//! does not know is crossed only along a symbolic dim equal to its output's (the same number,
//! whatever the node does). A subgraph's captured value continues in the enclosing graph.

use std::collections::HashSet;

use super::axes::{links, Link};
use super::{attributes, graph_path, Declared, DimProvenance, Source, SourceKind, Step};
use crate::infer::Inference;
use crate::model::{GraphId, Model, Origin, ValueId};
use crate::shape::Dim;

/// Where a walk starts: one axis of a value of a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct Start {
    /// The graph.
    pub(super) graph: GraphId,
    /// The value (an input of the finding's node).
    pub(super) value: ValueId,
    /// Its axis.
    pub(super) axis: usize,
}

/// One reached (value, axis), with how it was reached.
struct Visit {
    at: Start,
    /// The visit this one feeds (closer to the finding); `None` for the start.
    parent: Option<usize>,
    /// The node between this value and the parent's (none across a subgraph's capture).
    via: Option<usize>,
}

/// The dim of `at`, if its shape is ranked.
fn dim_of(inference: &Inference, at: Start) -> Option<&Dim> {
    inference
        .graph(at.graph)?
        .values
        .get(at.value.0 as usize)?
        .shape
        .dims()?
        .get(at.axis)
}

/// The shortest chain from `start` back to a source, visiting at most `allowance` states;
/// returns it (if found) and the number of states visited.
pub(super) fn trace(
    model: &Model,
    inference: &Inference,
    start: Start,
    allowance: usize,
) -> (Option<DimProvenance>, usize) {
    if matches!(dim_of(inference, start), None | Some(Dim::Unknown)) {
        return (None, 0);
    }
    let mut visits = vec![Visit {
        at: start,
        parent: None,
        via: None,
    }];
    let mut seen = HashSet::from([start]);
    let mut head = 0;
    while let Some(visit) = visits.get(head) {
        if visits.len() >= allowance {
            break;
        }
        let at = visit.at;
        let Some(value) = model.graph(at.graph).and_then(|g| g.value(at.value)) else {
            head += 1;
            continue;
        };
        let kind = match value.origin {
            Origin::Input => Some(SourceKind::GraphInput),
            Origin::Initializer | Origin::SparseInitializer => Some(SourceKind::Initializer),
            Origin::Constant { .. } => Some(SourceKind::Constant),
            Origin::Node { .. } | Origin::Outer { .. } | Origin::Undefined => None,
        };
        if let Some(kind) = kind {
            let found = chain(model, inference, &visits, head, kind);
            return (found, visits.len());
        }
        // A dim a declaration gave is not computed from the node's inputs: no chain goes on
        // through it (`InputSite::declared` names the declaration).
        let adopted = inference
            .graph(at.graph)
            .and_then(|facts| facts.adopted(at.value, at.axis));
        if adopted.is_some() {
            head += 1;
            continue;
        }
        for (next, via) in moves(model, inference, at) {
            if seen.insert(next) {
                visits.push(Visit {
                    at: next,
                    parent: Some(head),
                    via,
                });
            }
        }
        head += 1;
    }
    (None, visits.len())
}

/// The nearest dim a declaration gave (`GraphFacts::adopted`) that `start`'s dim is, or is
/// computed from, along any chain (not only the shortest one to a source: a dim equal on two
/// inputs hangs on both), visiting at most `allowance` states; returns it (if found) and the
/// number of states visited.
pub(super) fn declared(
    model: &Model,
    inference: &Inference,
    start: Start,
    allowance: usize,
) -> (Option<Declared>, usize) {
    let Some(dim) = dim_of(inference, start).filter(|d| **d != Dim::Unknown) else {
        return (None, 0);
    };
    let mut queue = vec![start];
    let mut seen = HashSet::from([start]);
    let mut head = 0;
    while let Some(&at) = queue.get(head) {
        if queue.len() >= allowance {
            break;
        }
        let adopted = inference
            .graph(at.graph)
            .and_then(|facts| facts.adopted(at.value, at.axis));
        if let Some((value, axis)) = adopted {
            let found = model.graph(at.graph).map(|graph| Declared {
                axis: start.axis,
                dim: dim.clone(),
                graph: graph.path.clone(),
                name: graph.value_name(value).to_owned(),
                declared_axis: axis,
                declared_dim: dim_of(inference, Start { value, axis, ..at })
                    .cloned()
                    .unwrap_or(Dim::Unknown),
            });
            return (found, queue.len());
        }
        for (next, _) in moves(model, inference, at) {
            if seen.insert(next) {
                queue.push(next);
            }
        }
        head += 1;
    }
    (None, queue.len())
}

/// The (value, axis) pairs `at` comes from, with the node crossed.
fn moves(model: &Model, inference: &Inference, at: Start) -> Vec<(Start, Option<usize>)> {
    let Some(graph) = model.graph(at.graph) else {
        return Vec::new();
    };
    let Some(value) = graph.value(at.value) else {
        return Vec::new();
    };
    let Some(dim) = dim_of(inference, at) else {
        return Vec::new();
    };
    let (index, out_slot) = match value.origin {
        Origin::Outer { graph, value } => {
            let outer = Start {
                graph,
                value,
                axis: at.axis,
            };
            // The captured value is the same tensor: its dim there must be this one.
            return if dim_of(inference, outer) == Some(dim) {
                vec![(outer, None)]
            } else {
                Vec::new()
            };
        }
        Origin::Node { node, slot } => (node as usize, slot as usize),
        _ => return Vec::new(),
    };
    let Some(node) = graph.node(index) else {
        return Vec::new();
    };
    let input = |slot: usize| {
        node.inputs()
            .get(slot)
            .copied()
            .flatten()
            .map(|value| Start {
                graph: at.graph,
                value,
                axis: 0,
            })
    };
    let rank = |slot: usize| -> Option<usize> {
        let at = input(slot)?;
        inference
            .graph(at.graph)?
            .values
            .get(at.value.0 as usize)?
            .shape
            .rank()
    };
    let out_rank = inference
        .graph(at.graph)
        .and_then(|f| f.values.get(at.value.0 as usize))
        .and_then(|f| f.shape.rank())
        .unwrap_or(0);
    let mut out = Vec::new();
    match links(node, out_slot, at.axis, out_rank, &rank) {
        Some(found) => {
            for link in found {
                let (slot, axis, same) = match link {
                    Link::Same { slot, axis } => (slot, axis, true),
                    Link::Computed { slot, axis } => (slot, axis, false),
                };
                let Some(next) = input(slot).map(|s| Start { axis, ..s }) else {
                    continue;
                };
                let ok = match dim_of(inference, next) {
                    None | Some(Dim::Unknown) => false,
                    Some(d) => !same || d == dim,
                };
                if ok {
                    out.push((next, Some(index)));
                }
            }
        }
        None if matches!(dim, Dim::Sym(_)) => {
            // An equal symbolic dim is the same number: prefer the axis aligned from the right.
            for slot in 0..node.inputs().len() {
                let Some(first) = input(slot) else { continue };
                let Some(r) = rank(slot) else { continue };
                let aligned = (at.axis + r).checked_sub(out_rank);
                let axes = aligned.into_iter().chain(0..r);
                if let Some(axis) = axes
                    .into_iter()
                    .find(|&axis| dim_of(inference, Start { axis, ..first }) == Some(dim))
                {
                    out.push((Start { axis, ..first }, Some(index)));
                }
            }
        }
        None => {}
    }
    out
}

/// The chain ending at visit `found` (a source of `kind`), from the source to the start.
fn chain(
    model: &Model,
    inference: &Inference,
    visits: &[Visit],
    found: usize,
    kind: SourceKind,
) -> Option<DimProvenance> {
    let source_at = visits.get(found)?.at;
    let source = Source {
        kind,
        graph: graph_path(model, source_at.graph),
        name: model
            .graph(source_at.graph)?
            .value_name(source_at.value)
            .to_owned(),
        axis: source_at.axis,
        dim: dim_of(inference, source_at)?.clone(),
    };
    let mut steps = Vec::new();
    let mut nodes = 0;
    let mut current = found;
    let mut start = source_at;
    while let Some(visit) = visits.get(current) {
        start = visit.at;
        let Some(parent) = visit.parent else { break };
        let Some(next) = visits.get(parent) else {
            break;
        };
        if let Some(index) = visit.via {
            nodes += 1;
            let (before, after) = (dim_of(inference, visit.at)?, dim_of(inference, next.at)?);
            if before != after {
                steps.push(step(model, inference, next.at, index, after.clone())?);
            }
        }
        current = parent;
    }
    Some(DimProvenance {
        axis: start.axis,
        dim: dim_of(inference, start)?.clone(),
        source,
        steps,
        nodes,
    })
}

/// The step of node `index`, whose output `output` it makes `dim`.
fn step(
    model: &Model,
    inference: &Inference,
    output: Start,
    index: usize,
    dim: Dim,
) -> Option<Step> {
    let graph = model.graph(output.graph)?;
    let node = graph.node(index)?;
    Some(Step {
        graph: graph.path.clone(),
        index,
        name: graph.text(node.name).to_owned(),
        op_type: node.op_type().to_string(),
        attributes: attributes::of(model, output.graph, inference.graph(output.graph), node),
        output: graph.value_name(output.value).to_owned(),
        axis: output.axis,
        dim,
        span: node.span(),
    })
}
