//! Conditions of many nodes solved together. A symbol names one value across the model, so
//! conditions that share symbols (directly or through other conditions) constrain each other:
//! together they may force a symbol to one value that none of them forces alone.
//!
//! Conditions are combined only within groups that share symbols: unrelated symbols cannot
//! constrain each other, and one global conjunction made the W1 check quadratic in the number
//! of conditional nodes (4,000 nodes with independent symbols took a second).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::{Condition, Conjunction};

/// Most clauses of one group's combined condition: past this, the bounded search could not
/// decide it anyway.
const MAX_JOINT_CLAUSES: usize = crate::limits::JOINT_CLAUSES;

/// A symbol that several conditions force together to one value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Forced {
    /// The symbol.
    pub(crate) symbol: String,
    /// The only value the conditions together leave it.
    pub(crate) value: i64,
    /// The conditions (indices into the slice given) that name the symbol, in order.
    pub(crate) members: Vec<usize>,
}

/// Symbols forced to one value by the conjunction of a group of `conditions` sharing symbols,
/// though by none of the group's conditions alone; sorted by symbol (groups in order of their
/// first condition for equal symbols). A group too large to combine is skipped: it forces
/// nothing that could be proven.
pub(crate) fn forced_jointly(conditions: &[&Condition]) -> Vec<Forced> {
    // Solved once per distinct condition: nodes over the same inputs repeat one condition
    // (2,000 `Add`s of the same two rank-1000 inputs took 17 s here, issue 19 hunt). Equal
    // conditions add no clause to a conjunction, so the result is the same.
    let mut index: HashMap<&Condition, usize> = HashMap::new();
    let mut distinct: Vec<&Condition> = Vec::new();
    let of: Vec<usize> = conditions
        .iter()
        .map(|&c| {
            *index.entry(c).or_insert_with(|| {
                distinct.push(c);
                distinct.len() - 1
            })
        })
        .collect();
    // A condition past its work budget (`work.rs`) takes no part: the others still force what
    // they force (the whole implies each part), and reading its symbols alone cost the rank.
    let symbols: Vec<BTreeSet<String>> = distinct
        .iter()
        .map(|c| {
            if c.over_budget() {
                BTreeSet::new()
            } else {
                c.symbols()
            }
        })
        .collect();
    let mut joint = Vec::new();
    for group in symbol_groups(&symbols) {
        let group: Vec<usize> = group
            .into_iter()
            .filter(|&i| distinct.get(i).is_some_and(|c| !c.over_budget()))
            .collect();
        let members: Vec<&Condition> = group
            .iter()
            .filter_map(|&i| distinct.get(i).copied())
            .collect();
        let mut combined = Conjunction::default();
        for member in &members {
            combined.and(member);
            if combined.len() > MAX_JOINT_CLAUSES {
                break;
            }
        }
        if combined.len() > MAX_JOINT_CLAUSES {
            continue;
        }
        let forced = combined.finish().forced_values().unwrap_or_default();
        // A member that cannot be decided (`None`) reads as forcing nothing: it cannot happen
        // here, a member of a decisive combination having no more symbols nor candidates.
        let alone: Vec<BTreeMap<String, BTreeSet<i64>>> = members
            .iter()
            .map(|m| m.forced_values().unwrap_or_default())
            .collect();
        for (symbol, values) in forced {
            let [value] = values.iter().copied().collect::<Vec<_>>()[..] else {
                continue;
            };
            // Forced only by the combination: no single condition forces it on its own.
            let forced_alone = alone
                .iter()
                .any(|f| f.get(&symbol).is_some_and(|v| v.len() == 1));
            if forced_alone {
                continue;
            }
            let naming: BTreeSet<usize> = group
                .iter()
                .copied()
                .filter(|&d| symbols.get(d).is_some_and(|s| s.contains(&symbol)))
                .collect();
            let members = of
                .iter()
                .enumerate()
                .filter(|(_, d)| naming.contains(d))
                .map(|(i, _)| i)
                .collect();
            joint.push(Forced {
                symbol,
                value,
                members,
            });
        }
    }
    // Stable: equal symbols of different groups keep their groups' order.
    joint.sort_by(|a, b| a.symbol.cmp(&b.symbol));
    joint
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

/// The conditions (given by the symbols each names) in groups that share symbols
/// (transitively), each group in order and the groups in order of their first condition.
fn symbol_groups(symbols: &[BTreeSet<String>]) -> Vec<Vec<usize>> {
    // Union-find over the conditions, joined through the first condition naming a symbol.
    let mut parent: Vec<usize> = (0..symbols.len()).collect();
    let mut first_with: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, named) in symbols.iter().enumerate() {
        for symbol in named {
            match first_with.get(symbol.as_str()) {
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
    for i in 0..symbols.len() {
        let r = union_root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    groups.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::condition::Atom;
    use crate::shape::Dim;

    /// `name ∈ {1, value}`: what a broadcast of `name` against a static `value` needs.
    fn one_or(name: &str, value: i64) -> Condition {
        Condition::any_of([
            Atom::IsOne(Dim::sym(name)),
            Atom::Eq(Dim::sym(name), Dim::Known(value)),
        ])
    }

    #[test]
    fn two_conditions_on_one_symbol_force_it_together() {
        let (a, b) = (one_or("seq", 77), one_or("seq", 64));
        let forced = forced_jointly(&[&a, &b]);
        assert_eq!(
            forced,
            vec![Forced {
                symbol: "seq".into(),
                value: 1,
                members: vec![0, 1],
            }]
        );
    }

    #[test]
    fn unrelated_symbols_form_separate_groups() {
        let (a, b, c) = (one_or("x", 3), one_or("y", 4), one_or("x", 5));
        let symbols: Vec<_> = [&a, &b, &c].iter().map(|c| c.symbols()).collect();
        assert_eq!(symbol_groups(&symbols), vec![vec![0, 2], vec![1]]);
        let forced = forced_jointly(&[&a, &b, &c]);
        assert_eq!(forced.len(), 1);
        assert_eq!((forced[0].symbol.as_str(), forced[0].value), ("x", 1));
        assert_eq!(forced[0].members, vec![0, 2]);
    }

    #[test]
    fn a_value_one_condition_forces_alone_is_not_joint() {
        let (a, b) = (
            Condition::eq(&Dim::sym("n"), &Dim::Known(3)),
            one_or("n", 3),
        );
        assert!(forced_jointly(&[&a, &b]).is_empty());
    }
}
