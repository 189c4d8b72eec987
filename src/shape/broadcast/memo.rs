//! The outcomes of broadcasts over many symbolic sizes, kept by the inference run that owns an
//! [`Outcomes`] and reused when the same shapes meet again.
//!
//! A broadcast is a function of its rule and its shapes only. Most are cheap, but one whose
//! axes pair distinct symbols builds a condition with a clause per axis and searches it, and
//! a model can repeat it: a thousand `Add`s of the same two rank-1000 inputs took 47 s and
//! 2.2 GB, recomputing the same outcome at each node (issue 19 hunt). Each inference run
//! (settling runs several) has a table of its own.
//!
//! Only broadcasts with at least [`FROM_SYMBOLIC`] symbolic sizes among their inputs are kept:
//! below that, hashing the shapes costs about what the broadcast does. The table is bounded by
//! what it holds ([`MAX_WEIGHT`]) and emptied when full, so its memory is bounded whatever the
//! model, and dropped with the run that owns it, so no state outlives a lint (the Python package
//! lints many models in one thread); it is keyed by the shapes themselves, so a reused outcome is
//! the one the rule would give. Measured (issue 33): without it, 400 `Add`s of the same two
//! rank-300 symbolic inputs (`tests/limits.rs`) take 320 s in a debug build instead of 1.5 s.

use std::cell::RefCell;
use std::hash::{BuildHasher, Hash, Hasher};

use hashbrown::HashTable;

use super::{Allowance, Outcome, Rule, Verdict};
use crate::shape::{Dim, Shape};

/// Symbolic sizes among a broadcast's inputs from which its outcome is kept.
const FROM_SYMBOLIC: usize = 8;

/// Most weight ([`weight`]) the table holds before it is emptied: a few tens of MB.
const MAX_WEIGHT: usize = 1 << 18;

/// What a broadcast is a function of, and what it gave.
struct Entry {
    rule: Rule,
    /// The legacy rule's `broadcast` and `axis` attributes (`(false, None)` for the others).
    attributes: (bool, Option<i64>),
    shapes: Vec<Shape>,
    /// The hash of the three above (see [`key_hash`]).
    hash: u64,
    outcome: Outcome,
}

#[derive(Default)]
struct Table {
    /// Looked up by the inputs as given, so that a hit copies nothing but the outcome.
    outcomes: HashTable<Entry>,
    weight: usize,
}

/// What an entry holds, in dims, atoms and offenders (each 16 to 64 bytes, besides the
/// expressions, which are mostly shared with the model's shapes).
fn weight(shapes: &[&Shape], outcome: &Outcome) -> usize {
    let dims = |shape: &Shape| 1 + shape.rank().unwrap_or(0);
    let verdict = match &outcome.verdict {
        Verdict::Valid => 0,
        Verdict::Conditional(condition) => condition
            .clauses()
            .iter()
            .map(|clause| 1 + clause.atoms().len())
            .sum(),
        Verdict::Invalid(violation) => 1 + violation.inputs.len(),
    };
    shapes.iter().map(|&shape| dims(shape)).sum::<usize>() + dims(&outcome.shape) + verdict
}

/// The hash of a broadcast's inputs.
fn key_hash(rule: Rule, attributes: (bool, Option<i64>), shapes: &[&Shape]) -> u64 {
    let mut hasher = foldhash::fast::FixedState::with_seed(0).build_hasher();
    (rule, attributes).hash(&mut hasher);
    for shape in shapes {
        shape.hash(&mut hasher);
    }
    hasher.finish()
}

/// The broadcasts of one inference run: the broadcast functions of [`super`], each outcome
/// over enough symbolic sizes kept for the rest of the run.
#[derive(Default)]
pub(crate) struct Outcomes {
    table: RefCell<Table>,
    /// What the run's broadcasts may still state (`broadcast-work`).
    allowance: Allowance,
}

