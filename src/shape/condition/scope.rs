//! What a condition asks of real inputs: dims of at least 1 (a tensor with an empty axis holds
//! nothing to compute) and below a size no input reaches (the caller's limit). A condition
//! that no such input satisfies fails for every non-empty input; one that every such input
//! satisfies fails only at an empty dim or beyond the limit and asks nothing; the others are
//! stated without the disjuncts only an empty dim meets (`n = 0 ∨ x ≤ 80` asks `x ≤ 80`).
//! Exact on the plain form's sets; a clause over several symbols is kept as it is.

use super::plain::{Part, Piece, Plain};
use super::value_set::ValueSet;

/// What a condition asks of inputs whose dims are all in `1..=limit`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Scope {
    /// No such input satisfies it: it holds only when some dim is 0.
    EmptyOnly,
    /// Every such input satisfies it: it fails only at an empty dim or beyond the limit.
    Immaterial,
    /// It holds for some and fails for others: this, without its empty-dim disjuncts.
    Requires(Plain),
}

/// How a set of one symbol's values meets `1..=limit`.
enum Meets {
    Nothing,
    Everything,
    Some(ValueSet),
}

fn meets(set: &ValueSet, limit: i64) -> Meets {
    if set.empty_from(1) {
        Meets::Nothing
    } else if set.covers(1, limit) {
        Meets::Everything
    } else {
        Meets::Some(set.plainest_positive())
    }
}

impl Plain {
    /// What the condition asks of inputs whose dims are all in `1..=limit` (see the module
    /// docs).
    pub(crate) fn scope(&self, limit: i64) -> Scope {
        let mut parts = Vec::new();
        for part in &self.parts {
            match part {
                Part::Set { symbol, set } => match meets(set, limit) {
                    Meets::Nothing => return Scope::EmptyOnly,
                    Meets::Everything => {}
                    Meets::Some(set) => parts.push(Part::Set {
                        symbol: symbol.clone(),
                        set,
                    }),
                },
                Part::Any(pieces) => {
                    let mut kept = Vec::new();
                    let mut always = false;
                    for piece in pieces {
                        match piece {
                            Piece::Set { symbol, set } => match meets(set, limit) {
                                Meets::Nothing => {}
                                Meets::Everything => always = true,
                                Meets::Some(set) => kept.push(Piece::Set {
                                    symbol: symbol.clone(),
                                    set,
                                }),
                            },
                            Piece::Atom(atom) => kept.push(Piece::Atom(atom.clone())),
                        }
                    }
                    if always {
                        continue;
                    }
                    if kept.is_empty() {
                        return Scope::EmptyOnly;
                    }
                    parts.push(Part::Any(kept));
                }
            }
        }
        // Clauses past the work budget were not read: an empty-only head makes the whole
        // condition empty-only (it implies its head), but nothing can be dropped unread.
        match &self.rest {
            None if parts.is_empty() => Scope::Immaterial,
            rest => Scope::Requires(Plain {
                parts,
                rest: rest.clone(),
            }),
        }
    }

