//! W1 and W4: broadcasts (and operator constraints) that hold only under a condition on symbolic
//! dims. A `dim_param` names one value across the model, so the conditions are solved together
//! (`shape::condition::forced_jointly`): symbols they force to one value are reported once, at
//! the nodes that force them; the same condition met again downstream is one finding.

use std::collections::{BTreeSet, HashMap};

use super::origin::Origins;
use super::{input_sites, node_site, operands, Conditional, Conditioned};
use crate::diag::{Facts, Finding, NodeName};
use crate::shape::condition::forced_jointly;

/// W1 and W4 findings: one per conditional node, except that symbols the conditions force together to a
/// single value are reported once, at the nodes that force them.
pub(super) fn findings(conditionals: &[Conditional<'_>], origins: &Origins) -> Vec<Finding> {
    let mut findings = Vec::new();
    let conditions: Vec<_> = conditionals.iter().map(|c| &c.condition).collect();
    let mut reported_jointly = BTreeSet::new();
    for forced in forced_jointly(&conditions) {
        let involved: Vec<&Conditional<'_>> = forced
            .members
            .iter()
            .filter_map(|&i| conditionals.get(i))
            .collect();
        let Some(finding) = forced_finding(&forced.symbol, forced.value, &involved) else {
            continue;
        };
        findings.push(finding);
        for c in involved {
            reported_jointly.insert((c.graph.id, c.node.index));
        }
    }
    // One condition, one finding: a symbol names one value across the model, so the same
    // condition met again downstream (an Add of `seq` with 77 whose result meets `seq` again)
    // is the same fault; the later nodes are named in the first one's help.
    let mut first_with: HashMap<(bool, &str), usize> = HashMap::new();
    // The later nodes of each finding, given to it once at the end (see `also_needed_at`).
    let mut also_at: HashMap<usize, Vec<NodeName>> = HashMap::new();
    for c in conditionals {
        if reported_jointly.contains(&(c.graph.id, c.node.index)) {
            continue;
        }
        // Plain forms are exact, so equal texts are equivalent conditions.
        let key = (c.what.is_constraint(), c.readable.text.as_str());
        if let Some(&first) = first_with.get(&key) {
            also_at.entry(first).or_default().push(NodeName::new(
                c.node.op_type().to_string(),
                c.graph.text(c.node.name).to_owned(),
            ));
            continue;
        }
        first_with.insert(key, findings.len());
        findings.push(conditional_finding(c, origins));
    }
    for (index, nodes) in also_at {
        if let Some(finding) = findings.get_mut(index) {
            finding.also_needed_at(nodes);
        }
    }
    findings
}

/// The finding for a symbol the conditions of `involved` force together to `value`.
fn forced_finding(symbol: &str, value: i64, involved: &[&Conditional<'_>]) -> Option<Finding> {
    let first = involved.first()?;
    let facts = Facts::ForcedValue {
        symbol: symbol.to_owned(),
        value,
        nodes: involved
            .iter()
            .map(|c| {
                let name = c.graph.text(c.node.name).to_owned();
                NodeName::new(c.node.op_type().to_string(), name)
            })
            .collect(),
        conditions: involved.iter().map(|c| c.readable.text.clone()).collect(),
        // A W1 unless only operator constraints force the symbol.
        constraints_only: involved.iter().all(|c| c.what.is_constraint()),
    };
    Some(Finding::new(
        facts,
        Some(node_site(first.graph, first.node)),
        input_sites(
            first.graph,
            Some(first.facts),
            first.node,
            first.what.slots(),
        ),
    ))
}

/// The W1 (broadcast) or W4 (operator constraint) of one conditional node.
fn conditional_finding(c: &Conditional<'_>, origins: &Origins) -> Finding {
    let condition = c.readable.text.clone();
    let (data_dependent, bindable) = origins.split(&c.condition);
    let counterexample = c
        .readable
        .plain
        .breaking()
        .or_else(|| c.condition.counterexample());
    let facts = match c.what {
        Conditioned::Constraint(constraint) => Facts::ConditionalConstraint {
            constraint: constraint.requires.clone(),
            fix: constraint.fix.clone(),
            condition,
            counterexample,
            also_at: Vec::new(),
            data_dependent,
            bindable,
        },
        Conditioned::Broadcast(check) => Facts::ConditionalBroadcast {
            rule: check.rule,
            operands: operands(c.graph, c.node, c.facts, check),
            condition,
            counterexample,
            also_at: Vec::new(),
            data_dependent,
            bindable,
        },
    };
    Finding::new(
        facts,
        Some(node_site(c.graph, c.node)),
        input_sites(c.graph, Some(c.facts), c.node, c.what.slots()),
    )
}
