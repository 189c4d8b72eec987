//! The clause work one condition may cost: its plain form, its searches (never holds, simplify,
//! counterexample) and its part in the joint forcing each read at most [`CONDITION_WORK`]
//! atoms of it. A broadcast of two rank-1000 inputs states a thousand clauses from a node of
//! a few bytes, so without a bound the W1 check cost the rank times the nodes: rotations of
//! one rank-1000 shape, 1,000 nodes in 175 KB, took 55 s and 2.5 GB (issue 34).
//!
//! Past the budget each part answers from the condition's first clauses (its head), which
//! the whole implies: a value breaking the head breaks the whole, a head that never holds
//! makes the whole never hold, and the clauses past the head are shown as written. So a
//! capped answer is weaker (a counterexample or a proof not found, a clause not rewritten),
//! never wrong.

use super::Condition;

/// Most atoms of one condition its plain form rewrites and its searches read. The
/// conditions of real models are far smaller (a rank-8 broadcast of symbolic dims states 24
/// atoms); a rank-1000 one states 3,000.
pub(super) const CONDITION_WORK: usize = crate::limits::CONDITION_WORK;

impl Condition {
    /// How many of the first clauses fit in [`CONDITION_WORK`] atoms; `None` when all do.
    pub(super) fn head_len(&self) -> Option<usize> {
        let mut atoms = 0usize;
        for (i, clause) in self.clauses.iter().enumerate() {
            atoms = atoms.saturating_add(clause.0.len().max(1));
            if atoms > CONDITION_WORK {
                return Some(i);
            }
        }
        None
    }

    /// Whether the condition is larger than its work budget.
    pub(crate) fn over_budget(&self) -> bool {
        self.head_len().is_some()
    }

    /// The condition's first clauses within the budget, which the condition implies; itself
    /// when it is within the budget.
    pub(super) fn head(&self) -> Condition {
        match self.head_len() {
            Some(len) => Condition::of(self.clauses.get(..len).unwrap_or_default().to_vec()),
            None => self.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CONDITION_WORK;
    use crate::shape::condition::{Atom, Condition};
    use crate::shape::{Dim, Tri};

    /// `s0 = s1 ∨ s0 = 1 ∨ s1 = 1 ∧ s1 = s2 ∨ ...`: a rank-`n` broadcast of a shape against
    /// its rotation by one.
    fn rotation(n: usize) -> Condition {
        let s = |i: usize| Dim::sym(&format!("s{}", i % n));
        (0..n).fold(Condition::truth(), |c, i| {
            c.and(&Condition::any_of([
                Atom::Eq(s(i), s(i + 1)),
                Atom::IsOne(s(i)),
                Atom::IsOne(s(i + 1)),
            ]))
        })
    }

    #[test]
    fn a_small_condition_is_its_own_head() {
        let c = rotation(8);
        assert!(!c.over_budget());
        assert_eq!(c.head(), c);
    }

    #[test]
    fn a_large_condition_has_a_head_within_the_budget_that_it_implies() {
        let c = rotation(1000);
        assert!(c.over_budget());
        let head = c.head();
        let atoms: usize = head.clauses().iter().map(|c| c.atoms().len()).sum();
        assert!(
            atoms <= CONDITION_WORK && atoms + 3 > CONDITION_WORK,
            "{atoms}"
        );
        assert_eq!(head.clauses(), &c.clauses()[..head.clauses().len()]);
        // What breaks the head breaks the whole.
        let cx = c.counterexample().unwrap();
        assert_eq!(head.eval(&cx), Tri::No);
        assert_eq!(c.eval(&cx), Tri::No);
    }
}
