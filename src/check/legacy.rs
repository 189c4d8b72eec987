//! W5: an opset < 7 element-wise op without `broadcast=1` whose inputs differ in shape. Its doc
//! requires equal shapes ("Attribute `broadcast=1` needs to be passed to enable broadcasting"),
//! but ONNX's own opset-1 test models rely on implicit broadcasting, and runtimes that convert
//! such models to opset 7 broadcast them (`ops/elementwise.rs`, `legacy_at_run_time`): the rule
//! infers what they run, and this check says that the model leans on it.
//!
//! Only where the inputs do broadcast (the inference keeps no check of the node): a clash is an
//! E1, a conditional one a W1, each stating the shapes already.

use super::sink::Sink;
use super::site::{input_sites, node_site};
use crate::diag::{Code, Facts, Finding};
use crate::infer::{Inference, NodeStatus};
use crate::model::Model;
use crate::shape::{Dim, Shape, Tri};

/// The ops whose opset < 7 versions take `broadcast`/`axis` (the registry's `binary_1` rows).
const LEGACY_BINARY: [&str; 11] = [
    "Add", "And", "Div", "Equal", "Greater", "Less", "Mul", "Or", "Pow", "Sub", "Xor",
];

/// One W5 per legacy element-wise node without `broadcast=1` whose inputs are not provably of
/// one shape, where the broadcast itself raised nothing, offered to `sink` (a million legacy
/// nodes cost a million counts, not a million findings).
pub(super) fn check(model: &Model, inference: &Inference, sink: &mut Sink<'_>) {
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        for node in &graph.nodes {
            if !node.domain().is_empty()
                || !LEGACY_BINARY.contains(&node.op_type().as_str())
                || node.opset().is_none_or(|v| v >= 7)
                || !matches!(facts.status(node.index()), NodeStatus::Inferred)
                // A broadcast the inference keeps is one that fails or holds under a
                // condition: the E1 or W1 states the shapes already.
                || !facts.checks(node.index()).is_empty()
                // `broadcast=1` states the broadcast (checked by the legacy rule itself).
                || node.attrs().int("broadcast").ok().flatten().unwrap_or(0) != 0
            {
                continue;
            }
            let Some(opset) = node.opset() else {
                continue;
            };
            let slots = [0, 1];
            let shapes: Vec<Shape> = slots
                .iter()
                .map(|&slot| {
                    node.inputs()
                        .get(slot)
                        .copied()
                        .flatten()
                        .and_then(|v| facts.values.get(v.0 as usize))
                        .map_or(Shape::Unranked, |f| (*f.shape).clone())
                })
                .collect();
            if !differ(&shapes) {
                continue;
            }
            sink.offer(Some((graph.path.as_str(), node.index())), Code::W5, || {
                Finding::new(
                    Facts::LegacyImplicitBroadcast {
                        opset,
                        shapes: shapes.iter().map(Into::into).collect(),
                    },
                    Some(node_site(graph, node)),
                    input_sites(graph, Some(facts), node, &slots),
                )
            });
        }
    }
}

/// Whether ranked shapes are not provably the same: another rank, or a pair of known dims not
/// provably equal. An unknown rank or dim says nothing (no finding).
fn differ(shapes: &[Shape]) -> bool {
    let Some(dims) = shapes.iter().map(Shape::dims).collect::<Option<Vec<_>>>() else {
        return false;
    };
    let Some((first, rest)) = dims.split_first() else {
        return false;
    };
    rest.iter().any(|other| {
        other.len() != first.len()
            || first.iter().zip(other.iter()).any(|(a, b)| {
                !matches!(a, Dim::Unknown) && !matches!(b, Dim::Unknown) && a.eq_dim(b) != Tri::Yes
            })
    })
}
