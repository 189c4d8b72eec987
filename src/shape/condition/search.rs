//! Bounded search over symbol values: satisfiability, counterexamples, forced values.
//!
//! Candidate values per symbol: every non-negative literal of the condition (and 1); then, for
//! conditions outside the equality fragment below, also 0, 1, 2, each literal's neighbours and
//! the solutions of atoms linear in one symbol; then `N` fresh values (N = number of symbols),
//! larger than every literal and distinct. At most `BUDGET` (`candidates.rs`) assignments are tried.
//!
//! Completeness: when every atom is `s = t`, `s = c` or `s = 1` for symbols `s`, `t` and a
//! constant `c` (the fragment broadcasting produces from plain symbols), renaming the values of
//! a model that are not literals to distinct fresh values keeps it a model, so trying all
//! candidate assignments decides satisfiability exactly. Outside that fragment, or when the
//! budget is too small, failing to find a model answers `Tri::Unknown`, never `No`.

use std::collections::{BTreeMap, BTreeSet};

use super::candidates::Space;
use super::{Condition, Conjunction};
use crate::shape::{Binding, Dim, Tri};

impl Condition {
    /// Calls `visit` on candidate assignments until it returns `true` or the budget runs out;
    /// returns whether `visit` stopped the search.
    fn enumerate(&self, space: &Space, mut visit: impl FnMut(&Binding, Tri) -> bool) -> bool {
        let mut idx = vec![0usize; space.names.len()];
        let mut binding: Binding = space
            .names
            .iter()
            .zip(&space.values)
            .filter_map(|(n, vals)| Some((n.clone(), *vals.first()?)))
            .collect();
        for _ in 0..space.tries {
            if visit(&binding, self.eval(&binding)) {
                return true;
            }
            // Odometer step, updating only the digits that change; done when all wrapped.
            let mut carry = true;
            for ((i, vals), name) in idx.iter_mut().zip(&space.values).zip(&space.names) {
                *i += 1;
                if *i >= vals.len() {
                    *i = 0;
                }
                if let (Some(slot), Some(v)) = (binding.get_mut(name), vals.get(*i)) {
                    *slot = *v;
                }
                if *i != 0 {
                    carry = false;
                    break;
                }
            }
            if carry {
                return false;
            }
        }
        false
    }

    /// An equivalent, simpler condition: symbols that the equality-fragment clauses force to
    /// a single value `v` become unit clauses `s = v`, substituted into every other clause
    /// (`n ∈ {1, 3} ∧ n ∈ {1, 4}` becomes `n = 1`). Sound because every model of the whole
    /// condition is a model of those clauses.
    /// A condition past its work budget (`work.rs`) is kept as it is.
    #[must_use]
    pub(crate) fn simplify(&self) -> Condition {
        if self.over_budget() {
            return self.clone();
        }
        let Some(forced) = self.core().forced_values() else {
            return self.clone();
        };
        let binding: Binding = forced
            .iter()
            .filter_map(|(s, vs)| match vs.iter().collect::<Vec<_>>().as_slice() {
                [v] => Some((s.clone(), **v)),
                _ => None,
            })
            .collect();
        if binding.is_empty() {
            return self.clone();
        }
        let mut simple = Conjunction::default();
        for (s, v) in &binding {
            simple.and(&Condition::eq(&Dim::sym(s), &Dim::known(*v)));
        }
        for c in self.clauses.iter() {
            simple.and(&Condition::any_of(
                c.0.iter().map(|a| a.substitute(&binding)),
            ));
        }
        simple.finish()
    }

    /// A binding of the condition's symbols under which it holds, if the search finds one.
    /// None is searched for past the condition's work budget (`work.rs`).
    #[cfg(test)]
    pub(crate) fn witness(&self) -> Option<Binding> {
        if self.over_budget() {
            return None;
        }
        self.witness_in(&self.space())
    }

    /// [`Condition::witness`], searching `space`.
    fn witness_in(&self, space: &Space) -> Option<Binding> {
        // Broadcasting conditions usually hold when every symbol is 1, or all are equal:
        // try those before the full search.
        // As many as the search's tries: a condition over thousands of symbols has thousands
        // of candidates, each a pass over every atom.
        for v in space
            .values
            .first()
            .into_iter()
            .flat_map(|values| values.iter())
            .take(space.tries)
        {
            let uniform: Binding = space.names.iter().map(|n| (n.clone(), *v)).collect();
            if self.eval(&uniform).is_yes() {
                return Some(uniform);
            }
        }
        let mut found = None;
        self.enumerate(space, |b, t| {
            let hit = t.is_yes();
            if hit {
                found = Some(b.clone());
            }
            hit
        });
        found
    }

