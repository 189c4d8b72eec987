//! The bound on what a finding carries (issue 34 item 3): a W1 over a rank-1000 shape has a
//! condition of a thousand clauses, about 100 KB, which its facts would carry into human, JSON
//! and SARIF alike. The condition is written where the facts are made, up to
//! [`CONDITION_CLAUSES`] clauses and `… and N more clauses`, so the three formats state the same
//! text and the whole is never built. Its shapes and lists of nodes are cut when the finding is
//! made ([`shapes`], [`inputs`], [`node_lists`]): a shape states at most `shape-dims` dims, the
//! axes the finding is about first (`stated.rs`), and a list names at most [`FINDING_NODES`]
//! nodes and counts the others, so its size does not grow with the rank or the model.

use super::about::{differing_axes, offending_axes};
use super::facts::{Facts, NodeName};
use super::{Code, InputSite, Mismatch, StatedShape};
use crate::limits::{CONDITION_CLAUSES, FINDING_NODES};
use crate::shape::condition::Plain;

/// A condition's text as a finding states it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConditionText {
    /// The first [`CONDITION_CLAUSES`] clauses, then how many more there are.
    pub(crate) text: String,
    /// Whether clauses were left out: two cut texts may be equal for different conditions.
    pub(crate) cut: bool,
}

/// The text of `plain` within [`CONDITION_CLAUSES`] clauses.
pub(crate) fn condition_text(plain: &Plain) -> ConditionText {
    let mut text = String::new();
    // Writing to a `String` cannot fail.
    let left_out = plain
        .write_within(&mut text, CONDITION_CLAUSES)
        .unwrap_or(0);
    ConditionText {
        text,
        cut: left_out > 0,
    }
}

/// Cuts the shapes of `facts` to the axes they are about: a clash's axis, the axes where the
/// operands differ, a declaration's mismatching axis.
pub(super) fn shapes(facts: &mut Facts) {
    match facts {
        Facts::BroadcastClash {
            axis,
            sizes,
            operands,
            target,
            ..
        } => {
            let mut about: Vec<Vec<usize>> = vec![Vec::new(); operands.len()];
            for size in sizes.iter() {
                if let Some(axes) = about.get_mut(size.operand) {
                    axes.push(size.axis);
                }
            }
            let shapes: Vec<&StatedShape> = operands.iter().map(|o| &o.shape).collect();
            for (k, axis) in differing_axes(&shapes, false) {
                if let Some(axes) = about.get_mut(k) {
                    axes.push(axis);
                }
            }
            for (operand, about) in operands.iter_mut().zip(about) {
                cut(&mut operand.shape, &about);
            }
            if let Some(target) = target {
                let about: Vec<usize> = axis.iter().copied().collect();
                cut(target, &about);
            }
        }
        Facts::BroadcastBroken { operands, .. }
        | Facts::ConditionalBroadcast { operands, .. }
        | Facts::BroadcastEmptyOnly { operands, .. } => {
            let shapes: Vec<&StatedShape> = operands.iter().map(|o| &o.shape).collect();
            let about = by_shape(operands.len(), differing_axes(&shapes, false));
            for (operand, about) in operands.iter_mut().zip(about) {
                cut(&mut operand.shape, &about);
            }
        }
        Facts::DeclaredMismatch {
            declared,
            inferred,
            mismatch,
            ..
        } => {
            let about: Vec<usize> = match mismatch {
                Mismatch::Dim { axis, .. } => vec![*axis],
                Mismatch::Rank { .. } => Vec::new(),
            };
            cut(declared, &about);
            cut(inferred, &about);
        }
        Facts::InitializerMismatch {
            declared, stored, ..
        } => {
            // The first axis where they differ, counted from the left (equal ranks).
            let about: Vec<usize> = (0..declared.rank().unwrap_or(0))
                .find(|&axis| declared.dim(axis) != stored.dim(axis))
                .into_iter()
                .collect();
            cut(declared, &about);
            cut(stored, &about);
        }
        Facts::LegacyImplicitBroadcast { shapes, .. } => {
            let about = by_shape(
                shapes.len(),
                differing_axes(&shapes.iter().collect::<Vec<_>>(), true),
            );
            for (shape, about) in shapes.iter_mut().zip(about) {
                cut(shape, &about);
            }
        }
        Facts::BranchFailure { failure, .. } => shapes(failure),
        _ => {}
    }
}

/// The axes of each of `count` shapes in `pairs` (`(shape, axis)`).
fn by_shape(count: usize, pairs: Vec<(usize, usize)>) -> Vec<Vec<usize>> {
    let mut about = vec![Vec::new(); count];
    for (k, axis) in pairs {
        if let Some(axes) = about.get_mut(k) {
            axes.push(axis);
        }
    }
    about
}

