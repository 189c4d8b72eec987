//! E1 and W1: broadcasting verdicts of every node, under the rule each node uses
//! (multidirectional, unidirectional, bidirectional, opset < 7 `broadcast`/`axis`); and W4, the
//! operator constraints that hold only under a condition, solved with them (one model, one set
//! of symbols), with their E4 when a `--dim` binding breaks one.
//!
//! E1 — why it matters: the node fails at run time whatever the input values. Example:
//! `Add(x: [2, 3], y: [4])`, axis 1 is 3 vs 4. Fix: reshape or unsqueeze one input.
//!
//! W1 — valid only under a condition on symbolic dims (`seq ∈ {1, 77}`); the message gives the
//! condition and a binding that breaks it. Conditions of all nodes are combined, since a
//! `dim_param` names one value across the model: when together they force a symbol to one value,
//! one warning says so at the nodes that force it. With `--dim` bindings a condition becomes
//! definite: false is an E1, true is no finding.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::site::{input_sites, node_site};
use crate::diag::{Facts, Finding, NodeName, Operand, SizeAt};
use crate::infer::{GraphFacts, Inference};
use crate::model::{Graph, Model, Node};
use crate::ops::{BroadcastCheck, Constraint};
use crate::shape::condition::Plain;
use crate::shape::{Binding, Condition, Rule, Shape, Tri, Verdict, Violation};

/// A node whose broadcast holds only under a condition.
struct Conditional<'m> {
    graph: &'m Graph,
    node: &'m Node,
    facts: &'m GraphFacts,
    check: &'m BroadcastCheck,
    condition: Condition,
    /// Its plain form, computed once (messages, grouping and counterexample read it).
    plain: Plain,
}

/// E1 and W1 findings of the whole model.
pub(super) fn check(model: &Model, inference: &Inference, binding: &Binding) -> Vec<Finding> {
    let mut findings = Vec::new();
    let mut conditionals = Vec::new();
    for (g, graph) in model.graphs.iter().enumerate() {
        let Some(facts) = inference.graphs.get(g) else {
            continue;
        };
        for node in &graph.nodes {
            // Root cause only: the first failing broadcast of a node is reported.
            for check in facts.checks(node.index) {
                match &check.outcome.verdict {
                    Verdict::Valid => {}
                    Verdict::Invalid(violation) => {
                        findings.push(match &check.constraint {
                            Some(constraint) => {
                                constraint_finding(graph, node, facts, constraint, None)
                            }
                            None => incompatible(graph, node, facts, check, violation),
                        });
                        break;
                    }
                    Verdict::Conditional(condition) => {
                        if binding.is_empty() {
                            conditionals.push(Conditional {
                                graph,
                                node,
                                facts,
                                check,
                                condition: condition.clone(),
                                plain: condition.plain(),
                            });
                            continue;
                        }
                        match condition.eval(binding) {
                            Tri::Yes => {}
                            Tri::No => {
                                findings.push(match &check.constraint {
                                    Some(constraint) => constraint_finding(
                                        graph,
                                        node,
                                        facts,
                                        constraint,
                                        Some((condition, binding)),
                                    ),
                                    None => definite_under_binding(
                                        graph, node, facts, check, condition, binding,
                                    ),
                                });
                                break;
                            }
                            Tri::Unknown => conditionals.push(Conditional {
                                graph,
                                node,
                                facts,
                                check,
                                condition: condition.clone(),
                                plain: condition.plain(),
                            }),
                        }
                    }
                }
            }
        }
    }
    findings.extend(conditional_findings(&conditionals));
    findings
}

fn slot_names(graph: &Graph, node: &Node, check: &BroadcastCheck) -> Vec<String> {
    check
        .slots
        .iter()
        .map(|&slot| {
            node.inputs().get(slot).copied().flatten().map_or_else(
                || format!("input {slot}"),
                |v| graph.value_name(v).to_owned(),
            )
        })
        .collect()
}