    /// Whether every input with dims in `1..=limit` that satisfies `self` satisfies `other`
    /// too: each of `other`'s parts follows from one of `self`'s (a set of the same symbol
    /// within it, or a clause whose disjuncts are all among its own, in any order: a wrong
    /// `Expand` target meets `seq = batch ∨ batch = 1 ∨ seq = 1` at the `Expand` and the same
    /// clause, written in another order, at the `Add` after it). `false` when that cannot be
    /// shown.
    pub(crate) fn implies(&self, other: &Plain, limit: i64) -> bool {
        if other.rest.is_some() {
            // Clauses kept as written past the work budget are compared as a whole only.
            return self == other;
        }
        other.parts.iter().all(|theirs| match theirs {
            Part::Set { symbol, set } => self.parts.iter().any(|mine| match mine {
                Part::Set {
                    symbol: own,
                    set: narrower,
                } => own == symbol && narrower.within(set, 1, limit),
                Part::Any(_) => false,
            }),
            Part::Any(wider) => self.parts.iter().any(|mine| match mine {
                Part::Any(pieces) => pieces.iter().all(|piece| wider.contains(piece)),
                Part::Set { .. } => false,
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::Scope;
    use crate::shape::condition::{Atom, Condition};
    use crate::shape::Dim;

    const LIMIT: i64 = 1_000_000_000;

    fn half(e: &Dim) -> Dim {
        e.add(&Dim::known(1)).floor_div(&Dim::known(2))
    }

    fn requires(c: &Condition) -> String {
        match c.plain().scope(LIMIT) {
            Scope::Requires(plain) => plain.to_string(),
            other => panic!("{c}: {other:?}"),
        }
    }

    #[test]
    fn an_element_count_equal_only_when_empty_is_empty_only() {
        // Reshape of batch*seq*4 elements into batch*seq*3.
        let (b, s) = (Dim::sym("batch"), Dim::sym("seq"));
        let c = Condition::eq(
            &b.mul(&s).mul(&Dim::known(4)),
            &b.mul(&s).mul(&Dim::known(3)),
        );
        assert_eq!(c.plain().to_string(), "batch = 0 ∨ seq = 0");
        assert_eq!(c.plain().scope(LIMIT), Scope::EmptyOnly);
        let n = Dim::sym("n");
        let only_zero = Condition::eq(&n, &Dim::known(0));
        assert_eq!(only_zero.plain().scope(LIMIT), Scope::EmptyOnly);
    }

    #[test]
    fn empty_dim_disjuncts_are_dropped() {
        // The rapidocr rec Reshape: n = 0 ∨ h ≤ 4 ∨ 33 ≤ w ≤ 80.
        let (batch, height, width) = (Dim::sym("n"), Dim::sym("h"), Dim::sym("x:2"));
        let rows = half(&half(&height)).floor_div(&Dim::known(2));
        let cols = half(&half(&half(&half(&width)))).floor_div(&Dim::known(3));
        let reshape = Condition::eq(&batch.mul(&rows).mul(&cols), &batch.mul(&rows));
        assert_eq!(requires(&reshape), "h ≤ 4 ∨ 33 ≤ `x:2` ≤ 80");
        let m = Dim::sym("m");
        let c = Condition::any_of([Atom::Eq(m.clone(), Dim::known(0)), Atom::IsOne(m)]);
        assert_eq!(c.plain().to_string(), "m ∈ {0, 1}");
        assert_eq!(requires(&c), "m = 1");
    }

    #[test]
    fn failing_only_when_empty_or_huge_is_immaterial() {
        let t = Dim::sym("tokens:1");
        // An LSTM over an empty sequence: tokens ≥ 1.
        let c = Condition::any_of([Atom::Eq(t.min(&Dim::known(1)), Dim::known(1))]);
        assert_eq!(c.plain().to_string(), "`tokens:1` ≥ 1");
        assert_eq!(c.plain().scope(LIMIT), Scope::Immaterial);
        let clamped = t.min(&Dim::known(LIMIT));
        let c = Condition::any_of([
            Atom::Eq(clamped.clone(), t.clone()),
            Atom::IsOne(t.clone()),
            Atom::IsOne(clamped),
        ]);
        assert_eq!(c.plain().to_string(), "`tokens:1` ≤ 1000000000");
        assert_eq!(c.plain().scope(LIMIT), Scope::Immaterial);
        match c.plain().scope(LIMIT + 1) {
            Scope::Requires(plain) => assert_eq!(plain.to_string(), "`tokens:1` ≤ 1000000000"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn stronger_lower_bounds_imply_weaker_ones() {
        let x = Dim::sym("image:1");
        let at_least = |k: i64| {
            let c = Condition::any_of([Atom::Eq(x.min(&Dim::known(k)), Dim::known(k))]);
            c.plain()
        };
        assert_eq!(at_least(32).to_string(), "`image:1` ≥ 32");
        assert!(at_least(32).implies(&at_least(2), LIMIT));
        assert!(!at_least(2).implies(&at_least(32), LIMIT));
        let y = Dim::sym("image:2");
        let both = Condition::any_of([Atom::Eq(x.min(&Dim::known(8)), Dim::known(8))]).and(
            &Condition::any_of([Atom::Eq(y.min(&Dim::known(8)), Dim::known(8))]),
        );
        assert!(both.plain().implies(&at_least(4), LIMIT));
        assert!(!at_least(8).implies(&both.plain(), LIMIT));
        // One clause in two orders, and a clause of fewer disjuncts than another.
        let (b, s) = (Dim::sym("batch"), Dim::sym("seq"));
        let expand = Condition::any_of([
            Atom::Eq(s.clone(), b.clone()),
            Atom::IsOne(b.clone()),
            Atom::IsOne(s.clone()),
        ])
        .plain();
        let add = Condition::any_of([
            Atom::Eq(s.clone(), b.clone()),
            Atom::IsOne(s.clone()),
            Atom::IsOne(b.clone()),
        ])
        .plain();
        assert_ne!(expand.to_string(), add.to_string());
        assert!(expand.implies(&add, LIMIT) && add.implies(&expand, LIMIT));
        let fewer =
            Condition::any_of([Atom::Eq(s.clone(), b.clone()), Atom::IsOne(b.clone())]).plain();
        assert!(fewer.implies(&add, LIMIT));
        assert!(!add.implies(&fewer, LIMIT));
        let divisible = Condition::eq(&x.modulo(&Dim::known(4)), &Dim::known(0)).plain();
        let even = Condition::eq(&x.modulo(&Dim::known(2)), &Dim::known(0)).plain();
        assert!(divisible.implies(&even, LIMIT));
        assert!(!even.implies(&divisible, LIMIT));
    }
}