impl Outcomes {
    /// [`super::multidirectional`], kept.
    pub(crate) fn multidirectional(&self, inputs: &[&Shape]) -> Outcome {
        self.outcome(Rule::Multidirectional, (false, None), inputs, || {
            super::numpy_style(Rule::Multidirectional, inputs, &self.allowance)
        })
    }

    /// [`super::bidirectional`], kept.
    pub(crate) fn bidirectional(&self, input: &Shape, target: &Shape) -> Outcome {
        self.outcome(Rule::Bidirectional, (false, None), &[input, target], || {
            super::numpy_style(Rule::Bidirectional, &[input, target], &self.allowance)
        })
    }

    /// [`super::unidirectional`], kept.
    pub(crate) fn unidirectional(&self, a: &Shape, b: &Shape) -> Outcome {
        self.outcome(Rule::Unidirectional, (false, None), &[a, b], || {
            super::directional::unidirectional_within(a, b, &self.allowance)
        })
    }

    /// [`super::legacy`], kept.
    pub(crate) fn legacy(
        &self,
        a: &Shape,
        b: &Shape,
        broadcast: bool,
        axis: Option<i64>,
    ) -> Outcome {
        self.outcome(Rule::Legacy, (broadcast, axis), &[a, b], || {
            super::legacy::legacy_within(a, b, broadcast, axis, &self.allowance)
        })
    }

    /// How many broadcasts of the run went without their condition, the `broadcast-work`
    /// allowance spent (compare before and after a node to know whether it did).
    pub(crate) fn shortened(&self) -> usize {
        self.allowance.shortened()
    }