/// `shape` cut to `about` in place.
fn cut(shape: &mut StatedShape, about: &[usize]) {
    let whole = std::mem::replace(shape, StatedShape::from(crate::shape::Shape::Unranked));
    *shape = whole.within(about);
}

/// Cuts the shapes of `inputs` of a finding of `code` with `message` and `facts`: each keeps
/// the axes its clash names (an E1's `sizes`), then the axes the finding is about.
pub(super) fn inputs(inputs: &mut [InputSite], facts: &Facts, code: Code, message: &str) {
    if !inputs.iter().any(|input| long(&input.shape)) {
        return;
    }
    let mut about: Vec<Vec<usize>> = vec![Vec::new(); inputs.len()];
    if let Facts::BroadcastClash { sizes, .. } = facts {
        for size in sizes {
            for (input, axes) in inputs.iter().zip(about.iter_mut()) {
                if input.name == size.input {
                    axes.push(size.axis);
                }
            }
        }
    }
    for (i, axis) in offending_axes(inputs, code, message) {
        if let Some(axes) = about.get_mut(i) {
            axes.push(axis);
        }
    }
    for (input, about) in inputs.iter_mut().zip(about) {
        cut(&mut input.shape, &about);
    }
}

/// Whether `shape` states more dims than a finding may.
fn long(shape: &StatedShape) -> bool {
    shape
        .whole()
        .and_then(crate::shape::Shape::rank)
        .is_some_and(|rank| rank > crate::limits::SHAPE_DIMS)
}

/// Cuts the lists of nodes of `facts` (and of data-dependent sizes, each named with the node
/// making it) to [`FINDING_NODES`], counting the others.
pub(super) fn node_lists(facts: &mut Facts) {
    match facts {
        Facts::ConditionalBroadcast {
            also_at,
            also_at_left_out,
            implied_at,
            implied_at_left_out,
            data_dependent,
            data_dependent_left_out,
            ..
        }
        | Facts::ConditionalConstraint {
            also_at,
            also_at_left_out,
            implied_at,
            implied_at_left_out,
            data_dependent,
            data_dependent_left_out,
            ..
        } => {
            *also_at_left_out += keep_first(also_at);
            *implied_at_left_out += keep_first(implied_at);
            *data_dependent_left_out += keep_first(data_dependent);
        }
        Facts::BroadcastEmptyOnly {
            data_dependent,
            data_dependent_left_out,
            ..
        }
        | Facts::ConstraintEmptyOnly {
            data_dependent,
            data_dependent_left_out,
            ..
        } => *data_dependent_left_out += keep_first(data_dependent),
        Facts::ForcedValue {
            nodes,
            conditions,
            nodes_left_out,
            ..
        } => {
            *nodes_left_out += keep_first(nodes);
            keep_first(conditions);
        }
        _ => {}
    }
}

/// Keeps the first [`FINDING_NODES`] of `list`; how many it dropped.
pub(super) fn keep_first<T>(list: &mut Vec<T>) -> usize {
    let dropped = list.len().saturating_sub(FINDING_NODES);
    list.truncate(FINDING_NODES);
    dropped
}

