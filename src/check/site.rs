//! Building the node and input identities that findings carry.

use crate::diag::{InputSite, NodeSite};
use crate::infer::GraphFacts;
use crate::model::dtype::elem;
use crate::model::{Graph, Node};
use crate::shape::Shape;

/// The identity of `node` in `graph`.
pub(super) fn node_site(graph: &Graph, node: &Node) -> NodeSite {
    NodeSite {
        graph: graph.path.clone(),
        index: node.index(),
        name: graph.text(node.name).to_owned(),
        anchor: anchor(graph, node),
        op_type: node.op_type().to_string(),
        domain: node.domain().to_string(),
        span: node.span(),
    }
}

/// What names `node` across edits: its name from the file, else its op type and first output
/// (values have one producer, so an output names its node wherever the node sits).
fn anchor(graph: &Graph, node: &Node) -> String {
    if node.named {
        return graph.text(node.name).to_owned();
    }
    match node.outputs().iter().flatten().next() {
        Some(output) => format!("{}->{}", node.op_type(), graph.value_name(*output)),
        None => graph.text(node.name).to_owned(),
    }
}

/// A finding lists all of its node's inputs up to this many, and past it only the inputs it is
/// about: a node may read thousands of values (a `Sum`, a `Concat`), and listing them all in
/// each of its findings made the report quadratic in them (a 180 KB model with 8,000 undefined
/// inputs on one node took 24 GB).
const LISTED_INPUTS: usize = 64;

/// The node's present inputs with their inferred shapes; `offending` slots are marked. A node
/// with more than [`LISTED_INPUTS`] inputs lists only the offending ones.
pub(super) fn input_sites(
    graph: &Graph,
    facts: Option<&GraphFacts>,
    node: &Node,
    offending: &[usize],
) -> Vec<InputSite> {
    input_sites_keeping(graph, facts, node, offending, offending)
}

/// [`input_sites`], with the `keep` slots listed at a node with more than [`LISTED_INPUTS`]
/// inputs.
pub(super) fn input_sites_keeping(
    graph: &Graph,
    facts: Option<&GraphFacts>,
    node: &Node,
    offending: &[usize],
    keep: &[usize],
) -> Vec<InputSite> {
    let inputs = node.inputs();
    // Past the limit, only the kept slots are visited: not every input for every finding.
    let slots: Vec<usize> = if inputs.len() <= LISTED_INPUTS {
        (0..inputs.len()).collect()
    } else {
        let mut kept: Vec<usize> = keep
            .iter()
            .copied()
            .filter(|&slot| slot < inputs.len())
            .collect();
        kept.sort_unstable();
        kept.dedup();
        kept
    };
    slots
        .into_iter()
        .filter_map(|slot| {
            let value = (*inputs.get(slot)?)?;
            let known = facts.and_then(|f| f.values.get(value.0 as usize));
            // Whole: the finding cuts it to the axes it is about when it is made.
            let shape = known.map_or(Shape::Unranked, |f| (*f.shape).clone()).into();
            // Small 1-D integer values (an Expand or Reshape target) are shown: they decide the
            // shape. Float constants (a LayerNorm scale) and booleans (a Where condition) are
            // shown by their shape, which is what broadcasting reads of them.
            let elements = known
                .filter(|f| matches!(f.elem, Some(elem::INT64 | elem::INT32)))
                .and_then(|f| f.value.as_ref())
                .filter(|v| v.shape.len() == 1 && v.data.len() <= 8)
                .map(|v| {
                    let items: Vec<String> = v.data.iter().map(ToString::to_string).collect();
                    format!("[{}]", items.join(", "))
                });
            Some(InputSite {
                name: graph.value_name(value).to_owned(),
                shape,
                value: elements,
                slot,
                offending: offending.contains(&slot),
                provenance: Vec::new(),
                declared: Vec::new(),
            })
        })
        .collect()
}
