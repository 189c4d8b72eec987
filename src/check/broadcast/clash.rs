//! E1 for a broadcast that fails on every input (under `--dim` bindings, on this deployment's
//! dims, written into the shapes before inference), or on every non-empty one (it holds only
//! when some dim is 0). Broadcasting.md states the rule the verdict came from.

use super::fix::{stretch_fix, suggest_fix};
use super::{input_sites, node_site, operands, shapes_of, slot_names};
use crate::diag::{Facts, Finding, SizeAt, SizeOrigin};
use crate::infer::GraphFacts;
use crate::model::{Graph, Node};
use crate::ops::BroadcastCheck;
use crate::shape::{Binding, Rule, Violation};

/// E1 for a broadcast that fails whatever the input values: the clashing axis, each
/// offending input's size there, and a likely fix.
pub(super) fn incompatible(
    graph: &Graph,
    node: &Node,
    facts: &GraphFacts,
    check: &BroadcastCheck,
    violation: &Violation,
) -> Finding {
    let names = slot_names(graph, node, check);
    let shapes = shapes_of(node, facts, check);
    // Under the unidirectional rule input 0 may only stand in for the target (Gemm's (M, N),
    // Attention's score shape): the message names the target and only B is labelled.
    let unidirectional = check.rule == Rule::Unidirectional;
    let offending: Vec<usize> = violation
        .inputs
        .iter()
        .filter(|offender| !unidirectional || offender.input > 0)
        .filter_map(|offender| check.slots.get(offender.input).copied())
        .collect();
    let fix = suggest_fix(&names, &shapes, check.rule == Rule::Legacy).or_else(|| {
        unidirectional
            .then(|| stretch_fix(names.get(1)?, &check.outcome.shape))
            .flatten()
    });
    let sizes = violation
        .inputs
        .iter()
        .map(|o| {
            let name = names
                .get(o.input)
                .cloned()
                .unwrap_or_else(|| format!("input {}", o.input));
            SizeAt::new(name, o.input, o.axis, o.dim.clone())
        })
        .collect();
    let facts_of = Facts::BroadcastClash {
        rule: check.rule,
        violation: violation.kind,
        axis: violation.axis,
        sizes,
        operands: operands(graph, node, facts, check),
        target: unidirectional.then(|| (&check.outcome.shape).into()),
        fix,
        binding: Binding::new(),
    };
    Finding::new(
        facts_of,
        Some(node_site(graph, node)),
        input_sites(graph, Some(facts), node, &offending),
    )
}

/// E1 for a broadcast that holds only when some dim is 0, so it fails for every non-empty
/// input: the condition, a binding that breaks it, and the sizes no `--dim` can bind.
pub(super) fn empty_only(
    graph: &Graph,
    node: &Node,
    facts: &GraphFacts,
    check: &BroadcastCheck,
    condition: String,
    counterexample: Option<Binding>,
    data_dependent: Vec<SizeOrigin>,
) -> Finding {
    let facts_of = Facts::BroadcastEmptyOnly {
        rule: check.rule,
        operands: operands(graph, node, facts, check),
        condition,
        counterexample,
        data_dependent,
        data_dependent_left_out: 0,
    };
    Finding::new(
        facts_of,
        Some(node_site(graph, node)),
        input_sites(graph, Some(facts), node, &check.slots),
    )
}
