//! Conditions that hold only where a tensor the node depends on is empty, and the node making
//! that tensor fails on it: such a W1/W4 is an E1/E4, it fails for every non-empty input
//! (`vit_interpolate_pos`: the `Add` after the patch embedding needs `(h/4)·(w/4) = 0`, which
//! holds only where the patch `Conv`'s output is empty, and the `Conv` fails there).
//!
//! "On the path" means the nodes of the node's own graph that its inputs are computed from:
//! its inputs' producers, theirs, and so on. Each of them runs before the node, and the
//! condition of its own W1/W4 is necessary for it to run. So when the node's condition and
//! one of them hold together for no input whose dims are at least 1, every such input fails:
//! at that node if it meets this condition, here if not. That is sound whatever the tensors
//! are; the emptiness is what makes it worth saying, so it is asked too: the other node's
//! output must be empty wherever this condition holds, and that output is named. A tensor
//! that valid models leave empty (an empty past cache, the `Shape` of a scalar) makes no node
//! fail, so it has no condition to rule this one out, and never turns a warning into an error.
//! A model input's dim of 0 is the existing scope's (`shape::condition::scope`): every symbol
//! is taken to be at least 1 there, so nothing here needs it.

use std::collections::{HashMap, HashSet};

use super::{Conditional, Scope};
use crate::model::{Graph, GraphId, Node};
use crate::shape::condition::{Plain, Required};

/// Most conditional nodes looked at: past it, none is turned into an error (each comparison
/// is with every other condition of its graph).
const MAX_CONDITIONALS: usize = crate::limits::FOLDED_CONDITIONS;
/// Most nodes the backward walks visit in one check, over all conditions: past it, the
/// remaining conditions stay warnings.
const MAX_WALKED: usize = 1 << 20;

/// For each conditional, the words that say why its condition holds only at an empty tensor
/// (`where `x` is empty and Conv `c` fails`), or `None` when that is not shown.
pub(super) fn causes<'c>(conditionals: &'c [Conditional<'_>]) -> Vec<Option<String>> {
    let mut out = vec![None; conditionals.len()];
    if conditionals.len() > MAX_CONDITIONALS {
        return out;
    }
    let plain = |c: &'c Conditional<'_>| match &c.readable.scope {
        Scope::Requires(plain) => Some(plain),
        Scope::EmptyOnly | Scope::Immaterial => None,
    };
    let plains: Vec<Option<&Plain>> = conditionals.iter().map(plain).collect();
    let required: Vec<Option<Required>> = plains.iter().map(|p| p.map(Required::of)).collect();
    // Everything a graph's conditions require together: a condition it does not rule out
    // is ruled out by none of them alone, the common case, decided without a walk.
    let mut by_graph: HashMap<GraphId, Required> = HashMap::new();
    for (c, r) in conditionals.iter().zip(&required) {
        if let Some(r) = r {
            by_graph.entry(c.graph.id).or_default().and(r);
        }
    }
    let mut budget = MAX_WALKED;
    for (i, c) in conditionals.iter().enumerate() {
        let Some(own) = plains.get(i).copied().flatten() else {
            continue;
        };
        if !by_graph
            .get(&c.graph.id)
            .is_some_and(|all| own.ruled_out_by(all))
        {
            continue;
        }
        let mut upstream = None;
        for (other, r) in conditionals.iter().zip(&required) {
            let Some(r) = r else { continue };
            if other.graph.id != c.graph.id
                || other.node.index() == c.node.index()
                || !own.ruled_out_by(r)
            {
                continue;
            }
            let before = upstream.get_or_insert_with(|| ancestors(c.graph, c.node, &mut budget));
            if !before.contains(&other.node.index()) {
                continue;
            }
            if let Some(cause) = emptied_output(other, own) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = Some(cause);
                }
                break;
            }
        }
    }
    out
}

/// The first output of `other`'s node that is empty wherever `own` holds, in words.
fn emptied_output(other: &Conditional<'_>, own: &Plain) -> Option<String> {
    let node = other.node;
    node.outputs().iter().flatten().find_map(|&v| {
        let dims = other.facts.values.get(v.0 as usize)?.shape.dims()?;
        own.ruled_out_by(&Required::non_empty(dims)).then(|| {
            let name = other.graph.text(node.name);
            let op = node.op_type();
            let who = if name.is_empty() {
                format!("{op} node")
            } else {
                format!("{op} `{name}`")
            };
            format!(
                "where `{}` is empty and {who} fails",
                other.graph.value_name(v)
            )
        })
    })
}

/// Which nodes of `graph` `node`'s inputs are computed from (by index), as far as `budget`
/// lets the walk go: a node it did not reach counts as not upstream. A set, not a flag per
/// node: its size is bounded by the walk's budget, never by the graph's node count times
/// the conditions walked from.
fn ancestors(graph: &Graph, node: &Node, budget: &mut usize) -> HashSet<usize> {
    let mut seen = HashSet::new();
    let mut stack: Vec<usize> = producers(graph, node).collect();
    while let Some(index) = stack.pop() {
        if seen.contains(&index) {
            continue;
        }
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        seen.insert(index);
        if let Some(up) = graph.node(index) {
            stack.extend(producers(graph, up));
        }
    }
    seen
}

/// The nodes writing `node`'s inputs.
fn producers<'g>(graph: &'g Graph, node: &'g Node) -> impl Iterator<Item = usize> + 'g {
    node.inputs()
        .iter()
        .flatten()
        .filter_map(|&v| graph.value(v)?.producer())
}
