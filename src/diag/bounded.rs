//! The bound on the text a finding carries (issue 34 item 3): a W1 over a rank-1000 shape has a
//! condition of a thousand clauses, about 100 KB, which its facts would carry into human, JSON
//! and SARIF alike. The condition is written where the facts are made, up to
//! [`CONDITION_CLAUSES`] clauses and `… and N more clauses`, so the three formats state the same
//! text and the whole is never built.

use crate::limits::CONDITION_CLAUSES;
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
}
