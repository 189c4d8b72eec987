//! Building a conjunction clause by clause, each new clause looked up in a hash set.
//!
//! `Condition::and` copies its left side: folding a condition axis by axis, or pair by pair of
//! a variadic operator's symbolic dims, with it was quadratic in copies, and comparing each new
//! clause with every clause held quadratic in comparisons (issue 19 hunt: a `Sum` of 240 inputs
//! with distinct symbolic dims, a 7 KB file, took 26 s; an `Add` of two rank-1000 inputs 0.1 s).
//! Folds build a `Conjunction` instead; `Condition::and` is one step of it.

use std::collections::HashSet;

use super::{Clause, Condition};

/// A conjunction being built: the same clauses, in the same order, as folding
/// [`Condition::and`] over the parts gives, in time linear in the clauses added.
#[derive(Default)]
pub(crate) struct Conjunction {
    clauses: Vec<Clause>,
    seen: HashSet<Clause>,
    /// Some part can never hold: the whole is [`Condition::falsity`].
    never: bool,
}

impl Conjunction {
    /// Starts from `condition`'s clauses as they are (a clause it holds twice stays twice).
    pub(crate) fn of(condition: &Condition) -> Conjunction {
        Conjunction {
            clauses: condition.clauses.to_vec(),
            seen: condition.clauses.iter().cloned().collect(),
            never: condition.is_false(),
        }
    }

    /// Adds every clause of `part` not already held.
    pub(crate) fn and(&mut self, part: &Condition) {
        if self.never {
            return;
        }
        if part.is_false() {
            self.never = true;
            return;
        }
        for clause in part.clauses() {
            if self.seen.insert(clause.clone()) {
                self.clauses.push(clause.clone());
            }
        }
    }

    /// How many clauses the conjunction holds: [`Conjunction::prefix`] of this count is the
    /// conjunction as it is now (the clauses are only ever appended).
    pub(crate) fn len(&self) -> usize {
        self.clauses.len()
    }

    /// Whether some part can never hold.
    pub(crate) fn is_never(&self) -> bool {
        self.never
    }

    /// The conjunction of its first `len` clauses.
    pub(crate) fn prefix(&self, len: usize) -> Condition {
        Condition::of(self.clauses.get(..len).unwrap_or(&self.clauses).to_vec())
    }

    /// The condition built.
    pub(crate) fn finish(self) -> Condition {
        if self.never {
            Condition::falsity()
        } else {
            Condition::of(self.clauses)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::condition::Atom;
    use crate::shape::Dim;

    fn eq(a: &str, b: &str) -> Condition {
        Condition::any_of([Atom::Eq(Dim::sym(a), Dim::sym(b)), Atom::IsOne(Dim::sym(a))])
    }

    #[test]
    fn gives_what_folding_and_gives() {
        let parts = [
            eq("a", "b"),
            eq("b", "c"),
            eq("a", "b"),
            Condition::truth(),
            eq("c", "d"),
        ];
        let folded = parts.iter().fold(Condition::truth(), |acc, p| acc.and(p));
        let mut built = Conjunction::default();
        for part in &parts {
            built.and(part);
        }
        assert_eq!(built.len(), 3);
        assert_eq!(built.prefix(1), eq("a", "b"));
        assert_eq!(built.finish(), folded);
    }

    #[test]
    fn a_part_that_never_holds_makes_it_false() {
        let parts = [eq("a", "b"), Condition::falsity(), eq("c", "d")];
        let folded = parts.iter().fold(Condition::truth(), |acc, p| acc.and(p));
        let mut built = Conjunction::default();
        for part in &parts {
            built.and(part);
        }
        assert!(built.is_never());
        assert_eq!(built.finish(), folded);
        assert!(folded.is_false());
    }
}