    /// The outcome of `rule` over `shapes` (with the legacy rule's `attributes`): the one kept
    /// for the same inputs if any, else `compute`'s, kept when the inputs are symbolic enough.
    fn outcome(
        &self,
        rule: Rule,
        attributes: (bool, Option<i64>),
        shapes: &[&Shape],
        compute: impl FnOnce() -> Outcome,
    ) -> Outcome {
        let symbolic = shapes
            .iter()
            .filter_map(|shape| shape.dims())
            .flatten()
            .filter(|dim| matches!(dim, Dim::Sym(_)))
            .count();
        if symbolic < FROM_SYMBOLIC {
            return compute();
        }
        let hash = key_hash(rule, attributes, shapes);
        let same = |entry: &Entry| {
            entry.hash == hash
                && entry.rule == rule
                && entry.attributes == attributes
                && entry.shapes.len() == shapes.len()
                && entry
                    .shapes
                    .iter()
                    .zip(shapes)
                    .all(|(kept, &given)| kept == given)
        };
        let kept = self
            .table
            .borrow()
            .outcomes
            .find(hash, same)
            .map(|entry| entry.outcome.clone());
        if let Some(kept) = kept {
            return kept;
        }
        let shortened = self.allowance.shortened();
        let computed = compute();
        let weight = weight(shapes, &computed);
        // An outcome without its condition is not the rule's: kept, it would be met by a
        // later node that is then not named as unchecked.
        if weight > MAX_WEIGHT || self.allowance.shortened() != shortened {
            return computed;
        }
        let mut table = self.table.borrow_mut();
        if table.weight + weight > MAX_WEIGHT {
            table.outcomes.clear();
            table.weight = 0;
        }
        table.weight += weight;
        let entry = Entry {
            rule,
            attributes,
            shapes: shapes.iter().map(|&shape| shape.clone()).collect(),
            hash,
            outcome: computed.clone(),
        };
        table
            .outcomes
            .insert_unique(hash, entry, |entry| entry.hash);
        computed
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::{Allowance, Outcomes, Rule};
    use crate::shape::broadcast::multidirectional;
    use crate::shape::{Dim, Shape};

    fn symbols(prefix: &str, rank: usize) -> Shape {
        Shape::Ranked(
            (0..rank)
                .map(|i| Dim::sym(&format!("{prefix}{i}")))
                .collect(),
        )
    }

    /// An outcome computed past the run's allowance lacks its condition, so it is not kept: the
    /// same shapes again are computed again (and counted again as going without).
    #[test]
    fn an_outcome_without_its_condition_is_not_kept() {
        let outcomes = Outcomes {
            table: RefCell::default(),
            allowance: Allowance::new(3),
        };
        let (a, b) = (symbols("short_a", 6), symbols("short_b", 6));
        let first = outcomes.multidirectional(&[&a, &b]);
        assert!(first.is_valid(), "{first:?}");
        assert_eq!(outcomes.shortened(), 1);
        let again = outcomes.multidirectional(&[&a, &b]);
        assert_eq!(again, first);
        assert_eq!(outcomes.shortened(), 2);
    }

    /// The same symbolic inputs meet the kept outcome, the one the rule computes; an outcome
    /// over fewer symbolic sizes, another rule or other attributes is not met.
    #[test]
    fn kept_outcome_is_the_computed_one() {
        let outcomes = Outcomes::default();
        let (a, b) = (symbols("memo_a", 6), symbols("memo_b", 6));
        let first = outcomes.multidirectional(&[&a, &b]);
        let again = outcomes.outcome(Rule::Multidirectional, (false, None), &[&a, &b], || {
            panic!("the outcome of the same shapes is kept")
        });
        assert_eq!(again, multidirectional(&[&a, &b]));
        assert_eq!(first, again);
        assert!(first.condition().is_some());

        let fresh = |rule, attributes, shapes: &[&Shape]| {
            let mut computed = false;
            outcomes.outcome(rule, attributes, shapes, || {
                computed = true;
                multidirectional(shapes)
            });
            computed
        };
        let (c, d) = (symbols("memo_c", 3), symbols("memo_d", 3));
        outcomes.multidirectional(&[&c, &d]);
        assert!(fresh(Rule::Multidirectional, (false, None), &[&c, &d]));
        assert!(fresh(Rule::Bidirectional, (false, None), &[&a, &b]));
        assert!(fresh(Rule::Multidirectional, (true, None), &[&a, &b]));
        assert!(fresh(Rule::Multidirectional, (false, None), &[&b, &a]));
        assert!(fresh(Rule::Multidirectional, (false, None), &[&a, &b, &b]));

        assert!(fresh(Rule::Multidirectional, (false, None), &[&c, &d]));
        let another_run = Outcomes::default();
        let mut computed = false;
        another_run.outcome(Rule::Multidirectional, (false, None), &[&a, &b], || {
            computed = true;
            multidirectional(&[&a, &b])
        });
        assert!(computed, "a run does not meet another run's outcomes");
    }

    /// The table empties itself rather than grow past its bound, and still keeps what it
    /// was last given.
    #[test]
    fn table_stays_bounded() {
        // Eight symbols (kept), then 30,000 static sizes that agree (cheap, but weighed).
        let wide = |i: usize| {
            let mut dims = vec![Dim::sym(&format!("memo_w{i}"))];
            dims.extend((1..8).map(|k| Dim::sym(&format!("memo_s{k}"))));
            dims.extend(std::iter::repeat_n(Dim::known(2), 30_000));
            Shape::Ranked(dims)
        };
        let outcomes = Outcomes::default();
        let mut emptied = false;
        for i in 0..12 {
            let a = wide(i);
            let before = outcomes.table.borrow().weight;
            outcomes.multidirectional(&[&a, &a]);
            let weight = outcomes.table.borrow().weight;
            assert!(weight <= super::MAX_WEIGHT, "weight {weight} after {i}");
            emptied |= weight < before;
            let kept = outcomes.outcome(Rule::Multidirectional, (false, None), &[&a, &a], || {
                panic!("the last outcome is kept")
            });
            assert!(kept.is_valid());
        }
        assert!(emptied, "12 entries of 90,000 dims fill a table of 2^18");
    }
}
