//! W1 and W4: broadcasts (and operator constraints) that hold only under a condition on symbolic
//! dims. A `dim_param` names one value across the model, so the conditions are solved together
//! (`shape::condition::forced_jointly`): symbols they force to one value are reported once, at
//! the nodes that force them; the same condition met again downstream is one finding, and a
//! condition implied by a stronger one reported elsewhere is folded into it (`EfficientNet`'s
//! strided convolutions need `H ≥ 2`, `H ≥ 4`, ... `H ≥ 32`: one finding, `H ≥ 32`, naming
//! the others).

use std::collections::{BTreeSet, HashMap};

use super::origin::Origins;
use super::{input_sites, node_site, operands, Conditional, Conditioned, Scope};
use crate::diag::{Facts, Finding, ImpliedAt, NodeName};
use crate::shape::condition::{forced_jointly, Plain};

/// Most distinct conditions compared pairwise for implication: a model of thousands of
/// distinct conditions keeps them apart rather than spend quadratic time.
const MAX_FOLDED: usize = crate::limits::FOLDED_CONDITIONS;

/// W1 and W4 findings: one per conditional node, except that symbols the conditions force together to a
/// single value are reported once, at the nodes that force them, a condition met at several
/// nodes is reported at the first, and one implied by another's is reported with it.
pub(super) fn findings(
    conditionals: &[Conditional<'_>],
    origins: &Origins,
    limit: i64,
) -> Vec<Finding> {
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
            reported_jointly.insert((c.graph.id, c.node.index()));
        }
    }
    // One condition, one finding: a symbol names one value across the model, so the same
    // condition met again downstream (an Add of `seq` with 77 whose result meets `seq` again)
    // is the same fault; the later nodes are named in the first one's help.
    // A cut text is grouped by its condition only, never merging two that differ past the cut.
    let mut first_with: HashMap<(bool, &str, Option<*const Plain>), usize> = HashMap::new();
    // The first node of each condition, and the later nodes that need it too.
    let mut groups: Vec<(&Conditional<'_>, Vec<NodeName>)> = Vec::new();
    for c in conditionals {
        if reported_jointly.contains(&(c.graph.id, c.node.index())) {
            continue;
        }
        // Plain forms are exact, so equal texts are equivalent conditions.
        let cut = c
            .readable
            .cut
            .then_some(std::ptr::from_ref(&c.readable.plain));
        let key = (c.what.is_constraint(), c.readable.text.as_str(), cut);
        if let Some(group) = first_with.get(&key).and_then(|&i| groups.get_mut(i)) {
            group.1.push(name_of(c));
            continue;
        }
        first_with.insert(key, groups.len());
        groups.push((c, Vec::new()));
    }
    let into = folded(&groups, limit);
    let mut implied: Vec<Vec<ImpliedAt>> = vec![Vec::new(); groups.len()];
    for (i, (c, also)) in groups.iter().enumerate() {
        if let Some(slot) = into
            .get(i)
            .copied()
            .flatten()
            .and_then(|r| implied.get_mut(r))
        {
            let condition = &c.readable.text;
            slot.extend(
                std::iter::once(name_of(c))
                    .chain(also.iter().cloned())
                    .map(|node| ImpliedAt::new(node, condition.clone())),
            );
        }
    }
    for ((i, (c, also)), implied_at) in groups.into_iter().enumerate().zip(implied) {
        if into.get(i).copied().flatten().is_some() {
            continue;
        }
        let mut finding = conditional_finding(c, origins, implied_at);
        finding.also_needed_at(also);
        findings.push(finding);
    }
    findings
}

fn name_of(c: &Conditional<'_>) -> NodeName {
    NodeName::new(
        c.node.op_type().to_string(),
        c.graph.text(c.node.name).to_owned(),
    )
}

/// For each group, the group whose stronger condition reports it (`None`: reported itself).
/// A group goes to one that implies it, strictly or, when both imply each other, earlier;
/// following those steps ends at a group that none implies, the strongest.
fn folded(groups: &[(&Conditional<'_>, Vec<NodeName>)], limit: i64) -> Vec<Option<usize>> {
    let n = groups.len();
    if n > MAX_FOLDED {
        return vec![None; n];
    }
    let plain = |i: usize| {
        groups.get(i).and_then(|(c, _)| match &c.readable.scope {
            Scope::Requires(plain) => Some(plain),
            Scope::EmptyOnly | Scope::Immaterial => None,
        })
    };
    let implies = |a: usize, b: usize| match (plain(a), plain(b)) {
        (Some(x), Some(y)) => x.implies(y, limit),
        _ => false,
    };
    // A condition met in a branch (`If`, `Loop` body) is needed only when the branch runs:
    // it may report one of its own graph or of a graph inside it, never one of the graph
    // around it, which is needed whichever branch runs.
    let encloses = |j: usize, i: usize| match (groups.get(j), groups.get(i)) {
        (Some((outer, _)), Some((inner, _))) => {
            let (outer, inner) = (&outer.graph.path, &inner.graph.path);
            inner == outer
                || inner
                    .strip_prefix(outer.as_str())
                    .is_some_and(|rest| rest.starts_with('/'))
        }
        _ => false,
    };
    let step: Vec<Option<usize>> = (0..n)
        .map(|i| {
            (0..n).find(|&j| j != i && encloses(j, i) && implies(j, i) && (j < i || !implies(i, j)))
        })
        .collect();
    (0..n)
        .map(|i| {
            let mut at = step.get(i).copied().flatten()?;
            // Each step goes to a strictly stronger condition or an earlier equivalent one, so
            // no step returns; the bound only guards that.
            for _ in 0..n {
                match step.get(at).copied().flatten() {
                    Some(next) => at = next,
                    None => break,
                }
            }
            Some(at)
        })
        .collect()
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
        nodes_left_out: 0,
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

/// The W1 (broadcast) or W4 (operator constraint) of one conditional node, with the nodes
/// whose weaker conditions it implies.
fn conditional_finding(
    c: &Conditional<'_>,
    origins: &Origins,
    implied_at: Vec<ImpliedAt>,
) -> Finding {
    let condition = c.readable.text.clone();
    let (data_dependent, bindable) = origins.split(&c.condition);
    let inputs = input_sites(c.graph, Some(c.facts), c.node, c.what.slots());
    let counterexample = super::witness::counterexample(&c.readable.plain, &c.condition, &inputs);
    let facts = match c.what {
        Conditioned::Constraint(constraint) => Facts::ConditionalConstraint {
            constraint: constraint.requires.clone(),
            fix: constraint.fix.clone(),
            condition,
            counterexample,
            also_at: Vec::new(),
            also_at_left_out: 0,
            implied_at,
            implied_at_left_out: 0,
            data_dependent,
            data_dependent_left_out: 0,
            bindable,
        },
        Conditioned::Broadcast(check) => Facts::ConditionalBroadcast {
            rule: check.rule,
            operands: operands(c.graph, c.node, c.facts, check),
            condition,
            counterexample,
            also_at: Vec::new(),
            also_at_left_out: 0,
            implied_at,
            implied_at_left_out: 0,
            data_dependent,
            data_dependent_left_out: 0,
            bindable,
        },
    };
    Finding::new(facts, Some(node_site(c.graph, c.node)), inputs)
}