/// Adds `nodes` to `list` (of which `left_out` were dropped before) within [`FINDING_NODES`],
/// counting the others without keeping them; whether it added or counted any.
pub(super) fn extend_nodes(
    list: &mut Vec<NodeName>,
    left_out: &mut usize,
    nodes: impl IntoIterator<Item = NodeName>,
) -> bool {
    let before = (list.len(), *left_out);
    for node in nodes {
        if list.len() < FINDING_NODES {
            list.push(node);
        } else {
            *left_out += 1;
        }
    }
    (list.len(), *left_out) != before
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::condition::{Atom, Condition};
    use crate::shape::Dim;

    /// `d0 = e0 ∨ ... ∧ d1 = e1 ∨ ...`: one broadcast clause per axis of a rank-`rank` shape.
    fn axes(rank: usize) -> Condition {
        (0..rank).fold(Condition::truth(), |all, i| {
            let (a, b) = (Dim::sym(&format!("d{i}")), Dim::sym(&format!("e{i}")));
            all.and(&Condition::any_of([
                Atom::Eq(a.clone(), b.clone()),
                Atom::IsOne(a),
                Atom::IsOne(b),
            ]))
        })
    }

    #[test]
    fn a_condition_within_the_bound_is_its_whole_text() {
        let plain = axes(CONDITION_CLAUSES).plain();
        let text = condition_text(&plain);
        assert!(!text.cut);
        assert_eq!(text.text, plain.to_string());
        assert_eq!(plain.clause_count(), CONDITION_CLAUSES);
    }

    #[test]
    fn a_longer_condition_states_its_first_clauses_and_counts_the_rest() {
        let plain = axes(300).plain();
        assert_eq!(plain.clause_count(), 300);
        let text = condition_text(&plain);
        assert!(text.cut);
        let more = 300 - CONDITION_CLAUSES;
        assert!(
            text.text
                .ends_with(&format!(" ∧ … and {more} more clauses")),
            "{}",
            text.text
        );
        // The stated clauses are the whole text's first ones.
        let whole = plain.to_string();
        let stated = text.text.split(" ∧ …").next().unwrap_or_default();
        assert!(whole.starts_with(stated));
        assert_eq!(stated.matches(" ∧ ").count() + 1, CONDITION_CLAUSES);
        assert!(text.text.len() < whole.len() / 3);
    }

    fn node(i: usize) -> NodeName {
        NodeName::new("Add".into(), format!("add{i}"))
    }

    #[test]
    fn a_forced_value_names_its_first_nodes_and_counts_the_rest() {
        let count = FINDING_NODES + 7;
        let mut facts = Facts::ForcedValue {
            symbol: "n".into(),
            value: 1,
            nodes: (0..count).map(node).collect(),
            conditions: (0..count).map(|i| format!("n = {i}")).collect(),
            nodes_left_out: 0,
            constraints_only: false,
        };
        node_lists(&mut facts);
        let Facts::ForcedValue {
            nodes,
            conditions,
            nodes_left_out,
            ..
        } = &facts
        else {
            panic!("{facts:?}");
        };
        assert_eq!(
            (nodes.len(), conditions.len()),
            (FINDING_NODES, FINDING_NODES)
        );
        assert_eq!(*nodes_left_out, 7);
        let message = super::super::render::message(&facts, None);
        assert!(
            message.contains(&format!(
                "Add `add{}`, … and 7 more nodes need n = 0 and",
                FINDING_NODES - 1
            )),
            "{message}"
        );
        assert!(message.ends_with(" and theirs"), "{message}");
    }

    #[test]
    fn nodes_past_the_limit_are_counted_not_kept() {
        let mut list = vec![node(0)];
        let mut left_out = 0;
        assert!(extend_nodes(
            &mut list,
            &mut left_out,
            (1..FINDING_NODES).map(node)
        ));
        assert_eq!((list.len(), left_out), (FINDING_NODES, 0));
        // Only counted: still a change, which the help must say.
        assert!(extend_nodes(&mut list, &mut left_out, (0..3).map(node)));
        assert_eq!((list.len(), left_out), (FINDING_NODES, 3));
        assert!(!extend_nodes(&mut list, &mut left_out, std::iter::empty()));
    }

    #[test]
    fn a_declaration_mismatching_past_the_cut_states_that_axis() {
        use crate::shape::Shape;
        let rank = 1000;
        let dims = |at: i64| {
            Shape::Ranked(
                (0..rank)
                    .map(|i| {
                        if i == 900 {
                            Dim::Known(at)
                        } else {
                            Dim::Known(2)
                        }
                    })
                    .collect(),
            )
        };
        let mut facts = Facts::DeclaredMismatch {
            value: "y".into(),
            declared: dims(5).into(),
            inferred: dims(3).into(),
            mismatch: Mismatch::Dim {
                axis: 900,
                inferred: Dim::Known(3),
                declared: Dim::Known(5),
            },
        };
        shapes(&mut facts);
        let Facts::DeclaredMismatch {
            declared, inferred, ..
        } = &facts
        else {
            panic!("{facts:?}");
        };
        assert_eq!(declared.dim(900), Some(&Dim::Known(5)));
        assert_eq!(inferred.dim(900), Some(&Dim::Known(3)));
        assert_eq!(declared.left_out(), rank - crate::limits::SHAPE_DIMS);
        let message = super::super::render::message(&facts, None);
        assert!(
            message.contains("axis 900: 5, … and 99 more dims] (rank 1000)"),
            "{message}"
        );
        assert!(message.len() < 400, "{message}");
    }

    #[test]
    fn data_dependent_sizes_past_the_limit_are_counted() {
        use super::super::SizeOrigin;
        let count = FINDING_NODES + 3;
        let mut facts = Facts::BroadcastEmptyOnly {
            rule: crate::shape::Rule::Multidirectional,
            operands: Vec::new(),
            condition: "n0 = 0".into(),
            counterexample: None,
            data_dependent: (0..count)
                .map(|i| SizeOrigin::new(format!("n{i}"), format!("v{i}"), Some(node(i))))
                .collect(),
            data_dependent_left_out: 0,
        };
        node_lists(&mut facts);
        let Facts::BroadcastEmptyOnly {
            data_dependent,
            data_dependent_left_out,
            ..
        } = &facts
        else {
            panic!("{facts:?}");
        };
        assert_eq!(
            (data_dependent.len(), *data_dependent_left_out),
            (FINDING_NODES, 3)
        );
        let help = super::super::render::help(&facts, None, false, &[]);
        assert!(
            help.ends_with("; … and 3 more data-dependent sizes, which --dim cannot bind"),
            "{help}"
        );
        assert!(!help.contains(&format!("`n{FINDING_NODES}`")), "{help}");
    }
}