    /// Whether the condition provably never holds: `satisfiable() == No`, without the search
    /// for a witness when no search could prove it. Outside the equality fragment a bounded
    /// search that finds no witness proves nothing, and one that finds it only says `Yes`, so
    /// only the core's search is run; a non-linear condition over many nodes spent most of
    /// its time there (issue 19 hunt: 18 ms a node).
    pub(crate) fn never_holds(&self) -> bool {
        if self.is_true() {
            return false;
        }
        if self.is_false() {
            return true;
        }
        if self.over_budget() {
            // The whole implies its head (`work.rs`): a head that never holds proves it.
            return self.head().never_holds();
        }
        let space = self.space();
        if space.decisive {
            return self.witness_in(&space).is_none();
        }
        self.core_never_holds()
    }

    /// Whether the clauses inside the equality fragment, weaker than the whole condition, are
    /// proven unsatisfiable alone: then so is the whole.
    fn core_never_holds(&self) -> bool {
        let core = self.core();
        if core.is_true() {
            return false;
        }
        let space = core.space();
        space.decisive && core.witness_in(&space).is_none()
    }

    /// Whether some binding of non-negative integers satisfies the condition: `Yes` with a
    /// witness, `No` only when proven (empty clause, or exhaustive search in the equality
    /// fragment), else `Unknown`.
    #[cfg(test)]
    pub(crate) fn satisfiable(&self) -> Tri {
        if self.is_true() {
            return Tri::Yes;
        }
        if self.is_false() {
            return Tri::No;
        }
        if self.over_budget() {
            // A witness of the head (`work.rs`) need not satisfy the whole: only `No` carries.
            return if self.head().never_holds() {
                Tri::No
            } else {
                Tri::Unknown
            };
        }
        let space = self.space();
        if self.witness_in(&space).is_some() {
            Tri::Yes
        } else if space.decisive || self.core_never_holds() {
            Tri::No
        } else {
            Tri::Unknown
        }
    }

    /// A binding under which the condition fails (for "fails when batch=2"), preferring values
    /// 2, 3, ... over 1, and positive values over 0: a binding with a 0 (an empty dim) only
    /// when no positive one within the search breaks it. The odometer turns the first symbol
    /// fastest, so `batch=0, seq=2` came before `batch=2, seq=3`.
    ///
    /// Past the condition's work budget (`work.rs`), one that breaks its head, which breaks the
    /// whole.
    pub(crate) fn counterexample(&self) -> Option<Binding> {
        if self.over_budget() {
            return self.head().counterexample();
        }
        let space = self.space();
        let mut empty = None;
        let mut found = None;
        self.enumerate(&space, |b, t| {
            if !t.is_no() {
                return false;
            }
            if b.values().all(|v| *v > 0) {
                found = Some(b.clone());
                return true;
            }
            if empty.is_none() {
                empty = Some(b.clone());
            }
            false
        });
        found.or(empty)
    }

