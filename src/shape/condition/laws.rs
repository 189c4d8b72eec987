//! Property laws of conditions: on random conditions over `a`, `b`, `c`, the bounded search
//! agrees with brute force over a grid of values: a witness holds, a counterexample fails,
//! `No` means no grid point satisfies, forced values contain every grid model's values, and
//! neither normalising an atom nor simplifying a condition changes its truth value.

use proptest::prelude::*;

use super::{Atom, Condition};
use crate::shape::{Binding, Dim, Tri};

const NAMES: [&str; 3] = ["a", "b", "c"];

fn s(i: usize) -> Dim {
    Dim::sym(NAMES[i])
}

fn dim() -> impl Strategy<Value = Dim> {
    prop_oneof![
        2 => (0..5i64).prop_map(Dim::Known),
        3 => (0..3usize).prop_map(s),
        1 => (0..3usize, 1..4i64).prop_map(|(i, k)| s(i).add(&Dim::known(k))),
        1 => (0..3usize, 2..4i64).prop_map(|(i, k)| s(i).mul(&Dim::known(k))),
        1 => (0..3usize, 0..3usize).prop_map(|(i, j)| s(i).mul(&s(j))),
    ]
}

fn atom() -> impl Strategy<Value = Atom> {
    prop_oneof![
        (dim(), dim()).prop_map(|(x, y)| Atom::Eq(x, y)),
        dim().prop_map(Atom::IsOne),
    ]
}

fn condition() -> impl Strategy<Value = Condition> {
    prop::collection::vec(prop::collection::vec(atom(), 1..4), 0..4).prop_map(|clauses| {
        clauses
            .into_iter()
            .fold(Condition::truth(), |acc, c| acc.and(&Condition::any_of(c)))
    })
}

fn grid() -> Vec<Binding> {
    let mut out = Vec::new();
    for a in 0..7 {
        for b in 0..7 {
            for c in 0..7 {
                out.push(
                    NAMES
                        .iter()
                        .map(|n| (*n).to_string())
                        .zip([a, b, c])
                        .collect(),
                );
            }
        }
    }
    out
}

proptest! {
    #[test]
    fn search_agrees_with_brute_force(cond in condition()) {
        let models: Vec<Binding> = grid().into_iter().filter(|b| cond.eval(b).is_yes()).collect();
        let sat = cond.satisfiable();
        // The broadcast rules ask only whether it never holds, without the witness search.
        prop_assert_eq!(cond.never_holds(), sat == Tri::No, "{}", cond);
        if !models.is_empty() {
            prop_assert_ne!(sat, Tri::No, "{} has model {:?}", cond, models[0]);
        }
        if sat == Tri::Yes {
            prop_assert_eq!(cond.eval(&cond.witness().unwrap()), Tri::Yes);
        }
        if let Some(cx) = cond.counterexample() {
            prop_assert_eq!(cond.eval(&cx), Tri::No);
        }
        if let Some(forced) = cond.forced_values() {
            for m in &models {
                for (name, values) in &forced {
                    let v = m.get(name).copied().unwrap_or_default();
                    prop_assert!(values.contains(&v), "{}: {}={} not in {:?}", cond, name, v, values);
                }
            }
        }
    }

    #[test]
    fn simplify_is_equivalent(cond in condition()) {
        let simple = cond.simplify();
        for b in grid() {
            prop_assert_eq!(simple.eval(&b), cond.eval(&b), "{} vs {}", simple, cond);
        }
    }

    #[test]
    fn normalising_keeps_truth(x in dim(), y in dim()) {
        let raw = Atom::Eq(x.clone(), y.clone());
        let norm = Condition::eq(&x, &y);
        for b in grid() {
            prop_assert_eq!(norm.eval(&b), raw.eval(&b), "{} vs {}", norm, raw);
        }
    }
}
