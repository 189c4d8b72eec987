//! W2: a declared shape (`value_info`, graph output) contradicts the inferred one, under the MLIR
//! result-verification rules (different rank; two static dims that differ; symbolic dims that are
//! provably different). Tool-invented placeholders never contradict anything.
//!
//! A warning, not an error: onnxruntime runs such a model (it merges a contradicting
//! declaration leniently at load and warns when an output's shape differs from it), so the
//! model is valid. Why it matters: callers and downstream tools read the declared interface
//! and get other shapes. Fix: correct the declaration, or the computation that produces the
//! value.

use super::sink::Sink;
use super::site::{input_sites, node_site};
use crate::diag::{Facts, Finding};
use crate::infer::{Inference, NodeStatus};
use crate::model::declared;
use crate::model::{Model, Origin};
use crate::shape::verify;

/// One finding per contradicted value, at the node producing it.
pub(super) fn check(model: &Model, inference: &Inference, sink: &mut Sink<'_>) {
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        for (v, value) in graph.values.iter().enumerate() {
            let Origin::Node { node, .. } = value.origin else {
                continue;
            };
            let Some(node) = graph.node(node as usize) else {
                continue;
            };
            // Only shapes the engine inferred itself can contradict a declaration.
            if !matches!(facts.status(node.index()), NodeStatus::Inferred) {
                continue;
            }
            let declared_shape = declared::shape_of(value.declared.as_deref());
            let Some(inferred) = facts.values.get(v) else {
                continue;
            };
            if let Err(mismatch) = verify::compare(&inferred.shape, &declared_shape) {
                let facts_of = Facts::DeclaredMismatch {
                    value: graph.text(value.name).to_owned(),
                    declared: declared_shape.into(),
                    inferred: (&*inferred.shape).into(),
                    mismatch,
                };
                sink.push(Finding::new(
                    facts_of,
                    Some(node_site(graph, node)),
                    input_sites(graph, Some(facts), node, &[]),
                ));
            }
        }
    }
}