    /// For each symbol limited to finitely many values by the condition, those values
    /// (`n ∈ {1, 3} ∧ n ∈ {1, 4}` gives `n: {1}`); every symbol maps to the empty set when the
    /// condition is unsatisfiable. `None` when the search cannot decide (see module docs).
    /// `None` past the condition's work budget (`work.rs`).
    pub(crate) fn forced_values(&self) -> Option<BTreeMap<String, BTreeSet<i64>>> {
        if self.over_budget() {
            return None;
        }
        let space = self.space();
        if !space.decisive {
            return None;
        }
        let mut seen: BTreeMap<String, BTreeSet<i64>> = space
            .names
            .iter()
            .map(|n| (n.clone(), BTreeSet::new()))
            .collect();
        let mut unbounded: BTreeSet<String> = BTreeSet::new();
        self.enumerate(&space, |b, t| {
            if t.is_yes() {
                for (name, v) in b {
                    if space.fresh.contains(v) {
                        unbounded.insert(name.clone());
                    } else if let Some(set) = seen.get_mut(name) {
                        set.insert(*v);
                    }
                }
            }
            false
        });
        seen.retain(|name, _| !unbounded.contains(name));
        Some(seen)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use crate::shape::condition::{Atom, Condition};
    use crate::shape::{Dim, Tri};

    fn in_set(d: &Dim, values: &[i64]) -> Condition {
        Condition::any_of(values.iter().map(|v| Atom::Eq(d.clone(), Dim::known(*v))))
    }

    #[test]
    fn intersection_forces_one() {
        let n = Dim::sym("n");
        let c = in_set(&n, &[1, 3]).and(&in_set(&n, &[1, 4]));
        let forced = c.forced_values().unwrap();
        assert_eq!(forced.get("n"), Some(&BTreeSet::from([1])));
        assert_eq!(c.satisfiable(), Tri::Yes);
    }

    #[test]
    fn simplify_substitutes_forced_values() {
        let n = Dim::sym("n");
        let c = in_set(&n, &[1, 3]).and(&in_set(&n, &[1, 4]));
        assert_eq!(c.simplify().to_string(), "n = 1");
        let m = Dim::sym("m");
        let with_product = c.and(&in_set(&n.mul(&m), &[1, 5]));
        assert_eq!(with_product.simplify().to_string(), "n = 1 ∧ m ∈ {1, 5}");
    }

    #[test]
    fn disjoint_sets_are_unsatisfiable() {
        let n = Dim::sym("n");
        let c = in_set(&n, &[3]).and(&in_set(&n, &[4]));
        assert_eq!(c.satisfiable(), Tri::No);
        assert_eq!(c.witness(), None);
    }

    #[test]
    fn counterexample_prefers_small_values_above_one() {
        let batch = Dim::sym("batch");
        let seq = Dim::sym("seq");
        let c = in_set(&batch, &[1, 3]).and(&Condition::any_of([
            Atom::Eq(batch.clone(), seq.clone()),
            Atom::IsOne(seq),
        ]));
        let cx = c.counterexample().unwrap();
        assert_eq!(c.eval(&cx), Tri::No);
        assert!(cx.values().all(|v| *v >= 1), "{cx:?}");
    }

    #[test]
    fn counterexample_is_positive_when_a_positive_one_breaks() {
        // `min(batch, 1) = 1` breaks only at batch = 0; `seq ∈ {2, batch}` at seq = 3, batch =
        // 2. The search turns batch fastest, so batch = 0, seq = 2 came first.
        let (batch, seq) = (Dim::sym("batch"), Dim::sym("seq"));
        let c =
            Condition::eq(&batch.min(&Dim::known(1)), &Dim::known(1)).and(&Condition::any_of([
                Atom::Eq(seq.clone(), Dim::known(2)),
                Atom::Eq(seq, batch.clone()),
            ]));
        let cx = c.counterexample().unwrap();
        assert_eq!(c.eval(&cx), Tri::No);
        assert!(cx.values().all(|v| *v > 0), "{cx:?}");
        // When only an empty dim breaks it, the empty dim is the answer.
        let only_empty = Condition::eq(&batch.min(&Dim::known(1)), &Dim::known(1));
        let cx = only_empty.counterexample().unwrap();
        assert_eq!(cx.get("batch"), Some(&0));
    }

    #[test]
    fn counterexample_for_two_symbols_uses_small_distinct_values() {
        let (n, m) = (Dim::sym("batch"), Dim::sym("seq"));
        let c = Condition::any_of([
            Atom::Eq(n.clone(), m.clone()),
            Atom::IsOne(n),
            Atom::IsOne(m),
        ]);
        let cx = c.counterexample().unwrap();
        let text: Vec<String> = cx.iter().map(|(k, v)| format!("{k}={v}")).collect();
        assert_eq!(text.join(", "), "batch=3, seq=2");
    }

    #[test]
    fn nonlinear_conditions_never_claim_unsat() {
        let n = Dim::sym("n");
        let m = Dim::sym("m");
        let c = Condition::eq(&n.mul(&m), &Dim::known(6));
        assert_eq!(c.satisfiable(), Tri::Yes);
        let square = Condition::eq(&n.mul(&n), &Dim::known(7));
        assert_eq!(square.satisfiable(), Tri::Unknown);
        assert_eq!(square.forced_values(), None);
    }

    #[test]
    fn unsat_equality_core_decides_nonlinear_condition() {
        let a = Dim::sym("a");
        let ab = a.mul(&Dim::sym("b"));
        let c = in_set(&a, &[0, 2])
            .and(&in_set(&a, &[1, 3]))
            .and(&in_set(&ab, &[1, 3]));
        assert_eq!(c.satisfiable(), Tri::No);
    }

    #[test]
    fn many_symbols_stay_within_budget() {
        let mut c = Condition::truth();
        for i in 0..12 {
            let a = Dim::sym(&format!("s{i}"));
            let b = Dim::sym(&format!("s{}", i + 1));
            c = c.and(&Condition::any_of([Atom::Eq(a.clone(), b), Atom::IsOne(a)]));
        }
        assert_eq!(c.satisfiable(), Tri::Yes);
        assert_eq!(c.forced_values(), None);
    }
}