fn shapes_of<'f>(node: &Node, facts: &'f GraphFacts, check: &BroadcastCheck) -> Vec<&'f Shape> {
    static UNRANKED: Shape = Shape::Unranked;
    check
        .slots
        .iter()
        .map(|&slot| {
            node.inputs()
                .get(slot)
                .copied()
                .flatten()
                .and_then(|v| facts.values.get(v.0 as usize))
                .map_or(&UNRANKED, |f| &f.shape)
        })
        .collect()
}

/// The inputs the check broadcasts, in its order, with their shapes.
fn operands(
    graph: &Graph,
    node: &Node,
    facts: &GraphFacts,
    check: &BroadcastCheck,
) -> Vec<Operand> {
    slot_names(graph, node, check)
        .into_iter()
        .zip(shapes_of(node, facts, check))
        .map(|(name, shape)| Operand::new(name, shape.clone()))
        .collect()
}

fn incompatible(
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
        target: unidirectional.then(|| check.outcome.shape.clone()),
        fix,
    };
    Finding::new(
        facts_of,
        Some(node_site(graph, node)),
        input_sites(graph, Some(facts), node, &offending),
    )
}

fn definite_under_binding(
    graph: &Graph,
    node: &Node,
    facts: &GraphFacts,
    check: &BroadcastCheck,
    condition: &Condition,
    binding: &Binding,
) -> Finding {
    let facts_of = Facts::BroadcastBroken {
        rule: check.rule,
        operands: operands(graph, node, facts, check),
        condition: condition.plain().to_string(),
        binding: binding.clone(),
    };
    Finding::new(
        facts_of,
        Some(node_site(graph, node)),
        input_sites(graph, Some(facts), node, &check.slots),
    )
}

/// E4 for an operator constraint that fails: always, or (`under`) for this deployment's dims.
fn constraint_finding(
    graph: &Graph,
    node: &Node,
    facts: &GraphFacts,
    constraint: &Constraint,
    under: Option<(&Condition, &Binding)>,
) -> Finding {
    let facts_of = Facts::ConstraintUnmet {
        constraint: constraint.requires.clone(),
        found: constraint.found.clone(),
        fix: constraint.fix.clone(),
        condition: under.map(|(condition, _)| condition.plain().to_string()),
        binding: under.map(|(_, binding)| binding.clone()),
    };
    Finding::new(
        facts_of,
        Some(node_site(graph, node)),
        input_sites(graph, Some(facts), node, &constraint.slots),
    )
}

/// Most clauses of one group's combined condition: past this, the bounded search could not
/// decide it anyway, and combining (each `and` copies the conjunction) would grow quadratically.
const MAX_JOINT_CLAUSES: usize = 1_024;

