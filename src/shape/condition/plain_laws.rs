//! Property laws of plain forms: on random conditions over `a` and `b` whose dims nest
//! `floor(·/k)`, `· mod k`, `min`, `max`, sums and constant multiples of one symbol (the
//! shapes strided convolutions, pooling, slicing and padding produce) and products (which
//! factoring splits), the plain form
//! evaluates like the condition at every value of a wide range (0 ..= 1,500 for `a`, with `b`
//! on a grid, and far values up to 10^9), and its breaking value breaks the condition while
//! every smaller positive value of that symbol satisfies the symbol's own clauses.

use proptest::prelude::*;

use super::{Atom, Condition};
use crate::shape::{Binding, Dim, Tri};

fn symbol() -> impl Strategy<Value = Dim> {
    prop_oneof![Just(Dim::sym("a")), Just(Dim::sym("b"))]
}

/// A dim in one symbol (or a constant), nested a few levels deep.
fn dim() -> impl Strategy<Value = Dim> {
    let leaf = prop_oneof![
        1 => (0..70i64).prop_map(Dim::Known),
        3 => symbol(),
    ];
    leaf.prop_recursive(4, 24, 2, |inner| {
        prop_oneof![
            3 => (inner.clone(), 1..4i64).prop_map(|(e, k)| e.add(&Dim::known(k))),
            1 => (inner.clone(), 1..3i64).prop_map(|(e, k)| e.sub(&Dim::known(k))),
            1 => (inner.clone(), 2..9i64).prop_map(|(e, k)| e.mul(&Dim::known(k))),
            3 => (inner.clone(), 2..6i64).prop_map(|(e, k)| e.floor_div(&Dim::known(k))),
            1 => (inner.clone(), 2..9i64).prop_map(|(e, k)| e.modulo(&Dim::known(k))),
            1 => (inner.clone(), 0..80i64).prop_map(|(e, k)| e.min(&Dim::known(k))),
            1 => (inner.clone(), 0..80i64).prop_map(|(e, k)| e.max(&Dim::known(k))),
            1 => (inner.clone(), inner.clone()).prop_map(|(x, y)| x.min(&y)),
            1 => (inner.clone(), inner.clone()).prop_map(|(x, y)| x.max(&y)),
            1 => (inner.clone(), inner).prop_map(|(x, y)| x.mul(&y)),
        ]
    })
}

fn atom() -> impl Strategy<Value = Atom> {
    prop_oneof![
        3 => (dim(), dim()).prop_map(|(x, y)| Atom::Eq(x, y)),
        1 => dim().prop_map(Atom::IsOne),
    ]
}

fn condition() -> impl Strategy<Value = Condition> {
    prop::collection::vec(prop::collection::vec(atom(), 1..4), 1..4).prop_map(|clauses| {
        clauses
            .into_iter()
            .fold(Condition::truth(), |acc, c| acc.and(&Condition::any_of(c)))
    })
}

fn at(a: i64, b: i64) -> Binding {
    [("a".to_owned(), a), ("b".to_owned(), b)]
        .into_iter()
        .collect()
}

/// Values of `a` checked: a wide contiguous range, then far values.
fn values() -> impl Iterator<Item = i64> {
    (0..=1_500).chain([
        4_095,
        4_096,
        4_097,
        65_535,
        65_536,
        65_537,
        999_983,
        1_000_000,
        123_456_789,
        1_000_000_000,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn plain_form_is_equivalent(cond in condition()) {
        let plain = cond.plain();
        for a in values() {
            for b in [0, 1, 3, 65, 1_000] {
                let want = cond.eval(&at(a, b));
                // The engine's own evaluation may overflow on far values: nothing to compare.
                if want == Tri::Unknown {
                    continue;
                }
                prop_assert_eq!(plain.eval(&at(a, b)), want, "{} vs {} at a={}, b={}", plain, cond, a, b);
            }
        }
    }

    #[test]
    fn breaking_value_is_the_smallest(cond in condition()) {
        let Some(breaking) = cond.plain().breaking() else {
            return Ok(());
        };
        // It breaks the condition whatever the symbols it leaves free.
        for other in [0, 1, 5, 100] {
            let mut b = at(other, other);
            b.extend(breaking.clone());
            let got = cond.eval(&b);
            prop_assert!(got != Tri::Yes, "{} at {:?}", cond, b);
        }
        let [(name, value)] = breaking.iter().collect::<Vec<_>>()[..] else {
            return Ok(());
        };
        // One symbol: every smaller positive value satisfies that symbol's own clauses.
        let own = cond
            .clauses()
            .iter()
            .map(|c| Condition::any_of(c.atoms().iter().cloned()))
            .filter(|c| c.symbols().len() == 1 && c.symbols().contains(name.as_str()))
            .fold(Condition::truth(), |acc, c| acc.and(&c));
        for v in 1..*value {
            let b: Binding = [(name.clone(), v)].into_iter().collect();
            prop_assert_eq!(own.eval(&b), Tri::Yes, "{} at {}={}", own, name, v);
        }
    }
}