/// W1 findings: one per conditional node, except that symbols the conditions force together to a
/// single value are reported once, at the nodes that force them.
///
/// Conditions are combined only within groups of nodes whose conditions share symbols, directly
/// or through other nodes: a symbol names one value across the model, and unrelated symbols
/// cannot constrain each other. One global conjunction made the check quadratic in the number
/// of conditional nodes (4,000 nodes with independent symbols took a second).
fn conditional_findings(conditionals: &[Conditional<'_>]) -> Vec<Finding> {
    let mut findings = Vec::new();
    // (symbol, its forced value, the group's members), over every group.
    let mut joint: Vec<(String, i64, Vec<usize>)> = Vec::new();
    for group in symbol_groups(conditionals) {
        let members: Vec<&Conditional<'_>> =
            group.iter().filter_map(|&i| conditionals.get(i)).collect();
        let mut combined = Condition::truth();
        for member in &members {
            combined = combined.and(&member.condition);
            if combined.clauses().len() > MAX_JOINT_CLAUSES {
                break;
            }
        }
        if combined.clauses().len() > MAX_JOINT_CLAUSES {
            continue;
        }
        let forced = combined.forced_values().unwrap_or_default();
        let alone: Vec<BTreeMap<String, BTreeSet<i64>>> = members
            .iter()
            .map(|m| m.condition.forced_values().unwrap_or_default())
            .collect();
        for (symbol, values) in forced {
            let [value] = values.iter().copied().collect::<Vec<_>>()[..] else {
                continue;
            };
            // Forced only by the combination: no single node forces it on its own.
            let forced_alone = alone
                .iter()
                .any(|f| f.get(&symbol).is_some_and(|v| v.len() == 1));
            if forced_alone {
                continue;
            }
            let involved = group
                .iter()
                .copied()
                .filter(|&i| {
                    conditionals
                        .get(i)
                        .is_some_and(|c| c.condition.symbols().contains(&symbol))
                })
                .collect();
            joint.push((symbol, value, involved));
        }
    }
    joint.sort_by(|a, b| a.0.cmp(&b.0));
    let mut reported_jointly = BTreeSet::new();
    for (symbol, value, involved) in joint {
        let involved: Vec<&Conditional<'_>> = involved
            .iter()
            .filter_map(|&i| conditionals.get(i))
            .collect();
        let Some(finding) = forced_finding(&symbol, value, &involved) else {
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
    let mut first_with: HashMap<(bool, String), usize> = HashMap::new();
    for c in conditionals {
        if reported_jointly.contains(&(c.graph.id, c.node.index)) {
            continue;
        }
        // Plain forms are exact, so equal texts are equivalent conditions.
        let key = (c.check.constraint.is_some(), c.plain.to_string());
        if let Some(finding) = first_with.get(&key).and_then(|&i| findings.get_mut(i)) {
            finding.also_needed_at(NodeName::new(
                c.node.op_type.to_string(),
                c.node.name.to_string(),
            ));
            continue;
        }
        first_with.insert(key, findings.len());
        findings.push(conditional_finding(c));
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
            .map(|c| NodeName::new(c.node.op_type.to_string(), c.node.name.to_string()))
            .collect(),
        conditions: involved.iter().map(|c| c.plain.to_string()).collect(),
        // A W1 unless only operator constraints force the symbol.
        constraints_only: involved.iter().all(|c| c.check.constraint.is_some()),
    };
    Some(Finding::new(
        facts,
        Some(node_site(first.graph, first.node)),
        input_sites(
            first.graph,
            Some(first.facts),
            first.node,
            &first.check.slots,
        ),
    ))
}

/// The W1 (broadcast) or W4 (operator constraint) of one conditional node.
fn conditional_finding(c: &Conditional<'_>) -> Finding {
    let condition = c.plain.to_string();
    let counterexample = c.plain.breaking().or_else(|| c.condition.counterexample());
    let facts = match &c.check.constraint {
        Some(constraint) => Facts::ConditionalConstraint {
            constraint: constraint.requires.clone(),
            fix: constraint.fix.clone(),
            condition,
            counterexample,
            also_at: Vec::new(),
        },
        None => Facts::ConditionalBroadcast {
            rule: c.check.rule,
            operands: operands(c.graph, c.node, c.facts, c.check),
            condition,
            counterexample,
            also_at: Vec::new(),
        },
    };
    Finding::new(
        facts,
        Some(node_site(c.graph, c.node)),
        input_sites(c.graph, Some(c.facts), c.node, &c.check.slots),
    )
}

/// The root of `i` in a union-find forest, halving the path on the way.
fn union_root(parent: &mut [usize], mut i: usize) -> usize {
    while let Some(&up) = parent.get(i) {
        if up == i {
            break;
        }
        let grand = parent.get(up).copied().unwrap_or(up);
        if let Some(slot) = parent.get_mut(i) {
            *slot = grand;
        }
        i = up;
    }
    i
}

/// The conditionals in groups that share symbols (transitively), each group in node order and
/// the groups in order of their first node.
fn symbol_groups(conditionals: &[Conditional<'_>]) -> Vec<Vec<usize>> {
    // Union-find over the conditionals, joined through the first conditional naming a symbol.
    let mut parent: Vec<usize> = (0..conditionals.len()).collect();
    let mut first_with: BTreeMap<String, usize> = BTreeMap::new();
    for (i, c) in conditionals.iter().enumerate() {
        for symbol in c.condition.symbols() {
            match first_with.get(&symbol) {
                Some(&j) => {
                    let (a, b) = (union_root(&mut parent, i), union_root(&mut parent, j));
                    let (low, high) = (a.min(b), a.max(b));
                    if let Some(slot) = parent.get_mut(high) {
                        *slot = low;
                    }
                }
                None => {
                    first_with.insert(symbol, i);
                }
            }
        }
    }
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for i in 0..conditionals.len() {
        let r = union_root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().collect()
}

/// The fix of a unidirectional clash: the stretching input is the one to change (the target is
/// the node's other operands' result), to a shape that broadcasts to the target.
fn stretch_fix(name: &str, target: &Shape) -> Option<String> {
    let dims = target.dims()?;
    let last = dims.last()?;
    let whole = target.to_string();
    let tail = format!("[{last}]");
    Some(if dims.len() > 1 {
        format!("reshape `{name}` to one that broadcasts to {whole}, such as {tail} or {whole}")
    } else {
        format!("reshape `{name}` to {whole} or [1]")
    })
}

/// A likely fix for two clashing shapes: sizes that look transposed, or a lower-rank input that
/// lines up with other axes of the higher-rank one (it needs an Unsqueeze or Reshape).
fn suggest_fix(names: &[String], shapes: &[&Shape], legacy: bool) -> Option<String> {
    let ([a_name, b_name], [a, b]) = (names, shapes) else {
        return None;
    };
    let (a_dims, b_dims) = (a.as_known()?, b.as_known()?);
    if a_dims.len() == b_dims.len() && a_dims != b_dims {
        let mut x = a_dims.clone();
        let mut y = b_dims.clone();
        x.sort_unstable();
        y.sort_unstable();
        if x == y {
            return Some(format!(
                "`{a_name}` {a} and `{b_name}` {b} have the same sizes in another order: one of them probably needs a Transpose"
            ));
        }
    }
    let (small_name, small, large) = if a_dims.len() < b_dims.len() {
        (a_name, &a_dims, &b_dims)
    } else {
        (b_name, &b_dims, &a_dims)
    };
    let (r, big) = (small.len(), large.len());
    if r == 0 || r == big {
        return None;
    }
    (0..big - r).find_map(|offset| {
        let window = large.get(offset..offset + r)?;
        let fits = window
            .iter()
            .zip(small.iter())
            .all(|(l, s)| l == s || *s == 1);
        if !fits {
            return None;
        }
        if legacy {
            return Some(format!(
                "`{small_name}` lines up with axes {offset}..{} of the other input: set axis={offset}",
                offset + r
            ));
        }
        let trailing = big - r - offset;
        let axes: Vec<String> = (r..r + trailing).map(|a| a.to_string()).collect();
        let mut target: Vec<String> = small.iter().map(ToString::to_string).collect();
        target.extend(std::iter::repeat_n("1".to_owned(), trailing));
        Some(format!(
            "`{small_name}` lines up with axes {offset}..{} of the other input: Unsqueeze it at axes [{}] (to [{}])",
            offset + r,
            axes.join(", "),
            target.join(", ")
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        vec!["a".into(), "b".into()]
    }

    #[test]
    fn lower_rank_input_that_lines_up_elsewhere_gets_an_unsqueeze() {
        let a = Shape::from_known(&[3, 4]);
        let b = Shape::from_known(&[3]);
        let fix = suggest_fix(&names(), &[&a, &b], false).unwrap();
        assert!(
            fix.contains("Unsqueeze it at axes [1] (to [3, 1])"),
            "{fix}"
        );
    }

    #[test]
    fn legacy_misplaced_run_gets_the_right_axis() {
        let a = Shape::from_known(&[2, 3, 4, 5]);
        let b = Shape::from_known(&[3, 4]);
        let fix = suggest_fix(&names(), &[&a, &b], true).unwrap();
        assert!(fix.ends_with("set axis=1"), "{fix}");
    }

    #[test]
    fn permuted_sizes_look_transposed() {
        let a = Shape::from_known(&[3, 4]);
        let b = Shape::from_known(&[4, 3]);
        let fix = suggest_fix(&names(), &[&a, &b], false).unwrap();
        assert!(fix.contains("Transpose"), "{fix}");
    }

    #[test]
    fn unrelated_sizes_get_no_guess() {
        let a = Shape::from_known(&[2, 3]);
        let b = Shape::from_known(&[4]);
        assert_eq!(suggest_fix(&names(), &[&a, &b], false), None);
    }
}
